"""Device draw by kind of work, power caps and PUE (runtime: no sympy), through the generated
``mean_draw``, ``capped_draw`` and ``facility_energy`` of :mod:`llmcost.economics.formulas`.

A device's draw for compute-bound, memory-bound and idle time comes from its catalog ``power``
section; a kind without a figure is drawn at the TDP (the upper bound, as before). A power cap
lowers the draws to the cap; the time throttling costs compute-bound work is NOT modelled (no
published throughput-vs-limit curve for these GPUs; memory-bound decode does not reach a 700 W
H200's caps: Ma et al. 2026, arXiv 2605.11999).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from llmcost.economics import _generated as E
from llmcost.errors import UserError
from llmcost.hardware import Hardware

KINDS = {"compute": "compute_bound_w", "memory": "memory_bound_w", "network": "idle_w", "latency": "idle_w"}
"""Which catalog draw each roofline bound takes: exposed communication and launch gaps at idle."""


def power_cap_of(v: Any) -> float | None:
    """Watts from ``400``, ``"400W"`` or ``"400 W"`` (None stays None); one-line error otherwise."""
    if v is None:
        return None
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*W?\s*", str(v), re.IGNORECASE)
    if isinstance(v, bool) or m is None or not 0 < float(m.group(1)) < 1e5:
        raise UserError(f"power_cap: watts above 0 (e.g. 400W), got {v!r}")
    return float(m.group(1))


def pue_of(v: Any) -> float:
    """A PUE of at least 1 (None: 1.0, device energy only); one-line error otherwise."""
    if v is None:
        return 1.0
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 1 <= v <= 10:
        raise UserError(f"pue: facility over IT energy, 1 to 10 (e.g. 1.2), got {v!r}")
    return float(v)


def check_cap(hw: Hardware, cap: float | None) -> None:
    """Reject a cap below the device's measured idle draw (it could not hold it)."""
    idle = hw.power.get("idle_w")
    if cap is not None and idle is not None and cap < idle:
        raise UserError(f"power_cap {cap:g} W is below {hw.id}'s idle draw {idle:g} W")


def draws(hw: Hardware, cap: float | None) -> dict[str, float]:
    """The draw (W) per roofline bound: the catalog figure or the TDP, under ``cap``."""
    out = {}
    for bound, key in KINDS.items():
        p = hw.power.get(key, hw.tdp)
        out[bound] = p if cap is None else float(E.capped_draw(draw_w=p, p_cap=cap))
    return out


def mean_draw(times: dict[str, Any], hw: Hardware, cap: float | None) -> Any:
    """The draw averaged over the time spent under each bound (``times``: seconds per bound, a
    number or one per plan); the compute draw where no time was spent."""
    d = draws(hw, cap)
    t = {b: np.asarray(times.get(b, 0.0), dtype=float) for b in KINDS}
    total = t["compute"] + t["memory"] + t["network"] + t["latency"]
    mean = E.mean_draw(
        t_cb=t["compute"], t_mb=t["memory"], t_idle=t["network"] + t["latency"],
        p_cb=d["compute"], p_mb=d["memory"], p_idle=d["network"],
    )  # fmt: skip
    return np.where(total > 0, mean, d["compute"])[()]


def facility(joules: Any, pue: float) -> Any:
    """Facility energy of ``joules`` of device energy at ``pue``."""
    return E.facility_energy(joules=joules, pue=pue)
