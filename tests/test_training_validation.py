"""The public training cases: every case runs, the table is printed, Korthikanti Table 5 error reported."""

from __future__ import annotations

import statistics
from pathlib import Path

from llmcost.validation.cases import load_cases, run_case

CASES = Path(__file__).resolve().parents[1] / "validation" / "training.yaml"


def test_training_cases_table(capsys) -> None:
    results = [run_case(c) for c in load_cases([CASES])]
    assert results and all(r.kind == "train" for r in results)
    lines = [f"{'id':46s} {'metric':24s} {'measured':>11s} {'predicted':>11s} {'error':>8s}"]
    for r in results:
        pred = "-" if r.predicted is None else f"{r.predicted:11.4g}"
        err = r.reason if r.error is None else f"{100 * r.error:+7.1f}%"
        lines.append(f"{r.id:46s} {r.metric:24s} {r.measured:11.4g} {pred:>11s} {err:>8s}")
    errs = [abs(r.error) for r in results if r.error is not None]
    t5 = [
        abs(r.error)
        for r in results
        if r.error is not None and r.id.startswith("seqsel-tab5") and r.metric == "iteration_time_s"
    ]
    lines.append(
        f"evaluated {len(errs)}/{len(results)}; median |error| {100 * statistics.median(errs):.1f}%, "
        f"mean {100 * statistics.fmean(errs):.1f}%"
    )
    lines.append(
        f"Korthikanti Table 5 iteration time ({len(t5)} runs): mean |error| "
        f"{100 * statistics.fmean(t5):.1f}%, max {100 * max(t5):.1f}% (Calculon: 3.65% / 8.87%)"
    )
    with capsys.disabled():
        print("\n" + "\n".join(lines))
    assert len(errs) == len(results)  # every public case is modelled
    assert len(t5) == 8
    # Regression guards, not goals. The A100 training GEMM figure is fitted by `llmcost calibrate`
    # over every public A100 case of a dense model (not hand-picked for Table 5 as before, when the
    # Table 5 mean was 2.9%): Table 5 is now 5.8% (pessimistic), the price of fitting one figure to
    # sources whose stacks differ. Issue 11's goal (Table 5 mean <= 3%) is not met.
    assert statistics.median(errs) <= 0.12
    assert statistics.fmean(t5) <= 0.065
