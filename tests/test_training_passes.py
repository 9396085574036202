"""The non-GEMM passes and overlaps a training step prices beyond its GEMMs and attention: rotary
embedding, fp8 quantization, MoE token permutation, pipeline send/recv overlap. Each must move
the step the physical way and only where it applies."""

from __future__ import annotations

from typing import Any

import pytest

from llmcost.catalog import get_hardware, get_model_config
from llmcost.errors import PlanError
from llmcost.model.config import from_config
from llmcost.training.operator import TOp
from llmcost.training.plan import TrainPlan, evaluate

H100 = get_hardware("h100-sxm")


def _step(model: str, **plan: Any) -> Any:
    spec = from_config(get_model_config(model), where=model)
    base = {"gpus": 8, "dp": 8, "micro_batch": 1, "global_batch": 8, "seq_len": 4096}
    return evaluate(spec, TrainPlan(**{**base, **plan}), H100)


def test_eager_rope_is_slower_and_only_where_there_is_rope() -> None:
    fused, eager = _step("llama-3.1-8b"), _step("llama-3.1-8b", fused_rope=False)
    assert eager.step_time > fused.step_time
    assert eager.step_time < 1.1 * fused.step_time  # a memory-bound pass, not a GEMM
    learned = _step("gpt3-6.7b", seq_len=2048), _step("gpt3-6.7b", seq_len=2048, fused_rope=False)
    assert learned[0].step_time == learned[1].step_time


def test_fp8_quantization_costs_by_recipe_and_never_touches_bf16() -> None:
    times = {
        r: _step("llama-3.1-8b", precision="fp8", fp8_recipe=r).step_time
        for r in ("delayed", "current", "dynamic")
    }
    assert times["delayed"] < times["dynamic"] < times["current"]
    bf16 = {r: _step("llama-3.1-8b", fp8_recipe=r).step_time for r in ("delayed", "current")}
    assert bf16["delayed"] == bf16["current"]


def test_pipeline_overlap_never_slower_and_moot_without_a_pipeline() -> None:
    plan = {"gpus": 32, "dp": 4, "tp": 2, "pp": 4, "global_batch": 64, "schedule": "interleaved"}
    serial, overlapped = _step("llama-3.1-70b", **plan), _step("llama-3.1-70b", **plan, pp_overlap=True)
    assert overlapped.step_time < serial.step_time
    assert overlapped.breakdown["pp_p2p"] < serial.breakdown["pp_p2p"]
    assert _step("llama-3.1-8b", pp_overlap=True).step_time == _step("llama-3.1-8b").step_time


def test_moe_layers_pay_for_permuting_tokens() -> None:
    """Qwen3-30B-A3B (128 experts, top-8, h 2048): the permutations move about ``3·k`` rows per token."""
    from llmcost.training import passes as TC

    ops = [
        TOp("router", "router", 1.0, 1.0, 1.0, gemm=(4096.0, 128.0, 2048.0, 1.0)),
        TOp("experts_up", "expert_gemm", 1.0, 1.0, 1.0, gemm=(2048.0, 1536.0, 2048.0, 16.0)),
    ]
    op = TC.moe_permute_op(ops, 2.0, 2048, 1.0)
    assert op is not None
    assign = 2048.0 * 16
    assert op.bytes == pytest.approx(2048 * 2.0 * (3 * assign + 4096 + 4 * assign))
    assert op.bwd_bytes == op.bytes
    assert TC.moe_permute_op(ops[:1], 2.0, 2048, 1.0) is None


@pytest.mark.parametrize(
    ("plan", "msg"),
    [
        ({"fp8_recipe": "fast"}, "fp8_recipe 'fast'"),
        ({"fused_rope": "yes"}, "fused_rope must be true or false"),
    ],
)
def test_bad_pass_keys_are_one_clear_error(plan: dict[str, Any], msg: str) -> None:
    with pytest.raises(PlanError, match=msg):
        _step("llama-3.1-8b", **plan)


@pytest.mark.parametrize(
    "plan",
    [
        {"gpus": 64, "dp": 64, "ep": 8, "distributed_optimizer": True, "global_batch": 64},
        {"gpus": 64, "dp": 32, "tp": 2, "ep": 4, "zero": 1, "global_batch": 64},
        {"gpus": 16, "dp": 16, "ep": 8, "global_batch": 16},
    ],
)
def test_the_optimizer_step_updates_exactly_the_states_a_device_holds(plan: dict[str, Any]) -> None:
    """The step's optimizer pass reads and writes the fp32 master weight and Adam moments of the
    parameters whose states the device holds (memory ``optimizer`` / 12 bytes): a sharded MoE
    optimizer shards the experts over their expert-data-parallel ranks, no further."""
    from llmcost.training import _generated as G

    r = _step("mixtral-8x7b", seq_len=2048, **plan)
    psi_mem = r.memory["optimizer"] / 12.0
    b_g = 4.0  # bf16: fp32 gradients for plain DP, the distributed optimizer and ZeRO-1 alike
    psi_time = r.breakdown["optimizer"] / float(
        G.optimizer(
            b_g=b_g,
            b_mp=0.0,
            b_w=2.0,
            eta_m=H100.memory_efficiency,
            mem_bw=H100.memory_bandwidth,
            psi_opt=1.0,
        )
    )
    assert psi_time == pytest.approx(psi_mem, rel=1e-9)


def test_an_overlapped_collective_takes_its_sms_from_compute() -> None:
    """A100 (16 of 108 SMs held by NCCL): ZeRO-3 plans expose the SM share of their hidden gathers;
    a device without the figure exposes only what exceeds compute."""
    from llmcost.training.base import comm_share

    a100 = get_hardware("a100-sxm4-80gb")
    assert comm_share(a100) == pytest.approx(16 / 108)
    assert comm_share(get_hardware("mi300x")) == 0.0
    spec = from_config(get_model_config("llama-3.1-8b"), where="t")
    plan = TrainPlan(gpus=64, dp=64, zero=3, micro_batch=1, global_batch=64, seq_len=4096, gpus_per_node=8)
    with_sms = evaluate(spec, plan, a100).breakdown["zero3_comm"]
    without = evaluate(spec, plan, a100.with_overrides({"gemm": {"collective_sms": 0}})).breakdown[
        "zero3_comm"
    ]
    assert with_sms > without


def test_eager_cross_entropy_holds_more_logits_memory_and_moves_more_bytes() -> None:
    """torchtitan's eager loss (bf16 logits, fp32 upcast, log_softmax output: 10 bytes per logit)
    against a fused vocabulary-parallel one (4 bytes) in memory; in time, 22 + 26 bytes per logit
    (upcast, three-pass log_softmax, fill, two-pass backward, downcast) against 8 + 16, and five more
    kernels: the step is slower by that many bytes at the memory rate (within 0.1%: the roofline's
    2-norm adds the loss's few FLOPs), the power limit's share apart (memory-bound work lowers the
    step's draw, so the eager step throttles less)."""
    from llmcost.catalog import get_hardware
    from llmcost.kernels.roofline import T_KERNEL

    fused, eager = _step("llama-3.1-8b"), _step("llama-3.1-8b", fused_ce=False)
    assert eager.memory["logits"] == pytest.approx(2.5 * fused.memory["logits"])
    hw = get_hardware("h100-sxm")
    logits = 4096 * 128256  # the _step plan: one micro-batch of 4096 tokens per device
    extra = (22 + 26 - 24) * logits / (hw.memory_efficiency * hw.memory_bandwidth) + 5 * T_KERNEL

    def unthrottled(r: Any) -> float:
        return r.step_time - r.breakdown["power_limit"]

    assert unthrottled(eager) - unthrottled(fused) == pytest.approx(extra, rel=1e-3)
    assert eager.breakdown["power_limit"] < fused.breakdown["power_limit"]


def test_per_op_checkpointing_sits_between_selective_and_full() -> None:
    """torchtitan's per-op SAC recomputes every other matmul and every elementwise op: it stores
    less than Korthikanti's selective recomputation and more than full, recomputes more than
    selective and less than a full forward, and adds the recomputed matmuls to the hardware FLOPs."""
    plan = {"zero": 3, "global_batch": 8, "seq_len": 4096, "attention": "flash"}
    runs = {rc: _step("llama-3.1-8b", recompute=rc, **plan) for rc in ("selective", "op", "full")}
    mem = {rc: r.memory["activations"] for rc, r in runs.items()}
    rc_time = {rc: r.breakdown["compute_recompute"] for rc, r in runs.items()}
    assert mem["full"] < mem["op"] < mem["selective"]
    assert rc_time["selective"] < rc_time["op"] < rc_time["full"]
    assert runs["op"].hfu > runs["op"].mfu


def test_per_op_checkpointing_recomputes_the_right_matmuls() -> None:
    from llmcost.training import passes as TC

    gated = TC.op_sac_shares(4096, 1024, gated=True)
    assert gated["qkv_proj"] == pytest.approx(1024 / (4096 + 2048))  # wk of wq, wk, wv
    assert (gated["o_proj"], gated["up_proj"], gated["down_proj"]) == (1.0, 0.5, 0.0)
    plain = TC.op_sac_shares(4096, 4096, gated=False)
    assert (plain["up_proj"], plain["down_proj"]) == (0.0, 1.0)


def test_cli_takes_the_new_plan_keys(cli) -> None:  # noqa: ANN001
    base = (
        "train",
        "llama-3.1-70b",
        "--hw",
        "h100-sxm",
        "--gpus",
        "64",
        "--tp",
        "8",
        "--pp",
        "4",
        "--distributed-optimizer",
        "--recompute",
        "full",
    )
    plan = (*base, "--schedule", "interleaved", "--global-batch", "64", "-f", "json")
    on, off = cli(*plan, "--pp-overlap"), cli(*plan, "--no-pp-overlap")
    assert on.code == 0 and off.code == 0, on.err + off.err
    import json

    assert (
        json.loads(on.out)["time_breakdown_s"]["pp_p2p"] < json.loads(off.out)["time_breakdown_s"]["pp_p2p"]
    )
    bad = cli(
        "train", "llama-3.1-8b", "--hw", "h100-sxm", "--gpus", "8", "--precision", "fp8", "--fp8-recipe", "x"
    )
    assert bad.code == 2 and "fp8_recipe 'x'" in bad.err and "Traceback" not in bad.err
