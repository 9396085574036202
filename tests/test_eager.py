"""Unfused (eager PyTorch) norms and activations: plan keys, stack mapping, the memory-bound time they
add, and a grid mixing fused and unfused plans costing each row as alone."""

from __future__ import annotations

import numpy as np
import pytest

from llmcost.catalog import get_hardware, get_model_config
from llmcost.errors import PlanError
from llmcost.model.config import from_config
from llmcost.training import compute as TC
from llmcost.training import plan as TR
from llmcost.training import step as TS
from llmcost.training.base import machine
from llmcost.training.layers import OpConfig, _values
from llmcost.training.stack import apply

H100 = get_hardware("h100-sxm")


@pytest.fixture(scope="module")
def llama1b() -> object:
    return from_config(get_model_config("llama-3.2-1b"), where="llama-3.2-1b")


def test_plan_keys_default_fused_and_are_checked(llama1b) -> None:
    p = TR.TrainPlan.from_mapping({"gpus": 8})
    assert p.fused_norm is True and p.fused_act is True
    q = TR.TrainPlan.from_mapping({"gpus": 8, "fused_norm": False, "fused_act": False})
    assert q.fused_norm is False and q.fused_act is False
    with pytest.raises(PlanError, match="fused_act must be true or false"):
        TR.check(llama1b, TR.TrainPlan.from_mapping({"gpus": 8, "fused_act": "no"}), H100)


def test_stack_sets_fusion_where_documented() -> None:
    titan = apply({"framework": "torchtitan", "year": 2024}, {}, H100).plan
    assert titan["fused_norm"] is False and titan["fused_act"] is False
    mcore = apply({"framework": "megatron-core", "year": 2024}, {}, H100).plan
    assert mcore["fused_norm"] is True and mcore["fused_act"] is True
    for xla in ("maxtext", "t5x", "pathways"):  # XLA fuses elementwise chains
        p = apply({"framework": xla, "year": 2023}, {}, H100).plan
        assert p["fused_norm"] is True and p["fused_act"] is True
    ds = apply({"framework": "deepspeed", "year": 2021}, {}, H100).plan  # not documented: no guess
    assert "fused_norm" not in ds and "fused_act" not in ds
    compiled = apply({"framework": "torchtitan", "year": 2024}, {"fused_norm": True, "fused_act": True}, H100)
    assert compiled.plan["fused_norm"] is True and compiled.plan["fused_act"] is True  # the plan wins


def _layer(spec, eager: TC.Eager) -> TC.LayerCost:
    cfg = OpConfig(
        *(np.array([1]) for _ in range(4)),
        np.array([0]),
        np.array([0]),
        np.array([0]),
        np.array([0]),
        "none",
        "bf16",
        2.0,
        2.0,
        True,
        8,
    )
    vals = _values(spec, 4096, cfg)
    shape, win = TC.layer_shape(spec, "dec", 0)
    ops = TC.training_ops(
        TC.graph_ops(shape, win, vals),
        causal=True,
        flash=True,
        attention_dropout=False,
        hidden_dropout=False,
        t_sp=1,
        tokens=4096.0,
        h=spec.hidden_size,
        heads=spec.num_heads,
        seq_kv=4096,
        b_a=2.0,
        eager=eager,
    )
    return TC.layer_cost(ops, "none", machine(H100, "bf16"), True)


def test_unfused_layer_is_slower_by_the_memory_bound_passes(llama1b) -> None:
    """Eager RMSNorm: 36 bytes per element instead of 4 (bf16) over 8 kernels; eager SwiGLU: 5 tensor
    passes instead of 3 over 2 kernels; the backward twice the eager bytes and extra kernels against
    the fused kernels' backward (norm 1.5x, SwiGLU 5/3x its forward bytes: bwd__norm_bytes, bwd__act_bytes).
    Within 0.1%: the roofline's 2-norm adds the passes' vector FLOPs by ``(t_c/t_m)²/2``."""
    m = machine(H100, "bf16")
    fused = _layer(llama1b, TC.Eager.of(llama1b, fused_norm=True, fused_act=True))
    eager = _layer(llama1b, TC.Eager.of(llama1b, fused_norm=False, fused_act=False))
    T, h, f, b = 4096, llama1b.hidden_size, llama1b.intermediate_size, 2.0
    norms = 2  # attention and FFN norms of a Llama layer
    bw = m.mem_bw * m.eta_m
    extra_bytes = norms * T * h * (4 * b + 28 - 2 * b) + 2 * T * f * b
    extra_kernels = norms * 7 + 1
    extra_bwd = norms * T * h * (2 * (4 * b + 28) - 1.5 * 2 * b) + (2 * 5 - 5) * T * f * b
    assert np.asarray(eager.t_fwd - fused.t_fwd).item() == pytest.approx(
        extra_bytes / bw + extra_kernels * m.t_kernel, rel=1e-3
    )
    assert np.asarray(eager.t_bwd - fused.t_bwd).item() == pytest.approx(
        extra_bwd / bw + 2 * extra_kernels * m.t_kernel, rel=1e-3
    )
    assert eager.model_flops == fused.model_flops


def test_layernorm_is_one_kernel_in_eager_pytorch() -> None:
    gpt = from_config(get_model_config("gpt3-175b"), where="gpt3-175b")
    e = TC.Eager.of(gpt, fused_norm=False, fused_act=False)
    assert e.norm is False  # nn.LayerNorm: native_layer_norm, one kernel


def test_grid_mixing_fused_and_unfused_rows_is_each_row_alone(llama1b) -> None:
    plans = [
        TR.TrainPlan.from_mapping({"gpus": 8, "tp": 2, "micro_batch": 2, "global_batch": 16, **kw})
        for kw in ({}, {"fused_norm": False}, {"fused_act": False}, {"fused_norm": False, "fused_act": False})
    ]
    lays = [TR.check(llama1b, p, H100) for p in plans]
    cols = [TR.plan_columns(lay) for lay in lays]
    grid = {k: np.concatenate([c[k] for c in cols]) for k in cols[0]}
    out = TS.evaluate(llama1b, H100, grid, lays[0].seq, lays[0].global_batch)
    times = []
    for i, (p, lay) in enumerate(zip(plans, lays, strict=True)):
        alone = TS.evaluate(llama1b, H100, cols[i], lay.seq, lay.global_batch)
        assert all(float(alone[k][0]) == float(out[k][i]) for k in ("iteration_time_s", *TS.BREAKDOWN))
        r = TR.evaluate(llama1b, p, H100)
        assert r.metrics()["iteration_time_s"] == float(out["iteration_time_s"][i])
        times.append(float(out["iteration_time_s"][i]))
    assert times[0] < times[1] < times[3] and times[0] < times[2] < times[3]
