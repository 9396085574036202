"""Training dropout: read from the config (per-model_type Hugging Face defaults), not the family."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from llmcost.catalog import get_hardware, get_model_config
from llmcost.errors import CatalogError
from llmcost.model.config import from_config
from llmcost.training import plan as TR

GPT = {
    "model_type": "gpt",
    "num_hidden_layers": 24,
    "hidden_size": 2048,
    "num_attention_heads": 16,
    "vocab_size": 51200,
    "max_position_embeddings": 2048,
}
LLAMA = {
    "model_type": "llama",
    "num_hidden_layers": 16,
    "hidden_size": 2048,
    "num_attention_heads": 16,
    "intermediate_size": 8192,
    "vocab_size": 32000,
}
OPT = {
    "model_type": "opt",
    "num_hidden_layers": 24,
    "hidden_size": 2048,
    "num_attention_heads": 32,
    "ffn_dim": 8192,
    "vocab_size": 50272,
}
BLOOM = {"model_type": "bloom", "n_layer": 24, "hidden_size": 2048, "n_head": 16, "vocab_size": 250880}
GPT2 = {"model_type": "gpt2", "n_layer": 12, "n_embd": 768, "n_head": 12, "vocab_size": 50257}
T5 = {
    "model_type": "t5",
    "num_layers": 6,
    "d_model": 512,
    "num_heads": 8,
    "d_kv": 64,
    "d_ff": 2048,
    "vocab_size": 32128,
}


def _drop(cfg: dict[str, Any]) -> tuple[float, float]:
    s = from_config(cfg, where="t")
    return s.attention_dropout, s.hidden_dropout


@pytest.mark.parametrize(
    ("cfg", "expect"),
    [
        (GPT, (0.1, 0.1)),  # GPT-2/3, Megatron --attention-dropout / --hidden-dropout 0.1
        (GPT2, (0.1, 0.1)),  # GPT2Config attn_pdrop / resid_pdrop
        (OPT, (0.0, 0.1)),  # OPTConfig attention_dropout / dropout
        (BLOOM, (0.0, 0.0)),  # BloomConfig
        (LLAMA, (0.0, 0.0)),  # LlamaConfig attention_dropout; no hidden dropout
        (T5, (0.1, 0.1)),  # T5Config dropout_rate
    ],
)
def test_defaults_per_model_type(cfg: dict[str, Any], expect: tuple[float, float]) -> None:
    assert _drop(cfg) == expect


@pytest.mark.parametrize(
    ("cfg", "keys", "expect"),
    [
        (GPT2, {"attn_pdrop": 0.0, "resid_pdrop": 0.05}, (0.0, 0.05)),
        (GPT, {"attention_dropout": 0.0, "hidden_dropout": 0.0}, (0.0, 0.0)),
        (GPT, {"attn_pdrop": 0.2}, (0.2, 0.1)),  # GPT-2 spellings accepted by llmcost's gpt
        (OPT, {"dropout": 0.0, "attention_dropout": 0.1}, (0.1, 0.0)),
        (BLOOM, {"attention_dropout": 0.1, "hidden_dropout": 0.1}, (0.1, 0.1)),
        (LLAMA, {"attention_dropout": 0.1}, (0.1, 0.0)),
        (T5, {"dropout_rate": 0.0}, (0.0, 0.0)),
    ],
)
def test_read_from_config(cfg: dict[str, Any], keys: dict[str, float], expect: tuple[float, float]) -> None:
    assert _drop({**cfg, **keys}) == expect


def test_gemma3_reads_its_text_config() -> None:
    text = {"num_hidden_layers": 6, "attention_dropout": 0.1}
    assert _drop({"model_type": "gemma3", "text_config": text}) == (0.1, 0.0)


@pytest.mark.parametrize("bad", [1.0, -0.1, "0.1", True])
def test_bad_probability(bad: Any) -> None:
    with pytest.raises(CatalogError, match=r"attention_dropout is .*probability in \[0, 1\)"):
        from_config({**LLAMA, "attention_dropout": bad}, where="t")


def test_catalog_models() -> None:
    def spec(mid: str):
        return from_config(get_model_config(mid), where=mid)

    assert (spec("gpt3-175b").attention_dropout, spec("gpt3-175b").hidden_dropout) == (0.1, 0.1)
    assert (spec("palm-540b").attention_dropout, spec("palm-540b").hidden_dropout) == (0.0, 0.0)
    assert (spec("opt-175b").attention_dropout, spec("opt-175b").hidden_dropout) == (0.0, 0.1)
    assert not TR.uses_dropout(spec("bloom-176b"))  # BLOOM trained without dropout (config 0.0)
    assert not TR.uses_dropout(spec("llama-3.1-8b"))


def _plan(**kw: Any) -> TR.TrainPlan:
    base = dict(gpus=8, tp=8, micro_batch=1, global_batch=8, seq_len=2048, precision="bf16", recompute="none")
    return TR.TrainPlan(**{**base, **kw})


def test_auto_attention_follows_attention_dropout_not_family() -> None:
    hw = get_hardware("a100-sxm4-80gb")
    gpt = from_config(GPT, where="gpt")
    assert not TR.evaluate(gpt, _plan(), hw).layout.flash  # attention dropout 0.1: materialized
    no_attn = from_config({**GPT, "attention_dropout": 0.0}, where="gpt")
    assert TR.evaluate(no_attn, _plan(), hw).layout.flash
    opt = from_config(OPT, where="opt")  # OPT: hidden dropout only -> FlashAttention
    assert TR.evaluate(opt, _plan(), hw).layout.flash
    llama = from_config({**LLAMA, "attention_dropout": 0.1}, where="llama")
    assert not TR.evaluate(llama, _plan(), hw).layout.flash


def test_dropout_masks_in_activation_memory() -> None:
    """Korthikanti 2022 §4.1: hidden dropout adds 2sbh mask bytes per layer; attention dropout
    3as²b (mask + dropped probabilities) when scores are materialized."""
    hw = get_hardware("a100-sxm4-80gb")
    plan = _plan(attention="materialized")
    s, b, h, a, t, L = 2048, 1, 2048, 16, 8, 24

    def act(cfg: dict[str, Any]) -> float:
        r = TR.evaluate(from_config(cfg, where="gpt"), plan, hw)
        return r.memory["activations"]

    none = act({**GPT, "attention_dropout": 0.0, "hidden_dropout": 0.0})
    hidden = act({**GPT, "attention_dropout": 0.0, "hidden_dropout": 0.1})
    both = act(GPT)
    assert hidden - none == pytest.approx(L * 2 * s * b * h / t)  # sequence parallel (default): / t
    assert both - hidden == pytest.approx(L * 3 * a * s * s * b / t)


def test_validation_gpt_cases_keep_dropout() -> None:
    """The inline ``gpt`` models of validation/training.yaml carry no dropout keys: 0.1 / 0.1."""
    import yaml

    root = Path(__file__).resolve().parents[1]
    cases = yaml.safe_load((root / "validation" / "training.yaml").read_text())
    inline = [c["model"] for c in cases if isinstance(c.get("model"), dict)]
    assert inline
    for m in inline:
        spec = from_config(m, where="v")
        assert m["model_type"] == "gpt" and (spec.attention_dropout, spec.hidden_dropout) == (0.1, 0.1)
