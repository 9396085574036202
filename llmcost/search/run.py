"""The two searches end to end: space, evaluation, constraints, ranking or Pareto front."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import numpy as np

from llmcost.economics.power import cap_note, capped
from llmcost.errors import UserError
from llmcost.inference.metrics import METRICS as INFER_README_METRICS
from llmcost.search.common import SearchResult, Stream, nothing_fits, pareto_front, progress, reasons, top_k
from llmcost.stacks import DEFAULT_STACK_NOTE
from llmcost.training import plan as TR
from llmcost.training.base import with_mtp
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
    *(m for m in INFER_README_METRICS if m != "joules_per_output_token"),
    "output_tokens_per_s_per_user",
    "usd_per_million_output_tokens",
    "joules_per_output_token",
)


def ep_comm_note(plans: list[dict[str, Any]]) -> str:
    """How the ranked expert-parallel plans move MoE tokens (``plans``: their plan keys), and the
    flags that price the stacks that do better (DeepEP-style dispatch, Megatron-Core's overlap)."""
    deepep = any(q.get("ep_deepep") for q in plans)
    overlap = any(q.get("ep_overlap") for q in plans)
    how = "node-deduplicated dispatch (ep_deepep)" if deepep else "NCCL all-to-all"
    hid = "hidden where a plan can (ep_overlap)" if overlap else "on the critical path"
    flags = (
        ("--ep-deepep", deepep, "DeepEP's dispatch"),
        ("--ep-overlap", overlap, "Megatron-Core's overlap"),
    )
    off = [f"{f} prices {what}" for f, on, what in flags if not on]
    tail = f"; {', '.join(off)}" if off else ""
    return f"expert all-to-all: {how}, {hid}{tail}"


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


def _memory_hint(least_gib: float, any_fits: bool, hw: Any) -> str:
    """'; the least memory any plan needs is X GiB per GPU of Y usable' when none fits."""
    if any_fits or not np.isfinite(least_gib):
        return ""
    return (
        f" (the least any plan needs is {least_gib:,.0f} GiB per GPU of {hw.memory_usable / GIB:.1f} "
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
    (``metrics.band_runs_max_gpus``: the largest of them), and ``metrics.evidence_mfu``: the best MFU
    a published run of its device family and size reached (:mod:`llmcost.validation.bands`; None when
    there is none)."""
    from llmcost.validation.bands import band, evidence

    for p in plans:
        b = band(hw, p["plan"].get("zero") == 3, moe, bool(p["plan"].get("zero3_serial")))
        p["metrics"]["band"] = None if b is None else [b["low"], b["high"]]
        p["metrics"]["band_runs_max_gpus"] = None if b is None else b["max_gpus"]
        ev = evidence(hw, int(p["plan"]["gpus"]))
        p["metrics"]["evidence_mfu"] = None if ev is None else ev["mfu"]


def beyond_evidence_note(plans: list[dict[str, Any]], hw: Any) -> str | None:
    """A note where ranked plans are predicted above every published run of their size
    (:func:`llmcost.validation.bands.evidence_note`, for the first such plan), None where none is."""
    from llmcost.validation.bands import evidence, evidence_note

    def beyond(m: dict[str, Any]) -> bool:
        return m.get("evidence_mfu") is not None and m["mfu"] > m["evidence_mfu"]

    above = [i for i, p in enumerate(plans) if beyond(p["metrics"])]
    if not above:
        return None
    p = plans[above[0]]
    note = evidence_note(evidence(hw, int(p["plan"]["gpus"])), p["metrics"]["mfu"], f"plan {above[0] + 1}'s")
    return f"{len(above)} of {len(plans)} ranked plans are beyond the evidence; {note}" if note else None


def band_scale_note(plans: list[dict[str, Any]]) -> str | None:
    """A note where ranked plans' bands are read off runs all much smaller than them
    (:func:`llmcost.validation.bands.scale_note`, for the first such plan), None where none is."""
    from llmcost.validation.bands import beyond_band_scale

    beyond = [
        i
        for i, p in enumerate(plans)
        if beyond_band_scale(p["metrics"].get("band_runs_max_gpus"), int(p["plan"]["gpus"]))
    ]
    if not beyond:
        return None
    p = plans[beyond[0]]
    return (
        f"{len(beyond)} of {len(plans)} ranked plans have bands read off smaller runs: plan {beyond[0] + 1}'s "
        f"like runs reach {p['metrics']['band_runs_max_gpus']:,} GPUs, it has {int(p['plan']['gpus']):,}: "
        "treat its band as a floor on the uncertainty"
    )


CHUNK = 1 << 16
"""Plans a train search evaluates at a time: its memory is one chunk's columns (~100 per plan) plus
the plans it keeps (:class:`llmcost.search.common.Stream`), whatever the size of the space."""


def _stream(
    out: dict[str, np.ndarray],
    objective: str,
    table: dict[str, str],
    top: int,
    pareto: tuple[str, str] | None,
) -> Stream:
    """The :class:`Stream` that keeps what :func:`_select` would pick (metric names checked against
    the columns of a first chunk ``out``)."""
    obj = _metric(objective, table, out, "--objective")
    if pareto:
        ax = (_metric(pareto[0], table, out, "--pareto"), _metric(pareto[1], table, out, "--pareto"))
        return Stream(obj, obj in MAXIMIZE, top, ax, (ax[0] in MAXIMIZE, ax[1] in MAXIMIZE))
    return Stream(obj, obj in MAXIMIZE, top)


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
    jobs: int = 1,
    memos: dict[Any, Any] | None = None,
) -> SearchResult:
    """``llmcost search train``: the space drawn and evaluated one chunk at a time (:data:`CHUNK`),
    each chunk folded into the kept plans, so memory stays flat in the size of the space; with
    ``jobs`` > 1 the chunks run on that many processes (:mod:`llmcost.search.chunks`). ``memos``:
    operator configurations costed by earlier searches of the same model and device (``llmcost
    fit`` runs dozens), kept per sequence length, node size and device object."""
    from llmcost.search import chunks as C
    from llmcost.search import train as T

    t0 = time.perf_counter()
    spec = with_mtp(spec, space.mtp_layers)  # the model as every plan trains it
    en = T.build_space(spec, hw, space)
    _, base, stack_note = T.stacked(space, hw)  # the device as the space's stack sees it
    hw = capped(base, space.power_cap)  # under the space's power cap, as training.plan.evaluate caps it
    limits = {
        "min tokens/s (--min-throughput)": ("tokens_per_s", min_throughput),
        "max memory per GPU (--max-memory)": ("memory_gib_per_gpu", max_memory_gib),
    }
    memo = _memo(memos, hw, space)
    C.prefill(en, memo, hw, CHUNK, space.gpus_per_node, jobs)
    job = C.Job(en, hw, tokens, limits, memo, _constraints)
    acc = C.Pass()
    with progress(en.candidates, show_progress, "search train") as advance:
        for ch in C.chunks(job, en.starts(CHUNK), jobs, acc):
            acc.fold(en, ch, lambda o: _stream(o, objective, TRAIN_OBJECTIVES, top, pareto))
            advance(ch.drawn)
    rej = Counter(en.rejected)
    rej.update(acc.late)
    if not acc.n:
        raise UserError(nothing_fits(reasons(rej), "train"))
    if not acc.feasible:
        raise UserError(nothing_fits(reasons(rej), "train", _memory_hint(acc.least_gib, acc.any_fits, hw)))
    if acc.bad_objective is not None or acc.stream is None:
        raise acc.bad_objective or UserError("search train: no plan evaluated")
    res = SearchResult(
        acc.n, 0.0, reasons(rej), _train_plans(spec, hw, space, tokens, acc.stream.result()),
        acc.stream.key, acc.stream.axes, acc.feasible,
    )  # fmt: skip
    if jobs > 1 and not C.can_fork():
        res.notes.append("--jobs: this platform cannot fork worker processes; the search ran on one")
    res.notes.append(FLOPS_CONVENTION)
    if stack_note:
        res.notes.insert(0, f"{stack_note} ({DEFAULT_STACK_NOTE})" if space.stack_default else stack_note)
    beyond = beyond_evidence_note(res.plans, hw)
    if beyond:
        res.notes.append(beyond)
    small = band_scale_note(res.plans)
    if small:
        res.notes.append(small)
    z3 = [p["plan"] for p in res.plans if str(p["plan"].get("zero")) in ("3", "fsdp")]
    if z3:
        res.notes.append(TR.ZERO3_SERIAL_NOTE if any(q.get("zero3_serial") for q in z3) else TR.ZERO3_NOTE)
    ep = [p["plan"] for p in res.plans if int(p["plan"].get("ep") or 1) > 1]
    if ep:
        res.notes.append(TR.imbalance_note(ep[0].get("ep_imbalance")))
        res.notes.append(ep_comm_note(ep))
    bound = [
        f"{k} {'/'.join({True: 'on', False: 'off'}.get(x, str(x)) if isinstance(x, bool) else str(x) for x in v)}"
        for k, v in space.stack_bounds
    ]
    if bound:
        res.notes.append(
            f"searched only what the stack runs: {', '.join(bound)} (name a dimension, e.g. --zero, to search it)"
        )
    res.notes += [n for n in (hw.assumed_note(), cap_note(base, space.power_cap)) if n]
    res.elapsed_s = time.perf_counter() - t0
    return res


def _memo(memos: dict[Any, Any] | None, hw: Any, space: Any) -> Any:
    """A :class:`llmcost.training.layers.ConfigMemo` for a search on ``hw`` (as its stack sees it):
    from ``memos`` when an earlier search there had the same sequence, node size and device (the
    memo holds the device, so its id cannot be reused while the entry lives), else a new one."""
    from llmcost.search import train as T

    if memos is None:
        return T.ConfigMemo()
    key = (space.seq_len, space.gpus_per_node, space.mtp_layers, id(hw))
    held = memos.get(key)
    if held is None or held[0] is not hw:
        held = memos[key] = (hw, T.ConfigMemo())
    return held[1]


def _train_plans(
    spec: Any, hw: Any, space: Any, tokens: float | None, rows: dict[str, np.ndarray]
) -> list[dict[str, Any]]:
    """The kept rows as the search's plans: plan keys, metrics, bottleneck, attention costed, band."""
    from llmcost.search import train as T
    from llmcost.search.chunks import PLAN

    grid = T.Grid({k[len(PLAN) :]: v for k, v in rows.items() if k.startswith(PLAN)}, Counter(), 0)
    plans = []
    for i in range(len(grid)):
        plans.append(
            {
                "plan": T.plan_dict(
                    grid,
                    i,
                    space.global_batch,
                    space.seq_len,
                    tokens,
                    space.stack,
                    space.workload,
                    space.power_cap,
                    space.mtp_layers,
                ),
                "metrics": {k: float(rows[k][i]) for k in TRAIN_METRICS if k in rows},
                "bottleneck": T.bottleneck(rows, i),
                "attention": "flash" if rows["flash"][i] else "materialized",
            }
        )
    _bands(plans, hw, bool(spec.is_moe))
    return plans


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
    res.notes += [n for n in (cap_note(h, space.power_cap) for h in hws) if n]
    return res
