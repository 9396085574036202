"""Megatron-LM / Megatron-Core ``pretrain_gpt.py`` arguments of a training plan.

Every flag is an ``add_argument`` of megatron/training/arguments.py at tag core_v0.15.0 (:data:`FLAGS`
gives the line); Megatron derives the data-parallel size from the world size."""

from __future__ import annotations

from typing import Any

from llmcost.launch.common import Lines, Target, header_lines, nodes

SOURCE = "https://github.com/NVIDIA/Megatron-LM/blob/core_v0.15.0/megatron/training/arguments.py"

FLAGS: dict[str, str] = {
    f"--{name}": f"{SOURCE}#L{line}"
    for name, line in (
        ("tensor-model-parallel-size", 2561),
        ("pipeline-model-parallel-size", 2563),
        ("num-virtual-stages-per-pipeline-rank", 2586),
        ("context-parallel-size", 2704),
        ("expert-model-parallel-size", 3033),
        ("sequence-parallel", 2224),
        ("tp-comm-overlap", 2090),
        ("recompute-granularity", 2010),
        ("recompute-method", 2031),
        ("recompute-num-layers", 2040),
        ("recompute-modules", 2045),
        ("mtp-num-layers", 1666),
        ("pipeline-model-parallel-layout", 2573),
        ("expert-tensor-parallel-size", 3035),
        ("micro-batch-size", 1974),
        ("global-batch-size", 1981),
        ("seq-length", 2850),
        ("bf16", 2520),
        ("fp16", 2518),
        ("fp8-format", 1313),
        ("fp8-recipe", 1318),
        ("fp4-format", 1353),
        ("fp4-recipe", 1357),
        ("use-distributed-optimizer", 2658),
        ("use-megatron-fsdp", 2674),
        ("data-parallel-sharding-strategy", 2677),
        ("overlap-grad-reduce", 2605),
        ("overlap-param-gather", 2629),
        ("optimizer-cpu-offload", 2200),
        ("use-precision-aware-optimizer", 3282),
    )
}
"""Flag -> its ``add_argument`` line in Megatron-LM core_v0.15.0."""

FP8_RECIPE = {"delayed": "delayed", "current": "tensorwise", "dynamic": "tensorwise", "block": "mxfp8"}
"""llmcost's fp8 recipes as ``--fp8-recipe`` choices (tensorwise: per-tensor current scaling; block: MXFP8)."""


def render(p: dict[str, Any], t: Target) -> str:
    """The plan as a bash array of Megatron arguments (as Megatron's own example scripts write them)."""
    w = Lines(FLAGS)
    w.workload(p, "Megatron-LM")
    w.note(
        f"{nodes(p['gpus'], t.gpus_per_node)}; Megatron derives data-parallel size {p['dp']} from the world size"
    )
    w.add("--tensor-model-parallel-size", p["tp"])
    w.add("--pipeline-model-parallel-size", p["pp"])
    _schedule(w, p)
    if p["cp"] > 1:
        w.add("--context-parallel-size", p["cp"])
    if p["ep"] > 1:
        w.add("--expert-model-parallel-size", p["ep"])
    if p["sp"] and p["tp"] > 1:
        w.add("--sequence-parallel")
    if p["tp_overlap"]:
        w.add("--tp-comm-overlap")
    _recompute(w, p["recompute"], p.get("recompute_modules"))
    if p.get("mtp_layers"):
        w.add("--mtp-num-layers", p["mtp_layers"])
    if p.get("expert_tp") is not None:
        w.add("--expert-tensor-parallel-size", p["expert_tp"])
    if p.get("pp_layout"):
        w.add("--pipeline-model-parallel-layout", repr(p["pp_layout"]))
    w.add("--micro-batch-size", p["micro_batch"])
    w.add("--global-batch-size", p["global_batch"])
    if p["seq_len"]:
        w.add("--seq-length", p["seq_len"])
    _precision(w, p)
    _zero(w, p)
    _offload(w, p)
    lines = header_lines(t, w.notes) + ["MEGATRON_ARGS=("]
    lines += [f"    {k}" if v is None else f"    {k} {v}" for k, v in w.items]
    return "\n".join([*lines, ")"])


def _schedule(w: Lines, p: dict[str, Any]) -> None:
    if p["pp"] <= 1:
        return
    if p["schedule"] == "interleaved":
        w.add("--num-virtual-stages-per-pipeline-rank", p["virtual_stages"])
    elif p["schedule"] in ("gpipe", "zero_bubble"):
        w.note(f"schedule {p['schedule']}: no Megatron-LM argument (it runs 1F1B); not set")


def _recompute(w: Lines, recompute: str, modules: Any = None) -> None:
    if recompute == "selective":  # default --recompute-modules: core_attn, llmcost's selective
        w.add("--recompute-granularity", "selective")
        if modules is not None:
            w.add("--recompute-modules", " ".join(modules))
    elif recompute == "full":
        w.add("--recompute-granularity", "full")
        w.add("--recompute-method", "uniform")
        w.add("--recompute-num-layers", 1)
    elif recompute == "op":
        w.note(
            "recompute op (per-op selective checkpointing, torchtitan): no Megatron-LM equivalent; not set"
        )


def _precision(w: Lines, p: dict[str, Any]) -> None:
    prec = p["precision"]
    w.add("--fp16" if prec == "fp16" else "--bf16")
    if prec == "fp8":
        w.add("--fp8-format", "hybrid")
        w.add("--fp8-recipe", FP8_RECIPE[p["fp8_recipe"]])
        if p["fp8_recipe"] == "dynamic":
            w.note(
                "fp8 recipe dynamic (torchao): Megatron's per-tensor current scaling (tensorwise) is the same scaling"
            )
    elif prec == "fp4":
        w.add("--fp4-format", "e2m1")
        w.add("--fp4-recipe", "nvfp4")


def _zero(w: Lines, p: dict[str, Any]) -> None:
    zero = p["zero"]
    if zero == 1 or p["distributed_optimizer"]:
        w.add("--use-distributed-optimizer")  # optimizer state sharded over DP: ZeRO-1
    elif zero in (2, 3):
        w.add("--use-megatron-fsdp")
        w.add("--data-parallel-sharding-strategy", "optim_grads" if zero == 2 else "optim_grads_params")
    if p["overlap_dp"] and p["dp"] > 1:
        w.add("--overlap-grad-reduce")
        if zero == 1 or p["distributed_optimizer"]:
            w.add("--overlap-param-gather")


def _offload(w: Lines, p: dict[str, Any]) -> None:
    off = p["offload"]
    if off == "cpu":
        w.add("--optimizer-cpu-offload")
        w.add("--use-precision-aware-optimizer")  # required with it (arguments.py validate_args)
    elif off != "none":
        w.note(f"offload {off}: no Megatron-LM argument (optimizer offload is to CPU only); not set")
    if p["offload_activations"]:
        w.note("offload_activations: no Megatron-LM core_v0.15.0 argument; not set")
    if p["offload_layers"]:
        w.note(
            f"offload_layers {p['offload_layers']}: Megatron-Core TransformerConfig cpu_offloading /"
            " cpu_offloading_num_layers, no core_v0.15.0 command-line argument; set it in the config"
        )
