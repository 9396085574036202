"""``llmcost train MODEL``: step time and its breakdown, throughput, MFU/HFU and memory per GPU."""

from pathlib import Path
from typing import Annotated, Any

import typer

from llmcost.cli.options import (
    DynamicCpOpt,
    EmitOpt,
    FormatOpt,
    GpusPerNodeOpt,
    HtmlOpt,
    HwOpt,
    ModelOrFileArg,
    NetworkOpt,
    PackingOpt,
    PlotOpt,
    PowerCapOpt,
    PueOpt,
    SeqLenDistOpt,
    WanOpt,
)


def train(
    model: ModelOrFileArg,
    hw: HwOpt = "h100-sxm",
    gpus: Annotated[int | None, typer.Option("--gpus", help="GPUs in the job (= tp*pp*dp*cp).")] = None,
    tp: Annotated[int | None, typer.Option("--tp", help="Tensor-parallel degree.")] = None,
    pp: Annotated[int | None, typer.Option("--pp", help="Pipeline-parallel degree.")] = None,
    dp: Annotated[
        int | None, typer.Option("--dp", help="Data-parallel degree (default: what gpus leave).")
    ] = None,
    cp: Annotated[int | None, typer.Option("--cp", help="Context-parallel degree.")] = None,
    ep: Annotated[int | None, typer.Option("--ep", help="Expert-parallel degree (within dp).")] = None,
    sp: Annotated[
        bool | None, typer.Option("--sp/--no-sp", help="Sequence parallelism (default: on when tp > 1).")
    ] = None,
    tp_overlap: Annotated[
        bool | None,
        typer.Option(
            "--tp-overlap/--no-tp-overlap",
            help="Overlap TP all-gather / reduce-scatter with the adjacent GEMMs (Megatron-Core"
            " --tp-comm-overlap, Transformer Engine; needs sequence parallelism). Default off.",
        ),
    ] = None,
    zero: Annotated[str | None, typer.Option("--zero", help="ZeRO stage 0-3 or fsdp.")] = None,
    dist_opt: Annotated[
        bool | None,
        typer.Option(
            "--distributed-optimizer/--no-distributed-optimizer", help="Megatron distributed optimizer."
        ),
    ] = None,
    micro_batch: Annotated[
        int | None, typer.Option("--micro-batch", help="Sequences per micro-batch.")
    ] = None,
    global_batch: Annotated[int | None, typer.Option("--global-batch", help="Sequences per step.")] = None,
    seq_len: Annotated[int | None, typer.Option("--seq-len", help="Sequence length.")] = None,
    seq_len_dist: SeqLenDistOpt = None,
    packing: PackingOpt = None,
    dynamic_cp: DynamicCpOpt = None,
    recompute: Annotated[
        str | None,
        typer.Option(
            "--recompute",
            help="none, selective (attention core), full or op (per-op selective checkpointing, torchtitan).",
        ),
    ] = None,
    mtp_layers: Annotated[
        int | None,
        typer.Option(
            "--mtp-layers",
            help="Multi-token-prediction modules trained with the model (Megatron-Core --mtp-num-layers;"
            " DeepSeek-V3 trains 1): each one more last-stage layer with its own head and loss. Default 0.",
        ),
    ] = None,
    expert_tp: Annotated[
        int | None,
        typer.Option(
            "--expert-tp",
            help="With --ep > 1: the routed experts' tensor-parallel degree, tp (Megatron-Core's default) or 1"
            " (whole experts, EP across the TP ranks: Parallel Folding; --expert-tensor-parallel-size).",
        ),
    ] = None,
    pp_layout: Annotated[
        str | None,
        typer.Option(
            "--pp-layout",
            help="Layers per pipeline chunk as Megatron-Core's --pipeline-model-parallel-layout states them"
            " (e.g. 'Et*4|(t*4|)*14tmL'). Default: an even split.",
        ),
    ] = None,
    offload_layers: Annotated[
        int | None,
        typer.Option(
            "--offload-layers",
            help="Megatron-Core CPU activation offloading (cpu_offloading_num_layers): this many layers'"
            " activations go to host memory and back; needs pp 1 and --recompute none. Default 0.",
        ),
    ] = None,
    recompute_modules: Annotated[
        str | None,
        typer.Option(
            "--recompute-modules",
            help="With --recompute selective: the Megatron-Core modules recomputed, comma-separated"
            " (core_attn, layernorm, moe_act, mla_up_proj, mlp, shared_experts, moe; default core_attn).",
        ),
    ] = None,
    schedule: Annotated[
        str | None, typer.Option("--schedule", help="1f1b, interleaved, gpipe, zero_bubble.")
    ] = None,
    virtual_stages: Annotated[
        int | None, typer.Option("--virtual-stages", help="Model chunks per device (interleaved).")
    ] = None,
    precision: Annotated[str | None, typer.Option("--precision", help="bf16, fp16, fp8 or fp4.")] = None,
    fp8_recipe: Annotated[
        str | None,
        typer.Option(
            "--fp8-recipe",
            help="How fp8 / fp4 GEMM inputs are quantized: delayed (Transformer Engine default), current,"
            " dynamic (torchao compiled) or block (MXFP8 / NVFP4).",
        ),
    ] = None,
    pp_overlap: Annotated[
        bool | None,
        typer.Option(
            "--pp-overlap/--no-pp-overlap",
            help="Hide pipeline send/recv under the adjacent chunk's compute (Megatron-Core"
            " overlap_p2p_comm). Default off.",
        ),
    ] = None,
    tp_bwd_overlap: Annotated[
        bool | None,
        typer.Option(
            "--tp-bwd-overlap/--no-tp-bwd-overlap",
            help="Run the backward's TP collectives of a column-parallel GEMM under its gradient GEMMs"
            " (Megatron-LM async TP all-reduce, Transformer Engine). Default off.",
        ),
    ] = None,
    grad_fp32: Annotated[
        bool | None,
        typer.Option(
            "--grad-fp32/--grad-bf16",
            help="Accumulate and reduce gradients in fp32 (Megatron main_grad; 4 bytes per gradient) or in"
            " the 16-bit dtype (DeepSpeed). Default: the stack's, else fp32 except in fp16.",
        ),
    ] = None,
    attention: Annotated[str | None, typer.Option("--attention", help="auto, flash or materialized.")] = None,
    offload: Annotated[
        str | None,
        typer.Option("--offload", help="none, cpu, nvme (needs ZeRO), cpu+params or nvme+params (ZeRO-3)."),
    ] = None,
    stack: Annotated[
        str | None,
        typer.Option(
            "--stack",
            help="Software stack NAME[:YEAR] (megatron-lm:2021, torchtitan:2025, nemo, ...): its profile"
            " fills what the plan does not state (attention kernel, overlaps, fused kernels). Default: today's"
            " mainstream, megatron-core:2026; none: no profile, the plan's own defaults.",
        ),
    ] = None,
    gpus_per_node: GpusPerNodeOpt = None,
    network: NetworkOpt = None,
    tokens: Annotated[
        str | None, typer.Option("--tokens", help="Training tokens of the run, e.g. 15T.")
    ] = None,
    goodput: Annotated[
        float | None,
        typer.Option(
            "--goodput",
            help="Share of wall time that trains (default 0.9, Llama 3 report); the run's time,"
            " GPU-hours and cost are over it.",
        ),
    ] = None,
    ep_imbalance: Annotated[
        float | None,
        typer.Option(
            "--ep-imbalance",
            help="MoE with expert parallelism: the busiest EP rank's routed tokens over the mean"
            " (>= 1; 1: balanced, as benchmarks that force the router run). Default 1.11, the"
            " figure the plan note names.",
        ),
    ] = None,
    ep_deepep: Annotated[
        bool | None,
        typer.Option(
            "--ep-deepep/--no-ep-deepep",
            help="MoE dispatch / combine send each token once to every node holding one of its experts,"
            " forwarded over NVLink there (DeepEP normal kernels; Megatron-Core flex dispatcher, deepep or"
            " hybridep). Default off: NCCL all-to-all of every (token, expert) copy.",
        ),
    ] = None,
    ep_overlap: Annotated[
        bool | None,
        typer.Option(
            "--ep-overlap/--no-ep-overlap",
            help="Hide each micro-batch's expert all-to-alls under another micro-batch's compute (Megatron-Core"
            " --overlap-moe-expert-parallel-comm; needs ep > 1, no full recompute, interleaved when pp > 1)."
            " Default off.",
        ),
    ] = None,
    power_cap: PowerCapOpt = None,
    pue: PueOpt = None,
    sync_interval: Annotated[
        int | None,
        typer.Option(
            "--sync-interval",
            help="DiLoCo / local SGD: inner steps per outer all-reduce of the data-parallel workers'"
            " parameter deltas (default 1: ordinary data parallelism; needs zero 0, ep 1, cp 1).",
        ),
    ] = None,
    sync_bytes: Annotated[
        float | None,
        typer.Option(
            "--sync-bytes",
            help="Bytes per parameter of DiLoCo's outer all-reduce: 4 (fp32, default), 2 (fp16), 0.5 (4-bit).",
        ),
    ] = None,
    tp_fused_rs: Annotated[
        bool | None,
        typer.Option(
            "--tp-fused-rs/--no-tp-fused-rs",
            help="Fuse each TP reduce-scatter into the GEMM that produces it (T3, Pati et al. 2024: DMA"
            " and near-memory reduction, no SMs); the all-gather stays exposed. Default off.",
        ),
    ] = None,
    hbm_contention: Annotated[
        bool | None,
        typer.Option(
            "--hbm-contention/--no-hbm-contention",
            help="Count an overlapped collective's HBM traffic against the compute it overlaps (TP, DP,"
            " ZeRO-3 overlaps). Default off: only the SMs it holds.",
        ),
    ] = None,
    zero3_copy_out: Annotated[
        bool | None,
        typer.Option(
            "--zero3-copy-out/--no-zero3-copy-out",
            help="ZeRO-3 / FSDP: copy each parameter gather into the unsharded parameters on the compute"
            " stream (FSDP2; the torchtitan stack sets it). Default off: gathered in place.",
        ),
    ] = None,
    zero3_serial: Annotated[
        bool | None,
        typer.Option(
            "--zero3-serial/--no-zero3-serial",
            help="ZeRO-3: every gather and reduce-scatter on the critical path, none under compute"
            " (DeepSpeed before v0.6.0; the deepspeed:2021 stack sets it). Default off: prefetched.",
        ),
    ] = None,
    autocast_weights: Annotated[
        bool | None,
        typer.Option(
            "--autocast-weights/--no-autocast-weights",
            help="16-bit mixed precision as torch.autocast over fp32 parameters: every matmul weight cast at"
            " each forward, its gradient cast back (the transformers stack sets it). Default off: 16-bit weights.",
        ),
    ] = None,
    distribute_saved_activations: Annotated[
        bool | None,
        typer.Option(
            "--distribute-saved-activations/--no-distribute-saved-activations",
            help="Full recompute: split each stored layer input over the TP ranks (Megatron"
            " --distribute-saved-activations, DeepSpeed partition_activations). Default off.",
        ),
    ] = None,
    tp_layout_copy: Annotated[
        bool | None,
        typer.Option(
            "--tp-layout-copy/--no-tp-layout-copy",
            help="Sequence-parallel TP collectives on batch-first activations (PyTorch DTensor Shard(1)):"
            " each copies the full activation once (the torchtitan stack sets it). Default off.",
        ),
    ] = None,
    pp_p2p_full: Annotated[
        bool | None,
        typer.Option(
            "--pp-p2p-full/--no-pp-p2p-full",
            help="Pipeline send/recv as DeepSpeed's PipelineEngine runs them: the whole activation from every"
            " TP rank, each send and receive a blocking call of its own (the DeepSpeed stacks set it)."
            " Default off: Megatron's scattered, paired send/recv.",
        ),
    ] = None,
    fp8_hp_inputs: Annotated[
        bool | None,
        typer.Option(
            "--fp8-hp-inputs/--no-fp8-hp-inputs",
            help="fp8 / fp4 training keeps each linear layer's input for the backward in 16 bits, as torchao's"
            " float8 does (the torchtitan stack sets it). Default off: Transformer Engine keeps the fp8 cast.",
        ),
    ] = None,
    optimizer_passes: Annotated[
        bool | None,
        typer.Option(
            "--optimizer-passes/--no-optimizer-passes",
            help="The mixed-precision optimizer runs its own passes around the Adam step (Megatron: gradient copy"
            " to fp32, fp16 unscale, gradient norm, master re-read; the megatron-lm and megatron-core stacks set it). Default off:"
            " a fused master-weight step.",
        ),
    ] = None,
    sync_fragments: Annotated[
        int | None,
        typer.Option(
            "--sync-fragments",
            help="Streaming DiLoCo: the outer sync in this many fragments (groups of layers), one every"
            " sync-interval/fragments steps (default 1).",
        ),
    ] = None,
    sync_overlap: Annotated[
        int | None,
        typer.Option(
            "--sync-overlap",
            help="Streaming DiLoCo: inner steps each fragment's all-reduce overlaps (default 0: blocking).",
        ),
    ] = None,
    wan: WanOpt = None,
    plan_file: Annotated[
        Path | None, typer.Option("--plan", help="YAML/JSON plan (validation README train keys).")
    ] = None,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help="Also the step-time expression, its values and where it is built (JSON / YAML: under 'explain').",
        ),
    ] = False,
    breakdown: Annotated[
        bool,
        typer.Option(
            "--breakdown",
            help="Per operator of one layer (per layer shape; and the embedding, head, loss), forward and"
            " backward, one micro-batch on one GPU: time, FLOPs, HBM bytes, attained TFLOP/s, bound.",
        ),
    ] = False,
    sublayers: Annotated[
        bool,
        typer.Option(
            "--sublayers",
            help="Per TP sublayer (a GEMM and the collective reducing its output, T3's unit), one micro-batch"
            " on one GPU: alone, one after the other, as the plan runs them, speed-up and geomean.",
        ),
    ] = False,
    emit_to: EmitOpt = None,
    fmt: FormatOpt = "table",
    plot: PlotOpt = None,
    html: HtmlOpt = None,
) -> None:
    """Step time with breakdown, tokens/s, TFLOP/s per GPU, MFU, HFU and memory per GPU; with --tokens
    the run's time, GPU-hours, cost and energy. Plans that do not divide or fit are rejected."""
    from llmcost import api
    from llmcost.cli import html_page as H
    from llmcost.cli import plotting as P
    from llmcost.cli.common import check_emit, check_explain
    from llmcost.report import check_format

    check_format(fmt)
    check_explain(explain and not (breakdown or sublayers), fmt)
    target = P.start(plot)
    excluded = {
        k: on and fmt == "table" for k, on in {"--explain": explain, "--html": html is not None}.items()
    }
    check_emit(emit_to, fmt, "train", **excluded, **{"--breakdown": breakdown, "--sublayers": sublayers})
    page = H.start(html)
    given = _given(locals())
    rep = api.train(model, hw, plan_file, tokens=tokens, stack=stack, wan=wan, **given)
    title = f"train {rep.spec.name} on {rep.result.gpus} x {rep.hardware.id}"
    for t in H.targets(target, page):
        P.train(t, rep, title)
    if breakdown or sublayers:
        _breakdown(rep, fmt, title, sublayers)
    else:
        _result(rep, fmt, title, emit_to, explain)
    H.finish(page, lambda: H.train_formulas(rep))


RENAMED = {"dist_opt": "distributed_optimizer", "grad_fp32": "grad_reduce_in_fp32"}
"""``train`` parameters named otherwise than their plan key."""


def _given(args: dict[str, Any]) -> dict[str, Any]:
    """The plan keys of ``train``'s options (None where not given): ``zero`` as a stage or ``fsdp``,
    the distribution file as its path."""
    from llmcost.training.plan import PLAN_KEYS
    from llmcost.training.recompute import parse_modules

    out = {k: args[k] for k in PLAN_KEYS if k in args and k != "tokens"}  # tokens: the run, not the plan
    out |= {key: args[k] for k, key in RENAMED.items()}
    out["zero"] = _zero(out["zero"])
    if out["seq_len_dist"] is not None:
        out["seq_len_dist"] = str(out["seq_len_dist"])
    out["recompute_modules"] = parse_modules(out["recompute_modules"])
    return out


def _result(rep: Any, fmt: str, title: str, emit_to: str | None, explain: bool) -> None:
    """The result table (or document), the launch config with ``--emit``, the explanation."""
    from llmcost import api
    from llmcost.cli import train_view as V

    out = rep.as_dict()
    if emit_to is not None:
        if fmt == "table":  # the launch config alone, to pipe into a file
            print(api.emit(rep, emit_to))
            return
        out["emit"] = api.emit(rep, emit_to)
    if explain and fmt != "table":  # one document: the explanation under ``explain``
        out["explain"] = V.explain_doc(rep.result)
    _emit(out, fmt, title, rep.result.notes)
    if explain and fmt == "table":
        V.explain(rep.result)


def _breakdown(rep: Any, fmt: str, title: str, sublayers: bool = False) -> None:
    """``--breakdown``: the operator rows (:meth:`llmcost.api.TrainReport.operators`); ``--sublayers``:
    the TP sublayer rows (:meth:`llmcost.api.TrainReport.sublayers`) and their geometric mean."""
    from llmcost.cli.train_view import kernel_note, ops_rows, sublayer_note, sublayer_table
    from llmcost.report import emit

    if sublayers:
        rows = rep.sublayers()
        title += ": per TP sublayer of one layer, one micro-batch on one GPU (x: layers of that shape)"
        emit(
            sublayer_table(rows, fmt == "table"),
            fmt,
            title=title,
            notes=[sublayer_note(rows), *rep.result.notes],
        )
        return
    title += ": per operator of one layer, one micro-batch on one GPU (x: layers of that shape)"
    notes = [n for n in (kernel_note(rep.kernel_times()),) if n] + list(rep.result.notes)
    emit(ops_rows(rep.operators(), fmt == "table"), fmt, title=title, notes=notes)


def _zero(zero: str | None) -> Any:
    """``--zero``: a stage number or ``fsdp``."""
    if zero is None:
        return None
    return "fsdp" if zero.strip().lower() == "fsdp" else _int_opt(zero, "--zero")


def _emit(out: dict[str, Any], fmt: str, title: str, notes: list[str]) -> None:
    """The result document (:meth:`llmcost.api.TrainReport.as_dict`), or its rows as a table with
    the plan on a note line."""
    from llmcost.cli.train_view import table_rows
    from llmcost.report import emit
    from llmcost.validation.bands import evidence_note, scale_note

    beyond = evidence_note(out.get("evidence"), out["mfu"])
    small = scale_note(out.get("band_runs_max_gpus"), int(out["plan"]["gpus"]))
    notes = [*notes, *(n for n in (beyond, small) if n)]

    if fmt != "table":
        emit(out, fmt)
        return
    plan_line = "plan: " + ", ".join(f"{k}={_plan_value(v)}" for k, v in out["plan"].items())
    emit(table_rows(out), fmt, title=title, notes=[plan_line, *notes])


def _plan_value(v: Any) -> Any:
    """A plan value as ``--plan`` / ``--stack`` would take it (a stack mapping as NAME:YEAR)."""
    if isinstance(v, dict) and "framework" in v:
        return ":".join(str(v[k]) for k in ("framework", "year") if v.get(k) is not None)
    return v


def _int_opt(v: str, name: str) -> int:
    from llmcost.errors import UserError

    try:
        return int(v)
    except ValueError:
        raise UserError(f"{name}: expected an integer or fsdp, got '{v}'") from None


def register(app: typer.Typer) -> None:
    """Add ``train`` to the CLI."""
    app.command("train")(train)
