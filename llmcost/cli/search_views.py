"""What ``llmcost search train | infer`` print: one row per plan, and the result as a table or a
document."""

from __future__ import annotations

from typing import Any

from llmcost.cli.train_view import band_text, network_note


def what(res: Any, n: int) -> str:
    """``Pareto front (a vs b)`` or ``top N by OBJECTIVE``: the end of a search table's title."""
    return f"Pareto front ({' vs '.join(res.pareto)})" if res.pareto else f"top {n} by {res.objective}"


def emit_search(
    res: Any,
    fmt: str,
    rows: list[dict[str, Any]],
    title: str,
    launch: list[str] | None = None,
    network: list[dict[str, Any]] | None = None,
) -> None:
    """The search result: the document (JSON / YAML), flat plan rows (CSV) or ``rows`` as a table;
    with ``launch`` (``--emit``), the top plan's launch config alone, or each plan's under ``emit``;
    ``network`` (a train search's bills): under ``network``, or a note line each."""
    from llmcost.report import emit

    if launch is not None and fmt == "table":
        if not launch:
            from llmcost.errors import UserError

            raise UserError("--emit: the search kept no plan (see the rejected counts without --emit)")
        print(launch[0])
        return
    if fmt in ("json", "yaml"):
        doc = res.to_dict()
        for plan, text in zip(doc["plans"], launch or [], strict=False):
            plan["emit"] = text
        if network is not None:
            doc["network"] = network
        emit(doc, fmt)
        return
    if fmt == "csv":
        flat = []
        for p in res.plans:
            row = {
                **{f"plan.{k}": v for k, v in p["plan"].items()},
                **p["metrics"],
                "bottleneck": p["bottleneck"],
            }
            if "hardware" in p:
                row = {"hardware": p["hardware"], **row}
            flat.append(row)
        emit(flat, "csv")
        return
    rej = ", ".join(f"{k}: {v:,}" for k, v in list(res.rejected.items())[:4])
    notes = [
        f"{res.plans_evaluated:,} plans evaluated in {res.elapsed_s:.2f} s; {res.feasible:,} feasible; "
        f"rejected: {rej or 'none'}",
        *res.notes,
        *(network_note(b) for b in network or ()),
    ]
    emit(rows, "table", title=title, notes=notes)


def train_row(rank: int, p: dict[str, Any]) -> dict[str, Any]:
    """Table row of one training plan."""
    from llmcost.units import fmt_time

    pl, m = p["plan"], p["metrics"]
    zero = "distopt" if pl["distributed_optimizer"] else str(pl["zero"])
    sched = pl["schedule"] + (f"/{pl['virtual_stages']}" if pl.get("virtual_stages") else "")
    row = {
        "#": rank,
        "gpus": pl["gpus"],
        "tp": pl["tp"],
        "pp": pl["pp"],
        "dp": pl["dp"],
        "cp": pl["cp"],
        "ep": pl["ep"],
        "sp": ("on+tpo" if pl.get("tp_overlap") else "on") if pl["sp"] else "off",
        "mb": pl["micro_batch"],
        "zero": zero,
        "recompute": pl["recompute"],
        "schedule": sched,
        "prec": pl["precision"],
        "step": fmt_time(m["iteration_time_s"]),
        "tok/s/GPU": round(m["tokens_per_s_per_gpu"], 1),
        "MFU": f"{100 * m['mfu']:.1f}%",
        "band": band_text(m.get("band")),
        "GiB/GPU": round(m["memory_gib_per_gpu"], 1),
    }
    if "time_to_train_s" in m:
        row["days"] = round(m["time_to_train_s"] / 86400, 1)
    if "cost_usd" in m:
        row["cost $M"] = round(m["cost_usd"] / 1e6, 2)
    row["bottleneck"] = p["bottleneck"]
    return row


def infer_row(rank: int, p: dict[str, Any], cp: bool = False) -> dict[str, Any]:
    """Table row of one inference plan (``cp``: with a context-parallel column)."""
    from llmcost.units import fmt_time

    pl, m = p["plan"], p["metrics"]
    usd = m.get("usd_per_million_output_tokens")
    return {
        "#": rank,
        "hardware": p["hardware"],
        "gpus": pl["gpus"],
        "tp": pl["tp"],
        "pp": pl["pp"],
        "dp": pl["dp"],
        "ep": pl["ep"],
        **({"cp": pl.get("cp", 1)} if cp else {}),
        "batch": pl["batch"],
        "W/A/KV": f"{pl['weights']}/{pl['activations']}/{pl['kv_cache']}",
        "TTFT": fmt_time(m["ttft_s"]),
        "TPOT": fmt_time(m["tpot_s"]),
        "tok/s/GPU": round(m["output_tokens_per_s_per_gpu"], 1),
        "tok/s/user": round(m["output_tokens_per_s_per_user"], 1),
        "$/M tok": "-" if usd is None else round(usd, 3),
        "GiB/GPU": round(m["memory_gib_per_gpu"], 1),
        "bottleneck": p["bottleneck"],
    }


def emit_deployments(deps: list[Any], fmt: str, title: str) -> None:
    """``search infer --disaggregated``'s deployments (:class:`llmcost.search.disagg.SizedDeployment`):
    a row each, or ``{"deployments": [...]}``."""
    from llmcost.report import emit
    from llmcost.units import fmt_time

    def pool(plan: dict[str, Any], n: int) -> str:
        return (
            f"{n} x {plan['hardware']} tp{plan['tp']} pp{plan['pp']} dp{plan['dp']} ep{plan['ep']} "
            f"b{plan['batch']} {plan['weights']}/{plan['activations']}/{plan['kv_cache']}"
        )

    if fmt == "csv":
        emit(
            [
                {
                    **d.metrics(),
                    "prefill": pool(d.prefill.plan, d.n_prefill),
                    "decode": pool(d.decode.plan, d.n_decode),
                }
                for d in deps
            ],
            fmt,
        )
        return
    if fmt != "table":
        emit({"deployments": [d.as_dict() for d in deps]}, fmt)
        return
    rows = []
    for i, d in enumerate(deps, 1):
        m = d.metrics()
        rows.append(
            {
                "#": i,
                "prefill pool": pool(d.prefill.plan, d.n_prefill),
                "decode pool": pool(d.decode.plan, d.n_decode),
                "GPUs": m["gpus"],
                "TTFT": fmt_time(m["ttft_s"]),
                "TPOT": fmt_time(m["tpot_s"]),
                "req/s": m["requests_per_s"],
                "tok/s": m["output_tokens_per_s"],
                "tok/s/GPU": m["output_tokens_per_s_per_gpu"],
                "bound": m["bound_by"],
            }
        )
    notes = [
        "each pool one disaggregated plan (prefill: one token; decode: never prefills); the prompt KV cache "
        "written by RDMA from every prefill GPU (its TTFT includes it); instances balance the two request "
        "rates within the budget; queueing not modelled"
    ]
    if not rows:
        notes.insert(0, "no deployment fits the budget and the SLOs")
    emit(rows, "table", title=title, notes=notes)
