"""Plan keys for what a framework does beyond the graph: torch.autocast over fp32 parameters
(``autocast_weights``: every matmul weight cast at each forward, its gradient cast back; the
transformers stack sets it), full recomputation with its stored inputs split over the TP ranks
(``distribute_saved_activations``) and sequence-parallel collectives that copy batch-first
activations (``tp_layout_copy``: torchtitan)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcost.catalog import get_hardware, get_model_config
from llmcost.kernels.roofline import T_KERNEL
from llmcost.model.config import from_config
from llmcost.training import _generated as G
from llmcost.training import plan as TR
from llmcost.training.operator import TOp
from llmcost.training.passes import autocast_op
from llmcost.training.stack import apply

H100 = get_hardware("h100-sxm")
BASE = {"gpus": 1, "micro_batch": 2, "global_batch": 2, "seq_len": 4096, "recompute": "none"}


@pytest.fixture(scope="module")
def llama1b() -> object:
    return from_config(get_model_config("llama-3.2-1b"), where="llama-3.2-1b")


def _run(spec, **kw) -> TR.TrainResult:
    return TR.evaluate(spec, TR.TrainPlan.from_mapping({**BASE, **kw}), H100)


def test_cast_op_reads_fp32_and_writes_the_compute_dtype() -> None:
    mats = [
        TOp("qkv_proj", "gemm", 1.0, 1.0, 10.0, weight_bytes=4.0),
        TOp("up_proj", "gemm", 1.0, 1.0, 10.0, weight_bytes=6.0),
        TOp("act", "elementwise", 1.0, 0.0, 10.0),
    ]
    cast = autocast_op(mats, b_w=2.0)
    assert cast is not None
    assert cast.bytes == pytest.approx(5.0 * (4 + 2))  # 5 weight elements, read 4 B, write 2 B
    assert cast.bwd_bytes == cast.bytes and cast.extra_kernels == 1.0
    assert autocast_op(mats[2:], b_w=2.0) is None
    assert float(G.autocast__cast_bytes(2.0, 1.0)) == 6.0


def test_every_matmul_weight_is_cast_once_per_forward(llama1b) -> None:
    """Summed over the layers and the LM head, the casts move 6 bytes per matmul weight each way:
    the whole model but its norms (the tied embedding is the LM head's weight)."""
    plan = TR.TrainPlan.from_mapping({**BASE, "autocast_weights": True})
    rows = TR.operator_breakdown(llama1b, plan, H100)
    cast = sum(r.layers * float(np.sum(o.bytes)) for r in rows for o in r.ops if o.name == "autocast_cast")
    params = cast / 6.0
    assert 1.23e9 < params < 1.24e9  # Llama 3.2 1B: 1.236 B parameters, 0.3 M of them norm weights


def test_casts_cost_their_hbm_time_in_both_passes(llama1b) -> None:
    off, on = _run(llama1b), _run(llama1b, autocast_weights=True)
    d_fwd = on.breakdown["compute_fwd"] - off.breakdown["compute_fwd"]
    d_bwd = on.breakdown["compute_bwd"] - off.breakdown["compute_bwd"]
    kernels = 16 * 4 + 1  # a cast per matmul weight: QKV, output, gate-up, down; the LM head
    hbm = 1.236e9 * 6 / (H100.memory_efficiency * H100.memory_bandwidth) + kernels * T_KERNEL
    assert d_fwd == pytest.approx(hbm, rel=0.01) and d_bwd == pytest.approx(hbm, rel=0.01)
    assert on.step_time > off.step_time


def test_full_recompute_casts_again(llama1b) -> None:
    off = _run(llama1b, recompute="full")
    on = _run(llama1b, recompute="full", autocast_weights=True)
    d_rc = on.breakdown["compute_recompute"] - off.breakdown["compute_recompute"]
    layers = (1.236e9 - 128256 * 2048) * 6 / (H100.memory_efficiency * H100.memory_bandwidth) + 64 * T_KERNEL
    assert d_rc == pytest.approx(layers, rel=0.01)  # the layers' casts again, not the LM head's


def test_stacks_that_cast_and_those_that_do_not() -> None:
    base = {"gpus": 8, "dp": 8, "micro_batch": 1, "global_batch": 8, "seq_len": 4096}
    assert apply("transformers:2026", base, H100).plan["autocast_weights"] is True
    for stack in ("megatron-core:2025", "deepspeed:2023", "torchtitan:2025", "llm-foundry:2024"):
        assert "autocast_weights" not in apply(stack, base, H100).plan
    assert (
        apply("transformers:2026", {**base, "autocast_weights": False}, H100).plan["autocast_weights"]
        is False
    )


@settings(max_examples=15, deadline=None)
@given(mb=st.sampled_from([1, 2, 4]), seq=st.sampled_from([1024, 2048, 4096]), tp=st.sampled_from([1, 2, 4]))
def test_casts_never_make_a_step_faster(llama1b, mb: int, seq: int, tp: int) -> None:
    plan = {"gpus": tp, "tp": tp, "micro_batch": mb, "global_batch": 2 * mb, "seq_len": seq}
    off = TR.evaluate(llama1b, TR.TrainPlan.from_mapping(plan), H100)
    on = TR.evaluate(llama1b, TR.TrainPlan.from_mapping({**plan, "autocast_weights": True}), H100)
    assert on.step_time >= off.step_time
    assert on.mfu <= off.mfu


def _acts(spec, **kw) -> tuple[float, float]:
    plan = {
        "gpus": 8,
        "tp": 8,
        "micro_batch": 1,
        "global_batch": 1,
        "seq_len": 2048,
        "recompute": "full",
        **kw,
    }
    r = TR.evaluate(spec, TR.TrainPlan.from_mapping(plan), get_hardware("a100-sxm4-80gb"))
    return r.memory["activations"], r.step_time


def test_distributed_saved_activations_split_the_checkpoints_over_tp() -> None:
    """Full recomputation with each layer's stored input split over the TP ranks (Megatron's
    ``--distribute-saved-activations``): the 2sbh-byte inputs of the L layers shrink by t, as sequence
    parallelism shrinks them; the step time is unchanged (its rebuilding all-gather is not priced)."""
    gpt3 = from_config(get_model_config("gpt3-175b"), where="gpt3-175b")
    whole, t0 = _acts(gpt3, sp=False)
    split, t1 = _acts(gpt3, sp=False, distribute_saved_activations=True)
    inputs = 96 * 2 * 2048 * 12288  # fp16/bf16 layer inputs of one micro-batch
    assert whole - split == pytest.approx(inputs * 7 / 8, rel=1e-9)
    assert t1 == t0
    with_sp, _ = _acts(gpt3, sp=True)
    assert _acts(gpt3, sp=True, distribute_saved_activations=True)[0] == with_sp  # split already
    sel, _ = _acts(gpt3, sp=False, recompute="selective")
    assert _acts(gpt3, sp=False, recompute="selective", distribute_saved_activations=True)[0] == sel


def _tp_plan(**kw) -> dict:
    return {"gpus": 8, "tp": 8, "sp": True, "micro_batch": 4, "global_batch": 4, "seq_len": 4096, **kw}


def test_tp_layout_copy_moves_four_activations_per_block_and_pass() -> None:
    """Sequence-parallel collectives on batch-first activations (torchtitan's DTensor TP): each TP
    block's all-gather output and reduce-scatter input copied once, reading and writing the block's
    full activation, in the forward and the backward; two blocks a layer."""
    spec = from_config(get_model_config("llama-3.1-8b"), where="llama-3.1-8b")
    plan = TR.TrainPlan.from_mapping(_tp_plan(tp_layout_copy=True))
    rows = TR.operator_breakdown(spec, plan, H100)
    layer = next(r for r in rows if r.stack == "dec")
    copy = next(o for o in layer.ops if o.name == "tp_layout_copy")
    activation = 4 * 4096 * 4096 * 2  # micro-batch x seq x hidden, bf16
    assert float(np.sum(copy.bytes)) == pytest.approx(2 * 4 * activation)
    assert (
        float(np.sum(copy.bwd_bytes)) == float(np.sum(copy.bytes))
        and float(np.sum(copy.extra_kernels)) == 3.0
    )
    base = TR.evaluate(spec, TR.TrainPlan.from_mapping(_tp_plan()), H100).step_time
    on = TR.evaluate(spec, plan, H100).step_time
    assert on > base
    for off in ({"sp": False}, {"tp_overlap": True}, {"tp": 1, "gpus": 1}):
        a = TR.evaluate(spec, TR.TrainPlan.from_mapping(_tp_plan(**off)), H100).step_time
        b = TR.evaluate(spec, TR.TrainPlan.from_mapping(_tp_plan(tp_layout_copy=True, **off)), H100).step_time
        assert a == b  # no copy without SP, with async TP, or without TP


def test_torchtitan_sets_tp_layout_copy_and_megatron_does_not() -> None:
    assert apply("torchtitan:2025", _tp_plan(), H100).plan["tp_layout_copy"] is True
    for stack in ("megatron-core:2025", "megatron-lm:2022", "deepspeed:2023"):
        assert "tp_layout_copy" not in apply(stack, _tp_plan(), H100).plan


def _pp_plan(**kw) -> dict:
    return {"gpus": 32, "tp": 4, "pp": 8, "micro_batch": 1, "global_batch": 32, "seq_len": 2048, **kw}


def test_pp_p2p_full_is_deepspeeds_pipeline_engine() -> None:
    """DeepSpeed's PipelineEngine (v0.3-v0.5): each TP rank sends its share of the activation, rebuilt
    by a TP all-gather at both ends, and the whole gradient; each send and receive blocks on its own:
    ``2(m·v + p − 1)·(t_part + t_full + t_ag)``, twice the serial count where there is no TP."""
    spec = from_config(get_model_config("llama-3.1-8b"), where="llama-3.1-8b")
    base = TR.evaluate(spec, TR.TrainPlan.from_mapping(_pp_plan()), H100)
    full = TR.evaluate(spec, TR.TrainPlan.from_mapping(_pp_plan(pp_p2p_full=True)), H100)
    v, w = base.values, full.values
    assert w["t_p2p"] > 2.0 * v["t_p2p"]  # the gradient: 4x the bytes (tp 4), the same latency
    assert w["t_p2p_part"] == v["t_p2p"] and w["t_pp_ag"] > 0.0 and v["t_pp_ag"] == 0.0
    names = G.FUNCTIONS["pp__p2p_unpaired"][1]
    assert full.breakdown["pp_p2p"] == pytest.approx(
        float(G.pp__p2p_unpaired(*(w[k] for k in names))), rel=1e-12
    )
    m, p, v1 = w["n_micro"], w["pp"], w["v_stages"]
    want = 2 * (m * v1 + p - 1) * (w["t_p2p_part"] + w["t_p2p"] + w["t_pp_ag"])
    assert full.breakdown["pp_p2p"] == pytest.approx(want, rel=1e-12)
    assert full.step_time > base.step_time
    no_tp = {"gpus": 8, "tp": 1}
    t1 = TR.evaluate(spec, TR.TrainPlan.from_mapping(_pp_plan(pp_p2p_full=True, **no_tp)), H100)
    s1 = TR.evaluate(spec, TR.TrainPlan.from_mapping(_pp_plan(**no_tp)), H100)
    assert t1.breakdown["pp_p2p"] == pytest.approx(2 * s1.breakdown["pp_p2p"], rel=1e-12)
    one = {"gpus": 4, "pp": 1, "dp": 1}
    a = TR.evaluate(spec, TR.TrainPlan.from_mapping(_pp_plan(**one)), H100).step_time
    assert (
        TR.evaluate(spec, TR.TrainPlan.from_mapping(_pp_plan(pp_p2p_full=True, **one)), H100).step_time == a
    )


def test_deepspeed_stacks_set_pp_p2p_full_and_megatron_does_not() -> None:
    for stack in ("deepspeed:2022", "megatron-deepspeed:2022", "gpt-neox:2022"):
        assert apply(stack, _pp_plan(), H100).plan["pp_p2p_full"] is True
    for stack in ("megatron-lm:2021", "megatron-core:2025", "torchtitan:2025"):
        assert "pp_p2p_full" not in apply(stack, _pp_plan(), H100).plan


def test_fp8_plans_keep_linear_inputs_in_8_bits_unless_hp() -> None:
    """Transformer Engine keeps the QKV, output-projection, FC1 and FC2 inputs of an fp8 plan as their
    fp8 casts: one byte less per element, ``sb(2h/t_sp + (q_dim + f)/t)`` per layer; torchao's float8
    (``fp8_hp_inputs``, the torchtitan stack) and 16-bit plans keep them in 16 bits."""
    spec = from_config(get_model_config("llama-3.1-8b"), where="llama-3.1-8b")
    plan = {"gpus": 8, "tp": 2, "micro_batch": 1, "global_batch": 8, "seq_len": 4096}

    def act(**k: object) -> float:
        return TR.evaluate(spec, TR.TrainPlan.from_mapping({**plan, **k}), H100).memory["activations"]

    bf16, fp8, hp = act(), act(precision="fp8"), act(precision="fp8", fp8_hp_inputs=True)
    assert hp == pytest.approx(bf16, rel=1e-12) and act(fp8_hp_inputs=True) == pytest.approx(bf16, rel=1e-12)
    s, h, t, q, f = 4096, spec.hidden_size, 2, spec.q_dim, spec.intermediate_size
    per_layer = s * (2 * h / t + (q + f) / t)  # sequence parallel: the LN outputs are sharded too
    assert bf16 - fp8 == pytest.approx(
        spec.num_layers * per_layer, rel=1e-9
    )  # bytes, one micro-batch in flight
    assert apply("torchtitan:2025", {}, H100).plan["fp8_hp_inputs"] is True
    assert "fp8_hp_inputs" not in apply("megatron-core:2025", {}, H100).plan


@pytest.mark.parametrize(
    ("precision", "grad_fp32", "total"),
    [("fp16", False, 52.0), ("fp16", True, 46.0), ("bf16", True, 38.0)],
)
def test_megatron_optimizer_passes_bytes(llama1b, precision: str, grad_fp32: bool, total: float) -> None:
    """Megatron's mixed-precision optimizer (``optimizer_passes``) moves, per parameter: the 16-bit main
    gradient's copy to fp32 (2 + 4), fp16's unscale and inf check (4 + 4), the gradient norm (4), Adam on
    fp32 (16 read, 12 written) and the master's re-read for the 16-bit copy (4 + 2): 52 bytes for fp16, 46
    with fp32 accumulation, 38 for bf16 with fp32 gradients, against ``24 + b_g + b_w`` for a fused master-weight step."""
    kw = {"precision": precision, "grad_reduce_in_fp32": grad_fp32}
    off = _run(llama1b, **kw).breakdown["optimizer"]
    on = _run(llama1b, optimizer_passes=True, **kw).breakdown["optimizer"]
    b_g, b_w = (4.0 if grad_fp32 else 2.0), 2.0
    assert on / off == pytest.approx(total / (24 + b_g + b_w), rel=1e-12)


def test_megatron_stacks_run_the_optimizer_passes() -> None:
    for stack in (
        "megatron-lm:2021",
        "megatron-lm:2022",
        "megatron-lm:2023",
        "megatron-core:2023",
        "megatron-core:2026",
    ):
        assert apply(stack, {}, H100).plan["optimizer_passes"] is True
    for stack in ("torchtitan:2025", "deepspeed:2021", "llm-foundry:2024"):
        assert "optimizer_passes" not in apply(stack, {}, H100).plan


def test_zero3_optimizer_passes_follow_the_fp32_gradient_setting(llama1b) -> None:
    """ZeRO-3 moves 16-bit gradients whatever ``grad_reduce_in_fp32`` says; the optimizer's copy of 16-bit
    main gradients to fp32 follows that setting: bf16 with fp32 gradients 38 bytes per parameter in all."""
    kw = {"gpus": 8, "micro_batch": 1, "global_batch": 8, "zero": 3, "grad_reduce_in_fp32": True}
    off = _run(llama1b, **kw).breakdown["optimizer"]
    on = _run(llama1b, optimizer_passes=True, **kw).breakdown["optimizer"]
    assert on / off == pytest.approx(38.0 / (24 + 2 + 2), rel=1e-12)


def test_a_default_stack_search_plan_carries_its_option_flags() -> None:
    """A search under today's mainstream stack prices Megatron's optimizer passes; its plan states
    ``optimizer_passes``, so costed without a profile (``stack: none``) it costs the same bits."""
    from llmcost.search import train as ST
    from llmcost.stacks import default_stack

    spec = from_config(get_model_config("llama-3.2-1b"), where="llama-3.2-1b")
    space = ST.TrainSpace(gpus=(8,), global_batch=16, seq_len=4096, stack=default_stack(), stack_default=True)
    grid = ST.enumerate_space(spec, H100, space)
    out = ST.evaluate_grid(spec, H100, grid, 4096, 16)
    assert (grid.cols["mpo"] == 1).all()
    for i in np.random.default_rng(0).choice(len(grid), 8, replace=False):
        d = ST.plan_dict(grid, int(i), 16, 4096, None)
        assert d["optimizer_passes"] is True and d["stack"] == "none"
        r = TR.evaluate(spec, TR.TrainPlan.from_mapping(d), H100)
        assert r.step_time == float(out["iteration_time_s"][i])
