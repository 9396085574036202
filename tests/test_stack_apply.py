"""A software stack fills what a training plan does not state (attention kernel, DP / TP overlap)."""

from __future__ import annotations

import pytest

from llmcost.catalog import get_hardware
from llmcost.errors import UserError
from llmcost.training.stack import apply, parse

H100 = get_hardware("h100-sxm")
A100 = get_hardware("a100-sxm4-80gb")


def test_parse_accepts_mapping_and_name_year() -> None:
    assert parse({"framework": "torchtitan", "year": 2025}) == ("torchtitan", 2025)
    assert parse("megatron-lm:2021") == ("megatron-lm", 2021)
    assert parse("nemo") == ("nemo", None)
    assert parse(None) == (None, None)
    with pytest.raises(UserError, match="year must be an integer"):
        parse("nemo:soon")
    with pytest.raises(UserError, match="stack: expected"):
        parse(5)
    with pytest.raises(UserError, match="takes no year"):
        parse("none:2024")


def test_materialized_stack_and_no_dp_overlap() -> None:
    c = apply({"framework": "megatron-lm", "year": 2021}, {"tp": 8}, A100)
    assert c.plan["attention"] == "materialized" and c.plan["overlap_dp"] is False
    assert c.hardware is A100 and "megatron-lm" in c.note


def test_flash_stack_prices_its_kernel_family() -> None:
    c = apply({"framework": "torchtitan", "year": 2025}, {}, H100)
    assert c.plan["attention"] == "flash"
    assert c.hardware.attention_efficiency("bf16") == pytest.approx(0.35)  # FlashAttention-2 on Hopper
    assert H100.attention_efficiency("bf16") == pytest.approx(0.60)  # the catalog entry is unchanged


def test_plan_wins_over_stack() -> None:
    c = apply(
        {"framework": "torchtitan", "year": 2025}, {"attention": "materialized", "overlap_dp": False}, H100
    )
    assert c.plan["attention"] == "materialized" and c.plan["overlap_dp"] is False
    assert c.hardware is H100


def test_unknown_framework_is_a_note_not_an_error() -> None:
    c = apply({"framework": "my-own-trainer", "year": 2024}, {}, H100)
    assert "unknown stack 'my-own-trainer'" in c.note


def test_family_fallback_and_training_gemm_figure() -> None:
    assert A100.for_attention_family("flash1").attention_efficiency("bf16") == pytest.approx(0.33)
    assert A100.for_attention_family("flash2") is A100  # FA2 is the entry's own `attention` figure
    # no FA1 figure on H100: FA1_SHARE_OF_FA2 (0.53) of FA2's (the FA2 abstract's A100 utilization ranges)
    assert H100.for_attention_family("flash1").attention_efficiency("bf16") == pytest.approx(0.35 * 0.53)
    assert H100.for_attention_family(None) is H100
    assert H100.train_gemm_efficiency("bf16") == H100.train_efficiency_value
    assert H100.train_gemm_efficiency("fp8") == H100.train_efficiency_by_dtype["fp8"]
    assert get_hardware("mi300x").train_gemm_efficiency("fp8") == get_hardware("mi300x").gemm_efficiency(
        "fp8"
    )
    assert get_hardware("b200").train_gemm_efficiency("bf16") == get_hardware("b200").gemm_efficiency("bf16")


def test_api_and_cli_take_a_stack() -> None:
    import llmcost

    plain = llmcost.train("llama-3.2-1b", "h100-sxm", gpus=8, seq_len=8192, global_batch=16)
    titan = llmcost.train(
        "llama-3.2-1b", "h100-sxm", gpus=8, seq_len=8192, global_batch=16, stack="torchtitan:2025"
    )
    from_plan = llmcost.train(
        "llama-3.2-1b",
        "h100-sxm",
        {"gpus": 8, "seq_len": 8192, "global_batch": 16, "stack": {"framework": "torchtitan", "year": 2025}},
    )
    assert titan.step_time > plain.step_time  # FlashAttention-2 on Hopper and unfused RMSNorm / SwiGLU
    assert from_plan.step_time == titan.step_time
    assert titan.result.notes[0].startswith("stack: torchtitan")
    with pytest.raises(UserError, match="year must be an integer"):
        llmcost.train("llama-3.2-1b", "h100-sxm", gpus=8, stack="torchtitan:soon")


@pytest.mark.parametrize(
    "stack", ["torchtitan:2025", "deepspeed:2021", "megatron-lm:2021", "megatron-core:2024"]
)
def test_search_with_a_stack_recosts_bit_for_bit(stack: str) -> None:
    """A plan the search returns under a stack carries it, and ``train`` of that plan gives the
    same figures (one composition, the same stack defaults)."""
    import llmcost

    res = llmcost.search_train(
        "llama-3.2-1b",
        "h100-sxm",
        gpus=8,
        global_batch=32,
        seq_len=4096,
        zero=["0", "1", "3"],
        top=3,
        stack=stack,
    )
    for row in res.plans:
        assert row["plan"]["stack"] == stack
        again = llmcost.train("llama-3.2-1b", "h100-sxm", row["plan"]).as_dict()
        for k in ("iteration_time_s", "mfu", "memory_gib_per_gpu"):
            assert again[k] == row["metrics"][k]


def test_search_rejects_a_bad_stack_at_once() -> None:
    import llmcost

    with pytest.raises(UserError, match="year must be an integer"):
        llmcost.search_train("llama-3.2-1b", "h100-sxm", gpus=8, stack="torchtitan:soon")


def test_training_fp8_gemms_read_their_own_figure_where_given() -> None:
    b200 = get_hardware("b200")
    assert b200.train_gemm_efficiency("fp8") == b200.train_efficiency_by_dtype["fp8"]
    import dataclasses

    moved = dataclasses.replace(
        b200, train_efficiency_by_dtype={**b200.train_efficiency_by_dtype, "fp8": 0.123}
    )
    assert moved.train_gemm_efficiency("fp8") == 0.123  # the training figure, whatever it is fitted to
    assert moved.gemm_efficiency("fp8") == b200.gemm_efficiency("fp8")  # inference keeps compute_fp8
    assert get_hardware("gb200-nvl72").train_gemm_efficiency("fp8") == b200.train_gemm_efficiency("fp8")


def test_async_backward_tp_collectives_hide_under_the_gradient_gemms() -> None:
    """Megatron-Core sets tp_bwd_overlap; with it the backward's TP collectives of a TP8 layer
    run under the column-parallel GEMM's gradient GEMMs, so less TP time is exposed than with every
    collective on the critical path (bandwidth-bound collectives: Llama 3.1 8B, TP8, 4 x 8K tokens)."""
    import llmcost

    keys = dict(gpus=8, tp=8, micro_batch=4, global_batch=4, seq_len=8192)
    on = llmcost.train("llama-3.1-8b", "h100-sxm", stack="megatron-core:2024", **keys)
    off = llmcost.train("llama-3.1-8b", "h100-sxm", stack="megatron-core:2024", tp_bwd_overlap=False, **keys)
    assert on.layout.plan.tp_bwd_overlap and not off.layout.plan.tp_bwd_overlap
    t_on, t_off = (r.as_dict()["time_breakdown_s"]["tp_comm"] for r in (on, off))
    assert t_on < t_off
    assert apply("megatron-lm:2021", {}, get_hardware("h100-sxm")).plan["tp_bwd_overlap"] is False


def test_zero2_reduces_after_every_micro_batch() -> None:
    """ZeRO-2 partitions gradients, so each micro-batch's backward reduce-scatters them: one
    micro-batch per step costs what ZeRO-1 costs, four cost more; ZeRO-2 with pp > 1 is refused."""
    import llmcost
    from llmcost.errors import PlanError

    def dp(zero: int, gb: int) -> float:
        r = llmcost.train("llama-3.1-8b", "h100-sxm", gpus=16, zero=zero, micro_batch=1, global_batch=gb)
        return r.as_dict()["time_breakdown_s"]["dp_comm"]

    assert dp(2, 16) == dp(1, 16)
    assert dp(2, 64) > dp(1, 64)
    with pytest.raises(PlanError, match="ZeRO-2 with pipeline parallelism"):
        llmcost.train("llama-3.1-8b", "h100-sxm", gpus=16, pp=2, zero=2)


def test_nemo_automodel_is_fsdp2_with_te_kernels() -> None:
    """NeMo AutoModel: FSDP2 per block (copy-out, fp32 reduction), TE attention and RMSNorm, no fp32
    copy of the logits; a known framework, so no guess note."""
    c = apply("nemo-automodel:2025", {"zero": 3, "ep": 8}, H100)
    p = c.plan
    assert p["attention"] == "flash" and p["fused_norm"] is True and p["fused_ce"] is True
    assert p["zero3_copy_out"] is True and p["grad_reduce_in_fp32"] is True and p["overlap_dp"] is True
    assert c.note == "stack: nemo-automodel (2025-2026)"
    assert c.hardware.attention_efficiency("bf16") == pytest.approx(
        H100.attention_efficiency("bf16")
    )  # cuDNN


def test_search_without_a_stack_applies_todays_mainstream_and_bounds_nothing() -> None:
    """No --stack: the search costs its plans under megatron-core 2026 (its note says so) and still
    searches ZeRO-1/2, which that profile does not run; --stack none applies no profile."""
    from llmcost import api

    rep = api.search_train("llama-3.2-1b", "h100-sxm", gpus=8, top=5)
    assert any("no stack given: today's mainstream" in n for n in rep.result.notes)
    assert {"1", "2"} <= set(rep.space.zero) and not rep.space.stack_bounds  # megatron-core runs 0/distopt/3
    assert all(p["plan"]["stack"] == {"framework": "megatron-core", "year": 2026} for p in rep.result.plans)
    named = api.search_train("llama-3.2-1b", "h100-sxm", gpus=8, top=5, stack="megatron-core:2026")
    assert "1" not in named.space.zero and named.space.stack_bounds  # a named stack bounds the space
    bare = api.search_train("llama-3.2-1b", "h100-sxm", gpus=8, top=5, stack="none")
    assert (
        not any("stack" in n for n in bare.result.notes) and bare.result.plans[0]["plan"]["stack"] == "none"
    )
