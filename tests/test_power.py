"""Draw by kind of work, power caps and PUE (llmcost.economics.power)."""

from __future__ import annotations

import pytest

from llmcost import api
from llmcost.economics.power import power_cap_of, pue_of
from llmcost.errors import UserError


def _joules(hw: str, **kw: object) -> tuple[float, object]:
    rep = api.infer("llama-3.1-8b", hw, None, batch=32, **kw)
    return rep.result.metrics()["joules_per_output_token"], rep.result


def test_parse_cap_and_pue() -> None:
    assert power_cap_of("400W") == power_cap_of("400 w") == power_cap_of(400) == 400.0
    assert power_cap_of(None) is None and pue_of(None) == 1.0
    for bad in ("abc", "-5W", True, "0W"):
        with pytest.raises(UserError):
            power_cap_of(bad)
    with pytest.raises(UserError):
        pue_of(0.5)


def test_no_figures_keeps_tdp_bound() -> None:
    j, r = _joules("a100-sxm4-80gb")
    assert r.draw is None  # type: ignore[attr-defined]
    assert j == pytest.approx(r.gpus * r.tdp / r.metrics()["output_tokens_per_s"])  # type: ignore[attr-defined]


def test_memory_draw_lowers_energy_and_cap_pue() -> None:
    j, r = _joules("h200-sxm")
    assert 300 < r.draw < 700  # type: ignore[attr-defined,operator]
    j_cap, _ = _joules("h200-sxm", power_cap="350W")
    assert j_cap < j
    j_pue, _ = _joules("h200-sxm", pue=1.5)
    assert j_pue == pytest.approx(1.5 * j)


def test_cap_below_idle_is_rejected() -> None:
    with pytest.raises(UserError, match="idle draw"):
        _joules("h100-sxm", power_cap="10W")
