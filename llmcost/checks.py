"""Checks of user-given numbers, written once: every plan key, case field and CLI option goes
through these (one-line :class:`~llmcost.errors.UserError` / :class:`~llmcost.errors.PlanError`
naming the field and what would be right, never a ValueError or OverflowError traceback)."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from llmcost.errors import PlanError, UserError


def finite_int(v: Any, what: str, minimum: int = 1) -> int:
    """``v`` as an int >= ``minimum``: an int, or a finite float with an integral value (YAML
    ``8.0``); anything else (bool, NaN, inf, 2.5, a string) is a UserError naming ``what``."""
    ok = not isinstance(v, (bool, np.bool_)) and (
        isinstance(v, numbers.Integral)
        or (isinstance(v, numbers.Real) and math.isfinite(v) and float(v).is_integer())
    )
    if not ok or v < minimum:
        raise UserError(f"{what}: expected an integer >= {minimum}, got {v!r}")
    return int(v)


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
