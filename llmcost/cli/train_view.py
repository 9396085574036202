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


def evidence_text(ev: dict[str, Any] | None) -> str:
    """``56.1% (case-id, 512 GPUs)``: the best MFU a published run of the plan's device family and
    size reached (:func:`llmcost.validation.bands.evidence`), ``-`` when there is none."""
    if not ev:
        return "-"
    return f"{100 * ev['mfu']:.1f}% ({ev['case']}, {ev['gpus']:,} GPUs)"


def _row_head(r: dict[str, Any]) -> dict[str, Any]:
    """The first columns of a ``--breakdown`` / ``--sublayers`` table row: layer shape, its count, pass."""
    return {"layer": r["layer"], "x": r["layers"], "phase": r["phase"]}


def ops_rows(rows: list[dict[str, Any]], table: bool) -> list[dict[str, Any]]:
    """``--breakdown``: the operator rows (:meth:`llmcost.api.TrainReport.operators`), as they are for
    JSON / YAML / CSV, in readable units for the table."""
    from llmcost.units import fmt_time

    if not table:
        return rows
    return [
        {
            **_row_head(r),
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


def sublayer_table(rows: list[dict[str, Any]], table: bool) -> list[dict[str, Any]]:
    """``--sublayers``: the TP sublayer rows (:meth:`llmcost.api.TrainReport.sublayers`), as they are
    for JSON / YAML / CSV, in readable units for the table."""
    from llmcost.units import fmt_time

    if not table:
        return rows
    return [
        {
            **_row_head(r),
            "gemm": r["gemm"],
            "collective": r["collective"],
            "gemm time": fmt_time(r["gemm_s"]),
            "collective time": fmt_time(r["collective_s"]),
            "sequential": fmt_time(r["sequential_s"]),
            "this plan": fmt_time(r["plan_s"]),
            "speed-up": f"{r['speedup']:.3f}x",
        }
        for r in rows
    ]


def sublayer_note(rows: list[dict[str, Any]]) -> str:
    """The geometric-mean speed-up line under ``--sublayers`` (the ``sublayer_speedup`` metric)."""
    from llmcost.training.plan import sublayer_speedup

    if not rows:
        return "no TP sublayers: the plan has tp 1"
    return (
        f"sublayer_speedup (geometric mean over the sublayers, weighted by layers): {sublayer_speedup(rows):.4f}x"
        " over running each GEMM and its collective(s) one after the other"
    )


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
        {"quantity": "best published MFU this size", "value": evidence_text(out.get("evidence"))},
        {"quantity": "HFU", "value": f"{100 * out['hfu']:.1f}%"},
        {"quantity": "memory per GPU", "value": f"{out['memory_gib_per_gpu']:.1f} GiB"},
        *(
            {"quantity": f"  {k}", "value": f"{v / GIB:.2f} GiB"}
            for k, v in out["memory_bytes"].items()
            if v > 0
        ),
    ]
    net = out.get("network")
    if net:
        rows += _network_rows(net)
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


def network_note(b: dict[str, Any]) -> str:
    """One line of a network bill (:meth:`llmcost.api.SearchReport.networks`, ``train``'s ``network``)."""
    tiers = f"{b['tiers']} tier{'s' if b['tiers'] > 1 else ''} of {b['radix']}-port switches"
    rails = f", {b['rails']} rails" if b["rails"] > 1 else ""
    head = (
        f"network {b['topology']} for {b['devices']:,} GPUs: {b['switches']:,} switches ({tiers}{rails}), "
        f"{b['nics']:,} NICs, {b['transceivers']:,} transceivers, {b['cables']:,} cables ({b['parts']})"
    )
    if b["cost_usd"] is None:
        return head + "; no public prices for these parts"
    tail = f": ${b['cost_usd'] / 1e6:,.2f}M, ${b['usd_per_device_hour']:.3f} per GPU-hour over {b['life_years']:g} years"
    if b.get("share_of_price") is not None:
        tail += f" ({100 * b['share_of_price']:.1f}% of the device-hour price)"
    return head + tail


def _network_rows(net: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows of the plan's scale-out network (:meth:`llmcost.api.TrainReport.network`), short enough
    for the table."""
    rails = f", {net['rails']} rails" if net["rails"] > 1 else ""
    rows = [
        {
            "quantity": "network",
            "value": f"{net['topology']}: {net['tiers']} tier{'s' if net['tiers'] > 1 else ''} of {net['radix']}-port{rails}",
        },
        {"quantity": "  switches, NICs", "value": f"{net['switches']:,}, {net['nics']:,} ({net['parts']})"},
        {"quantity": "  transceivers, cables", "value": f"{net['transceivers']:,}, {net['cables']:,}"},
    ]
    if net["cost_usd"] is not None:
        rows.append({"quantity": "  capital cost", "value": f"${net['cost_usd'] / 1e6:,.2f}M"})
        share = net.get("share_of_price")
        per_h = f"${net['usd_per_device_hour']:.3f} over {net['life_years']:g} years"
        rows.append(
            {
                "quantity": "  per GPU-hour",
                "value": per_h + ("" if share is None else f" ({100 * share:.1f}% of the price)"),
            }
        )
    if net["network_cost_ratio"] is not None:
        rows.append({"quantity": "  cost / fat tree's", "value": f"{net['network_cost_ratio']:.3f}"})
    rows.append({"quantity": "  step time / on a fat tree", "value": f"{net['network_step_time_ratio']:.4f}"})
    return rows


def _builders(r: Any) -> tuple[Any, dict[str, str]]:
    """The step-time expression of ``r``'s plan, and where it and each formula in it are built."""
    from llmcost.cli.formula_index import find, location
    from llmcost.training import formulas as F

    plan = r.layout.plan
    streaming = (plan.sync_fragments, plan.sync_overlap) != (1, 0)
    mode = "overlap" if plan.overlap_dp else "serial"
    mode = ("streaming" if streaming else "diloco") if plan.sync_interval > 1 else mode
    expr = F.step_expression(plan.schedule, mode, plan.zero == 3, plan.zero3_serial)
    builders = {"T": location(F.step_expression)}
    z3 = [("zero3__serial" if plan.zero3_serial else "zero3")] if plan.zero == 3 else []
    if z3 and plan.zero3_bucket is not None:  # t_z3_ag / t_z3_rs are n_z3 bucket collectives
        z3 += ["zero3__collectives", "zero3__layer_comm"]
    if z3 and plan.zero3_copy_out:  # t_z3_copy
        z3 += ["zero3__copy_out"]
    unpaired = "pp__p2p_unpaired" if plan.pp_p2p_full else "pp__p2p_serial"
    p2p = "pp__p2p_overlap" if plan.pp_overlap else unpaired  # t_pp_p2p
    power = ("throttle", "throttle__compute_time")  # kappa_clk: economics throttle__rate
    for name in (f"pipeline__{plan.schedule}", p2p, f"dp__{mode}", *z3, *power, *_tp_formula(r)):
        f = find(f"training.{name}")
        builders[name] = f"{f.location}" + (f" as {f.via}" if f.via else "")
    return expr, builders


def _tp_formula(r: Any) -> list[str]:
    """The formula behind the layers' exposed TP communication (in ``t_stage``), none without TP."""
    plan, sp = r.layout.plan, bool(r.layout.sp)
    if r.layout.tp <= 1:
        return []
    if plan.tp_fused_rs:
        return ["tp__fused_rs"]
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


def kernel_note(times: dict[str, float] | None) -> str | None:
    """``--breakdown``'s line of one step's device time by kernel class (None with pipelines)."""
    if times is None:
        return None
    from llmcost.units import fmt_time

    parts = ", ".join(f"{k.removesuffix('_time_s')} {fmt_time(v)}" for k, v in times.items())
    return (
        f"one step on one GPU by kernel class: {parts}. Against profiled H100 steps llmcost prices GEMMs slow "
        "and elementwise passes fast while the step holds (figures: hardware/measured/README.md)"
    )
