"""The routed experts' tensor-parallel degree (plan key ``expert_tp``): ``tp``, Megatron-Core's
default, or 1 (Parallel Folding: whole experts, EP across the TP ranks); what each holds, reduces
and allows, the key's checks, and the emitted launch."""

from __future__ import annotations

import pytest

from llmcost import api
from llmcost.catalog import get_hardware, get_model_config
from llmcost.errors import PlanError
from llmcost.model.config import from_config
from llmcost.training import plan as TR

H100 = get_hardware("h100-sxm")
PLAN = {
    "gpus": 256,
    "tp": 2,
    "pp": 8,
    "ep": 16,
    "distributed_optimizer": True,
    "micro_batch": 1,
    "global_batch": 2048,
    "seq_len": 4096,
    "recompute": "full",
}


@pytest.fixture(scope="module")
def qwen() -> object:
    return from_config(get_model_config("qwen3-235b-a22b"), where="qwen3-235b-a22b")


def _res(spec: object, **kw: object) -> TR.TrainResult:
    return TR.evaluate(spec, TR.TrainPlan.from_mapping({**PLAN, **kw}), H100)


def test_the_default_shards_experts_over_the_tp_ranks(qwen) -> None:
    a, b = _res(qwen), _res(qwen, expert_tp=2)
    assert (a.step_time, a.memory) == (b.step_time, b.memory)
    cols = TR.plan_columns(TR.check(qwen, TR.TrainPlan.from_mapping(PLAN), H100))
    assert int(cols["etp"][0]) == 2


def test_whole_experts_hold_tp_times_the_weights_and_reduce_over_tp_times_the_ranks(qwen) -> None:
    """Megatron-Core parallel_state.py: expert data parallel = world / (ETP x EP x PP); each rank of
    an ETP 1 grid holds its experts whole."""
    sharded, whole = _res(qwen), _res(qwen, expert_tp=1)
    # the expert share of the weights doubles, the dense share does not
    assert sharded.memory["weights"] < whole.memory["weights"] < 2 * sharded.memory["weights"]
    assert whole.model_flops_step == sharded.model_flops_step
    lay = TR.check(qwen, TR.TrainPlan.from_mapping({**PLAN, "expert_tp": 1}), H100)
    from llmcost.training.columns import plans

    p = plans(H100, TR.plan_columns(lay), lay.seq, lay.global_batch, None)
    assert int(p.exp_dp[0]) == 2 * 16 // 16  # tp x dp / ep: 2 x 16 / 16


def test_folding_lets_ep_span_the_tp_ranks(qwen) -> None:
    """The MoE report's Qwen3-235B H100 run: TP 2, PP 8, EP 32 on 256 GPUs, DP 16."""
    kw = {"ep": 32}
    with pytest.raises(PlanError, match="with expert_tp 1 .* ep must divide tp\\*dp\\*cp"):
        _res(qwen, **kw)
    r = _res(qwen, expert_tp=1, **kw)
    assert 0 < r.mfu <= 1


@pytest.mark.parametrize(
    ("kw", "says"),
    [
        ({"expert_tp": 3}, "1 .* or tp = 2"),
        ({"expert_tp": 1, "ep": 1}, "needs expert parallelism"),
        ({"expert_tp": True}, "got True"),
    ],
)
def test_bad_expert_tp_is_refused(qwen, kw: dict, says: str) -> None:
    with pytest.raises(PlanError, match=says):
        _res(qwen, **kw)


def test_the_plan_echoes_and_emits_it() -> None:
    kw = {k: v for k, v in PLAN.items() if k != "gpus"}
    rep = api.train("qwen3-235b-a22b", "h100-sxm", None, gpus=256, expert_tp=1, **kw)
    plan = rep.as_dict()["plan"]
    assert plan["expert_tp"] == 1
    assert "--expert-tensor-parallel-size 1" in api.emit(rep, "megatron")
    again = api.train("qwen3-235b-a22b", "h100-sxm", None, **{k: v for k, v in plan.items() if k != "stack"})
    assert again.result.step_time == rep.result.step_time
    plain = api.train("qwen3-235b-a22b", "h100-sxm", None, gpus=256, **kw)
    assert "expert_tp" not in plain.as_dict()["plan"]


def test_the_search_folds_the_experts_when_asked_as_train_does() -> None:
    kw = {"gpus": 256, "global_batch": 2048, "seq_len": 4096, "tp": "2", "pp": "8", "precision": "bf16"}
    found = api.search_train("qwen3-235b-a22b", "h100-sxm", expert_tp="1", ep="32", **kw)
    top = found.plans[0]["plan"]
    assert (top["ep"], top["expert_tp"]) == (32, 1)  # EP 32 over TP 2 x DP 16: folded only
    one = api.train("qwen3-235b-a22b", "h100-sxm", None, **{k: v for k, v in top.items() if k != "stack"})
    assert found.plans[0]["metrics"]["iteration_time_s"] == one.result.step_time
    with pytest.raises(Exception, match="ep"):
        api.search_train("qwen3-235b-a22b", "h100-sxm", ep="32", **kw)  # sharded experts: ep | dp*cp
    with pytest.raises(Exception, match="--expert-tp must be 1"):
        api.search_train("qwen3-235b-a22b", "h100-sxm", expert_tp="2", **kw)
