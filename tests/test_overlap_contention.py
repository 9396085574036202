"""Overlap with contention (issue 17, T3): the ring collectives' HBM traffic, the SM / HBM contention
of an overlapped pair, T3's reduce-scatter fused into its producer GEMM (plan ``tp_fused_rs``), the
HBM term behind plan ``hbm_contention`` (default off: every plan costs as before), and the TP
sublayer view (``train --sublayers``, metric ``sublayer_speedup``) that reproduces T3's speed-ups."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import llmcost
from llmcost.errors import PlanError
from llmcost.training import _generated as G
from llmcost.training.plan import sublayer_rows, sublayer_speedup

BASE = dict(gpus=8, tp=8, sp=False, global_batch=8, seq_len=2048, stack="none")  # the plain plan, no profile
POS = st.floats(1e-6, 1e3, allow_nan=False)


@pytest.mark.parametrize(("n", "ratio"), [(8, 2.5), (16, 2.2)])
def test_ring_reads_against_the_fused_ones_match_t3(n: int, ratio: float) -> None:
    """T3 §6.2: its fused reduce-scatter reads 2.5x (TP 8) and 2.2x (TP 16) less than the ring's:
    the ring reads 2n - 1 chunks (every input chunk, every arriving one), the fused n - 2."""
    assert (2 * n - 1) / (n - 2) == pytest.approx(ratio, abs=0.05)
    chunk = 1.0 / n
    ring = G.comm__hbm_ring_rs(1.0, n)  # reads 2n - 1 chunks, writes n (n - 1 arriving, 1 result)
    assert ring == pytest.approx((2 * n - 1) * chunk + n * chunk)
    assert G.comm__hbm_fused_rs(1.0, n) == pytest.approx((n - 2) * chunk + (n - 1) * chunk - chunk)
    assert G.comm__hbm_ring_ar(1.0, n) == pytest.approx(ring + G.comm__hbm_ring_ag(1.0, n))


@settings(max_examples=200, deadline=None)
@given(rs=POS, g=POS, m_rs=POS, m_g=POS, tp=st.integers(2, 64))
def test_fused_pair_lies_between_hidden_and_serial(
    rs: float, g: float, m_rs: float, m_g: float, tp: int
) -> None:
    """Without HBM contention the fused reduce-scatter adds max(0, rs - g(t-1)/t): at least what the
    GEMM cannot cover, at most the reduce-scatter itself; HBM contention only adds."""
    x = float(G.tp__pair_fused(0.0, 0.0, g, rs, tp))
    assert x == pytest.approx(max(0.0, rs - g * (tp - 1) / tp))
    assert max(0.0, rs - g) <= x * (1 + 1e-12) and x <= rs * (1 + 1e-12)
    assert float(G.tp__pair_fused(m_g, m_rs, g, rs, tp)) >= x
    s = 0.2
    # the SM-contended overlap of independent kernels is never better than the fused pair, which takes no SM
    assert float(G.overlap__contended(0.0, 0.0, s, rs, g)) >= max(0.0, rs - g)


def test_the_hbm_term_is_the_pairs_shared_bandwidth() -> None:
    """Off (HBM times 0) the contended pair is the SM-only form; on, the pair takes at least both
    kernels' HBM time."""
    assert float(G.overlap__contended(0.0, 0.0, 0.1, 1.0, 5.0)) == pytest.approx(0.1)
    assert float(G.overlap__contended(3.0, 2.5, 0.1, 1.0, 5.0)) == pytest.approx(0.5)
    assert float(G.tp__pair_overlap(3.0, 2.5, 5.0, 1.0)) == pytest.approx(0.5)


@pytest.mark.parametrize(
    "keys",
    [
        dict(gpus=64, tp=8, global_batch=256, seq_len=4096),
        dict(gpus=64, tp=8, global_batch=256, seq_len=4096, tp_overlap=True, tp_bwd_overlap=True),
        dict(gpus=16, tp=2, zero=3, global_batch=32, seq_len=2048),
        dict(gpus=64, tp=4, pp=2, distributed_optimizer=True, global_batch=256, seq_len=4096),
    ],
)
def test_plans_cost_as_before_without_the_new_keys(keys: dict) -> None:
    """hbm_contention false (the default) is the plan without it, bit for bit; on, nothing gets
    faster and no printed plan key appears for the defaults."""
    plain = llmcost.train("llama-3-8b", "h100-sxm", **keys).as_dict()
    off = llmcost.train("llama-3-8b", "h100-sxm", hbm_contention=False, **keys).as_dict()
    on = llmcost.train("llama-3-8b", "h100-sxm", hbm_contention=True, **keys).as_dict()
    assert off == plain
    assert "hbm_contention" not in plain["plan"] and "tp_fused_rs" not in plain["plan"]
    assert on["iteration_time_s"] >= plain["iteration_time_s"]
    assert on["plan"]["hbm_contention"] is True


def test_fused_reduce_scatter_hides_tp_communication() -> None:
    plain = llmcost.train("gpt3-13b", "a100-sxm4-80gb", **BASE).result
    fused = llmcost.train("gpt3-13b", "a100-sxm4-80gb", tp_fused_rs=True, **BASE)
    r = fused.result
    assert 0 < r.breakdown["tp_comm"] < plain.breakdown["tp_comm"]
    assert r.step_time < plain.step_time
    for k, v in plain.breakdown.items():
        if k not in ("tp_comm", "power_limit"):
            assert r.breakdown[k] == v, k
    assert r.breakdown["power_limit"] >= plain.breakdown["power_limit"]  # less waiting: the step draws more
    d = fused.as_dict()
    assert d["plan"]["tp_fused_rs"] is True
    again = llmcost.train("gpt3-13b", "a100-sxm4-80gb", plan=d["plan"]).as_dict()
    assert again["iteration_time_s"] == d["iteration_time_s"]


def test_sublayers_are_the_steps_figures() -> None:
    """The four sublayers of a GPT layer (O and FC2 forward, QKV and FC1 data gradients backward):
    sequential = GEMM + all-reduce, speed-up 1 on the plain plan, > 1 fused, and the exposed
    collectives of the fused plan sum (over the passes) to the step's TP line."""
    plain = llmcost.train("gpt3-13b", "a100-sxm4-80gb", **BASE)
    rows = plain.sublayers()
    assert [(r["phase"], r["gemm"]) for r in rows] == [
        ("forward", "o_proj"),
        ("backward", "qkv_proj dgrad"),
        ("forward", "down_proj"),
        ("backward", "up_proj dgrad"),
    ]
    assert all(r["speedup"] == 1.0 and r["sequential_s"] == r["plan_s"] for r in rows)
    assert sublayer_speedup(rows) == 1.0
    fused = llmcost.train("gpt3-13b", "a100-sxm4-80gb", tp_fused_rs=True, **BASE)
    frows = fused.sublayers()
    assert all(1.0 < r["speedup"] < 2.0 for r in frows)
    layers = frows[0]["layers"]
    exposed = sum(r["plan_s"] - r["gemm_s"] for r in frows) * layers * fused.result.layout.m
    assert exposed == pytest.approx(fused.result.breakdown["tp_comm"], rel=1e-9)
    assert sublayer_rows(fused.spec, fused.result.layout.plan.__class__(gpus=8), fused.hardware) == []


@pytest.mark.parametrize(
    ("keys", "words"),
    [
        (dict(gpus=8, tp=1, tp_fused_rs=True), "needs tp > 1"),
        (dict(gpus=8, tp=8, tp_fused_rs=True, tp_overlap=True), "set one of them"),
        (dict(gpus=8, tp=8, tp_fused_rs="yes"), "tp_fused_rs must be true or false"),
        (dict(gpus=8, tp=8, hbm_contention=1), "hbm_contention must be true or false"),
    ],
)
def test_what_the_new_keys_refuse(keys: dict, words: str) -> None:
    with pytest.raises(PlanError, match=words):
        llmcost.train("gpt3-13b", "a100-sxm4-80gb", **keys)


def test_a_stack_does_not_turn_tp_overlap_on_over_the_fusion(monkeypatch: pytest.MonkeyPatch) -> None:
    """A profile that overlaps TP communication sets tp_overlap, unless the plan fuses the
    reduce-scatter (the two are alternatives for it)."""
    from dataclasses import replace

    from llmcost.catalog import get_hardware
    from llmcost.training import stack as S

    real = S.profile_for
    monkeypatch.setattr(S, "profile_for", lambda *a: (replace(real(*a)[0], tp_comm_overlap=True), ""))
    hw = get_hardware("h100-sxm")
    assert S.apply("nemo:2024", {"tp": 8}, hw).plan["tp_overlap"] is True
    assert "tp_overlap" not in S.apply("nemo:2024", {"tp": 8, "tp_fused_rs": True}, hw).plan


def test_cli_sublayers_and_flags(cli) -> None:  # noqa: ANN001
    args = ("train", "gpt3-13b", "--hw", "a100-sxm4-80gb", "--gpus", "8", "--tp", "8", "--no-sp")
    r = cli(*args, "--tp-fused-rs", "--hbm-contention", "--sublayers")
    assert r.code == 0, r.err
    assert "sublayer_speedup" in r.out and "o_proj" in r.out
    j = cli(*args, "--tp-fused-rs", "--sublayers", "--format", "json")
    assert j.code == 0, j.err
    rows = json.loads(j.out)
    assert len(rows) == 4 and all(r["speedup"] > 1 for r in rows)
    e = cli(*args, "--tp-fused-rs", "--emit", "megatron")
    assert e.code == 0 and "tp_fused_rs: T3" in e.out
    bad = cli("train", "gpt3-13b", "--gpus", "8", "--tp", "1", "--tp-fused-rs")
    assert bad.code == 2 and bad.err.startswith("error: ") and bad.err.count("\n") == 1, bad.err


def test_the_t3_cases_reproduce_the_headline(cli) -> None:  # noqa: ANN001
    """T3-MCA: 30% geomean over Mega-GPT-2 and T-NLG at TP 8 / 16, 29% for the 175B-530B models at
    TP 32; the pooled predictions land within 10% of each."""
    r = cli("validate", "validation/comm-overlap.yaml", "--format", "json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    preds = {c["id"]: c["predicted"] for c in doc["cases"]}
    small = [v for k, v in preds.items() if not k.endswith("tp32")]
    large = [v for k, v in preds.items() if k.endswith("tp32")]
    geo = [math.exp(sum(map(math.log, xs)) / len(xs)) for xs in (small, large)]
    assert geo[0] == pytest.approx(1.30, rel=0.10) and geo[1] == pytest.approx(1.29, rel=0.10)
    assert doc["summary"]["train_sublayer"]["evaluated"] == len(preds) == 6
