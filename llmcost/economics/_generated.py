"""Generated from llmcost/economics/formulas.py by
``python -m llmcost.economics.formulas``: do not edit (tests/test_units.py pins it).

One numpy function per cost quantity; FUNCTIONS maps its name to
(function, argument names, expression hash).
"""
# ruff: noqa

import numpy


def usd(devices, seconds, usd_hour):
    """Rental cost: ``n_dev·$_h·T/3600`` (device-hours × price per device-hour)."""
    return (1/3600)*devices*seconds*usd_hour


def usd_per_million_tokens(devices, seconds, tokens, usd_hour):
    """Cost per million tokens: ``n_dev·$_h·T/3600 · 10⁶/n_tok`` (:func:`usd` of the time the"""
    return (2500/9)*devices*seconds*usd_hour/tokens


def mean_draw(p_cb, p_idle, p_mb, t_cb, t_idle, t_mb):
    """Draw per device averaged over a step's kinds of work: ``(T_cb·P_cb + T_mb·P_mb +"""
    return (p_cb*t_cb + p_idle*t_idle + p_mb*t_mb)/(t_cb + t_idle + t_mb)


def facility_energy(joules, pue):
    """Facility energy: ``E·PUE``, PUE being total facility energy over IT equipment energy (The"""
    return joules*pue


def network__clos_switches(net_endpoints, net_radix, net_tiers):
    """Switches of a full-bisection folded Clos (fat tree) of ``t`` tiers joining ``E`` NIC ports with"""
    return (net_tiers - 1)*numpy.ceil(2*net_endpoints/net_radix) + numpy.ceil(net_endpoints/net_radix)


def network__rail_switches(net_endpoints, net_radix, net_rails, net_tiers):
    """Switches of a rail-only network: ``ρ`` rails (the NICs of one scale-up domain, each on its own"""
    return net_rails*((net_tiers - 1)*numpy.ceil(2*numpy.ceil(net_endpoints/net_rails)/net_radix) + numpy.ceil(numpy.ceil(net_endpoints/net_rails)/net_radix))


def network__links(net_endpoints, net_tiers):
    """Links of a ``t``-tier full-bisection tree (fat tree, or each rail of a rail-only network): ``E``"""
    return net_endpoints*net_tiers


def network__capex(net_endpoints, net_switches, net_tiers, usd_host_link, usd_switch, usd_switch_link):
    """Capital cost of the network: ``n_sw·$_sw + E·$_hl + (t-1)·E·$_sl``, switches plus NIC-to-switch"""
    return net_endpoints*usd_host_link + net_endpoints*usd_switch_link*(net_tiers - 1) + net_switches*usd_switch


def network__usd_per_device_hour(life_years, net_devices, usd_network):
    """The network's capital cost per device-hour, spread evenly over ``Y`` years of 8,760 hours at"""
    return (1/8760)*usd_network/(life_years*net_devices)


def network__share_of_price(life_years, net_devices, usd_hour, usd_network):
    """Share of the device-hour price the network's capital cost accounts for:"""
    return (1/8760)*usd_network/(life_years*net_devices*usd_hour)


def capped_clock(p_cap, p_cb, p_static):
    """Compute clock under a power cap, as a share of the clock compute-bound work sustains at the"""
    return ((-p_static + numpy.minimum(p_cap, p_cb))/(p_cb - p_static))**(1/3)


def capped_draw(p_cap, p_draw):
    """Draw of one kind of work under a power cap: ``min(P, P_cap)`` (the limit bounds the board's"""
    return numpy.minimum(p_cap, p_draw)


def throttle__overshoot(p_cmax, p_limit, p_mmax, p_wait, t_cb, t_idle, t_mb):
    """A step's mean draw at the maximum SM clock over the board limit,"""
    return (p_cmax*t_cb + p_mmax*t_mb + p_wait*t_idle)/(p_limit*(t_cb + t_idle + t_mb))


def throttle__rate(clock_exp, overshoot):
    """Compute rate the board limit sustains over the rate at the maximum clock,"""
    return numpy.minimum(1, overshoot**(-clock_exp))


FUNCTIONS = {
    'usd': (usd, ('devices', 'seconds', 'usd_hour'), '90aba31f04f5e4c9'),
    'usd_per_million_tokens': (usd_per_million_tokens, ('devices', 'seconds', 'tokens', 'usd_hour'), 'a258ffaca517546e'),
    'mean_draw': (mean_draw, ('p_cb', 'p_idle', 'p_mb', 't_cb', 't_idle', 't_mb'), 'e6cc85f4e1de08a0'),
    'facility_energy': (facility_energy, ('joules', 'pue'), '14ccdaea4445593d'),
    'network__clos_switches': (network__clos_switches, ('net_endpoints', 'net_radix', 'net_tiers'), '168a5471df9bf3e2'),
    'network__rail_switches': (network__rail_switches, ('net_endpoints', 'net_radix', 'net_rails', 'net_tiers'), 'e6f6c37371b3df17'),
    'network__links': (network__links, ('net_endpoints', 'net_tiers'), 'c7fb3b9b5b09cd5e'),
    'network__capex': (network__capex, ('net_endpoints', 'net_switches', 'net_tiers', 'usd_host_link', 'usd_switch', 'usd_switch_link'), '99c0cc87326c45fd'),
    'network__usd_per_device_hour': (network__usd_per_device_hour, ('life_years', 'net_devices', 'usd_network'), '654ae33fbc7bd79c'),
    'network__share_of_price': (network__share_of_price, ('life_years', 'net_devices', 'usd_hour', 'usd_network'), 'faff17ff1f163740'),
    'capped_clock': (capped_clock, ('p_cap', 'p_cb', 'p_static'), '726329f1bb861e1b'),
    'capped_draw': (capped_draw, ('p_cap', 'p_draw'), '9a4dba93361b4347'),
    'throttle__overshoot': (throttle__overshoot, ('p_cmax', 'p_limit', 'p_mmax', 'p_wait', 't_cb', 't_idle', 't_mb'), '99e79e7b0ea938ab'),
    'throttle__rate': (throttle__rate, ('clock_exp', 'overshoot'), '5d93712c906cdd3e'),
}
