"""Normalized model shape: :class:`ModelSpec` (with :class:`MoESpec` and :class:`MLASpec`), the
single description that parameter counting (:mod:`llmcost.model.params`) and the operator graphs
are built from. :func:`llmcost.model.config.from_config` reads one from a Hugging Face style
config (the keys read per ``model_type`` are listed in :mod:`llmcost.model.config`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class MLASpec:
    """DeepSeek Multi-head Latent Attention dimensions (DeepSeek-V2 paper, Sec. 2.1)."""

    q_lora_rank: int | None  # None: plain q_proj d -> H*(nope+rope) (DeepSeek-V2-Lite)
    kv_lora_rank: int
    qk_nope_head_dim: int
    qk_rope_head_dim: int
    v_head_dim: int


@dataclass(frozen=True)
class MoESpec:
    """Routed experts of a MoE FFN layer (shared experts are always active)."""

    num_experts: int
    top_k: int
    expert_intermediate_size: int
    num_shared_experts: int = 0
    shared_intermediate_size: int = 0  # width of ONE shared expert
    shared_expert_gate: bool = False  # Qwen2-MoE sigmoid gate d -> 1
    router_bias: bool = False
    router_score_bias: bool = False  # DeepSeek-V3 e_score_correction_bias (E)
    expert_bias: bool = False  # gpt-oss expert biases
    expert_capacity: int | None = None  # Switch Transformers tokens per expert
    topk_group: int | None = None  # group-limited routing (DeepSeek n_group > 1): groups a token may reach


@dataclass(frozen=True)
class ModelSpec:
    """One model's shape, normalized from its config; everything cost formulas need.

    Layer indices are 0-based as in the HF code. ``num_layers`` counts decoder layers (all
    layers of a decoder-only model); ``num_encoder_layers`` is 0 unless encoder-decoder,
    whose decoder layers also have cross-attention over the encoder output.
    """

    name: str
    model_type: str
    num_layers: int
    hidden_size: int
    num_heads: int
    num_kv_heads: int
    head_dim: int  # query/key head dim (MLA: qk_nope + qk_rope)
    v_head_dim: int
    q_dim: int  # query projection width (normally num_heads * head_dim)
    kv_dim: int  # width of each of the K and V projections (normally num_kv_heads * head_dim)
    attention_type: str  # 'mha' | 'gqa' | 'mqa' | 'mla'
    layer_windows: tuple[int | None, ...]  # per decoder layer: sliding window, None = full
    intermediate_size: int  # dense FFN width
    gated_mlp: bool  # 3 matrices (gate, up, down) vs 2 (up, down)
    activation: str  # 'silu' | 'gelu' | 'gelu_tanh' | 'relu' | 'relu2'
    vocab_size: int
    tie_word_embeddings: bool
    norm_type: str  # 'rmsnorm' | 'layernorm'
    norm_bias: bool
    norms_per_layer: int
    position_embedding: str  # 'rope' | 'learned' | 'alibi' | 't5_relative' | 'transformer_xl' | 'none'
    max_position_embeddings: int | None
    qkv_bias: bool = False
    o_bias: bool = False
    mlp_bias: bool = False
    qk_norm: bool = False
    attention_sinks: bool = False
    parallel_attn: bool = False
    final_norm: bool = True
    embedding_norm: bool = False  # BLOOM word_embeddings_layernorm
    embedding_size: int = 0  # OPT word_embed_proj_dim; 0 = hidden_size
    learned_positions: int = 0  # rows of a learned absolute position table
    partial_rotary_factor: float = 1.0
    mla: MLASpec | None = None
    moe: MoESpec | None = None
    moe_layers: tuple[int, ...] = ()  # decoder layers whose FFN is routed experts
    num_encoder_layers: int = 0
    encoder_moe_layers: tuple[int, ...] = ()
    relative_attention_num_buckets: int = 0
    relative_attention_max_distance: int = 0
    num_mtp_layers: int = 0  # DeepSeek-V3 multi-token-prediction modules (not in totals)
    mtp_trained: int = 0  # MTP modules trained with the model, appended as its last layers (training)
    pp_chunks: tuple[int, ...] | None = None  # layers per pipeline chunk of a stated layout (training)
    attention_dropout: float = 0.0  # training dropout on the attention probabilities
    hidden_dropout: float = 0.0  # training dropout on the attention / MLP outputs (residual branch)

    @property
    def is_encoder_decoder(self) -> bool:
        return self.num_encoder_layers > 0

    @property
    def is_moe(self) -> bool:
        return self.moe is not None and bool(self.moe_layers or self.encoder_moe_layers)

    @property
    def num_moe_layers(self) -> int:
        return len(self.moe_layers)

    @property
    def num_dense_layers(self) -> int:
        return self.num_layers - len(self.moe_layers)

    @property
    def sliding_layers(self) -> tuple[int, ...]:
        return tuple(i for i, w in enumerate(self.layer_windows) if w is not None)

    @property
    def d_embed(self) -> int:
        """Width of the token-embedding table (OPT may project it to ``hidden_size``)."""
        return self.embedding_size or self.hidden_size

    def is_moe_layer(self, i: int) -> bool:
        return i in self.moe_layers

    def kv_cache_elems_per_token(self, layer: int = 0) -> int:
        """KV-cache elements one token stores in one decoder layer (MLA: latent + rope key)."""
        del layer
        if self.mla is not None:
            return self.mla.kv_lora_rank + self.mla.qk_rope_head_dim
        return 2 * self.kv_dim


def with_overrides(spec: ModelSpec, **changes: Any) -> ModelSpec:
    """A copy of ``spec`` with some fields replaced (what-if studies)."""
    return replace(spec, **changes)
