"""Options shared by several commands, declared once."""

from pathlib import Path
from typing import Annotated

import typer

FormatOpt = Annotated[
    str,
    typer.Option("--format", "-f", help="Output format: table, json, yaml or csv."),
]

GpusPerNodeOpt = Annotated[int | None, typer.Option("--gpus-per-node", help="GPUs per host.")]
NetworkOpt = Annotated[
    str | None,
    typer.Option(
        "--network",
        help="Scale-out network topology: fat_tree, rail_fat_tree or rail_only (no spine: traffic between"
        " rails forwarded over NVLink); default the catalog's. Its bill of materials and cost are reported.",
    ),
]
EmitOpt = Annotated[
    str | None,
    typer.Option(
        "--emit",
        help="Print the plan as FRAMEWORK's launch config instead of the table (training: megatron, torchtitan,"
        " nemo, deepspeed; inference: vllm, sglang, trtllm); JSON / YAML: under 'emit'.",
    ),
]
PowerCapOpt = Annotated[
    str | None,
    typer.Option(
        "--power-cap",
        help="Board power limit per GPU, e.g. 400W (plan key power_cap): compute slows to the clock the cap"
        " allows (P = P_s + (P_cb - P_s) f^3), memory-bound work keeps its speed, draws at most the cap.",
    ),
]
PueOpt = Annotated[
    float | None, typer.Option("--pue", help="Facility PUE: energy is device energy x PUE (plan key pue).")
]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
WanOpt = Annotated[
    str | None,
    typer.Option(
        "--wan",
        metavar="SITE,BANDWIDTH,LATENCY",
        help="Sites of SITE GPUs joined by a WAN: each site's link one way and the one-way latency, e.g."
        " '8,10 Gbit/s,40 ms'. Replicas (tp*pp) sit in a site; data parallelism crosses the WAN.",
    ),
]
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

SeqLenDistOpt = Annotated[
    Path | None,
    typer.Option(
        "--seq-len-dist",
        metavar="FILE",
        help="Sequence lengths of the step: a YAML/JSON list of [length, weight] pairs or a CSV of"
        " 'length,weight' lines (weights: how often each length occurs). Sequences are packed to"
        " --seq-len (see --packing).",
    ),
]
PackingOpt = Annotated[
    str | None,
    typer.Option(
        "--packing",
        help="With --seq-len-dist: document (packed, attention masked per sequence; default), causal"
        " (packed, one causal mask per pack) or none (micro-batches padded to their longest sequence).",
    ),
]
DynamicCpOpt = Annotated[
    bool | None,
    typer.Option(
        "--dynamic-cp/--no-dynamic-cp",
        help="With --seq-len-dist: each sequence on the fewest context-parallel ranks that hold it,"
        " the ranks balanced (Megatron-Core dynamic CP; ByteScale's data-aware sharding). Default off.",
    ),
]

HtmlOpt = Annotated[
    Path | None,
    typer.Option(
        "--html",
        metavar="FILE",
        help="Also write one self-contained HTML page to FILE (.html): the tables, the figure as inline"
        " SVG (with matplotlib) and the formulas behind it.",
    ),
]


# --- shell completion of catalog ids (llmcost --install-completion) ----------------------------------
def _ids(kind: str, ctx: typer.Context | None) -> list[str]:
    """The catalog's ids of ``kind`` with the command line's ``--catalog`` directories (completion
    parses the line without running the root callback); nothing when the catalog cannot be read.
    The catalog is imported only here, when the shell asks."""
    from llmcost.catalog import hardware_ids, model_ids
    from llmcost.errors import UserError

    root = ctx.find_root() if ctx is not None else None
    dirs = (root.params.get("catalog") if root is not None else None) or []
    try:
        return (hardware_ids if kind == "hardware" else model_ids)(dirs)
    except UserError:
        return []


def complete_hardware(ctx: typer.Context, incomplete: str) -> list[str]:
    """Hardware ids starting with what is typed."""
    return [i for i in _ids("hardware", ctx) if i.startswith(incomplete)]


def complete_hardware_list(ctx: typer.Context, incomplete: str) -> list[str]:
    """A comma-separated list of hardware ids: the last item completed, the others kept."""
    done, _, last = incomplete.rpartition(",")
    head = f"{done}," if done else ""
    return [head + i for i in _ids("hardware", ctx) if i.startswith(last)]


def complete_model(ctx: typer.Context, incomplete: str) -> list[str]:
    """Model ids starting with what is typed."""
    return [i for i in _ids("model", ctx) if i.startswith(incomplete)]


_MODEL_HELP = "Model id (llmcost model list)."
ModelArg = Annotated[str, typer.Argument(help=_MODEL_HELP, autocompletion=complete_model)]
ModelOrFileArg = Annotated[
    str, typer.Argument(help="Model id (llmcost model list) or a config file.", autocompletion=complete_model)
]
HwOpt = Annotated[
    str, typer.Option("--hw", help="Hardware id (llmcost hw list).", autocompletion=complete_hardware)
]
