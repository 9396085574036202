"""Read a normalized model shape (:class:`~llmcost.model.spec.ModelSpec`) from a Hugging Face style config.

A catalog entry (``models/<id>.yaml``), a user file, a local ``config.json`` or an inline
``model:`` mapping of a validation case is a Hugging Face ``config.json`` (its key names and
values) plus a few llmcost keys. :func:`from_config` reads it according to ``model_type`` and
returns a :class:`~llmcost.model.spec.ModelSpec`, the single description that parameter counting
(:mod:`llmcost.model.params`) and the operator graphs are built from.

Supported ``model_type`` values and how they are read (HF = the ``transformers`` modeling /
configuration file of that name, whose defaults are followed when a key is absent):

=====================  ==================================================================
``llama``              RMSNorm, SwiGLU (3 matrices), RoPE; ``attention_bias`` (q/k/v/o),
                       ``mlp_bias``. ``modeling_llama.py``
``mistral``            llama + ``sliding_window`` on every layer. ``modeling_mistral.py``
``mixtral``            mistral + MoE on every layer (``num_local_experts``,
                       ``num_experts_per_tok``, expert width ``intermediate_size``).
``qwen2``              llama + q/k/v bias; ``use_sliding_window`` applies from layer
                       ``max_window_layers`` on. ``modeling_qwen2.py``
``qwen2_moe``          qwen2 + MoE (``num_experts``, ``moe_intermediate_size``,
                       ``shared_expert_intermediate_size`` with a sigmoid gate d->1,
                       ``decoder_sparse_step``, ``mlp_only_layers``).
``qwen3``              llama + QK-norm (RMSNorm over head_dim on q and k); head_dim
                       default 128. ``modeling_qwen3.py``
``qwen3_moe``          qwen3 + MoE (no shared expert). ``modeling_qwen3_moe.py``
``phi3``               llama with fused qkv / gate_up (same counts), ``sliding_window``
                       on every layer, ``partial_rotary_factor``. ``modeling_phi3.py``
``gemma``              GeGLU, tied embeddings, head_dim default 256. ``modeling_gemma.py``
``gemma2``             gemma + pre- and post-norms (4 RMSNorms per layer); sliding window
                       on even layers (0, 2, ...). ``modeling_gemma2.py``
``gemma3_text``        gemma2 + QK-norm; layer i is global when (i+1) % 6 == 0
                       (``sliding_window_pattern``), else sliding. ``modeling_gemma3.py``
``gemma3``             the multimodal wrapper: its ``text_config`` is read as
                       ``gemma3_text``; the SigLIP vision tower and projector are NOT
                       part of the spec.
``deepseek_v2/_v3``    Multi-head Latent Attention (``q_lora_rank``, ``kv_lora_rank``,
                       ``qk_nope_head_dim``, ``qk_rope_head_dim``, ``v_head_dim``);
                       DeepSeekMoE with ``n_shared_experts``; MoE on layers
                       i >= ``first_k_dense_replace`` with i % ``moe_layer_freq`` == 0; v3
                       adds the router ``e_score_correction_bias`` and
                       ``num_nextn_predict_layers`` (MTP, counted apart).
``gpt_oss``            GQA with q/k/v/o biases and one learned sink logit per head;
                       ``layer_types`` (even layers sliding); MoE on every layer with
                       router and expert biases. ``modeling_gpt_oss.py``
``glm`` / ``glm4``     llama + q/k/v bias (``attention_bias``), partial RoPE; glm4 adds
                       post-attention / post-MLP norms (4 per layer).
``nemotron``           2-matrix squared-ReLU MLP (``relu2``), LayerNorm with bias
                       (LayerNorm1P), partial RoPE. ``modeling_nemotron.py``
``falcon``             LayerNorm with bias, parallel attention/MLP, ``bias`` for linears,
                       ``new_decoder_architecture`` (``num_kv_heads`` groups, 2 LNs) or
                       ``multi_query``; 2-matrix GELU MLP (``ffn_hidden_size``, default 4d).
``opt``                learned positions (``max_position_embeddings`` + 2 rows), ReLU
                       MLP (``ffn_dim``), biases, LayerNorm; ``word_embed_proj_dim``.
``bloom``              ALiBi, LayerNorm after the word embeddings, 4d GELU MLP, biases.
``gpt_neox``           parallel residual with 2 LayerNorms, biases, partial RoPE
                       (``rotary_pct``), untied head by default.
``gpt2``               HF GPT-2 keys (``n_embd``, ``n_layer``, ``n_head``, ``n_positions``,
                       ``n_inner``); read like ``gpt``.
``gpt``                llmcost's own GPT-2/3 style decoder for models without an HF config
                       (GPT-3, Megatron, PaLM, Chinchilla): learned positions, LayerNorm
                       with bias, biases everywhere, 2-matrix MLP with ``hidden_act``, tied
                       head -- every one of these overridable by the llmcost keys below.
``t5`` / ``mt5`` /     encoder-decoder: ``num_layers``, ``num_decoder_layers``, ``d_model``,
``umt5``               ``d_ff``, ``d_kv``, ``num_heads``, ``feed_forward_proj`` (``relu`` or
                       ``gated-gelu`` / ``gated-silu``), relative attention buckets.
``switch_transformers``  t5 v1.0 + Switch MoE: ``num_experts`` top-1, ``expert_capacity``,
                       ``num_sparse_encoder_layers`` / ``num_sparse_decoder_layers`` (HF
                       derives the sparse step from them; layer i is sparse when
                       i % step == 1, or every layer when step == 1), ``router_bias``.
=====================  ==================================================================

llmcost-only keys (model_type ``gpt``; ignored elsewhere unless noted):

* ``hidden_act``: ``gelu`` (default), ``relu``, ``relu2``; ``silu`` / ``swiglu`` / ``geglu``
  make the MLP gated (3 matrices).
* ``use_bias`` (default true): biases on q/k/v, o and both MLP matrices.
* ``norm_type``: ``layernorm`` (default) or ``rmsnorm``; ``norm_bias`` (default true for
  layernorm): whether the LayerNorm has a bias (PaLM: false).
* ``parallel_attn`` (default false): attention and MLP read one shared norm (PaLM, GPT-J).
* ``position_embedding_type``: ``learned`` (default; a ``max_position_embeddings`` x d table),
  ``rope``, ``alibi``, ``none``, or ``transformer_xl`` (Gopher/Chinchilla relative encoding:
  one extra d x (H*head_dim) key-position projection plus u, v bias vectors per layer).
* ``head_dim``: when absent the attention projections are d x d (GPT-2 ``c_attn``) and
  head_dim is the nominal d // heads (GPT-3 13B: d_model 5140, 40 heads).

Training dropout (:attr:`ModelSpec.attention_dropout`, :attr:`ModelSpec.hidden_dropout`; they
change training activation memory and the attention kernel ``auto`` picks) is read from the
config's own keys, with the Hugging Face config class's default for that ``model_type`` when
absent: ``gpt2`` ``attn_pdrop`` / ``resid_pdrop`` (GPT2Config 0.1 / 0.1); ``opt``
``attention_dropout`` / ``dropout`` (OPTConfig 0.0 / 0.1); ``t5`` / ``mt5`` / ``umt5`` /
``switch_transformers`` ``dropout_rate`` for both (0.1); ``phi3`` ``attention_dropout`` /
``resid_pdrop`` (0.0 / 0.0); every other type ``attention_dropout`` / ``hidden_dropout``
(0.0 / 0.0: Llama, Mistral, Qwen, Gemma, DeepSeek, gpt-oss, GLM, Nemotron, BLOOM, Falcon,
GPT-NeoX). llmcost's ``gpt`` reads ``attention_dropout`` / ``hidden_dropout`` (or the GPT-2 names)
with default 0.1 / 0.1: GPT2Config's defaults (GPT-3 keeps GPT-2's model, Brown et al. 2020
§2.1) and Megatron-LM's ``--attention-dropout 0.1 --hidden-dropout 0.1`` (arguments.py), the
setting of Narayanan 2021 / Korthikanti 2022. Set both to 0.0 for a model trained without
dropout (PaLM).

Keys every entry may carry and that the spec ignores: ``id``, ``name``, ``family``,
``sources``, ``official_params``, ``notes``, ``aliases`` and any other HF key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from llmcost.errors import CatalogError
from llmcost.model.readers import READERS, Reader, read_dropout
from llmcost.model.spec import ModelSpec

SUPPORTED_MODEL_TYPES: tuple[str, ...] = tuple(READERS)


def from_config(cfg: Mapping[str, Any], *, where: str) -> ModelSpec:
    """Normalize a config mapping into a :class:`ModelSpec`.

    ``where`` names the source (a file path, or ``case ID: model``) in error messages.
    Raises :class:`CatalogError` for a non-mapping, an unsupported ``model_type`` or a
    missing / malformed key.
    """
    if not isinstance(cfg, Mapping):
        raise CatalogError(
            f"{where}: a model entry must be a mapping of config keys, got {type(cfg).__name__}"
        )
    mt = cfg.get("model_type")
    if mt is None:
        raise CatalogError(
            f"{where}: missing required key 'model_type'; supported: {', '.join(SUPPORTED_MODEL_TYPES)}"
        )
    if not isinstance(mt, str) or mt not in READERS:
        raise CatalogError(
            f"{where}: model_type {str(mt)[:40]!r} is not supported; supported: {', '.join(SUPPORTED_MODEL_TYPES)}"
        )
    fields = READERS[mt](Reader(cfg, where, mt))
    if mt == "gemma3":  # the multimodal wrapper: the decoder's keys are in text_config
        text = cfg.get("text_config") or {}
        fields.update(read_dropout(Reader(text, where, "gemma3_text")))
    else:
        fields.update(read_dropout(Reader(cfg, where, mt)))
    name = cfg.get("id") or cfg.get("name") or where
    spec = ModelSpec(name=str(name), model_type=str(mt), **fields)
    _check(spec, where)
    return spec


def _check(spec: ModelSpec, where: str) -> None:
    """Cross-field checks that the readers cannot do one key at a time."""
    moe = spec.moe
    if moe is not None and not 1 <= moe.top_k <= moe.num_experts:
        raise CatalogError(
            f"{where}: num_experts_per_tok is {moe.top_k}; expected between 1 and the number of experts "
            f"({moe.num_experts})"
        )
    if len(spec.layer_windows) != spec.num_layers:  # pragma: no cover - readers guarantee it
        raise CatalogError(f"{where}: layer pattern does not match num_hidden_layers")


def spec_of(model: str | dict[str, Any] | ModelSpec) -> ModelSpec:
    """A ModelSpec from a catalog id, a config file (``.yaml``/``.yml``/``.json`` path) or an inline
    HF-style mapping (a ModelSpec is returned as it is): the one resolver of a model argument, used
    by every command and by :mod:`llmcost.api`."""
    from pathlib import Path

    if isinstance(model, ModelSpec):
        return model
    if isinstance(model, dict):
        cfg = {k: v for k, v in model.items() if k != "name"}
        return from_config(cfg, where=f"inline model {model.get('name', '')}".strip())
    path = Path(str(model))
    if path.suffix in (".yaml", ".yml", ".json") and path.is_file():
        from llmcost.catalog import read_file

        return from_config(read_file(path), where=str(path))
    from llmcost.catalog import get_model_config

    return from_config(get_model_config(str(model)), where=f"models/{model}")
