"""Checks of user-given numbers, written once: every plan key, case field and CLI option goes
through these (one-line :class:`~llmcost.errors.UserError` / :class:`~llmcost.errors.PlanError`
naming the field and what would be right, never a ValueError or OverflowError traceback)."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from llmcost.errors import PlanError, UserError

MAX_COUNT = 2**24
"""Largest count a plan, case or option may give (16,777,216): devices, parallel degrees, NICs,
sequences in a batch, tokens in a sequence, layers, experts, hidden sizes. Past any job built
(the largest clusters hold ~10^5 GPUs, the longest context windows ~10^7 tokens), and small
enough that every array over decode steps or divisors stays bounded and int64 never overflows."""


def finite_int(v: Any, what: str, minimum: int = 1, maximum: int = MAX_COUNT) -> int:
    """``v`` as an int in [``minimum``, ``maximum``]: an int, or a finite float with an integral
    value (YAML ``8.0``); anything else (bool, NaN, inf, 2.5, a string, 2^63) is a UserError
    naming ``what``."""
    ok = not isinstance(v, (bool, np.bool_)) and (
        isinstance(v, numbers.Integral)
        or (isinstance(v, numbers.Real) and math.isfinite(v) and float(v).is_integer())
    )
    if not ok or v < minimum:
        raise UserError(f"{what}: expected an integer >= {minimum}, got {_short(v)}")
    if v > maximum:
        raise UserError(
            f"{what}: {_short(v)} is past the largest count llmcost prices, {maximum:,} (2^{maximum.bit_length() - 1}); "
            "no job is that large"
        )
    return int(v)


def _short(v: Any) -> str:
    """``repr(v)``, long ones cut to their first digits (an integer of thousands of digits)."""
    r = repr(v)
    return r if len(r) <= 40 else f"{r[:20]}...({len(r)} characters)"


def positive_finite(v: Any, what: str) -> float:
    """``v`` as a float that is finite and > 0 (a number; bools and strings are rejected)."""
    ok = not isinstance(v, (bool, np.bool_)) and isinstance(v, numbers.Real) and math.isfinite(v) and v > 0
    if not ok:
        raise UserError(f"{what}: expected a finite number > 0, got {v!r}")
    return float(v)


def optional_positive(v: float | None, what: str) -> float | None:
    """:func:`positive_finite` of an optional CLI option (None stays None)."""
    return None if v is None else positive_finite(v, what)


def gpus_per_node(hw: Any, value: Any, what: str = "--gpus-per-node") -> int | None:
    """The one check of a ranks-per-host count, used by every command: None (unset: the hardware's
    host size), else an integer >= 1 no larger than the hardware's host and first fabric tier
    (scale-up domain). Whether a GPU count fills whole hosts is each plan's rule."""
    if value is None:
        return None
    g = finite_int(value, what)
    node = max(hw.node_devices or 1, 1)
    inner = hw.fabric[0].devices if hw.fabric and hw.fabric[0].devices else None
    most = max(node, inner or 0)
    if inner is not None and g > most:
        raise PlanError(
            f"{what} {g} exceeds {hw.id}'s host of {node} and its '{hw.fabric[0].key}' domain of "
            f"{inner}; use at most {most}, or a system entry with a larger domain"
        )
    return g
