"""Rental cost of devices (sympy): the one source of the price formulas of training, inference and
test-time scaling.

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
define("tdp_w", "W", "power per device (TDP: an upper bound)", latex=r"P_{TDP}")

S = sym


def usd() -> sp.Expr:
    """Rental cost: ``n_dev·$_h·T/3600`` (device-hours × price per device-hour)."""
    return S("devices") * S("usd_hour") * S("seconds") / 3600


def usd_per_million_tokens() -> sp.Expr:
    """Cost per million tokens: ``n_dev·$_h·T/3600 · 10⁶/n_tok`` (:func:`usd` of the time the
    ``n_tok`` tokens take, scaled to 10⁶ tokens)."""
    return usd() * 10**6 / S("tokens")


FORMULAS: dict[str, Callable[[], sp.Expr]] = {
    "usd": usd,
    "usd_per_million_tokens": usd_per_million_tokens,
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
