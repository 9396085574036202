"""Training cost model: golden expressions, generated code, plan checks, physics properties, CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcost.catalog import get_hardware, get_model_config
from llmcost.errors import PlanError
from llmcost.model.config import from_config
from llmcost.training import _generated as G
from llmcost.training import formulas as F
from llmcost.training import plan as TR
from llmcost.training.base import split_layers
from llmcost.training.plan import TrainPlan, evaluate

GOLDEN = Path(__file__).parent / "golden" / "training_expressions.txt"
ROOT = Path(__file__).resolve().parents[1]


def _spec(model_id: str):
    return from_config(get_model_config(model_id), where=model_id)


GPT_22B = {
    "model_type": "gpt",
    "num_hidden_layers": 48,
    "hidden_size": 6144,
    "num_attention_heads": 64,
    "num_key_value_heads": 64,
    "head_dim": 96,
    "intermediate_size": 24576,
    "vocab_size": 51200,
    "hidden_act": "gelu",
    "tie_word_embeddings": True,
    "max_position_embeddings": 2048,
}


def _golden_text() -> str:
    return "\n".join(f"{k}: {sp.sstr(F.expression(k))}" for k in F.FORMULAS) + "\n"


def test_golden_expressions() -> None:
    """Every training expression is pinned (LLMCOST_UPDATE_GOLDEN=1 rewrites the file)."""
    text = _golden_text()
    if os.environ.get("LLMCOST_UPDATE_GOLDEN"):
        GOLDEN.write_text(text)
    assert GOLDEN.read_text() == text


def test_generated_module_is_fresh() -> None:
    assert F.GENERATED.read_text() == F.generated_source(), "run python -m llmcost.training.formulas"


def test_korthikanti_table2_reduces() -> None:
    """The general activation form reduces to Korthikanti Table 2 for MHA, f=4h, GeLU, dropout."""
    s, b, h, a, t = sp.symbols("s b h a t", positive=True)
    sub = {
        F.S("seq"): s,
        F.S("micro_batch"): b,
        F.S("d_model"): h,
        F.S("n_q"): a,
        F.S("tp"): t,
        F.S("cp"): 1,
        F.S("q_dim"): h,
        F.S("kv_dim"): h,
        F.S("d_ff_act"): 4 * h,
        F.S("phi_a"): 4,
        F.S("drop_h"): 1,
        F.S("drop_a"): 1,
        F.S("b_a"): 2,
        F.S("fp8_saved"): 0,  # 16-bit training, as Korthikanti's
    }
    tp_only = F.expression("act__materialized").subs({**sub, F.S("tp_sp"): 1})
    assert sp.simplify(tp_only - s * b * h * (10 + 24 / t + 5 * a * s / (h * t))) == 0
    tp_sp = F.expression("act__materialized").subs({**sub, F.S("tp_sp"): t})
    assert sp.simplify(tp_sp - s * b * h / t * (34 + 5 * a * s / h)) == 0
    sel = F.expression("act__selective").subs({**sub, F.S("tp_sp"): t})
    assert sp.simplify(sel - 34 * s * b * h / t) == 0
    fp8 = F.expression("act__selective").subs({**sub, F.S("tp_sp"): t, F.S("fp8_saved"): 1})
    assert sp.simplify(fp8 - 27 * s * b * h / t) == 0  # QKV, O, FC1 inputs 1 byte less, FC2's 4h less


def test_zero_stages_match_paper() -> None:
    """ZeRO §5: 16Ψ, 4Ψ + 12Ψ/d, 2Ψ + 14Ψ/d, 16Ψ/d for b_w = b_g = 2, b_o = 12 (no experts)."""
    psi, d = sp.symbols("Psi d", positive=True)
    state = sum(F.expression(f"memory__{k}") for k in ("weights", "gradients", "optimizer"))
    e = state.subs({F.S("psi"): psi, F.S("psi_e"): 0, F.S("b_w"): 2, F.S("b_g"): 2, F.S("b_o"): 12})
    z = {F.S("z_w"): 1, F.S("z_g"): 1, F.S("z_o"): 1}
    assert sp.simplify(e.subs(z) - 16 * psi) == 0
    assert sp.simplify(e.subs({**z, F.S("z_o"): d}) - (4 * psi + 12 * psi / d)) == 0
    assert sp.simplify(e.subs({F.S("z_w"): 1, F.S("z_g"): d, F.S("z_o"): d}) - (2 * psi + 14 * psi / d)) == 0
    assert sp.simplify(e.subs({F.S("z_w"): d, F.S("z_g"): d, F.S("z_o"): d}) - 16 * psi / d) == 0


def test_gpt3_flops_match_narayanan() -> None:
    """Model FLOPs per step reproduce 72·B·s·l·h²(1 + s/6h + V/12lh) (Korthikanti / Narayanan w/o recompute)."""
    spec = from_config(GPT_22B, where="22b")
    hw = get_hardware("a100-sxm4-80gb")
    r = evaluate(
        spec,
        TrainPlan(
            gpus=8, tp=8, micro_batch=4, global_batch=4, seq_len=2048, precision="fp16", recompute="full"
        ),
        hw,
    )
    B, s, n, h, V = 4, 2048, 48, 6144, 51200
    ref = 72 * B * s * n * h**2 * (1 + s / (6 * h) + V / (12 * n * h))  # full s^2, the papers' convention
    assert abs(r.row["model_flops_per_step_full_attention"] / ref - 1) < 0.01  # biases / norms aside
    hw_ref = 96 * B * s * n * h**2 * (1 + s / (6 * h) + V / (16 * n * h))
    assert abs(r.row["hardware_flops_per_step_full_attention"] / hw_ref - 1) < 0.01
    # MFU's own count: causal attention's kept pairs, s^2/2 (Megatron-Core >= 0.12: s/(6h) -> s/(12h))
    assert (
        abs(r.model_flops_step / (72 * B * s * n * h**2 * (1 + s / (12 * h) + V / (12 * n * h))) - 1) < 0.01
    )
    assert abs(r.hw_flops_step / (96 * B * s * n * h**2 * (1 + s / (12 * h) + V / (16 * n * h))) - 1) < 0.01


@pytest.mark.parametrize(
    "plan,reason",
    [
        (dict(gpus=64, tp=3), "divide"),
        (dict(gpus=16, tp=8, global_batch=3), "global_batch"),
        (dict(gpus=16, tp=8, pp=2, schedule="interleaved", virtual_stages=17), "cannot fill"),
        (dict(gpus=8, tp=8, recompute="some"), "recompute"),
        (dict(gpus=8, tp=4, dp=4), "must equal"),
        (dict(gpus=8, ep=2), "mixture-of-experts"),
        (dict(gpus=8, precision="fp4"), "fp4"),
        (dict(gpus=8, tp=8, sp=False, tp_overlap=True), "sequence parallelism"),
        (dict(gpus=8, tp_overlap=True), "tp_overlap"),
    ],
)
def test_plans_rejected_with_reason(plan: dict, reason: str) -> None:
    with pytest.raises(PlanError, match=reason):
        evaluate(_spec("llama-3.1-8b"), TrainPlan(**plan), get_hardware("h100-sxm"))


def test_does_not_fit() -> None:
    with pytest.raises(PlanError, match="does not fit"):
        evaluate(
            _spec("llama-3.1-70b"),
            TrainPlan(gpus=8, tp=8, seq_len=8192),
            get_hardware("h100-sxm"),
            check_memory=True,
        )


PLANS = st.fixed_dictionaries(
    {
        "tp": st.sampled_from([1, 2, 4, 8]),
        "pp": st.sampled_from([1, 2, 4]),
        "dp": st.sampled_from([1, 2, 4]),
        "mb": st.sampled_from([1, 2]),
        "m": st.sampled_from([1, 4, 8]),
        "rc": st.sampled_from(["none", "selective", "full"]),
        "sched": st.sampled_from(["1f1b", "gpipe", "zero_bubble"]),
        "zero": st.sampled_from([0, 1, 2]),
        "seq": st.sampled_from([1024, 4096]),
    }
)


def _eval(p: dict, hw=None, **over):
    hw = hw or get_hardware("h100-sxm")
    plan = TrainPlan(
        gpus=p["tp"] * p["pp"] * p["dp"],
        tp=p["tp"],
        pp=p["pp"],
        dp=p["dp"],
        micro_batch=p["mb"],
        global_batch=p["mb"] * p["dp"] * p["m"],
        seq_len=p["seq"],
        recompute=p["rc"],
        schedule=p["sched"],
        zero=1 if p["zero"] == 2 and p["pp"] > 1 else p["zero"],  # ZeRO-2 runs without pipelines
        **over,
    )
    return evaluate(_spec("llama-3.1-8b"), plan, hw)


@settings(max_examples=40, deadline=None)
@given(PLANS)
def test_physics_bounds(p: dict) -> None:
    r = _eval(p)
    assert 0 < r.mfu <= 1
    assert r.hfu >= r.mfu - 1e-12
    hw = get_hardware("h100-sxm")
    # roofline minimum: hardware FLOPs at the dense peak spread over all devices
    assert r.step_time >= r.hw_flops_step / (r.gpus * hw.peak["bf16"])
    assert all(v >= -1e-9 for v in r.breakdown.values())


@settings(max_examples=20, deadline=None)
@given(PLANS)
def test_memory_grows_with_micro_batch(p: dict) -> None:
    small = _eval({**p, "mb": 1})
    big = _eval({**p, "mb": 2})
    assert big.memory["activations"] > small.memory["activations"]


@settings(max_examples=20, deadline=None)
@given(PLANS, st.floats(1.5, 4.0))
def test_more_bandwidth_never_slower(p: dict, k: float) -> None:
    hw = get_hardware("h100-sxm")
    raw = hw.raw
    fast = hw.with_overrides(
        {
            "memory": {"bandwidth": f"{hw.memory_bandwidth * k / 1e12} TB/s"},
            "fabric": {t.key: {"bandwidth": f"{t.bandwidth * k / 1e9} GB/s"} for t in hw.fabric},
        }
    )
    assert raw is hw.raw
    assert _eval(p, fast).step_time <= _eval(p, hw).step_time * (1 + 1e-9)


Z3_PLANS = st.fixed_dictionaries(
    {
        "tp": st.sampled_from([1, 2, 4]),
        "dp": st.sampled_from([2, 4, 8]),
        "mb": st.sampled_from([1, 2]),
        "m": st.sampled_from([1, 4]),
        "rc": st.sampled_from(["none", "selective", "full"]),
        "seq": st.sampled_from([1024, 4096]),
        "gpn": st.sampled_from([4, 8]),
    }
)


def _z3(p: dict, zero: int, hw=None, **over):
    hw = hw or get_hardware("h100-sxm")
    plan = TrainPlan(
        gpus=p["tp"] * p["dp"],
        tp=p["tp"],
        dp=p["dp"],
        micro_batch=p["mb"],
        global_batch=p["mb"] * p["dp"] * p["m"],
        seq_len=p["seq"],
        recompute=p["rc"],
        precision="fp16",  # ZeRO-0 then keeps 2-byte gradients too (same DP volume per element)
        attention="flash",  # same attention whatever fits
        gpus_per_node=p["gpn"],
        zero=zero,
        **over,
    )
    return evaluate(_spec("llama-3.1-8b"), plan, hw)


@settings(max_examples=30, deadline=None)
@given(Z3_PLANS)
def test_zero3_never_faster_than_zero0(p: dict) -> None:
    """Same plan, DP > 1: ZeRO-3 regathers the parameters every micro-batch and pass, so apart from
    the optimizer step (which ZeRO shards) its step is never shorter than plain DP's."""
    r0, r3 = _z3(p, 0), _z3(p, 3)
    assert r3.breakdown["zero3_comm"] > 0
    t0 = r0.step_time - r0.breakdown["optimizer"]
    t3 = r3.step_time - r3.breakdown["optimizer"]
    assert t3 >= t0 * (1 - 1e-12)


@settings(max_examples=20, deadline=None)
@given(Z3_PLANS, st.floats(1.5, 8.0))
def test_zero3_more_dp_bandwidth_never_slower(p: dict, k: float) -> None:
    hw = get_hardware("h100-sxm")
    fast = hw.with_overrides(
        {"fabric": {t.key: {"bandwidth": f"{t.bandwidth * k / 1e9} GB/s"} for t in hw.fabric}}
    )
    assert _z3(p, 3, fast).step_time <= _z3(p, 3, hw).step_time * (1 + 1e-12)


def _z3f(
    L: float, m: float, s: float, t_b: float, t_f: float, t_rc: float, ag: float, rs: float, rc: float
) -> float:
    """``zero3`` with no HBM contention counted (its ``m_*`` HBM times 0, the plan default)."""
    return G.zero3(L, 0.0, 0.0, 0.0, 0.0, 0.0, m, s, t_b, t_f, t_rc, ag, 0.0, rs, rc)  # no copy-out


def test_zero3_overlap_is_per_layer_not_per_step() -> None:
    """The prefetch hides one layer's gathers under one layer's compute: a forward pass whose
    per-layer gather exceeds its per-layer compute is exposed even when the step's total
    communication is below its total compute (a per-step max() would hide it)."""
    L, t_f, t_b, ag, rs = 10, 1.0, 2.0, 0.12, 0.02
    assert L * (2 * ag + rs) < t_f + t_b
    x = float(_z3f(L, 1, 0.0, t_b, t_f, 0.0, ag, rs, 0.0))
    assert x == pytest.approx(ag + (L - 1) * (ag - t_f / L) + ag + rs)
    # compute-bound: only the first gathers and the last reduce-scatter are exposed, per micro-batch
    assert float(_z3f(L, 4, 0.0, 20.0, 10.0, 10.0, 0.01, 0.01, 1.0)) == pytest.approx(4 * (3 * 0.01 + 0.01))
    # ... plus, where the collectives hold a share s of the SMs, that share of the overlapped ones
    s = 0.15
    got = float(_z3f(L, 4, s, 20.0, 10.0, 10.0, 0.01, 0.01, 1.0))
    assert got == pytest.approx(4 * (3 * 0.01 + 0.01) + 4 * (L - 1) * s * (3 * 0.01 + 0.01))
    # communication-bound: each pass takes L·comm + one layer of compute
    fwd = L * 1.0 + t_f / L
    assert float(_z3f(L, 1, 0.0, t_b, t_f, 0.0, 1.0, 0.0, 0.0)) == pytest.approx(
        (fwd - t_f) + (L * 1.0 + t_b / L - t_b)
    )


def test_zero3_slow_fabric_is_communication_bound() -> None:
    """At 1/100 of the DP bandwidth a ZeRO-3 step is paced by its per-micro-batch parameter traffic
    (3 gathers with full recomputation + 1 reduce-scatter of every layer), not by compute."""
    p = {"tp": 1, "dp": 16, "mb": 1, "m": 2, "rc": "full", "seq": 1024, "gpn": 8}
    hw = get_hardware("h100-sxm")
    slow = hw.with_overrides(
        {"fabric": {t.key: {"bandwidth": f"{t.bandwidth / 100 / 1e9} GB/s"} for t in hw.fabric}}
    )
    r = _z3(p, 3, slow)
    v = r.values
    comm = p["m"] * v["layers_stage"] * (3 * v["t_z3_ag"] + v["t_z3_rs"])
    compute = sum(r.breakdown[k] for k in ("compute_fwd", "compute_bwd", "compute_recompute"))
    assert comm > 2 * compute
    assert r.breakdown["zero3_comm"] >= comm - compute
    assert r.step_time >= comm


@settings(max_examples=30, deadline=None)
@given(PLANS)
def test_tp_overlap_never_slower(p: dict) -> None:
    if p["tp"] == 1:
        p = {**p, "tp": 2}
    off, on = _eval(p, sp=True), _eval(p, sp=True, tp_overlap=True)
    assert on.step_time <= off.step_time * (1 + 1e-12)
    assert on.breakdown["tp_comm"] <= off.breakdown["tp_comm"] * (1 + 1e-12)
    assert on.breakdown["tp_comm"] >= 0
    assert on.hw_flops_step == off.hw_flops_step and on.memory == off.memory


def test_tp_overlap_hides_tp_comm_under_gemms() -> None:
    """Megatron-Core --tp-comm-overlap on a large GEMM-bound layer (TP 8 on NVLink): the TP
    collectives mostly hide under the QKV / O / FFN GEMMs; the exposed part is max(0, comm − GEMM)."""
    plan = dict(gpus=8, tp=8, micro_batch=1, global_batch=8, seq_len=4096, sp=True)
    spec, hw = _spec("llama-3.1-70b"), get_hardware("h100-sxm")
    off = evaluate(spec, TrainPlan(**plan), hw)
    on = evaluate(spec, TrainPlan(**plan, tp_overlap=True), hw)
    assert off.breakdown["tp_comm"] > 0
    assert on.breakdown["tp_comm"] < 0.5 * off.breakdown["tp_comm"]
    assert on.step_time < off.step_time
    # the generated formula: forward pairs (AG with the input GEMM, RS with the output GEMM) per
    # forward pass, swapped in the backward
    assert float(G.tp__overlap(0.0, 0.0, 0.0, 0.0, 1, 1.0, 2.0, 1.5, 2.5)) == pytest.approx(
        0.5 + 0.5 + 1.5 + 0.0
    )


def test_single_plan_and_arrays_agree() -> None:
    """The generated functions broadcast: a vector of plans equals the plans one by one."""
    m = np.array([4.0, 8.0, 16.0])
    arr = G.pipeline__interleaved(m, 8, 0.9, 0.2, 0.05, 0.1, 0.01, 0.0, 3)
    one = [G.pipeline__interleaved(float(x), 8, 0.9, 0.2, 0.05, 0.1, 0.01, 0.0, 3) for x in m]
    assert np.allclose(arr, one)
    # memory__optimizer(b_o, d_edp, psi, psi_e, z_o)
    mem = G.memory__optimizer(12.0, 8, np.array([1e9, 2e9]), 1e8, 8.0)
    assert np.allclose(mem, [G.memory__optimizer(12.0, 8, x, 1e8, 8.0) for x in (1e9, 2e9)])


def test_pipeline_split_is_as_even_as_possible() -> None:
    """n mod (pp·v) chunks hold one more layer; the lighter ones sit at the ends (last, first, ...),
    so the former rule (at most the last and first chunk one layer short) is unchanged."""
    sizes = [len(s) for s in split_layers(61, 16, 1)]
    assert sizes == [3] + [4] * 13 + [3, 3]  # DeepSeek-V3 PP16: 13 stages of 4, 3 of 3
    assert sorted(sum(split_layers(61, 16, 1), [])) == list(range(61))
    assert [len(s) for s in split_layers(126, 16, 1)] == [7] + [8] * 14 + [7]  # Llama 3 405B (§3.3.2)
    assert [len(s) for s in split_layers(95, 8, 1)] == [12] * 7 + [11]
    assert [len(s) for s in split_layers(96, 8, 3)] == [12] * 8
    v = split_layers(
        30, 4, 2
    )  # 8 chunks 3,4,4,4,4,4,4,3 (the first and last lighter), chunk c on stage c mod 4
    assert [len(s) for s in v] == [7, 8, 8, 7] and v[0] == [0, 1, 2, 15, 16, 17, 18]
    assert "cannot fill" in (TR.pipeline_split_error(61, 32, 2) or "")


def test_uneven_stages_paced_by_the_busiest_stage() -> None:
    """61 identical layers over 16 stages: the stage time is that of the busiest stage, 4 layers or
    3 layers + the output layer, from the same model at 48 (3 per stage) and 64 (4 per stage)."""
    hw = get_hardware("h100-sxm")
    plan = TrainPlan(gpus=16, pp=16, global_batch=64, seq_len=4096, micro_batch=1)

    def run(n: int):
        return evaluate(
            from_config({**get_model_config("llama-3.1-8b"), "num_hidden_layers": n}, where=str(n)), plan, hw
        )

    r48, r61, r64 = run(48), run(61), run(64)
    layer = r64.values["t_fwd"] - r48.values["t_fwd"]  # one layer's forward
    assert r61.values["t_fwd"] == pytest.approx(max(4 * layer, r48.values["t_fwd"]), rel=1e-9)
    assert any("uneven pipeline: 3/4/4/4/4/4/4/4/4/4/4/4/4/4/3/3" in n for n in r61.notes)
    v = r61.values
    assert r61.breakdown["pp_bubble"] == pytest.approx(
        float(G.bubble__1f1b(16, v["r_bub"], v["t_bwd"], v["t_comm_mb"], v["t_fwd"], v["t_rc"])), rel=1e-12
    )
    # the fill and drain run at the other stages' pace: the busiest is the last (3 layers + the
    # output layer), the other 15 hold 3 + 13 x 4 + 3 layers (the first with the embedding)
    assert v["r_bub"] < 1.0
    assert v["r_bub"] * v["t_fwd"] == pytest.approx((3 + 13 * 4 + 3) / 15 * layer, rel=0.02)


def test_deepseek_v3_pp16_runs() -> None:
    """DeepSeek-V3's PP16 layout (61 layers) is a valid plan; without recomputation it does not fit
    (a real reason, with a hint), with full recomputation and the distributed optimizer it runs."""
    hw = get_hardware("h800-sxm")
    base = dict(gpus=2048, pp=16, ep=64, global_batch=15360, seq_len=4096, precision="fp8")
    with pytest.raises(PlanError, match="does not fit.*recompute"):
        evaluate(_spec("deepseek-v3"), TrainPlan(**base), hw, check_memory=True)
    r = evaluate(
        _spec("deepseek-v3"),
        TrainPlan(**base, recompute="full", distributed_optimizer=True),
        hw,
        check_memory=True,
    )
    assert r.step_time > 0 and [len(s) for s in r.layout.stage_layers].count(4) == 13


def test_interleaving_shrinks_bubble() -> None:
    spec = from_config(GPT_22B, where="22b")
    hw = get_hardware("a100-sxm4-80gb")
    base = dict(gpus=64, tp=8, pp=8, micro_batch=1, global_batch=64, seq_len=2048, recompute="selective")
    a = evaluate(spec, TrainPlan(**base, schedule="1f1b"), hw)
    b = evaluate(spec, TrainPlan(**base, schedule="interleaved", virtual_stages=2), hw)
    z = evaluate(spec, TrainPlan(**base, schedule="zero_bubble"), hw)
    assert b.breakdown["pp_bubble"] < a.breakdown["pp_bubble"]
    assert z.breakdown["pp_bubble"] < a.breakdown["pp_bubble"]


def test_moe_mla_encdec_evaluate() -> None:
    hw = get_hardware("h100-sxm")
    r = evaluate(
        _spec("deepseek-v3"),
        TrainPlan(
            gpus=256, tp=8, ep=32, global_batch=256, seq_len=4096, distributed_optimizer=True, precision="fp8"
        ),
        hw,
    )
    assert r.breakdown["ep_comm"] > 0 and 0 < r.mfu < 1
    r = evaluate(_spec("t5-v1_1-xxl"), TrainPlan(gpus=64, tp=8, global_batch=64, seq_len=512), hw)
    assert r.step_time > 0


def test_cli_train_json_and_errors(cli) -> None:
    r = cli(
        "train",
        "llama-3.1-8b",
        "--hw",
        "h100-sxm",
        "--gpus",
        "8",
        "--tp",
        "2",
        "--global-batch",
        "64",
        "--seq-len",
        "4096",
        "--tokens",
        "1T",
        "--format",
        "json",
    )
    assert r.code == 0, r.err
    out = json.loads(r.out)
    for key in (
        "iteration_time_s",
        "tokens_per_s_per_gpu",
        "model_tflops_per_gpu",
        "hardware_tflops_per_gpu",
        "mfu",
        "hfu",
        "memory_gib_per_gpu",
        "gpu_hours",
        "time_to_train_s",
        "total_flops",
    ):
        assert key in out
    r = cli("train", "llama-3.1-8b", "--hw", "h100-sxm", "--gpus", "8", "--tp", "3")
    assert r.code == 2 and r.err.count("\n") == 1 and "divide" in r.err
    r = cli("train", "llama-3.1-8b", "--hw", "h100-sxm", "--gpus", "8", "--tp", "8", "--explain")
    assert r.code == 0 and "T = " in r.out
    r = cli(
        "train", "llama-3.1-8b", "--hw", "h100-sxm", "--gpus", "8", "--tp", "8", "--tp-overlap", "-f", "json"
    )
    assert r.code == 0, r.err
    assert json.loads(r.out)["plan"]["tp_overlap"] is True
    r = cli("train", "llama-3.1-8b", "--hw", "h100-sxm", "--gpus", "8", "--tp-overlap")
    assert r.code == 2 and "sequence parallelism" in r.err
    r = cli("train", "llama-3.1-8b", "--hw", "h100-sxm", "--gpus", "8", "--zero", "3", "--explain")
    assert r.code == 0 and "t_z3_ag" in r.out and "layers_stage" in r.out


def test_cli_plan_file(cli, tmp_path: Path) -> None:
    f = tmp_path / "plan.yaml"
    f.write_text(
        "plan: {tp: 8, pp: 1, micro_batch: 1, global_batch: 16, seq_len: 2048, recompute: selective}\n"
        "cluster: {gpus: 16, gpus_per_node: 8}\n"
    )
    r = cli("train", "llama-3.1-8b", "--hw", "a100-sxm4-80gb", "--plan", str(f), "--format", "yaml")
    assert r.code == 0, r.err


def test_runtime_path_does_not_import_sympy() -> None:
    code = (
        "import sys; from llmcost.cli import main\n"
        "try:\n main(['train','llama-3.1-8b','--hw','h100-sxm','--gpus','8','--tp','8','-f','json'])\n"
        "except SystemExit: pass\n"
        "assert 'sympy' not in sys.modules, 'sympy imported'"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True)


def test_auto_attention_falls_back_to_flash_when_scores_do_not_fit() -> None:
    """'auto' picks materialized scores for dropout-trained GPT configs, but a plan whose s^2 scores
    do not fit can only have run with a fused attention: FlashAttention is costed (noted)."""
    spec = from_config({**GPT_22B, "max_position_embeddings": 8192}, where="22b")
    hw = get_hardware("a100-sxm4-80gb")
    plan = TrainPlan(
        gpus=8, tp=8, micro_batch=1, global_batch=8, seq_len=8192, precision="bf16", recompute="none"
    )
    r = evaluate(spec, plan, hw)
    assert r.layout.flash and any("FlashAttention costed" in n for n in r.notes)
    forced = evaluate(spec, TrainPlan(**{**plan.__dict__, "attention": "materialized"}), hw)
    assert not forced.layout.flash and forced.memory_total > hw.memory_usable
    small = evaluate(spec, TrainPlan(**{**plan.__dict__, "seq_len": 1024}), hw)
    assert not small.layout.flash  # fits: the materialized kernel stays


def test_goodput_stretches_the_run_and_nothing_else() -> None:
    """The run's wall-time figures are over the goodput; the step is not (Llama 3 report default)."""
    import llmcost
    from llmcost.errors import PlanError
    from llmcost.training.run import GOODPUT

    base = dict(gpus=8, zero=1, global_batch=16, seq_len=2048)
    ideal = llmcost.train("llama-3.2-1b", "h100-sxm", tokens="1T", goodput=1.0, **base).as_dict()
    dflt = llmcost.train("llama-3.2-1b", "h100-sxm", tokens="1T", **base).as_dict()
    assert dflt["iteration_time_s"] == ideal["iteration_time_s"]
    assert dflt["time_to_train_s"] == pytest.approx(ideal["time_to_train_s"] / GOODPUT)
    assert dflt["gpu_hours"] == pytest.approx(ideal["gpu_hours"] / GOODPUT)
    assert dflt["total_flops"] == ideal["total_flops"]
    with pytest.raises(PlanError, match="goodput must be a fraction"):
        llmcost.train("llama-3.2-1b", "h100-sxm", tokens="1T", goodput=0, **base)


@pytest.mark.parametrize(("sched", "v"), [("1f1b", None), ("interleaved", 2), ("gpipe", None)])
def test_pipeline_logits_count_only_what_the_last_stage_adds(sched: str, v: int | None) -> None:
    """One micro-batch's logits live on the last stage, which holds fewer micro-batches than the
    first (1F1B: one; interleaved: ((v-1)p + 1)/v; GPipe: all): they count by what the last stage's
    total exceeds the first stage's; without a pipeline all of them."""
    spec = _spec("llama-3.1-8b")
    base = {"gpus": 4, "pp": 4, "micro_batch": 2, "global_batch": 16, "seq_len": 4096, "schedule": sched}
    r = evaluate(spec, TrainPlan(**base, virtual_stages=v, recompute="selective"), get_hardware("h100-sxm"))
    logits = 4 * 4096 * 2 * spec.vocab_size  # fused cross-entropy: fp32 logits of one micro-batch
    acts, m = r.memory["activations"], 8
    first = {"1f1b": min(m, 4), "interleaved": min(m, 4) * (1 + 3 / 8), "gpipe": m}[sched]
    last = {"1f1b": 1, "interleaved": (4 + 1) / 2, "gpipe": m}[sched]
    assert r.memory["logits"] == pytest.approx(max(0.0, logits + acts * last / first - acts), rel=1e-9)
    one = evaluate(
        spec, TrainPlan(**{**base, "gpus": 1, "pp": 1, "schedule": "1f1b"}), get_hardware("h100-sxm")
    )
    assert one.memory["logits"] == pytest.approx(logits, rel=1e-12)
