"""Device draw by kind of work and PUE (runtime: no sympy), through the generated ``mean_draw`` and
``facility_energy`` of :mod:`llmcost.economics.formulas`.

A device's draw for compute-bound, memory-bound and idle time comes from its catalog ``power``
section; a kind without a figure is drawn at the TDP (the upper bound, as before). Power caps
(issue 17's ``power_cap``) are not priced: a cap slows compute-bound work, and no published
throughput-vs-power-limit curve for these GPUs was found to price it with.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from llmcost.economics import _generated as E
from llmcost.errors import UserError
from llmcost.hardware import Hardware

KINDS = {"compute": "compute_bound_w", "memory": "memory_bound_w", "network": "idle_w", "latency": "idle_w"}
"""Which catalog draw each roofline bound takes: exposed communication and launch gaps at idle."""


def pue_of(v: Any) -> float:
    """A PUE of at least 1 (None: 1.0, device energy only); one-line error otherwise."""
    if v is None:
        return 1.0
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 1 <= v <= 10:
        raise UserError(f"pue: facility over IT energy, 1 to 10 (e.g. 1.2), got {v!r}")
    return float(v)


def draws(hw: Hardware) -> dict[str, float]:
    """The draw (W) per roofline bound: the catalog figure or the TDP."""
    return {bound: float(hw.power.get(key, hw.tdp)) for bound, key in KINDS.items()}


def mean_draw(times: dict[str, Any], hw: Hardware) -> Any:
    """The draw averaged over the time spent under each bound (``times``: seconds per bound, a
    number or one per plan); the compute draw where no time was spent."""
    d = draws(hw)
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
