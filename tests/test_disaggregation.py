"""Prefill / decode disaggregation (``infer --prefill-pool``) and the RDMA write it ships the KV
cache with (``collective send_recv --algo rdma_write``)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcost import api
from llmcost.catalog import get_hardware
from llmcost.collectives.cost import collective
from llmcost.errors import PlanError, UserError

H100 = get_hardware("h100-sxm")


def test_rdma_write_is_line_rate_over_the_nics() -> None:
    """2α + S/(n·η·W): 4 NICs four times the bandwidth of one; never picked by auto; needs the network."""
    one = collective(H100, "send_recv", 40e9, 2, 1, algo="rdma_write")
    four = collective(H100, "send_recv", 40e9, 2, 1, algo="rdma_write", nics=4)
    tier = H100.fabric[-1]
    assert one.algbw == pytest.approx(tier.bandwidth * tier.efficiency, rel=1e-3)
    assert four.algbw == pytest.approx(4 * one.algbw, rel=1e-3)
    assert collective(H100, "send_recv", 40e9, 2, 1).algo == "direct"
    with pytest.raises(PlanError, match="different nodes"):
        collective(H100, "send_recv", 1e6, 2, 8, algo="rdma_write")


def run(**kw):  # noqa: ANN003, ANN201
    base = {"tp": 8, "gpus": 8, "batch": 64, "prompt_len": 4096, "output_len": 512}
    pool = kw.pop("prefill_pool", "tp=8,batch=2")
    return api.infer_disaggregated("llama-3.1-70b", "h100-sxm", {**base, **kw}, prefill_pool=pool)


def test_deployment_composes_the_pools() -> None:
    """TTFT = prefill TTFT + KV write; TPOT the decode pool's; the slower pool sets the rate."""
    dep = run()
    m = dep.metrics()
    assert m["ttft_s"] == pytest.approx(dep.prefill.ttft + dep.kv_time)
    assert m["tpot_s"] == dep.decode.tpot
    assert m["requests_per_s"] == min(m["prefill_requests_per_s"], m["decode_requests_per_s"])
    assert m["output_tokens_per_s"] == pytest.approx(m["requests_per_s"] * 512)
    assert m["gpus"] == 16 and dep.prefill.plan.output_len == 1 and dep.decode.plan.disaggregated
    # the prompt KV of a batch of 2 at 4096 tokens, 1/8 of it per GPU (8 KV heads over tp 8)
    kv_per_token = 80 * 2 * 8 * 128 * 2  # layers x (K, V) x KV heads x head dim x bf16 bytes
    assert m["kv_transfer_bytes_per_gpu"] == pytest.approx(2 * 4096 * kv_per_token / 8)


def test_more_prefill_replicas_lift_a_prefill_bound_deployment() -> None:
    small = run(prefill_pool="tp=8,batch=1")
    big = run(prefill_pool="tp=4,dp=4,batch=4")
    assert small.metrics()["bound_by"] == "prefill pool"
    assert big.metrics()["requests_per_s"] > small.metrics()["requests_per_s"]


def test_more_nics_shorten_the_transfer() -> None:
    a = api.infer_disaggregated("llama-3.1-70b", "h100-sxm", {"tp": 8, "batch": 8}, prefill_pool="tp=8")
    b = api.infer_disaggregated(
        "llama-3.1-70b", "h100-sxm", {"tp": 8, "batch": 8}, prefill_pool="tp=8", kv_nics=4
    )
    assert b.kv_time < a.kv_time


def test_heterogeneous_pools() -> None:
    dep = run(prefill_pool="hw=b200,tp=4,weights=fp8")
    assert dep.prefill_hw.id == "b200" and dep.decode_hw.id == "h100-sxm"
    assert dep.prefill.formats[0] == "fp8" and dep.decode.formats[0] == "bf16"


@pytest.mark.parametrize(
    ("pool", "words"),
    [
        ("tpp=8", "did you mean 'tp'"),
        ("tp8", "KEY=VALUE"),
        ("tp=8,tp=4", "given twice"),
        ("hw=h1000", "h1000"),
    ],
)
def test_bad_pool_is_one_clear_error(pool: str, words: str) -> None:
    with pytest.raises(UserError, match=words):
        run(prefill_pool=pool)


def test_cli(cli) -> None:  # noqa: ANN001
    ok = cli("infer", "llama-3.1-8b", "--batch", "16", "--prefill-pool", "tp=1,batch=2", "-f", "json")
    assert ok.code == 0, ok.err
    d = json.loads(ok.out)
    assert {"prefill", "decode", "kv_transfer_s", "bound_by"} <= set(d)
    t = cli("infer", "llama-3.1-8b", "--prefill-pool", "tp=1", "--kv-nics", "2")
    assert t.code == 0 and "KV write" in t.out
    bad = cli("infer", "llama-3.1-8b", "--prefill-pool", "tq=1")
    assert bad.code == 2 and len(bad.err.strip().splitlines()) == 1
    col = cli(
        "collective",
        "send_recv",
        "--gpus",
        "2",
        "--gpus-per-node",
        "1",
        "--algo",
        "rdma_write",
        "--nics",
        "4",
    )
    assert col.code == 0 and "rdma_write" in col.out


def test_search_sizes_pools_within_the_budget_and_slos() -> None:
    """Every deployment fits the budget and the SLOs, balances the pools (the slower one sets the
    rate, the other has no spare instance), best first; each pool re-costs as infer --prefill-pool does."""
    deps = api.search_disaggregated(
        "llama-3.1-8b",
        "h100-sxm",
        budget_gpus=16,
        gpus="1,2",
        prompt_len=2048,
        output_len=256,
        max_ttft="1s",
        max_tpot="40ms",
        top=5,
    )
    assert deps
    rates = [d.rate for d in deps]
    assert rates == sorted(rates, reverse=True)
    for d in deps:
        m = d.metrics()
        assert m["gpus"] <= 16 and m["ttft_s"] <= 1.0 and m["tpot_s"] <= 0.04
        slow, fast = sorted([d.n_prefill * d.prefill.rate, d.n_decode * d.decode.rate])
        n_fast = d.n_decode if d.n_decode * d.decode.rate == fast else d.n_prefill
        unit = d.decode.rate if n_fast == d.n_decode else d.prefill.rate
        assert (n_fast - 1) * unit < slow  # no spare instance in the faster pool
    best = deps[0]
    pre = {k: v for k, v in best.prefill.plan.items() if k in ("tp", "pp", "dp", "ep", "batch")}
    dec = {k: v for k, v in best.decode.plan.items() if k not in ("hardware", "disaggregated", "gpus")}
    pool = ",".join(f"{k}={v}" for k, v in pre.items()) + f",hw={best.prefill.plan['hardware']}"
    one = api.infer_disaggregated("llama-3.1-8b", best.decode.plan["hardware"], dec, prefill_pool=pool)
    assert one.metrics()["ttft_s"] == pytest.approx(best.prefill.latency, rel=1e-9)
    assert one.decode.tpot == pytest.approx(best.decode.latency, rel=1e-9)


def test_search_cli(cli) -> None:  # noqa: ANN001
    args = ("search", "infer", "llama-3.1-8b", "--disaggregated", "--budget-gpus", "8", "--gpus", "1")
    r = cli(*args, "--top", "2")
    assert r.code == 0 and "prefill pool" in r.out, r.err
    j = cli(*args, "-f", "json")
    assert j.code == 0 and "deployments" in json.loads(j.out)
    bad = cli("search", "infer", "llama-3.1-8b", "--disaggregated")
    assert bad.code == 2 and "--budget-gpus" in bad.err


def test_review_cases() -> None:
    """Pools inside one NVL72 domain send over NVLink; a pipelined prefill pool takes a batch every
    m·T_fwd/p; the decode pool receives at most its NICs' rate; errors name their pool; NICs are
    bounded by the host's."""
    nvl = api.infer_disaggregated("llama-3.1-8b", "gb200-nvl72", {"batch": 8}, prefill_pool="tp=1")
    assert nvl.metrics()["kv_path"] != "rdma_write" and nvl.kv_time > 0
    flat = run(prefill_pool="tp=8,batch=4")
    piped = run(prefill_pool="tp=2,pp=4,batch=4")
    assert piped.metrics()["prefill_requests_per_s"] > 0.5 * flat.metrics()["prefill_requests_per_s"]
    slow = api.infer_disaggregated(
        "llama-3.1-8b",
        "h100-sxm",
        {"batch": 100, "prompt_len": 8192, "output_len": 16, "kv_cache": "fp8"},
        prefill_pool="dp=32,batch=32",
    )
    m = slow.metrics()
    assert m["decode_requests_per_s"] * slow.kv_per_request_decode_gpu <= slow.recv_bw * (1 + 1e-9)
    with pytest.raises(PlanError, match="^prefill pool: "):
        run(prefill_pool="tp=1,batch=64")
    with pytest.raises(PlanError, match="host has 8"):
        collective(H100, "send_recv", 1e9, 2, 1, algo="rdma_write", nics=9)
    with pytest.raises(UserError, match="rdma_write"):
        collective(H100, "send_recv", 1e9, 2, 1, algo="direct", nics=2)
    with pytest.raises(UserError):
        run(prefill_pool="tp=²")
    with pytest.raises(PlanError, match="decoder-only"):
        api.infer_disaggregated("flan-t5-xxl", "h100-sxm", {"batch": 4}, prefill_pool="tp=1")


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 8), st.integers(1, 4))
def test_more_nics_never_slower_and_rates_bounded(nics: int, more: int) -> None:
    a = collective(H100, "send_recv", 3e9, 2, 1, algo="rdma_write", nics=min(nics, 8))
    b = collective(H100, "send_recv", 3e9, 2, 1, algo="rdma_write", nics=min(nics + more, 8))
    assert b.time <= a.time
    dep = api.infer_disaggregated(
        "llama-3.1-8b", "h100-sxm", {"batch": 16}, prefill_pool=f"dp={nics},batch={nics}", kv_nics=1
    )
    m = dep.metrics()
    assert (
        0 < m["requests_per_s"] <= min(m["prefill_requests_per_s"], m["decode_requests_per_s"]) * (1 + 1e-12)
    )
    assert m["ttft_s"] >= dep.prefill.ttft and m["output_tokens_per_s"] > 0


def test_api_collective_nics_and_search_kv_nics(cli) -> None:  # noqa: ANN001
    import llmcost

    one = llmcost.collective(
        "send_recv", "h100-sxm", size="1GiB", gpus=2, gpus_per_node=1, algorithm="rdma_write"
    )
    four = llmcost.collective(
        "send_recv", "h100-sxm", size="1GiB", gpus=2, gpus_per_node=1, algorithm="rdma_write", nics=4
    )
    assert four.time < one.time
    r = cli("search", "infer", "llama-3.1-8b", "--gpus", "1", "--kv-nics", "2")
    assert r.code == 2 and "--disaggregated" in r.err
    ok = cli(
        "search",
        "infer",
        "llama-3.1-8b",
        "--gpus",
        "1",
        "--disaggregated",
        "--budget-gpus",
        "4",
        "--kv-nics",
        "2",
    )
    assert ok.code == 0, ok.err
