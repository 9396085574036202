"""``llmcost search train | infer``: exhaustive, vectorized plan search (see :mod:`llmcost.search`)."""

from typing import Annotated, Any

import typer

from llmcost.cli.options import (
    DynamicCpOpt,
    EmitOpt,
    FormatOpt,
    GpusPerNodeOpt,
    HtmlOpt,
    HwOpt,
    ModelArg,
    ModelOrFileArg,
    NetworkOpt,
    PackingOpt,
    ParetoOpt,
    PlotOpt,
    PowerCapOpt,
    QuietOpt,
    SeqLenDistOpt,
    TopOpt,
    WanOpt,
    complete_hardware_list,
)

Opt = typer.Option


def _progress_on(fmt: str, quiet: bool) -> bool:
    return fmt == "table" and not quiet


def search_train(
    model: ModelOrFileArg,
    hw: HwOpt = "h100-sxm",
    gpus: Annotated[str, Opt("--gpus", help="GPU count(s), e.g. 1024 or 512,1024.")] = "8",
    global_batch: Annotated[
        int | None, Opt("--global-batch", help="Sequences per step (default 8 per GPU).")
    ] = None,
    seq_len: Annotated[int | None, Opt("--seq-len", help="Sequence length.")] = None,
    seq_len_dist: SeqLenDistOpt = None,
    packing: PackingOpt = None,
    dynamic_cp: DynamicCpOpt = None,
    tokens: Annotated[
        str | None, Opt("--tokens", help="Training tokens (time to train, GPU-hours, cost).")
    ] = None,
    tp: Annotated[str | None, Opt("--tp", help="Tensor-parallel degrees to try, e.g. 4,8.")] = None,
    pp: Annotated[str | None, Opt("--pp", help="Pipeline degrees to try.")] = None,
    cp: Annotated[str | None, Opt("--cp", help="Context-parallel degrees to try.")] = None,
    ep: Annotated[str | None, Opt("--ep", help="Expert-parallel degrees to try.")] = None,
    micro_batch: Annotated[str | None, Opt("--micro-batch", help="Micro-batch sizes to try.")] = None,
    virtual_stages: Annotated[
        str | None, Opt("--virtual-stages", help="Interleaved chunks per device to try.")
    ] = None,
    zero: Annotated[str | None, Opt("--zero", help="ZeRO modes: 0, distopt, 1, 2, 3 (fsdp).")] = None,
    recompute: Annotated[
        str | None,
        Opt(
            "--recompute",
            help="none, selective, full (searched by default), op (per-op selective checkpointing, torchtitan).",
        ),
    ] = None,
    recompute_modules: Annotated[
        str | None,
        Opt(
            "--recompute-modules",
            help="What every selective plan recomputes: Megatron-Core modules, comma-separated (core_attn,"
            " layernorm, moe_act, mla_up_proj, mlp, shared_experts, moe; default core_attn).",
        ),
    ] = None,
    schedule: Annotated[str | None, Opt("--schedule", help="1f1b, interleaved, gpipe, zero_bubble.")] = None,
    precision: Annotated[
        str | None, Opt("--precision", help="bf16, fp16, fp8, fp4 (default: those with a peak).")
    ] = None,
    sp: Annotated[
        str | None, Opt("--sp", help="Sequence parallelism: on, off or on,off (default: on when tp>1).")
    ] = None,
    tp_overlap: Annotated[
        str | None,
        Opt(
            "--tp-overlap",
            help="TP comm overlap (Megatron-Core --tp-comm-overlap): on, off or on,off (default off).",
        ),
    ] = None,
    stack: Annotated[
        str | None,
        typer.Option(
            "--stack",
            help="Software stack NAME[:YEAR]: its profile fills what the space does not search"
            " (attention kernel, DP overlap, fused kernels, ZeRO-3 buckets) and bounds what it searches to what"
            " the stack runs. Default: today's mainstream, megatron-core:2026, bounding nothing; none: no profile.",
        ),
    ] = None,
    gpus_per_node: GpusPerNodeOpt = None,
    offload: Annotated[
        str | None,
        Opt("--offload", help="Offload tier of every plan: none, cpu, nvme, cpu+params, nvme+params."),
    ] = None,
    sync_interval: Annotated[
        int | None,
        Opt(
            "--sync-interval",
            help="DiLoCo: inner steps per outer all-reduce of every plan (default 1: ordinary data"
            " parallelism); zero, cp and ep default to 0, 1, 1.",
        ),
    ] = None,
    sync_bytes: Annotated[
        float | None,
        Opt("--sync-bytes", help="Bytes per parameter of DiLoCo's outer all-reduce (default 4: fp32)."),
    ] = None,
    sync_fragments: Annotated[
        int | None, Opt("--sync-fragments", help="Streaming DiLoCo: fragments of the outer sync (default 1).")
    ] = None,
    sync_overlap: Annotated[
        int | None,
        Opt(
            "--sync-overlap",
            help="Streaming DiLoCo: inner steps a fragment's all-reduce overlaps (default 0).",
        ),
    ] = None,
    wan: WanOpt = None,
    objective: Annotated[
        str,
        Opt(
            "--objective",
            help="throughput, step_time, mfu, tokens_per_gpu, time_to_train, cost, memory, or a metric name.",
        ),
    ] = "throughput",
    min_throughput: Annotated[
        float | None, Opt("--min-throughput", help="Minimum tokens/s (whole job).")
    ] = None,
    max_memory: Annotated[
        float | None, Opt("--max-memory", help="Maximum GiB per GPU (below capacity).")
    ] = None,
    top: TopOpt = 10,
    pareto: ParetoOpt = False,
    axes: Annotated[
        str | None, Opt("--axes", help="Pareto metrics (default tokens_per_s,memory_gib_per_gpu).")
    ] = None,
    jobs: Annotated[
        int, Opt("--jobs", help="Processes evaluating the space's chunks (same result; POSIX).")
    ] = 1,
    network: NetworkOpt = None,
    power_cap: PowerCapOpt = None,
    ep_imbalance: Annotated[
        float | None,
        Opt(
            "--ep-imbalance",
            help="MoE: every expert-parallel plan's busiest-rank routed tokens over the mean (>= 1;"
            " 1 balanced). Default 1.11, the figure the note names.",
        ),
    ] = None,
    ep_deepep: Annotated[
        bool | None,
        Opt(
            "--ep-deepep/--no-ep-deepep",
            help="MoE: every plan dispatches each token once per node, forwarded over NVLink (DeepEP;"
            " Megatron-Core flex dispatcher). Default: the stack's, else NCCL all-to-all.",
        ),
    ] = None,
    expert_tp: Annotated[
        str | None,
        Opt(
            "--expert-tp",
            help="MoE: 1 keeps every expert-parallel plan's experts whole, EP across the TP ranks (Parallel"
            " Folding; Megatron-Core --expert-tensor-parallel-size 1); tp (default) shards them over TP.",
        ),
    ] = None,
    mtp_layers: Annotated[
        int | None,
        Opt(
            "--mtp-layers", help="MTP modules every plan trains (Megatron-Core --mtp-num-layers; default 0)."
        ),
    ] = None,
    ep_overlap: Annotated[
        bool | None,
        Opt(
            "--ep-overlap/--no-ep-overlap",
            help="MoE: hide the expert all-to-all under another micro-batch's compute in every plan that can"
            " (ep > 1, no full recompute, interleaved when pp > 1; Megatron-Core). Default off.",
        ),
    ] = None,
    quiet: QuietOpt = False,
    emit_to: EmitOpt = None,
    fmt: FormatOpt = "table",
    plot: PlotOpt = None,
    html: HtmlOpt = None,
) -> None:
    """Exhaustive search of training plans (dp x tp x pp x cp x ep, micro-batch, ZeRO, recompute,
    schedule, precision): the top plans by the objective, or the Pareto front."""
    from llmcost import api
    from llmcost.cli import html_page as H
    from llmcost.cli import plotting as P
    from llmcost.cli.common import check_emit
    from llmcost.cli.search_views import emit_search, train_row, what
    from llmcost.report import check_format
    from llmcost.search.common import check_top
    from llmcost.search.space import TRAIN_KEYS

    check_format(fmt), check_top(top, fmt), check_emit(emit_to, fmt, "train")
    target, page = P.start(plot), H.start(html)
    space = {k: v for k, v in locals().items() if k in TRAIN_KEYS}  # the options that declare the space
    rep = api.search_train(
        model,
        hw,
        tokens=tokens,
        objective=objective,
        top=top,
        pareto=pareto,
        axes=axes,
        min_throughput=min_throughput,
        max_memory=max_memory,
        progress=_progress_on(fmt, quiet),
        jobs=jobs,
        network=network,
        wan=wan,
        **space,
    )
    rows = [train_row(i, p) for i, p in enumerate(rep.result.plans, 1)]
    title = f"{_train_title(rep)}: {what(rep.result, len(rows))}"
    emit_search(
        rep.result, fmt, rows, title, launch=launch_configs(rep, emit_to, fmt), network=rep.networks()
    )
    for t in H.targets(target, page):
        P.search_train(t, rep, max_memory, min_throughput)
    H.finish(page, lambda: H.area_formulas("training"))


def _train_title(rep: Any) -> str:
    """What a train search searched: model, GPUs, hardware, batch, and DiLoCo's sync when set."""
    space = rep.space
    diloco = f", DiLoCo sync every {space.sync_interval} steps" if space.sync_interval > 1 else ""
    return (
        f"search train {rep.model} on {'/'.join(map(str, space.gpus))} x {rep.hardware[0].id}, "
        f"global batch {space.global_batch} x {space.seq_len}{diloco}"
    )


def search_infer(
    model: ModelArg,
    hw: Annotated[
        str,
        Opt(
            "--hw",
            help="Hardware id(s) to compare, e.g. h100-sxm,mi300x,l40s.",
            autocompletion=complete_hardware_list,
        ),
    ] = "h100-sxm",
    gpus: Annotated[
        str | None, Opt("--gpus", help="GPU count(s) (default: one node of each hardware).")
    ] = None,
    prompt_len: Annotated[int, Opt("--prompt-len", help="Prompt tokens per sequence.")] = 1024,
    output_len: Annotated[int, Opt("--output-len", help="Generated tokens per sequence.")] = 256,
    tp: Annotated[str | None, Opt("--tp", help="Tensor-parallel degrees to try.")] = None,
    pp: Annotated[str | None, Opt("--pp", help="Pipeline degrees to try.")] = None,
    ep: Annotated[str | None, Opt("--ep", help="Expert-parallel degrees to try.")] = None,
    dp: Annotated[str | None, Opt("--dp", help="Replica counts to try.")] = None,
    cp: Annotated[
        str | None, Opt("--cp", help="Context-parallel degrees to try (prefill ring attention; default 1).")
    ] = None,
    batch: Annotated[str | None, Opt("--batch", help="System batch sizes (default 1,2,4..1024).")] = None,
    weights: Annotated[
        str | None, Opt("--weights", help="Weight formats (default bf16,fp8,int8,int4,fp4).")
    ] = None,
    activations: Annotated[
        str | None, Opt("--activations", help="Activation formats (default: per weights, and fp8).")
    ] = None,
    kv_cache: Annotated[
        str | None, Opt("--kv-cache", help="KV-cache formats (default: per activations, and fp8).")
    ] = None,
    gpus_per_node: GpusPerNodeOpt = None,
    speculative: Annotated[
        str | None,
        Opt(
            "--speculative",
            help="Speculative decoding for every plan, METHOD:TOKENS (mtp:3, eagle:4, ngram:4).",
        ),
    ] = None,
    schedule: Annotated[
        str | None,
        Opt("--schedule", help="static or continuous (in-flight batching at a concurrency of each batch)."),
    ] = None,
    stack: Annotated[
        str | None,
        Opt("--stack", help="Serving engine NAME[:YEAR] (vllm:2024, sglang): its host time per step."),
    ] = None,
    acceptance_rate: Annotated[
        float | None, Opt("--acceptance-rate", help="With --speculative: acceptance rate of a drafted token.")
    ] = None,
    acceptance_length: Annotated[
        float | None, Opt("--acceptance-length", help="With --speculative: mean tokens a step emits.")
    ] = None,
    disaggregated: Annotated[
        bool,
        Opt(
            "--disaggregated",
            help="Size a prefill / decode disaggregated deployment within --budget-gpus: each pool's plan and"
            " instance count, the KV cache written between them by RDMA.",
        ),
    ] = False,
    budget_gpus: Annotated[
        int | None, Opt("--budget-gpus", help="With --disaggregated: GPUs for both pools together.")
    ] = None,
    kv_nics: Annotated[
        int, Opt("--kv-nics", help="With --disaggregated: NICs each prefill GPU writes its KV over.")
    ] = 1,
    max_ttft: Annotated[str | None, Opt("--max-ttft", help="SLO on time to first token, e.g. 1s.")] = None,
    max_tpot: Annotated[
        str | None, Opt("--max-tpot", help="SLO on time per output token, e.g. 50ms.")
    ] = None,
    max_latency: Annotated[str | None, Opt("--max-latency", help="SLO on end-to-end latency.")] = None,
    min_throughput: Annotated[
        float | None, Opt("--min-throughput", help="Minimum output tokens/s (system).")
    ] = None,
    objective: Annotated[
        str,
        Opt(
            "--objective",
            help="throughput_per_gpu, throughput, cost, latency, ttft, tpot, "
            "tokens_per_user, or a metric name.",
        ),
    ] = "throughput_per_gpu",
    top: TopOpt = 10,
    pareto: ParetoOpt = False,
    axes: Annotated[
        str | None,
        Opt(
            "--axes",
            help="Pareto metrics (default output_tokens_per_s_per_gpu,output_tokens_per_s_per_user).",
        ),
    ] = None,
    power_cap: PowerCapOpt = None,
    quiet: QuietOpt = False,
    emit_to: EmitOpt = None,
    fmt: FormatOpt = "table",
    plot: PlotOpt = None,
    html: HtmlOpt = None,
) -> None:
    """Search inference plans (tp / pp / ep / dp, batch, weight / activation / KV formats) on one or
    more accelerators under SLOs: the top plans by the objective, or the Pareto front."""
    from llmcost import api
    from llmcost.cli import html_page as H
    from llmcost.cli import plotting as P
    from llmcost.cli.common import check_emit
    from llmcost.cli.infer_cmd import speculative_option
    from llmcost.cli.search_views import emit_search, infer_row, what
    from llmcost.report import check_format
    from llmcost.search.common import check_top

    check_format(fmt)
    check_top(top, fmt)
    space = dict(
        gpus=gpus, prompt_len=prompt_len, output_len=output_len, tp=tp, pp=pp, ep=ep, dp=dp, cp=cp, batch=batch,
        weights=weights, activations=activations, kv_cache=kv_cache, gpus_per_node=gpus_per_node, schedule=schedule,
        stack=stack, power_cap=power_cap,
    )  # fmt: skip
    flags = {"--objective": objective != "throughput_per_gpu", "--pareto": pareto, "--axes": axes is not None}
    flags |= {"--max-latency": max_latency is not None, "--min-throughput": min_throughput is not None}
    flags |= {"--plot": plot is not None, "--html": html is not None}
    _disagg_options(disaggregated, budget_gpus, kv_nics, flags)
    check_emit(emit_to, fmt, "infer", **{"--disaggregated": disaggregated})
    if disaggregated:
        spec = speculative_option(speculative, acceptance_rate, acceptance_length)  # the decode pool's
        keys = {**space, "speculative": spec}
        _search_disaggregated(model, hw, keys, budget_gpus, max_ttft, max_tpot, top, fmt, kv_nics)
        return
    target, page = P.start(plot), H.start(html)
    rep = api.search_infer(
        model,
        hw,
        **space,
        speculative=speculative_option(speculative, acceptance_rate, acceptance_length),
        objective=objective,
        top=top,
        pareto=pareto,
        axes=axes,
        max_ttft=max_ttft,
        max_tpot=max_tpot,
        max_latency=max_latency,
        min_throughput=min_throughput,
        progress=_progress_on(fmt, quiet),
    )
    res = rep.result
    with_cp = any(p["plan"].get("cp", 1) > 1 for p in res.plans)
    rows = [infer_row(i, p, with_cp) for i, p in enumerate(res.plans, 1)]
    title = (
        f"search infer {rep.model} on {', '.join(h.id for h in rep.hardware)}, {prompt_len} in / "
        f"{output_len} out: {what(res, len(rows))}"
    )
    emit_search(res, fmt, rows, title, launch=launch_configs(rep, emit_to, fmt))
    slos = {"ttft_s": ("--max-ttft", max_ttft), "tpot_s": ("--max-tpot", max_tpot)}
    slos["e2e_latency_s"] = ("--max-latency", max_latency)
    for t in H.targets(target, page):
        P.search_infer(t, rep, slos, min_throughput)
    H.finish(page, lambda: H.area_formulas("inference"))


def launch_configs(rep: object, framework: str | None, fmt: str) -> list[str] | None:
    """``--emit``: the launch config of the top plan (table: printed alone), or of every kept plan
    (JSON / YAML: each plan's ``emit``)."""
    if framework is None:
        return None
    from llmcost import api

    n = 1 if fmt == "table" else len(rep.result.plans)  # type: ignore[attr-defined]
    return [api.emit(rep, framework, rank=i) for i in range(1, n + 1)]


def register(group: typer.Typer) -> None:
    """Add ``train`` and ``infer`` to the ``search`` group (:data:`llmcost.cli.search_cmd.search_app`)."""
    group.command("train")(search_train)
    group.command("infer")(search_infer)


def _search_disaggregated(
    model: str,
    hw: str,
    keys: dict[str, object],
    budget: int | None,
    max_ttft: str | None,
    max_tpot: str | None,
    top: int,
    fmt: str,
    kv_nics: int = 1,
) -> None:
    """``search infer --disaggregated``: the best sized deployments, one row each."""
    from llmcost import api
    from llmcost.cli.search_views import emit_deployments
    from llmcost.errors import UserError

    if budget is None:
        raise UserError("--disaggregated needs --budget-gpus N (the GPUs of both pools together)")
    deps = api.search_disaggregated(
        model, hw, budget_gpus=budget, max_ttft=max_ttft, max_tpot=max_tpot, top=top, kv_nics=kv_nics, **keys
    )
    emit_deployments(deps, fmt, title=f"search infer {model} disaggregated within {budget} GPUs")


def _disagg_options(disaggregated: bool, budget: int | None, kv_nics: int, given: dict[str, object]) -> None:
    """One clear line for ``search infer`` options that need ``--disaggregated`` (``--budget-gpus``,
    ``--kv-nics``) or do not go with it."""
    from llmcost.errors import UserError

    if not disaggregated:
        if budget is not None or kv_nics != 1:
            raise UserError("--budget-gpus / --kv-nics size a disaggregated deployment: add --disaggregated")
        return
    bad = [k for k, v in given.items() if v]
    if bad:
        raise UserError(
            f"{', '.join(bad)} not available with --disaggregated (it ranks deployments by requests per "
            "second under --max-ttft / --max-tpot)"
        )
