"""ModelSpec normalization: per-type structure, hand-counted tiny configs, errors, import."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from llmcost.errors import CatalogError
from llmcost.model.config import SUPPORTED_MODEL_TYPES, from_config
from llmcost.model.importer import import_config
from llmcost.model.params import count_params
from llmcost.model.spec import ModelSpec

MODELS_DIR = Path(__file__).parents[1] / "models"


def catalog(model_id: str) -> ModelSpec:
    cfg = yaml.safe_load((MODELS_DIR / f"{model_id}.yaml").read_text())
    return from_config(cfg, where=f"models/{model_id}.yaml")


def tiny(model_type: str, **keys: Any) -> dict[str, Any]:
    """A small decoder config: d 8, 1 layer, 2 heads, vocab 10."""
    cfg: dict[str, Any] = {
        "model_type": model_type,
        "hidden_size": 8,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "intermediate_size": 32,
        "vocab_size": 10,
    }
    cfg.update(keys)
    return cfg


def total(cfg: dict[str, Any]) -> int:
    return count_params(from_config(cfg, where="test")).total


# ----------------------------------------------------------------------------- catalog structure


def test_gemma3_global_layers_every_sixth() -> None:
    s = catalog("gemma-3-27b")
    full = [i for i, w in enumerate(s.layer_windows) if w is None]
    assert full == list(range(5, 62, 6))
    assert set(s.layer_windows) == {None, 1024}
    assert s.qk_norm and s.norms_per_layer == 4 and s.tie_word_embeddings


def test_gemma2_and_gpt_oss_slide_on_even_layers() -> None:
    g = catalog("gemma-2-9b")
    assert g.sliding_layers == tuple(range(0, 42, 2)) and g.layer_windows[0] == 4096
    o = catalog("gpt-oss-120b")
    assert o.sliding_layers == tuple(range(0, 36, 2)) and o.layer_windows[0] == 128
    assert o.attention_sinks and o.qkv_bias and o.o_bias and o.attention_type == "gqa"
    assert o.moe is not None and o.moe.router_bias and o.moe.expert_bias and o.moe.top_k == 4
    assert o.q_dim == 4096 != o.hidden_size


def test_deepseek_v3_mla_and_moe_layout() -> None:
    s = catalog("deepseek-v3")
    assert s.attention_type == "mla" and s.mla is not None
    assert s.kv_cache_elems_per_token() == 512 + 64
    assert s.moe_layers == tuple(range(3, 61)) and s.num_dense_layers == 3
    assert s.moe is not None and s.moe.num_shared_experts == 1 and s.moe.router_score_bias
    assert s.num_mtp_layers == 1
    v2 = catalog("deepseek-v2")
    assert v2.moe is not None and not v2.moe.router_score_bias and v2.moe.num_shared_experts == 2
    assert v2.moe_layers == tuple(range(1, 60))


def test_qwen3_moe_head_dim_differs_from_hidden_over_heads() -> None:
    s = catalog("qwen3-30b-a3b")
    assert s.head_dim == 128 and s.q_dim == 32 * 128 != s.hidden_size
    assert s.num_moe_layers == 48 and s.moe is not None and s.moe.expert_intermediate_size == 768


def test_encoder_decoder_shapes() -> None:
    sw = catalog("switch-base-128")
    assert sw.is_encoder_decoder and sw.num_encoder_layers == 12
    assert sw.encoder_moe_layers == sw.moe_layers == tuple(range(1, 12, 2))
    assert not sw.gated_mlp and sw.activation == "relu"
    assert catalog("switch-c-2048").moe_layers == tuple(range(15))
    v11 = catalog("t5-v1_1-xxl")
    assert v11.gated_mlp and v11.activation == "gelu_tanh" and not v11.tie_word_embeddings
    ul2 = catalog("ul2-20b")
    assert ul2.gated_mlp and ul2.activation == "silu" and ul2.q_dim == 16 * 256
    t5 = catalog("t5-small")
    assert not t5.gated_mlp and t5.tie_word_embeddings and t5.relative_attention_num_buckets == 32


def test_no_hf_config_models() -> None:
    palm = catalog("palm-540b")
    assert palm.attention_type == "mqa" and palm.parallel_attn and palm.norms_per_layer == 1
    assert palm.gated_mlp and not palm.norm_bias and not palm.qkv_bias and palm.position_embedding == "rope"
    gpt3 = catalog("gpt3-175b")
    assert gpt3.learned_positions == 2048 and gpt3.norm_bias and gpt3.mlp_bias and not gpt3.gated_mlp
    assert catalog("gpt3-13b").q_dim == 5140  # projections d x d, see the entry's notes
    assert catalog("chinchilla-70b").position_embedding == "transformer_xl"


def test_sliding_windows_of_mistral_and_phi() -> None:
    assert set(catalog("mistral-7b-v0.1").layer_windows) == {4096}
    assert set(catalog("phi-3-mini-4k").layer_windows) == {2047}
    assert catalog("phi-4-mini").sliding_layers == ()  # window 262144 >= context: full attention
    assert catalog("mixtral-8x7b").sliding_layers == ()


def test_every_catalog_model_type_is_supported() -> None:
    for p in MODELS_DIR.glob("*.yaml"):
        assert yaml.safe_load(p.read_text())["model_type"] in SUPPORTED_MODEL_TYPES


# ----------------------------------------------------------------------------- hand-counted tiny configs


def test_gpt_type_hand_count() -> None:
    # attn 4*64 + 4*8 biases = 288; mlp 2*8*32 + 32 + 8 = 552; 2 LN(w+b) = 32 -> layer 872
    # embedding 80 + positions 16*8 = 128 + final LN 16; tied head
    cfg = tiny("gpt", head_dim=4, max_position_embeddings=16)
    assert total(cfg) == 872 + 80 + 128 + 16
    # gated activation -> 3 matrices: 3*8*32 + (2*32 + 8) biases
    assert total({**cfg, "hidden_act": "silu"}) == 872 - 552 + 768 + 72 + 80 + 128 + 16


def test_nemotron_is_two_matrix_squared_relu() -> None:
    cfg = tiny("nemotron", num_hidden_layers=2, num_key_value_heads=1, head_dim=4, intermediate_size=16)
    s = from_config(cfg, where="test")
    assert not s.gated_mlp and s.activation == "relu2" and s.norm_bias
    # layer: attn 64+32+32+64 = 192, mlp 2*8*16 = 256, 2 LN(w+b) = 32; untied 80+80; final LN 16
    assert count_params(s).total == 2 * 480 + 160 + 16


def test_gpt_neox_and_glm_hand_counts() -> None:
    # gpt_neox: attn 288, mlp 552, 2 LN 32; untied head by default; final LN 16
    assert total(tiny("gpt_neox")) == 872 + 160 + 16
    # glm: q/k/v bias only (8+4+4); gated MLP 3*8*16; 2 RMSNorm 16; untied; final 8
    glm = tiny("glm", num_key_value_heads=1, head_dim=4, intermediate_size=16)
    assert total(glm) == (192 + 16 + 384 + 16) + 160 + 8


def test_gpt_neox_20b_matches_published_count() -> None:
    # GPT-NeoX-20B (EleutherAI/gpt-neox-20b config.json); Black et al. 2022: 20,554,567,680 parameters
    cfg = {
        "model_type": "gpt_neox",
        "hidden_size": 6144,
        "num_hidden_layers": 44,
        "num_attention_heads": 64,
        "intermediate_size": 24576,
        "vocab_size": 50432,
        "rotary_pct": 0.25,
        "use_parallel_residual": True,
        "tie_word_embeddings": False,
        "max_position_embeddings": 2048,
    }
    assert total(cfg) == 20_554_567_680


def test_falcon_7b_multi_query_old_architecture() -> None:
    # tiiuae/falcon-7b config.json; 6,921,720,704 parameters (HF checkpoint, 6.92B)
    cfg = {
        "model_type": "falcon",
        "hidden_size": 4544,
        "num_hidden_layers": 32,
        "num_attention_heads": 71,
        "multi_query": True,
        "parallel_attn": True,
        "new_decoder_architecture": False,
        "bias": False,
        "vocab_size": 65024,
    }
    s = from_config(cfg, where="test")
    assert s.attention_type == "mqa" and s.norms_per_layer == 1
    assert count_params(s).total == 6_921_720_704


def test_qwen2_moe_shared_expert_and_sliding_rule() -> None:
    cfg = tiny(
        "qwen2_moe",
        num_hidden_layers=2,
        num_key_value_heads=2,
        num_experts=4,
        num_experts_per_tok=2,
        moe_intermediate_size=4,
        shared_expert_intermediate_size=16,
        decoder_sparse_step=1,
        mlp_only_layers=[0],
        use_sliding_window=True,
        sliding_window=64,
        max_window_layers=1,
        max_position_embeddings=128,
    )
    s = from_config(cfg, where="test")
    assert s.moe_layers == (1,) and s.layer_windows == (None, 64)
    c = count_params(s)
    expert = 3 * 8 * 4
    assert c.breakdown["experts"] == 4 * expert
    assert c.breakdown["shared_experts"] == 3 * 8 * 16 + 8  # + sigmoid gate d -> 1
    assert c.breakdown["router"] == 8 * 4
    assert c.total - c.active == 2 * expert


def test_gemma3_multimodal_wrapper_reads_text_config() -> None:
    cfg = {
        "model_type": "gemma3",
        "text_config": {
            "model_type": "gemma3_text",
            "hidden_size": 2560,
            "intermediate_size": 10240,
            "num_hidden_layers": 34,
        },
    }
    s = from_config(cfg, where="config.json")
    assert (s.num_heads, s.num_kv_heads, s.head_dim, s.vocab_size) == (8, 4, 256, 262208)
    assert count_params(s).total == count_params(catalog("gemma-3-4b")).total


def test_validation_inline_models() -> None:
    # the inline mapping format of shared/validation (README "An inline model mapping")
    llama7b = {
        "model_type": "llama",
        "name": "LLaMA-7B",
        "num_hidden_layers": 32,
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "num_key_value_heads": 32,
        "head_dim": 128,
        "intermediate_size": 11008,
        "vocab_size": 32000,
        "hidden_act": "silu",
        "tie_word_embeddings": False,
        "max_position_embeddings": 2048,
    }
    assert total(llama7b) == 6_738_415_616  # = llama-2-7b
    gpt = {
        "model_type": "gpt",
        "num_hidden_layers": 96,
        "hidden_size": 12288,
        "num_attention_heads": 96,
        "num_key_value_heads": 96,
        "head_dim": 128,
        "intermediate_size": 49152,
        "vocab_size": 50257,
        "hidden_act": "gelu",
        "tie_word_embeddings": True,
        "max_position_embeddings": 2048,
    }
    assert total(gpt) == 174_604_259_328  # = gpt3-175b


# ----------------------------------------------------------------------------- errors


def _error(cfg: Any, where: str = "models/foo.yaml") -> str:
    with pytest.raises(CatalogError) as exc:
        from_config(cfg, where=where)
    msg = str(exc.value)
    assert "\n" not in msg and msg.startswith(where)
    return msg


def test_unsupported_model_type() -> None:
    msg = _error({"model_type": "mamba", "hidden_size": 2560})
    assert "model_type 'mamba' is not supported; supported: llama, mistral" in msg


def test_missing_model_type() -> None:
    assert "missing required key 'model_type'" in _error({"hidden_size": 8})


def test_missing_required_key_names_the_field() -> None:
    cfg = tiny("llama")
    del cfg["hidden_size"]
    msg = _error(cfg)
    assert "'hidden_size'" in msg and "model_type 'llama'" in msg and "integer" in msg


@pytest.mark.parametrize(
    ("cfg", "field"),
    [
        (tiny("llama", hidden_size="8"), "hidden_size"),
        (tiny("llama", num_key_value_heads=3, num_attention_heads=4), "num_key_value_heads"),
        (tiny("llama", hidden_size=10, num_attention_heads=4), "head_dim"),
        (tiny("llama", tie_word_embeddings="yes"), "tie_word_embeddings"),
        (tiny("llama", hidden_act="tanh"), "hidden_act"),
        (
            tiny("gpt_oss", num_local_experts=4, num_experts_per_tok=2, layer_types=["full_attention"] * 3),
            "layer_types",
        ),
        (tiny("mixtral", num_local_experts=2, num_experts_per_tok=4), "num_experts_per_tok"),
        (tiny("gpt"), "max_position_embeddings"),
        (tiny("gpt", max_position_embeddings=8, norm_type="batchnorm"), "norm_type"),
        (
            {
                "model_type": "t5",
                "d_model": 8,
                "d_kv": 4,
                "num_heads": 2,
                "num_layers": 1,
                "d_ff": 16,
                "vocab_size": 10,
                "feed_forward_proj": "gated-tanh",
            },
            "feed_forward_proj",
        ),
    ],
)
def test_malformed_values_name_the_field(cfg: dict[str, Any], field: str) -> None:
    assert field in _error(cfg)


def test_non_mapping_entry() -> None:
    assert "mapping" in _error(["llama"])


# ----------------------------------------------------------------------------- import


def _write(tmp_path: Path, cfg: Any, folder: str = "My-Model") -> Path:
    d = tmp_path / folder
    d.mkdir()
    p = d / "config.json"
    p.write_text(json.dumps(cfg) if not isinstance(cfg, str) else cfg)
    return p


def test_import_config_round_trip(tmp_path: Path) -> None:
    cfg = tiny("llama", num_key_value_heads=1, rms_norm_eps=1e-5)
    p = _write(tmp_path, cfg)
    entry = import_config(str(p), None)
    assert entry["id"] == "my-model"
    assert str(p.resolve()) in entry["sources"][0]
    assert {k: entry[k] for k in cfg} == cfg
    assert count_params(from_config(entry, where="x")).total == total(cfg)
    assert import_config(str(p), "tiny-llama")["id"] == "tiny-llama"


def test_import_uses_name_or_path(tmp_path: Path) -> None:
    p = _write(tmp_path, tiny("qwen3", _name_or_path="Qwen/Qwen3-Tiny"))
    assert import_config(str(p), None)["id"] == "qwen3-tiny"


def test_import_unsupported_model_type(tmp_path: Path) -> None:
    p = _write(tmp_path, {"model_type": "mamba2", "hidden_size": 8})
    with pytest.raises(CatalogError, match=r"config\.json: model_type 'mamba2' is not supported"):
        import_config(str(p), None)


def test_import_missing_key(tmp_path: Path) -> None:
    cfg = tiny("mistral")
    del cfg["vocab_size"]
    with pytest.raises(CatalogError, match="missing required key 'vocab_size'"):
        import_config(str(_write(tmp_path, cfg)), None)


@pytest.mark.parametrize(("content", "match"), [("{not json", "invalid JSON"), ("[1, 2]", "JSON object")])
def test_import_bad_file(tmp_path: Path, content: str, match: str) -> None:
    with pytest.raises(CatalogError, match=match):
        import_config(str(_write(tmp_path, content)), None)


def test_import_missing_file_and_bad_name(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="cannot read"):
        import_config(str(tmp_path / "nope.json"), None)
    p = _write(tmp_path, tiny("llama"))
    with pytest.raises(CatalogError, match="not a valid model id"):
        import_config(str(p), "Bad Name")
