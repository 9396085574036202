"""Multi-token-prediction modules in training (plan key ``mtp_layers``): one more layer of the last
layer's kind on the last stage plus the module's projection, head and loss, counted in the model
FLOPs as Megatron-LM counts them; the key's checks; the search and the single plan agree."""

from __future__ import annotations

import pytest

from llmcost import api
from llmcost.catalog import get_hardware, get_model_config
from llmcost.errors import PlanError
from llmcost.model.config import from_config
from llmcost.training import plan as TR
from llmcost.training.base import with_mtp
from llmcost.training.compute import model_flops_per_token

H100 = get_hardware("h100-sxm")
PLAN = {
    "gpus": 256,
    "pp": 4,
    "ep": 64,
    "distributed_optimizer": True,
    "micro_batch": 1,
    "global_batch": 1024,
    "seq_len": 4096,
    "precision": "fp8",
    "recompute": "full",
}


@pytest.fixture(scope="module")
def dsv3() -> object:
    return from_config(get_model_config("deepseek-v3"), where="deepseek-v3")


def _res(spec: object, **kw: object) -> TR.TrainResult:
    return TR.evaluate(spec, TR.TrainPlan.from_mapping({**PLAN, **kw}), H100)


def test_no_mtp_is_the_plain_model(dsv3) -> None:
    a, b = _res(dsv3), _res(dsv3, mtp_layers=0)
    assert (a.step_time, a.model_flops_step, a.memory) == (b.step_time, b.model_flops_step, b.memory)
    assert with_mtp(dsv3, 0) is dsv3


def test_an_mtp_module_is_one_more_moe_layer_with_its_projection_and_head(dsv3) -> None:
    """Megatron-LM training.py num_floating_point_operations: per MTP layer one more layer of the
    last layer's kind, 2h² of eh_proj and one more logit GEMM (x 3 for forward and backward)."""
    spec1 = with_mtp(dsv3, 1)
    assert spec1.num_layers == dsv3.num_layers + 1 and spec1.num_layers - 1 in spec1.moe_layers
    assert with_mtp(spec1, 1) is spec1
    a, b = _res(dsv3), _res(dsv3, mtp_layers=1)
    h, V, s = dsv3.hidden_size, dsv3.vocab_size, PLAN["seq_len"]
    per_token = model_flops_per_token(spec1, s) - model_flops_per_token(dsv3, s) + 12 * h * h + 6 * h * V
    assert b.model_flops_step - a.model_flops_step == pytest.approx(a.tokens_step * per_token, rel=1e-9)
    assert b.step_time >= a.step_time
    assert 0 < b.mfu <= 1


def test_the_breakdown_shows_the_module(dsv3) -> None:
    rows = TR.operator_rows(
        TR.operator_breakdown(dsv3, TR.TrainPlan.from_mapping({**PLAN, "mtp_layers": 1}), H100)
    )
    mtp = [r for r in rows if r["layer"].startswith("MTP module")]
    assert {r["op"] for r in mtp} >= {"mtp_eh_proj", "lm_head", "cross_entropy"}


@pytest.mark.parametrize(
    ("value", "says"), [(-1, ">= 0"), (True, ">= 0"), (1.5, ">= 0"), (10**6, "at most the model's 61")]
)
def test_bad_mtp_layers_are_refused(dsv3, value: object, says: str) -> None:
    with pytest.raises(PlanError, match=says):
        _res(dsv3, mtp_layers=value)


def test_encoder_decoder_models_train_no_mtp() -> None:
    t5 = from_config(get_model_config("t5-11b"), where="t5-11b")
    plan = TR.TrainPlan.from_mapping({"gpus": 8, "mtp_layers": 1, "global_batch": 8, "seq_len": 512})
    with pytest.raises(PlanError, match="encoder-decoder"):
        TR.check(t5, plan, H100)


def test_plan_echo_emit_and_search_agree() -> None:
    kw = {k: v for k, v in PLAN.items() if k != "gpus"}
    rep = api.train("deepseek-v3", "h100-sxm", None, gpus=256, mtp_layers=1, **kw)
    plan = rep.as_dict()["plan"]
    assert plan["mtp_layers"] == 1
    assert "--mtp-num-layers 1" in api.emit(rep, "megatron")
    for other in ("nemo", "torchtitan"):  # no setting there: said, not dropped
        assert "mtp_layers 1: a Megatron-Core setting with no" in api.emit(rep, other)
    again = api.train("deepseek-v3", "h100-sxm", None, **{k: v for k, v in plan.items() if k != "stack"})
    assert again.result.step_time == rep.result.step_time
    found = api.search_train(
        "deepseek-v3", "h100-sxm", gpus=256, global_batch=1024, seq_len=4096, pp="4", ep="64", tp="1",
        micro_batch="1", recompute="full", zero="distopt", precision="fp8", schedule="1f1b", mtp_layers=1,
    )  # fmt: skip
    top = found.plans[0]["plan"]
    assert top["mtp_layers"] == 1
    one = api.train("deepseek-v3", "h100-sxm", None, **{k: v for k, v in top.items() if k != "stack"})
    assert found.plans[0]["metrics"]["iteration_time_s"] == one.result.step_time


def test_layout_strings_parse_as_megatron_core_parses_them() -> None:
    """pipeline_parallel_layer_layout.py's docstring example, 'Ettt|(tt|)*29,m|L'."""
    from llmcost.training.base import parse_pp_layout

    assert parse_pp_layout("Ettt|(tt|)*29,m|L") == ["Ettt", *["tt"] * 29, "m", "L"]
    assert parse_pp_layout("Et*4|(t*4|)*2tmL") == ["Etttt", "tttt", "tttt", "tmL"]


def test_a_layout_places_chunks_round_robin_and_an_even_one_changes_nothing() -> None:
    llama = from_config(get_model_config("llama-3.1-8b"), where="llama-3.1-8b")
    plan = {"gpus": 4, "pp": 4, "micro_batch": 1, "global_batch": 16, "seq_len": 4096}
    even = TR.evaluate(llama, TR.TrainPlan.from_mapping(plan), H100)
    same = TR.evaluate(llama, TR.TrainPlan.from_mapping({**plan, "pp_layout": "Et*8|t*8|t*8|t*8L"}), H100)
    assert (even.step_time, even.memory) == (same.step_time, same.memory)
    lop = TR.evaluate(llama, TR.TrainPlan.from_mapping({**plan, "pp_layout": "Et*5|t*9|t*9|t*9L"}), H100)
    assert [len(s) for s in lop.layout.stage_layers] == [5, 9, 9, 9]
    assert lop.step_time > even.step_time  # the busiest stage holds 9 layers
    inter = {**plan, "schedule": "interleaved", "virtual_stages": 2, "pp_layout": "Et*4|(t*4|)*6tttt L"}
    r = TR.evaluate(llama, TR.TrainPlan.from_mapping(inter), H100)
    assert r.layout.stage_layers[0] == [0, 1, 2, 3, 16, 17, 18, 19]  # chunks 0 and 4 on stage 0


def test_a_layout_may_give_the_embedding_and_the_loss_a_chunk_each() -> None:
    """Megatron-Core's account_for_embedding / loss_in_pipeline_split: 16 layers over pp 2 x 9
    virtual stages is refused as an even split, accepted when the layout gives the embedding and
    the loss a chunk each (E|(t|)*16L: 18 chunks)."""
    llama = from_config(get_model_config("llama-3.2-1b"), where="llama-3.2-1b")
    assert llama.num_layers == 16
    plan = {"gpus": 2, "pp": 2, "schedule": "interleaved", "virtual_stages": 9, "micro_batch": 1}
    plan = {**plan, "global_batch": 18, "seq_len": 2048}
    with pytest.raises(PlanError, match="cannot fill pp\\*v = 18 pipeline chunks"):
        TR.evaluate(llama, TR.TrainPlan.from_mapping(plan), H100)
    r = TR.evaluate(llama, TR.TrainPlan.from_mapping({**plan, "pp_layout": "E|(t|)*16L"}), H100)
    assert [len(s) for s in r.layout.stage_layers] == [8, 8]


def test_the_mtp_module_runs_its_head_where_the_layout_puts_it(dsv3) -> None:
    """Megatron-Core MoE report §9.2.2's H100 layout: the MTP layer alone on rank 6, the loss on 7."""
    kw = {
        **PLAN,
        "gpus": 1024,
        "tp": 2,
        "pp": 8,
        "schedule": "interleaved",
        "virtual_stages": 4,
        "mtp_layers": 1,
    }
    r = TR.evaluate(dsv3, TR.TrainPlan.from_mapping({**kw, "pp_layout": "Et*3|(tt|)*29m|L"}), H100)
    stages = r.layout.stage_layers
    assert 61 in stages[6] and [len(s) for s in stages] == [9, 8, 8, 8, 8, 8, 7, 6]


@pytest.mark.parametrize(
    ("layout", "says"),
    [
        ("Et*4|(t*4|)*14tL", "0 MTP modules m"),
        ("Et*4|(t*4|)*14tmLx", "symbol 'x'"),
        ("t*4|(t*4|)*14tmLE", "the embedding E once, first"),
        ("Et*4|(t*4|)*13tmL", "15 chunks"),
        ("Et*3|(t*4|)*14tmL", "60 decoder layers"),
        ("Et*4|(t*4|)*14mtL", "MTP modules m after every decoder layer"),
        ("E(t*5)*99999999999L", "unrolls to more than"),
    ],
)
def test_bad_layouts_are_refused_with_the_reason(dsv3, layout: str, says: str) -> None:
    with pytest.raises(PlanError, match=says):
        _res(dsv3, pp=8, ep=32, schedule="interleaved", virtual_stages=2, mtp_layers=1, pp_layout=layout)
