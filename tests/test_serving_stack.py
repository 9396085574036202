"""Serving-engine host time and CUDA graphs (llmcost/inference/stack.py, formulas.engine_step)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from llmcost import api
from llmcost.errors import UserError
from llmcost.inference import _generated as F
from llmcost.inference.plan import plan_from_dict
from llmcost.inference.stack import EAGER_OP_S, PROFILES, apply, profile_for
from llmcost.validation.cases import case_hardware
from llmcost.validation.inference import evaluate_case

MODEL, HW = "llama-3.1-8b", "h100-sxm"
KEYS = {"batch": 8, "prompt_len": 256, "output_len": 64}


def _tpot(**keys: object) -> float:
    return float(api.infer(MODEL, HW, {**KEYS, **keys}).metrics()["tpot_s"])


def test_no_stack_is_bit_identical_to_zero_host_and_graphs() -> None:
    """A plan without a stack prices no host time: the same bits as stating zeros and full graphs,
    and as a stack whose host time is not published (TensorRT-LLM's C++ runtime)."""
    base = api.infer(MODEL, HW, KEYS).metrics()
    zero = api.infer(MODEL, HW, {**KEYS, "host_step_s": 0, "host_seq_s": 0, "graphs": "all"}).metrics()
    trt = api.infer(MODEL, HW, {**KEYS, "stack": "tensorrt-llm:2023"}).metrics()
    assert base == zero == trt


def test_synchronous_host_time_adds_to_every_decode_step() -> None:
    """vLLM V0: 4 ms per step + 0.1 ms per running sequence, between the GPU steps (RFC #6854 / #6913)."""
    graphed = _tpot(graphs="decode")  # the same graphs, no host time
    assert _tpot(stack="vllm:2024") == pytest.approx(graphed + 4e-3 + 8 * 1e-4, rel=1e-12)


def test_overlap_hides_host_time_shorter_than_the_gpu_step() -> None:
    base = _tpot()
    assert _tpot(host_step_s=1e-4, overlap_scheduler=True) == base
    assert _tpot(host_step_s=1e-4) == pytest.approx(base + 1e-4, rel=1e-12)
    long = 0.5  # longer than any step: the host sets the pace either way
    assert _tpot(host_step_s=long, overlap_scheduler=True) == pytest.approx(long, rel=1e-9)


def test_eager_decode_is_host_bound_at_batch_one() -> None:
    """Without CUDA graphs a small model's batch-1 decode step is issuing its operators, not running them."""
    r = api.infer(MODEL, HW, {**KEYS, "batch": 1, "graphs": "none"}).result
    kernels = float(np.asarray(r.decode.kernels).max())
    assert r.tpot == pytest.approx(kernels * EAGER_OP_S, rel=1e-9)
    assert r.tpot > api.infer(MODEL, HW, {**KEYS, "batch": 1}).result.tpot


@given(
    t=st.floats(0, 1),
    h0=st.floats(0, 0.1),
    hs=st.floats(0, 1e-3),
    b=st.integers(1, 4096),
    n=st.integers(0, 5000),
)
def test_engine_step_bounds(t: float, h0: float, hs: float, b: int, n: int) -> None:
    """Never below the GPU time; overlapping never slower than synchronous; eager never faster; more host
    time never faster."""
    kw = {"t_gpu": t, "h_step": h0, "h_seq": hs, "b_rep": b, "n_kernels": n, "t_issue": EAGER_OP_S}
    sync = F.engine_step(overlap=0.0, eager=0.0, **kw)
    ovl = F.engine_step(overlap=1.0, eager=0.0, **kw)
    eager = F.engine_step(overlap=0.0, eager=1.0, **kw)
    more = F.engine_step(overlap=0.0, eager=0.0, **{**kw, "h_step": h0 + 1e-3})
    assert t <= ovl <= sync <= eager
    assert more >= sync


def test_profiles_cover_their_years_and_name_sources() -> None:
    for p in PROFILES:
        assert set(p.sources) == {"host_step_s", "host_seq_s", "overlap_scheduler", "graphs"}
        assert all(p.sources.values())
    assert profile_for("vllm", 2024)[0].years == (2023, 2024)
    assert profile_for("trtllm", 2025)[0].framework == "tensorrt-llm"
    assert profile_for("vllm", 2031)[0].years == (2026, 2026)  # the nearest
    assert profile_for("sglang", None)[0] is PROFILES[4]  # the latest
    none, note = profile_for("vlm", 2024)
    assert none is None and "did you mean 'vllm'" in note


def test_plan_states_win_over_the_stack() -> None:
    keys, note = apply("vllm:2024", {"host_step_s": 0.001})
    assert keys["host_step_s"] == 0.001 and keys["host_seq_s"] == 1e-4 and "vllm (2023-2024)" in note
    assert plan_from_dict({"stack": {"framework": "sglang", "year": 2025}}).overlap_scheduler


@pytest.mark.parametrize(
    ("keys", "needle"),
    [
        ({"host_step_s": -1}, "host_step_s"),
        ({"host_seq_s": "x"}, "host_seq_s"),
        ({"overlap_scheduler": "yes"}, "overlap_scheduler"),
        ({"graphs": "some"}, "graphs"),
        ({"stack": 5}, "stack"),
        ({"stack": "vllm:twenty"}, "year"),
    ],
)
def test_bad_host_keys_are_one_line(keys: dict, needle: str) -> None:
    with pytest.raises(UserError, match=needle):
        plan_from_dict(keys)


def test_a_case_stack_prices_host_time() -> None:
    """A validation case's ``stack`` selects the serving profile; the plan's own keys still win."""
    case = {
        "id": "x",
        "kind": "infer",
        "model": MODEL,
        "hardware": HW,
        "stack": {"framework": "vllm", "year": 2024},
        "plan": dict(KEYS),
        "metric": {"name": "tpot_s", "value": 0.01},
    }
    hw = case_hardware(case)
    with_stack = evaluate_case(case, hw).value
    case["plan"] = {**KEYS, "host_step_s": 0, "host_seq_s": 0}
    assert evaluate_case(case, hw).value < with_stack


def test_search_infer_stack_matches_infer() -> None:
    """search infer --stack prices every plan as infer does, bit for bit."""
    rep = api.search_infer(
        MODEL, HW, gpus=1, batch=4, weights="bf16", activations="bf16", kv_cache="bf16",
        prompt_len=256, output_len=32, stack="vllm:2024", top=1,
    )  # fmt: skip
    row = rep.as_dict()["plans"][0]
    assert row["plan"]["stack"] == "vllm:2024"
    plan = {k: v for k, v in row["plan"].items() if k != "hardware"}
    assert api.infer(MODEL, HW, plan).metrics()["tpot_s"] == row["metrics"]["tpot_s"]


# ------------------------------------------------------------------ attention-DP ranks in lockstep
MOE = "deepseek-v3"
ADP = {"gpus": 8, "dp": 8, "ep": 8, "tp": 1, "batch": 512, "prompt_len": 1024, "output_len": 256}
ADP |= {"weights": "fp4", "activations": "fp4", "schedule": "continuous"}


def test_lockstep_ranks_prefill_more_often_than_aligned_ones() -> None:
    """Eight attention-DP ranks admitting on their own put prefill in more steps than aligned ones."""
    own = api.infer(MOE, "b200", ADP).metrics()
    aligned = api.infer(MOE, "b200", {**ADP, "aligned_prefill": True}).metrics()
    assert own["tpot_s"] > aligned["tpot_s"]
    assert any("lockstep" in n for n in api.infer(MOE, "b200", ADP).result.notes)


def test_no_lockstep_without_attention_dp() -> None:
    """ep <= tp (no attention-DP): aligned_prefill changes nothing, bit for bit."""
    keys = {**ADP, "dp": 1, "tp": 8}
    assert (
        api.infer(MOE, "b200", keys).metrics()
        == api.infer(MOE, "b200", {**keys, "aligned_prefill": True}).metrics()
    )


@given(f=st.floats(1e-6, 1), n=st.integers(1, 64))
def test_lockstep_shares_are_bounded(f: float, n: int) -> None:
    any_rank = float(F.cb_synced_share(share=f, n_sync=n))
    ranks = float(F.cb_prefilling_ranks(share=f, n_sync=n))
    own = float(F.cb_own_prefilling_ranks(share=f, n_sync=n))
    assert f <= any_rank <= 1 + 1e-12
    assert 1 / n - 1e-12 <= ranks <= 1 + 1e-12 and 1 / n - 1e-12 <= own <= 1 + 1e-12
    if n == 1:
        assert any_rank == f and ranks == 1 and own == 1


def test_search_lockstep_matches_infer() -> None:
    rep = api.search_infer(
        MOE, "b200", gpus=8, tp=1, dp=8, ep=8, batch=512, weights="fp4", activations="fp4", kv_cache="fp8",
        prompt_len=1024, output_len=256, schedule="continuous", top=1,
    )  # fmt: skip
    row = rep.as_dict()["plans"][0]
    plan = {k: v for k, v in row["plan"].items() if k != "hardware"}
    assert api.infer(MOE, "b200", plan).metrics()["tpot_s"] == row["metrics"]["tpot_s"]


def test_routed_experts_stream_at_their_own_figure() -> None:
    """efficiency.memory_experts prices the routed experts' weight stream; entries without it use memory."""
    from llmcost.catalog import get_hardware

    b200, l40s = get_hardware("b200"), get_hardware("l40s")
    assert b200.expert_memory_efficiency() == 0.57 < b200.memory_efficiency
    assert l40s.expert_memory_efficiency() == l40s.memory_efficiency


# ------------------------------------------------------------------ two-batch overlap
TBO = {"gpus": 16, "gpus_per_node": 8, "dp": 16, "ep": 16, "batch": 256, "prompt_len": 2048, "output_len": 32}
TBO |= {"weights": "fp8", "activations": "fp8"}


def test_two_batch_overlap_hides_exchanges_and_keeps_memory() -> None:
    base = api.infer(MOE, "h100-sxm", TBO).result
    tbo = api.infer(MOE, "h100-sxm", {**TBO, "two_batch_overlap": True}).result
    assert tbo.memory == pytest.approx(
        base.memory, rel=1e-12
    )  # the whole batch's KV cache, weights, activations
    pre = tbo.prefill
    assert pre.tbo and pre.sm_share == pytest.approx(24 / 132)
    comm = sum(o.count * o.time for o in pre.ops if o.name in ("ep_dispatch", "ep_combine"))
    comp = sum(o.count * o.time for o in pre.ops if o.name not in ("ep_dispatch", "ep_combine"))
    assert pre.time == pytest.approx(2 * max(comm, comp + pre.sm_share * comm), rel=1e-12)
    assert tbo.ttft < base.ttft  # the exchanges of a 2048-token prefill across nodes are worth hiding


def test_two_batch_overlap_needs_expert_parallelism() -> None:
    """Without ep > 1 (or on a dense model) there is nothing to hide: bit-identical."""
    keys = {
        **TBO,
        "gpus": 16,
        "dp": 1,
        "ep": 1,
        "tp": 16,
        "batch": 16,
        "weights": "fp4",
        "activations": "fp8",
    }
    assert (
        api.infer(MOE, "h100-sxm", keys).metrics()
        == api.infer(MOE, "h100-sxm", {**keys, "two_batch_overlap": True}).metrics()
    )
    assert (
        api.infer(MODEL, HW, KEYS).metrics()
        == api.infer(MODEL, HW, {**KEYS, "two_batch_overlap": True}).metrics()
    )
