"""``llmcost fit --train``: the fewest devices each ZeRO mode x offload tier trains a model on, and
the longest sequence / largest batch on a given count (:mod:`llmcost.capacity.fit`)."""

from __future__ import annotations

from typing import Any

from llmcost.capacity.fit import MISSING, OPTIONS, FitOption, counts, dominant, fewest, largest
from llmcost.errors import PlanError, UserError
from llmcost.hardware import Hardware
from llmcost.model.spec import ModelSpec

LEAN = {"micro_batch": 1, "recompute": "full", "schedule": "1f1b"}
"""The plans that need the least memory, probed first (full recomputation, one sequence per
micro-batch); the fastest plan at the count found is then searched without them."""


FAST_MB = "1,2,4,8"
"""Micro-batches the fastest plan at the count found is searched over (unless given): larger ones
rarely pay once the global batch is one sequence per device, and each multiplies the search."""


def _search(
    spec: ModelSpec, hw: Hardware, gpus: int, keys: dict[str, Any], memos: dict[Any, Any], top: int = 1
) -> dict[str, Any] | None:
    """The best plan of the training search on ``gpus`` devices with ``keys``, or None when none fits
    there. A bad option is the user's error (raised as it is); only the search finding no plan on
    this count means "does not fit" (a missing catalog figure is raised too, to be reported).
    ``memos``: the operator configurations the run's searches costed (shared: same model and device)."""
    from llmcost.search import run
    from llmcost.search import space as S

    k = {**keys, "gpus": gpus, "global_batch": keys.get("global_batch") or gpus}
    declared = S.train_space(spec, hw, S.keys_of(None, k, S.TRAIN_KEYS, "fit"))
    try:
        res = run.train_search(
            spec, hw, declared, tokens=None, objective="throughput", top=top, pareto=None,
            min_throughput=None, max_memory_gib=None, show_progress=False, memos=memos,
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
    memos: dict[Any, Any] = {}
    for zero, offload in options:
        opt = {"zero": zero, "offload": offload}
        probe = {**keys, **LEAN, "zero": zero, "offload": offload}
        n = fewest(cands, lambda g, probe=probe: _search(spec, hw, g, probe, memos) is not None, opt, limit)
        if isinstance(n, FitOption):
            out.append(n)
            continue
        full = {"micro_batch": FAST_MB, **keys, "zero": zero, "offload": offload}
        best = _search(spec, hw, n, full, memos) or _search(spec, hw, n, probe, memos)
        out.append(_option(spec, hw, opt, n, best))
    return out


def _option(
    spec: ModelSpec, hw: Hardware, opt: dict[str, Any], n: int, best: dict[str, Any] | None
) -> FitOption:
    """The option at ``n`` devices with ``best``'s plan, its headline figures and what dominates its memory."""
    from llmcost.training.plan import evaluate

    if best is None:
        return FitOption(opt, n)
    r = evaluate(spec, *_stacked_plan(dict(best["plan"]), hw))
    metrics = {**_headline(best["metrics"]), "memory_host_gib_per_node": _host_per_node(hw, r) / 2**30}
    return FitOption(opt, n, best["plan"], metrics, dominant(dict(r.memory)))


def _stacked_plan(keys: dict[str, Any], hw: Hardware) -> tuple[Any, Hardware]:
    """The search's plan and the device as its stack sees them, as ``llmcost train --plan`` costs it."""
    from llmcost.training.plan import TrainPlan
    from llmcost.training.stack import under

    plan, device, _ = under(keys.pop("stack", None), keys, hw)
    return TrainPlan.from_mapping(plan), device


def _host_per_node(hw: Hardware, r: Any) -> float:
    """Bytes the plan keeps on its offload tier per node (its devices share the host)."""
    node = hw.node_share(r.layout.gpn)
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


def on_count(
    spec: ModelSpec,
    hw: Hardware,
    gpus: int,
    keys: dict[str, Any],
    seq_cap: int,
    option: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """On ``gpus`` devices, under ``option`` (a ZeRO mode and offload tier; None: any ZeRO mode, no
    offload): the longest sequence that trains at micro-batch 1 with full recomputation, and at the
    plan's sequence length (else the longest, at most 4096) the largest micro-batch that fits
    (global batch one micro-batch per data-parallel rank: what memory depends on). None where
    nothing fits."""
    from llmcost.checks import MAX_COUNT

    base = {k: v for k, v in keys.items() if k not in ("seq_len", "global_batch", "micro_batch")}
    memos: dict[Any, Any] = {}
    if option is not None:
        base.update(zero=option[0], offload=option[1])
    seq = largest(
        1, seq_cap, lambda s: _search(spec, hw, gpus, {**base, **LEAN, "seq_len": s}, memos) is not None
    )
    s0 = keys.get("seq_len") or (None if seq is None else min(seq, 4096))
    out: dict[str, Any] = {
        "gpus": gpus,
        **({} if option is None else {"zero": option[0], "offload": option[1]}),
    }
    if s0 is None:
        return {**out, "longest_seq_len": None, "seq_len": None, "largest_micro_batch": None}

    def fits_mb(b: int) -> bool:
        keys_b = {**base, "seq_len": s0, "micro_batch": b, "global_batch": b * gpus, "recompute": "full"}
        return _search(spec, hw, gpus, keys_b, memos) is not None

    mb = largest(1, max(1, MAX_COUNT // gpus), fits_mb)
    return {**out, "longest_seq_len": seq, "seq_len": s0, "largest_micro_batch": mb}
