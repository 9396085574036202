"""What every figure shares: the ``--plot`` target checked, matplotlib imported (Agg) or one clear
error naming the extra, axis labels with SI units, and saving."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from llmcost.errors import UserError

FORMATS = {".png": "png", ".svg": "svg"}
"""File suffix -> the format written."""
EXTRA = "pip install 'llmcost[plot]'"
SIZE = (9.0, 5.5)
"""Figure size in inches; at :data:`DPI` 900 x 550 px."""
DPI = 100
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f")

# metric name -> (axis label, unit, factor from the metric's SI value)
METRICS: dict[str, tuple[str, str, float]] = {
    "tokens_per_s": ("throughput", "tokens/s", 1.0),
    "tokens_per_s_per_gpu": ("throughput per GPU", "tokens/s", 1.0),
    "iteration_time_s": ("step time", "s", 1.0),
    "mfu": ("MFU", "%", 100.0),
    "hfu": ("HFU", "%", 100.0),
    "model_tflops_per_gpu": ("model TFLOP/s per GPU", "TFLOP/s", 1.0),
    "hardware_tflops_per_gpu": ("hardware TFLOP/s per GPU", "TFLOP/s", 1.0),
    "memory_gib_per_gpu": ("memory per GPU", "GiB", 1.0),
    "time_to_train_s": ("time to train", "days", 1 / 86400),
    "gpu_hours": ("GPU-hours", "h", 1.0),
    "cost_usd": ("run cost", "$M", 1e-6),
    "usd_per_million_tokens": ("cost", "$ per M tokens", 1.0),
    "output_tokens_per_s": ("output throughput", "tokens/s", 1.0),
    "output_tokens_per_s_per_gpu": ("output throughput per GPU", "tokens/s", 1.0),
    "output_tokens_per_s_per_user": ("output rate per user", "tokens/s", 1.0),
    "input_tokens_per_s_per_gpu": ("prefill throughput per GPU", "tokens/s", 1.0),
    "usd_per_million_output_tokens": ("cost", "$ per M output tokens", 1.0),
    "joules_per_output_token": ("energy", "J per output token", 1.0),
    "ttft_s": ("TTFT", "ms", 1e3),
    "tpot_s": ("TPOT", "ms", 1e3),
    "e2e_latency_s": ("end-to-end latency", "s", 1.0),
    "eflops_per_query": ("Kinetics eFLOPs per query", "PFLOP", 1e-15),
    "flops_per_query": ("FLOPs per query", "PFLOP", 1e-15),
    "latency_s": ("latency per query", "s", 1.0),
    "usd_per_query": ("cost per query", "$", 1.0),
    "joules_per_query": ("energy per query", "kJ", 1e-3),
    "generated_tokens": ("generated tokens per query", "tokens", 1.0),
    "kv_cache_gib": ("KV cache per query", "GiB", 1.0),
    "accuracy": ("accuracy", "%", 100.0),
}


class SvgBuffer(io.StringIO):
    """An in-memory ``.svg`` target for :func:`save`: the figure's SVG text (``--html`` pages)."""

    suffix = ".svg"


def axis(metric: str) -> tuple[str, float]:
    """(axis label with its unit, factor from the metric's value) of a metric name."""
    label, unit, factor = METRICS.get(metric, (metric.replace("_", " "), "", 1.0))
    return (f"{label} ({unit})" if unit else label), factor


def check_target(path: str | Path) -> Path:
    """The ``--plot`` file: a ``.png`` or ``.svg`` name in a directory that exists; else one line."""
    p = Path(path)
    if p.suffix.lower() not in FORMATS:
        raise UserError(f"--plot: '{path}' must end in .png or .svg (the format is chosen by the suffix)")
    if not p.parent.is_dir():
        raise UserError(f"--plot: directory '{p.parent}' does not exist")
    return p


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend; without matplotlib one line naming the extra."""
    try:
        import matplotlib
    except ImportError:
        raise UserError(f"--plot needs matplotlib (the plot extra): {EXTRA}") from None
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def start(path: str | Path | None) -> Path | None:
    """Check a ``--plot`` target and that matplotlib is there, before the command computes anything
    (None when no figure is asked for)."""
    if path is None:
        return None
    target = check_target(path)
    pyplot()
    return target


def new(
    ncols: int = 1, widths: tuple[float, ...] | None = None, size: tuple[float, float] = SIZE
) -> tuple[Any, Any]:
    """A figure of ``size`` inches (default :data:`SIZE`) with ``ncols`` axes side by side (their ``widths`` ratios)."""
    plt = pyplot()
    plt.rcParams.update(
        {"font.size": 9, "axes.titlesize": 10, "legend.fontsize": 8, "svg.hashsalt": "llmcost"}
    )
    kw = {"width_ratios": list(widths)} if widths else {}
    fig, axes = plt.subplots(1, ncols, figsize=size, dpi=DPI, gridspec_kw=kw, squeeze=False)
    return fig, list(axes[0])


def save(fig: Any, path: Path | SvgBuffer, title: str) -> None:
    """``fig`` with its ``title`` written to ``path`` in the suffix's format (one line when it cannot be)."""
    plt = pyplot()
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    try:
        fig.savefig(path, format=FORMATS[path.suffix.lower()], dpi=DPI, metadata=_metadata(path))
    except OSError as e:
        raise UserError(f"--plot: cannot write '{path}': {e.strerror or e}") from None
    finally:
        plt.close(fig)


def _metadata(path: Path | SvgBuffer) -> dict[str, Any]:
    """No creation date in the file, so the same figure writes the same bytes."""
    return {"Date": None} if path.suffix.lower() == ".svg" else {"Software": "llmcost"}


def log_if_wide(ax: Any, which: str, values: list[float], ratio: float = 30.0) -> None:
    """A log scale on ``which`` axis ('x' or 'y') when its positive values span more than ``ratio``."""
    pos = [v for v in values if v > 0]
    if pos and max(pos) / min(pos) > ratio:
        (ax.set_xscale if which == "x" else ax.set_yscale)("log")
