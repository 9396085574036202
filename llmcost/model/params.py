"""Exact parameter counts from a :class:`~llmcost.model.spec.ModelSpec`.

Conventions (those of ``sum(p.numel() for p in model.parameters())`` on the Hugging Face
``transformers`` model, and of the published counts the tests compare with):

* exact integers; a tied input/output table is counted once (as ``model.parameters()``);
* ``embedding`` = the input token table V x d; ``non_embedding`` = total minus the input
  table, an untied lm_head and a learned absolute-position table (as the Qwen2.5 / Qwen3 model
  cards and the Gemma 2 / Gemma 3 technical reports count it);
* ``active`` (MoE) = total with only the top-k routed experts of each MoE layer (plus
  shared experts and router), **including** embedding and lm_head;
  ``active_excl_input_embedding`` drops the lookup table (gpt-oss's official convention,
  OpenAI gpt-oss-120b & gpt-oss-20b model card, 2025);
* DeepSeek-V3 multi-token-prediction modules are reported in ``mtp`` and not in ``total``.

Formulas, each after the module layout of its reference implementation (paths under
``transformers/models/`` in huggingface/transformers) or its paper: F_DEC
(Llama/Mistral/Qwen/Gemma/Phi/Falcon/gpt-oss, after ``llama/modeling_llama.py`` and siblings),
F_MOE (``mixtral/modeling_mixtral.py``, ``qwen3_moe/modeling_qwen3_moe.py``,
``deepseek_v3/modeling_deepseek_v3.py``, ``gpt_oss/modeling_gpt_oss.py``), F_MLA (DeepSeek-V2
paper Sec. 2.1, ``deepseek_v2/modeling_deepseek_v2.py``), F_GPT (GPT-3 / OPT / BLOOM /
Megatron; Narayanan et al. 2021 eq. for 12*l*h^2), F_PALM (PaLM Table 1), F_TXL
(Gopher/Chinchilla with Transformer-XL relative positions), F_T5 (``t5/modeling_t5.py``,
``switch_transformers/modeling_switch_transformers.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from llmcost.model.spec import ModelSpec


@dataclass(frozen=True)
class ParamCounts:
    """Parameter counts of one model; ``breakdown`` sums to ``total``."""

    total: int
    active: int
    embedding: int
    non_embedding: int
    lm_head: int = 0  # untied output head (0 when tied)
    position_embedding: int = 0
    encoder: int = 0  # encoder stack without embeddings (encoder-decoder only)
    decoder: int = 0  # decoder stack (layers + final norm) without embeddings / head
    mtp: int = 0  # DeepSeek-V3 MTP modules, unique parameters, not in total
    breakdown: dict[str, int] = field(default_factory=dict)

    @property
    def active_excl_input_embedding(self) -> int:
        return self.active - self.embedding


def norm_params(spec: ModelSpec) -> int:
    """One norm: d (RMSNorm, or LayerNorm without bias as in PaLM) or 2d (LayerNorm w + b)."""
    return spec.hidden_size * (2 if spec.norm_bias else 1)


def attention_params(spec: ModelSpec) -> int:
    """One self-attention block (F_DEC attn / F_MLA / F_TXL), without its norm.

    q: d x q_dim, k and v: d x kv_dim, o: q_dim x d (``modeling_llama.py``); optional q/k/v
    and o biases (Qwen2, gpt-oss, GPT), QK-norm 2*head_dim (Qwen3, Gemma 3), one sink
    logit per head (gpt-oss), Transformer-XL W_R d x q_dim plus u, v (Chinchilla).
    """
    if spec.mla is not None:
        return _mla_params(spec)
    d = spec.hidden_size
    p = d * spec.q_dim + 2 * d * spec.kv_dim + spec.q_dim * d
    if spec.qkv_bias:
        p += spec.q_dim + 2 * spec.kv_dim
    if spec.o_bias:
        p += d
    if spec.qk_norm:
        p += 2 * spec.head_dim
    if spec.attention_sinks:
        p += spec.num_heads
    if spec.position_embedding == "transformer_xl":
        p += d * spec.q_dim + 2 * spec.q_dim
    return p


def _mla_params(spec: ModelSpec) -> int:
    """F_MLA: q_a_proj, q_a_layernorm, q_b_proj, kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj, o_proj."""
    m, d, h = spec.mla, spec.hidden_size, spec.num_heads
    assert m is not None
    qk = m.qk_nope_head_dim + m.qk_rope_head_dim
    r = m.q_lora_rank
    q = d * r + r + r * h * qk if r else d * h * qk
    kv = d * (m.kv_lora_rank + m.qk_rope_head_dim) + m.kv_lora_rank
    kv += m.kv_lora_rank * h * (m.qk_nope_head_dim + m.v_head_dim)
    return q + kv + h * m.v_head_dim * d


def cross_attention_params(spec: ModelSpec) -> int:
    """Encoder-decoder cross-attention (T5 ``EncDecAttention``): q, k, v, o without bias."""
    d = spec.hidden_size
    return 2 * d * spec.q_dim + 2 * d * spec.kv_dim


def mlp_params(spec: ModelSpec, width: int, bias: bool | None = None, gated: bool | None = None) -> int:
    """One MLP of ``width``: 3*d*f gated (gate, up, down) or 2*d*f, plus biases 2f+d / f+d."""
    d = spec.hidden_size
    gated = spec.gated_mlp if gated is None else gated
    bias = spec.mlp_bias if bias is None else bias
    mats = 3 if gated else 2
    p = mats * d * width
    if bias:
        p += (mats - 1) * width + d
    return p


def expert_params(spec: ModelSpec) -> int:
    """One routed expert (F_MOE ``expert``; gpt-oss experts carry biases)."""
    assert spec.moe is not None
    return mlp_params(spec, spec.moe.expert_intermediate_size, bias=spec.moe.expert_bias)


def router_params(spec: ModelSpec) -> int:
    """Router d x E [+E bias (gpt-oss)] [+E score-correction bias (DeepSeek-V3)]."""
    moe = spec.moe
    assert moe is not None
    p = spec.hidden_size * moe.num_experts
    p += moe.num_experts * (int(moe.router_bias) + int(moe.router_score_bias))
    return p


def shared_expert_params(spec: ModelSpec) -> int:
    """Always-active shared experts (DeepSeekMoE; Qwen2-MoE adds a sigmoid gate d -> 1)."""
    moe = spec.moe
    assert moe is not None
    if not moe.num_shared_experts:
        return 0
    p = moe.num_shared_experts * mlp_params(spec, moe.shared_intermediate_size, bias=False)
    return p + (spec.hidden_size if moe.shared_expert_gate else 0)


def _stack(
    spec: ModelSpec, n_layers: int, moe_layers: tuple[int, ...], extra_per_layer: int, n_norms: int
) -> tuple[dict[str, int], int]:
    """Sum one stack of layers: (component totals, params removed by top-k routing)."""
    n_moe = len(moe_layers)
    n_dense = n_layers - n_moe
    out = {
        "attention": n_layers * attention_params(spec),
        "mlp": n_dense * mlp_params(spec, spec.intermediate_size),
        "norms": n_layers * n_norms * norm_params(spec),
        "cross_attention": n_layers * extra_per_layer,
    }
    inactive = 0
    if n_moe:
        moe = spec.moe
        assert moe is not None
        out["experts"] = n_moe * moe.num_experts * expert_params(spec)
        out["shared_experts"] = n_moe * shared_expert_params(spec)
        out["router"] = n_moe * router_params(spec)
        inactive = n_moe * (moe.num_experts - moe.top_k) * expert_params(spec)
    return out, inactive


def _add(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    return {k: a.get(k, 0) + b.get(k, 0) for k in {**a, **b}}


def mtp_params(spec: ModelSpec) -> int:
    """DeepSeek-V3 MTP module: enorm + hnorm + eh_proj (2d -> d) + one MoE decoder layer + shared_head.norm.

    Embedding and output head are shared with the main model (DeepSeek-V3 paper Sec. 2.2;
    deepseek-ai/DeepSeek-V3 ``README_WEIGHTS.md``, "Multi-Token Prediction (MTP) Modules": enorm,
    hnorm, eh_proj and ``model.layers.61``). Not part of ``total``.
    """
    if not spec.num_mtp_layers:
        return 0
    d = spec.hidden_size
    layer = attention_params(spec) + 2 * norm_params(spec)
    if spec.moe is not None:
        layer += spec.moe.num_experts * expert_params(spec) + router_params(spec) + shared_expert_params(spec)
    else:
        layer += mlp_params(spec, spec.intermediate_size)
    return spec.num_mtp_layers * (3 * norm_params(spec) + 2 * d * d + layer)


def count_params(spec: ModelSpec) -> ParamCounts:
    """Exact parameter counts of ``spec`` (see the module docstring for conventions)."""
    d, v = spec.hidden_size, spec.vocab_size
    emb = v * spec.d_embed
    head = 0 if spec.tie_word_embeddings else v * spec.d_embed
    pos = spec.learned_positions * d
    top: dict[str, int] = {"embedding": emb, "lm_head": head, "position_embedding": pos}
    if spec.embedding_size and spec.embedding_size != d:  # OPT project_in / project_out
        top["embedding_projection"] = 2 * spec.embedding_size * d
    if spec.embedding_norm:
        top["embedding_norm"] = norm_params(spec)

    final = norm_params(spec) if spec.final_norm else 0
    encoder = 0
    inactive = 0
    if spec.is_encoder_decoder:
        rel = spec.relative_attention_num_buckets * spec.num_heads  # one table per stack (first layer)
        enc, enc_inactive = _stack(spec, spec.num_encoder_layers, spec.encoder_moe_layers, 0, 2)
        dec, dec_inactive = _stack(spec, spec.num_layers, spec.moe_layers, cross_attention_params(spec), 3)
        encoder = sum(enc.values()) + rel + final
        decoder = sum(dec.values()) + rel + final
        layers = _add(enc, dec)
        layers["relative_attention_bias"] = 2 * rel
        layers["final_norm"] = 2 * final
        inactive = enc_inactive + dec_inactive
    else:
        layers, inactive = _stack(spec, spec.num_layers, spec.moe_layers, 0, spec.norms_per_layer)
        layers["final_norm"] = final
        decoder = sum(layers.values())

    breakdown = {k: val for k, val in {**top, **layers}.items() if val}
    total = sum(breakdown.values())
    return ParamCounts(
        total=total,
        active=total - inactive,
        embedding=emb,
        non_embedding=total - emb - head - pos,
        lm_head=head,
        position_embedding=pos,
        encoder=encoder,
        decoder=decoder,
        mtp=mtp_params(spec),
        breakdown=breakdown,
    )
