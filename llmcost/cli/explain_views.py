"""What ``llmcost explain`` prints: the list of formulas, one formula, one collective with values.

All of it imports sympy (only when run).
"""

from __future__ import annotations

from typing import Any

from llmcost.cli.explaining import explain_rows, symbol_rows


# ------------------------------------------------------------------------------ list, detail
def list_formulas(fmt: str) -> None:
    """Every area's formulas: name to type, builder location, one line of its docstring."""
    from llmcost.cli import formula_index as X
    from llmcost.report import emit

    formulas = list(X.all_formulas())
    names = X.display_names(formulas)
    rows = [
        {"area": f.area, "name": names[f.key], "builder": f.location, "summary": f.summary} for f in formulas
    ]
    if fmt != "table":
        emit(rows, fmt)
        return
    for area, module in X.AREAS.items():
        mine = [{k: v for k, v in r.items() if k != "area"} for r in rows if r["area"] == area]
        if mine:
            emit(mine, "table", title=f"{area} ({module.replace('.', '/')}.py)")
            print()
    print(
        "llmcost explain NAME: the expression, its source and its symbols; "
        "llmcost explain collective OP --gpus N --hw ID: a collective with its values."
    )


def _texts(terms: list[tuple[str, Any]], latex: bool) -> list[str]:
    import sympy as sp

    from llmcost.symbolic.symbols import REGISTRY

    if latex:
        names = REGISTRY.latex_names()
        return [f"{label} = {sp.latex(e, symbol_names=names)}" for label, e in terms]
    return [f"{label} = {e}" for label, e in terms]


def show_formula(name: str, latex: bool, fmt: str) -> None:
    """One formula: where it is built, its docstring (the source), its expressions and symbols."""
    import sympy as sp

    from llmcost.cli.formula_index import find
    from llmcost.report import emit
    from llmcost.symbolic.symbols import REGISTRY

    f = find(name)
    terms = f.terms()
    symbols = symbol_rows([e for _, e in terms])
    if fmt != "table":
        names = REGISTRY.latex_names()
        out = {"name": f.key, "builder": f.location, "via": f.via or None, "doc": f.doc}
        out |= {
            "expressions": {label: str(e) for label, e in terms},
            "latex": {label: sp.latex(e, symbol_names=names) for label, e in terms},
            "symbols": symbols,
        }
        emit(out, fmt)
        return
    print(f"{f.key}: built by {f.location}" + (f" as {f.via}" if f.via else ""))
    print()
    print(f.doc)
    print()
    print("\n".join(_texts(terms, latex)))
    if f.note:
        print()
        print(f.note)
    print()
    emit(symbols, "table", title="symbols")


# -------------------------------------------------------------------------- one collective
def collective_case(
    hw: str, op: str, size: str, gpus: int, gpus_per_node: int | None, algo: str, protocol: str
) -> dict[str, Any]:
    """Cost one collective and gather its expression, values and the algorithm's docstring."""
    from llmcost.catalog import get_hardware
    from llmcost.collectives import cost as C
    from llmcost.collectives import formulas as F
    from llmcost.units import parse

    hardware = get_hardware(hw)
    nbytes = parse(size, "bytes", what="--size", allow_bare=True)
    r = C.collective(hardware, op, nbytes, gpus, gpus_per_node, algo, protocol)
    sh = C.shape(r.op, str(r.algo), r.levels)
    expr = F.expression(sh)
    vals = C.values(hardware, r.levels, nbytes, str(r.algo), str(r.protocol), r.op)
    doc = getattr(F, "in_network" if r.algo == "in_network" else str(r.algo)).__doc__ or ""
    return {"hw": hardware, "r": r, "shape": sh, "expr": expr, "vals": vals, "doc": doc}


def _collective_header(case: dict[str, Any], gpus: int, size: str) -> None:
    from llmcost.collectives import cost as C

    r, hardware = case["r"], case["hw"]
    levels_txt = ", ".join(f"{lv.tier.key} ({lv.tier.topology}) x{lv.d:g}" for lv in r.levels)
    print(f"{r.op} / {r.algo} / {r.protocol} protocol on {gpus} x {hardware.id} [{levels_txt}], S = {size}")
    print(" ".join(case["doc"].split()))
    if C.nccl_platform(hardware):
        print(
            f"Protocol {r.protocol}: t_0 = NCCL baseLat, alpha_k = hwLat[link][algo][{r.protocol}] x catalog "
            "latency / hwLat[link][ring][simple] (multi-node ring: intra-node step >= the net overhead, "
            "Simple all-reduce x1.4 plateau), kappa_p and B_p = the protocol's bandwidth factor and cap "
            "(llmcost.collectives.cost.NCCL; " + C.NCCL["source"] + ")."
        )


def show_collective(case: dict[str, Any], gpus: int, size: str, latex: bool, fmt: str) -> None:
    """The expression of one collective, the values of its symbols and the resulting time."""
    import sympy as sp

    from llmcost.collectives import formulas as F
    from llmcost.report import emit
    from llmcost.symbolic.symbols import REGISTRY
    from llmcost.units import fmt_time

    r, expr, vals = case["r"], case["expr"], case["vals"]
    names = REGISTRY.latex_names()
    rows = explain_rows(expr, vals)
    if fmt != "table":
        out = {"shape": case["shape"].name, "protocol": str(r.protocol), "expression": str(expr)}
        out |= {
            "latex": sp.latex(expr, symbol_names=names),
            "values": {x["symbol"]: x["value"] for x in rows},
        }
        emit(out | {"time_s": float(r.time)}, fmt)
        return
    subbed = sp.N(expr.subs(F.substitutions(expr, vals)), 6)
    _collective_header(case, gpus, size)
    print()
    print("T =")
    print(sp.latex(expr, symbol_names=names) if latex else sp.pretty(expr, use_unicode=True))
    print()
    emit(rows, "table", title="values")
    print()
    print(f"T = {subbed} s = {fmt_time(float(r.time))}")
