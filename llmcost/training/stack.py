"""What a software stack decides for a training plan: the defaults a plan does not state.

A stack (``stack: {framework, year}`` on a validation case or a plan; ``--stack NAME[:YEAR]``)
selects a sourced :class:`llmcost.stacks.Profile`. Hardware says what the silicon can do; the
profile says what the framework makes of it, as plan defaults, never as a factor:

* attention: a stack whose default attention writes the scores to memory runs ``materialized``;
  one that runs a fused kernel runs ``flash`` (fused kernels carry attention dropout since
  FlashAttention-1, Dao et al. 2022 §3.1), priced at that kernel family's catalog figure
  (:meth:`llmcost.hardware.Hardware.for_attention_family`, e.g. FlashAttention-2 on Hopper);
* ``overlap_dp``: whether the gradient reduction is overlapped with the backward pass
  (Megatron-LM before ``--overlap-grad-reduce`` reduced after the backward);
* ``tp_overlap``: on where the stack turns TP communication overlap on by default (it needs
  ``tp > 1`` with sequence parallelism), unless the plan fuses the reduce-scatter (``tp_fused_rs``);
* ``fused_norm`` / ``fused_act`` / ``fused_rope``: the profile's ``fused_norm`` / ``fused_bias_act`` /
  ``fused_rope``, and ``fp8_recipe`` its ``fp8_recipe``, where its source documents them (eager PyTorch runs an RMSNorm and a gated activation as chains of
  elementwise kernels, :mod:`llmcost.training.compute`); a field the profile does not document
  (``NOT_DOCUMENTED``) leaves the plan default (fused): no guess moves a prediction.
* ``tp_layout_copy``: the profile's where documented (torchtitan's DTensor sequence parallelism on
  batch-first activations);
* ``pp_p2p_full``: the profile's where documented (DeepSpeed's PipelineEngine, which GPT-NeoX and
  Megatron-DeepSpeed pipeline through);
* ``fp8_hp_inputs``: the profile's where documented (torchtitan's torchao float8 keeps the
  high-precision linear inputs for the backward);
* ``optimizer_passes``: the profile's where documented (Megatron's mixed-precision optimizer);
* ``ep_deepep``: the profile's where documented (NeMo AutoModel dispatches MoE tokens through DeepEP);
* ``autocast_weights``: the profile's where documented (the Hugging Face Trainer's mixed precision is
  ``torch.autocast`` over fp32 parameters);
* ``grad_reduce_in_fp32``: the profile's where documented (DeepSpeed reduces gradients in the
  16-bit parameter dtype, torchtitan's FSDP in fp32); else the precision's default;
* ``tp_bwd_overlap``: the profile's ``tp_bwd_overlap`` where documented (Megatron-LM's asynchronous
  TP collectives of the backward, Transformer Engine's likewise);
* ``pp_overlap``: on where the profile overlaps pipeline send/recv (``pp_p2p_overlap``: every
  schedule, or the interleaved one only, as Megatron-Core's ``overlap_p2p_comm``);
* ``zero3_bucket``: the profile's ``zero3_gather_bucket_params`` where its ``zero3_gather_unit``
  is ``tensor`` or ``bucket`` (DeepSpeed ZeRO-3 fetches parameters in prefetch buckets of
  ``stage3_prefetch_bucket_size`` elements, one all-gather each); FSDP stacks (unit ``layer``)
  leave it unset: one collective per transformer block;
* ``zero3_serial``: on where the profile documents that ZeRO-3 gathers are not prefetched
  (``zero3_prefetch`` false: DeepSpeed before v0.6.0).

What the plan states wins. An unknown framework is never an error: the year's mainstream
profile applies and a note says so (:func:`llmcost.stacks.profile_for`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from llmcost.hardware import Hardware
from llmcost.stacks import NOT_DOCUMENTED, Profile, is_no_stack, profile_for
from llmcost.stacks import parse_stack as parse

FUSION_KEYS = (
    ("fused_norm", "fused_norm"),
    ("fused_act", "fused_bias_act"),
    ("fused_rope", "fused_rope"),
    ("fp8_recipe", "fp8_recipe"),
    ("tp_bwd_overlap", "tp_bwd_overlap"),
    ("grad_reduce_in_fp32", "grad_reduce_in_fp32"),
    ("autocast_weights", "autocast_weights"),
    ("tp_layout_copy", "tp_layout_copy"),
    ("pp_p2p_full", "pp_p2p_full"),
    ("fp8_hp_inputs", "fp8_hp_inputs"),
    ("optimizer_passes", "optimizer_passes"),
    ("ep_deepep", "ep_deepep"),
)
"""(plan key, profile field) pairs :func:`apply` fills from a profile."""


@dataclass(frozen=True)
class StackChoice:
    """A plan mapping with the stack's defaults filled in, the device as the stack sees it, and
    one note naming the profile used (and any guess made)."""

    plan: dict[str, Any]
    hardware: Hardware
    profile: Profile
    note: str


def apply(stack: Any, plan: Mapping[str, Any], hw: Hardware) -> StackChoice:
    """The plan and device under ``stack`` (see the module docstring)."""
    profile, guess = profile_for(*parse(stack))
    out = dict(plan)
    fused = profile.attention != "materialized"
    if out.get("attention", "auto") == "auto":
        out["attention"] = "flash" if fused else "materialized"
    out.setdefault("overlap_dp", profile.dp_overlap)
    tp, sp = out.get("tp") or 1, out.get("sp")
    multi_tp = isinstance(tp, int) and not isinstance(tp, bool) and tp > 1
    fused_rs = bool(out.get("tp_fused_rs"))  # the plan's T3 fusion hides the reduce-scatter instead
    if "tp_overlap" not in out and profile.tp_comm_overlap and multi_tp and sp is not False and not fused_rs:
        out["tp_overlap"] = True
    for key, fld in FUSION_KEYS:
        if key not in out and profile.sources.get(fld, NOT_DOCUMENTED) != NOT_DOCUMENTED:
            value = getattr(profile, fld)
            out[key] = value if isinstance(value, str) else bool(value)
    if "fused_ce" not in out and profile.sources.get("eager_loss", NOT_DOCUMENTED) != NOT_DOCUMENTED:
        out["fused_ce"] = not profile.eager_loss
    overlap = pp_overlap_of(profile)
    if "pp_overlap" not in out and overlap != "none":
        out["pp_overlap"] = overlap == "all" or out.get("schedule") == "interleaved"
    bucket = zero3_bucket(profile)
    if "zero3_bucket" not in out and bucket is not None:
        out["zero3_bucket"] = bucket
    if (
        "zero3_copy_out" not in out
        and profile.sources.get("zero3_copy_out", NOT_DOCUMENTED) != NOT_DOCUMENTED
    ):
        out["zero3_copy_out"] = profile.zero3_copy_out
    if "zero3_serial" not in out and profile.sources.get("zero3_prefetch", NOT_DOCUMENTED) != NOT_DOCUMENTED:
        out["zero3_serial"] = not profile.zero3_prefetch
    device = hw.for_attention_family(profile.attention) if fused and out["attention"] == "flash" else hw
    note = f"stack: {profile.label}" + (f" ({guess})" if guess else "")
    return StackChoice(out, device, profile, note)


def under(
    stack: Any, plan: Mapping[str, Any], hw: Hardware
) -> tuple[dict[str, Any], Hardware, StackChoice | None]:
    """``plan`` and ``hw`` under ``stack`` (:func:`apply`) with its choice, or as they stand (and
    None) where ``stack`` is None or ``"none"``: what a plan that names its stack, or none, costs."""
    if stack is None or is_no_stack(stack):
        return dict(plan), hw, None
    choice = apply(stack, plan, hw)
    return choice.plan, choice.hardware, choice


def pp_overlap_of(profile: Profile) -> str:
    """Which schedules overlap pipeline send/recv with compute under ``profile``: its documented
    ``pp_p2p_overlap`` (``interleaved``, ``all``), else ``none``."""
    if profile.sources.get("pp_p2p_overlap", NOT_DOCUMENTED) == NOT_DOCUMENTED:
        return "none"
    return str(profile.pp_p2p_overlap)


def zero3_bucket(profile: Profile) -> float | None:
    """Parameters per ZeRO-3 collective under ``profile``: its documented
    ``zero3_gather_bucket_params`` where parameters are gathered per tensor or bucket, else None
    (one collective per layer)."""
    if profile.zero3_gather_unit not in ("tensor", "bucket"):
        return None
    if profile.sources.get("zero3_gather_bucket_params", NOT_DOCUMENTED) == NOT_DOCUMENTED:
        return None
    return profile.zero3_gather_bucket_params or None
