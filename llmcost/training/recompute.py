"""Megatron-Core's fine-grained selective recomputation (``recompute_modules``; runtime: no sympy).

With ``recompute: selective`` a plan may name the submodules it recomputes, as Megatron-Core's
``--recompute-granularity selective --recompute-modules ...`` does (NVIDIA/Megatron-LM
megatron/core/transformer/transformer_config.py ``recompute_modules``; the MoE README's
"Fine-grained Recomputation"). Unset, selective recomputation is the attention core alone
(``core_attn``, Megatron-Core's default and Korthikanti 2022 §5). What each module recomputes (the
graph's operators, :data:`MODULE_OPS`) and what it stops storing (``act__modules`` of
:mod:`llmcost.training.formulas`) follow Megatron-Core with Transformer Engine's layer spec
(megatron/core/models/gpt/gpt_layer_specs.py): the input norm is fused into the QKV GEMM of an
MHA/GQA layer (an ``IdentityOp``, nothing to recompute) and a separate module before MLA's down
projections; the pre-MLP norm is a separate module only before a MoE block.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

RECOMPUTE_MODULES = ("core_attn", "layernorm", "moe_act", "mla_up_proj", "mlp", "shared_experts", "moe")
"""Megatron-Core's recompute modules that llmcost prices (transformer_config.py): ``core_attn`` the
attention core (checkpointed); ``layernorm`` the input and pre-MLP norms where they are separate
modules (output discarded, transformer_layer.py ``recompute_input_layernorm`` /
``recompute_pre_mlp_layernorm``); ``moe_act`` the routed experts' activation (output discarded,
moe/experts.py ``activation_recompute``); ``mla_up_proj`` MLA's query / key-value up projections and
rotary embedding (output discarded, multi_latent_attention.py ``recompute_up_proj``); ``mlp`` a dense
layer's MLP (checkpointed; not MoE layers); ``shared_experts`` a MoE layer's shared experts and ``moe``
the whole MoE block, dispatch and combine included (checkpointed, moe/moe_layer.py)."""

DEFAULT_MODULES = ("core_attn",)
"""What ``recompute: selective`` recomputes when the plan names no modules (Megatron-Core's default)."""

MODULE_BITS = {m: 1 << i for i, m in enumerate(RECOMPUTE_MODULES)}
"""Bit of each module in a plan's ``rcm`` column (0: nothing beyond ``recompute`` itself)."""

_MOE_BLOCK = ("router", "moe_permute", "experts_up", "experts_act", "experts_down")
_SHARED = ("shared_up", "shared_act", "shared_down")

MODULE_OPS: dict[str, dict[str, tuple[str, ...]]] = {
    "layernorm": {"mla": ("attn_norm",), "moe": ("ffn_norm",)},
    "moe_act": {"moe": ("experts_act",)},
    "mla_up_proj": {"mla": ("q_proj", "q_b_proj", "kv_b_proj", "rotary")},
    "mlp": {"dense": ("ffn_norm", "up_proj", "act", "down_proj")},
    "shared_experts": {"moe": _SHARED},
    "moe": {"moe": (*_MOE_BLOCK, *_SHARED)},
}
"""Graph operators each module recomputes, by the kind of layer it applies to (``mla``: a layer with
MLA attention; ``moe`` / ``dense``: a layer with a MoE / dense FFN block); ``core_attn`` is the
attention core however it runs (:func:`llmcost.training.compute.layer_cost`). ``mlp`` includes the
pre-MLP norm because Transformer Engine fuses it into FC1 (``LayerNormLinear``); MLA's ``q_proj``
is its query projection when it has no query LoRA (the up projection's input is then the hidden
state). fp8 casts of a recomputed GEMM's input are not priced again."""


def modules_mask(names: Iterable[str]) -> int:
    """The ``rcm`` bits of module names (already checked: :func:`check_modules`)."""
    mask = 0
    for n in names:
        mask |= MODULE_BITS[n]
    return mask


DEFAULT_MASK = modules_mask(DEFAULT_MODULES)
"""The ``rcm`` bits of selective recomputation when the plan names no modules."""


def selective_column(selective: Any, mask: int = DEFAULT_MASK) -> Any:
    """The ``rcm`` column: ``mask`` where a plan recomputes selectively, 0 for every other mode (one
    plan, :func:`llmcost.training.plan.recompute_mask`, or a search's rows)."""
    return np.where(selective, mask, 0).astype(np.int64)


def parse_modules(text: Any) -> list[str] | None:
    """``--recompute-modules`` as the plan key takes it: comma-separated names (a list passes as
    it is); None when not given. The names are checked by the plan
    (:func:`llmcost.training.plan.check_recompute_modules`)."""
    if text is None or not isinstance(text, str):
        return None if text is None else list(text)
    return [m.strip() for m in text.split(",") if m.strip()]


def mask_modules(mask: int) -> tuple[str, ...]:
    """Module names of ``rcm`` bits, in :data:`RECOMPUTE_MODULES` order."""
    return tuple(m for m in RECOMPUTE_MODULES if int(mask) & MODULE_BITS[m])


@dataclass(frozen=True)
class LayerKind:
    """What a layer is made of, as :data:`MODULE_OPS` keys it: MLA attention, a MoE FFN block."""

    mla: bool
    moe: bool

    @classmethod
    def of(cls, op_names: Iterable[str]) -> LayerKind:
        names = set(op_names)
        return cls(mla=bool(names & {"q_a_proj", "kv_a_proj"}), moe="experts_up" in names)

    def kinds(self) -> tuple[str, ...]:
        return (*(("mla",) if self.mla else ()), "moe" if self.moe else "dense")


def recomputed_ops(mask: int, kind: LayerKind) -> frozenset[str]:
    """Names of the graph operators (besides the attention core) that the modules of ``mask``
    recompute in a layer of ``kind``."""
    out: set[str] = set()
    for m in mask_modules(mask):
        for k in kind.kinds():
            out.update(MODULE_OPS.get(m, {}).get(k, ()))
    return frozenset(out)


def reruns_block(mask: int, kind: LayerKind) -> bool:
    """Whether the modules of ``mask`` recompute a layer's whole FFN block (``mlp`` of a dense layer,
    ``moe`` of a MoE layer): its collectives (the sequence-parallel gather, the expert dispatch and
    combine) run again in the recomputed forward."""
    mods = set(mask_modules(mask))
    return ("moe" in mods) if kind.moe else ("mlp" in mods)
