"""Per-``model_type`` readers of a Hugging Face style config: each turns the config's keys (with
the HF defaults) into the fields of a :class:`llmcost.model.spec.ModelSpec`.

:data:`READERS` maps every supported ``model_type`` to its reader; :func:`read_dropout` reads the
training dropout. :func:`llmcost.model.config.from_config` dispatches on them (the keys read per
type are listed in :mod:`llmcost.model.config`). Every failure is a one-line CatalogError.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from llmcost.checks import MAX_COUNT
from llmcost.errors import CatalogError
from llmcost.model.spec import MLASpec, MoESpec

_MISSING: Any = object()

GATED_ACTS = {"silu", "swish", "swiglu", "geglu", "reglu"}
_ACT_CANON = {
    "gelu": "gelu",
    "gelu_new": "gelu_tanh",
    "gelu_fast": "gelu_tanh",
    "gelu_pytorch_tanh": "gelu_tanh",
    "gelu_tanh": "gelu_tanh",
    "quick_gelu": "gelu",
    "geglu": "gelu",
    "silu": "silu",
    "swish": "silu",
    "swiglu": "silu",
    "relu": "relu",
    "reglu": "relu",
    "relu2": "relu2",
    "squared_relu": "relu2",
}


# --------------------------------------------------------------------------- reading helpers


class Reader:
    """Typed access to a config mapping; every failure is a one-line CatalogError."""

    def __init__(self, cfg: Mapping[str, Any], where: str, model_type: str) -> None:
        self.cfg, self.where, self.model_type = cfg, where, model_type

    def fail(self, key: str, expected: str, got: Any = _MISSING) -> CatalogError:
        if got is _MISSING:
            return CatalogError(
                f"{self.where}: missing required key '{key}' (model_type '{self.model_type}'; "
                f"expected {expected})"
            )
        return CatalogError(f"{self.where}: {key} is {got!r}; expected {expected}")

    def raw(self, key: str, aliases: tuple[str, ...] = ()) -> Any:
        for k in (key, *aliases):
            if self.cfg.get(k) is not None:
                return self.cfg[k]
        return None

    def int(self, key: str, default: Any = _MISSING, aliases: tuple[str, ...] = (), minimum: int = 1) -> Any:
        v = self.raw(key, aliases)
        if v is None:
            if default is _MISSING:
                raise self.fail(key, f"an integer >= {minimum}")
            return default
        if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
            raise self.fail(key, f"an integer >= {minimum}", v)
        if v > MAX_COUNT:  # layers, widths, experts: every per-layer list stays bounded
            raise self.fail(key, f"an integer from {minimum} to {MAX_COUNT:,} (no model is larger)", v)
        return v

    def bool(self, key: str, default: bool, aliases: tuple[str, ...] = ()) -> bool:
        v = self.raw(key, aliases)
        if v is None:
            return default
        if not isinstance(v, bool):
            raise self.fail(key, "true or false", v)
        return v

    def float(self, key: str, default: float, aliases: tuple[str, ...] = ()) -> float:
        v = self.raw(key, aliases)
        if v is None:
            return default
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= 1:
            raise self.fail(key, "a number in (0, 1]", v)
        return float(v)

    def prob(self, key: str, default: float, aliases: tuple[str, ...] = ()) -> float:
        """A probability in [0, 1) (dropout rates)."""
        v = self.raw(key, aliases)
        if v is None:
            return default
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v < 1:
            raise self.fail(key, "a probability in [0, 1)", v)
        return float(v)

    def choice(self, key: str, default: str, choices: tuple[str, ...]) -> str:
        v = self.raw(key)
        if v is None:
            return default
        if v not in choices:
            raise self.fail(key, "one of " + ", ".join(choices), v)
        return str(v)

    def int_list(self, key: str) -> tuple[int, ...]:
        v = self.raw(key)
        if v is None:
            return ()
        if not isinstance(v, list) or any(isinstance(x, bool) or not isinstance(x, int) for x in v):
            raise self.fail(key, "a list of layer indices", v)
        return tuple(v)

    def activation(self, key: str, default: str, aliases: tuple[str, ...] = ()) -> tuple[str, bool]:
        """(canonical activation, whether the name implies a gated MLP)."""
        v = self.raw(key, aliases) or default
        if not isinstance(v, str) or v.lower() not in _ACT_CANON:
            raise self.fail(key, "one of " + ", ".join(sorted(_ACT_CANON)), v)
        return _ACT_CANON[v.lower()], v.lower() in GATED_ACTS


def _attention_kind(heads: int, kv: int) -> str:
    if kv == heads:
        return "mha"
    return "mqa" if kv == 1 else "gqa"


def _heads(r: Reader, d: int, head_dim_default: int | None = None) -> tuple[int, int, int]:
    """(heads, kv heads, head_dim) with HF defaults and divisibility checks."""
    h = r.int("num_attention_heads", aliases=("n_head", "num_heads"))
    kv = r.int("num_key_value_heads", default=h, aliases=("num_kv_heads", "n_head_kv"))
    if h % kv:
        raise r.fail("num_key_value_heads", f"a divisor of num_attention_heads ({h})", kv)
    if head_dim_default is None:
        if d % h and r.raw("head_dim") is None:
            raise r.fail("head_dim", f"an integer (hidden_size {d} is not divisible by {h} heads)")
        head_dim_default = d // h
    hd = r.int("head_dim", default=head_dim_default)
    return h, kv, hd


def _windows(r: Reader, n_layers: int, rule: Callable[[int], bool] | None) -> tuple[int | None, ...]:
    """Per-layer sliding windows from ``layer_types`` or the type's rule (True = sliding)."""
    window = r.int("sliding_window", default=None)
    max_pos = r.int("max_position_embeddings", default=None)
    if window is not None and max_pos is not None and window >= max_pos:
        window = None  # a window as long as the context is full attention (Phi-4-mini: 262144)
    types = r.raw("layer_types")
    if types is not None:
        if not isinstance(types, list) or len(types) != n_layers:
            raise r.fail("layer_types", f"a list of {n_layers} 'full_attention' / 'sliding_attention'", types)
        flags = []
        for t in types:
            if t not in ("full_attention", "sliding_attention"):
                raise r.fail("layer_types", "entries 'full_attention' or 'sliding_attention'", t)
            flags.append(t == "sliding_attention")
    elif rule is None or window is None:
        return (None,) * n_layers
    else:
        flags = [rule(i) for i in range(n_layers)]
    if any(flags) and window is None:
        if r.raw("sliding_window") is None:
            raise r.fail("sliding_window", "an integer (layer_types has sliding layers)")
        return (None,) * n_layers
    return tuple(window if f else None for f in flags)


# --------------------------------------------------------------------------- decoder readers


def _base(
    r: Reader,
    *,
    head_dim_default: int | None = None,
    tie_default: bool = False,
    act_default: str = "silu",
    act_keys: tuple[str, ...] = ("hidden_act",),
) -> dict[str, Any]:
    """Keys shared by the Llama-like decoders (RMSNorm, RoPE, gated MLP)."""
    d = r.int("hidden_size")
    h, kv, hd = _heads(r, d, head_dim_default)
    act, _ = r.activation(act_keys[0], act_default, aliases=act_keys[1:])
    return {
        "num_layers": r.int("num_hidden_layers"),
        "hidden_size": d,
        "num_heads": h,
        "num_kv_heads": kv,
        "head_dim": hd,
        "v_head_dim": hd,
        "q_dim": h * hd,
        "kv_dim": kv * hd,
        "attention_type": _attention_kind(h, kv),
        "intermediate_size": r.int("intermediate_size"),
        "gated_mlp": True,
        "activation": act,
        "vocab_size": r.int("vocab_size"),
        "tie_word_embeddings": r.bool("tie_word_embeddings", tie_default),
        "norm_type": "rmsnorm",
        "norm_bias": False,
        "norms_per_layer": 2,
        "position_embedding": "rope",
        "max_position_embeddings": r.int("max_position_embeddings", default=None),
        "partial_rotary_factor": r.float("partial_rotary_factor", 1.0),
    }


def _read_llama(r: Reader) -> dict[str, Any]:
    b = _base(r)
    bias = r.bool("attention_bias", False)
    b.update(qkv_bias=bias, o_bias=bias, mlp_bias=r.bool("mlp_bias", False))
    b["layer_windows"] = (None,) * b["num_layers"]
    return b


def _read_mistral(r: Reader) -> dict[str, Any]:
    """Mistral and Phi-3: a RoPE decoder whose every layer uses ``sliding_window`` when it is set."""
    b = _base(r)
    b["layer_windows"] = _windows(r, b["num_layers"], lambda i: True)
    return b


def _read_mixtral(r: Reader) -> dict[str, Any]:
    b = _read_mistral(r)
    b["moe"] = MoESpec(
        num_experts=r.int("num_local_experts"),
        top_k=r.int("num_experts_per_tok"),
        expert_intermediate_size=b["intermediate_size"],
    )
    b["moe_layers"] = tuple(range(b["num_layers"]))
    return b


def _qwen_windows(r: Reader, b: dict[str, Any]) -> tuple[int | None, ...]:
    """Qwen2/3: with use_sliding_window, layers >= max_window_layers slide (modeling_qwen2.py)."""
    n = b["num_layers"]
    if not r.bool("use_sliding_window", False):
        return (None,) * n if r.raw("layer_types") is None else _windows(r, n, None)
    first = r.int("max_window_layers", default=n, minimum=0)
    return _windows(r, n, lambda i: i >= first)


def _qwen_moe(r: Reader, b: dict[str, Any], *, shared: bool) -> None:
    """Qwen2/3-MoE experts and which layers are sparse (``decoder_sparse_step``)."""
    n_exp = r.int("num_experts", default=0, minimum=0)
    step = r.int("decoder_sparse_step", default=1)
    dense = set(r.int_list("mlp_only_layers"))
    shared_f = r.int("shared_expert_intermediate_size", default=0, minimum=0) if shared else 0
    if not n_exp:
        return
    b["moe"] = MoESpec(
        num_experts=n_exp,
        top_k=r.int("num_experts_per_tok"),
        expert_intermediate_size=r.int("moe_intermediate_size"),
        num_shared_experts=1 if shared_f else 0,
        shared_intermediate_size=shared_f,
        shared_expert_gate=bool(shared_f),
    )
    b["moe_layers"] = tuple(i for i in range(b["num_layers"]) if i not in dense and (i + 1) % step == 0)


def _read_qwen2(r: Reader) -> dict[str, Any]:
    b = _base(r)
    b.update(qkv_bias=True, layer_windows=_qwen_windows(r, b))
    return b


def _read_qwen2_moe(r: Reader) -> dict[str, Any]:
    b = _read_qwen2(r)
    _qwen_moe(r, b, shared=True)
    return b


def _read_qwen3(r: Reader) -> dict[str, Any]:
    b = _base(r, head_dim_default=128)
    bias = r.bool("attention_bias", False)
    b.update(qkv_bias=bias, o_bias=bias, qk_norm=True, layer_windows=_qwen_windows(r, b))
    return b


def _read_qwen3_moe(r: Reader) -> dict[str, Any]:
    b = _read_qwen3(r)
    _qwen_moe(r, b, shared=False)
    return b


def _read_gemma(r: Reader) -> dict[str, Any]:
    b = _base(
        r,
        head_dim_default=256,
        tie_default=True,
        act_default="gelu_pytorch_tanh",
        act_keys=("hidden_activation", "hidden_act"),
    )
    b["layer_windows"] = (None,) * b["num_layers"]
    return b


def _read_gemma2(r: Reader) -> dict[str, Any]:
    b = _read_gemma(r)
    b.update(norms_per_layer=4, layer_windows=_windows(r, b["num_layers"], lambda i: i % 2 == 0))
    return b


_GEMMA3_TEXT_DEFAULTS: dict[str, Any] = {  # Gemma3TextConfig defaults the hub configs rely on
    "vocab_size": 262208,
    "hidden_size": 2304,
    "intermediate_size": 9216,
    "num_hidden_layers": 26,
    "num_attention_heads": 8,
    "num_key_value_heads": 4,
    "head_dim": 256,
    "max_position_embeddings": 131072,
    "sliding_window": 4096,
    "sliding_window_pattern": 6,
}


def _read_gemma3_text(r: Reader) -> dict[str, Any]:
    r = Reader({**_GEMMA3_TEXT_DEFAULTS, **r.cfg}, r.where, r.model_type)
    b = _read_gemma(r)
    pattern = r.int("sliding_window_pattern", default=6)
    b.update(
        norms_per_layer=4,
        qk_norm=True,
        layer_windows=_windows(r, b["num_layers"], lambda i: (i + 1) % pattern != 0),
    )
    return b


def _read_gemma3(r: Reader) -> dict[str, Any]:
    text = r.raw("text_config")
    if text is None:
        text = {}
    if not isinstance(text, Mapping):
        raise r.fail("text_config", "a mapping (the Gemma 3 text decoder)", text)
    return _read_gemma3_text(Reader(text, r.where, "gemma3_text"))


def _read_glm(r: Reader, norms: int = 2) -> dict[str, Any]:
    b = _base(r, head_dim_default=128)
    b.update(
        qkv_bias=r.bool("attention_bias", True),
        norms_per_layer=norms,
        partial_rotary_factor=r.float("partial_rotary_factor", 0.5),
        layer_windows=(None,) * b["num_layers"],
    )
    return b


def _read_nemotron(r: Reader) -> dict[str, Any]:
    b = _base(r, act_default="relu2")
    bias = r.bool("attention_bias", False)
    b.update(
        gated_mlp=False,
        norm_type="layernorm",
        norm_bias=True,
        qkv_bias=bias,
        o_bias=bias,
        mlp_bias=r.bool("mlp_bias", False),
        partial_rotary_factor=r.float("partial_rotary_factor", 0.5),
        layer_windows=(None,) * b["num_layers"],
    )
    return b


def _read_deepseek(r: Reader) -> dict[str, Any]:
    """DeepSeek-V2/V3 (modeling_deepseek_v2.py / _v3.py, DeepSeek-V3 inference/model.py)."""
    d = r.int("hidden_size")
    h = r.int("num_attention_heads")
    nope, rope = r.int("qk_nope_head_dim"), r.int("qk_rope_head_dim")
    v = r.int("v_head_dim")
    mla = MLASpec(
        q_lora_rank=r.int("q_lora_rank", default=None),
        kv_lora_rank=r.int("kv_lora_rank"),
        qk_nope_head_dim=nope,
        qk_rope_head_dim=rope,
        v_head_dim=v,
    )
    n = r.int("num_hidden_layers")
    n_exp = r.int("n_routed_experts", default=0, minimum=0)
    first_dense = r.int("first_k_dense_replace", default=0, minimum=0)
    freq = r.int("moe_layer_freq", default=1)
    v3 = r.model_type == "deepseek_v3"
    moe = None
    if n_exp:
        moe = MoESpec(
            num_experts=n_exp,
            top_k=r.int("num_experts_per_tok"),
            expert_intermediate_size=r.int("moe_intermediate_size"),
            num_shared_experts=r.int("n_shared_experts", default=0, minimum=0),
            shared_intermediate_size=r.int("moe_intermediate_size"),
            router_score_bias=v3 and r.raw("topk_method") in (None, "noaux_tc"),
            topk_group=r.int("topk_group", default=None) if r.int("n_group", default=1) > 1 else None,
        )
    bias = r.bool("attention_bias", False)
    return {
        "num_layers": n,
        "hidden_size": d,
        "num_heads": h,
        "num_kv_heads": h,
        "head_dim": nope + rope,
        "v_head_dim": v,
        "q_dim": h * (nope + rope),
        "kv_dim": h * (nope + rope),
        "attention_type": "mla",
        "mla": mla,
        "layer_windows": (None,) * n,
        "intermediate_size": r.int("intermediate_size"),
        "gated_mlp": True,
        "activation": r.activation("hidden_act", "silu")[0],
        "vocab_size": r.int("vocab_size"),
        "tie_word_embeddings": r.bool("tie_word_embeddings", False),
        "norm_type": "rmsnorm",
        "norm_bias": False,
        "norms_per_layer": 2,
        "position_embedding": "rope",
        "max_position_embeddings": r.int("max_position_embeddings", default=None),
        "qkv_bias": bias,
        "o_bias": bias,
        "moe": moe,
        "moe_layers": tuple(i for i in range(n) if moe and i >= first_dense and i % freq == 0),
        "num_mtp_layers": r.int("num_nextn_predict_layers", default=0, minimum=0),
    }


def _read_gpt_oss(r: Reader) -> dict[str, Any]:
    b = _base(r, head_dim_default=64)
    b.update(
        qkv_bias=r.bool("attention_bias", True),
        o_bias=r.bool("attention_bias", True),
        attention_sinks=True,
        layer_windows=_windows(r, b["num_layers"], lambda i: i % 2 == 0),
    )
    b["moe"] = MoESpec(
        num_experts=r.int("num_local_experts"),
        top_k=r.int("num_experts_per_tok", aliases=("experts_per_token",)),
        expert_intermediate_size=b["intermediate_size"],
        router_bias=True,
        expert_bias=True,
    )
    b["moe_layers"] = tuple(range(b["num_layers"]))
    return b


def _read_falcon(r: Reader) -> dict[str, Any]:
    """Falcon (modeling_falcon.py): fused query_key_value, LayerNorm with bias, 2-matrix GELU MLP."""
    d = r.int("hidden_size")
    h = r.int("num_attention_heads", aliases=("n_head",))
    if d % h:
        raise r.fail("num_attention_heads", f"a divisor of hidden_size ({d})", h)
    new_arch = r.bool("new_decoder_architecture", False)
    if new_arch:
        kv = r.int("num_kv_heads", default=h, aliases=("n_head_kv",))
    else:
        kv = 1 if r.bool("multi_query", True) else h
    if h % kv:
        raise r.fail("num_kv_heads", f"a divisor of num_attention_heads ({h})", kv)
    parallel = r.bool("parallel_attn", True)
    # new architecture: ln_attn + ln_mlp; old: input_layernorm (+ post_attention_layernorm if sequential)
    norms = r.int("num_ln_in_parallel_attn", default=2) if new_arch else (1 if parallel else 2)
    hd, bias, n = d // h, r.bool("bias", False), r.int("num_hidden_layers", aliases=("n_layer",))
    alibi = r.bool("alibi", False)
    return {
        "num_layers": n,
        "hidden_size": d,
        "num_heads": h,
        "num_kv_heads": kv,
        "head_dim": hd,
        "v_head_dim": hd,
        "q_dim": h * hd,
        "kv_dim": kv * hd,
        "attention_type": _attention_kind(h, kv),
        "layer_windows": (None,) * n,
        "intermediate_size": r.int("ffn_hidden_size", default=4 * d),
        "gated_mlp": False,
        "activation": r.activation("activation", "gelu")[0],
        "vocab_size": r.int("vocab_size"),
        "tie_word_embeddings": r.bool("tie_word_embeddings", True),
        "norm_type": "layernorm",
        "norm_bias": True,
        "norms_per_layer": norms,
        "position_embedding": "alibi" if alibi else "rope",
        "max_position_embeddings": r.int("max_position_embeddings", default=None),
        "qkv_bias": bias,
        "o_bias": bias,
        "mlp_bias": bias,
        "parallel_attn": parallel,
    }


def _gpt_like(
    r: Reader,
    *,
    d: int,
    n: int,
    h: int,
    f: int,
    act: str,
    gated: bool,
    positions: int | None,
    tie: bool,
    bias: bool = True,
) -> dict[str, Any]:
    """GPT-2/3 style block: LayerNorm(w+b) x2, biases, 2-matrix MLP, learned positions."""
    if d % h:
        raise r.fail("num_attention_heads", f"a divisor of hidden_size ({d})", h)
    hd = d // h
    return {
        "num_layers": n,
        "hidden_size": d,
        "num_heads": h,
        "num_kv_heads": h,
        "head_dim": hd,
        "v_head_dim": hd,
        "q_dim": d,
        "kv_dim": d,
        "attention_type": "mha",
        "layer_windows": (None,) * n,
        "intermediate_size": f,
        "gated_mlp": gated,
        "activation": act,
        "vocab_size": r.int("vocab_size"),
        "tie_word_embeddings": tie,
        "norm_type": "layernorm",
        "norm_bias": True,
        "norms_per_layer": 2,
        "position_embedding": "learned" if positions else "none",
        "max_position_embeddings": positions,
        "learned_positions": positions or 0,
        "qkv_bias": bias,
        "o_bias": bias,
        "mlp_bias": bias,
    }


def _read_gpt(r: Reader) -> dict[str, Any]:
    """llmcost ``gpt``: GPT-2/3 style defaults, each overridable (see module docstring)."""
    d = r.int("hidden_size", aliases=("n_embd",))
    h = r.int("num_attention_heads", aliases=("n_head",))
    kv = r.int("num_key_value_heads", default=h)
    if h % kv:
        raise r.fail("num_key_value_heads", f"a divisor of num_attention_heads ({h})", kv)
    if r.raw("head_dim") is None:  # GPT-2 c_attn: projections d x d
        hd, q_dim, kv_dim = d // h, d, d * kv // h
    else:
        hd = r.int("head_dim")
        q_dim, kv_dim = h * hd, kv * hd
    act, gated = r.activation("hidden_act", "gelu", aliases=("activation_function",))
    norm = r.choice("norm_type", "layernorm", ("layernorm", "rmsnorm"))
    norm_bias = r.bool("norm_bias", norm == "layernorm")
    if norm == "rmsnorm" and norm_bias:
        raise r.fail("norm_bias", "false with norm_type rmsnorm", True)
    pos = r.choice(
        "position_embedding_type", "learned", ("learned", "rope", "alibi", "none", "transformer_xl")
    )
    max_pos = r.int("max_position_embeddings", default=None, aliases=("n_positions",))
    if pos == "learned" and max_pos is None:
        raise r.fail("max_position_embeddings", "an integer (size of the learned position table)")
    bias = r.bool("use_bias", True)
    parallel = r.bool("parallel_attn", False)
    n = r.int("num_hidden_layers", aliases=("n_layer",))
    return {
        "num_layers": n,
        "hidden_size": d,
        "num_heads": h,
        "num_kv_heads": kv,
        "head_dim": hd,
        "v_head_dim": hd,
        "q_dim": q_dim,
        "kv_dim": kv_dim,
        "attention_type": _attention_kind(h, kv),
        "layer_windows": (None,) * n,
        "intermediate_size": r.int("intermediate_size", default=4 * d, aliases=("n_inner",)),
        "gated_mlp": gated,
        "activation": act,
        "vocab_size": r.int("vocab_size"),
        "tie_word_embeddings": r.bool("tie_word_embeddings", True),
        "norm_type": norm,
        "norm_bias": norm_bias,
        "norms_per_layer": 1 if parallel else 2,
        "position_embedding": pos,
        "max_position_embeddings": max_pos,
        "learned_positions": max_pos if pos == "learned" else 0,
        "qkv_bias": bias,
        "o_bias": bias,
        "mlp_bias": bias,
        "parallel_attn": parallel,
    }


def _read_opt(r: Reader) -> dict[str, Any]:
    """OPT (modeling_opt.py): learned positions with a 2-row offset, optional embedding projection."""
    d = r.int("hidden_size")
    act, gated = r.activation("activation_function", "relu")
    max_pos = r.int("max_position_embeddings", default=2048)
    b = _gpt_like(
        r,
        d=d,
        n=r.int("num_hidden_layers"),
        h=r.int("num_attention_heads"),
        f=r.int("ffn_dim"),
        act=act,
        gated=gated,
        positions=max_pos,
        tie=r.bool("tie_word_embeddings", True),
        bias=r.bool("enable_bias", True),
    )
    wpd = r.int("word_embed_proj_dim", default=d)
    pre_ln = r.bool("do_layer_norm_before", True)
    affine = r.bool("layer_norm_elementwise_affine", True)
    b.update(
        learned_positions=max_pos + 2,
        embedding_size=wpd if wpd != d else 0,
        final_norm=pre_ln and not r.bool("_remove_final_layer_norm", False),
        norms_per_layer=2 if affine else 0,
    )
    return b


def _read_bloom(r: Reader) -> dict[str, Any]:
    d = r.int("hidden_size", aliases=("n_embed",))
    b = _gpt_like(
        r,
        d=d,
        n=r.int("num_hidden_layers", aliases=("n_layer",)),
        h=r.int("num_attention_heads", aliases=("n_head",)),
        f=4 * d,
        act="gelu",
        gated=False,
        positions=None,
        tie=r.bool("tie_word_embeddings", True),
    )
    b.update(
        position_embedding="alibi",
        embedding_norm=True,
        max_position_embeddings=r.int("seq_length", default=None),
    )
    return b


def _read_gpt_neox(r: Reader) -> dict[str, Any]:
    d = r.int("hidden_size")
    act, _ = r.activation("hidden_act", "gelu")
    b = _gpt_like(
        r,
        d=d,
        n=r.int("num_hidden_layers"),
        h=r.int("num_attention_heads"),
        f=r.int("intermediate_size"),
        act=act,
        gated=False,
        positions=None,
        tie=r.bool("tie_word_embeddings", False),
    )
    bias = r.bool("attention_bias", True)
    b.update(
        position_embedding="rope",
        max_position_embeddings=r.int("max_position_embeddings", default=None),
        partial_rotary_factor=r.float("rotary_pct", 0.25),
        qkv_bias=bias,
        o_bias=bias,
        parallel_attn=r.bool("use_parallel_residual", True),
    )
    return b


def _read_gpt2(r: Reader) -> dict[str, Any]:
    d = r.int("n_embd", aliases=("hidden_size",))
    act, gated = r.activation("activation_function", "gelu_new")
    return _gpt_like(
        r,
        d=d,
        n=r.int("n_layer", aliases=("num_hidden_layers",)),
        h=r.int("n_head", aliases=("num_attention_heads",)),
        f=r.int("n_inner", default=4 * d),
        act=act,
        gated=gated,
        positions=r.int("n_positions", default=1024, aliases=("max_position_embeddings",)),
        tie=r.bool("tie_word_embeddings", True),
    )


# --------------------------------------------------------------------------- encoder-decoder


def _sparse_layers(n: int, n_sparse: int) -> tuple[int, ...]:
    """HF SwitchTransformers: step = n // n_sparse; layer i sparse if i % step == 1 or step == 1."""
    if n_sparse <= 0:
        return ()
    step = n // n_sparse
    if step <= 0:
        return ()
    return tuple(i for i in range(n) if step == 1 or i % step == 1)


def _t5_ffn(r: Reader) -> tuple[bool, str]:
    """(gated, activation) of a T5 FFN: Switch's ``dense_act_fn`` (never gated), else
    ``feed_forward_proj`` ('relu', 'gelu', 'gated-gelu' = GeGLU with the tanh GELU, 'gated-silu')."""
    if r.model_type == "switch_transformers":
        return False, r.activation("dense_act_fn", "relu")[0]
    proj = r.raw("feed_forward_proj") or "relu"
    if not isinstance(proj, str):
        raise r.fail("feed_forward_proj", "'relu', 'gelu', 'gated-gelu' or 'gated-silu'", proj)
    gated = proj.startswith("gated-")
    act_name = proj.split("-")[-1]
    if act_name not in _ACT_CANON:
        raise r.fail("feed_forward_proj", "'relu', 'gelu', 'gated-gelu' or 'gated-silu'", proj)
    return gated, "gelu_tanh" if act_name == "gelu" and gated else _ACT_CANON[act_name]


def _switch_experts(r: Reader, spec: dict[str, Any]) -> None:
    """Switch Transformers: top-1 experts of the FFN width on every ``n // n_sparse``-th layer of
    each stack (``num_sparse_*_layers``, else the explicit ``*_sparse_step``)."""
    n_enc, n_dec = spec["num_encoder_layers"], spec["num_layers"]

    def n_sparse(key: str, step_key: str, n: int) -> int:
        v = r.int(key, default=None, minimum=0)
        if v is None:  # fall back to an explicit step
            step = r.int(step_key, default=0, minimum=0)
            return n // step if step else 0
        return v

    spec["moe"] = MoESpec(
        num_experts=r.int("num_experts"),
        top_k=1,
        expert_intermediate_size=spec["intermediate_size"],
        router_bias=r.bool("router_bias", False),
        expert_capacity=r.int("expert_capacity", default=None),
    )
    spec["encoder_moe_layers"] = _sparse_layers(
        n_enc, n_sparse("num_sparse_encoder_layers", "encoder_sparse_step", n_enc)
    )
    spec["moe_layers"] = _sparse_layers(
        n_dec, n_sparse("num_sparse_decoder_layers", "decoder_sparse_step", n_dec)
    )


def _read_t5(r: Reader) -> dict[str, Any]:
    """T5 / mT5 / UMT5 / Switch (modeling_t5.py, modeling_switch_transformers.py)."""
    d, h, dkv = r.int("d_model"), r.int("num_heads"), r.int("d_kv")
    n_enc = r.int("num_layers")
    n_dec = r.int("num_decoder_layers", default=n_enc)
    gated, act = _t5_ffn(r)
    tie_default = r.model_type in ("t5", "switch_transformers")
    spec: dict[str, Any] = {
        "num_layers": n_dec,
        "num_encoder_layers": n_enc,
        "hidden_size": d,
        "num_heads": h,
        "num_kv_heads": h,
        "head_dim": dkv,
        "v_head_dim": dkv,
        "q_dim": h * dkv,
        "kv_dim": h * dkv,
        "attention_type": "mha",
        "layer_windows": (None,) * n_dec,
        "intermediate_size": r.int("d_ff"),
        "gated_mlp": gated,
        "activation": act,
        "vocab_size": r.int("vocab_size"),
        "tie_word_embeddings": r.bool("tie_word_embeddings", tie_default),
        "norm_type": "rmsnorm",
        "norm_bias": False,
        "norms_per_layer": 2,
        "position_embedding": "t5_relative",
        "max_position_embeddings": r.int("n_positions", default=None),
        "relative_attention_num_buckets": r.int("relative_attention_num_buckets", default=32),
        "relative_attention_max_distance": r.int("relative_attention_max_distance", default=128),
    }
    if r.model_type == "switch_transformers":
        _switch_experts(r, spec)
    return spec


READERS: dict[str, Callable[[Reader], dict[str, Any]]] = {
    "llama": _read_llama,
    "mistral": _read_mistral,
    "mixtral": _read_mixtral,
    "qwen2": _read_qwen2,
    "qwen2_moe": _read_qwen2_moe,
    "qwen3": _read_qwen3,
    "qwen3_moe": _read_qwen3_moe,
    "phi3": _read_mistral,
    "gemma": _read_gemma,
    "gemma2": _read_gemma2,
    "gemma3_text": _read_gemma3_text,
    "gemma3": _read_gemma3,
    "deepseek_v2": _read_deepseek,
    "deepseek_v3": _read_deepseek,
    "gpt_oss": _read_gpt_oss,
    "glm": _read_glm,
    "glm4": lambda r: _read_glm(r, norms=4),
    "nemotron": _read_nemotron,
    "falcon": _read_falcon,
    "opt": _read_opt,
    "bloom": _read_bloom,
    "gpt_neox": _read_gpt_neox,
    "gpt2": _read_gpt2,
    "gpt": _read_gpt,
    "t5": _read_t5,
    "mt5": _read_t5,
    "umt5": _read_t5,
    "switch_transformers": _read_t5,
}


_T5_DROPOUT = (("dropout_rate",), 0.1, ("dropout_rate",), 0.1)
_DROPOUT: dict[str, tuple[tuple[str, ...], float, tuple[str, ...], float]] = {
    # model_type: (attention-probability keys, default, hidden / residual keys, default). The
    # defaults are the Hugging Face <Type>Config defaults; llmcost's own ``gpt`` takes GPT-2/3's.
    "gpt": (("attention_dropout", "attn_pdrop"), 0.1, ("hidden_dropout", "resid_pdrop"), 0.1),
    "gpt2": (("attn_pdrop",), 0.1, ("resid_pdrop",), 0.1),  # GPT2Config
    "opt": (("attention_dropout",), 0.0, ("dropout",), 0.1),  # OPTConfig
    "phi3": (("attention_dropout",), 0.0, ("resid_pdrop",), 0.0),  # Phi3Config
    "t5": _T5_DROPOUT,  # T5Config dropout_rate: attention probabilities and every sublayer output
    "mt5": _T5_DROPOUT,
    "umt5": _T5_DROPOUT,
    "switch_transformers": _T5_DROPOUT,
}
_DROPOUT_DEFAULT = (("attention_dropout",), 0.0, ("hidden_dropout",), 0.0)
"""Every other type: ``attention_dropout`` (HF default 0.0: Llama, Mistral, Qwen, Gemma, DeepSeek,
gpt-oss, GLM, Nemotron) and ``hidden_dropout`` (BLOOM, Falcon, GPT-NeoX: HF default 0.0)."""


def read_dropout(r: Reader) -> dict[str, float]:
    """Training dropout probabilities of ``r``'s config (see :data:`_DROPOUT`)."""
    a_keys, a_default, h_keys, h_default = _DROPOUT.get(r.model_type, _DROPOUT_DEFAULT)
    return {
        "attention_dropout": r.prob(a_keys[0], a_default, aliases=a_keys[1:]),
        "hidden_dropout": r.prob(h_keys[0], h_default, aliases=h_keys[1:]),
    }
