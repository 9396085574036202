"""MoE load imbalance across expert-parallel ranks in training (plan key ``ep_imbalance``): the
busiest rank's expert GEMMs and all-to-all volume set the MoE layers' time, MFU counts the mean, the
key's checks and default, and the search costing a stated imbalance as ``train`` does."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcost import api
from llmcost.catalog import get_hardware, get_model_config
from llmcost.errors import PlanError
from llmcost.graph.ops import EP_IMBALANCE
from llmcost.model.config import from_config
from llmcost.training import plan as TR

H100 = get_hardware("h100-sxm")
PLAN = {
    "gpus": 64,
    "ep": 8,
    "distributed_optimizer": True,
    "micro_batch": 1,
    "global_batch": 64,
    "seq_len": 4096,
}


@pytest.fixture(scope="module")
def mixtral() -> object:
    return from_config(get_model_config("mixtral-8x7b"), where="mixtral-8x7b")


def _res(spec, **kw) -> TR.TrainResult:
    return TR.evaluate(spec, TR.TrainPlan.from_mapping({**PLAN, **kw}), H100)


def test_the_busiest_rank_sets_the_time_and_mfu_counts_the_mean(mixtral) -> None:
    even, skew = _res(mixtral, ep_imbalance=1.0), _res(mixtral, ep_imbalance=1.5)
    assert skew.step_time > even.step_time
    assert skew.model_flops_step == even.model_flops_step  # the useful work is the mean's
    assert skew.breakdown["ep_comm"] > even.breakdown["ep_comm"]  # the busiest rank's tokens move
    default = _res(mixtral)
    assert default.step_time == _res(mixtral, ep_imbalance=EP_IMBALANCE).step_time
    assert any("1.11x the mean routed tokens" in n for n in default.notes)
    dense = from_config(get_model_config("llama-3-8b"), where="llama-3-8b")
    plain = {"gpus": 8, "micro_batch": 1, "global_batch": 8, "seq_len": 4096}
    a = TR.evaluate(dense, TR.TrainPlan.from_mapping(plain), H100)
    b = TR.evaluate(dense, TR.TrainPlan.from_mapping({**plain, "ep_imbalance": 2.0}), H100)
    assert a.step_time == b.step_time  # no expert parallelism: nothing to wait for


@settings(max_examples=15, deadline=None)
@given(lo=st.floats(1.0, 2.0), extra=st.floats(0.0, 1.0))
def test_more_imbalance_is_never_faster(mixtral, lo: float, extra: float) -> None:
    a, b = _res(mixtral, ep_imbalance=lo), _res(mixtral, ep_imbalance=lo + extra)
    assert b.step_time >= a.step_time
    assert 0 < b.mfu <= a.mfu <= 1


@pytest.mark.parametrize("bad", [0.9, 0, -1, float("nan"), "x", True])
def test_bad_imbalance_is_refused(bad) -> None:
    with pytest.raises(PlanError, match="ep_imbalance must be"):
        TR.imbalance_column(bad)


def test_search_costs_a_stated_imbalance_as_train_does() -> None:
    rep = api.search_train(
        "mixtral-8x7b", "h100-sxm", gpus=64, ep=8, global_batch=64, seq_len=4096, ep_imbalance=1.3, top=3
    )
    assert any("1.3x the mean routed tokens" in n for n in rep.result.notes)
    for p in rep.result.plans:
        assert p["plan"]["ep_imbalance"] == 1.3
        alone = api.train("mixtral-8x7b", "h100-sxm", plan=p["plan"])
        assert alone.metrics()["iteration_time_s"] == p["metrics"]["iteration_time_s"]
    assert np.isfinite([p["metrics"]["mfu"] for p in rep.result.plans]).all()
