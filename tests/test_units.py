"""Unit parsing: the one place unit strings become SI numbers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llmcost.errors import UserError
from llmcost.units import fmt_bytes, fmt_time, parse, parse_range


@pytest.mark.parametrize(
    ("text", "dim", "expected"),
    [
        ("989.4 TFLOPS", "flops", 989.4e12),
        ("1978.9 TOPS", "flops", 1978.9e12),
        ("2.5 PFLOPS", "flops", 2.5e15),
        ("80 GiB", "bytes", 80 * 2**30),
        ("80 GB", "bytes", 80e9),
        ("1KiB", "bytes", 1024),
        ("512 B", "bytes", 512),
        ("3.35 TB/s", "bandwidth", 3.35e12),
        ("400 Gbit/s", "bandwidth", 50e9),
        ("400 Gb/s", "bandwidth", 50e9),
        ("100 Gbps", "bandwidth", 12.5e9),
        ("64 GB/s", "bandwidth", 64e9),
        ("1 GiB/s", "bandwidth", 2**30),
        ("3 us", "time", 3e-6),
        ("1.5 ms", "time", 1.5e-3),
        ("700 W", "power", 700.0),
        ("1.2 kW", "power", 1200.0),
    ],
)
def test_parse_units(text: str, dim: str, expected: float) -> None:
    assert parse(text, dim) == pytest.approx(expected, rel=1e-12)


def test_gb_is_not_gib_and_bits_are_not_bytes() -> None:
    assert parse("1 GiB", "bytes") / parse("1 GB", "bytes") == pytest.approx(1.073741824)
    assert parse("8 Gbit/s", "bandwidth") == parse("1 GB/s", "bandwidth")


@pytest.mark.parametrize(
    ("value", "dim"),
    [
        ("80 GiB", "bandwidth"),
        ("3 TB/s", "bytes"),
        ("fast", "time"),
        ("-1 GiB", "bytes"),
        ("1 Gbit", "bytes"),
        (80, "bytes"),
    ],
)
def test_parse_rejects_wrong_or_missing_units(value: object, dim: str) -> None:
    with pytest.raises(UserError) as e:
        parse(value, dim, what="memory")
    assert "memory" in str(e.value) and "\n" not in str(e.value)


def test_bare_numbers_only_when_allowed() -> None:
    assert parse(1024, "bytes", allow_bare=True) == 1024
    assert parse("4096", "bytes", allow_bare=True) == 4096


def test_parse_range() -> None:
    assert parse_range("1KiB:8GiB", "bytes") == (1024, 8 * 2**30)
    with pytest.raises(UserError):
        parse_range("8GiB:1KiB", "bytes")
    with pytest.raises(UserError):
        parse_range("1KiB", "bytes")


@given(st.floats(min_value=1e-3, max_value=1e6, allow_nan=False))
def test_binary_prefixes_round_trip(x: float) -> None:
    assert parse(f"{x!r} GiB", "bytes") == pytest.approx(x * 2**30)
    assert parse(f"{x!r} Gbit/s", "bandwidth") == pytest.approx(x * 1e9 / 8)


def test_formatters() -> None:
    assert fmt_bytes(80 * 2**30) == "80 GiB"
    assert fmt_time(0.0314) == "31.4 ms"
    assert fmt_time(2.1e-6) == "2.1 us"


def test_gib_constant() -> None:
    from llmcost.units import GIB

    assert GIB == 2**30 and parse("1 GiB", "bytes") == GIB


def test_economics_generated_module_is_current() -> None:
    from llmcost.economics import formulas as F

    assert F.GENERATED.read_text() == F.generated_source(), "run python -m llmcost.economics.formulas"


def test_usd_per_million_tokens_is_the_rental_cost_of_their_time() -> None:
    from llmcost.economics import _generated as E

    # 8 devices at $2/h producing 1000 tokens/s: 1e6 tokens take 1000 s, 8·2·1000/3600 USD
    assert E.usd_per_million_tokens(8, 1.0, 1000.0, 2.0) == pytest.approx(8 * 2 * 1000 / 3600)
    assert E.usd_per_million_tokens(8, 1000.0, 1e6, 2.0) == pytest.approx(E.usd(8, 1000.0, 2.0))
