"""Operator graph: a :class:`~llmcost.model.spec.ModelSpec` as operators per layer kind and phase.

API
---
* :func:`layer_groups` ``(spec, phase) -> tuple[GroupInfo, ...]`` — no sympy. The layers of
  the model grouped by expression shape, each with a ``count``, its sliding ``window``
  (``None`` = full attention) and the ``shape`` key naming its expression set
  (``"{phase}__{attn}__{ffn}"``, e.g. ``forward__std__dense``, ``decode__mla__moe``,
  ``forward__cross__dense`` for decoder layers with cross-attention, ``encoder__std__dense``).
* :func:`layer_ops` ``(shape) -> tuple[Op, ...]`` and :func:`io_ops` ``(phase, logits)`` — the
  operators of one layer / of the embedding + final norm + LM head, each carrying sympy
  expressions **per device, for one layer**: ``flops``, ``hbm_bytes`` (bytes moved to/from
  HBM, weight reads included), ``weight_bytes`` (resident weights), ``dequant`` (vector
  element-ops of weight dequantization), and for collectives ``size`` (buffer per rank,
  nccl-tests convention) with ``comm`` (all_reduce, all_to_all, send_recv) and ``group``
  (tp, ep, cp). :func:`layer_kv_bytes` is the resident KV cache of one layer.
* :func:`build` ``(spec, phase, logits="all") -> Graph`` — groups with their ops; ``Graph.total(q)``
  sums a quantity over the model (sympy, counts and windows substituted).
* :func:`model_values` ``(spec) -> dict`` — numbers for the model-dimension symbols.

Everything numeric is a registered symbol (:mod:`llmcost.symbolic.symbols`): model dims
(``d_model, n_q, n_kv, d_head, d_v, q_dim, kv_dim, d_ff, n_up, vocab, n_experts, top_k,
d_expert, d_shared, kv_lora, q_lora, d_nope, d_rope``), workload (``micro_batch`` b sequences,
``seq`` s new tokens per sequence, ``ctx`` S cached context at decode, ``seq_enc`` encoder
tokens, ``window`` W, ∞ for full attention), plan (``tp, cp, ep, etp``) and bytes per element
(``b_w, b_a, b_kv, b_r``; ``c_dq`` element-ops per weight element when weight-only
quantized, else 0). So one generated function serves every model of a shape.

Phases
------
* ``forward``: a full pass over ``s`` tokens per sequence with causal attention (prefill,
  training forward). Tokens per device ``T = b·s/cp``.
* ``decode``: ``n_dec`` new tokens per sequence against ``S`` cached positions (``T = b·n_dec``):
  one in plain decoding, ``k + 1`` when the step verifies ``k`` drafted tokens (speculative
  decoding, Leviathan et al. 2023); the KV cache is read once per step for all of them.
* ``draft`` (io only, ``io__draft__last``): the operators of an MTP / EAGLE draft pass around its
  decoder layer (:func:`_draft_io`).
* ``encoder``: a bidirectional pass of an encoder-decoder's encoder over ``s`` tokens.

Conventions
-----------
* GEMM ``[M,K]x[K,N]``: ``2MKN`` FLOPs; bytes ``KN·b_w + MK·b_a + MN·b_a`` (jax-ml/scaling-book
  roofline.md, "Matrix multiplication").
* **Causal attention FLOPs are halved** (kernels skip masked blocks; FlashAttention benchmark
  ``flops(causal) = 4·b·s²·h·d/2``, current Megatron ``num_floating_point_operations``;
  PaLM App. B and Korthikanti 2022 count the full s² instead): a sequence has ``s·w − w²/2``
  (query, key) pairs, ``w = min(s, W)``
  — ``s²/2`` for full attention; bidirectional (encoder, cross) ``s·s_k``. FLOPs
  ``2·pairs·heads·(d_qk + d_v)`` (QKᵀ and PV; GQA does not reduce them).
* **Attention bytes follow the FlashAttention IO model** with on-chip tiles absorbing the
  re-streaming (Dao et al. 2022 §3.2, Thm 2 [derived: tiles resident on chip]): Q, K, V read and
  O written once, plus the KV-cache write; decode reads the KV cache once.
* TP (Megatron, Shoeybi et al. 2019 §3): q/k/v/up column-parallel, o/down row-parallel, one
  all-reduce after attention and one after the FFN (``b_r`` bytes: the residual stream is
  reduced at 16-bit even when activations are 8-bit). KV heads are split over ``min(tp, n_kv)``
  ranks and replicated beyond (scaling-book inference.md, "Sharding the KV cache"). Norms are
  replicated. MLA's
  q_a / kv_a down-projections are replicated and its latent cache is not split by TP.
* MoE (FLOPs as the MoE term of Megatron-LM ``num_floating_point_operations``): router
  ``[T,h]x[h,E]``; routed experts run with expert-tensor degree
  ``etp`` (= tp without EP, 1 with EP, where the EP group spans whole TP groups) on
  ``T·k·etp/tp`` token-expert assignments per device; the expected number of distinct
  experts a group of ``n`` tokens touches is ``E·(1 − (1 − k/E)^n)`` (uniform routing;
  scaling-book gpus.md, expert-parallelism footnote), ``n = T·ep·etp/tp``; only touched experts' weights are
  read. A device holds ``⌈E/ep⌉`` expert slots (the busiest rank bounds the time when ep does not
  divide E; redundant experts fill the slack and balance the assignments, EPLB as in DeepSeek-V3
  §3.4 and CloudMatrix384) and touches ``⌈E/ep⌉·(1 − (1 − k/E)^n)`` of them. EP dispatch and combine are two all-to-alls of ``T·k·h·b_a/tp`` bytes per rank.
* MLA (DeepSeek-V2 §2.1): forward up-projects the latent (``kv_b``); decode uses the absorbed
  projections (``q_absorb`` W_UK, ``v_absorb`` W_UV) and attends over the ``kv_lora + d_rope``
  latent cache (DeepSeek-V2 §2.1.2-2.1.3, Table 1).
* CP (Yang et al. 2024, §3): prefill ring with pass-KV (``cp_pass_kv``: K,V shard per step) or
  pass-Q (``cp_pass_q`` + ``cp_q_return``), ``cp−1`` steps overlapped with attention; decode
  keeps the KV shard per rank and merges partial outputs (``cp_merge``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from llmcost.precision import DQ_TILE

if TYPE_CHECKING:
    from llmcost.model.spec import ModelSpec

PHASES = ("forward", "decode", "encoder")
KINDS = (
    "gemm",
    "attention",
    "norm",
    "elementwise",
    "embedding",
    "lm_head",
    "router",
    "expert_gemm",
    "collective",
)
QUANTITIES = ("flops", "hbm_bytes", "weight_bytes", "dequant", "size")
EP_IMBALANCE = 1.11
"""Default of the symbol ``ep_imb`` where a plan has expert parallelism and states no load: the
busiest rank's routed tokens over the mean per step, TensorRT-LLM's EPLB on DeepSeek-R1 at EP 32 / 36,
0.109 / 0.115 over (NVIDIA TensorRT-LLM tech blog 4, "Scaling Expert Parallelism", Table 1); the one
per-step, per-rank measurement found, so inference and training both take it (plan key
``ep_imbalance`` of both). It is an inference figure with redundant experts, so a lower side for
training without them: the training measurements found are coarser and higher, FEPLB (arXiv
2604.19654: GLM-5's 128-expert layers at EP 8 on H100 without an auxiliary loss spend 18.6% of each MoE
layer's GPU time waiting, about 1.23) and Wang et al. 2024 (arXiv 2408.15664, Table 2: per-expert
MaxVio over a validation set 0.52-0.72 with an auxiliary loss, 0.04 with the loss-free bias; per
expert, not per rank of many experts). Benchmarks that force the router to balance (Megatron
``moe_router_force_load_balancing``, NeMo AutoModel ``fake_balanced_gate``) or pad every expert to a
capacity factor of 1 state 1."""


def ep_imbalance_value(stated: Any, ep: Any) -> Any:
    """Symbol ``ep_imb`` of a plan (a number, or one per plan): with ``ep`` > 1 the stated load ratio
    where it is above 0, else :data:`EP_IMBALANCE`; 1 without expert parallelism."""
    import numpy as np

    s = np.asarray(stated, dtype=float)
    out = np.where(np.asarray(ep) > 1, np.where(s > 0, s, EP_IMBALANCE), 1.0)
    return float(out) if np.ndim(out) == 0 else out


def checked_ep_imbalance(x: Any) -> float:
    """A stated ``ep_imbalance`` (inference and training plans alike): a number from 1 (balanced) up,
    else one clear line (PlanError, a UserError)."""
    from llmcost.errors import PlanError

    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or not 1 <= x < 1e6:
        raise PlanError(
            "ep_imbalance must be the busiest EP rank's routed tokens over the mean, a number >= 1 "
            f"(e.g. 1.11; 1 balanced), got {x!r}"
        )
    return float(x)


GEMM_DIMS = ("m", "n", "k", "g")
"""The shape of a matmul operator (:attr:`Op.gemm`): ``g`` GEMMs launched together (a per-head
batch, the touched experts of a grouped GEMM), each ``[m,k]x[k,n]``."""


@dataclass(frozen=True)
class GroupInfo:
    """Layers sharing one expression shape (and window): no sympy needed."""

    name: str
    shape: str
    count: int
    window: int | None


@dataclass(frozen=True)
class Op:
    """One operator of one layer, per device. Expressions are sympy (0 when absent)."""

    name: str
    kind: str
    flops: Any
    hbm_bytes: Any
    weight_bytes: Any
    dequant: Any = 0
    size: Any = 0
    comm: str | None = None
    group: str | None = None
    variant: str | None = None  # cp_pass_kv / cp_pass_q alternatives (the cheaper one runs)
    doc: str = ""
    gemm: tuple[Any, Any, Any, Any] | None = None  # (m, n, k, g) of a matmul (GEMM_DIMS)


@dataclass(frozen=True)
class Group:
    """A :class:`GroupInfo` with its operators and its KV-cache expression."""

    info: GroupInfo
    ops: tuple[Op, ...]
    kv_bytes: Any


@dataclass(frozen=True)
class Graph:
    """The operators of a model in one phase: layer groups plus embedding / head (``io``)."""

    spec: ModelSpec
    phase: str
    groups: tuple[Group, ...]
    io: tuple[Op, ...]
    logits: str = "all"
    extra: dict[str, Any] = field(default_factory=dict)

    def total(self, quantity: str, kinds: tuple[str, ...] | None = None) -> Any:
        """Σ over layers (count × op) and io of ``quantity``, windows substituted (sympy)."""
        import sympy as sp

        from llmcost.symbolic.symbols import sym

        out = sp.Integer(0)
        for g in self.groups:
            w = sp.oo if g.info.window is None else sp.Integer(g.info.window)
            part = sp.Add(*[getattr(o, quantity) for o in g.ops if kinds is None or o.kind in kinds])
            out += g.info.count * part.subs(sym("window"), w)
        out += sp.Add(*[getattr(o, quantity) for o in self.io if kinds is None or o.kind in kinds])
        return out


# ----------------------------------------------------------------------------------- symbols
def _define() -> None:
    from llmcost.symbolic.symbols import define

    for name, unit, doc, latex in (
        ("q_dim", "1", "query projection width (n_q·d_head normally)", "d_q"),
        ("kv_dim", "1", "width of each of the K and V projections (n_kv·d_head)", "d_{kv}"),
        ("d_v", "1", "value head dimension", "d_v"),
        ("n_up", "1", "up projections of the MLP: 2 gated (gate, up), 1 plain", "n_{up}"),
        ("d_expert", "1", "routed expert FFN width", "d_e"),
        ("d_shared", "1", "total width of the shared experts (0 when none)", "d_{sh}"),
        ("etp", "1", "expert tensor-parallel degree (tp without EP, 1 with EP)", "t_e"),
        ("kv_lora", "1", "MLA latent KV rank (d_c)", "d_c"),
        ("q_lora", "1", "MLA query low rank (d_c')", "d_c'"),
        ("d_nope", "1", "MLA non-rotary q/k head dim", "d_h^{nope}"),
        ("d_rope", "1", "MLA rotary q/k head dim (d_h^R)", "d_h^R"),
        ("ctx", "token", "cached context per sequence at a decode step (S)", "S"),
        (
            "n_dec",
            "token",
            "query tokens per sequence in a decode step: 1, or k + 1 when it verifies k drafted tokens",
            "n_q^{dec}",
        ),
        ("seq_enc", "token", "encoder tokens per sequence (cross-attention keys)", "s_{enc}"),
        ("window", "token", "sliding-window size (∞ for full attention)", "W"),
        ("b_w", "B", "bytes per weight element (scales included)", "b_w"),
        ("b_a", "B", "bytes per activation element", "b_a"),
        ("b_kv", "B", "bytes per KV-cache element (scales included)", "b_{kv}"),
        ("b_r", "B", "bytes per element of reduced activations (>= 2: 16-bit reductions)", "b_r"),
        ("c_dq", "1", "vector ops per weight element to dequantize (0 unless weight-only)", "c_{dq}"),
        (
            "ep_imb",
            "1",
            "routed token-expert assignments on the busiest expert-parallel rank over the mean (1: balanced)",
            r"\gamma_{ep}",
        ),
        (
            "kv_reads",
            "1",
            "times a decode step reads each cached K/V element: 1 (a GQA-aware kernel), the query heads "
            "per KV head when the kernel reads K/V once per query head",
            "r_{kv}",
        ),
        (
            "sep_ar",
            "1",
            "1 when attention and FFN are reduced separately, 0 for parallel attention",
            r"\sigma",
        ),
        ("untied", "1", "1 when the LM head is a separate table, 0 when tied to the embedding", "u"),
    ):
        define(name, unit, doc, latex=latex)


def S(name: str) -> Any:
    """Registered symbol ``name`` (defines the graph's symbols on first use)."""
    from llmcost.symbolic.symbols import REGISTRY, sym

    if "q_dim" not in REGISTRY:
        _define()
    return sym(name)


# ----------------------------------------------------------------------------- op builders
def _gemm(
    name: str,
    M: Any,
    K: Any,
    N: Any,
    kind: str = "gemm",
    doc: str = "",
    resident: Any = None,
    touched: Any = None,
    batch: Any = 1,
) -> Op:
    """GEMM [M,K]x[K,N] (2MKN FLOPs, scaling-book transformers.md); ``touched`` scales the weight
    read (MoE); ``batch`` independent GEMMs with their own weights (per-head batched GEMM)."""
    import sympy as sp

    bw, ba, cdq = S("b_w"), S("b_a"), S("c_dq")
    M, w_el = batch * M, batch * K * N
    read = w_el if touched is None else touched * w_el
    res = w_el * bw if resident is None else resident
    m_one = M / batch  # rows of one GEMM of the batch: a weight tile is dequantized per DQ_TILE of them
    tiles = sp.Max(1, m_one / DQ_TILE) if touched is None else sp.Max(1, m_one / (DQ_TILE * touched))
    # one launch: the batch, or the touched experts of a grouped GEMM sharing its rows evenly
    dims = (m_one, N, K, batch) if touched is None else (M / sp.Max(touched, 1), N, K, sp.Max(touched, 1))
    return Op(
        name,
        kind,
        2 * M * K * N,
        read * bw + M * K * ba + M * N * ba,
        res,
        cdq * read * tiles,
        doc=doc,
        gemm=dims,
    )


def _norm(name: str, T: Any, width: Any) -> Op:
    """RMSNorm/LayerNorm over [T, width]: ~5 FLOPs/element, read + write [derived, memory-bound]."""
    return Op(name, "norm", 5 * T * width, 2 * T * width * S("b_a") + width * S("b_w"), width * S("b_w"))


def _elementwise(name: str, T: Any, width: Any, inputs: Any) -> Op:
    """Activation (SiLU·up / GELU): ~5 FLOPs per output, ``inputs`` tensors read, one written [derived]."""
    return Op(name, "elementwise", 5 * T * width, (inputs + 1) * T * width * S("b_a"), 0)


def _coll(name: str, comm: str, group: str, size: Any, variant: str | None = None, doc: str = "") -> Op:
    return Op(name, "collective", 0, 0, 0, size=size, comm=comm, group=group, variant=variant, doc=doc)


def _pairs(s: Any, W: Any) -> Any:
    """Causal (query, key) pairs of one sequence with window W: s·w − w²/2, w = min(s, W)."""
    import sympy as sp

    w = sp.Min(s, W)
    return s * w - w**2 / 2


def _tokens(phase: str) -> Any:
    if phase == "decode":
        return S("micro_batch") * S("n_dec")
    return S("micro_batch") * S("seq") / S("cp")


def _attention_std(phase: str) -> list[Op]:
    """Standard (MHA/GQA/MQA) self-attention block incl. projections, CP ring and TP all-reduce."""
    import sympy as sp

    b, s, ctx, W, t, c = S("micro_batch"), S("seq"), S("ctx"), S("window"), S("tp"), S("cp")
    h, nq, nkv, dh, dv = S("d_model"), S("n_q"), S("n_kv"), S("d_head"), S("d_v")
    ba, bkv, br = S("b_a"), S("b_kv"), S("b_r")
    T = _tokens(phase)
    kvh = S("kv_dim") / sp.Min(t, nkv)  # per-device K (and V) width: KV heads split up to n_kv ranks
    qh = S("q_dim") / t
    heads = nq / t
    ops = [_norm("attn_norm", T, h), _gemm("qkv_proj", T, h, qh + 2 * kvh)]
    if phase == "decode":
        keys = sp.Min(ctx, W) / c
        ops.append(
            Op(
                "attention",
                "attention",
                2 * T * keys * heads * (dh + dv),
                b * keys * 2 * kvh * bkv * S("kv_reads") + T * heads * (dh + dv) * ba + T * 2 * kvh * bkv,
                0,
                doc="decode: read the KV cache once per step for all n_dec query tokens of a sequence "
                "(scaling-book inference.md; speculative verification kernels, FlashInfer / XQA spec-dec), "
                "or once per query head (kv_reads: TensorRT-LLM's masked MHA before its GQA-aware XQA "
                "kernel, v0.8 XQA-kernel.md)",
            )
        )
    else:
        pairs = _pairs(s, W) if phase == "forward" else s * s
        write = T * 2 * kvh * bkv if phase == "forward" else 0
        ops.append(
            Op(
                "attention",
                "attention",
                2 * b * pairs / c * heads * (dh + dv),
                T * heads * (dh + dv) * ba + b * s * 2 * kvh * ba + write,
                0,
                doc="FlashAttention IO: Q,K,V read, O written once (Dao 2022 Thm 2)",
            )
        )
    ops.append(_gemm("o_proj", T, heads * dv, h))
    if phase == "forward":
        ops += [
            _coll(
                "cp_pass_kv",
                "send_recv",
                "cp",
                b * (s / c) * 2 * kvh * bkv,
                "pass_kv",
                "ring pass-KV: one K,V shard per step, cp-1 steps (Yang et al. 2024 §3)",
            ),
            _coll("cp_pass_q", "send_recv", "cp", T * qh * ba, "pass_q", "ring pass-Q: queries per step"),
            _coll(
                "cp_q_return", "all_to_all", "cp", T * qh * S("b_r"), "pass_q", "pass-Q partial outputs + LSE"
            ),
        ]
    elif phase == "decode":
        ops.append(
            _coll("cp_merge", "all_reduce", "cp", T * qh * br, doc="merge partial attention over KV shards")
        )
    ops.append(_coll("attn_allreduce", "all_reduce", "tp", T * h * br * S("sep_ar")))
    return ops


@dataclass(frozen=True)
class _MLA:
    """The symbols of a Multi-head Latent Attention block for one phase: ``T`` tokens, ``heads``
    query heads per TP rank, latent ``dc``, rope ``dr``, nope ``dn``, value ``dv``, query rank ``qr``."""

    T: Any
    b: Any
    s: Any
    ctx: Any
    W: Any
    c: Any
    h: Any
    heads: Any
    dc: Any
    dr: Any
    dn: Any
    dv: Any
    qr: Any
    ba: Any
    bkv: Any
    br: Any


def _mla_symbols(phase: str) -> _MLA:
    """The registered symbols of an MLA block in ``phase`` (heads split over TP)."""
    b, s, ctx, W, t, c = S("micro_batch"), S("seq"), S("ctx"), S("window"), S("tp"), S("cp")
    h, nq = S("d_model"), S("n_q")
    dc, dr, dn, dv, qr = S("kv_lora"), S("d_rope"), S("d_nope"), S("d_v"), S("q_lora")
    ba, bkv, br = S("b_a"), S("b_kv"), S("b_r")
    return _MLA(_tokens(phase), b, s, ctx, W, c, h, nq / t, dc, dr, dn, dv, qr, ba, bkv, br)


def _mla_projections(m: _MLA, q_lora: bool) -> list[Op]:
    """Norm, query projection (through the low rank ``q_lora`` when the model has one) and the
    joint KV down-projection with its norm."""
    T, h, heads = m.T, m.h, m.heads
    ops = [_norm("attn_norm", T, h)]
    if q_lora:
        ops += [
            _gemm("q_a_proj", T, h, m.qr),
            _norm("q_a_norm", T, m.qr),
            _gemm("q_b_proj", T, m.qr, heads * (m.dn + m.dr)),
        ]
    else:
        ops.append(_gemm("q_proj", T, h, heads * (m.dn + m.dr)))
    return ops + [_gemm("kv_a_proj", T, h, m.dc + m.dr), _norm("kv_a_norm", T, m.dc)]


def _mla_decode(m: _MLA) -> list[Op]:
    """Decode: the up-projections absorbed (W_UK into the query, W_UV after), attention over the
    latent cache, the CP partial results merged."""
    import sympy as sp

    T, b, heads, dc, dr, dn, dv = m.T, m.b, m.heads, m.dc, m.dr, m.dn, m.dv
    keys = sp.Min(m.ctx, m.W) / m.c
    return [
        _gemm(
            "q_absorb",
            T,
            dn,
            dc,
            batch=heads,
            doc="W_UK absorbed into the query: a per-head batched GEMM [T,d_nope]x[d_nope,d_c]",
        ),
        Op(
            "attention",
            "attention",
            2 * T * keys * heads * (2 * dc + dr),
            b * keys * (dc + dr) * m.bkv + T * heads * (2 * dc + dr) * m.ba + T * (dc + dr) * m.bkv,
            0,
            doc="attention over the latent cache (DeepSeek-V2 §2.1.3, MLA)",
        ),
        _gemm(
            "v_absorb",
            T,
            dc,
            dv,
            batch=heads,
            doc="W_UV applied to the latent output: per-head [T,d_c]x[d_c,d_v]",
        ),
        _coll("cp_merge", "all_reduce", "cp", T * heads * dv * m.br),
    ]


def _mla_prefill(m: _MLA) -> list[Op]:
    """Forward / prefill: K,V up-projected from the latent, FlashAttention over them (the latent
    cache written), the CP ring passing the latent KV or the queries."""
    T, b, s, c, heads, dc, dr, dn, dv = m.T, m.b, m.s, m.c, m.heads, m.dc, m.dr, m.dn, m.dv
    ba, bkv = m.ba, m.bkv
    return [
        _gemm("kv_b_proj", T, dc, heads * (dn + dv)),
        Op(
            "attention",
            "attention",
            2 * b * _pairs(s, m.W) / c * heads * (dn + dr + dv),
            T * heads * (dn + dr + dv) * ba + b * s * heads * (dn + dr + dv) * ba + T * (dc + dr) * bkv,
            0,
            doc="FlashAttention IO over up-projected K,V; latent cache written",
        ),
        _coll("cp_pass_kv", "send_recv", "cp", b * (s / c) * (dc + dr) * bkv, "pass_kv"),
        _coll("cp_pass_q", "send_recv", "cp", T * heads * (dn + dr) * ba, "pass_q"),
        _coll("cp_q_return", "all_to_all", "cp", T * heads * dv * m.br, "pass_q"),
    ]


def _attention_mla(phase: str, q_lora: bool) -> list[Op]:
    """Multi-head Latent Attention (DeepSeek-V2 §2.1): latent KV cache, absorbed projections in decode."""
    m = _mla_symbols(phase)
    ops = _mla_projections(m, q_lora)
    ops += _mla_decode(m) if phase == "decode" else _mla_prefill(m)
    return ops + [
        _gemm("o_proj", m.T, m.heads * m.dv, m.h),
        _coll("attn_allreduce", "all_reduce", "tp", m.T * m.h * m.br * S("sep_ar")),
    ]


def _cross(phase: str) -> list[Op]:
    """Decoder cross-attention over the encoder output (T5 ``EncDecAttention``): K,V of the
    encoder tokens are projected once in the forward phase and cached for decode."""
    import sympy as sp

    b, t, se = S("micro_batch"), S("tp"), S("seq_enc")
    h, nq, nkv, dh, dv = S("d_model"), S("n_q"), S("n_kv"), S("d_head"), S("d_v")
    ba, bkv, br = S("b_a"), S("b_kv"), S("b_r")
    T = _tokens(phase)
    kvh = S("kv_dim") / sp.Min(t, nkv)
    heads = nq / t
    ops = [_norm("cross_norm", T, h), _gemm("cross_q_proj", T, h, S("q_dim") / t)]
    if phase == "forward":
        ops.append(_gemm("cross_kv_proj", b * se, h, 2 * kvh))
        kv_io = b * se * 2 * kvh * ba + b * se * 2 * kvh * bkv
    else:
        kv_io = b * se * 2 * kvh * bkv
    ops.append(
        Op(
            "cross_attention",
            "attention",
            2 * T * se * heads * (dh + dv),
            T * heads * (dh + dv) * ba + kv_io,
            0,
        )
    )
    ops += [_gemm("cross_o_proj", T, heads * dv, h), _coll("cross_allreduce", "all_reduce", "tp", T * h * br)]
    return ops


def _ffn(phase: str, moe: bool) -> list[Op]:
    """Dense MLP (gated: 3 matrices, plain: 2) or MoE (router, routed experts, shared experts)."""
    t, h, nup = S("tp"), S("d_model"), S("n_up")
    T = _tokens(phase)
    ops = [_norm("ffn_norm", T, h)]
    if not moe:
        f = S("d_ff")
        ops += [
            _gemm("up_proj", T, h, nup * f / t),
            _elementwise("act", T, f / t, nup),
            _gemm("down_proj", T, f / t, h),
        ]
    else:
        import sympy as sp

        E, k, e, et, fe, fs = S("n_experts"), S("top_k"), S("ep"), S("etp"), S("d_expert"), S("d_shared")
        ba, bw = S("b_a"), S("b_w")
        # token-expert assignments computed on the busiest device (ep_imb: its load over the mean)
        assign = T * k * et / t * S("ep_imb")
        n_group = T * e * et / t  # distinct tokens entering the EP group
        # expert slots on the busiest rank: ceil(E/ep) (= E/ep when ep divides E; otherwise
        # redundant / replicated experts fill the other ranks' slack, EPLB, and keep the
        # token-expert assignments balanced, while this rank still holds and reads ceil(E/ep))
        local = sp.ceiling(E / e)
        touched = local * (1 - (1 - k / E) ** n_group)  # expected distinct experts touched, per device
        ops += [
            _gemm("router", T, h, E, kind="router"),
            _coll("ep_dispatch", "all_to_all", "ep", T * k * h * ba / t * S("ep_imb")),
            _gemm(
                "experts_up",
                assign,
                h,
                nup * fe / et,
                kind="expert_gemm",
                touched=touched,
                resident=local * h * nup * fe / et * bw,
            ),
            _elementwise("experts_act", assign, fe / et, nup),
            _gemm(
                "experts_down",
                assign,
                fe / et,
                h,
                kind="expert_gemm",
                touched=touched,
                resident=local * h * fe / et * bw,
            ),
            _coll("ep_combine", "all_to_all", "ep", T * k * h * ba / t * S("ep_imb")),
            *_shared_experts(T, h, nup, fs, t),
        ]
    ops.append(_coll("ffn_allreduce", "all_reduce", "tp", T * h * S("b_r")))
    return ops


def _shared_experts(T: Any, h: Any, nup: Any, fs: Any, t: Any) -> list[Op]:
    """The shared experts' MLP (DeepSeekMoE: dense experts every token passes through); none where the
    model has none (``d_shared`` = 0): its GEMMs would still read their ``T·h`` input, and every
    operator that moves bytes is priced a kernel launch."""
    import sympy as sp

    present = sp.Min(1, fs)  # d_shared is 0 or a width of at least 1
    ops = [
        _gemm("shared_up", T, h, nup * fs / t),
        _elementwise("shared_act", T, fs / t, nup),
        _gemm("shared_down", T, fs / t, h),
    ]
    return [replace(o, hbm_bytes=present * o.hbm_bytes) for o in ops]


ATTN_KINDS = ("std", "mla", "mla_noq", "cross")
FFN_KINDS = ("dense", "moe")


def layer_ops(shape: str) -> tuple[Op, ...]:
    """Operators of one layer of ``shape`` = ``phase__attn__ffn`` (see the module docstring)."""
    phase, attn, ffn = shape.split("__")
    if phase not in PHASES or attn not in ATTN_KINDS or ffn not in FFN_KINDS:
        raise KeyError(f"unknown layer shape {shape!r}")
    ops = _attention_std(phase) if attn in ("std", "cross") else _attention_mla(phase, q_lora=attn == "mla")
    if attn == "cross":
        ops += _cross(phase)
    return tuple(ops + _ffn(phase, ffn == "moe"))


def layer_kv_bytes(shape: str) -> Any:
    """Resident KV-cache bytes of one layer per device: ``b·min(S, W)/cp`` positions (plus the
    cross-attention cache of ``s_enc`` positions); DeepSeek-V2 Table 1 (MLA: ``kv_lora + d_rope``)."""
    import sympy as sp

    phase, attn, _ = shape.split("__")
    if phase == "encoder":
        return sp.Integer(0)
    b, ctx, W, t, c, bkv = S("micro_batch"), S("ctx"), S("window"), S("tp"), S("cp"), S("b_kv")
    pos = b * sp.Min(ctx, W) / c
    if attn in ("mla", "mla_noq"):
        return pos * (S("kv_lora") + S("d_rope")) * bkv
    kvh = S("kv_dim") / sp.Min(t, S("n_kv"))
    out = pos * 2 * kvh * bkv
    if attn == "cross":
        out += b * S("seq_enc") * 2 * kvh * bkv
    return out


def io_ops(phase: str, logits: str = "all") -> tuple[Op, ...]:
    """Embedding lookup (vocab-parallel table), final norm and LM head (logit GEMM ``2·T·h·V``: Megatron-LM training.py num_floating_point_operations).

    ``logits='last'``: only the last position of each sequence is projected (serving);
    ``'all'``: every token (training). Logits are written in fp32. Encoder phase: embedding only.
    """
    if phase == "draft":
        return _draft_io()
    if phase == "mtp":
        return _mtp_io()
    b, t, h, V = S("micro_batch"), S("tp"), S("d_model"), S("vocab")
    ba, bw = S("b_a"), S("b_w")
    T = _tokens(phase)
    emb = Op("embedding", "embedding", 0, T * h * bw + T * h * ba, V * h / t * bw)
    if phase == "encoder":
        return (emb, _norm("encoder_final_norm", T, h))
    M = T if phase == "decode" else b if logits == "last" else T
    return (emb, _norm("final_norm", T, h), _lm_head(M, S("untied") * V * h / t * bw))


def _lm_head(M: Any, held: Any) -> Op:
    """The vocabulary-parallel LM head on ``M`` rows (logit GEMM ``2·M·h·V``, fp32 logits written),
    ``held`` its resident weight bytes (0 where another module's head is shared)."""
    t, h, V, ba, bw = S("tp"), S("d_model"), S("vocab"), S("b_a"), S("b_w")
    return Op(
        "lm_head",
        "lm_head",
        2 * M * h * V / t,
        V * h / t * bw + M * h * ba + M * V / t * 4,
        held,
        S("c_dq") * V * h / t,
        gemm=(M, V / t, h, 1),
    )


def _draft_io() -> tuple[Op, ...]:
    """The operators of one draft pass of a multi-token-prediction (MTP) or EAGLE module around its
    one decoder layer, one token per sequence: the drafted token's embedding and the previous hidden
    state each RMS-normed (``enorm``, ``hnorm``), concatenated and projected ``[T, 2h] x [2h, h]``
    (``eh_proj``), and after the layer the final norm and the LM head (deepseek-ai/DeepSeek-V3
    README_WEIGHTS.md, "Multi-Token Prediction (MTP) Modules"; DeepSeek-V3 report §2.2; EAGLE, Li et
    al. 2024 §3: an FC layer on the (feature, token) pair, one decoder layer, the target's LM head).
    The embedding table and the LM head are the target's (shared: read, not held again); ``eh_proj``
    is held whole on every device [assumed: replicated, as a small layer; 2h² weights]."""
    h, ba, bw = S("d_model"), S("b_a"), S("b_w")
    T = S("micro_batch")
    return (
        Op("embedding", "embedding", 0, T * h * bw + T * h * ba, 0),
        _norm("draft_enorm", T, h),
        _norm("draft_hnorm", T, h),
        _gemm("draft_proj", T, 2 * h, h, doc="eh_proj: [embedding; hidden] (2h) -> h"),
        _norm("final_norm", T, h),
        _lm_head(T, 0),
    )


def _mtp_io() -> tuple[Op, ...]:
    """The operators around the decoder layer of one multi-token-prediction (MTP) module in training,
    every token of the micro-batch: the next token's embedding and the hidden state each RMS-normed
    (``enorm``, ``hnorm``), concatenated and projected ``[T, 2h] x [2h, h/t]`` (``eh_proj``, column
    parallel), and after the layer the final norm and the shared LM head on all ``T`` tokens
    (DeepSeek-V3 report §2.2; Megatron-Core multi_token_prediction.py; Megatron-LM training.py
    ``num_floating_point_operations``: per MTP layer ``2h²`` of eh_proj, ``3h`` of norms and one more
    logit GEMM). The embedding table and LM head are the model's (shared: not held again); the
    decoder layer is one more layer of the model's last layer's shape (:mod:`llmcost.training`)."""
    t, h, ba, bw = S("tp"), S("d_model"), S("b_a"), S("b_w")
    T = _tokens("forward")
    return (
        Op("embedding", "embedding", 0, T * h * bw + T * h * ba, 0),
        _norm("mtp_enorm", T, h),
        _norm("mtp_hnorm", T, h),
        _gemm("mtp_eh_proj", T, 2 * h, h / t, doc="eh_proj: [embedding; hidden] (2h) -> h, column-parallel"),
        _norm("final_norm", T, h),
        _lm_head(T, 0),
    )


# ------------------------------------------------------------------------------ grouping
def attn_kind(spec: ModelSpec) -> str:
    """'std' (MHA/GQA/MQA), 'mla' (with q low rank) or 'mla_noq'."""
    if spec.mla is not None:
        return "mla" if spec.mla.q_lora_rank else "mla_noq"
    return "std"


def layer_groups(spec: ModelSpec, phase: str) -> tuple[GroupInfo, ...]:
    """Layers grouped by (shape, window), in order of first appearance. ``encoder`` lists the
    encoder stack of an encoder-decoder; ``forward``/``decode`` the decoder stack."""
    if phase not in PHASES:
        raise KeyError(phase)
    if phase == "encoder":
        n, moe_layers, windows, attn = spec.num_encoder_layers, spec.encoder_moe_layers, None, "std"
    else:
        n, moe_layers = spec.num_layers, spec.moe_layers
        windows = spec.layer_windows
        attn = "cross" if spec.is_encoder_decoder else attn_kind(spec)
    counts: dict[tuple[str, int | None], int] = {}
    for i in range(n):
        ffn = "moe" if (i in moe_layers and spec.moe is not None) else "dense"
        w = windows[i] if windows else None
        key = (f"{phase}__{attn}__{ffn}", w)
        counts[key] = counts.get(key, 0) + 1
    out = []
    for (shape, w), cnt in counts.items():
        name = shape.split("__", 1)[1].replace("__", ".") + ("" if w is None else f".w{w}")
        out.append(GroupInfo(name, shape, cnt, w))
    return tuple(out)


def build(spec: ModelSpec, phase: str, logits: str = "all") -> Graph:
    """The operator graph of ``spec`` in ``phase`` (sympy expressions; see the module docstring)."""
    groups = tuple(Group(g, layer_ops(g.shape), layer_kv_bytes(g.shape)) for g in layer_groups(spec, phase))
    return Graph(spec, phase, groups, io_ops(phase, logits), logits)


def model_values(spec: ModelSpec) -> dict[str, float]:
    """Numbers for the model-dimension symbols of ``spec``."""
    moe, mla = spec.moe, spec.mla
    out: dict[str, float] = {
        "d_model": spec.hidden_size,
        "n_q": spec.num_heads,
        "n_kv": spec.num_kv_heads,
        "d_head": spec.head_dim,
        "d_v": spec.v_head_dim,
        "q_dim": spec.q_dim,
        "kv_dim": spec.kv_dim,
        "d_ff": spec.intermediate_size,
        "n_up": 2 if spec.gated_mlp else 1,
        "vocab": spec.vocab_size,
        "sep_ar": 0 if spec.parallel_attn else 1,
        "untied": 0 if spec.tie_word_embeddings else 1,
        "n_experts": 1,
        "top_k": 1,
        "d_expert": 0,
        "d_shared": 0,
        "kv_lora": 0,
        "q_lora": 0,
        "d_nope": 0,
        "d_rope": 0,
        "kv_reads": 1,
        "ep_imb": 1,
    }
    if moe is not None:
        out.update(
            n_experts=moe.num_experts,
            top_k=moe.top_k,
            d_expert=moe.expert_intermediate_size,
            d_shared=moe.num_shared_experts * moe.shared_intermediate_size,
        )
    if mla is not None:
        out.update(
            kv_lora=mla.kv_lora_rank,
            q_lora=mla.q_lora_rank or 0,
            d_nope=mla.qk_nope_head_dim,
            d_rope=mla.qk_rope_head_dim,
            d_v=mla.v_head_dim,
        )
    return {k: float(v) for k, v in out.items()}


def window_value(window: int | None) -> float:
    """Numeric value of the ``window`` symbol for a group (∞ for full attention)."""
    return math.inf if window is None else float(window)
