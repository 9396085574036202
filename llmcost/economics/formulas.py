"""Rental cost of devices and the scale-out network's bill of materials (sympy): the one source of
the price formulas of training, inference and test-time scaling.

Devices are rented by the device-hour, so ``n_dev`` devices busy for ``T`` seconds cost
``n_dev·$_h·T/3600`` [derived: device-hours × price per device-hour]; a rate of tokens is priced
per million tokens from the time those tokens take. Prices come from the hardware catalog
(``price_per_hour``).

``python -m llmcost.economics.formulas`` regenerates :mod:`llmcost.economics._generated` (numpy
only); tests/test_units.py pins it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import sympy as sp

from llmcost.symbolic.compile import arguments, generated_header, write_generated
from llmcost.symbolic.symbols import define, sym

define("devices", "1", "devices serving the query", latex="n_{dev}")
define("usd_hour", "USD/h", "price per device-hour", latex=r"\$_h")
define("seconds", "s", "wall time the devices are busy", latex="T")
define("tokens", "token", "tokens produced in that time", latex="n_{tok}")
define(
    "tdp_w", "W", "draw per device: the TDP (an upper bound) or its mean by kind of work", latex=r"P_{TDP}"
)
define("t_cb", "s", "time of compute-bound work", latex=r"T_{cb}")
define("t_mb", "s", "time of memory-bound work", latex=r"T_{mb}")
define("t_idle", "s", "time of exposed communication, launch gaps and bubbles", latex=r"T_{idle}")
define("p_cb", "W", "draw of compute-bound work per device", latex=r"P_{cb}")
define("p_mb", "W", "draw of memory-bound work per device", latex=r"P_{mb}")
define("p_idle", "W", "idle draw per device", latex=r"P_{idle}")
define("joules", "J", "device energy", latex="E")
define("pue", "1", "facility power usage effectiveness", latex="PUE")
define("p_cap", "W", "board power limit set on each device (power cap)", latex=r"P_{cap}")
define(
    "p_static",
    "W",
    "draw under load that does not scale with the SM clock (leakage, memory, I/O)",
    latex=r"P_{s}",
)
define("p_draw", "W", "draw of one kind of work per device, uncapped", latex="P")
define(
    "p_cmax",
    "W",
    "draw of compute-bound kernels at the maximum SM clock (may exceed the limit)",
    latex=r"P_{c}^{max}",
)
define("p_mmax", "W", "draw of memory-bound kernels at the maximum SM clock", latex=r"P_{m}^{max}")
define(
    "p_wait", "W", "draw of a device waiting inside a kernel (exposed communication, bubbles)", latex=r"P_{w}"
)
define("p_limit", "W", "board power limit of the device (its TDP)", latex=r"P_{lim}")
define("overshoot", "1", "a step's mean draw at the maximum clock over the board limit", latex=r"\xi")
define("clock_exp", "1", "exponent of the sustained compute rate in the overshoot", latex=r"\alpha_{clk}")

S = sym

define("net_endpoints", "1", "NIC ports on the scale-out network", latex="E")
define("net_radix", "1", "ports of one network switch", latex="k")
define("net_tiers", "1", "switch tiers of a full-bisection folded Clos (fat tree)", latex="t")
define("net_rails", "1", "rails of a rail-only network (NICs per scale-up domain)", latex=r"\rho")
define("net_switches", "1", "network switches", latex="n_{sw}")
define("usd_switch", "USD", "price of one network switch", latex=r"\$_{sw}")
define("usd_host_link", "USD", "price of one NIC-to-switch link (optics and fiber)", latex=r"\$_{hl}")
define("usd_switch_link", "USD", "price of one switch-to-switch link (optics and fiber)", latex=r"\$_{sl}")
define("usd_network", "USD", "capital cost of the scale-out network", latex=r"\$_{net}")
define("life_years", "year", "years the network's capital cost is spread over", latex="Y")
define("net_devices", "1", "devices the network joins", latex="N")


def usd() -> sp.Expr:
    """Rental cost: ``n_dev·$_h·T/3600`` (device-hours × price per device-hour)."""
    return S("devices") * S("usd_hour") * S("seconds") / 3600


def usd_per_million_tokens() -> sp.Expr:
    """Cost per million tokens: ``n_dev·$_h·T/3600 · 10⁶/n_tok`` (:func:`usd` of the time the
    ``n_tok`` tokens take, scaled to 10⁶ tokens)."""
    return usd() * 10**6 / S("tokens")


def mean_draw() -> sp.Expr:
    """Draw per device averaged over a step's kinds of work: ``(T_cb·P_cb + T_mb·P_mb +
    T_idle·P_idle) / (T_cb + T_mb + T_idle)``, so that energy is the sum over the kinds of their time ×
    their draw [derived]. Draws differ by kind: memory-bound LLM decode draws 137-300 W on a 700 W
    H200 (Ma et al. 2026, arXiv 2605.11999); a GPU's static power is drawn whatever its activity
    (ML.ENERGY Leaderboard v3.0, arXiv 2601.22076, "Static Power Wastage")."""
    num = S("t_cb") * S("p_cb") + S("t_mb") * S("p_mb") + S("t_idle") * S("p_idle")
    return num / (S("t_cb") + S("t_mb") + S("t_idle"))


def facility_energy() -> sp.Expr:
    """Facility energy: ``E·PUE``, PUE being total facility energy over IT equipment energy (The
    Green Grid, White Paper #49, 2012; ISO/IEC 30134-2:2016)."""
    return S("joules") * S("pue")


def clos_switches() -> sp.Expr:
    """Switches of a full-bisection folded Clos (fat tree) of ``t`` tiers joining ``E`` NIC ports with
    radix-``k`` switches: every tier below the top has ``⌈2E/k⌉`` switches (half their ports down, half
    up), the top ``⌈E/k⌉`` (every port down): ``(t-1)·⌈2E/k⌉ + ⌈E/k⌉``. A k-ary fat tree of 3 tiers is
    ``5k²/4`` switches for ``k³/4`` hosts (Al-Fares, Loukissas, Vahdat, "A Scalable, Commodity Data
    Center Network Architecture", SIGCOMM 2008), 5E/k; 2 tiers (leaf-spine) 3E/k; DeepSeek's
    FT2 of 2,048 and FT3 of 65,536 endpoints with 64-port switches: 96 and 5,120 (Zhao et al.,
    "Insights into DeepSeek-V3", ISCA 2025, arXiv 2505.09343, network-topology cost table) [derived
    for partial trees]."""
    E, k, t = S("net_endpoints"), S("net_radix"), S("net_tiers")
    return (t - 1) * sp.ceiling(2 * E / k) + sp.ceiling(E / k)


def rail_switches() -> sp.Expr:
    """Switches of a rail-only network: ``ρ`` rails (the NICs of one scale-up domain, each on its own
    rail), each a full-bisection Clos of ``t`` tiers over its ``⌈E/ρ⌉`` ports and no spine joining the
    rails: ``ρ·((t-1)·⌈2⌈E/ρ⌉/k⌉ + ⌈⌈E/ρ⌉/k⌉)`` (Wang et al., "Rail-only", HOTI 2024, arXiv
    2307.12169: per-rail Clos networks, the spine removed; DeepSeek's multi-plane fat tree, 8
    planes of 2-tier trees = 768 switches for 16,384 endpoints, arXiv 2505.09343)."""
    E, k, t, rho = S("net_endpoints"), S("net_radix"), S("net_tiers"), S("net_rails")
    per_rail = sp.ceiling(E / rho)
    return rho * ((t - 1) * sp.ceiling(2 * per_rail / k) + sp.ceiling(per_rail / k))


def network_links() -> sp.Expr:
    """Links of a ``t``-tier full-bisection tree (fat tree, or each rail of a rail-only network): ``E``
    NIC-to-switch links and ``E`` switch-to-switch links at each of the ``t-1`` tier boundaries,
    ``t·E`` (full bisection: every tier carries all ``E`` ports' bandwidth; Al-Fares et al. 2008:
    k³/4 hosts, 3 tiers, 3·k³/4 links). Each is one cable with a transceiver at both ends [derived]."""
    return S("net_tiers") * S("net_endpoints")


def network_capex() -> sp.Expr:
    """Capital cost of the network: ``n_sw·$_sw + E·$_hl + (t-1)·E·$_sl``, switches plus NIC-to-switch
    and switch-to-switch links (transceivers and fiber) at the part set's prices
    (hardware/network/parts.yaml); NICs are priced in the servers [derived]."""
    E, t = S("net_endpoints"), S("net_tiers")
    return S("net_switches") * S("usd_switch") + E * S("usd_host_link") + (t - 1) * E * S("usd_switch_link")


def network_usd_per_device_hour() -> sp.Expr:
    """The network's capital cost per device-hour, spread evenly over ``Y`` years of 8,760 hours at
    full use and no cost of capital: ``$_net / (N·Y·8760)`` (straight-line depreciation; Microsoft and
    AWS depreciate network equipment over six years, Microsoft FY2023 10-Q, Amazon 2022 10-K)
    [derived]."""
    return S("usd_network") / (S("net_devices") * S("life_years") * 8760)


def network_share_of_price() -> sp.Expr:
    """Share of the device-hour price the network's capital cost accounts for:
    ``($_net/(N·Y·8760)) / $_h`` (:func:`network_usd_per_device_hour` over the catalog's rental price,
    which covers servers, network, power, facility and margin) [derived]."""
    return network_usd_per_device_hour() / S("usd_hour")


def capped_clock() -> sp.Expr:
    """Compute clock under a power cap, as a share of the clock compute-bound work sustains at the
    default limit: ``x = ((min(P_cap, P_cb) − P_s) / (P_cb − P_s))^(1/3)``, the inverse of the device's
    power curve ``P(x) = P_s + (P_cb − P_s)·x³``.

    Physics: CMOS switching power is ``α·C·V²·f`` (Hennessy & Patterson, Computer Architecture: A
    Quantitative Approach, §1.5; T. Kidd, Intel, "Why P scales as CV²f", 2009,
    https://software.intel.com/content/www/us/en/develop/blogs/why-p-scales-as-cv2f-is-so-obvious.html);
    under DVFS the supply voltage is lowered with the clock, about V ∝ f, so the clock-dependent
    draw grows as f³ [derived], over a part ``P_s`` that does not follow the SM clock (leakage, HBM,
    I/O). A capped GPU lowers its clock until the draw of compute-bound work meets the cap;
    memory-bound work keeps its speed (the memory clock is not lowered; LLM decode draws 137-300 W
    on a 700 W H200, so no cap above that triggers: Ma et al. 2026, arXiv 2605.11999). Anchor: the
    measured SM-clock sweep of GPT-3 pipeline stages on A100 SXM (Perseus, Chung et al. SOSP '24,
    arXiv 2312.06902, artifact ml-energy/zeus@kronos sosp24_data/emulation/stage_profile) follows
    ``P_s + c·f³`` within 5-7 W rms from 1050 to 1410 MHz with ``P_s`` 108-118 W. Below the clock
    at which the voltage reaches its floor the draw falls only linearly with f, so deep caps slow
    more than this curve says [derived]."""
    p_cb, p_s = S("p_cb"), S("p_static")
    return ((sp.Min(S("p_cap"), p_cb) - p_s) / (p_cb - p_s)) ** sp.Rational(1, 3)


def capped_draw() -> sp.Expr:
    """Draw of one kind of work under a power cap: ``min(P, P_cap)`` (the limit bounds the board's
    average draw; work that draws less is unchanged) [derived]."""
    return sp.Min(S("p_draw"), S("p_cap"))


def throttle_overshoot() -> sp.Expr:
    """A step's mean draw at the maximum SM clock over the board limit,
    ``ξ = (T_cb·P_c + T_mb·P_m + T_idle·P_w) / ((T_cb + T_mb + T_idle)·P_lim)``: the power controller
    holds the board's average draw at the limit, so what decides the clock is the step's mix of
    kinds of work, not one kernel's draw (H100 SXM, ``bench/kernels/duty.py``, hardware/measured:
    GEMMs alternated with copies keep 1980 MHz up to 30-40 % GEMM time and fall to 1380 MHz at
    100 %; with idle gaps instead of copies throttling starts near 60 %) [derived: time-weighted
    mean of the draws by kind of work]."""
    t_c, t_m, t_w = S("t_cb"), S("t_mb"), S("t_idle")
    return (t_c * S("p_cmax") + t_m * S("p_mmax") + t_w * S("p_wait")) / ((t_c + t_m + t_w) * S("p_limit"))


def throttle_rate() -> sp.Expr:
    """Compute rate the board limit sustains over the rate at the maximum clock,
    ``κ = min(1, ξ^(−α))``: 1 while the step's draw at the maximum clock is within the limit, else
    falling as a power of the overshoot ``ξ`` (:func:`throttle_overshoot`). The rate falls slower
    than the clock (H100: 1980 → 1380 MHz is −30 %, the bf16 GEMM rate −13 %), so ``α`` is fitted
    to measured rates, not to clocks: H100 SXM α 0.47 over both duty sweeps (GEMMs with copies,
    GEMMs with idle gaps; rms 1.2 %), A100 SXM α 0.30 from the SM-clock sweep of GPT-3 pipeline
    stages (Perseus, Chung et al. SOSP '24, artifact ml-energy/zeus@kronos
    sosp24_data/emulation/stage_profile: time and energy per clock; the clock where the draw meets
    the limit and the time there) [fitted: tests/test_measured_kernels.py re-derives both]."""
    return sp.Min(1, S("overshoot") ** (-S("clock_exp")))


FORMULAS: dict[str, Callable[[], sp.Expr]] = {
    "usd": usd,
    "usd_per_million_tokens": usd_per_million_tokens,
    "mean_draw": mean_draw,
    "facility_energy": facility_energy,
    "network__clos_switches": clos_switches,
    "network__rail_switches": rail_switches,
    "network__links": network_links,
    "network__capex": network_capex,
    "network__usd_per_device_hour": network_usd_per_device_hour,
    "network__share_of_price": network_share_of_price,
    "capped_clock": capped_clock,
    "capped_draw": capped_draw,
    "throttle__overshoot": throttle_overshoot,
    "throttle__rate": throttle_rate,
}


def expression(name: str) -> sp.Expr:
    """The sympy expression of ``name`` (a key of :data:`FORMULAS`)."""
    return FORMULAS[name]()


GENERATED = Path(__file__).with_name("_generated.py")
HEADER = generated_header(
    "llmcost.economics.formulas",
    "tests/test_units.py",
    "One numpy function per cost quantity; FUNCTIONS maps its name to\n(function, argument names, expression hash).",
)


def generated_source() -> str:
    """Source of the runtime module: one function per entry of :data:`FORMULAS`."""
    from llmcost.symbolic.compile import formulas_source

    return formulas_source(FORMULAS, arguments, header=HEADER)


if __name__ == "__main__":
    write_generated(GENERATED, generated_source())
