"""A train search over its chunks: each chunk drawn, its plans' memory fit, the plans that fit
costed and folded into the kept plans (:class:`llmcost.search.common.Stream`); on one process or
on ``--jobs`` processes, with the same result bit for bit (runtime: no sympy).

Every chunk's figures depend on that chunk alone (the operator configurations are costed once,
before the chunks: :meth:`llmcost.search.train.Enumerated.prefill`), and the chunks are folded
in enumeration order whoever evaluated them, so the counts, the kept plans and their order do not
depend on how many processes ran.
"""

from __future__ import annotations

import multiprocessing
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from llmcost.errors import UserError
from llmcost.search.common import Stream
from llmcost.units import GIB

PLAN = "plan."
"""Prefix of a kept row's plan columns (beside its metric columns)."""
MAX_JOBS = 256
"""Most processes ``--jobs`` starts (a bound on a typo, not a tuning figure)."""


@dataclass
class Job:
    """What every chunk of one search shares: the enumerated space, the device as its stack sees
    it, the run length, the constraints ``limits`` (label -> (metric, bound)), the costed
    operator configurations and the constraint check."""

    en: Any
    hw: Any
    tokens: float | None
    limits: dict[str, tuple[str, float | None]]
    memo: Any
    constraints: Callable[..., np.ndarray]


@dataclass
class Chunk:
    """One chunk's counts: candidates drawn, plans, the least memory any needs (GiB), whether one
    fits, option rejections, constraint rejections, feasible plans; and its costed plans
    (``out`` with ``ok``) or, from a worker, only the rows its own :class:`Stream` kept."""

    drawn: int
    n: int
    least_gib: float
    any_fits: bool
    rejected: Counter[str]
    late: Counter[str]
    feasible: int = 0
    out: dict[str, np.ndarray] | None = None
    ok: np.ndarray | None = None
    kept: dict[str, np.ndarray] | None = None


def run_chunk(job: Job, start: int, size: int) -> Chunk:
    """Draw parents ``start`` to ``start + size``, set aside the plans that do not fit (counted as
    rejected, uncosted: :func:`llmcost.training.step.memory_fit`), cost the others, check the
    constraints."""
    from llmcost.search import train as T

    en, space = job.en, job.en.space
    rej: Counter[str] = Counter()
    grid, drawn = en.chunk(start, size, rej)
    fit = T.memory_fit(en.spec, job.hw, grid, space.seq_len, space.global_batch, space.gpus_per_node)
    late: Counter[str] = Counter({"does not fit in memory": int((~fit.fits).sum())})
    least = float(np.min(fit.memory_bytes / GIB)) if len(grid) else float("inf")
    ch = Chunk(drawn, len(grid), least, bool(fit.fits.any()), rej, late)
    keep = np.flatnonzero(fit.fits)
    if keep.size:
        sub = grid.take(keep)
        out = T.evaluate_grid(
            en.spec, job.hw, sub, space.seq_len, space.global_batch, space.gpus_per_node, job.tokens,
            job.memo, fit.take(keep), space.workload,
        )  # fmt: skip
        ch.ok = job.constraints(out, job.limits, late)
        ch.feasible = int(ch.ok.sum())
        ch.out = {**out, **{PLAN + k: v for k, v in sub.cols.items()}}
    return ch


@dataclass
class Pass:
    """What a search accumulates over its chunks, folded in enumeration order."""

    n: int = 0
    feasible: int = 0
    least_gib: float = float("inf")
    any_fits: bool = False
    late: Counter[str] = field(default_factory=Counter)
    stream: Stream | None = None
    bad_objective: UserError | None = None

    def fold(self, en: Any, ch: Chunk, pick: Callable[[dict[str, np.ndarray]], Stream]) -> None:
        """Add a chunk's counts (its option rejections to ``en.rejected``) and its plans."""
        en.rejected.update(ch.rejected)
        self.n += ch.n
        self.least_gib = min(self.least_gib, ch.least_gib)
        self.any_fits |= ch.any_fits
        self.late.update(ch.late)
        self.feasible += ch.feasible
        if ch.out is not None and self.stream is None and self.bad_objective is None:
            try:
                self.stream = pick(ch.out)
            except UserError as e:  # reported after "nothing fits", as a full evaluation would
                self.bad_objective = e
        if self.stream is None:
            return
        if ch.kept is not None:
            self.stream.add(ch.kept, np.ones(next(iter(ch.kept.values())).size, dtype=bool))
        elif ch.out is not None and ch.ok is not None:
            self.stream.add(ch.out, ch.ok)


_JOB: tuple[Job, Stream] | None = None
"""The search a forked worker runs (set before the processes start; fork copies it)."""


def _worker(span: tuple[int, int]) -> Chunk:
    """A worker's chunk: its counts and the rows its own :class:`Stream` keeps (not the chunk)."""
    assert _JOB is not None
    job, proto = _JOB
    ch = run_chunk(job, *span)
    if ch.out is not None and ch.ok is not None:
        local = Stream(proto.key, proto.maximize, proto.top, proto.axes, proto.max_axes)
        local.add(ch.out, ch.ok)
        ch.kept = local.rows if local.rows is not None else None
    ch.out = ch.ok = None
    return ch


_PREFILL: tuple[Any, Any] | None = None
"""(model, device) a forked prefill worker costs configurations for (set before the processes start)."""


def _prefill_worker(p: Any) -> tuple[list[tuple[int, ...]], dict[str, np.ndarray]]:
    """A worker's batch of new configurations, costed (:func:`llmcost.training.layers.costed`)."""
    from llmcost.training import layers as L

    assert _PREFILL is not None
    spec, hw = _PREFILL
    return L.costed(spec, hw, L.ModelLayers.of(spec), p, L.config_key(p)[0])


def prefill(en: Any, memo: Any, hw: Any, plans: int, gpus_per_node: int | None, jobs: int) -> None:
    """:meth:`llmcost.search.train.Enumerated.prefill`, its batches costed on ``jobs`` forked
    processes when ``jobs`` > 1 and added to ``memo`` in order (the values do not depend on which
    process costed them, nor on the batch: each configuration is costed on its own)."""
    global _PREFILL
    if jobs <= 1 or not can_fork():
        en.prefill(memo, hw, plans, gpus_per_node)
        return
    from concurrent.futures import ProcessPoolExecutor

    _PREFILL = (en.spec, hw)
    try:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            for keys, table in pool.map(_prefill_worker, en.new_configs(memo, hw, plans, gpus_per_node)):
                memo.add(keys, table)
    finally:
        _PREFILL = None


def can_fork() -> bool:
    """Whether ``--jobs`` can start worker processes here (POSIX fork)."""
    return "fork" in multiprocessing.get_all_start_methods()


def chunks(job: Job, spans: list[tuple[int, int]], jobs: int, acc: Pass) -> Iterator[Chunk]:
    """The chunks of ``spans`` in order: on this process until the kept plans' stream exists (the
    first costed chunk names it), then on ``jobs`` forked processes when ``jobs`` > 1."""
    global _JOB
    i = 0
    while i < len(spans) and (jobs <= 1 or acc.stream is None or not can_fork()):
        yield run_chunk(job, *spans[i])
        i += 1
    if i >= len(spans):
        return
    from concurrent.futures import ProcessPoolExecutor

    assert acc.stream is not None
    _JOB = (job, acc.stream)
    try:
        workers = min(jobs, len(spans) - i)  # never more processes than chunks left
        with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork")) as pool:
            yield from pool.map(_worker, spans[i:])
    finally:
        _JOB = None
