"""``llmcost calibrate [FILE...]``: refit the catalog's fitted figures on validation cases."""

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
    fmt: FormatOpt = "table",
) -> None:
    """Refit every fitted catalog figure (efficiency.<key> with a 'fit' mapping) on the validation
    cases: objective mean |ln(predicted/measured)| over the cases of its kind on its hardware."""
    from llmcost.report import check_format, emit
    from llmcost.validation import calibrate as C
    from llmcost.validation.cases import cases_of

    check_format(fmt)
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


def register(app: typer.Typer) -> None:
    """Add ``calibrate`` to the CLI."""
    app.command("calibrate")(calibrate)
