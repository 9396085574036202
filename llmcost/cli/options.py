"""Options shared by every command."""

from __future__ import annotations

from typing import Annotated

import typer

FormatOpt = Annotated[
    str,
    typer.Option("--format", "-f", help="Output format: table, json, yaml or csv."),
]
