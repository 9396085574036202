"""Continuous batching (plan key ``schedule: continuous``): the steady state at a fixed concurrency,
its limits (one request, a decode pool, a prefill pool), memory, the search and the errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcost.catalog import get_hardware
from llmcost.errors import PlanError, UserError
from llmcost.inference import _generated as F
from llmcost.inference import serve as I
from llmcost.search import infer as SI

H100 = get_hardware("h100-sxm")


def run(model: str = "llama-3.1-70b", **kw):  # noqa: ANN003, ANN201
    base = {"tp": 4, "gpus": 4, "batch": 16, "prompt_len": 1024, "output_len": 256, "schedule": "continuous"}
    return I.cost(model, H100, I.plan_from_dict({**base, **kw}))


def test_one_request_is_the_static_request() -> None:
    """At concurrency 1 nothing shares the engine: TTFT is the prompt's prefill and TPOT the decode
    step at the mean context, as the static schedule's (the attention is affine in the context)."""
    for model in ("llama-3.1-70b", "deepseek-v2"):
        kw = {"tp": 8, "gpus": 8} if model == "deepseek-v2" else {}
        c, s = run(model, batch=1, **kw), run(model, batch=1, schedule="static", **kw)
        assert c.ttft == pytest.approx(s.ttft, rel=2e-3)
        assert c.tpot == pytest.approx(s.tpot, rel=2e-3)
        assert c.metrics()["output_tokens_per_s"] == pytest.approx(
            s.metrics()["output_tokens_per_s"], rel=2e-3
        )


def test_little_law_and_decode_share() -> None:
    """Output rate = B·n_out / E2E; the share of steps carrying prefill chunks is (C − 1)·n_ch/(n_out − 1)."""
    r = run(batch=16)
    m = r.metrics()
    assert m["output_tokens_per_s"] == pytest.approx(16 * 256 / r.e2e, rel=1e-12)
    assert r.e2e == pytest.approx(r.ttft + 255 * r.tpot, rel=1e-12)
    share = F.cb_prefill_share(conc=16, output_len=256, n_acc=1.0, n_chunks=1.0)
    assert share == pytest.approx(15 / 255)
    assert F.cb_prefill_share(conc=1000, output_len=256, n_acc=1.0, n_chunks=1.0) == 1.0


def test_piggybacking_beats_the_static_schedule_at_moderate_concurrency() -> None:
    """The prefills ride in decode steps (weights read once) and the KV cache holds the mean context:
    more output per second than prefilling the batch apart, and a larger batch fits."""
    c, s = run(batch=32), run(batch=32, schedule="static")
    assert c.metrics()["output_tokens_per_s"] >= s.metrics()["output_tokens_per_s"] * 0.97
    assert c.ttft < s.ttft  # one prompt's chunk, not the whole batch's prefill
    assert c.memory["kv_cache"] < s.memory["kv_cache"]
    assert c.max_batch > s.max_batch


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 200), st.integers(1, 50))
def test_more_concurrency_never_lowers_throughput_nor_speeds_tpot(b: int, more: int) -> None:
    """The step only grows; throughput saturates, within the GEMM tile quantization of a mixed step
    (a prefill chunk plus the decode tokens crossing a 128-row tile costs a few percent)."""
    lo, hi = run(batch=b, tp=8, gpus=8), run(batch=b + more, tp=8, gpus=8)
    assert hi.metrics()["output_tokens_per_s"] >= lo.metrics()["output_tokens_per_s"] * 0.95
    assert hi.tpot >= lo.tpot * (1 - 1e-9)


def test_chunked_prefill_spreads_ttft_over_steps() -> None:
    """A 4096-token prompt in 1024-token chunks takes 4 prefill-carrying steps."""
    r = run(prompt_len=4096, prefill_chunk=1024, batch=8)
    assert F.cb_chunks(prompt_len=4096, chunk=1024) == 4
    assert r.ttft > 3 * r.tpot


def test_disaggregated_pools() -> None:
    """The decode pool never prefills (TTFT 0, output = B / TPOT); the prefill pool decodes nothing."""
    d = run(disaggregated=True, batch=64)
    assert d.ttft == 0 and d.metrics()["output_tokens_per_s"] == pytest.approx(64 / d.tpot)
    p = run(disaggregated=True, output_len=1, batch=8)
    assert p.ttft > 0 and p.metrics()["input_tokens_per_s_per_gpu"] == pytest.approx(8 * 1024 / p.e2e / 4)


def test_speculation_under_continuous_batching() -> None:
    """Speculation divides the decode step by the tokens it emits."""
    base = run(batch=8)
    spec = run(batch=8, speculative={"method": "ngram", "tokens": 3, "acceptance_length": 2.5})
    assert spec.tpot < base.tpot


def test_search_with_continuous_batching_is_the_single_plan() -> None:
    space = SI.InferSpace(
        prompt_len=1024,
        output_len=64,
        gpus=(4,),
        batch=(1, 7, 64),
        weights=("fp8",),
        activations=(None,),
        kv_cache=(None,),
        schedule="continuous",
    )
    plans, cols, _, n = SI.search_space("llama-3.1-70b", [H100], space)
    assert n
    for i in range(n):
        p = plans[i]
        assert p["schedule"] == "continuous"
        if not cols["fits"][i]:
            continue
        m = I.cost("llama-3.1-70b", H100, I.plan_from_dict(SI.plan_keys(p))).metrics()
        for k in ("ttft_s", "tpot_s", "output_tokens_per_s_per_gpu", "memory_gib_per_gpu"):
            assert m[k] == float(cols[k][i]), (k, p)


def test_errors() -> None:
    with pytest.raises(PlanError, match="pipeline parallelism"):
        run(pp=2, tp=2)
    with pytest.raises(UserError, match="did you mean 'continuous'"):
        run(schedule="contineous")


def test_cli_schedule(cli) -> None:  # noqa: ANN001
    ok = cli("infer", "llama-3.1-8b", "--batch", "8", "--schedule", "continuous")
    assert ok.code == 0 and "continuous batching" in ok.out + ok.err
    bad = cli("infer", "llama-3.1-8b", "--schedule", "dynamic")
    assert bad.code == 2 and len(bad.err.strip().splitlines()) == 1


def test_one_output_token_and_short_outputs_stay_finite() -> None:
    """One output token: nothing decodes, TPOT is the step the batch would decode in (as static);
    a speculative step cannot emit more tokens than the request has left."""
    for b in (1, 4):
        r = run(batch=b, output_len=1)
        s = run(batch=b, output_len=1, schedule="static")
        assert r.tpot > 0 and r.metrics()["output_tokens_per_s_per_user"] > 0
        assert r.tpot == pytest.approx(s.tpot, rel=0.05)
    spec = {"method": "eagle", "tokens": 3, "acceptance_rate": 1.0}
    c = run(batch=1, output_len=2, speculative=spec)
    assert c.e2e >= c.ttft + c.tpot * 0.999 and c.tpot >= run(batch=1, output_len=2).tpot * 0.99


def test_refused_combinations() -> None:
    with pytest.raises(PlanError, match="decoder-only"):
        I.cost("flan-t5-xxl", H100, I.plan_from_dict({"batch": 4, "schedule": "continuous"}))
    with pytest.raises(PlanError, match="context parallelism"):
        run(cp=2, tp=2)
    with pytest.raises(UserError, match="prompt lookup"):
        run(speculative={"method": "ngram", "tokens": 2, "acceptance_rate": 0.5, "weights": "bf16"})


def test_mixed_step_tends_to_the_decode_step() -> None:
    """A prefill chunk of a few tokens beside many decodes costs about the decode step (the decode
    rows priced as a decode step prices them, evaluator._blend), for MoE and MLA models too."""
    from llmcost.inference.serve import Evaluator, _decode, _mixed_step

    for model, kw in (("llama-3.1-70b", {"tp": 4}), ("deepseek-v3", {"tp": 8, "weights": "fp8"})):
        ev = Evaluator(
            I.spec_of(model), H100, I.plan_from_dict({**kw, "batch": 64, "schedule": "continuous"})
        )
        dec = float(_decode(ev, 64.0, 1500.0, 1024).time)
        mix = float(_mixed_step(ev, 64.0, 1e-4, 1500.0, 1024).time)
        assert mix == pytest.approx(dec, rel=0.15), model


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 400), st.integers(1, 100))
def test_memory_monotone_in_concurrency(b: int, more: int) -> None:
    lo, hi = run(batch=b, tp=8, gpus=8), run(batch=b + more, tp=8, gpus=8)
    assert hi.memory["total"] >= lo.memory["total"] and hi.memory["kv_cache"] >= lo.memory["kv_cache"]
