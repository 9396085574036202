"""``llmcost collective OP``: time, algbw and busbw of a collective per algorithm."""

from typing import Annotated, Any, NamedTuple

import typer

from llmcost.cli.options import FormatOpt, HtmlOpt, HwOpt, PlotOpt


def _hw(hw_id: str, gpus_per_node: int | None) -> Any:
    from llmcost.catalog import get_hardware

    return get_hardware(hw_id)


def _sizes(lo: float, hi: float) -> list[float]:
    """Powers of two from lo to hi (inclusive of both ends)."""
    out = [lo]
    x = 2.0 ** (int(lo).bit_length())
    while x < hi:
        out.append(x)
        x *= 2
    if hi > lo:
        out.append(hi)
    return out


def collective(
    op: Annotated[
        str, typer.Argument(help="all_reduce, reduce_scatter, all_gather, broadcast, all_to_all, send_recv")
    ],
    size: Annotated[
        str, typer.Option("--size", help="Full buffer per rank (nccl-tests convention), e.g. 1GiB.")
    ] = "1GiB",
    gpus: Annotated[int, typer.Option("--gpus", help="Ranks in the group.")] = 8,
    hw: HwOpt = "h100-sxm",
    gpus_per_node: Annotated[
        int | None, typer.Option("--gpus-per-node", help="Ranks per host (default: as many as fit).")
    ] = None,
    algo: Annotated[
        str, typer.Option("--algo", help="auto (all, fastest marked) or one algorithm.")
    ] = "auto",
    protocol: Annotated[
        str,
        typer.Option(
            "--protocol",
            help="NCCL protocol: auto (fastest per algorithm, as NCCL picks), ll, ll128 or simple.",
        ),
    ] = "auto",
    nics: Annotated[
        int,
        typer.Option("--nics", help="With --algo rdma_write: NICs the write is striped over (default 1)."),
    ] = 1,
    sweep: Annotated[
        str | None, typer.Option("--sweep", help="Size range LO:HI, powers of two, e.g. 1KiB:8GiB.")
    ] = None,
    crossover: Annotated[
        str | None, typer.Option("--crossover", help="A,B: size where algorithms A and B cost the same.")
    ] = None,
    fmt: FormatOpt = "table",
    plot: PlotOpt = None,
    html: HtmlOpt = None,
) -> None:
    """Time, algbw and busbw of a collective for each algorithm; the fastest is marked."""
    from llmcost.cli import html_page as H
    from llmcost.cli.plotting import start
    from llmcost.collectives import cost as C
    from llmcost.errors import UserError
    from llmcost.report import check_format

    check_format(fmt)
    if plot is not None and sweep is None:
        raise UserError("--plot draws a size sweep: add --sweep LO:HI")
    target, page = start(plot), H.start(html)
    from llmcost import checks

    nics = checks.finite_int(nics, "--nics", 1)
    op = C.normalize_op(op)
    hardware = _hw(hw, gpus_per_node)
    algos = None if C.normalize_algo(op, algo) == "auto" else [algo]
    protocol = C.normalize_protocol(protocol)
    title = f"{op} on {gpus} x {hardware.id}"
    if protocol != "auto":
        title += f", {protocol} protocol"
    group = Group(hardware, op, gpus, gpus_per_node, algos, protocol, nics)
    if crossover is not None:
        _crossover(hardware, op, gpus, gpus_per_node, crossover, fmt, title, protocol, nics)
    elif sweep is not None:
        _sweep(group, sweep, fmt, title, H.targets(target, page))
    else:
        _at_size(group, size, fmt, title)
    H.finish(page, lambda: H.area_formulas("collectives", f"{op}__"))


class Group(NamedTuple):
    """The collective asked for: op on ``gpus`` ranks of ``hardware``, the algorithms and protocol."""

    hardware: Any
    op: str
    gpus: int
    gpus_per_node: int | None
    algos: list[str] | None
    protocol: str
    nics: int = 1


def _sweep(group: Group, sweep: str, fmt: str, title: str, targets: list[Any]) -> None:
    """The fastest algorithm (and each algorithm's time) at powers of two over ``--sweep LO:HI``."""
    import numpy as np

    from llmcost.collectives import cost as C
    from llmcost.report import emit
    from llmcost.units import parse_range

    hardware, op, gpus, gpus_per_node, algos, protocol, nics = group
    lo, hi = parse_range(sweep, "bytes", what="--sweep")
    sizes = np.array(_sizes(lo, hi))
    res = C.costs(hardware, op, sizes, gpus, gpus_per_node, algos, protocol, nics)
    top = C.best(_auto_pool(hardware, op, res, algos))
    rows = [_sweep_row(i, s, top, res, sizes, fmt == "table") for i, s in enumerate(sizes)]
    emit(rows, fmt, title=title + " (sweep)")
    if targets:
        from llmcost.plots.collective import sweep_figure

        curves = {
            r.algo: (np.broadcast_to(r.time, sizes.shape), np.broadcast_to(r.busbw, sizes.shape)) for r in res
        }
        for target in targets:
            sweep_figure(target, list(sizes), curves, [str(a) for a in top.algo], title + ": sweep")


def _sweep_row(i: int, s: Any, top: Any, res: list[Any], sizes: Any, table: bool) -> dict[str, Any]:
    import numpy as np

    from llmcost.units import GB, fmt_bytes, fmt_time

    row: dict[str, Any] = {
        "size": fmt_bytes(s) if table else float(s),
        "fastest": str(top.algo[i]),
        "protocol": str(top.protocol[i]),
    }
    if table:
        row |= {"time": fmt_time(float(top.time[i])), "busbw GB/s": float(top.busbw[i]) / GB}
        row |= {f"{r.algo}": fmt_time(float(r.time[i])) for r in res}
    else:
        row |= {
            "time_s": float(top.time[i]),
            "algbw_Bps": float(top.algbw[i]),
            "busbw_Bps": float(top.busbw[i]),
        }
        row |= {f"time_s_{r.algo}": float(r.time[i]) for r in res}
        row |= {f"protocol_{r.algo}": str(np.broadcast_to(r.protocol, sizes.shape)[i]) for r in res}
    return row


def _at_size(group: Group, size: str, fmt: str, title: str) -> None:
    """Every algorithm at ``--size``, fastest first; ``*`` marks what auto picks."""
    from llmcost.collectives import cost as C
    from llmcost.report import emit
    from llmcost.units import fmt_bytes, parse

    hardware, op, gpus, gpus_per_node, algos, protocol, nics = group
    nbytes = parse(size, "bytes", what="--size", allow_bare=True)
    res = C.costs(hardware, op, nbytes, gpus, gpus_per_node, algos, protocol, nics)
    fastest = C.best(res).algo
    picked = C.best(_auto_pool(hardware, op, res, algos)).algo
    rows = [
        _size_row(r, r.algo == picked, r.algo == fastest, nbytes, fmt == "table")
        for r in sorted(res, key=lambda r: float(r.time))
    ]
    levels = ", ".join(f"{lv.tier.key} x{lv.d:g}" for lv in res[0].levels)
    notes = (
        [
            f"levels: {levels}; "
            + (
                "* the algorithm named"
                if algos is not None
                else "* what auto picks (the fastest"
                + (" of the algorithms NCCL/RCCL run" if C.nccl_platform(hardware) else "")
                + ")"
            )
            + "; protocol: NCCL LL / LL128 / Simple (auto: the fastest per algorithm, NCCL tuning.cc; "
            "library and non-NCCL algorithms: simple); busbw = algbw x nccl-tests factor"
        ]
        if fmt == "table"
        else []
    )
    emit(rows, fmt, title=f"{title}, {fmt_bytes(nbytes)}", notes=notes)


def _size_row(r: Any, mark: bool, fastest: bool, nbytes: float, table: bool) -> dict[str, Any]:
    from llmcost.units import GB, fmt_time

    if table:
        return {
            "algorithm": r.algo + (" *" if mark else ""),
            "protocol": str(r.protocol),
            "time": fmt_time(float(r.time)),
            "algbw GB/s": float(r.algbw) / GB,
            "busbw GB/s": float(r.busbw) / GB,
        }
    return {
        "algorithm": r.algo,
        "protocol": str(r.protocol),
        "auto": mark,
        "fastest": fastest,
        "size_bytes": nbytes,
        "time_s": float(r.time),
        "algbw_Bps": float(r.algbw),
        "busbw_Bps": float(r.busbw),
    }


def _crossover(
    hardware: Any,
    op: str,
    gpus: int,
    gpn: int | None,
    spec: str,
    fmt: str,
    title: str,
    protocol: str = "auto",
    nics: int = 1,
) -> None:
    """Sizes where algorithms A and B cost the same, each at ``protocol`` (auto: Simple, the one
    protocol every algorithm runs)."""
    from llmcost.collectives import cost as C
    from llmcost.collectives import formulas as F
    from llmcost.errors import UserError
    from llmcost.report import emit
    from llmcost.units import fmt_bytes, fmt_time

    parts = [p.strip() for p in spec.split(",")]
    if len(parts) != 2:
        raise UserError(f"--crossover: expected two algorithms A,B, got '{spec}'")
    a, b = (C.normalize_algo(op, p) for p in parts)
    if "auto" in (a, b):
        raise UserError("--crossover: name two algorithms, not auto")
    levels = C.placement(hardware, gpus, gpn)
    C.check_algorithms(hardware, levels, [a, b], C.available(op, levels), nics)
    pr = "simple" if protocol == "auto" else protocol
    vals_a = C.values(hardware, levels, 1.0, a, pr, op, nics)
    vals_b = C.values(hardware, levels, 1.0, b, pr, op, nics)
    roots = F.crossover(C.shape(op, a, levels), C.shape(op, b, levels), vals_a, vals_b=vals_b)
    rows = []
    for s in roots:
        t = C.costs(hardware, op, s, gpus, gpn, [a], pr, nics if a == "rdma_write" else 1)[0].time
        rows.append(
            {
                "size": fmt_bytes(s) if fmt == "table" else s,
                "time": fmt_time(float(t)) if fmt == "table" else float(t),
                "below": _faster(hardware, op, gpus, gpn, a, b, s / 2, pr, nics),
                "above": _faster(hardware, op, gpus, gpn, a, b, s * 2, pr, nics),
            }
        )
    if not rows:
        rows.append(
            {
                "size": None,
                "time": None,
                "below": _faster(hardware, op, gpus, gpn, a, b, 1024.0, pr, nics),
                "above": "no crossover between 1 B and 16 TiB",
            }
        )
    emit(rows, fmt, title=f"{title}: crossover {a} vs {b} ({pr} protocol)")


def _faster(
    hardware: Any,
    op: str,
    gpus: int,
    gpn: int | None,
    a: str,
    b: str,
    s: float,
    protocol: str = "simple",
    nics: int = 1,
) -> str:
    from llmcost.collectives import cost as C

    ra, rb = C.costs(hardware, op, s, gpus, gpn, [a, b], protocol, nics)
    return a if float(ra.time) <= float(rb.time) else b


def _auto_pool(hw: Any, op: str, res: list[Any], algos: list[str] | None) -> list[Any]:
    """The results ``auto`` chooses among (:func:`llmcost.collectives.cost.auto_algorithms`)."""
    from llmcost.collectives import cost as C

    if algos is not None:
        return res
    pool = set(C.auto_algorithms(hw, op, res[0].levels))
    return [r for r in res if r.algo in pool] or res


def register(app: typer.Typer) -> None:
    """Add ``collective`` to the CLI."""
    app.command("collective")(collective)
