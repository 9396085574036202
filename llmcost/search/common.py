"""What the training and inference searches share: the result, ranking, Pareto fronts, collectives
over arrays of plans, and the progress bar (runtime: no sympy)."""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from llmcost.errors import UserError


@dataclass
class SearchResult:
    """Plans kept by a search: ``plans`` are ``{"plan": {...}, "metrics": {...}, "bottleneck": str}``."""

    plans_evaluated: int
    elapsed_s: float
    rejected: dict[str, int]
    plans: list[dict[str, Any]]
    objective: str
    pareto: tuple[str, str] | None = None
    feasible: int = 0
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of ``llmcost search``."""
        return {
            "plans_evaluated": self.plans_evaluated,
            "elapsed_s": self.elapsed_s,
            "rejected": self.rejected,
            "feasible": self.feasible,
            "objective": self.objective,
            "pareto": list(self.pareto) if self.pareto else None,
            "notes": self.notes,
            "plans": [
                {k: p[k] for k in ("plan", "hardware", "metrics", "bottleneck") if k in p} for p in self.plans
            ],
        }


def parse_list(
    text: str | None, what: str, cast: Callable[[str], Any] = str, choices: Sequence[Any] | None = None
) -> tuple[Any, ...] | None:
    """``"4,8"`` -> (4, 8); None when not given; UserError naming the flag otherwise."""
    if text is None:
        return None
    items = [x.strip() for x in str(text).split(",")]
    if not any(items):
        raise UserError(f"{what}: expected a comma-separated list, got '{text}'")
    if not all(items):
        raise UserError(f"{what}: empty item in '{text}'; write values separated by single commas, e.g. 4,8")
    out = []
    for x in items:
        try:
            v = cast(x)
        except UserError:
            raise  # already names the flag and the value
        except ValueError:
            raise UserError(f"{what}: '{x}' is not a valid value") from None
        if isinstance(v, int) and not isinstance(v, bool):
            if v < 1:
                raise UserError(f"{what}: values must be positive integers, got '{x}'")
            from llmcost.checks import finite_int

            finite_int(v, what)  # at most MAX_COUNT: the space stays bounded
        if choices is not None and v not in choices:
            raise UserError(f"{what}: '{x}' is not one of {', '.join(map(str, choices))}")
        out.append(v)
    return tuple(dict.fromkeys(out))


MAX_TOP = 100_000
"""Most plans a search returns (``--top``); a table prints at most :data:`MAX_TABLE_ROWS`."""
MAX_TABLE_ROWS = 1000


def check_top(top: int, fmt: str | None = None) -> int:
    """``--top`` is a positive number of plans, at most :data:`MAX_TOP` (:data:`MAX_TABLE_ROWS` in a table)."""
    if top < 1:
        raise UserError(f"--top: expected a positive integer, got {top}")
    if top > MAX_TOP:
        raise UserError(f"--top {top}: at most {MAX_TOP:,} plans; narrow the space or use --pareto")
    if fmt == "table" and top > MAX_TABLE_ROWS:
        raise UserError(
            f"--top {top}: a table prints at most {MAX_TABLE_ROWS:,} rows; use -f json or csv for more"
        )
    return top


MAX_PLANS = 2**25
"""Most plans a search builds and evaluates (33,554,432): past the 15-19M-plan spaces people run
(DeepSeek-V3 on 2048 GPUs, ~45 s and ~13 GiB today: issue 14 asks to bound that memory), short of
what a 24 GiB machine cannot hold."""
MAX_STEPS = 2**28
"""Most plan x decode-step evaluations an infer search runs (268,435,456: ~15 s)."""


def check_size(n: int, kind: str, narrow: str, limit: int = MAX_PLANS, unit: str = "plans") -> None:
    """Refuse, before building it, a search space of ``n`` ``unit`` past ``limit``, naming its size
    and the options that ``narrow`` it."""
    if n > limit:
        raise UserError(
            f"search {kind}: the space holds {n:,} {unit}, past the {limit:,} a search runs; "
            f"narrow it ({narrow})"
        )


def divisors(n: int) -> list[int]:
    """Positive divisors of ``n`` in increasing order."""
    small = [d for d in range(1, int(n**0.5) + 1) if n % d == 0]
    return sorted(set(small + [n // d for d in small]))


def top_k(values: np.ndarray, feasible: np.ndarray, maximize: bool, k: int) -> np.ndarray:
    """Indices of the best ``k`` feasible plans, best first (ties keep enumeration order)."""
    idx = np.flatnonzero(feasible)
    key = -values[idx] if maximize else values[idx]
    order = np.argsort(key, kind="stable")[:k]
    return idx[order]


def pareto_front(x: np.ndarray, y: np.ndarray, feasible: np.ndarray, max_x: bool, max_y: bool) -> np.ndarray:
    """Indices of the feasible plans no other feasible plan dominates (at least as good on both
    axes, better on one), sorted by the first axis, best first."""
    idx = np.flatnonzero(feasible)
    if idx.size == 0:
        return idx
    a = -x[idx] if max_x else x[idx]  # minimize both
    b = -y[idx] if max_y else y[idx]
    order = np.lexsort((b, a))  # by a, then b
    a, b, idx = a[order], b[order], idx[order]
    keep = np.zeros(idx.size, dtype=bool)
    best_b = np.inf
    i = 0
    while i < idx.size:  # a block of equal a: only its smallest b survives (and its ties)
        j = i
        while j < idx.size and a[j] == a[i]:
            j += 1
        bmin = b[i]
        if bmin < best_b:
            keep[i:j] = b[i:j] == bmin
            best_b = bmin
        i = j
    return idx[keep]


def _cat(a: dict[str, np.ndarray] | None, b: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Rows ``a`` (None: none) followed by rows ``b``."""
    return dict(b) if a is None else {k: np.concatenate([a[k], b[k]]) for k in a}


@dataclass
class Stream:
    """What a search keeps of its evaluated chunks, so its memory is one chunk plus the answer:
    the best ``top`` rows by ``key`` (maximized or not), or the Pareto front on ``axes`` (with
    ``maximize`` each), exactly as :func:`top_k` / :func:`pareto_front` over every row at once
    would give them (same rows, same order: ties keep enumeration order). ``rows`` holds the kept
    rows' columns; :meth:`add` takes the next chunk's columns and feasibility."""

    key: str
    maximize: bool
    top: int
    axes: tuple[str, str] | None = None
    max_axes: tuple[bool, bool] = (False, False)
    rows: dict[str, np.ndarray] | None = None

    def _ranked(self, cols: dict[str, np.ndarray]) -> np.ndarray:
        v = cols[self.key]
        return -v if self.maximize else v

    def add(self, cols: dict[str, np.ndarray], feasible: np.ndarray) -> None:
        """Fold the next chunk (its rows follow every row added before) into the kept rows."""
        if self.axes is not None:
            x, y = self.axes
            local = np.sort(pareto_front(cols[x], cols[y], feasible, *self.max_axes))
            if local.size:
                both = _cat(self.rows, {k: v[local] for k, v in cols.items()})
                keep = np.sort(
                    pareto_front(both[x], both[y], np.ones(both[x].size, dtype=bool), *self.max_axes)
                )
                self.rows = {k: v[keep] for k, v in both.items()}
            return
        local = top_k(cols[self.key], feasible, self.maximize, self.top)
        worst = (
            self._ranked(self.rows)[-1]
            if self.rows is not None and self.rows[self.key].size >= self.top
            else None
        )
        if worst is not None and not np.isnan(worst):  # only rows that beat the worst kept (ties: kept first)
            local = local[self._ranked(cols)[local] < worst]
        if local.size:
            both = _cat(self.rows, {k: v[local] for k, v in cols.items()})
            order = np.argsort(self._ranked(both), kind="stable")[: self.top]
            self.rows = {k: v[order] for k, v in both.items()}

    def result(self) -> dict[str, np.ndarray]:
        """The kept rows, best first (the front sorted by its first axis, as :func:`pareto_front`)."""
        if self.rows is None:
            return {}
        if self.axes is None:
            return self.rows
        x, y = self.axes
        order = pareto_front(
            self.rows[x], self.rows[y], np.ones(self.rows[x].size, dtype=bool), *self.max_axes
        )
        return {k: v[order] for k, v in self.rows.items()}


def reasons(counter: Counter[str]) -> dict[str, int]:
    """Rejection counts, largest first, zeros dropped."""
    return {k: int(v) for k, v in sorted(counter.items(), key=lambda kv: -kv[1]) if v}


# Rejections made after evaluating a plan (it was valid but failed a constraint): when no
# plan survives these are the answer, so the message leads with them.
CONSTRAINT_WORDS = ("does not fit in memory", "--max-", "--min-", "over budget", "over --")


def nothing_fits(rejected: dict[str, int], what: str, hint: str = "") -> str:
    """The one-line error when no plan survives: the constraints that rejected valid plans first
    (with ``hint``, e.g. the least memory any plan needs), then the structural rejections."""
    if not rejected:
        return f"no {what} plan in the declared space; widen the flags"
    total = sum(rejected.values())
    late = {k: v for k, v in rejected.items() if any(w in k for w in CONSTRAINT_WORDS)}
    if late:
        head = ", ".join(f"{k} ({v:,})" for k, v in late.items())
        rest = {k: v for k, v in rejected.items() if k not in late}
        return (
            f"no valid {what} plan: the {sum(late.values()):,} plans that pass the plan rules fail: {head}{hint}"
            + (
                f"; the other {sum(rest.values()):,} of {total:,} break plan rules (top: {max(rest, key=rest.__getitem__)})"
                if rest
                else ""
            )
        )
    top = max(rejected, key=rejected.__getitem__)
    return f"no valid {what} plan: {top} rejected {rejected[top]:,} of {total:,} plans" + (
        "; also " + ", ".join(f"{k} ({v:,})" for k, v in rejected.items() if k != top)
        if len(rejected) > 1
        else ""
    )


@contextmanager
def progress(total: int | None, enabled: bool, what: str) -> Iterator[Callable[[int], None]]:
    """A rich progress bar on stderr, shown once the search has run for a second (TTY only), with
    the time remaining estimated from the work done so far when the ``total`` is known."""
    start = time.perf_counter()
    state: dict[str, Any] = {"bar": None, "done": 0}
    show = enabled and sys.stderr.isatty()

    def advance(n: int) -> None:
        state["done"] += n
        if not show:
            return
        if state["bar"] is None and time.perf_counter() - start > 1.0:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            eta = (TimeRemainingColumn(),) if total else ()  # from the chunks done so far
            bar = Progress(
                TextColumn(what),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                *eta,
                console=Console(stderr=True),
                transient=True,
            )
            bar.start()
            state["task"] = bar.add_task(what, total=total)
            state["bar"] = bar
        if state["bar"] is not None:
            state["bar"].update(state["task"], completed=state["done"])

    try:
        yield advance
    finally:
        if state["bar"] is not None:
            state["bar"].stop()
