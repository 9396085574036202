"""Options shared by several commands, declared once."""

from pathlib import Path
from typing import Annotated

import typer

FormatOpt = Annotated[
    str,
    typer.Option("--format", "-f", help="Output format: table, json, yaml or csv."),
]

GpusPerNodeOpt = Annotated[int | None, typer.Option("--gpus-per-node", help="GPUs per host.")]
EmitOpt = Annotated[
    str | None,
    typer.Option(
        "--emit",
        help="Print the plan as FRAMEWORK's launch config instead of the table (training: megatron, torchtitan,"
        " nemo, deepspeed; inference: vllm, sglang, trtllm); JSON / YAML: under 'emit'.",
    ),
]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
TopOpt = Annotated[int, typer.Option("--top", help="Plans listed (ignored with --pareto).")]
ParetoOpt = Annotated[
    bool, typer.Option("--pareto", help="Return the Pareto front instead of the top plans.")
]
PlotOpt = Annotated[
    Path | None,
    typer.Option(
        "--plot",
        metavar="FILE",
        help="Also draw the figure to FILE (.png or .svg; needs matplotlib: pip install 'llmcost[plot]').",
    ),
]
