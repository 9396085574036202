"""``llmcost calibrate [FILE...]``: refit the catalog's fitted figures on validation cases; with
``--out DIR``, fit them to a user's own cases and write a catalog directory ``--catalog DIR`` applies."""

from pathlib import Path
from typing import Annotated, Any

import typer

from llmcost.cli.options import FormatOpt


def fit_rows(fits: Any) -> list[dict[str, Any]]:
    """One row per figure: current and fitted value, the cases and the objective at both."""
    return [
        {
            "figure": f.figure.name,
            "shared by": ", ".join(f.figure.hardware),
            "cases": len(f.cases),
            "catalog value": f.figure.value,
            "fitted value": f.value,
            "objective before": f.objective_before,
            "objective after": f.objective_after,
        }
        for f in fits
    ]


def calibrate(
    files: Annotated[
        list[Path] | None, typer.Argument(help="Case files (default: the shipped validation/*.yaml).")
    ] = None,
    write: Annotated[
        bool, typer.Option("--write", help="Write the fitted values into the catalog files that hold them.")
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            metavar="DIR",
            help="Fit the figures your cases move and write DIR/hardware/*.yaml (the entries with the "
            "fitted values and their provenance) for 'llmcost --catalog DIR ...'; prints the error before, "
            "after and with each case left out of the fit.",
        ),
    ] = None,
    fmt: FormatOpt = "table",
) -> None:
    """Refit every fitted catalog figure (efficiency.<key> with a 'fit' mapping) on the validation
    cases: objective mean |ln(predicted/measured)| over the cases of its kind on its hardware."""
    from llmcost.errors import UserError
    from llmcost.report import check_format, emit
    from llmcost.validation import calibrate as C
    from llmcost.validation.cases import cases_of

    check_format(fmt)
    if out is not None:
        if write:
            raise UserError(
                "--write and --out: choose one (--write edits the shipped catalog, --out writes DIR)"
            )
        if out.exists() and not out.is_dir():
            raise UserError(f"--out: '{out}' exists and is not a directory")
        _calibrate_out(files, out, fmt)
        return
    cases = cases_of(files)
    fits = C.calibrate(cases, C.catalog_figures())
    rows = fit_rows(fits)
    if fmt in ("json", "yaml"):
        emit({"figures": [{**r, "case_ids": f.cases} for r, f in zip(rows, fits, strict=True)]}, fmt)
    else:
        emit(rows, fmt, title="fitted figures (objective: mean |ln(predicted/measured)|)")
    if write:
        for f in fits:
            for path in C.write_fit(f):
                print(f"wrote {f.figure.name} = {f.value:.2f} into {path}")


def case_rows(uf: Any) -> list[dict[str, Any]]:
    """One row per case: measured, and the error with the catalog, fitted, and fitted without it."""
    pct = lambda r: None if r.error is None else 100 * r.error  # noqa: E731
    figures = {i: f.figure.name for f in uf.fits for i in f.cases}
    return [
        {
            "id": b.id,
            "metric": b.metric,
            "measured": b.measured,
            "error before %": pct(b),
            "error after %": pct(a),
            "left out %": pct(o),
            "fitted figure": figures.get(b.id) or f"none: {uf.unused.get(b.id, b.reason)}",
        }
        for b, a, o in zip(uf.before, uf.after, uf.left_out, strict=True)
    ]


def summary(uf: Any) -> dict[str, Any]:
    """Median |error| before, after and left out, over the cases a figure was fitted on."""
    import statistics

    fitted = {i for f in uf.fits for i in f.cases}

    def med(rs: Any) -> float | None:
        errs = [abs(r.error) for r in rs if r.id in fitted and r.error is not None]
        return statistics.median(errs) if errs else None

    return {
        "cases_fitted": len(fitted),
        "median_abs_error_before": med(uf.before),
        "median_abs_error_after": med(uf.after),
        "median_abs_error_left_out": med(uf.left_out),
    }


def _calibrate_out(files: list[Path] | None, out: Path, fmt: str) -> None:
    """``calibrate FILE --out DIR``: fit, report before / after / left-out errors, write DIR."""
    import datetime
    import sys

    from llmcost.report import emit
    from llmcost.validation import calibrate as C
    from llmcost.validation.cases import cases_of

    names = [str(f) for f in files] if files else ["the shipped validation cases"]
    uf = C.calibrate_cases(cases_of(files), C.catalog_figures())
    written = C.write_catalog(uf.fits, out, names, datetime.date.today().isoformat())
    figs, rows, summ = fit_rows(uf.fits), case_rows(uf), summary(uf)
    if fmt in ("json", "yaml"):
        figs = [{**r, "case_ids": f.cases} for r, f in zip(figs, uf.fits, strict=True)]
        emit({"figures": figs, "cases": rows, "summary": summ, "written": written}, fmt)
        return
    emit(figs, fmt, title="fitted figures (objective: mean |ln(predicted/measured)|)")
    print()
    emit(rows, fmt, title="your cases: error with the catalog, fitted, and fitted without the case")
    if fmt == "table":
        pct = lambda v: "-" if v is None else f"{100 * v:.1f}%"  # noqa: E731
        print(
            f"\nmedian |error| over the {summ['cases_fitted']} fitted cases: before "
            f"{pct(summ['median_abs_error_before'])}, after {pct(summ['median_abs_error_after'])}, "
            f"left out {pct(summ['median_abs_error_left_out'])}"
        )
    for path in written:
        print(f"wrote {path}", file=sys.stderr)
    print(f"use it: llmcost --catalog {out} train|infer|validate ...", file=sys.stderr)


def register(app: typer.Typer) -> None:
    """Add ``calibrate`` to the CLI."""
    app.command("calibrate")(calibrate)
