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


FUNCTIONS = {
    'usd': (usd, ('devices', 'seconds', 'usd_hour'), '90aba31f04f5e4c9'),
    'usd_per_million_tokens': (usd_per_million_tokens, ('devices', 'seconds', 'tokens', 'usd_hour'), 'a258ffaca517546e'),
}
