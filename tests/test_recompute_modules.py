"""Megatron-Core's fine-grained recomputation (plan key ``recompute_modules``): the default is the
attention core, each module trades stored activations for recomputed forward time on the layers it
applies to, a recomputed MoE block dispatches again, the key's checks, and the emitted launch."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcost import api
from llmcost.catalog import get_hardware, get_model_config
from llmcost.errors import PlanError
from llmcost.model.config import from_config
from llmcost.training import plan as TR
from llmcost.training.recompute import RECOMPUTE_MODULES

H100 = get_hardware("h100-sxm")
DSV3 = {
    "gpus": 1024,
    "tp": 2,
    "pp": 8,
    "ep": 64,
    "distributed_optimizer": True,
    "micro_batch": 1,
    "global_batch": 8192,
    "seq_len": 4096,
    "precision": "fp8",
    "recompute": "selective",
}


def _spec(name: str) -> object:
    return from_config(get_model_config(name), where=name)


@pytest.fixture(scope="module")
def dsv3() -> object:
    return _spec("deepseek-v3")


def _res(spec: object, plan: dict, **kw: object) -> TR.TrainResult:
    return TR.evaluate(spec, TR.TrainPlan.from_mapping({**plan, **kw}), H100)


def _acts(r: TR.TrainResult) -> float:
    return r.memory["activations"]


def test_selective_recomputes_the_attention_core_unless_told_otherwise(dsv3) -> None:
    plain, named = _res(dsv3, DSV3), _res(dsv3, DSV3, recompute_modules=["core_attn"])
    assert plain.step_time == named.step_time and plain.memory == named.memory  # bit for bit
    nothing = _res(dsv3, DSV3, recompute_modules=[])
    assert nothing.breakdown.get("compute_recompute", 0.0) == 0.0
    assert _acts(nothing) > _acts(plain)  # FlashAttention's log-sum-exp is stored again


@pytest.mark.parametrize("module", ["layernorm", "moe_act", "mla_up_proj", "mlp", "shared_experts", "moe"])
def test_each_module_stores_less_and_recomputes_more(dsv3, module: str) -> None:
    none = _res(dsv3, DSV3, recompute_modules=[])
    one = _res(dsv3, DSV3, recompute_modules=[module])
    assert _acts(one) < _acts(none)
    assert one.hw_flops_step >= none.hw_flops_step
    assert one.model_flops_step == none.model_flops_step  # MFU counts no recomputation
    assert one.mfu <= 1


def test_a_recomputed_moe_block_dispatches_and_combines_again(dsv3) -> None:
    none = _res(dsv3, DSV3, recompute_modules=[])
    moe = _res(dsv3, DSV3, recompute_modules=["moe"])
    assert moe.breakdown["ep_comm"] == pytest.approx(1.5 * none.breakdown["ep_comm"], rel=1e-9)
    act = _res(dsv3, DSV3, recompute_modules=["moe_act"])
    assert act.breakdown["ep_comm"] == none.breakdown["ep_comm"]  # output-discarding: no dispatch


def test_mla_up_proj_frees_the_up_projected_query_key_and_value(dsv3) -> None:
    """DeepSeek-V3's Q, K and V (128 heads x 192 and 128 x 192 twice, in fp8 plans at b_a 2)
    per token and layer: b_a·(q_dim + 2·kv_dim)/t·s·b bytes less per stored layer-micro-batch."""
    none = _res(dsv3, DSV3, recompute_modules=[])
    up = _res(dsv3, DSV3, recompute_modules=["mla_up_proj"])
    per_layer = 2 * (128 * 192 + 2 * 128 * 192) / 2 * 4096
    saved = _acts(none) - _acts(up)
    assert saved / per_layer == pytest.approx(round(saved / per_layer), rel=1e-9)  # whole layer-micro-batches


@settings(max_examples=20, deadline=None)
@given(st.sets(st.sampled_from(RECOMPUTE_MODULES)), st.sets(st.sampled_from(RECOMPUTE_MODULES)))
def test_more_modules_never_store_more_or_recompute_less(a: set, b: set) -> None:
    spec = _spec("deepseek-v3")
    small, big = (
        _res(spec, DSV3, recompute_modules=sorted(a)),
        _res(spec, DSV3, recompute_modules=sorted(a | b)),
    )
    assert _acts(big) <= _acts(small) * (1 + 1e-12)
    assert big.hw_flops_step >= small.hw_flops_step * (1 - 1e-12)
    assert big.step_time >= small.step_time * (1 - 1e-12)


def test_dense_gqa_layers_have_no_separate_norm_to_recompute() -> None:
    """Transformer Engine fuses a GQA layer's input norm into its QKV GEMM and a dense layer has no
    separate pre-MLP norm (Megatron-Core's layer spec): ``layernorm`` changes nothing there."""
    llama = _spec("llama-3.1-8b")
    plan = {
        "gpus": 8,
        "distributed_optimizer": True,
        "micro_batch": 1,
        "global_batch": 8,
        "recompute": "selective",
    }
    a, b = (
        _res(llama, plan, recompute_modules=["core_attn"]),
        _res(llama, plan, recompute_modules=["core_attn", "layernorm"]),
    )
    assert (a.step_time, a.memory) == (b.step_time, b.memory)
    mlp = _res(llama, plan, recompute_modules=["core_attn", "mlp"])
    assert _acts(mlp) < _acts(a) and mlp.breakdown["compute_recompute"] > a.breakdown["compute_recompute"]


@pytest.mark.parametrize(
    ("model", "kw", "says"),
    [
        ("deepseek-v3", {"recompute_modules": ["layernrm"]}, "did you mean 'layernorm'"),
        ("deepseek-v3", {"recompute_modules": "moe_act"}, "must be a list"),
        ("deepseek-v3", {"recompute": "full", "recompute_modules": ["moe_act"]}, "needs recompute selective"),
        ("llama-3.1-8b", {"recompute_modules": ["moe_act"]}, "needs a model with MoE layers"),
        ("llama-3.1-8b", {"recompute_modules": ["mla_up_proj"]}, "needs a model with MLA attention"),
        ("qwen3-30b-a3b", {"recompute_modules": ["shared_experts"]}, "needs shared experts"),
    ],
)
def test_bad_modules_are_refused_with_the_reason(model: str, kw: dict, says: str) -> None:
    plan = {"gpus": 8, "ep": 8 if model != "llama-3.1-8b" else 1, "distributed_optimizer": True,
            "recompute": "selective", "global_batch": 8, "seq_len": 1024, **kw}  # fmt: skip
    with pytest.raises(PlanError, match=says):
        TR.check(_spec(model), TR.TrainPlan.from_mapping(plan), H100)


def test_the_plan_echoes_its_modules_and_emits_them_for_megatron() -> None:
    kw = {k: v for k, v in DSV3.items() if k != "gpus"}
    rep = api.train(
        "deepseek-v3", "h100-sxm", None, gpus=1024, recompute_modules=["mla_up_proj", "mlp"], **kw
    )
    plan = rep.as_dict()["plan"]
    assert plan["recompute_modules"] == ["mla_up_proj", "mlp"]
    again = api.train("deepseek-v3", "h100-sxm", None, **{k: v for k, v in plan.items() if k != "stack"})
    assert again.result.step_time == rep.result.step_time
    assert "--recompute-modules mla_up_proj mlp" in api.emit(rep, "megatron")
    plain = api.train("deepseek-v3", "h100-sxm", None, gpus=1024, **kw)
    assert "recompute_modules" not in plain.as_dict()["plan"]


def test_search_and_single_plan_agree_on_plain_selective() -> None:
    """The search costs selective recomputation as the attention core (``rcm`` = core_attn), as a
    plan without ``recompute_modules`` does."""
    spec = _spec("llama-3.1-8b")
    for tp, rc in itertools.product((1, 2), ("selective", "none")):
        plan = {"gpus": 8, "tp": tp, "distributed_optimizer": True, "global_batch": 8, "recompute": rc}
        cols = TR.plan_columns(TR.check(spec, TR.TrainPlan.from_mapping(plan), H100))
        assert int(cols["rcm"][0]) == (1 if rc == "selective" else 0)


def test_the_search_recomputes_the_modules_it_is_given_as_train_does() -> None:
    found = api.search_train(
        "deepseek-v3", "h100-sxm", gpus=1024, global_batch=8192, seq_len=4096, tp="2", pp="8", ep="64",
        micro_batch="1", recompute="selective", zero="distopt", precision="fp8", schedule="1f1b",
        recompute_modules="mla_up_proj,mlp",
    )  # fmt: skip
    top = found.plans[0]["plan"]
    assert top["recompute_modules"] == ["mla_up_proj", "mlp"]
    one = api.train("deepseek-v3", "h100-sxm", None, **{k: v for k, v in top.items() if k != "stack"})
    assert found.plans[0]["metrics"]["iteration_time_s"] == one.result.step_time
    with pytest.raises(PlanError, match="did you mean 'moe_act'"):
        api.search_train("deepseek-v3", "h100-sxm", gpus=1024, global_batch=8192, recompute_modules="moe_ac")
