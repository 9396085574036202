"""The two searches end to end: space, evaluation, constraints, ranking or Pareto front."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import numpy as np

from llmcost.errors import UserError
from llmcost.inference.metrics import METRICS as INFER_README_METRICS
from llmcost.search.common import SearchResult, nothing_fits, pareto_front, progress, reasons, top_k
from llmcost.training import plan as TR
from llmcost.training.step import FLOPS_CONVENTION
from llmcost.units import GIB

MAXIMIZE = {
    "tokens_per_s",
    "tokens_per_s_per_gpu",
    "mfu",
    "hfu",
    "model_tflops_per_gpu",
    "hardware_tflops_per_gpu",
    "output_tokens_per_s",
    "output_tokens_per_s_per_gpu",
    "input_tokens_per_s_per_gpu",
    "output_tokens_per_s_per_user",
}
TRAIN_OBJECTIVES = {
    "throughput": "tokens_per_s",
    "step_time": "iteration_time_s",
    "mfu": "mfu",
    "tokens_per_gpu": "tokens_per_s_per_gpu",
    "time_to_train": "time_to_train_s",
    "cost": "usd_per_million_tokens",
    "memory": "memory_gib_per_gpu",
}
INFER_OBJECTIVES = {
    "throughput_per_gpu": "output_tokens_per_s_per_gpu",
    "throughput": "output_tokens_per_s",
    "cost": "usd_per_million_output_tokens",
    "latency": "e2e_latency_s",
    "ttft": "ttft_s",
    "tpot": "tpot_s",
    "tokens_per_user": "output_tokens_per_s_per_user",
}
TRAIN_METRICS = (*TR.METRICS, "tokens_per_s", "usd_per_million_tokens", *TR.RUN_METRICS)
"""Metrics a train search reports per plan (:data:`llmcost.training.plan.METRICS` and the run's)."""
INFER_METRICS = (
    *INFER_README_METRICS,
    "output_tokens_per_s_per_user",
    "usd_per_million_output_tokens",
    "joules_per_output_token",
)


def _metric(name: str, table: dict[str, str], cols: dict[str, np.ndarray], what: str) -> str:
    key = table.get(name, name)
    if key not in cols:
        if key in ("time_to_train_s", "cost_usd", "gpu_hours"):
            raise UserError(f"{what} '{name}' needs --tokens (the training-run length)")
        if key.startswith("usd"):
            raise UserError(f"{what} '{name}' needs a price per hour in the hardware catalog entry")
        raise UserError(f"{what}: '{name}' is not one of {', '.join(table)} or a metric name")
    return key


def _select(
    cols: dict[str, np.ndarray],
    feasible: np.ndarray,
    objective: str,
    table: dict[str, str],
    top: int,
    pareto: tuple[str, str] | None,
) -> tuple[np.ndarray, str, tuple[str, str] | None]:
    obj = _metric(objective, table, cols, "--objective")
    if pareto:
        ax = tuple(_metric(a, table, cols, "--pareto") for a in pareto)
        idx = pareto_front(cols[ax[0]], cols[ax[1]], feasible, ax[0] in MAXIMIZE, ax[1] in MAXIMIZE)
        return idx, obj, (ax[0], ax[1])
    return top_k(cols[obj], feasible, obj in MAXIMIZE, top), obj, None


def _memory_hint(cols: dict[str, np.ndarray], hw: Any) -> str:
    """'; the least memory any plan needs is X GiB per GPU of Y usable' when none fits."""
    mem = cols.get("memory_gib_per_gpu")
    if mem is None or not len(mem) or cols["fits"].astype(bool).any():
        return ""
    return (
        f" (the least any plan needs is {float(np.min(mem)):,.0f} GiB per GPU of {hw.memory_usable / GIB:.1f} "
        "usable: add GPUs, shard with ZeRO, recompute or lower precision)"
    )


def _constraints(
    cols: dict[str, np.ndarray], limits: dict[str, tuple[str, float | None]], rej: Counter[str]
) -> np.ndarray:
    """Memory fit, then each limit in order; each rejected plan counted once, under its first failure."""
    ok = cols["fits"].astype(bool).copy()
    rej["does not fit in memory"] += int((~ok).sum())
    for label, (key, bound) in limits.items():
        if bound is None:
            continue
        v = cols[key]
        bad = ok & ~(v >= bound if label.startswith("min") else v <= bound)
        rej[label] += int(bad.sum())
        ok &= ~bad
    return ok


def _bands(plans: list[dict[str, Any]], hw: Any, moe: bool) -> None:
    """Each plan's ``metrics.band``: where published runs like it sat relative to the prediction
    (:mod:`llmcost.validation.bands`; None when there is no band)."""
    from llmcost.validation.bands import band_range

    for p in plans:
        p["metrics"]["band"] = band_range(hw, p["plan"].get("zero") == 3, moe)


def train_search(
    spec: Any,
    hw: Any,
    space: Any,
    *,
    tokens: float | None,
    objective: str,
    top: int,
    pareto: tuple[str, str] | None,
    min_throughput: float | None,
    max_memory_gib: float | None,
    show_progress: bool,
) -> SearchResult:
    """``llmcost search train``."""
    from llmcost.search import train as T

    t0 = time.perf_counter()
    grid = T.enumerate_space(spec, hw, space)
    hw = T.stacked(space, hw)[1]  # the device as the space's stack sees it
    rej = Counter(grid.rejected)
    n = len(grid)
    outs: list[dict[str, np.ndarray]] = []
    chunk = n if n <= 300_000 else 200_000  # one pass when fast; chunks (and a moving bar) when long
    with progress(n, show_progress, "search train") as advance:
        for s in range(0, n, max(chunk, 1)):
            sub = grid.take(slice(s, s + max(chunk, 1)))
            outs.append(
                T.evaluate_grid(spec, hw, sub, space.seq_len, space.global_batch, space.gpus_per_node, tokens)
            )
            advance(len(sub))
    cols = {k: np.concatenate([o[k] for o in outs]) for k in outs[0]} if outs else {}
    if not n:
        raise UserError(nothing_fits(reasons(rej), "train"))
    limits = {
        "min tokens/s (--min-throughput)": ("tokens_per_s", min_throughput),
        "max memory per GPU (--max-memory)": ("memory_gib_per_gpu", max_memory_gib),
    }
    ok = _constraints(cols, limits, rej)
    if not ok.any():
        raise UserError(nothing_fits(reasons(rej), "train", _memory_hint(cols, hw)))
    idx, obj, ax = _select(cols, ok, objective, TRAIN_OBJECTIVES, top, pareto)
    plans = []
    for i in idx:
        plans.append(
            {
                "plan": T.plan_dict(grid, int(i), space.global_batch, space.seq_len, tokens, space.stack),
                "metrics": {k: float(cols[k][i]) for k in TRAIN_METRICS if k in cols},
                "bottleneck": T.bottleneck(cols, int(i)),
                "attention": "flash" if cols["flash"][i] else "materialized",
            }
        )
    _bands(plans, hw, bool(spec.is_moe))
    res = SearchResult(n, time.perf_counter() - t0, reasons(rej), plans, obj, ax, int(ok.sum()))
    res.notes.append(FLOPS_CONVENTION)
    if any(str(p["plan"].get("zero")) in ("3", "fsdp") for p in plans):
        res.notes.append(TR.ZERO3_NOTE)
    bound = [
        f"{k} {'/'.join({True: 'on', False: 'off'}.get(x, str(x)) if isinstance(x, bool) else str(x) for x in v)}"
        for k, v in space.stack_bounds
    ]
    if bound:
        res.notes.append(
            f"searched only what the stack runs: {', '.join(bound)} (name a dimension, e.g. --zero, to search it)"
        )
    res.notes += [n for n in (hw.assumed_note(),) if n]
    return res


def infer_search(
    model: str,
    hws: list[Any],
    space: Any,
    *,
    objective: str,
    top: int,
    pareto: tuple[str, str] | None,
    max_ttft: float | None,
    max_tpot: float | None,
    max_latency: float | None,
    min_throughput: float | None,
    show_progress: bool,
) -> SearchResult:
    """``llmcost search infer``."""
    from llmcost.search import infer as S

    t0 = time.perf_counter()
    with progress(None, show_progress, "search infer") as advance:
        plans, cols, rej, n = S.search_space(model, hws, space, advance)
    if not n:
        raise UserError(nothing_fits(reasons(rej), "infer"))
    limits = {
        "TTFT over --max-ttft": ("ttft_s", max_ttft),
        "TPOT over --max-tpot": ("tpot_s", max_tpot),
        "latency over --max-latency": ("e2e_latency_s", max_latency),
        "min output tokens/s (--min-throughput)": ("output_tokens_per_s", min_throughput),
    }
    ok = _constraints(cols, limits, rej)
    if not ok.any():
        raise UserError(nothing_fits(reasons(rej), "infer"))
    idx, obj, ax = _select(cols, ok, objective, INFER_OBJECTIVES, top, pareto)
    out = []
    for i, neck in zip(idx, S.bottlenecks(model, plans, idx), strict=True):
        p = plans[int(i)]
        out.append(
            {
                "plan": S.plan_keys(p),
                "hardware": p["hardware"],
                "metrics": {
                    k: (None if not np.isfinite(cols[k][i]) else float(cols[k][i]))
                    for k in INFER_METRICS
                    if k in cols
                },
                "bottleneck": neck,
            }
        )
    res = SearchResult(n, time.perf_counter() - t0, reasons(rej), out, obj, ax, int(ok.sum()))
    if len(hws) > 1:  # prices compared across hardware come from different sellers: say which
        bases = [
            f"{h.id} ${h.price_per_hour:g}/h ({(h.raw.get('price') or {}).get('basis', 'basis not stated')})"
            for h in hws
            if h.price_per_hour
        ]
        if bases:
            res.notes.append("prices are indicative, per device-hour: " + "; ".join(bases))
    res.notes += [n for n in (h.assumed_note() for h in hws) if n]
    return res
