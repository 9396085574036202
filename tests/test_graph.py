"""Operator graph: grouping, exact GEMM FLOPs vs parameter counts, causal attention, KV cache."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy as sp

from llmcost.catalog import get_model_config
from llmcost.graph import ops as G
from llmcost.model.config import from_config
from llmcost.model.params import count_params

GOLDEN = Path(__file__).parent / "golden" / "inference_expressions.txt"
GOLDEN_OPS = ("forward__std__dense", "decode__std__dense", "decode__mla__moe")


def spec(mid: str):  # noqa: ANN201
    return from_config(get_model_config(mid), where=mid)


def numbers(s, **work: float) -> dict:  # noqa: ANN001
    v = dict(
        G.model_values(s),
        tp=1,
        cp=1,
        ep=1,
        etp=1,
        b_w=2,
        b_a=2,
        b_kv=2,
        b_r=2,
        c_dq=0,
        micro_batch=1,
        seq=1,
        n_dec=1,
        ctx=1,
        seq_enc=1,
        window=float("inf"),
    )
    v.update(work)
    return v


def evaluate(expr, vals: dict) -> float:  # noqa: ANN001
    e = sp.sympify(expr)
    return float(
        e.subs({x: (sp.oo if vals[x.name] == float("inf") else vals[x.name]) for x in e.free_symbols})
    )


@pytest.mark.parametrize(
    "mid",
    [
        "llama-2-70b",
        "deepseek-v3",
        "gemma-3-27b",
        "mixtral-8x7b",
        "t5-v1_1-xxl",
        "qwen3-30b-a3b",
        "gpt-oss-20b",
    ],
)
def test_groups_cover_every_layer(mid: str) -> None:
    s = spec(mid)
    for phase in ("forward", "decode"):
        assert sum(g.count for g in G.layer_groups(s, phase)) == s.num_layers
    if s.is_encoder_decoder:
        assert sum(g.count for g in G.layer_groups(s, "encoder")) == s.num_encoder_layers


@pytest.mark.parametrize("mid", ["llama-2-7b", "llama-3.1-8b", "qwen3-8b"])
def test_gemm_flops_are_2_params_tokens(mid: str) -> None:
    """Forward GEMM FLOPs = 2 x (GEMM weights) x tokens exactly (no biases in these models)."""
    s = spec(mid)
    g = G.build(s, "forward", logits="all")
    vals = numbers(s, micro_batch=2, seq=512)
    gemm = evaluate(g.total("flops", ("gemm", "lm_head")), vals)
    c = count_params(s)
    norms = (
        s.num_layers * 2 * s.hidden_size + s.hidden_size + (2 * s.head_dim * s.num_layers if s.qk_norm else 0)
    )
    weights = c.total - c.embedding + (c.embedding if s.tie_word_embeddings else 0) - norms
    assert gemm == pytest.approx(2 * weights * 1024, rel=1e-12)


def test_causal_attention_flops_halved_and_window() -> None:
    s = spec("llama-2-7b")
    att = next(o for o in G.layer_ops("forward__std__dense") if o.name == "attention")
    v = numbers(s, seq=4096)
    full = evaluate(att.flops, v)
    assert full == pytest.approx(2 * 4096**2 / 2 * 32 * 256)  # 2*pairs*heads*(d_qk+d_v), pairs = s^2/2
    assert evaluate(att.flops, dict(v, window=8192)) == pytest.approx(full)
    w = evaluate(att.flops, dict(v, window=1024))
    assert w == pytest.approx(2 * (4096 * 1024 - 1024**2 / 2) * 32 * 256)


@pytest.mark.parametrize("mid", ["llama-2-70b", "deepseek-v3", "mistral-7b-v0.1"])
def test_kv_cache_bytes_per_token(mid: str) -> None:
    s = spec(mid)
    g = G.layer_groups(s, "decode")[0]
    v = numbers(s, ctx=100, window=G.window_value(g.window))
    assert evaluate(G.layer_kv_bytes(g.shape), v) == pytest.approx(100 * s.kv_cache_elems_per_token() * 2)


def test_kv_heads_replicated_beyond_tp() -> None:
    s = spec("llama-2-70b")  # 8 KV heads
    kv = G.layer_kv_bytes("decode__std__dense")
    v8 = evaluate(kv, numbers(s, ctx=10, tp=8))
    v16 = evaluate(kv, numbers(s, ctx=10, tp=16))
    assert v8 == v16 == pytest.approx(10 * 2 * 128 * 2)


def test_moe_touched_experts() -> None:
    ops = G.layer_ops("decode__std__moe")
    up = next(o for o in ops if o.name == "experts_up")
    s = spec("mixtral-8x7b")
    one = evaluate(up.hbm_bytes, numbers(s, micro_batch=1))
    many = evaluate(up.hbm_bytes, numbers(s, micro_batch=4096))
    per_expert = s.hidden_size * 2 * s.moe.expert_intermediate_size * 2
    assert one == pytest.approx(2 * per_expert, rel=1e-3)  # top-2 of 8: one token touches 2 experts
    assert many / per_expert > 7.99  # a large batch touches all 8


def test_golden_expressions() -> None:
    lines = []
    for shape in GOLDEN_OPS:
        for o in G.layer_ops(shape):
            lines.append(f"{shape}.{o.name}: flops={o.flops} | hbm={o.hbm_bytes} | size={o.size}")
    text = "\n".join(lines) + "\n"
    if not GOLDEN.exists():  # pragma: no cover - first run writes it
        GOLDEN.write_text(text)
    assert text == GOLDEN.read_text()


def test_moe_without_shared_experts_runs_no_shared_operators() -> None:
    """A model without shared experts (``d_shared`` = 0: Qwen3-MoE, Mixtral, gpt-oss) moves no bytes in
    the shared-expert operators, so they run no kernel; with them, the bytes stand."""

    def at(expr: sp.Expr, width: int) -> sp.Expr:
        return expr.subs({s: width for s in expr.free_symbols if s.name == "d_shared"})

    for shape in ("forward__std__moe", "decode__mla__moe"):
        shared = [o for o in G.layer_ops(shape) if o.name.startswith("shared_")]
        assert len(shared) == 3
        assert all(at(o.hbm_bytes, 0) == 0 and at(o.hbm_bytes, 2048) != 0 for o in shared)
