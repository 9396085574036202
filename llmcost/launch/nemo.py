"""NeMo (1.x-style ``megatron_gpt_pretraining.py``) Hydra overrides of a training plan.

Every key is in examples/nlp/language_modeling/conf/megatron_gpt_config.yaml at NeMo tag v2.0.0
(:data:`KEYS` gives the line) except ``model.context_parallel_size``, which that config leaves out
and megatron_base_model.py reads with a default (so it is added with Hydra's ``+``)."""

from __future__ import annotations

from typing import Any

from llmcost.launch.common import Lines, Target, header_lines, refuse

SOURCE = (
    "https://github.com/NVIDIA/NeMo/blob/v2.0.0/examples/nlp/language_modeling/conf/megatron_gpt_config.yaml"
)
BASE = "https://github.com/NVIDIA/NeMo/blob/v2.0.0/nemo/collections/nlp/models/language_modeling/megatron_base_model.py"

KEYS: dict[str, str] = {
    **{
        key: f"{SOURCE}#L{line}"
        for key, line in (
            ("trainer.devices", 8),
            ("trainer.num_nodes", 9),
            ("trainer.precision", 11),
            ("model.micro_batch_size", 77),
            ("model.global_batch_size", 78),
            ("model.tensor_model_parallel_size", 80),
            ("model.pipeline_model_parallel_size", 81),
            ("model.virtual_pipeline_model_parallel_size", 82),
            ("model.expert_model_parallel_size", 83),
            ("model.encoder_seq_length", 86),
            ("model.fsdp", 172),
            ("model.fsdp_sharding_strategy", 173),
            ("model.activations_checkpoint_granularity", 193),
            ("model.activations_checkpoint_method", 194),
            ("model.activations_checkpoint_num_layers", 198),
            ("model.sequence_parallel", 219),
            ("model.fp8", 223),
            ("model.fp8_hybrid", 225),
            ("model.ub_tp_comm_overlap", 232),
            ("model.cpu_offloading", 244),
            ("model.cpu_offloading_num_layers", 245),
            ("model.cpu_offloading_activations", 246),
            ("model.cpu_offloading_weights", 247),
            ("model.optim.name", 301),
        )
    },
    "+model.context_parallel_size": f"{BASE}#L198",
}
"""Override key -> its line in NeMo v2.0.0's megatron_gpt_config.yaml (or where the model reads it)."""


def render(p: dict[str, Any], t: Target) -> str:
    """The plan as a bash array of Hydra overrides (``python megatron_gpt_pretraining.py "${NEMO_OVERRIDES[@]}"``)."""
    if p["precision"] == "fp4":
        raise refuse("nemo", "precision fp4: NeMo's megatron_gpt_config has no fp4 training")
    w = Lines(KEYS)
    w.workload(p, "NeMo")
    per_node = min(p["gpus"], t.gpus_per_node)
    w.add("trainer.devices", per_node)
    w.add("trainer.num_nodes", -(-p["gpus"] // per_node))
    w.add("trainer.precision", 16 if p["precision"] == "fp16" else "bf16")
    w.add("model.micro_batch_size", p["micro_batch"])
    w.add("model.global_batch_size", p["global_batch"])
    w.add("model.tensor_model_parallel_size", p["tp"])
    w.add("model.pipeline_model_parallel_size", p["pp"])
    if p["pp"] > 1 and p["schedule"] == "interleaved":
        w.add("model.virtual_pipeline_model_parallel_size", p["virtual_stages"])
    elif p["pp"] > 1 and p["schedule"] in ("gpipe", "zero_bubble"):
        w.note(f"schedule {p['schedule']}: NeMo runs Megatron's 1F1B; not set")
    if p["cp"] > 1:
        w.add("+model.context_parallel_size", p["cp"])
    if p["ep"] > 1:
        w.add("model.expert_model_parallel_size", p["ep"])
    w.add("model.sequence_parallel", bool(p["sp"] and p["tp"] > 1))
    if p["tp_overlap"]:
        w.add("model.ub_tp_comm_overlap", True)
    if p["seq_len"]:
        w.add("model.encoder_seq_length", p["seq_len"])
    _recompute(w, p["recompute"])
    w.megatron_keys(p, "NeMo launcher")
    if p["precision"] == "fp8":
        w.add("model.fp8", True)
        w.add("model.fp8_hybrid", True)
        if p["fp8_recipe"] != "delayed":
            w.note(
                f"fp8 recipe {p['fp8_recipe']}: this config scales fp8 with delayed scaling (amax history)"
            )
    _zero(w, p)
    lines = header_lines(t, w.notes) + ["NEMO_OVERRIDES=("]
    lines += [f"    {k}={_value(v)}" for k, v in w.items]
    return "\n".join([*lines, ")"])


def _value(v: Any) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def _recompute(w: Lines, recompute: str) -> None:
    if recompute == "selective":
        w.add("model.activations_checkpoint_granularity", "selective")
    elif recompute == "full":
        w.add("model.activations_checkpoint_granularity", "full")
        w.add("model.activations_checkpoint_method", "uniform")
        w.add("model.activations_checkpoint_num_layers", 1)
    elif recompute == "op":
        w.note("recompute op (per-op selective checkpointing, torchtitan): no NeMo equivalent; not set")


def _zero(w: Lines, p: dict[str, Any]) -> None:
    zero = p["zero"]
    if zero == 1 or p["distributed_optimizer"]:
        w.add("model.optim.name", "distributed_fused_adam")
    elif zero in (2, 3):
        w.add("model.fsdp", True)
        w.add("model.fsdp_sharding_strategy", "grad" if zero == 2 else "full")
    if p["offload"] != "none":
        w.note(f"offload {p['offload']}: no optimizer offload in NeMo's megatron_gpt_config; not set")
    if p["offload_activations"] or p["offload_layers"]:
        w.add("model.cpu_offloading", True)
        if p["offload_layers"]:
            w.add("model.cpu_offloading_num_layers", p["offload_layers"])
        w.add("model.cpu_offloading_activations", True)
        w.add("model.cpu_offloading_weights", False)
