"""Draw by kind of work, power caps and PUE (llmcost.economics.power)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llmcost import api
from llmcost.catalog import get_hardware
from llmcost.economics.power import cap_of, clock_share, pue_of
from llmcost.errors import CatalogError, UserError


def _joules(hw: str, **kw: object) -> tuple[float, object]:
    rep = api.infer("llama-3.1-8b", hw, None, batch=32, **kw)
    return rep.result.metrics()["joules_per_output_token"], rep.result


def test_parse_pue() -> None:
    assert pue_of(None) == 1.0 and pue_of(1.2) == 1.2
    for bad in (0.5, True, "x", 11):
        with pytest.raises(UserError):
            pue_of(bad)


def test_no_figures_keeps_tdp_bound() -> None:
    j, r = _joules("b200")
    assert r.draw is None  # type: ignore[attr-defined]
    assert j == pytest.approx(r.gpus * r.tdp / r.metrics()["output_tokens_per_s"])  # type: ignore[attr-defined]


def test_memory_draw_lowers_energy_and_pue() -> None:
    j, r = _joules("h200-sxm")
    assert 300 < r.draw < 700  # type: ignore[attr-defined,operator]
    j_pue, _ = _joules("h200-sxm", pue=1.5)
    assert j_pue == pytest.approx(1.5 * j)


def _train(hw: str, **kw: object) -> object:
    return api.train("llama-3.2-1b", hw, None, **{"gpus": 1, "seq_len": 2048, **kw}).result


def test_cap_parsing_and_errors() -> None:
    assert cap_of(None) is None and cap_of("400W") == 400.0 and cap_of(250) == 250.0
    for bad in ("fast", True, -5, "0 W"):
        with pytest.raises(UserError):
            cap_of(bad)
    with pytest.raises(UserError, match="static draw"):  # at or below the draw no clock can go under
        _train("a100-pcie-80gb", power_cap="100W")
    with pytest.raises(UserError, match="static_w or power.idle_w"):  # nothing to anchor the curve on
        _joules("b200", power_cap="500W")


def test_cap_at_or_above_the_compute_draw_changes_nothing() -> None:
    base, capped = _train("a100-pcie-80gb"), _train("a100-pcie-80gb", power_cap="300W")
    assert capped.step_time == base.step_time and capped.row["mean_draw_w"] == base.row["mean_draw_w"]


def test_cap_slows_compute_saves_energy_and_keeps_mfu_peak() -> None:
    base, capped = _train("a100-pcie-80gb"), _train("a100-pcie-80gb", power_cap="250W")
    x = clock_share(get_hardware("a100-pcie-80gb"), 250.0)
    assert 0.85 < x < 0.95
    assert base.step_time < capped.step_time <= base.step_time / x * (1 + 1e-9)
    energy = [r.row["mean_draw_w"] * r.step_time for r in (base, capped)]
    assert energy[1] < energy[0]
    assert capped.peak == base.peak  # MFU stays over the datasheet peak
    assert any("power cap 250 W" in n for n in capped.notes)


def test_cap_spares_memory_bound_decode() -> None:
    """Decode at batch 1 is memory-bound: the cap stretches the prefill, not the decode step."""
    kw = dict(batch=1, prompt_len=4096, output_len=128)
    base = api.infer("llama-3.1-8b", "a100-sxm4-80gb", None, **kw).result
    capped = api.infer("llama-3.1-8b", "a100-sxm4-80gb", None, power_cap="250W", **kw).result
    assert capped.ttft > 1.05 * base.ttft
    assert capped.tpot == pytest.approx(base.tpot, rel=0.02)


@given(st.floats(min_value=115.0, max_value=1000.0), st.floats(min_value=115.0, max_value=1000.0))
def test_capped_clock_is_monotone_and_bounded(a: float, b: float) -> None:
    hw = get_hardware("a100-sxm4-80gb")
    xa, xb = clock_share(hw, a), clock_share(hw, b)
    assert 0.0 < xa <= 1.0 and 0.0 < xb <= 1.0
    assert (xa <= xb) if a <= b else (xa >= xb)


def test_train_energy_is_mean_draw_by_kind() -> None:
    r = _train("b200")  # no power figures: every kind at the TDP
    assert r.row["mean_draw_w"] == pytest.approx(get_hardware("b200").tdp)
    r = _train("h100-sxm", gpus=8, dp=8, zero=1)  # idle_w only: exposed communication below the TDP
    assert r.row["mean_draw_w"] <= 700.0
    out = api.train("llama-3.2-1b", "h100-sxm", None, gpus=1, seq_len=2048, pue=1.25, tokens="1B").as_dict()
    plain = api.train("llama-3.2-1b", "h100-sxm", None, gpus=1, seq_len=2048, tokens="1B").as_dict()
    assert out["energy_j"] == pytest.approx(1.25 * plain["energy_j"])


def test_static_draw_must_be_below_the_compute_draw() -> None:
    hw = get_hardware("a100-pcie-80gb")
    with pytest.raises(CatalogError, match="static_w"):
        hw.with_overrides({"power": {"static_w": {"value": 300, "source": "x"}}})


def test_unified_memory_streams_weights_from_storage() -> None:
    """An Apple laptop has no host link: NVMe reads land in the unified memory at the SSD's rate."""
    r = api.infer(
        "llama-3.1-8b", "macbook-pro-m1-max", None, batch=1, prompt_len=64, output_len=8,
        weights="fp16", activations="fp16", kv_cache="fp16", weights_tier="nvme",
    ).result  # fmt: skip
    assert r.tpot >= 13.9e9 / 7.4e9  # every decode step reads the 13.96 GB of layer weights from the SSD


def test_search_train_under_a_power_cap_recosts_bit_for_bit() -> None:
    """``search train --power-cap``: every plan is costed on the capped device, carries ``power_cap``,
    and ``train`` of that plan gives the same figures; capped plans are slower than uncapped ones."""
    import llmcost

    keys = dict(gpus=16, global_batch=64, seq_len=2048, top=3)
    capped_res = llmcost.search_train("llama-3.1-8b", "a100-sxm4-80gb", power_cap="300W", **keys)
    plain = llmcost.search_train("llama-3.1-8b", "a100-sxm4-80gb", **keys)
    assert any(n.startswith("power cap 300 W") for n in capped_res.notes)
    best = capped_res.plans[0]
    assert best["plan"]["power_cap"] == 300.0
    assert best["metrics"]["iteration_time_s"] > plain.plans[0]["metrics"]["iteration_time_s"]
    for row in capped_res.plans:
        again = llmcost.train("llama-3.1-8b", "a100-sxm4-80gb", row["plan"]).as_dict()
        for k in ("iteration_time_s", "memory_gib_per_gpu", "mfu"):
            assert again[k] == row["metrics"][k]


def test_search_infer_under_a_power_cap_recosts_the_same() -> None:
    """``search infer --power-cap``: rows carry ``power_cap``, the note says what it did, and ``infer``
    of a row gives its throughput bit for bit; the cap never speeds a plan up."""
    import llmcost

    capped_res = llmcost.search_infer("llama-3.1-8b", "h100-sxm", gpus=1, top=2, power_cap="400W")
    plain = llmcost.search_infer("llama-3.1-8b", "h100-sxm", gpus=1, top=2)
    assert any(n.startswith("power cap 400 W") for n in capped_res.notes)
    key = "output_tokens_per_s_per_gpu"
    assert capped_res.plans[0]["metrics"][key] <= plain.plans[0]["metrics"][key]
    for row in capped_res.plans:
        assert row["plan"]["power_cap"] == 400.0
        again = llmcost.infer("llama-3.1-8b", row["hardware"], row["plan"]).as_dict()
        assert again[key] == row["metrics"][key]
