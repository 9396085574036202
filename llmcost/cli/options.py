"""Options shared by several commands, declared once."""

from __future__ import annotations

from typing import Annotated

import typer

FormatOpt = Annotated[
    str,
    typer.Option("--format", "-f", help="Output format: table, json, yaml or csv."),
]

GpusPerNodeOpt = Annotated[int | None, typer.Option("--gpus-per-node", help="GPUs per host.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
TopOpt = Annotated[int, typer.Option("--top", help="Plans listed (ignored with --pareto).")]
ParetoOpt = Annotated[
    bool, typer.Option("--pareto", help="Return the Pareto front instead of the top plans.")
]


def check_top(top: int) -> int:
    """``--top`` is a positive number of plans."""
    from llmcost.errors import UserError

    if top < 1:
        raise UserError(f"--top: expected a positive integer, got {top}")
    return top
