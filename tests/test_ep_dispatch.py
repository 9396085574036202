"""How a training plan moves MoE tokens across expert-parallel ranks: node-deduplicated dispatch
(plan ``ep_deepep``: DeepEP's normal kernels, Megatron-Core's flex dispatcher) and the all-to-all
hidden under another micro-batch's compute (plan ``ep_overlap``: Megatron-Core
``--overlap-moe-expert-parallel-comm``); their checks, the stack that states one, and the search
costing them as ``train`` does."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcost import api
from llmcost.catalog import get_hardware, get_model_config
from llmcost.collectives.grid import collective_v, deduplicated_v
from llmcost.errors import PlanError, UserError
from llmcost.model.config import from_config
from llmcost.training import _generated as G
from llmcost.training import plan as TR
from llmcost.training.base import DEDUP_DISPATCH_SMS, dedup_interference, node_limit
from llmcost.training.columns import unpaired_column

H100 = get_hardware("h100-sxm")
B200 = get_hardware("b200")
PLAN = {
    "gpus": 64,
    "ep": 32,
    "pp": 2,
    "schedule": "interleaved",
    "virtual_stages": 2,
    "distributed_optimizer": True,
    "micro_batch": 1,
    "global_batch": 256,
    "seq_len": 4096,
    "ep_imbalance": 1,
}


@pytest.fixture(scope="module")
def qwen() -> object:
    return from_config(get_model_config("qwen3-30b-a3b"), where="qwen3-30b-a3b")


def _res(spec, hw=H100, **kw) -> TR.TrainResult:
    return TR.evaluate(spec, TR.TrainPlan.from_mapping({**PLAN, **kw}), hw)


def test_overlap_and_deduplication_only_shorten_the_expert_all_to_all(qwen) -> None:
    base = _res(qwen)
    for kw in ({"ep_deepep": True}, {"ep_overlap": True}, {"ep_deepep": True, "ep_overlap": True}):
        r = _res(qwen, **kw)
        assert r.breakdown["ep_comm"] < base.breakdown["ep_comm"], kw
        assert r.step_time < base.step_time, kw
        assert r.model_flops_step == base.model_flops_step  # the same work, moved or hidden differently
        for k in ("compute_fwd", "compute_bwd"):
            assert r.breakdown[k] == base.breakdown[k]


def test_deduplication_sends_each_token_once_per_node() -> None:
    """Across nodes the network carries each token once per other node it reaches, not once per
    expert: less than NCCL's all-to-all of the top-k copies; inside one node about the same."""
    tokens = 4096 * 7168 * 2.0  # DeepSeek-V3 hidden, bf16
    for ep, faster in ((32, True), (8, False)):
        gpn = np.array([8])
        ded = deduplicated_v(B200, np.array([tokens]), np.array([ep]), gpn, 8, 4)[0]
        a2a = collective_v(B200, "all_to_all", np.array([tokens * 8]), np.array([ep]), gpn)[0]
        assert ded > 0
        assert (ded < 0.6 * a2a) if faster else (0.5 * a2a < ded < 1.5 * a2a)


def test_a_fully_unpaired_schedule_exposes_everything() -> None:
    """``ep__overlap`` at u = 1 is ``ep__all_to_all``; at u = 0 only the excess over the compute (or
    the SMs the kernels hold) remains."""
    t, n_f = 3e-3, 1
    assert G.ep__overlap(n_f, 0.15, t, 1.0, 1.0) == G.ep__all_to_all(n_f, t)
    assert G.ep__overlap(n_f, 0.15, t, 1.0, 0.0) == pytest.approx(0.15 * 2 * t)
    assert G.ep__overlap(n_f, 0.15, t, 1e-3, 0.0) == pytest.approx(2 * t - 1e-3)


def test_unpaired_share_follows_the_schedule() -> None:
    on = np.array([1])
    # pp 1: only the first forward and the last backward run alone (1/m)
    assert unpaired_column(on, 8, 1, 1, 64)[0] == round(1e6 / 64)
    # interleaved: the first rank's warm-up, 2(p-1) + (v-1)p chunk steps of m*v
    assert unpaired_column(on, 32, 8, 2, 128)[0] == round(1e6 * 22 / 256)
    assert unpaired_column(on, 1, 8, 2, 128)[0] == 0  # no expert parallelism: nothing to hide
    assert unpaired_column(np.array([0]), 32, 8, 2, 128)[0] == 0


@settings(max_examples=12, deadline=None)
@given(mb=st.sampled_from([1, 2]), v=st.sampled_from([2, 4, 6]), deepep=st.booleans())
def test_overlap_is_never_slower(qwen, mb: int, v: int, deepep: bool) -> None:
    kw = {"micro_batch": mb, "virtual_stages": v, "ep_deepep": deepep}
    a, b = _res(qwen, **kw), _res(qwen, ep_overlap=True, **kw)
    assert b.step_time <= a.step_time
    assert 0 < a.mfu <= b.mfu <= 1


def test_deepep_interference_is_the_measured_gemm_loss() -> None:
    """An overlapped DeepEP dispatch costs the GEMMs under it 20% on an H100 (the MoE report's
    measurement), more than the share of SMs it holds; on another device the loss scales with the
    share of its SMs the 20 are; a device without an SM count prices none."""
    h100, b200 = get_hardware("h100-sxm"), get_hardware("b200")
    assert dedup_interference(h100) == pytest.approx(0.20)
    assert dedup_interference(h100) > h100.sm_share(DEDUP_DISPATCH_SMS)
    assert dedup_interference(b200) == pytest.approx(0.20 * 132 / 148)
    assert dedup_interference(get_hardware("mi300x")) == 0.0


def test_group_limited_routing_bounds_the_nodes() -> None:
    v3 = from_config(get_model_config("deepseek-v3"), where="deepseek-v3")
    assert node_limit(v3) == 4  # topk_group 4 of n_group 8
    assert node_limit(from_config(get_model_config("qwen3-30b-a3b"), where="q")) == float("inf")


@pytest.mark.parametrize(
    ("kw", "needle"),
    [
        ({"ep": 1, "pp": 1, "schedule": "1f1b", "virtual_stages": None}, "needs ep > 1"),
        ({"recompute": "full"}, "full recomputation"),
        ({"schedule": "1f1b", "virtual_stages": None}, "interleaved schedule"),
    ],
)
def test_overlap_where_megatron_core_refuses_it_is_refused(qwen, kw, needle) -> None:
    with pytest.raises(PlanError, match=needle):
        _res(qwen, ep_overlap=True, **kw)


def test_the_automodel_stack_dispatches_through_deepep_in_train_and_search() -> None:
    common = {"gpus": 8, "ep": 8, "zero": 3, "micro_batch": 1, "global_batch": 8, "seq_len": 4096}
    alone = api.train("qwen3-30b-a3b", "h100-sxm", plan={**common, "stack": "nemo-automodel"})
    assert alone.as_dict()["plan"]["ep_deepep"] is True
    rep = api.search_train(
        "qwen3-30b-a3b", "h100-sxm", gpus=8, ep=8, global_batch=8, seq_len=4096, stack="nemo-automodel", top=3
    )
    for p in rep.result.plans:
        assert p["plan"].get("ep_deepep") is True
        again = api.train("qwen3-30b-a3b", "h100-sxm", plan=p["plan"])
        assert again.metrics()["iteration_time_s"] == p["metrics"]["iteration_time_s"]


def test_search_costs_overlap_and_deduplication_as_train_does() -> None:
    """A plan-wide ``--ep-deepep --ep-overlap`` search: each ranked plan, costed alone, gives the
    same step bit for bit, and reports ``ep_overlap`` only where the row can run it."""
    rep = api.search_train(
        "qwen3-30b-a3b",
        "h100-sxm",
        gpus=32,
        global_batch=256,
        seq_len=4096,
        ep_imbalance=1.0,
        ep_deepep=True,
        ep_overlap=True,
        top=6,
    )
    assert rep.result.plans
    for p in rep.result.plans:
        plan = p["plan"]
        assert plan["ep_deepep"] is True
        runs = plan["ep"] > 1 and plan["recompute"] != "full"
        runs &= plan["pp"] == 1 or plan["schedule"] == "interleaved"
        assert plan.get("ep_overlap", False) == runs
        alone = api.train("qwen3-30b-a3b", "h100-sxm", plan=plan)
        assert alone.metrics()["iteration_time_s"] == p["metrics"]["iteration_time_s"]


def test_a_non_boolean_search_flag_is_refused() -> None:
    with pytest.raises(UserError, match="ep_overlap must be true or false"):
        api.search_train("qwen3-30b-a3b", "h100-sxm", gpus=8, global_batch=8, seq_len=4096, ep_overlap="yes")
