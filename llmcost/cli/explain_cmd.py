"""``llmcost explain ...``: where a figure comes from.

* ``llmcost explain`` (or ``--list``): every formula of every cost area, with the function that
  builds it (:mod:`llmcost.cli.formula_index`);
* ``llmcost explain NAME``: one formula's sympy expression, its docstring (the source) and where it
  is built;
* ``llmcost explain collective OP ...``: one collective's expression with the values substituted.

A first argument that is not a subcommand is a formula name (:class:`ExplainGroup`). This module
imports sympy only when a command runs.
"""

from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from llmcost.cli.explaining import explain_rows
from llmcost.cli.options import FormatOpt, HwOpt

__all__ = ["explain_app", "explain_rows", "register"]

LatexOpt = Annotated[bool, typer.Option("--latex", help="Print the expression as LaTeX.")]


class ExplainGroup(TyperGroup):
    """The ``explain`` group: a first argument that names no subcommand runs ``formula`` on it."""

    def resolve_command(self, ctx: Any, args: list[str]) -> tuple[str | None, Any, list[str]]:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            return "formula", self.commands["formula"], args
        return super().resolve_command(ctx, args)


explain_app = typer.Typer(
    cls=ExplainGroup,
    help="Where a figure comes from: every formula with the function that builds it (no argument or "
    "--list), one formula (NAME), or one collective with its values (collective OP).",
    invoke_without_command=True,
    subcommand_metavar="[NAME | collective OP] [ARGS]...",
)


@explain_app.callback()
def _explain_root(
    ctx: typer.Context,
    list_: Annotated[
        bool, typer.Option("--list", help="List every formula of every area (also with no argument).")
    ] = False,
    fmt: FormatOpt = "table",
) -> None:
    """Where a figure comes from: every formula with the function that builds it (no argument or
    --list), one formula (NAME), or one collective with its values (collective OP)."""
    if ctx.invoked_subcommand is not None:
        return
    from llmcost.cli.explain_views import list_formulas
    from llmcost.report import check_format

    list_formulas(check_format(fmt))


@explain_app.command("formula", hidden=True)
def explain_formula(
    name: Annotated[str, typer.Argument(help="Formula name, bare or area.name (llmcost explain --list).")],
    latex: LatexOpt = False,
    fmt: FormatOpt = "table",
) -> None:
    """One formula: its sympy expression, its docstring (the source) and the function that builds it."""
    from llmcost.cli.explain_views import show_formula
    from llmcost.report import check_format

    show_formula(name, latex, check_format(fmt))


@explain_app.command("collective")
def explain_collective(
    op: Annotated[
        str, typer.Argument(help="all_reduce, reduce_scatter, all_gather, broadcast, all_to_all, send_recv")
    ],
    algo: Annotated[
        str, typer.Option("--algo", help="Algorithm (auto = the fastest for the size).")
    ] = "auto",
    size: Annotated[str, typer.Option("--size", help="Full buffer per rank, e.g. 1GiB.")] = "1GiB",
    gpus: Annotated[int, typer.Option("--gpus", help="Ranks in the group.")] = 8,
    hw: HwOpt = "h100-sxm",
    gpus_per_node: Annotated[int | None, typer.Option("--gpus-per-node", help="Ranks per host.")] = None,
    protocol: Annotated[
        str,
        typer.Option("--protocol", help="NCCL protocol: auto (the fastest for the size), ll, ll128, simple."),
    ] = "auto",
    latex: LatexOpt = False,
    fmt: FormatOpt = "table",
) -> None:
    """Time of one collective: the sympy expression (protocol-aware: t_0, alpha_k, kappa_p and B_p
    take the protocol's NCCL figures), the values of its symbols and the result."""
    from llmcost.cli.explain_views import collective_case, show_collective
    from llmcost.report import check_format

    check_format(fmt)
    case = collective_case(hw, op, size, gpus, gpus_per_node, algo, protocol)
    show_collective(case, gpus, size, latex, fmt)


def register(app: typer.Typer) -> None:
    """Add the ``explain`` group to the CLI."""
    app.add_typer(explain_app, name="explain")
