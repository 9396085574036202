"""``llmcost search train | infer``: exhaustive, vectorized plan search (see :mod:`llmcost.search`)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Annotated, Any

import typer

from llmcost.cli.options import FormatOpt, GpusPerNodeOpt, ParetoOpt, QuietOpt, TopOpt, check_top

Opt = typer.Option


def _common_list(text: str | None, what: str, cast: Any = int, choices: Any = None) -> Any:
    from llmcost.search.common import parse_list

    return parse_list(text, what, cast, choices)


def _on_off(x: str) -> bool:
    """on / off (true / false) as a bool; ValueError otherwise (parse_list reports it)."""
    v = {"on": True, "off": False, "true": True, "false": False}.get(x.strip().lower())
    if v is None:
        raise ValueError(x)
    return v


def _axes(text: str | None, default: tuple[str, str]) -> tuple[str, str]:
    from llmcost.errors import UserError

    if text is None:
        return default
    parts = [x.strip() for x in text.split(",") if x.strip()]
    if len(parts) != 2:
        raise UserError(f"--axes: expected two metrics separated by a comma, got '{text}'")
    return parts[0], parts[1]


def _time(v: str | None, what: str) -> float | None:
    if v is None:
        return None
    from llmcost.errors import UserError
    from llmcost.units import parse

    try:
        t = float(parse(v if any(c.isalpha() for c in v) else v + " s", "time", what=what))
    except UserError:
        raise
    except Exception:
        raise UserError(f"{what}: expected a time such as 1s or 50ms, got '{v}'") from None
    if t <= 0:
        raise UserError(f"{what}: expected a time > 0 such as 1s or 50ms, got '{v}'")
    return t


def _progress_on(fmt: str, quiet: bool) -> bool:
    return fmt == "table" and not quiet


def search_train(
    model: Annotated[str, typer.Argument(help="Model id (llmcost model list) or a config file.")],
    hw: Annotated[str, Opt("--hw", help="Hardware id.")] = "h100-sxm",
    gpus: Annotated[str, Opt("--gpus", help="GPU count(s), e.g. 1024 or 512,1024.")] = "8",
    global_batch: Annotated[
        int | None, Opt("--global-batch", help="Sequences per step (default 8 per GPU).")
    ] = None,
    seq_len: Annotated[int | None, Opt("--seq-len", help="Sequence length.")] = None,
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
    recompute: Annotated[str | None, Opt("--recompute", help="none, selective, full.")] = None,
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
    gpus_per_node: GpusPerNodeOpt = None,
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
    quiet: QuietOpt = False,
    fmt: FormatOpt = "table",
) -> None:
    """Exhaustive search of training plans (dp x tp x pp x cp x ep, micro-batch, ZeRO, recompute,
    schedule, precision): the top plans by the objective, or the Pareto front."""
    from llmcost import checks
    from llmcost.catalog import get_hardware
    from llmcost.cli.common import load_spec
    from llmcost.cli.search_views import emit_search, train_row, what
    from llmcost.economics.budget import parse_count
    from llmcost.report import check_format
    from llmcost.search import run

    check_format(fmt)
    check_top(top)
    min_throughput = checks.optional_positive(min_throughput, "--min-throughput")
    max_memory = checks.optional_positive(max_memory, "--max-memory")
    run_tokens = parse_count(tokens, "--tokens") if tokens is not None else None
    spec = load_spec(model)
    hardware = get_hardware(hw)
    checks.gpus_per_node(hardware, gpus_per_node)
    lists = {"tp": tp, "pp": pp, "cp": cp, "ep": ep, "micro_batch": micro_batch}
    lists |= {"virtual_stages": virtual_stages, "zero": zero, "recompute": recompute, "schedule": schedule}
    lists |= {"precision": precision, "sp": sp, "tp_overlap": tp_overlap}
    space = _train_space(spec, hardware, gpus, global_batch, seq_len, gpus_per_node, lists)
    res = run.train_search(
        spec,
        hardware,
        space,
        tokens=run_tokens,
        objective=objective,
        top=top,
        pareto=_axes(axes, ("tokens_per_s", "memory_gib_per_gpu")) if pareto else None,
        min_throughput=min_throughput,
        max_memory_gib=max_memory,
        show_progress=_progress_on(fmt, quiet),
    )
    rows = [train_row(i, p) for i, p in enumerate(res.plans, 1)]
    title = (
        f"search train {spec.name} on {'/'.join(map(str, space.gpus))} x {hardware.id}, "
        f"global batch {space.global_batch} x {space.seq_len}: {what(res, len(rows))}"
    )
    emit_search(res, fmt, rows, title)


# integer axes of search train, in the order their options are read
INT_AXES = ("tp", "pp", "cp", "ep", "micro_batch", "virtual_stages")


def _train_space(
    spec: Any,
    hardware: Any,
    gpus: str,
    global_batch: int | None,
    seq_len: int | None,
    gpus_per_node: int | None,
    lists: dict[str, str | None],
) -> Any:
    """The TrainSpace of the options (comma-separated lists parsed, in option order)."""
    from llmcost.errors import UserError
    from llmcost.search.train import ZMODE_NAMES, TrainSpace, default_seq
    from llmcost.training.plan import PRECISIONS, RECOMPUTE, SCHEDULES

    gl = _common_list(gpus, "--gpus")
    seq = seq_len if seq_len is not None else default_seq(spec)
    gb = global_batch if global_batch is not None else 8 * max(gl)
    if seq < 1 or gb < 1:
        raise UserError("--seq-len and --global-batch must be positive")
    zero_l = _common_list(
        lists["zero"], "--zero", lambda x: {"fsdp": "3"}.get(x.lower(), x.lower()), ZMODE_NAMES
    )
    sp_l = _common_list(lists["sp"], "--sp", _on_off)
    tpo_l = _common_list(lists["tp_overlap"], "--tp-overlap", _on_off)
    precs = _common_list(lists["precision"], "--precision", str.lower, PRECISIONS)
    _check_peaks(spec, hardware, precs)
    ints = {k: _common_list(lists[k], "--" + k.replace("_", "-")) for k in INT_AXES}
    return TrainSpace(
        gpus=gl,
        global_batch=gb,
        seq_len=seq,
        **ints,
        zero=zero_l or ZMODE_NAMES,
        recompute=_common_list(lists["recompute"], "--recompute", str.lower, RECOMPUTE) or RECOMPUTE,
        schedule=_common_list(lists["schedule"], "--schedule", str.lower, SCHEDULES) or SCHEDULES,
        precision=precs,
        sp=sp_l,
        tp_overlap=tpo_l or (False,),
        gpus_per_node=gpus_per_node,
    )


def _check_peaks(spec: Any, hardware: Any, precs: Any) -> None:
    """Each --precision asked for has a compute peak on the hardware (the plan rule's message)."""
    from llmcost.errors import UserError
    from llmcost.training import plan as TR
    from llmcost.training.plan import PRECISIONS

    no_peak = next(r for r in TR.RULES if r.reason == "precision without compute on the hardware")
    for p in precs or ():
        if no_peak.broken(spec, SimpleNamespace(hw=hardware, prec=PRECISIONS.index(p))):
            raise UserError(no_peak.message(spec, SimpleNamespace(hw=hardware, prec=PRECISIONS.index(p))))


def search_infer(
    model: Annotated[str, typer.Argument(help="Model id (llmcost model list).")],
    hw: Annotated[
        str, Opt("--hw", help="Hardware id(s) to compare, e.g. h100-sxm,mi300x,l40s.")
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
    quiet: QuietOpt = False,
    fmt: FormatOpt = "table",
) -> None:
    """Search inference plans (tp / pp / ep / dp, batch, weight / activation / KV formats) on one or
    more accelerators under SLOs: the top plans by the objective, or the Pareto front."""
    from llmcost import checks
    from llmcost.catalog import get_hardware
    from llmcost.cli.search_views import emit_search, infer_row, what
    from llmcost.errors import UserError
    from llmcost.report import check_format
    from llmcost.search import run

    check_format(fmt)
    check_top(top)
    if prompt_len < 1 or output_len < 1:
        raise UserError("--prompt-len and --output-len must be at least 1")
    min_throughput = checks.optional_positive(min_throughput, "--min-throughput")
    hws = [get_hardware(h) for h in _common_list(hw, "--hw", str)]
    for h in hws:
        checks.gpus_per_node(h, gpus_per_node)
    lists = {"gpus": gpus, "tp": tp, "pp": pp, "ep": ep, "dp": dp, "batch": batch}
    lists |= {"weights": weights, "activations": activations, "kv_cache": kv_cache}
    space = _infer_space(prompt_len, output_len, gpus_per_node, lists)
    res = run.infer_search(
        model,
        hws,
        space,
        objective=objective,
        top=top,
        pareto=_axes(axes, ("output_tokens_per_s_per_gpu", "output_tokens_per_s_per_user"))
        if pareto
        else None,
        max_ttft=_time(max_ttft, "--max-ttft"),
        max_tpot=_time(max_tpot, "--max-tpot"),
        max_latency=_time(max_latency, "--max-latency"),
        min_throughput=min_throughput,
        show_progress=_progress_on(fmt, quiet),
    )
    rows = [infer_row(i, p) for i, p in enumerate(res.plans, 1)]
    title = (
        f"search infer {model} on {', '.join(h.id for h in hws)}, {prompt_len} in / {output_len} out: "
        f"{what(res, len(rows))}"
    )
    emit_search(res, fmt, rows, title)


def _infer_space(
    prompt_len: int, output_len: int, gpus_per_node: int | None, lists: dict[str, str | None]
) -> Any:
    """The InferSpace of the options (comma-separated lists parsed, in option order)."""
    from llmcost import precision as Q
    from llmcost.search.infer import DEFAULT_BATCHES, DEFAULT_WEIGHTS, InferSpace

    def fmts(key: str) -> Any:
        what = "--" + key.replace("_", "-")
        return _common_list(lists[key], what, lambda x: Q.normalize(x, what))

    ints = {k: _common_list(lists[k], f"--{k}") for k in ("gpus", "tp", "pp", "ep", "dp")}
    return InferSpace(
        prompt_len=prompt_len,
        output_len=output_len,
        **ints,
        batch=_common_list(lists["batch"], "--batch") or DEFAULT_BATCHES,
        weights=fmts("weights") or DEFAULT_WEIGHTS,
        activations=fmts("activations") or (None, "fp8"),
        kv_cache=fmts("kv_cache") or (None, "fp8"),
        gpus_per_node=gpus_per_node,
    )


def register(group: typer.Typer) -> None:
    """Add ``train`` and ``infer`` to the ``search`` group (:data:`llmcost.cli.search_cmd.search_app`)."""
    group.command("train")(search_train)
    group.command("infer")(search_infer)
