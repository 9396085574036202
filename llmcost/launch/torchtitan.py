"""torchtitan job config (TOML) of a training plan.

Every key is a field of torchtitan/config/job_config.py at tag v0.2.2 (:data:`KEYS` gives the line);
converter names are those registered in torchtitan/components/quantization at that tag."""

from __future__ import annotations

from typing import Any

from llmcost.launch.common import Lines, Target, header_lines, nodes, refuse, toml

SOURCE = "https://github.com/pytorch/torchtitan/blob/v0.2.2/torchtitan/config/job_config.py"
QUANT = "https://github.com/pytorch/torchtitan/blob/v0.2.2/torchtitan/components/quantization"

KEYS: dict[str, str] = {
    **{
        key: f"{SOURCE}#L{line}"
        for key, line in (
            ("model.converters", 118),
            ("training.local_batch_size", 253),
            ("training.global_batch_size", 256),
            ("training.seq_len", 261),
            ("training.enable_cpu_offload", 270),
            ("training.mixed_precision_param", 282),
            ("parallelism.data_parallel_replicate_degree", 313),
            ("parallelism.data_parallel_shard_degree", 324),
            ("parallelism.fsdp_reshard_after_forward", 336),
            ("parallelism.tensor_parallel_degree", 351),
            ("parallelism.enable_async_tensor_parallel", 357),
            ("parallelism.pipeline_parallel_degree", 360),
            ("parallelism.pipeline_parallel_schedule", 396),
            ("parallelism.pipeline_parallel_microbatch_size", 412),
            ("parallelism.context_parallel_degree", 428),
            ("parallelism.expert_parallel_degree", 454),
            ("activation_checkpoint.mode", 652),
            ("activation_checkpoint.selective_ac_option", 655),
            ("quantize.linear.float8.recipe_name", 738),
            ("quantize.linear.mx.recipe_name", 777),
        )
    },
    "converter quantize.linear.float8": f"{QUANT}/float8.py#L238",
    "converter quantize.linear.mx": f"{QUANT}/mx.py#L171",
}
"""Job-config key -> its field in torchtitan v0.2.2 (and the converter names' registrations)."""

SCHEDULES = {
    "1f1b": "1F1B",
    "interleaved": "Interleaved1F1B",
    "gpipe": "GPipe",
    "zero_bubble": "ZBVZeroBubble",
}
"""llmcost schedules as torch.distributed.pipelining schedule names (``get_schedule_class``)."""


def render(p: dict[str, Any], t: Target) -> str:
    """The plan as a torchtitan TOML job config (the tables it sets; merge into a model's config)."""
    if p["precision"] in ("fp16", "fp4"):
        raise refuse(
            "torchtitan",
            f"precision {p['precision']}: torchtitan trains in bfloat16 with float8 / MX converters",
        )
    w = Lines(KEYS)
    w.workload(p, "torchtitan")
    w.note(f"{nodes(p['gpus'], t.gpus_per_node)}: NGPU={p['gpus']} across the nodes")
    _parallelism(w, p)
    _batch(w, p)
    _recompute(w, p["recompute"])
    w.megatron_keys(p, "torchtitan")
    w.add("training.mixed_precision_param", "bfloat16")
    _fp8(w, p)
    if p["offload"] == "cpu+params":
        w.add("training.enable_cpu_offload", True)  # FSDP2: parameters, gradients and optimizer state
    elif p["offload"] != "none":
        w.note(
            f"offload {p['offload']}: torchtitan offloads parameters, gradients and optimizer together (cpu+params); not set"
        )
    if p["offload_activations"] or p["offload_layers"]:
        w.note("activation offload: no torchtitan v0.2.2 setting; not set")
    sections: dict[str, dict[str, Any]] = {}
    for key, value in w.items:
        table, _, name = key.rpartition(".")
        sections.setdefault(table, {})[name] = value
    return "\n".join(header_lines(t, w.notes) + toml(sections)[1:])


def _parallelism(w: Lines, p: dict[str, Any]) -> None:
    zero, dp = p["zero"], p["dp"]
    if zero == 0 and not p["distributed_optimizer"]:
        w.add("parallelism.data_parallel_replicate_degree", dp)
        w.add("parallelism.data_parallel_shard_degree", 1)
    else:
        w.add("parallelism.data_parallel_replicate_degree", 1)
        w.add("parallelism.data_parallel_shard_degree", dp)
        w.add("parallelism.fsdp_reshard_after_forward", "always" if zero == 3 else "never")
        if zero < 2:
            w.note(
                "ZeRO-1 / distributed optimizer: FSDP2 shards gradients too; the nearest, ZeRO-2 (no reshard after forward)"
            )
    w.add("parallelism.tensor_parallel_degree", p["tp"])
    if p["tp_overlap"]:
        w.add("parallelism.enable_async_tensor_parallel", True)  # needs [compile] enable
    w.add("parallelism.pipeline_parallel_degree", p["pp"])
    if p["pp"] > 1:
        w.add("parallelism.pipeline_parallel_schedule", SCHEDULES[p["schedule"]])
        w.add("parallelism.pipeline_parallel_microbatch_size", p["micro_batch"])
        if p["schedule"] == "zero_bubble":
            w.note("zero_bubble: ZBVZeroBubble places two stages per rank in a V")
        elif p["schedule"] == "interleaved":
            w.note(f"interleaved: {p['virtual_stages']} stages per rank come from the layer split points")
    w.add("parallelism.context_parallel_degree", p["cp"])
    if p["ep"] > 1:
        w.add("parallelism.expert_parallel_degree", p["ep"])


def _batch(w: Lines, p: dict[str, Any]) -> None:
    """Without PP a rank's batch is one micro-batch (gradient accumulation = global / (local x dp));
    with PP the local batch is split into pipeline micro-batches."""
    local = p["global_batch"] // p["dp"] if p["pp"] > 1 else p["micro_batch"]
    w.add("training.local_batch_size", local)
    w.add("training.global_batch_size", p["global_batch"])
    if p["seq_len"]:
        w.add("training.seq_len", p["seq_len"])


def _recompute(w: Lines, recompute: str) -> None:
    if recompute in ("none", "full"):
        w.add("activation_checkpoint.mode", recompute)
        return
    w.add("activation_checkpoint.mode", "selective")
    w.add("activation_checkpoint.selective_ac_option", "op")
    if recompute == "selective":
        w.note("recompute selective (attention core): torchtitan's nearest is per-op selective checkpointing")


def _fp8(w: Lines, p: dict[str, Any]) -> None:
    if p["precision"] != "fp8":
        return
    if p["fp8_recipe"] == "block":
        w.add("model.converters", ["quantize.linear.mx"])
        w.add("quantize.linear.mx.recipe_name", "mxfp8_cublas")
        return
    w.add("model.converters", ["quantize.linear.float8"])
    w.add("quantize.linear.float8.recipe_name", "tensorwise")
    if p["fp8_recipe"] == "delayed":
        w.note("fp8 recipe delayed: torchao float8 scales per tensor dynamically (tensorwise)")
