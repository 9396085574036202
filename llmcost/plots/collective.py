"""``collective --sweep --plot``: each algorithm's time and bus bandwidth against the size (log-log),
where the fastest algorithm changes marked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from llmcost.plots import figure as F


def sweep_figure(
    path: Path,
    sizes: Sequence[float],
    curves: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    fastest: Sequence[str],
    title: str,
) -> None:
    """``curves``: algorithm -> (time in s, busbw in B/s) per size (bytes); ``fastest``: the algorithm
    the sweep names at each size. A crossover is drawn between two sizes whose fastest differ."""
    from matplotlib.ticker import LogLocator

    fig, (t_ax, b_ax) = F.new(2)
    for i, (algo, (times, busbw)) in enumerate(curves.items()):
        c = F.COLORS[i % len(F.COLORS)]
        t_ax.plot(sizes, list(times), marker=".", color=c, label=algo, lw=1.2)
        b_ax.plot(sizes, [b / 1e9 for b in busbw], marker=".", color=c, label=algo, lw=1.2)
    for j in range(1, len(sizes)):
        if fastest[j] != fastest[j - 1]:
            x = (sizes[j] * sizes[j - 1]) ** 0.5
            for ax in (t_ax, b_ax):
                ax.axvline(x, color="0.3", ls=":", lw=0.9)
            t_ax.text(x, 0.98, f" {fastest[j - 1]} → {fastest[j]}", rotation=90, va="top", fontsize=7,
                      transform=t_ax.get_xaxis_transform())  # fmt: skip
    for ax in (t_ax, b_ax):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("size per rank (bytes)")
        ax.grid(True, which="major", alpha=0.25)
        ax.xaxis.set_major_locator(LogLocator(base=32.0))
        ax.xaxis.set_major_formatter(_bytes_formatter())
    t_ax.set_ylabel("time (s)")
    b_ax.set_ylabel("bus bandwidth (GB/s)")
    t_ax.legend(fontsize=7, loc="upper left", title="dotted: the fastest changes", title_fontsize=7)
    F.save(fig, path, title)


def _bytes_formatter() -> object:
    """Tick labels as 1 KiB, 1 MiB, ... (powers of two)."""
    from matplotlib.ticker import FuncFormatter

    from llmcost.units import fmt_bytes

    return FuncFormatter(lambda v, _: fmt_bytes(v) if v >= 1 else "")
