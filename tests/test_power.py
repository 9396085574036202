"""Draw by kind of work, power caps and PUE (llmcost.economics.power)."""

from __future__ import annotations

import pytest

from llmcost import api
from llmcost.economics.power import pue_of
from llmcost.errors import UserError


def _joules(hw: str, **kw: object) -> tuple[float, object]:
    rep = api.infer("llama-3.1-8b", hw, None, batch=32, **kw)
    return rep.result.metrics()["joules_per_output_token"], rep.result


def test_parse_pue() -> None:
    assert pue_of(None) == 1.0 and pue_of(1.2) == 1.2
    for bad in (0.5, True, "x", 11):
        with pytest.raises(UserError):
            pue_of(bad)


def test_no_figures_keeps_tdp_bound() -> None:
    j, r = _joules("a100-sxm4-80gb")
    assert r.draw is None  # type: ignore[attr-defined]
    assert j == pytest.approx(r.gpus * r.tdp / r.metrics()["output_tokens_per_s"])  # type: ignore[attr-defined]


def test_memory_draw_lowers_energy_and_pue() -> None:
    j, r = _joules("h200-sxm")
    assert 300 < r.draw < 700  # type: ignore[attr-defined,operator]
    j_pue, _ = _joules("h200-sxm", pue=1.5)
    assert j_pue == pytest.approx(1.5 * j)


def test_power_cap_is_not_a_plan_key() -> None:
    """A cap slows compute-bound work, and no sourced curve prices that: not accepted yet."""
    with pytest.raises(UserError):
        _joules("h100-sxm", power_cap="400W")
