"""``infer --breakdown --plot`` and ``train --plot``: operators on the device's roofline (arithmetic
intensity against attained FLOP/s, log-log, the ridge point marked) and time / memory breakdowns as
stacked bars."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from llmcost.plots import figure as F

NAMED = 5
"""Operators named on the roofline: the longest."""
PHASE_MARKERS = ("o", "^", "s")
"""Marker of the first, second and third phase (prefill, decode, draft; training's forward, backward)."""


KINDS = ("gemm", "attention", "collective", "elementwise", "norm", "embedding", "lm_head")
"""Operator kinds in colour order (the roofline and the bars alike)."""


def kind_color(kind: str) -> str:
    """The colour of an operator kind (or of a breakdown part)."""
    i = KINDS.index(kind) if kind in KINDS else len(KINDS) + sum(map(ord, kind)) % 2
    return F.COLORS[i % len(F.COLORS)]


def roofline(
    ax: Any, ops: Sequence[Mapping[str, Any]], peak: float, bandwidth: float, peak_label: str
) -> None:
    """Each operator (``flops``, ``hbm_bytes``, ``time_s``, ``phase``, ``op``, ``kind``; those with no
    FLOPs or no bytes left out) at (FLOPs / byte, FLOPs / time) under the compute roof ``peak`` (FLOP/s)
    and the memory roof ``bandwidth`` x intensity (B/s); colour per phase, marker per kind."""
    pts = [o for o in ops if o["flops"] > 0 and o["hbm_bytes"] > 0 and o["time_s"] > 0]
    ridge = peak / bandwidth
    ais = [o["flops"] / o["hbm_bytes"] for o in pts] or [ridge]
    lo, hi = min(min(ais), ridge) / 4, max(max(ais), ridge) * 4
    ax.plot([lo, ridge, hi], [lo * bandwidth / 1e12, peak / 1e12, peak / 1e12], color="k", lw=1.4)
    ax.axvline(ridge, color="0.4", ls=":", lw=0.9)
    ax.text(ridge * 1.15, 0.4, f"ridge {ridge:.0f} FLOP/B", rotation=90, fontsize=8, color="0.3",
            transform=ax.get_xaxis_transform())  # fmt: skip
    ax.text(hi, peak / 1e12 * 1.25, peak_label, ha="right", fontsize=8)
    ax.annotate(f"HBM {bandwidth / 1e12:.2f} TB/s", (lo * 1.5, lo * 1.5 * bandwidth / 1e12), xytext=(8, -6),
                textcoords="offset points", fontsize=8, ha="left")  # fmt: skip
    phases = list(dict.fromkeys(o["phase"] for o in pts))
    kinds = list(dict.fromkeys(o["kind"] for o in pts))
    for i, ph in enumerate(phases):
        for kind in kinds:
            sel = [o for o in pts if o["phase"] == ph and o["kind"] == kind]
            ax.scatter([o["flops"] / o["hbm_bytes"] for o in sel], [o["flops"] / o["time_s"] / 1e12 for o in sel],
                       color=kind_color(kind), marker=PHASE_MARKERS[i % 3], s=28,
                       alpha=0.85, zorder=3)  # fmt: skip
    handles = [ax.scatter([], [], color=kind_color(kind), marker="o", s=20, label=kind) for kind in kinds]
    handles += [
        ax.scatter([], [], color="0.5", marker=PHASE_MARKERS[i % 3], s=20, label=ph)
        for i, ph in enumerate(phases)
    ]
    longest = sorted(pts, key=lambda o: -o["time_s"])[:NAMED]
    for k, o in enumerate(sorted(longest, key=lambda o: -o["flops"] / o["hbm_bytes"])):
        ax.annotate(f"{o['op']} ({o['phase']})", (o["flops"] / o["hbm_bytes"], o["flops"] / o["time_s"] / 1e12),
                    xytext=(0.03, 0.93 - 0.05 * k), textcoords="axes fraction", fontsize=7, color="0.2",
                    arrowprops={"arrowstyle": "-", "color": "0.6", "lw": 0.6})  # fmt: skip
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo * bandwidth / 1e12 / 2, peak / 1e12 * 3)
    ax.set_xlabel("arithmetic intensity (FLOP/byte of HBM traffic)")
    ax.set_ylabel("attained (TFLOP/s)")
    ax.grid(True, which="major", alpha=0.25)
    ax.legend(handles=handles, loc="lower right", fontsize=7, ncol=2)


def stacked(
    ax: Any, bars: Mapping[str, Mapping[str, float]], unit: str, share: bool = False, by_kind: bool = False
) -> None:
    """One stacked bar per entry of ``bars`` (its parts in their order, zeros left out); ``share``: each
    bar as % of its total, the total written above it in ``unit`` (seconds: SI time); ``by_kind``: the
    parts are operator kinds, coloured as on the roofline."""
    from llmcost.units import fmt_time

    parts = list(dict.fromkeys(k for b in bars.values() for k, v in b.items() if v > 0))
    names = list(bars)
    bottoms = [0.0] * len(names)
    for i, part in enumerate(parts):
        vals = [bars[n].get(part, 0.0) for n in names]
        if share:
            vals = [100 * v / (sum(bars[n].values()) or 1) for v, n in zip(vals, names, strict=True)]
        color = kind_color(part) if by_kind else F.COLORS[i % len(F.COLORS)]
        ax.bar(names, vals, bottom=bottoms, color=color, label=part, width=0.6)
        bottoms = [b + v for b, v in zip(bottoms, vals, strict=True)]
    for j, n in enumerate(names):
        total = sum(bars[n].values())
        text = fmt_time(total) if unit == "s" else f"{total:.1f} {unit}"
        ax.annotate(text, (j, bottoms[j]), xytext=(0, 3), textcoords="offset points", ha="center", fontsize=8)
    ax.set_ylabel("share of the time (%)" if share else f"{unit}")
    ax.set_ylim(0, max(bottoms or [1]) * 1.12)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    ax.grid(True, axis="y", alpha=0.25)


def infer_figure(path: Path, ops: Sequence[Mapping[str, Any]], peak: float, bandwidth: float, peak_label: str,
                 title: str) -> None:  # fmt: skip
    """``infer --breakdown``: the operators (``ops_rows`` of the command) on the roofline, and each
    phase's time by operator kind."""
    fig, (ax, bar) = F.new(2, widths=(2.3, 1.0))
    roofline(ax, ops, peak, bandwidth, peak_label)
    bars: dict[str, dict[str, float]] = {}
    for o in ops:
        b = bars.setdefault(o["phase"], {})
        b[o["kind"]] = b.get(o["kind"], 0.0) + o["time_s"]
    stacked(bar, bars, "s", share=True, by_kind=True)
    bar.set_title("time per phase by operator kind", fontsize=9)
    bar.tick_params(axis="x", labelsize=7)
    F.save(fig, path, title)


def train_figure(
    path: Path,
    breakdown: Mapping[str, float],
    memory: Mapping[str, float],
    usable_gib: float,
    title: str,
    ops: tuple[Sequence[Mapping[str, Any]], float, float, str] | None = None,
) -> None:
    """``train``: with ``ops`` (operator rows, peak FLOP/s, HBM B/s, peak label) one layer's operators
    on the roofline (forward and backward markers), then the step time's parts (s) and the memory per
    GPU's parts (GiB) against the usable memory."""
    if ops is None:
        fig, (t_ax, m_ax) = F.new(2)
    else:
        fig, (ax, t_ax, m_ax) = F.new(3, widths=(2.2, 1.0, 1.0), size=(13.0, 6.0))
        roofline(ax, ops[0], *ops[1:])
        ax.set_title("operators of one layer (and the head), one micro-batch on one GPU", fontsize=9)
    stacked(t_ax, {"step": {k.replace("_", " "): v for k, v in breakdown.items()}}, "s")
    t_ax.set_ylabel("time per step (s)")
    t_ax.set_title("step time", fontsize=9)
    stacked(m_ax, {"per GPU": dict(memory)}, "GiB")
    m_ax.axhline(usable_gib, color="tab:red", ls="--", lw=0.9)
    m_ax.annotate(f"usable {usable_gib:.1f} GiB", (0, usable_gib), xytext=(0, 3), textcoords="offset points",
                  ha="center", fontsize=8, color="tab:red")  # fmt: skip
    m_ax.set_ylim(0, max(usable_gib, sum(memory.values())) * 1.15)
    m_ax.set_ylabel("memory per GPU (GiB)")
    m_ax.set_title("memory per GPU", fontsize=9)
    if ops is not None:  # three panels: the bars' legends below them, so the gaps stay narrow
        for a in (t_ax, m_ax):
            a.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=2, frameon=False)
            a.set_xticks([])
    F.save(fig, path, title)
