"""Quantities written with their unit, turned into SI numbers in one place.

Catalog values and CLI sizes are strings such as ``"989 TFLOPS"``, ``"3.35 TB/s"``,
``"80 GiB"``, ``"400 Gbit/s"``, ``"2 us"`` or ``"700 W"``. :func:`parse` returns the value in
SI base units of its dimension:

=============  ================  ==========================================================
dimension      SI result         accepted units (case-sensitive where it matters: b vs B)
=============  ================  ==========================================================
``flops``      FLOP/s (or OP/s)  FLOPS, FLOP/s, OPS, OP/s with k M G T P E prefixes
``bytes``      bytes             B, kB KB MB GB TB PB (10^3n), KiB MiB GiB TiB PiB (2^10n)
``bandwidth``  bytes/s           B/s with decimal or binary prefixes; bit/s, bps, b/s
                                 (Gbit/s, Gb/s, Gbps; divided by 8)
``time``       seconds           ns, us, µs, ms, s, min, h
``power``      watts             W, kW, MW
=============  ================  ==========================================================

Traps this guards against: GB (1e9) vs GiB (2^30); Gbit/s (bits) vs GB/s (bytes). A bare
number is accepted only where the caller allows it, in the dimension's SI unit.
"""

from __future__ import annotations

import math
import re

from llmcost.errors import UserError

_DEC = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
_BIN = {"Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40, "Pi": 2.0**50, "Ei": 2.0**60}

_TIME = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}
_POWER = {"W": 1.0, "kW": 1e3, "MW": 1e6}

_NUM = r"(?P<num>[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)"
_RE = re.compile(rf"^\s*{_NUM}\s*(?P<unit>[^\s\d].*?)?\s*$")

GIB = 2**30
"""Bytes in a GiB (memory figures are reported in GiB)."""
GB = 1e9
"""Bytes in a GB (bandwidth columns are in GB/s, as nccl-tests and datasheets report them)."""
TERA = 1e12
"""The T of TFLOP/s and TB/s."""

_EXAMPLE = {
    "flops": "'989 TFLOPS'",
    "bytes": "'80 GiB' or '1.5 GB'",
    "bandwidth": "'3.35 TB/s' or '400 Gbit/s'",
    "time": "'2 us' or '1.5 ms'",
    "power": "'700 W'",
}


def _prefix_factor(prefix: str) -> float | None:
    if prefix in _BIN:
        return _BIN[prefix]
    if prefix in _DEC:
        return _DEC[prefix]
    return None


def _unit_factor(unit: str, dim: str) -> float | None:
    """SI factor of ``unit`` in dimension ``dim``, or None when the unit does not belong."""
    if dim == "time":
        return _TIME.get(unit)
    if dim == "power":
        return _POWER.get(unit)
    if dim == "flops":
        m = re.fullmatch(r"([kKMGTPE]?)(FLOPS|FLOP/s|FLOPs/s|OPS|OP/s|TOPS)", unit)
        if not m:
            return None
        return _DEC[m.group(1)]
    if dim == "bytes":
        m = re.fullmatch(r"([kKMGTPE]i?|)(B|bytes?)", unit)
        if not m:
            return None
        return _prefix_factor(m.group(1))
    if dim == "bandwidth":
        m = re.fullmatch(r"([kKMGTPE]i?|)(B/s|Bps|bytes/s)", unit)
        if m:
            return _prefix_factor(m.group(1))
        m = re.fullmatch(r"([kKMGTPE]?)(bit/s|bits/s|b/s|bps|bit)", unit)
        if m:
            return _DEC[m.group(1)] / 8.0
        return None
    raise ValueError(f"unknown dimension {dim!r}")


def parse(value: object, dim: str, *, what: str = "value", allow_bare: bool = False) -> float:
    """Parse ``value`` (a string with a unit, or a number if ``allow_bare``) into SI units of ``dim``.

    Raises :class:`UserError` naming ``what`` and an accepted example on anything else,
    including negative or non-finite values.
    """
    if isinstance(value, bool):
        raise UserError(f"{what}: expected a {dim} quantity such as {_EXAMPLE[dim]}, got {value!r}")
    if isinstance(value, (int, float)):
        if not allow_bare:
            raise UserError(f"{what}: {value!r} has no unit; write it with one, such as {_EXAMPLE[dim]}")
        number, factor = float(value), 1.0
    elif isinstance(value, str):
        m = _RE.match(value)
        if not m:
            raise UserError(
                f"{what}: cannot read {value!r}; expected a {dim} quantity such as {_EXAMPLE[dim]}"
            )
        number = float(m.group("num"))
        unit = (m.group("unit") or "").strip()
        if not unit:
            if not allow_bare:
                raise UserError(f"{what}: {value!r} has no unit; write it with one, such as {_EXAMPLE[dim]}")
            factor = 1.0
        else:
            f = _unit_factor(unit, dim)
            if f is None:
                raise UserError(
                    f"{what}: unit '{unit}' in {value!r} is not a {dim} unit; use e.g. {_EXAMPLE[dim]}"
                )
            factor = f
    else:
        raise UserError(f"{what}: expected a {dim} quantity such as {_EXAMPLE[dim]}, got {value!r}")
    out = number * factor
    if not math.isfinite(out) or out < 0:
        raise UserError(f"{what}: {value!r} must be a finite, non-negative {dim} quantity")
    return out


def parse_range(text: str, dim: str, *, what: str = "range") -> tuple[float, float]:
    """Parse ``'1KiB:8GiB'`` into ``(lo, hi)`` SI values with ``lo <= hi``."""
    parts = text.split(":")
    if len(parts) != 2:
        raise UserError(f"{what}: expected LO:HI such as '1KiB:8GiB', got {text!r}")
    lo = parse(parts[0], dim, what=what, allow_bare=True)
    hi = parse(parts[1], dim, what=what, allow_bare=True)
    if lo <= 0 or hi < lo:
        raise UserError(f"{what}: need 0 < LO <= HI, got {text!r}")
    return lo, hi


def fmt_bytes(n: float) -> str:
    """Binary-prefixed byte count: '80 GiB', '1.5 MiB', '512 B'."""
    for unit, f in (("PiB", 2.0**50), ("TiB", 2.0**40), ("GiB", 2.0**30), ("MiB", 2.0**20), ("KiB", 2.0**10)):
        if abs(n) >= f:
            return f"{n / f:.4g} {unit}"
    return f"{n:.4g} B"


def fmt_si(x: float, unit: str) -> str:
    """Decimal-prefixed quantity: fmt_si(9.894e14, 'FLOP/s') -> '989.4 TFLOP/s'."""
    if x == 0:
        return f"0 {unit}"
    for p, f in (("E", 1e18), ("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= f:
            return f"{x / f:.4g} {p}{unit}"
    return f"{x:.4g} {unit}"


def fmt_time(t: float) -> str:
    """Seconds with a readable unit: '31.4 ms', '2.1 us', '3.2 h'."""
    a = abs(t)
    if a >= 86400 * 2:
        return f"{t / 86400:.4g} d"
    if a >= 3600:
        return f"{t / 3600:.4g} h"
    if a >= 1:
        return f"{t:.4g} s"
    if a >= 1e-3:
        return f"{t * 1e3:.4g} ms"
    if a >= 1e-6:
        return f"{t * 1e6:.4g} us"
    return f"{t * 1e9:.4g} ns"
