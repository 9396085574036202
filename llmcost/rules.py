"""Plan validity rules: the rule type and the rules inference and training share (no sympy).

A rule is written once, as a predicate that works on one plan (scalar fields) or on many plans at
once (numpy arrays of fields, one element per plan), with the one-line message of a plan breaking
it. :func:`llmcost.inference.serve.check_plan` and :func:`llmcost.training.plan.check` raise the
first rule of their list a plan breaks; ``llmcost search infer | train`` apply the same predicates
as masks and count rejected plans under the rule's ``reason``.

Predicates combine conditions with ``&`` / ``|`` on comparisons (never ``~``/``not`` on a field:
``~True`` is ``-2``), so that they give a bool for one plan and a bool array for many.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Rule:
    """One validity rule. ``broken(spec, plan)`` is a bool, or a bool array when the plan's fields
    are arrays; ``message(spec, plan)`` the PlanError of one plan breaking it; ``reason`` the
    search's rejection label; ``reads`` the plan fields the predicate reads (a search applies the
    rule once those dimensions are enumerated). Rules are checked in order and a plan reports the
    first it breaks, so a rule may assume the earlier ones hold."""

    reason: str
    broken: Callable[[Any, Any], Any]
    message: Callable[[Any, Any], str]
    reads: tuple[str, ...] = ()


def first_broken(rules: Sequence[Rule], spec: Any, plan: Any) -> Any:
    """Index in ``rules`` of the first rule ``plan`` breaks, -1 when none: an int, or an int array
    over the plans when the plan's fields are arrays."""
    out: Any = -1
    for k in range(len(rules) - 1, -1, -1):
        out = np.where(rules[k].broken(spec, plan), k, out)
    return out


# --- rules inference and training share (the same predicate and message) ----------------------------
def _kv_heads_broken(spec: Any, tp: Any) -> Any:
    kv = spec.num_kv_heads
    return (spec.mla is None) & (np.where(tp <= kv, kv % tp, tp % kv) != 0)


HEADS = Rule(
    "attention heads do not divide by tp",
    lambda s, p: s.num_heads % p.tp != 0,
    lambda s, p: f"{s.num_heads} attention heads do not divide by tp {p.tp}; use a tp dividing {s.num_heads}",
    ("tp",),
)
"""Tensor parallelism splits the attention heads evenly (Megatron-LM, vLLM, TensorRT-LLM)."""
KV_HEADS = Rule(
    "KV heads and tp do not divide",
    lambda s, p: _kv_heads_broken(s, p.tp),
    lambda s, p: (
        f"{s.num_kv_heads} KV heads and tp {p.tp}: tp must divide the KV heads or be a multiple of them"
    ),
    ("tp",),
)
"""GQA KV heads are split over tp, or replicated when tp exceeds them (tp a multiple of them); MLA
shares one latent over the heads (no KV-head constraint)."""
EP_NEEDS_MOE = Rule(
    "ep > 1 needs a MoE model",
    lambda s, p: (not s.is_moe) & (p.ep > 1),
    lambda s, p: f"ep {p.ep} needs a mixture-of-experts model; {s.name} is dense (use ep 1)",
    ("ep",),
)
"""Expert parallelism shards the experts of MoE layers; a model without them has none to shard."""


# --- context length against the model's positions -----------------------------------------------------
def position_limit(spec: Any) -> int | None:
    """Tokens a model's learned absolute position table embeds (GPT-2/3, OPT, 'gpt'
    configs with ``position_embedding_type: learned``), or None when it has no such table (RoPE,
    ALiBi, relative: positions past ``max_position_embeddings`` extrapolate, :func:`context_note`)."""
    if not spec.learned_positions:
        return None
    return int(spec.max_position_embeddings or spec.learned_positions)


def context_rule(context: Callable[[Any], Any], what: str, reads: tuple[str, ...]) -> Rule:
    """The context-length rule of a plan whose context is ``context(plan)`` (``what`` names it in
    the message): a model with a learned absolute position table cannot embed a position past it
    (an error; other models only extrapolate, :func:`context_note`). Written once; training,
    inference and test-time scaling each pass how their plan's context is read."""

    def broken(s: Any, p: Any) -> Any:
        limit = position_limit(s)
        return False if limit is None else context(p) > limit

    return Rule(
        "context longer than the learned position table",
        broken,
        lambda s, p: (
            f"{what} {context(p)} exceeds the {position_limit(s)} positions of {s.name}'s learned "
            f"position table (max_position_embeddings); use at most {position_limit(s)} tokens"
        ),
        reads,
    )


def context_note(spec: Any, context: int) -> str | None:
    """The warning of a context past ``max_position_embeddings`` of a model without a learned
    position table (RoPE, ALiBi, relative positions extrapolate: the cost is modelled, the quality
    is not); None within it (a learned table: :func:`context_rule`)."""
    mp = spec.max_position_embeddings
    if not mp or position_limit(spec) is not None or context <= mp:
        return None
    return (
        f"context {context} exceeds {spec.name}'s max_position_embeddings {mp}: "
        f"{spec.position_embedding} positions extrapolate past the trained length (quality not modelled)"
    )
