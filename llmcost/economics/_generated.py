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


def capped_clock(p_cap, p_cb, p_static):
    """Compute clock under a power cap, as a share of the clock compute-bound work sustains at the"""
    return ((-p_static + numpy.minimum(p_cap, p_cb))/(p_cb - p_static))**(1/3)


def capped_draw(p_cap, p_draw):
    """Draw of one kind of work under a power cap: ``min(P, P_cap)`` (the limit bounds the board's"""
    return numpy.minimum(p_cap, p_draw)


FUNCTIONS = {
    'usd': (usd, ('devices', 'seconds', 'usd_hour'), '90aba31f04f5e4c9'),
    'usd_per_million_tokens': (usd_per_million_tokens, ('devices', 'seconds', 'tokens', 'usd_hour'), 'a258ffaca517546e'),
    'mean_draw': (mean_draw, ('p_cb', 'p_idle', 'p_mb', 't_cb', 't_idle', 't_mb'), 'e6cc85f4e1de08a0'),
    'facility_energy': (facility_energy, ('joules', 'pue'), '14ccdaea4445593d'),
    'capped_clock': (capped_clock, ('p_cap', 'p_cb', 'p_static'), '726329f1bb861e1b'),
    'capped_draw': (capped_draw, ('p_cap', 'p_draw'), '9a4dba93361b4347'),
}
