"""``llmcost validate [FILE...]``: measured vs predicted for validation cases."""

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from llmcost.cli.options import FormatOpt


def case_rows(results: Any) -> list[dict[str, Any]]:
    """Table rows: id, kind, metric, measured, predicted, error %, and the algorithm or the reason."""
    rows = []
    for r in results:
        rows.append(
            {
                "id": r.id,
                "kind": r.kind,
                "metric": r.metric,
                "measured": r.measured,
                "predicted": r.predicted,
                "error %": None if r.error is None else 100 * r.error,
                "note": r.reason if r.predicted is None else _detail(r.detail),
            }
        )
    return rows


def _detail(detail: dict[str, Any]) -> str:
    """An evaluator's extras as ``k=v`` items, numbers to 4 significant digits."""

    def show(v: Any) -> str:
        return f"{v:.4g}" if isinstance(v, float) else str(v)

    return ", ".join(f"{k}={show(v)}" for k, v in detail.items())


def summary_rows(summary: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Table rows of the per-kind summary (errors in %)."""
    pct = lambda v: None if v is None else 100 * v  # noqa: E731
    return [
        {
            "kind": k,
            "count": s["count"],
            "evaluated": s["evaluated"],
            "median |err| %": pct(s["median_abs_error"]),
            "mean |err| %": pct(s["mean_abs_error"]),
            "max |err| %": pct(s["max_abs_error"]),
            "within tolerance": "-"
            if not s["with_tolerance"]
            else f"{s['within_tolerance']} of {s['with_tolerance']}",
        }
        for k, s in summary.items()
    ]


def validate(
    files: Annotated[
        list[Path] | None, typer.Argument(help="Case files (default: the shipped validation/*.yaml).")
    ] = None,
    cross_validate: Annotated[
        bool,
        typer.Option(
            "--cross-validate",
            help="Also predict each source's cases with the fitted figures refitted without that source "
            "(leave-one-source-out), beside the in-sample prediction.",
        ),
    ] = False,
    write_bands: Annotated[
        bool,
        typer.Option(
            "--write-bands",
            help="With --cross-validate: write the error bands train and search print"
            " (llmcost/validation/_bands.py) from the out-of-sample residuals.",
        ),
    ] = False,
    fmt: FormatOpt = "table",
) -> None:
    """Run validation cases: measured, predicted and relative error per case, summary per kind."""
    import llmcost.capacity.cases  # noqa: F401  (registers kind: fit)
    from llmcost.report import check_format, emit
    from llmcost.validation.cases import as_json, by_source, cases_of, run_case, summarize

    check_format(fmt)
    if write_bands and not cross_validate:
        from llmcost.errors import UserError

        raise UserError("--write-bands needs --cross-validate (bands come from out-of-sample residuals)")
    if cross_validate:
        _cross_validate(files, fmt, write_bands)
        return
    cases = cases_of(files)
    results = [run_case(c) for c in cases]
    summary = summarize(results)
    sources = by_source(cases, results)
    if fmt in ("json", "yaml"):
        emit({**as_json(results, summary), "by_source": sources}, fmt)
        return
    emit(case_rows(results), fmt, title="validation cases")
    _summaries(summary_rows(summary), sources, fmt, "summary per kind")


def _summaries(srows: list[dict[str, Any]], sources: list[dict[str, Any]], fmt: str, title: str) -> None:
    """The per-kind summary, then the per-source table (signed medians show a biased source)."""
    from llmcost.report import emit

    if fmt == "table":
        print()
    emit(srows, fmt, title=title)
    if fmt == "table":
        print()
    emit(source_rows(sources), fmt, title="per source (median signed error: + over-predicts the metric)")


def source_rows(sources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Table rows of :func:`llmcost.validation.cases.by_source` (errors in %)."""
    pct = lambda v: None if v is None else 100 * v  # noqa: E731
    out = []
    for s in sources:
        row = {
            "kind": s["kind"],
            "source": s["source"][:70],
            "cases": s["count"],
            "median err %": pct(s["median_error"]),
            "median |err| %": pct(s["median_abs_error"]),
        }
        if "median_error_out_of_sample" in s:
            row["LOSO median err %"] = pct(s["median_error_out_of_sample"])
        out.append(row)
    return out


def _cross_validate(files: list[Path] | None, fmt: str, write_bands: bool = False) -> None:
    """``validate --cross-validate``: in-sample and leave-one-source-out side by side."""
    from llmcost.report import emit
    from llmcost.validation import calibrate as C
    from llmcost.validation.cases import as_json, by_source, cases_of, summarize

    cases = cases_of(files)
    cv = C.cross_validate(cases, C.catalog_figures())
    if write_bands:
        from llmcost.validation import bands as B

        path = B.write(
            B.build(cases, cv.out_of_sample),
            B.cases_digest(cases),
            B.build_evidence(cases, cv.out_of_sample),
        )
        print(f"wrote {path}", file=sys.stderr)
    sources = by_source(cases, cv.in_sample, cv.out_of_sample)
    summary = summarize(cv.in_sample)
    oos = summarize(cv.out_of_sample)
    for kind, s in summary.items():
        s["median_abs_error_out_of_sample"] = oos[kind]["median_abs_error"]
    if fmt in ("json", "yaml"):
        doc = {**as_json(cv.in_sample, summary), "by_source": sources}
        for case, oos in zip(doc["cases"], cv.out_of_sample, strict=True):
            case["predicted_out_of_sample"] = oos.predicted
            case["error_out_of_sample"] = oos.error
        emit(doc, fmt)
        return
    rows = case_rows(cv.in_sample)
    for row, oos in zip(rows, cv.out_of_sample, strict=True):
        row["LOSO predicted"] = oos.predicted
        row["LOSO error %"] = None if oos.error is None else 100 * oos.error
    emit(rows, fmt, title="validation cases: in-sample and leave-one-source-out (LOSO)")
    srows = summary_rows(summary)
    for row, s in zip(srows, summary.values(), strict=True):
        v = s["median_abs_error_out_of_sample"]
        row["median |err| LOSO %"] = None if v is None else 100 * v
    _summaries(
        srows, sources, fmt, "summary per kind (LOSO: each source predicted with figures fitted without it)"
    )


def register(app: typer.Typer) -> None:
    """Add ``validate`` to the CLI."""
    app.command("validate")(validate)
