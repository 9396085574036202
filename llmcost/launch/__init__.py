"""A plan as a framework's launch configuration (``--emit FRAMEWORK``): Megatron-LM arguments, a
torchtitan TOML job config, NeMo Hydra overrides or a DeepSpeed config for a training plan; a
``vllm serve``, SGLang or ``trtllm-serve`` command for an inference plan.

One module per framework, each with its table of the flag names it writes and the source (docs page
or source file at a tag) where each is defined. Only what the plan decides is written (parallel
degrees, batch, micro-batch, recompute, precision, ZeRO stage, offload, sequence length, schedule);
a plan value with no equivalent setting is a comment line, a plan the framework cannot run at all
a one-line error."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from importlib import import_module
from typing import Any

from llmcost.errors import UserError, did_you_mean
from llmcost.launch.common import Target, infer_keys, train_keys

TRAIN = ("megatron", "torchtitan", "nemo", "deepspeed")
"""Frameworks that launch a training plan."""
INFER = ("vllm", "sglang", "trtllm")
"""Engines that serve an inference plan."""
ALIASES = {
    "megatron-lm": "megatron",
    "megatron-core": "megatron",
    "tensorrt-llm": "trtllm",
    "trt-llm": "trtllm",
}
"""Other spellings of a framework (the stack names of :mod:`llmcost.stacks` among them)."""


def framework(name: str, kind: str | None = None) -> str:
    """The framework ``name`` means, checked against the plan kind (``train`` / ``infer``) when given."""
    key = ALIASES.get(name.strip().lower(), name.strip().lower())
    if key not in (*TRAIN, *INFER):
        raise UserError(f"--emit: unknown framework '{name}'" + did_you_mean(name, (*TRAIN, *INFER)))
    if kind == "train" and key in INFER:
        raise UserError(f"--emit {key}: a serving engine; a training plan emits to {', '.join(TRAIN)}")
    if kind == "infer" and key in TRAIN:
        raise UserError(f"--emit {key}: a training framework; an inference plan emits to {', '.join(INFER)}")
    return key


def render(name: str, plan: Any, target: Target | None = None) -> str:
    """The launch configuration of ``plan`` (train or infer plan keys, or the plan dataclass) in
    framework ``name``'s own terms."""
    key = framework(name)
    writer: Callable[[dict[str, Any], Target], str] = import_module(f"llmcost.launch.{key}").render
    keys = train_keys(plan) if key in TRAIN else infer_keys(plan)
    target = target or Target(key)
    if key in TRAIN and keys.get("tp_fused_rs"):
        note = (
            "tp_fused_rs: T3's reduce-scatter fused into its GEMM (Pati et al. 2024, arXiv 2401.16677) is a "
            f"hardware-software proposal with no {key} setting; not set (the costed figures assume it)"
        )
        target = replace(target, header=(*target.header, note))
    return writer(keys, target)


def table(name: str) -> dict[str, str]:
    """Framework ``name``'s flag names and where each is documented."""
    mod = import_module(f"llmcost.launch.{framework(name)}")
    return dict(getattr(mod, "FLAGS", None) or mod.KEYS)


__all__ = ["TRAIN", "INFER", "Target", "framework", "render", "table"]
