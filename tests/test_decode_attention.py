"""Decode attention that reads the KV cache once per query head (plan key ``decode_attention``)."""

from __future__ import annotations

import pytest

from llmcost.catalog import get_hardware
from llmcost.errors import UserError
from llmcost.inference import serve as I

H100 = get_hardware("h100-sxm")


def run(model: str, **keys: object) -> I.InferenceResult:
    base = {"tp": 2, "batch": 8, "prompt_len": 1024, "output_len": 16}
    return I.cost(model, H100, I.plan_from_dict({**base, **keys}))


def _decode_attention(r: I.InferenceResult) -> float:
    """KV-cache and Q/O bytes of the decode attention, summed over the decode steps."""
    import numpy as np

    return float(sum(np.sum(o.hbm_bytes) for o in r.decode.ops if o.kind == "attention"))


def test_per_head_reads_the_cache_once_per_query_head_of_a_group() -> None:
    """Llama 3.1 8B (32 query, 8 KV heads) on tp 2: 4 query heads per KV head, so the decode
    attention's KV-cache bytes grow 4x and the step slows; prefill is unchanged."""
    g, p = run("llama-3.1-8b"), run("llama-3.1-8b", decode_attention="per_head")
    assert p.ttft == g.ttft
    assert p.tpot > g.tpot and _decode_attention(p) > 3 * _decode_attention(g)


def test_per_head_changes_nothing_for_multi_head_attention() -> None:
    g, p = run("llama-2-7b"), run("llama-2-7b", decode_attention="per_head")
    assert (g.ttft, g.tpot) == (p.ttft, p.tpot)


def test_bad_value_is_named() -> None:
    with pytest.raises(UserError, match="decode_attention 'xqa': use one of grouped, per_head"):
        I.plan_from_dict({"decode_attention": "xqa"})


def test_kv_reads_past_the_kv_heads() -> None:
    """tp 16 on 8 KV heads: each device holds one KV head (replicated) and 2 query heads, so a
    per-head kernel reads its KV twice; arrays of plans get one value each."""
    import numpy as np

    from llmcost.inference.evaluator import kv_reads

    spec = I.spec_of("llama-3.1-8b")  # 32 query heads, 8 KV heads
    assert kv_reads(spec, I.Plan(tp=16, decode_attention="per_head")) == 2.0
    assert kv_reads(spec, I.Plan(tp=2, decode_attention="per_head")) == 4.0
    assert kv_reads(spec, I.Plan(tp=2)) == 1.0
    rows = I.Plan(tp=np.array([1, 2, 16]), decode_attention="per_head")
    assert kv_reads(spec, rows).tolist() == [4.0, 4.0, 2.0]


def test_per_head_is_refused_for_mla() -> None:
    from llmcost.errors import PlanError

    with pytest.raises(PlanError, match="deepseek-v3 uses MLA"):
        I.cost("deepseek-v3", H100, I.plan_from_dict({"tp": 8, "gpus": 8, "decode_attention": "per_head"}))
