"""How ``llmcost fit`` prints: one row per option, or the figures on a given count."""

from __future__ import annotations

from typing import Any


def emit_fit(rep: Any, fmt: str) -> None:
    """Print a :class:`llmcost.capacity.fit.FitReport` in ``fmt``."""
    from llmcost.report import emit

    if fmt != "table":
        emit(rep.as_dict(), fmt)
        return
    if rep.on_count is not None:
        title = f"{rep.model} on {rep.on_count['gpus']} x {rep.hardware}: what fits"
        rows = rep.on_count.get("options")
        emit(rows if rows is not None else rep.on_count, fmt, title=title)
        return
    what = "trains" if rep.mode == "train" else "serves " + _serving(rep.keys)
    rows = [_row(o, rep.mode) for o in rep.options]
    emit(
        rows, fmt, title=f"{rep.model} on {rep.hardware}: the fewest devices it {what} on", notes=_notes(rep)
    )


def _serving(keys: dict[str, Any]) -> str:
    return f"batch {keys.get('batch')} x {keys.get('prompt_len')} in / {keys.get('output_len')} out"


def _row(o: Any, mode: str) -> dict[str, Any]:
    m, p = o.metrics, o.plan or {}
    row: dict[str, Any] = dict(o.option)
    row["min devices"] = o.min_devices if o.min_devices is not None else "-"
    row["plan"] = _plan_text(p, mode)
    if mode == "train":
        row["step"] = _num(m.get("iteration_time_s"), "{:.3g} s")
        row["tok/s/GPU"] = _num(m.get("tokens_per_s_per_gpu"), "{:,.0f}")
        row["host GiB/node"] = _num(m.get("memory_host_gib_per_node") or None, "{:,.0f}")
    else:
        row["TPOT"] = _num(m.get("tpot_s"), "{:.3g} s")
        row["tok/s/GPU"] = _num(m.get("output_tokens_per_s_per_gpu"), "{:,.0f}")
    row["GiB/GPU"] = _num(m.get("memory_gib_per_gpu"), "{:.1f}")
    row["memory dominated by"] = o.dominant or (o.reason or "-")
    return row


def _plan_text(p: dict[str, Any], mode: str) -> str:
    if not p:
        return "-"
    keys = ("tp", "pp", "dp", "cp", "ep") + (
        ("micro_batch", "recompute", "precision") if mode == "train" else ("batch",)
    )
    short = {"micro_batch": "mb", "recompute": "rc", "precision": ""}
    parts = [
        f"{short.get(k, k)}{'' if k == 'precision' else ' '}{p[k]}"
        for k in keys
        if p.get(k) not in (None, 1) or k in ("precision",)
    ]
    return ", ".join(x for x in parts if x.strip())


def _num(v: Any, form: str) -> str:
    return "-" if v is None else form.format(v)


def _notes(rep: Any) -> list[str]:
    if rep.mode == "train":
        return [
            "counts double (1, 2, 4, ...); each option probed with micro-batch 1, full recomputation and 1F1B, "
            "then the fastest plan searched at the count found",
            "offload: cpu / nvme hold the gradients and optimizer state (ZeRO-Offload, ZeRO-Infinity), +params "
            "the parameter shards too; the tier's capacity per node is checked where the catalog gives it",
        ]
    return [
        "weights in each format, activations and KV cache as the plan defaults them; the best plan at the count found"
    ]
