"""DeepSpeed config (JSON, with ``//`` comments: DeepSpeed reads a config file with hjson) of a training plan.

Keys from deepspeed/runtime at tag v0.18.0 (:data:`KEYS`); documented at
https://www.deepspeed.ai/docs/config-json/."""

from __future__ import annotations

import json
from typing import Any

from llmcost.launch.common import Lines, Target, header_lines, nodes, refuse

SOURCE = "https://github.com/deepspeedai/DeepSpeed/blob/v0.18.0/deepspeed/runtime"

KEYS: dict[str, str] = {
    "train_batch_size": f"{SOURCE}/constants.py#L19",
    "train_micro_batch_size_per_gpu": f"{SOURCE}/constants.py#L95",
    "gradient_accumulation_steps": f"{SOURCE}/constants.py#L107",
    "bf16.enabled": f"{SOURCE}/precision_config.py#L28",
    "fp16.enabled": f"{SOURCE}/precision_config.py#L78",
    "zero_optimization.stage": f"{SOURCE}/zero/config.py#L94",
    "zero_optimization.overlap_comm": f"{SOURCE}/zero/config.py#L137",
    "zero_optimization.offload_optimizer.device": f"{SOURCE}/zero/offload_config.py#L55",
    "zero_optimization.offload_param.device": f"{SOURCE}/zero/offload_config.py#L24",
    "activation_checkpointing.cpu_checkpointing": f"{SOURCE}/activation_checkpointing/config.py#L42",
    "hjson config file": f"{SOURCE}/config.py#L657",
}
"""Config key -> where DeepSpeed v0.18.0 defines it."""


def render(p: dict[str, Any], t: Target) -> str:
    """The plan as a DeepSpeed config; what lives in the model code (TP, PP, CP, recompute) as comments."""
    if p["precision"] in ("fp8", "fp4"):
        raise refuse(
            "deepspeed",
            f"precision {p['precision']}: DeepSpeed's config has no {p['precision']} training (bf16 or fp16)",
        )
    w = Lines(KEYS)
    w.workload(p, "DeepSpeed")
    w.note(
        f"{nodes(p['gpus'], t.gpus_per_node)} (deepspeed --num_nodes / --num_gpus); data-parallel size {p['dp']}"
    )
    for name, degree in (
        ("tensor", p["tp"]),
        ("pipeline", p["pp"]),
        ("context", p["cp"]),
        ("expert", p["ep"]),
    ):
        if degree > 1:
            w.note(f"{name} parallel {degree}: set in the model code (no DeepSpeed config key)")
    mb, dp = p["micro_batch"], p["dp"]
    w.add("train_batch_size", p["global_batch"])
    w.add("train_micro_batch_size_per_gpu", mb)
    w.add("gradient_accumulation_steps", p["global_batch"] // (mb * dp))
    w.add("bf16.enabled" if p["precision"] == "bf16" else "fp16.enabled", True)
    zero = 1 if p["distributed_optimizer"] and p["zero"] == 0 else p["zero"]
    w.add("zero_optimization.stage", zero)
    if zero > 0:
        w.add("zero_optimization.overlap_comm", bool(p["overlap_dp"]))
    _offload(w, p["offload"])
    if p["recompute"] != "none":
        w.note(
            f"recompute {p['recompute']}: checkpoint in the model code (deepspeed.checkpointing.checkpoint)"
        )
    w.megatron_keys(p, "DeepSpeed")
    if p["offload_activations"]:
        w.add("activation_checkpointing.cpu_checkpointing", True)
    if p["offload_layers"]:
        w.note(
            f"offload_layers {p['offload_layers']}: a Megatron-Core setting with no DeepSpeed equivalent here; not set"
        )
    if p["seq_len"]:
        w.note(f"sequence length {p['seq_len']}: set in the data pipeline")
    config: dict[str, Any] = {}
    for key, value in w.items:
        *path, name = key.split(".")
        node = config
        for part in path:
            node = node.setdefault(part, {})
        node[name] = value
    return "\n".join([*header_lines(t, w.notes, "//"), json.dumps(config, indent=2)])


def _offload(w: Lines, offload: str) -> None:
    if offload == "none":
        return
    device, _, params = offload.partition("+")
    w.add("zero_optimization.offload_optimizer.device", device)
    if params:
        w.add("zero_optimization.offload_param.device", device)
    if device == "nvme":
        w.note("offload nvme: add nvme_path to the offload sections")
