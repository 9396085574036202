"""``tts --plot`` and ``search tts --plot``: test-time cost against samples and generation length, the
budget's infeasible side shaded; with an accuracy table, accuracy against cost with each length's
TTSPM saturation point."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from llmcost.plots import figure as F


def search_figure(
    path: Path, res: Mapping[str, Any], key: str, budget: float, title: str, pareto: bool
) -> None:
    """``search tts``: the plans' ``key`` (the budget's metric) against samples N, one colour per
    generation length, one marker per strategy, the budget line; beside it accuracy (with a table;
    the saturation points starred) or generated tokens against ``key``."""
    fig, (n_ax, a_ax) = F.new(2)
    plans = res["plans"]
    lens = sorted({e["plan"]["gen_len"] for e in plans})
    strats = sorted({e["plan"]["strategy"] for e in plans})
    marks = "osD^v<>"
    _, f = F.axis(key)
    for e in plans:
        c = F.COLORS[lens.index(e["plan"]["gen_len"]) % len(F.COLORS)]
        m = marks[strats.index(e["plan"]["strategy"]) % len(marks)]
        n_ax.scatter(e["plan"]["samples"], e["metrics"][key] * f, color=c, marker=m, s=26, alpha=0.85)
    handles = [
        n_ax.scatter([], [], color=F.COLORS[i % len(F.COLORS)], s=20, label=f"L = {L:,}")
        for i, L in enumerate(lens)
    ]
    handles += [
        n_ax.scatter([], [], color="0.5", marker=marks[i % len(marks)], s=20, label=s)
        for i, s in enumerate(strats)
    ]
    n_ax.axhline(budget * f, color="tab:red", ls="--", lw=0.9)
    n_ax.axhspan(budget * f, budget * f * 1.5, color="tab:red", alpha=0.12, lw=0, label="over the budget")
    n_ax.set_xscale("log", base=2)
    n_ax.xaxis.set_major_formatter(plain())
    F.log_if_wide(n_ax, "y", [e["metrics"][key] * f for e in plans])
    n_ax.set_xlabel("samples N")
    n_ax.set_ylabel(F.axis(key)[0])
    n_ax.legend(handles=handles, fontsize=7, loc="upper left", ncol=2)
    n_ax.grid(True, which="major", alpha=0.25)
    yk = "accuracy" if any("accuracy" in e["metrics"] for e in plans) else "generated_tokens"
    _right(a_ax, plans, key, yk, res.get("saturation") or [], pareto)
    F.save(fig, path, title)


def _right(ax: Any, plans: Sequence[Mapping[str, Any]], key: str, yk: str, sat: Sequence[Mapping[str, Any]],
           pareto: bool) -> None:  # fmt: skip
    """``yk`` against ``key`` per plan (joined when a front), the saturation points starred."""
    xl, xf = F.axis(key)
    yl, yf = F.axis(yk)
    pts = sorted((e["metrics"][key] * xf, e["metrics"][yk] * yf) for e in plans)
    ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=22, color=F.COLORS[0], label="plans", zorder=3)
    if pareto and len(pts) > 1:
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color="0.5", lw=0.8)
    for s in sat:
        x = s.get(f"{key}_best_of_n")
        if x is None:
            continue
        ax.scatter(x * xf, s["accuracy_at_n_star"] * yf, marker="*", s=110, color="tab:red", zorder=4)
        ax.annotate(f"{s['model']} N*={s['n_star']} L={s['gen_len']:,}", (x * xf, s["accuracy_at_n_star"] * yf),
                    xytext=(5, -10), textcoords="offset points", fontsize=7)  # fmt: skip
    ax.margins(x=0.3 if sat else 0.05)
    if sat:
        ax.scatter([], [], marker="*", s=60, color="tab:red", label="saturation (Best-of-N*)")
    F.log_if_wide(ax, "x", [p[0] for p in pts])
    F.log_if_wide(ax, "y", [p[1] for p in pts])
    ax.set_xlabel(xl)
    ax.set_ylabel(yl)
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(True, which="both", alpha=0.25)


def query_figure(
    path: Path,
    by_samples: Sequence[tuple[int, Mapping[str, float]]],
    by_length: Sequence[tuple[int, Mapping[str, float]]],
    query: tuple[int, int],
    title: str,
) -> None:
    """``tts``: latency and cost per query against samples N (at the query's length) and against the
    generation length (at its N), the query itself circled; (N, metrics) pairs, metrics by name."""
    fig, axes = F.new(2)
    for ax, series, xlabel, at in ((axes[0], by_samples, "samples N", query[0]),
                                   (axes[1], by_length, "generated tokens per sample L", query[1])):  # fmt: skip
        xs = [x for x, _ in series]
        ys = [m["latency_s"] for _, m in series]
        ax.plot(xs, ys, marker=".", color=F.COLORS[0])
        if at in xs:
            ax.scatter([at], [ys[xs.index(at)]], s=90, facecolors="none", edgecolors="k", zorder=4)
        ax.set_ylabel(F.axis("latency_s")[0])
        usd = [m.get("usd_per_query") for _, m in series]
        if ys and all(u is not None for u in usd):  # cost is latency x the devices' price: one more scale
            k = usd[0] / ys[0]
            sec = ax.secondary_yaxis("right", functions=(lambda y, k=k: y * k, lambda c, k=k: c / k))
            sec.set_ylabel(F.axis("usd_per_query")[0])
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(plain())
        ax.set_xlabel(xlabel)
        ax.grid(True, which="major", alpha=0.25)
    axes[0].set_title("circled: this query", fontsize=9, loc="left")
    F.save(fig, path, title)


def plain() -> Any:
    """Tick labels as plain numbers (1, 2, 4, ... 1,024) on a log axis."""
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}")
