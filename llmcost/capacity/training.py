"""``llmcost fit --train``: the fewest devices each ZeRO mode x offload tier trains a model on, and
the longest sequence / largest batch on a given count (:mod:`llmcost.capacity.fit`)."""

from __future__ import annotations

from typing import Any

from llmcost.capacity.fit import MISSING, OPTIONS, FitOption, counts, dominant, largest, smallest
from llmcost.errors import PlanError, UserError
from llmcost.hardware import Hardware
from llmcost.model.spec import ModelSpec

LEAN = {"micro_batch": 1, "recompute": "full"}
"""The plans that need the least memory, probed first (full recomputation, one sequence per
micro-batch); the fastest plan at the count found is then searched without them."""


def _search(
    spec: ModelSpec, hw: Hardware, gpus: int, keys: dict[str, Any], top: int = 1
) -> dict[str, Any] | None:
    """The best plan of the training search on ``gpus`` devices with ``keys``, or None when none fits."""
    from llmcost.search import run
    from llmcost.search import space as S

    k = {**keys, "gpus": gpus, "global_batch": keys.get("global_batch") or gpus}
    try:
        declared = S.train_space(spec, hw, S.keys_of(None, k, S.TRAIN_KEYS, "fit"))
        res = run.train_search(
            spec, hw, declared, tokens=None, objective="throughput", top=top, pareto=None,
            min_throughput=None, max_memory_gib=None, show_progress=False,
        )  # fmt: skip
    except (UserError, PlanError) as e:
        if MISSING in str(e):  # a catalog figure the option needs: say so, not "does not fit"
            raise
        return None
    return res.plans[0] if res.plans else None


def fit_options(
    spec: ModelSpec,
    hw: Hardware,
    keys: dict[str, Any],
    limit: int,
    options: tuple[tuple[str, str], ...] = OPTIONS,
) -> list[FitOption]:
    """Each option's fewest devices within ``limit``, with the fastest plan there."""
    cands = counts(hw, limit)
    out = []
    for zero, offload in options:
        opt = {"zero": zero, "offload": offload}
        probe = {**keys, **LEAN, "zero": zero, "offload": offload}
        try:
            n = smallest(cands, lambda g, probe=probe: _search(spec, hw, g, probe) is not None)
        except (UserError, PlanError) as e:
            out.append(FitOption(opt, None, reason=str(e)))
            continue
        if n is None:
            out.append(FitOption(opt, None, reason=f"does not fit on {limit} devices or fewer"))
            continue
        best = _search(spec, hw, n, {**keys, "zero": zero, "offload": offload}) or _search(spec, hw, n, probe)
        out.append(_option(spec, hw, opt, n, best))
    return out


def _option(
    spec: ModelSpec, hw: Hardware, opt: dict[str, Any], n: int, best: dict[str, Any] | None
) -> FitOption:
    """The option at ``n`` devices with ``best``'s plan, its headline figures and what dominates its memory."""
    from llmcost.training.plan import TrainPlan, evaluate

    if best is None:
        return FitOption(opt, n)
    r = evaluate(spec, TrainPlan.from_mapping(dict(best["plan"])), hw)
    metrics = {**_headline(best["metrics"]), "memory_host_gib_per_node": _host_per_node(hw, r) / 2**30}
    return FitOption(opt, n, best["plan"], metrics, dominant(dict(r.memory)))


def _host_per_node(hw: Hardware, r: Any) -> float:
    """Bytes the plan keeps on its offload tier per node (its devices share the host)."""
    node = max(1, min(r.layout.gpn, hw.node_devices or 1))
    return float(r.row.get("memory_host", 0.0)) * node


def _headline(m: dict[str, Any]) -> dict[str, Any]:
    keys = (
        "iteration_time_s",
        "tokens_per_s",
        "tokens_per_s_per_gpu",
        "mfu",
        "memory_gib_per_gpu",
        "memory_host",
    )
    return {k: m[k] for k in keys if k in m}


def on_count(spec: ModelSpec, hw: Hardware, gpus: int, keys: dict[str, Any], seq_cap: int) -> dict[str, Any]:
    """On ``gpus`` devices: the longest sequence that trains (one sequence per micro-batch, any ZeRO
    mode and the plan's offload) and, at the plan's sequence length, the largest global batch with
    one sequence per micro-batch."""
    base = {k: v for k, v in keys.items() if k not in ("seq_len", "global_batch")}
    seq = largest(1, seq_cap, lambda s: _search(spec, hw, gpus, {**base, **LEAN, "seq_len": s}) is not None)
    s0 = keys.get("seq_len") or min(seq or 1, 4096)

    def fits_batch(b: int) -> bool:
        keys_b = {**base, "seq_len": s0, "micro_batch": 1, "global_batch": b * gpus}
        return _search(spec, hw, gpus, keys_b) is not None

    batch = largest(1, 1 << 16, fits_batch)
    return {
        "gpus": gpus,
        "longest_seq_len": seq,
        "seq_len": s0,
        "largest_global_batch": None if batch is None else batch * gpus,
    }
