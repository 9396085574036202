"""What ``llmcost train`` prints: the result (:meth:`llmcost.api.TrainReport.as_dict`) as
(quantity, value) rows, and the ``--explain`` step-time expression with its values and builders."""

from __future__ import annotations

from typing import Any

from llmcost.units import GIB


def band_text(band: list[float] | None) -> str:
    """``-28% .. +15%``: the true throughput of published runs like the plan, relative to the
    prediction (``-`` when there is no band)."""
    if not band:
        return "-"
    return f"{100 * band[0]:+.0f}% .. {100 * band[1]:+.0f}%"


def ops_rows(rows: list[dict[str, Any]], table: bool) -> list[dict[str, Any]]:
    """``--breakdown``: the operator rows (:meth:`llmcost.api.TrainReport.operators`), as they are for
    JSON / YAML / CSV, in readable units for the table."""
    from llmcost.units import fmt_time

    if not table:
        return rows
    return [
        {
            "layer": r["layer"],
            "x": r["layers"],
            "phase": r["phase"],
            "op": r["op"],
            "kind": r["kind"],
            "time": fmt_time(r["time_s"]),
            "recompute": fmt_time(r["recompute_s"]) if r["recompute_s"] else "",
            "GFLOP": r["flops"] / 1e9,
            "MB": r["hbm_bytes"] / 1e6,
            "TFLOP/s": r["flops_per_s"] / 1e12,
            "bound": r["bound"],
        }
        for r in rows
    ]


def table_rows(out: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows (quantity, value) for the rich table, of the ``--format json`` document ``out``."""
    from llmcost.units import fmt_time

    rows = [
        {"quantity": "step time", "value": fmt_time(out["iteration_time_s"])},
        *(
            {"quantity": f"  {k.replace('_', ' ')}", "value": fmt_time(v)}
            for k, v in out["time_breakdown_s"].items()
            if v > 0
        ),
        {"quantity": "tokens/s", "value": f"{out['tokens_per_s']:,.0f}"},
        {"quantity": "tokens/s per GPU", "value": f"{out['tokens_per_s_per_gpu']:,.1f}"},
        {"quantity": "model TFLOP/s per GPU", "value": f"{out['model_tflops_per_gpu']:.1f}"},
        {"quantity": "hardware TFLOP/s per GPU", "value": f"{out['hardware_tflops_per_gpu']:.1f}"},
        {"quantity": "MFU", "value": f"{100 * out['mfu']:.1f}%"},
        {"quantity": "band (runs like this)", "value": band_text(out.get("band"))},
        {"quantity": "HFU", "value": f"{100 * out['hfu']:.1f}%"},
        {"quantity": "memory per GPU", "value": f"{out['memory_gib_per_gpu']:.1f} GiB"},
        *(
            {"quantity": f"  {k}", "value": f"{v / GIB:.2f} GiB"}
            for k, v in out["memory_bytes"].items()
            if v > 0
        ),
    ]
    if "mean_draw_w" in out:
        rows += [
            {"quantity": "mean draw per GPU", "value": f"{out['mean_draw_w']:,.0f} W"},
            {"quantity": "energy per token", "value": f"{out['joules_per_token']:.4g} J"},
        ]
    if "time_to_train_s" in out:
        rows += [
            {"quantity": "total FLOPs", "value": f"{out['total_flops']:.3e}"},
            {"quantity": "time to train", "value": f"{out['time_to_train_s'] / 86400:.1f} days"},
            {"quantity": "GPU-hours", "value": f"{out['gpu_hours']:,.0f}"},
            {"quantity": "energy", "value": f"{out['energy_j'] / 3.6e9:,.1f} MWh"},
            {"quantity": "cost", "value": "-" if out["cost_usd"] is None else f"${out['cost_usd']:,.0f}"},
        ]
    return rows


def _builders(r: Any) -> tuple[Any, dict[str, str]]:
    """The step-time expression of ``r``'s plan, and where it and each formula in it are built."""
    from llmcost.cli.formula_index import find, location
    from llmcost.training import formulas as F

    plan = r.layout.plan
    mode = "diloco" if plan.sync_interval > 1 else "overlap" if plan.overlap_dp else "serial"
    expr = F.step_expression(plan.schedule, mode, plan.zero == 3)
    builders = {"T": location(F.step_expression)}
    z3 = ["zero3"] if plan.zero == 3 else []
    if z3 and plan.zero3_bucket is not None:  # t_z3_ag / t_z3_rs are n_z3 bucket collectives
        z3 += ["zero3__collectives", "zero3__layer_comm"]
    p2p = "pp__p2p_overlap" if plan.pp_overlap else "pp__p2p_serial"  # t_pp_p2p
    for name in (f"pipeline__{plan.schedule}", p2p, f"dp__{mode}", *z3, *_tp_formula(r)):
        f = find(f"training.{name}")
        builders[name] = f"{f.location}" + (f" as {f.via}" if f.via else "")
    return expr, builders


def _tp_formula(r: Any) -> list[str]:
    """The formula behind the layers' exposed TP communication (in ``t_stage``), none without TP."""
    plan, sp = r.layout.plan, bool(r.layout.sp)
    if r.layout.tp <= 1:
        return []
    if plan.tp_overlap and sp:
        return ["tp__overlap"]
    name = "tp__sp" if sp else "tp__all_reduce"
    return [f"{name}_async" if plan.tp_bwd_overlap else name]


def explain_doc(r: Any) -> dict[str, Any]:
    """The step-time expression (:func:`llmcost.training.formulas.step_expression`) with the values
    that went into it and the functions that build it, as one JSON / YAML value (the result
    document's ``explain``)."""
    import sympy as sp

    from llmcost.cli.explaining import explain_rows

    expr, builders = _builders(r)
    rows = explain_rows(expr, dict(r.values))
    text = f"T = {sp.sstr(expr)}"
    return {
        "expression": text,
        "latex": sp.latex(expr),
        "symbols": rows,
        "step_time_s": r.step_time,
        "builders": builders,
    }


def explain(r: Any) -> None:
    """:func:`explain_doc` as text and a table of the symbols (after the result table)."""
    from llmcost.report import emit

    doc = explain_doc(r)
    builders = doc["builders"]
    print(doc["expression"])
    print(
        f"= {r.step_time:.6g} s  (t_dp, t_ag, t_z3_ag, t_z3_rs, t_p2p: collective times, see llmcost collective)"
    )
    terms = [k for k in builders if k != "T"]
    print(f"T is built by {builders['T']} from {', '.join(terms)} (llmcost explain NAME):")
    for name in terms:
        print(f"  {name}  [{builders[name]}]")
    emit(doc["symbols"], "table", title="symbols")
