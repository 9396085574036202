"""The board power limit by the step's mix of work (catalog ``throttle``, ``economics.power.sustained_rate``,
training formula ``throttle``): the rate's bounds and direction, and the step it adds to stays physical:
more HBM or network bandwidth never makes a step slower, and the limit never makes one faster."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcost.catalog import get_hardware, get_model_config
from llmcost.economics.power import sustained_rate, throttle_draws
from llmcost.errors import CatalogError
from llmcost.model.config import from_config
from llmcost.training.plan import TrainPlan, evaluate

H100 = get_hardware("h100-sxm")
SPEC = from_config(get_model_config("llama-3.1-8b"), where="llama-3.1-8b")


@given(st.floats(0.0, 10.0), st.floats(0.0, 10.0), st.floats(0.0, 10.0), st.floats(0.0, 5.0))
def test_rate_is_bounded_and_falls_with_compute(t_cb: float, t_mb: float, t_wait: float, more: float) -> None:
    """κ in (0, 1]; more compute-bound time (the rest unchanged) never raises it; no time: 1."""
    k = float(sustained_rate(H100, t_cb, t_mb, t_wait))
    k_more = float(sustained_rate(H100, t_cb + more, t_mb, t_wait))
    assert 0.0 < k_more <= k * (1 + 1e-12) and k <= 1.0  # equal (to rounding) when the step is all compute


def test_no_figures_no_throttle_and_the_limit_reached() -> None:
    """A device without ``throttle`` figures runs unthrottled; a step of compute-bound work only runs
    at ``(compute_w / limit)^-exponent``; one of waiting only at 1."""
    assert float(sustained_rate(get_hardware("mi300x"), 1.0, 0.0, 0.0)) == 1.0
    d, a = throttle_draws(H100), H100.throttle["exponent"]
    assert float(sustained_rate(H100, 1.0, 0.0, 0.0)) == pytest.approx((d["p_cmax"] / d["p_limit"]) ** -a)
    assert float(sustained_rate(H100, 0.0, 0.0, 1.0)) == 1.0
    assert float(sustained_rate(H100, 0.0, 0.0, 0.0)) == 1.0


def _step(hw: object, **plan: object) -> float:
    base = {"gpus": 8, "dp": 8, "zero": 1, "micro_batch": 1, "global_batch": 16, "seq_len": 4096}
    return evaluate(SPEC, TrainPlan.from_mapping({**base, **plan}), hw).step_time


@settings(max_examples=20, deadline=None)
@given(
    st.floats(1.05, 4.0),
    st.sampled_from(["none", "selective", "full"]),
    st.sampled_from([1, 2, 4]),
    st.sampled_from([1, 2]),
)
def test_more_bandwidth_never_slower(scale: float, recompute: str, mb: int, tp: int) -> None:
    """Faster HBM or a faster network shortens the step even though the step then draws more."""
    plan = {"recompute": recompute, "micro_batch": mb, "global_batch": 16 * mb, "tp": tp, "dp": 8 // tp}
    t = _step(H100, **plan)
    faster_hbm = replace(H100, memory_bandwidth=H100.memory_bandwidth * scale)
    assert _step(faster_hbm, **plan) <= t * (1 + 1e-9)
    tiers = tuple(replace(f, bandwidth=f.bandwidth * scale) for f in H100.fabric)
    assert _step(replace(H100, fabric=tiers), **plan) <= t * (1 + 1e-9)


def test_the_limit_never_speeds_a_step() -> None:
    """The same device without throttle figures runs the step at least as fast, and the added time is
    the step's ``power_limit`` part."""
    with_limit = evaluate(
        SPEC, TrainPlan.from_mapping({"gpus": 8, "dp": 8, "zero": 1, "global_batch": 16}), H100
    )
    free = evaluate(
        SPEC,
        TrainPlan.from_mapping({"gpus": 8, "dp": 8, "zero": 1, "global_batch": 16}),
        replace(H100, throttle={}),
    )
    assert with_limit.breakdown["power_limit"] > 0.0 and free.breakdown["power_limit"] == 0.0
    assert with_limit.step_time == pytest.approx(
        free.step_time + with_limit.breakdown["power_limit"], rel=1e-9
    )
    assert np.isfinite(with_limit.row["kappa_clk"]) and 0.0 < with_limit.row["kappa_clk"] < 1.0


@pytest.mark.parametrize(
    ("section", "what"),
    [
        ({"compute_w": {"value": 900, "source": "x"}}, "throttle"),  # no exponent
        ({"compute_w": {"value": 900, "source": "x"}, "exponent": {"value": 3.0, "source": "x"}}, "throttle.exponent"),
        ({"compute_w": {"value": 900}, "exponent": {"value": 0.5, "source": "x"}}, "throttle.compute_w"),
        (
            {"compute_w": {"value": 900, "source": "x"}, "exponent": {"value": 0.5, "source": "x"},
             "wait_w": {"value": 950, "source": "x"}},
            "throttle.wait_w",
        ),
    ],
)  # fmt: skip
def test_throttle_section_is_checked(section: dict, what: str) -> None:
    """A ``throttle`` section needs compute_w and exponent, each with a source and in range."""
    import yaml

    from llmcost.hardware import hardware_from_dict

    data = yaml.safe_load(Path(H100.where).read_text())
    with pytest.raises(CatalogError, match=what.replace(".", r"\.")):
        hardware_from_dict({**data, "throttle": section}, where="test")
