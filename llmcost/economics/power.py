"""Device draw by kind of work, PUE and power caps (runtime: no sympy), through the generated
``mean_draw``, ``facility_energy``, ``capped_clock`` and ``capped_draw`` of
:mod:`llmcost.economics.formulas`.

A device's draw for compute-bound, memory-bound and idle time comes from its catalog ``power``
section; a kind without a figure is drawn at the TDP (the upper bound, as before). A power cap
(plan key ``power_cap``, ``--power-cap 400W``) is the device as :func:`capped` returns it: compute
slowed to the clock the cap allows (every compute efficiency times ``capped_clock``; memory and
network figures unchanged) and every draw at most the cap; train, infer and tts cost a capped plan
on it.
"""

from __future__ import annotations

from dataclasses import replace
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


def throttle_draws(hw: Hardware) -> dict[str, float]:
    """The draws of the sustained-clock model (:func:`sustained_rate`): compute- and memory-bound kernels
    at the maximum clock and a device waiting in a kernel (the catalog's ``throttle`` figures; memory:
    ``power.memory_bound_w`` or the TDP, waiting: ``power.idle_w`` or ``static_w`` or the TDP, where the
    section does not give them), and the board limit (the uncapped TDP: a user cap's further slowdown
    is :func:`capped`'s). Empty without a ``throttle`` section."""
    th = hw.throttle
    if not th:
        return {}
    pw = hw.power
    wait = th.get("wait_w", pw.get("idle_w", pw.get("static_w", hw.tdp)))
    return {
        "p_cmax": th["compute_w"],
        "p_mmax": th.get("memory_w", min(pw.get("memory_bound_w", hw.tdp), th["compute_w"])),
        "p_wait": wait,
        "p_limit": th.get("limit_w", hw.tdp),
    }


def sustained_rate(hw: Hardware, t_cb: Any, t_mb: Any, t_wait: Any) -> np.ndarray:
    """Per row, the compute rate the board limit sustains over the rate at the maximum clock
    (``throttle__rate`` of the step's ``throttle__overshoot``): the step's compute-bound, memory-bound
    and waiting time at the maximum clock drawn at :func:`throttle_draws`; 1 on a device without
    ``throttle`` figures or a row with no time."""
    t_cb, t_mb, t_wait = (np.asarray(x, dtype=float) for x in (t_cb, t_mb, t_wait))
    d = throttle_draws(hw)
    shape = np.broadcast(t_cb, t_mb, t_wait).shape
    if not d:
        return np.ones(shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        xi = E.throttle__overshoot(t_cb=t_cb, t_mb=t_mb, t_idle=t_wait, **d)
    xi = np.where(t_cb + t_mb + t_wait > 0, xi, 1.0)  # no time: nothing throttles
    return np.broadcast_to(
        E.throttle__rate(overshoot=np.maximum(xi, 1.0), clock_exp=hw.throttle["exponent"]), shape
    )


def throttle_note(hw: Hardware, kappa: float, added_s: float) -> str | None:
    """What the board limit did to a plan, in one line (None on a device without ``throttle`` figures)."""
    d = throttle_draws(hw)
    if not d:
        return None
    a = hw.throttle["exponent"]
    if kappa >= 1.0:
        return f"power limit {d['p_limit']:g} W: the step's draw at the maximum clock is within it; compute runs unthrottled"
    return (
        f"power limit {d['p_limit']:g} W: at the maximum clock the step would draw {kappa ** (-1 / a):.2f}x it, so "
        f"compute-bound work runs at {kappa:.3f} of its maximum-clock rate (rate = overshoot^-{a:g}, "
        f"+{added_s:.3g} s; llmcost hw show {hw.id}: throttle)"
    )


def cap_of(v: Any) -> float | None:
    """A power cap in watts from ``'400W'``, ``'0.4 kW'`` or a number of watts (None: no cap);
    one-line error otherwise."""
    if v is None:
        return None
    from llmcost.units import parse

    w = parse(v, "power", what="power_cap", allow_bare=True)
    if not 0 < w < 1e5:
        raise UserError(f"power_cap: a board power limit per device such as '400W', got {v!r}")
    return w


def static_draw(hw: Hardware) -> float:
    """``P_s`` of the cap model: ``power.static_w``, else ``power.idle_w`` (a lower bound on it, so a
    lower bound on the slowdown); UserError when the entry has neither."""
    for key in ("static_w", "idle_w"):
        if key in hw.power:
            return hw.power[key]
    raise UserError(
        f"power_cap needs {hw.id}'s static draw: power.static_w or power.idle_w in its catalog entry "
        "(llmcost hw show " + hw.id + "); add them with --catalog or hardware_overrides"
    )


def clock_share(hw: Hardware, cap: float) -> float:
    """Compute clock under ``cap`` over the uncapped one (``capped_clock``): ``P_cb`` is
    ``power.compute_bound_w`` or the TDP; UserError when the cap is at or below the static draw."""
    p_s = static_draw(hw)
    if cap <= p_s:
        raise UserError(
            f"power_cap {cap:g} W is at or below {hw.id}'s static draw ({p_s:g} W): nothing would run; "
            f"use a cap above {p_s:g} W (its TDP is {hw.tdp:g} W)"
        )
    p_cb = hw.power.get("compute_bound_w", hw.tdp)
    return float(E.capped_clock(p_cap=cap, p_cb=p_cb, p_static=p_s))


def capped(hw: Hardware, cap: float | None) -> Hardware:
    """``hw`` under a board power limit of ``cap`` W (None: ``hw``): every compute efficiency (GEMM,
    training, attention, vector work) times :func:`clock_share`, so compute-bound operators slow with
    the clock and memory-bound ones keep their speed (the roofline picks); draws by kind of work and
    the TDP at most the cap (``capped_draw``). Peaks are unchanged, so MFU stays over the datasheet."""
    if cap is None:
        return hw
    x = clock_share(hw, cap)

    def scaled(d: dict[str, float]) -> dict[str, float]:
        return {k: v * x for k, v in d.items()}

    def opt(v: float | None) -> float | None:
        return None if v is None else v * x

    draws_ = {k: float(E.capped_draw(p_draw=v, p_cap=cap)) for k, v in hw.power.items() if k != "static_w"}
    return replace(
        hw,
        compute_efficiency=hw.compute_efficiency * x,
        compute_efficiency_by_dtype=scaled(hw.compute_efficiency_by_dtype),
        attention_efficiency_value=opt(hw.attention_efficiency_value),
        attention_efficiency_by_family=scaled(hw.attention_efficiency_by_family),
        train_efficiency_value=opt(hw.train_efficiency_value),
        train_efficiency_by_dtype=scaled(hw.train_efficiency_by_dtype),
        power={**hw.power, **draws_},
        throttle={**hw.throttle, "limit_w": hw.throttle.get("limit_w", hw.tdp)} if hw.throttle else {},
        tdp=float(E.capped_draw(p_draw=hw.tdp, p_cap=cap)),
    )


def cap_note(hw: Hardware, cap: float | None) -> str | None:
    """What a plan's power cap did, in one line (None without a cap); ``hw`` uncapped."""
    if cap is None:
        return None
    x = clock_share(hw, cap)
    p_cb = hw.power.get("compute_bound_w", hw.tdp)
    if x >= 1.0:
        return f"power cap {cap:g} W: no effect (compute-bound work draws {p_cb:g} W on {hw.id})"
    src = "static_w" if "static_w" in hw.power else "idle_w, a lower bound on the static draw"
    return (
        f"power cap {cap:g} W: compute clock x{x:.3f} (P = P_s + (P_cb - P_s) x^3, P_s {static_draw(hw):g} W "
        f"from {src}, P_cb {p_cb:g} W), compute-bound operators slower by that, memory-bound ones not; "
        "draws capped at the limit; below about 2/3 of P_cb the voltage floor makes the slowdown larger than this"
    )


def draw_note(hw: Hardware) -> str:
    """What the energy figures of ``hw`` are drawn at, in one line."""
    given = {k: v for k, v in hw.power.items() if k in KINDS.values()}
    if not given:
        return f"energy at the TDP ({hw.tdp:g} W) x time: {hw.id} has no measured draws (an upper bound)"
    told = ", ".join(f"{k} {v:g} W" for k, v in given.items())
    return f"energy from time x draw by kind of work ({told}; the rest at TDP {hw.tdp:g} W)"
