"""Run validation cases: published measurements against the cost model.

Case format: ../shared/validation/README.md (a YAML list of cases with ``id``, ``kind``,
``source``, ``model`` (id or inline mapping), ``hardware``, ``hardware_overrides``
(deep-merged), ``cluster``, ``plan`` / ``collective`` / ``tts``, ``metric: {name, value}``,
``tolerance``, ``notes``). Files are read unchanged.

Each kind is evaluated by a function registered with :func:`register_evaluator`; this module
registers the shipped kinds (train, infer, collective, tts), each evaluated in its own module
(:mod:`llmcost.validation.training`, ...). A case whose kind has no evaluator (or whose metric the evaluator
does not produce) appears with ``predicted: None`` and a ``reason``: never silently dropped.
Training / inference / test-time-scaling authors plug in theirs::

    from llmcost.validation.cases import register_evaluator, Prediction
    @register_evaluator("train")
    def _train(case: dict, hw: Hardware) -> Prediction: ...

``error = (predicted - measured) / measured``; the summary gives, per kind, the count, how
many were evaluated, and the median, mean and max absolute error.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from llmcost.errors import UserError, did_you_mean
from llmcost.hardware import Hardware
from llmcost.training.kernel_classes import KERNEL_CLASS_METRICS
from llmcost.training.plan import POWER_CAP_METRICS, SPEEDUP_METRICS, SUBLAYER_METRICS, SYNC_METRICS
from llmcost.validation.case_hw import case_hardware  # noqa: F401  (re-exported)
from llmcost.validation.prediction import Prediction

KINDS = ("train", "infer", "collective", "tts", "fit", "network")


Evaluator = Callable[[dict[str, Any], Hardware], Prediction]
EVALUATORS: dict[str, Evaluator] = {}


def register_evaluator(kind: str) -> Callable[[Evaluator], Evaluator]:
    """Decorator registering the evaluator of a case ``kind``."""

    def deco(fn: Evaluator) -> Evaluator:
        EVALUATORS[kind] = fn
        return fn

    return deco


@dataclass
class CaseResult:
    """One case: measured, predicted (None with a reason when not evaluated) and relative error."""

    id: str
    kind: str
    metric: str
    measured: float
    predicted: float | None
    error: float | None
    reason: str | None = None
    tolerance: float | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        """The README's JSON form: id, kind, metric, measured, predicted, error (+ reason)."""
        out: dict[str, Any] = {
            "id": self.id,
            "kind": self.kind,
            "metric": self.metric,
            "measured": self.measured,
            "predicted": self.predicted,
            "error": self.error,
        }
        if self.predicted is None:
            out["reason"] = self.reason
        return out


# --- loading -------------------------------------------------------------------------------------
_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "id": ((str, int), "a name such as inf-01"),
    "kind": ((str,), "one of " + ", ".join(KINDS)),
    "hardware": ((str,), "a hardware id"),
    "source": ((str,), "text naming the source"),
    "notes": ((str,), "text"),
    "model": ((str, dict, type(None)), "a model id or a mapping of config keys"),
    "stack": ((str, dict), "NAME[:YEAR] or {framework: ..., year: ...}"),
    "tolerance": ((int, float), "a relative error such as 0.15"),
    **{
        k: ((dict,), "a mapping")
        for k in ("plan", "cluster", "metric", "hardware_overrides", "tts", "collective")
    },
}
"""The type each case key holds (a key not listed here is the evaluator's to check)."""


def _check_types(case: dict[str, Any], where: str) -> None:
    """One line naming the first case key of the wrong type and what it should be."""
    for key, (types, what) in _TYPES.items():
        v = case.get(key)
        if key in case and (isinstance(v, bool) or not isinstance(v, types)):
            raise UserError(f"{where}: '{key}' must be {what}, got {type(v).__name__} {str(v)[:40]!r}")


def load_cases(paths: Iterable[Path]) -> list[dict[str, Any]]:
    """Read and check the case files (a YAML list each); errors name the file and case."""
    from llmcost.catalog import read_file

    cases: list[dict[str, Any]] = []
    seen: set[str] = set()
    for path in paths:
        path = Path(path)
        if not path.is_file():
            raise UserError(f"validation file '{path}' does not exist")
        data = read_file(path)
        if not isinstance(data, list):
            raise UserError(f"{path}: expected a YAML list of cases, got {type(data).__name__}")
        for i, case in enumerate(data):
            where = f"{path}: case {i + 1}"
            if not isinstance(case, dict):
                raise UserError(f"{where}: expected a mapping")
            for key in ("id", "kind", "hardware", "metric"):
                if key not in case:
                    raise UserError(f"{where}: missing required key '{key}'")
            _check_types(case, where)
            if case["kind"] not in KINDS:
                raise UserError(
                    f"{where} ({case['id']}): unknown kind '{case['kind']}'"
                    f"{did_you_mean(str(case['kind']), KINDS)} (kinds: {', '.join(KINDS)})"
                )
            metric = case["metric"]
            if (
                not isinstance(metric, dict)
                or not isinstance(metric.get("name"), str)
                or isinstance(metric.get("value"), bool)
                or not isinstance(metric.get("value"), (int, float))
            ):
                raise UserError(f"{where} ({case['id']}): 'metric' must be {{name: ..., value: <number>}}")
            if not math.isfinite(metric["value"]) or metric["value"] == 0:
                raise UserError(
                    f"{where} ({case['id']}): metric.value must be a finite, non-zero number (the "
                    f"measurement errors are relative to it), got {metric['value']!r}"
                )
            conv = metric.get("attention_flops", "full")
            if conv not in ATTENTION_FLOPS:
                raise UserError(
                    f"{where} ({case['id']}): metric.attention_flops must be one of "
                    f"{', '.join(ATTENTION_FLOPS)}, got {conv!r}"
                )
            if case["id"] in seen:
                raise UserError(f"{where}: duplicate case id '{case['id']}'")
            seen.add(case["id"])
            cases.append(case)
    return cases


ATTENTION_FLOPS = ("full", "causal")
"""How a case's source counts causal attention in a FLOP metric (``metric.attention_flops``,
default ``full``): the full s² (PaLM App. B; Narayanan 2021; Korthikanti 2022; Megatron-LM before
Megatron-Core 0.12; MaxText before July 2025; torchtitan) or the pairs a causal mask keeps (what
``llmcost train`` reports; Megatron-Core >= 0.12, MaxText since July 2025)."""


def shipped_files() -> list[Path]:
    """The validation files shipped with llmcost (``validation/*.yaml``)."""
    from llmcost.catalog import shipped_root

    return sorted((shipped_root() / "validation").glob("*.yaml"))


# --- evaluation ----------------------------------------------------------------------------------
def run_case(case: dict[str, Any]) -> CaseResult:
    """Evaluate one case; user errors in it become a reason, not a crash."""
    metric = case["metric"]
    measured = float(metric["value"])
    res = CaseResult(
        str(case["id"]),
        str(case["kind"]),
        str(metric["name"]),
        measured,
        None,
        None,
        tolerance=case.get("tolerance"),
    )
    fn = EVALUATORS.get(res.kind)
    if fn is None:
        res.reason = f"kind '{res.kind}' is not modelled yet"
        return res
    try:
        pred = fn(case, case_hardware(case))
    except UserError as e:
        res.reason = str(e)
        return res
    res.detail = pred.detail
    if pred.value is None:
        res.reason = pred.reason or "not evaluated"
        return res
    res.predicted = float(pred.value)
    res.error = (res.predicted - measured) / measured
    return res


MEMORY_METRICS = ("memory_gib_per_gpu",)
"""Metrics that measure memory, not time: summarized apart (``<kind>_memory``) and never used to fit
a speed figure."""


# Metrics summarized apart (``<kind>_comm``, ``_speedup``, ``_sublayer``, ``_power``, ``_kernels``) and
# never used to fit a speed figure or an error band: communication volume (DiLoCo's), ratios of two
# plans' step times (a ratio cancels the figures a fit would move), one TP sublayer's speed-up (T3),
# power-cap ratios, a step's time in one kernel class (a part of the step, not the step).
# One definition each, beside the training metrics they are (llmcost.training.plan).
COMM_METRICS = SYNC_METRICS
POWER_METRICS = POWER_CAP_METRICS
KERNEL_METRICS = KERNEL_CLASS_METRICS


def summary_group(kind: str, metric: str) -> str:
    """The summary a result counts in: its kind, or ``<kind>_memory`` for a memory metric (a
    peak-memory prediction is a different model from the step time; mixing their errors would hide
    both), ``<kind>_comm`` for a communication-volume metric, ``<kind>_sublayer`` for a sublayer's,
    ``<kind>_speedup`` for a ratio of step times, ``<kind>_power`` for a power-cap ratio,
    ``<kind>_kernels`` for one kernel class's time in the step."""
    if metric in COMM_METRICS:
        return f"{kind}_comm"
    if metric in SUBLAYER_METRICS:
        return f"{kind}_sublayer"
    if metric in SPEEDUP_METRICS:
        return f"{kind}_speedup"
    if metric in POWER_METRICS:
        return f"{kind}_power"
    if metric in KERNEL_METRICS:
        return f"{kind}_kernels"
    return f"{kind}_memory" if metric in MEMORY_METRICS else kind


def summarize(results: Sequence[CaseResult]) -> dict[str, dict[str, Any]]:
    """Per kind (memory metrics apart, :func:`summary_group`): count, evaluated, median / mean / max
    absolute relative error, within tolerance."""
    out: dict[str, dict[str, Any]] = {}
    for kind in sorted({summary_group(r.kind, r.metric) for r in results}):
        rs = [r for r in results if summary_group(r.kind, r.metric) == kind]
        errs = [abs(r.error) for r in rs if r.error is not None]
        tol = [r for r in rs if r.error is not None and r.tolerance is not None]
        out[kind] = {
            "count": len(rs),
            "evaluated": len(errs),
            "median_abs_error": statistics.median(errs) if errs else None,
            "mean_abs_error": statistics.fmean(errs) if errs else None,
            "max_abs_error": max(errs) if errs else None,
            "within_tolerance": sum(abs(r.error) <= r.tolerance for r in tol) if tol else None,  # type: ignore[arg-type,operator]
            "with_tolerance": len(tol),
            "does_not_fit": [r.id for r in rs if r.detail.get("fits") == "NO"],
        }
    return out


def source_key(case: dict[str, Any]) -> str:
    """The source a case belongs to (one paper, document or benchmark table): its ``source`` up
    to the first comma."""
    return str(case.get("source") or case["id"]).split(",")[0].strip()


def by_source(
    cases: Sequence[dict[str, Any]], results: Sequence[CaseResult], oos: Sequence[CaseResult] | None = None
) -> list[dict[str, Any]]:
    """Per (kind, source): case count, median signed and median absolute error (and the
    leave-one-source-out median signed error when ``oos`` is given), largest sources first. The
    signed median shows a source family the model is biased on."""
    groups: dict[tuple[str, str], list[int]] = {}
    for i, c in enumerate(cases):
        groups.setdefault((summary_group(str(c["kind"]), results[i].metric), source_key(c)), []).append(i)
    rows = []
    for (kind, src), idx in groups.items():
        errs = [results[i].error for i in idx if results[i].error is not None]
        if not errs:
            continue
        row: dict[str, Any] = {
            "kind": kind,
            "source": src,
            "count": len(errs),
            "median_error": statistics.median(errs),
            "median_abs_error": statistics.median(abs(e) for e in errs),
        }
        if oos is not None:
            o = [oos[i].error for i in idx if oos[i].error is not None]
            row["median_error_out_of_sample"] = statistics.median(o) if o else None
        rows.append(row)
    return sorted(rows, key=lambda r: (r["kind"], -r["count"], r["source"]))


def cases_of(paths: Sequence[Path] | None = None) -> list[dict[str, Any]]:
    """The cases of ``paths`` (default: the shipped files)."""
    files = list(paths) if paths else shipped_files()
    if not files:
        raise UserError("no validation files given and none shipped")
    return load_cases(files)


def run(paths: Sequence[Path] | None = None) -> tuple[list[CaseResult], dict[str, dict[str, Any]]]:
    """Evaluate every case of ``paths`` (default: the shipped files)."""
    results = [run_case(c) for c in cases_of(paths)]
    return results, summarize(results)


def as_json(results: Sequence[CaseResult], summary: dict[str, Any]) -> dict[str, Any]:
    """``{"cases": [...], "summary": {...}}`` as the validation README specifies."""
    return {"cases": [r.as_json() for r in results], "summary": summary}


# --- the shipped evaluators: one module per kind, imported when a case of that kind runs ------------
@register_evaluator("collective")
def _collective(case: dict[str, Any], hw: Hardware) -> Prediction:
    """nccl-tests style collective: time_s, busbw_gbps or algbw_gbps (llmcost.validation.collective)."""
    from llmcost.validation.collective import evaluate_case

    return evaluate_case(case, hw)


@register_evaluator("infer")
def _infer(case: dict[str, Any], hw: Hardware) -> Prediction:
    """Inference case: ttft_s, tpot_s, throughput and memory metrics (llmcost.inference.serve)."""
    from llmcost.validation.inference import evaluate_case

    return evaluate_case(case, hw)


@register_evaluator("train")
def _train(case: dict[str, Any], hw: Hardware) -> Prediction:
    """Training case: step time, TFLOP/s, MFU/HFU, memory, run totals (llmcost.validation.training)."""
    from llmcost.validation.training import evaluate_case

    return evaluate_case(case, hw)


@register_evaluator("tts")
def _tts(case: dict[str, Any], hw: Hardware) -> Prediction:
    """Test-time-scaling case: eFLOPs, FLOPs, bytes, latency, KV size per query (llmcost.validation.tts)."""
    from llmcost.validation.tts import evaluate_case

    return evaluate_case(case, hw)


@register_evaluator("network")
def _network(case: dict[str, Any], hw: Hardware) -> Prediction:
    """Network-design case: a training plan's network cost and step time over a fat tree's
    (llmcost.validation.network)."""
    from llmcost.validation.network import evaluate_case

    return evaluate_case(case, hw)
