"""``llmcost explain ...``: the expression behind a figure, with the values that went into it.

``explain_app`` is a typer group; later commands add ``@explain_app.command("train")`` etc.
This module imports sympy (only when run).
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from llmcost.cli.options import FormatOpt

explain_app = typer.Typer(
    help="Show the closed-form expression behind a figure, with the values substituted.", no_args_is_help=True
)


def explain_rows(expr: Any, vals: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per free symbol: name, value, unit, meaning (from the symbol registry)."""
    from llmcost.symbolic.symbols import REGISTRY

    rows = []
    for s in sorted(expr.free_symbols, key=lambda s: s.name):
        info = REGISTRY.info(s.name) if s.name in REGISTRY else None
        rows.append(
            {
                "symbol": s.name,
                "value": vals.get(s.name),
                "unit": info.unit if info else "",
                "meaning": info.doc if info else "",
            }
        )
    return rows


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
    hw: Annotated[str, typer.Option("--hw", help="Hardware id.")] = "h100-sxm",
    gpus_per_node: Annotated[int | None, typer.Option("--gpus-per-node", help="Ranks per host.")] = None,
    protocol: Annotated[
        str,
        typer.Option("--protocol", help="NCCL protocol: auto (the fastest for the size), ll, ll128, simple."),
    ] = "auto",
    latex: Annotated[bool, typer.Option("--latex", help="Print the expression as LaTeX.")] = False,
    fmt: FormatOpt = "table",
) -> None:
    """Time of one collective: the sympy expression (protocol-aware: t_0, alpha_k, kappa_p and B_p
    take the protocol's NCCL figures), the values of its symbols and the result."""
    import sympy as sp

    from llmcost.catalog import get_hardware
    from llmcost.collectives import cost as C
    from llmcost.collectives import formulas as F
    from llmcost.report import check_format, emit
    from llmcost.symbolic.symbols import REGISTRY
    from llmcost.units import fmt_time, parse

    check_format(fmt)
    hardware = get_hardware(hw)
    nbytes = parse(size, "bytes", what="--size", allow_bare=True)
    r = C.collective(hardware, op, nbytes, gpus, gpus_per_node, algo, protocol)
    levels = r.levels
    sh = C.shape(r.op, str(r.algo), levels)
    expr = F.expression(sh)
    vals = C.values(hardware, levels, nbytes, str(r.algo), str(r.protocol), r.op)
    subbed = sp.N(expr.subs(F.substitutions(expr, vals)), 6)
    doc = getattr(F, "in_network" if r.algo == "in_network" else str(r.algo)).__doc__ or ""
    names = REGISTRY.latex_names()
    text = sp.latex(expr, symbol_names=names) if latex else sp.pretty(expr, use_unicode=True)
    rows = explain_rows(expr, vals)
    if fmt != "table":
        emit(
            {
                "shape": sh.name,
                "protocol": str(r.protocol),
                "expression": str(expr),
                "latex": sp.latex(expr, symbol_names=names),
                "values": {x["symbol"]: x["value"] for x in rows},
                "time_s": float(r.time),
            },
            fmt,
        )
        return
    levels_txt = ", ".join(f"{lv.tier.key} ({lv.tier.topology}) x{lv.d:g}" for lv in levels)
    print(f"{r.op} / {r.algo} / {r.protocol} protocol on {gpus} x {hardware.id} [{levels_txt}], S = {size}")
    print(" ".join(doc.split()))
    if C.nccl_platform(hardware):
        print(
            f"Protocol {r.protocol}: t_0 = NCCL baseLat, alpha_k = hwLat[link][algo][{r.protocol}] x catalog "
            "latency / hwLat[link][ring][simple] (multi-node ring: intra-node step >= the net overhead, "
            "Simple all-reduce x1.4 plateau), kappa_p and B_p = the protocol's bandwidth factor and cap "
            "(llmcost.collectives.cost.NCCL; " + C.NCCL["source"] + ")."
        )
    print()
    print("T =" if latex else "T =")
    print(text)
    print()
    emit(rows, "table", title="values")
    print()
    print(f"T = {subbed} s = {fmt_time(float(r.time))}")


def register(app: typer.Typer) -> None:
    """Add the ``explain`` group to the CLI."""
    app.add_typer(explain_app, name="explain")
