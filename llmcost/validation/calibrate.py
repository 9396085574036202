"""Calibration: the catalog figures fitted to published measurements, refitted on demand.

A fitted figure is declared where it lives, in its hardware entry, by a ``fit`` mapping beside its
value (docs/CATALOG.md "Fitted figures")::

    efficiency:
      compute: {value: 0.75, source: "...",
                fit: {hardware: [a100-sxm4-80gb, a100-sxm4-40gb], kind: train,
                      bounds: [0.4, 1.0]}}

``hardware`` lists the entries that share the figure (the first is where it is declared; the
others say ``fit: {same_as: a100-sxm4-80gb}``), ``kind`` the case kind it is fitted on: every
validation case of that kind on one of those entries is a fitting case (with ``models: dense``,
every such case of a dense model), so adding a published measurement changes the fit, and nobody
picks cases by hand. The objective is the mean absolute
log error ``mean |ln(predicted / measured)|`` (symmetric in over- and under-prediction, so a time
and a throughput count alike), minimised over ``bounds`` by a grid of step 0.05 refined by golden
section to 0.0025 (the objective is a sum of terms each monotone in the figure; the grid guards
against a second local minimum). The result is rounded to two decimals, the catalog's precision.

Leave-one-source-out (:func:`cross_validate`): a *source* is one paper, document or benchmark table,
named by the case's ``source`` up to its first comma (``"Korthikanti et al. 2022 (arXiv
2205.05198)"``). Each source's cases are predicted with every figure refitted without that source;
a case that no figure is fitted on is out of sample already and keeps its prediction.
"""

from __future__ import annotations

import copy
import math
import statistics
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from llmcost.errors import UserError
from llmcost.validation.cases import (
    COMM_METRICS,
    KERNEL_METRICS,
    MEMORY_METRICS,
    POWER_METRICS,
    SPEEDUP_METRICS,
    SUBLAYER_METRICS,
    CaseResult,
    run_case,
    source_key,
)

MODELS = ("all", "dense")
"""Which models' cases fit a figure (``fit.models``)."""
GRID_STEP = 0.05
TOLERANCE = 0.0025
GOLDEN = (math.sqrt(5) - 1) / 2


@dataclass(frozen=True)
class Figure:
    """One fitted catalog figure: ``hardware[0]``'s ``efficiency.<key>``, shared by ``hardware``."""

    key: str
    hardware: tuple[str, ...]
    kind: str
    bounds: tuple[float, float]
    value: float
    models: str = "all"

    @property
    def name(self) -> str:
        """``a100-sxm4-80gb:efficiency.compute``."""
        return f"{self.hardware[0]}:efficiency.{self.key}"


@dataclass
class Fit:
    """The result of fitting one figure: its value, the cases used and the objective at both ends."""

    figure: Figure
    value: float
    cases: list[str]
    objective_before: float
    objective_after: float
    excluded_source: str | None = None


@dataclass
class CrossValidation:
    """Per case: the in-sample and the leave-one-source-out prediction, and the fits behind them."""

    in_sample: list[CaseResult]
    out_of_sample: list[CaseResult]
    fits: dict[str, list[Fit]] = field(default_factory=dict)


# --- figures ---------------------------------------------------------------------------------------
def _fit_specs(ids: Sequence[str] | None = None) -> Iterator[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    """``(hardware id, efficiency key, entry, its fit mapping)`` of every efficiency figure of the
    entries ``ids`` (default all hardware) that carries a ``fit``."""
    from llmcost.catalog import get_hardware, hardware_ids

    for hw_id in ids or hardware_ids():
        for key, entry in (get_hardware(hw_id).raw.get("efficiency") or {}).items():
            spec = entry.get("fit") if isinstance(entry, dict) else None
            if isinstance(spec, dict):
                yield hw_id, key, entry, spec


def catalog_figures(ids: Sequence[str] | None = None) -> list[Figure]:
    """The fitted figures the catalog declares (entries of ``ids``, default all hardware); a system
    inheriting a fit (``same_as``) is not a figure."""
    return [
        _figure(hw_id, key, entry, spec)
        for hw_id, key, entry, spec in _fit_specs(ids)
        if "same_as" not in spec and hw_id == (spec.get("hardware") or [hw_id])[0]
    ]


def _figure(hw_id: str, key: str, entry: dict[str, Any], spec: dict[str, Any]) -> Figure:
    """A :class:`Figure` from its catalog ``fit`` mapping; one clear line when it is malformed."""
    where = f"{hw_id}: efficiency.{key}.fit"
    hardware = spec.get("hardware") or [hw_id]
    bounds = spec.get("bounds") or [0.3, 1.0]
    ok = (
        isinstance(hardware, list)
        and all(isinstance(h, str) for h in hardware)
        and isinstance(bounds, list)
        and len(bounds) == 2
        and all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in bounds)
        and 0 < bounds[0] < bounds[1] <= 1
        and isinstance(spec.get("kind"), str)
        and spec.get("models", "all") in MODELS
    )
    if not ok:
        raise UserError(
            f"{where}: expected {{hardware: [ids], kind: train|infer, bounds: [lo, hi] in (0, 1], "
            f"models: {'|'.join(MODELS)}}}"
        )
    ids = (hw_id, *(h for h in hardware if h != hw_id))
    bounds_f = (float(bounds[0]), float(bounds[1]))
    return Figure(key, ids, spec["kind"], bounds_f, float(entry["value"]), spec.get("models", "all"))


def fitting_cases(figure: Figure, cases: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The cases a figure is fitted on: its kind, on one of its hardware entries, not a memory
    or communication-volume metric (no efficiency moves them), not a sublayer's, and with ``models: dense`` only dense models (a dense GEMM figure is not fitted on MoE runs, whose
    grouped GEMMs, routing and all-to-all are physics of their own)."""
    out = [c for c in cases if c.get("kind") == figure.kind and hardware_id(c) in figure.hardware]
    skip = (
        *MEMORY_METRICS,
        *COMM_METRICS,
        *SUBLAYER_METRICS,
        *SPEEDUP_METRICS,
        *POWER_METRICS,
        *KERNEL_METRICS,
    )
    out = [c for c in out if (c.get("metric") or {}).get("name") not in skip]
    if figure.models == "dense":
        out = [c for c in out if not _is_moe(c)]
    return out


def hardware_id(case: dict[str, Any]) -> str:
    """The catalog id of a case's hardware (an alias resolved; an unknown name as written)."""
    from llmcost.catalog import catalog

    name = str(case.get("hardware"))
    try:
        return catalog().resolve("hardware", name)
    except UserError:
        return name


def _is_moe(case: dict[str, Any]) -> bool:
    """Whether the case's model routes tokens to experts (an unreadable model counts as dense)."""
    from llmcost.validation.training import case_spec

    try:
        return bool(case_spec(case).is_moe)
    except UserError:
        return False


# --- evaluation with a figure set ----------------------------------------------------------------
def with_figures(case: dict[str, Any], values: dict[Figure, float]) -> dict[str, Any]:
    """The case with each figure that applies to its hardware set to ``values[figure]`` (as a
    ``hardware_overrides`` entry, deep-merged under the case's own overrides)."""
    over: dict[str, Any] = {}
    for fig, v in values.items():
        if hardware_id(case) in fig.hardware:
            over.setdefault("efficiency", {})[fig.key] = {"value": v}
    if not over:
        return case
    out = copy.deepcopy(case)
    own = out.get("hardware_overrides") or {}
    eff = {**over["efficiency"], **(own.get("efficiency") or {})}
    out["hardware_overrides"] = {**own, "efficiency": eff}
    return out


def log_error(r: CaseResult) -> float | None:
    """``|ln(predicted / measured)|``, or None when the case was not evaluated or signs differ."""
    if r.predicted is None or r.predicted <= 0 or r.measured <= 0:
        return None
    return abs(math.log(r.predicted / r.measured))


def objective(figure: Figure, value: float, cases: Sequence[dict[str, Any]]) -> float:
    """Mean absolute log error of ``cases`` with ``figure`` at ``value`` (inf when none evaluates)."""
    errs = [log_error(run_case(with_figures(c, {figure: value}))) for c in cases]
    vals = [e for e in errs if e is not None]
    return statistics.fmean(vals) if vals else math.inf


# --- fitting ---------------------------------------------------------------------------------------
def minimize(f: Callable[[float], float], lo: float, hi: float) -> float:
    """Argmin of ``f`` on ``[lo, hi]``: the best point of a grid of step :data:`GRID_STEP`, then golden
    section within one step of it down to :data:`TOLERANCE`."""
    n = max(2, round((hi - lo) / GRID_STEP) + 1)
    grid = [lo + (hi - lo) * i / (n - 1) for i in range(n)]
    values = [f(x) for x in grid]
    best = min(range(n), key=lambda i: values[i])
    a, b = grid[max(best - 1, 0)], grid[min(best + 1, n - 1)]
    c, d = b - GOLDEN * (b - a), a + GOLDEN * (b - a)
    fc, fd = f(c), f(d)
    while b - a > TOLERANCE:
        if fc <= fd:
            b, d, fd = d, c, fc
            c = b - GOLDEN * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + GOLDEN * (b - a)
            fd = f(d)
    x = (a + b) / 2
    return x if f(x) <= values[best] else grid[best]


def fit_figure(
    figure: Figure,
    cases: Sequence[dict[str, Any]],
    exclude_source: str | None = None,
    group: Callable[[dict[str, Any]], str] = source_key,
) -> Fit:
    """Fit ``figure`` on its fitting cases, without those whose ``group`` (default: the source) is
    ``exclude_source``; with no case left it keeps its value (objectives NaN)."""
    used = [c for c in fitting_cases(figure, cases) if exclude_source is None or group(c) != exclude_source]
    if not used:
        return Fit(figure, figure.value, [], math.nan, math.nan, exclude_source)
    memo: dict[float, float] = {}

    def f(x: float) -> float:
        key = round(x, 6)
        if key not in memo:
            memo[key] = objective(figure, key, used)
        return memo[key]

    value = round(minimize(f, *figure.bounds), 2)
    return Fit(figure, value, [str(c["id"]) for c in used], f(figure.value), f(value), exclude_source)


def calibrate(cases: Sequence[dict[str, Any]], figures: Sequence[Figure]) -> list[Fit]:
    """Refit every figure on all its fitting cases."""
    return [fit_figure(fig, cases) for fig in figures]


def case_id(case: dict[str, Any]) -> str:
    """A case's own group: :func:`cross_validate` with it leaves one case out at a time."""
    return str(case["id"])


def cross_validate(
    cases: Sequence[dict[str, Any]],
    figures: Sequence[Figure],
    group: Callable[[dict[str, Any]], str] = source_key,
) -> CrossValidation:
    """In-sample and leave-one-group-out predictions of every case (see the module docstring): by
    default one source out at a time, with ``group=case_id`` one case."""
    in_fit = {fig: fitting_cases(fig, cases) for fig in figures}
    in_sample = [run_case(c) for c in cases]
    out: list[CaseResult] = list(in_sample)
    fits: dict[str, list[Fit]] = {}
    index = {str(c["id"]): i for i, c in enumerate(cases)}
    for src in sorted({group(c) for c in cases}):
        touched = [fig for fig in figures if any(group(c) == src for c in in_fit[fig])]
        if not touched:
            continue
        fits[src] = [fit_figure(fig, cases, src, group) for fig in touched]
        values = {fit.figure: fit.value for fit in fits[src]}
        for c in cases:
            if group(c) == src:
                out[index[str(c["id"])]] = run_case(with_figures(c, values))
    return CrossValidation(in_sample, out, fits)


# --- a user's cases: fit, leave one case out, write a catalog directory ----------------------------
MIN_CASES = 2
"""The fewest cases that may fit one figure. A figure is one degree of freedom: one case fits it
exactly (zero residual, so the in-sample error says nothing), and leaving that case out leaves no
case to fit it from, so its out-of-sample error cannot be measured. Two is the least that both fits
and checks the fit on a case it has not seen."""


@dataclass
class UserFit:
    """``llmcost calibrate FILE --out DIR``: the fits, each case before (catalog), after (fitted) and
    left out (fitted without it), and why each case no figure uses is left alone."""

    fits: list[Fit]
    before: list[CaseResult]
    after: list[CaseResult]
    left_out: list[CaseResult]
    unused: dict[str, str]


def moves(figure: Figure, case: dict[str, Any]) -> bool:
    """Whether ``case``'s prediction depends on ``figure`` (differs at its two bounds): an fp8 figure
    does not move a bf16 run, and a case that does not move a figure cannot fit it."""
    lo, hi = (run_case(with_figures(case, {figure: b})).predicted for b in figure.bounds)
    return lo is not None and hi is not None and lo != hi


def _unused_reason(case: dict[str, Any], figures: Sequence[Figure]) -> str:
    """Why no figure is fitted on ``case``: its hardware is in no figure's scope, or none of its
    hardware's figures moves it."""
    hw = hardware_id(case)
    if not any(hw in f.hardware for f in figures):
        scope = sorted({h for f in figures for h in f.hardware})
        return f"hardware '{hw}' is in no fitted figure's scope (they cover {', '.join(scope)})"
    return (
        f"no fitted figure of '{hw}' moves its prediction (a {case.get('kind')} case; figures fit "
        "train cases of their precision, dense models only where they say so, never a memory metric)"
    )


def calibrate_cases(cases: Sequence[dict[str, Any]], figures: Sequence[Figure]) -> UserFit:
    """Fit every figure some of ``cases`` move, on those cases, and predict each case left out.

    Refuses (:class:`UserError`, one line) when no figure is moved by any case, or when a figure is
    moved by fewer than :data:`MIN_CASES` cases."""
    used = {fig: [c for c in fitting_cases(fig, cases) if moves(fig, c)] for fig in figures}
    used = {fig: cs for fig, cs in used.items() if cs}
    if not used:
        why = f"{case_id(cases[0])}: {_unused_reason(cases[0], figures)}" if cases else "there are none"
        raise UserError(f"calibrate: no fitted catalog figure depends on these cases ({why})")
    for fig, cs in used.items():
        if len(cs) < MIN_CASES:
            ids = ", ".join(case_id(c) for c in cs)
            raise UserError(
                f"calibrate: {fig.name} is moved by {len(cs)} case ({ids}); a figure is one degree of "
                f"freedom and needs at least {MIN_CASES} cases: one fits it exactly, and leaving it out "
                "leaves nothing to fit from, so the fit could not be checked; add cases on its hardware"
            )
    fits = [fit_figure(fig, cs) for fig, cs in used.items()]
    values = {f.figure: f.value for f in fits}
    cv = cross_validate(cases, list(used), group=case_id)
    after = [run_case(with_figures(c, values)) for c in cases]
    fitted = {i for f in fits for i in f.cases}
    unused = {case_id(c): _unused_reason(c, figures) for c in cases if case_id(c) not in fitted}
    return UserFit(fits, cv.in_sample, after, cv.out_of_sample, unused)


def write_catalog(fits: Sequence[Fit], out: str | Path, files: Sequence[str], date: str) -> list[str]:
    """Write ``out/hardware/<id>.yaml`` for every entry sharing a fitted figure: the entry as its file
    holds it with each fitted figure's value replaced, and where it came from (``fit.calibrated``:
    the case files, case ids, objective before and after, catalog value, date). ``--catalog out``
    then overrides the shipped entries (docs/CATALOG.md). Returns the files written."""
    import yaml

    from llmcost.catalog import catalog

    entries: dict[str, dict[str, Any]] = {}
    for fit in fits:
        fig, lead = fit.figure, fit.figure.hardware[0]
        for hw_id in fig.hardware:
            if hw_id not in entries:
                entries[hw_id] = copy.deepcopy(catalog().hardware_entry(hw_id)[0])
            eff = entries[hw_id].setdefault("efficiency", {})
            old = eff.get(fig.key) if isinstance(eff.get(fig.key), dict) else {}
            spec = dict(old.get("fit") or ({} if hw_id == lead else {"same_as": lead}))
            spec["calibrated"] = {
                "files": list(files),
                "cases": list(fit.cases),
                "objective_before": round(fit.objective_before, 4),
                "objective_after": round(fit.objective_after, 4),
                "catalog_value": fig.value,
                "date": date,
            }
            source = (
                f"llmcost calibrate on {', '.join(files)} ({len(fit.cases)} cases), {date}: mean "
                f"|ln(predicted/measured)| {fit.objective_before:.4f} -> {fit.objective_after:.4f}; "
                f"catalog value {fig.value:.2f}"
            )
            eff[fig.key] = {"value": fit.value, "source": source, "fit": spec}
    folder = Path(out) / "hardware"
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for hw_id, data in entries.items():
        path = folder / f"{hw_id}.yaml"
        head = f"# {hw_id} with figures fitted by llmcost calibrate --out ({date}); use: llmcost --catalog DIR ...\n"
        path.write_text(head + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100))
        written.append(str(path))
    return written


# --- writing a fit back ----------------------------------------------------------------------------
def _same_as(figure: Figure) -> list[str]:
    """Entries outside ``figure.hardware`` whose ``efficiency.<key>`` says ``fit: {same_as: <lead>}``."""
    return [
        hw_id
        for hw_id, key, _, spec in _fit_specs()
        if key == figure.key and spec.get("same_as") == figure.hardware[0] and hw_id not in figure.hardware
    ]


def write_fit(fit: Fit) -> list[str]:
    """Set the fitted value in the catalog files that hold the figure (the declaring entry and the
    entries that say ``same_as`` it); returns the files changed. Only the ``value:`` on the line of
    ``<key>: {...fit: ...}`` changes, so comments and sources stay as written."""
    import re

    from llmcost.catalog import get_hardware

    changed = []
    pattern = re.compile(rf"^(\s*{re.escape(fit.figure.key)}:\s*\{{value:\s*)([0-9.]+)(.*\bfit:.*)$", re.M)
    for hw_id in (*fit.figure.hardware, *_same_as(fit.figure)):
        path = Path(get_hardware(hw_id).where)
        if not path.is_file():
            continue
        text = path.read_text()
        new, n = pattern.subn(lambda m: f"{m.group(1)}{fit.value:.2f}{m.group(3)}", text)
        if n and new != text:
            path.write_text(new)
            changed.append(str(path))
    return changed
