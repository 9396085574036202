"""``search train | infer --plot``: the kept plans on two metrics (the Pareto axes with ``--pareto``,
else the objective against memory per GPU), the best labelled, the infeasible side of each bound
shaded."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llmcost.plots import figure as F

SCHEDULES = {"zero_bubble": "zb", "interleaved": "il", "1f1b": "1f1b", "gpipe": "gpipe"}
"""Pipeline schedules in a plan label."""
LABELLED = 6
"""Plans (distinct points) labelled, best first."""


@dataclass(frozen=True)
class Bound:
    """A limit on a metric: plans beyond it are infeasible (``upper``: above it)."""

    metric: str
    value: float
    label: str
    upper: bool = True


def train_label(plan: dict[str, Any]) -> str:
    """``tp8 pp4 dp32 mb2`` (cp, ep, ZeRO, recompute and precision when they are not the plain ones)."""
    parts = [f"tp{plan['tp']}", f"pp{plan['pp']}", f"dp{plan['dp']}"]
    parts += [f"{k}{plan[k]}" for k in ("cp", "ep") if plan.get(k, 1) > 1]
    parts.append(f"mb{plan['micro_batch']}")
    if plan.get("zero"):
        parts.append(f"z{plan['zero']}")
    if plan.get("pp", 1) > 1 and plan.get("schedule"):
        sched = SCHEDULES.get(plan["schedule"], plan["schedule"])
        parts.append(sched + (str(plan["virtual_stages"]) if plan.get("virtual_stages") else ""))
    if plan.get("recompute", "none") != "none":
        parts.append(f"rc-{plan['recompute']}")
    parts.append(plan.get("precision", ""))
    return " ".join(p for p in parts if p)


def infer_label(p: dict[str, Any]) -> str:
    """``h100-sxm tp4 dp2 b64 fp8``: hardware, the degrees above 1, batch and weight format."""
    plan = p["plan"]
    parts = [p.get("hardware", "")] + [
        f"{k}{plan[k]}" for k in ("tp", "pp", "dp", "ep", "cp") if plan.get(k, 1) > 1
    ]
    return " ".join([*filter(None, parts), f"b{plan['batch']}", plan.get("weights", "")]).strip()


def plot(
    path: Path,
    plans: Sequence[dict[str, Any]],
    axes: tuple[str, str],
    labels: Sequence[str],
    bounds: Sequence[Bound],
    title: str,
    front: bool,
) -> None:
    """``plans`` (the search's, best first) at (``axes[0]``, ``axes[1]``) metrics; ``front``: joined as
    the Pareto front (labels spread along it); colour per hardware when there are several. The labelled
    plans are numbered on the plot and named in a panel beside it."""
    fig, (ax, side) = F.new(2, widths=(3.0, 1.25))
    xk, yk = axes
    xl, xf = F.axis(xk)
    yl, yf = F.axis(yk)
    xs = [p["metrics"][xk] * xf for p in plans]
    ys = [p["metrics"][yk] * yf for p in plans]
    hws = sorted({p.get("hardware", "") for p in plans})
    for i, hw in enumerate(hws):
        sel = [j for j, p in enumerate(plans) if p.get("hardware", "") == hw]
        ax.scatter([xs[j] for j in sel], [ys[j] for j in sel], s=22, color=F.COLORS[i % len(F.COLORS)],
                   label=hw or ("Pareto front" if front else "kept plans"), zorder=3)  # fmt: skip
    if front and len(plans) > 1:
        order = sorted(range(len(plans)), key=lambda j: xs[j])
        ax.plot([xs[j] for j in order], [ys[j] for j in order], color="0.5", lw=0.8, zorder=2)
    F.log_if_wide(ax, "x", xs)
    F.log_if_wide(ax, "y", ys)
    for b in bounds:
        _shade(ax, b, xk, yk)
    ax.set_xlabel(xl)
    ax.set_ylabel(yl)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(loc="best")
    _label(ax, side, xs, ys, labels, front)
    F.save(fig, path, title)


def _label(ax: Any, side: Any, xs: list[float], ys: list[float], labels: Sequence[str], front: bool) -> None:
    """Number :data:`LABELLED` distinct points on ``ax`` (the best; along a front, spread from end to
    end) and name them in the ``side`` panel (ties named once, '+N tied')."""
    seen: dict[tuple[float, float], list[int]] = {}
    for j, pt in enumerate(zip(xs, ys, strict=True)):
        seen.setdefault((round(pt[0], 9), round(pt[1], 9)), []).append(j)
    points = list(seen.items())
    if front and len(points) > LABELLED:
        points.sort(key=lambda kv: kv[0][0])
        step = (len(points) - 1) / (LABELLED - 1)
        points = [points[round(i * step)] for i in range(LABELLED)]
    else:
        points = points[:LABELLED]
    lines = []
    placed: list[tuple[Any, list[str]]] = []  # (display position, numbers) of each annotation
    for (x, y), idx in sorted(points, key=lambda kv: kv[1][0]):
        here = ax.transData.transform((x, y))
        near = next((p for p in placed if abs(p[0][0] - here[0]) < 18 and abs(p[0][1] - here[1]) < 10), None)
        if near is None:
            placed.append((here, [f"#{idx[0] + 1}"]))
        else:
            near[1].append(f"#{idx[0] + 1}")
        more = f"\n      (+{len(idx) - 1} tied)" if len(idx) > 1 else ""
        lines.append(f"#{idx[0] + 1}  {labels[idx[0]]}{more}")
    for pos, numbers in placed:
        ax.annotate(" ".join(numbers), ax.transData.inverted().transform(pos), xytext=(4, 4),
                    textcoords="offset points", fontsize=8, fontweight="bold", color="0.1", zorder=4)  # fmt: skip
    side.axis("off")
    side.text(0.0, 1.0, "\n".join(lines), va="top", ha="left", fontsize=8, family="monospace",
              transform=side.transAxes)  # fmt: skip
    side.set_title("labelled plans", loc="left")


def _shade(ax: Any, b: Bound, xk: str, yk: str) -> None:
    """Shade the infeasible side of ``b`` on the axis that shows its metric (nothing when none does)."""
    for key, vertical in ((xk, True), (yk, False)):
        if key != b.metric:
            continue
        v = b.value * F.axis(key)[1]
        lo, hi = ax.get_xlim() if vertical else ax.get_ylim()
        lo, hi = (min(lo, v * 0.98), max(hi, v * 1.05)) if b.upper else (min(lo, v * 0.95), max(hi, v * 1.02))
        span = (v, hi) if b.upper else (lo, v)
        style = {"color": "tab:red", "alpha": 0.12, "lw": 0, "label": f"infeasible: {b.label}"}
        if vertical:
            ax.axvspan(*span, **style)
            ax.axvline(v, color="tab:red", lw=0.8, ls="--")
            ax.set_xlim(lo, hi)
        else:
            ax.axhspan(*span, **style)
            ax.axhline(v, color="tab:red", lw=0.8, ls="--")
            ax.set_ylim(lo, hi)
