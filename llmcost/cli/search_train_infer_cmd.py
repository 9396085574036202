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


def _emit(res: Any, fmt: str, rows: list[dict[str, Any]], title: str) -> None:
    from llmcost.report import emit

    if fmt in ("json", "yaml"):
        emit(res.to_dict(), fmt)
        return
    if fmt == "csv":
        flat = []
        for p in res.plans:
            row = {
                **{f"plan.{k}": v for k, v in p["plan"].items()},
                **p["metrics"],
                "bottleneck": p["bottleneck"],
            }
            if "hardware" in p:
                row = {"hardware": p["hardware"], **row}
            flat.append(row)
        emit(flat, "csv")
        return
    rej = ", ".join(f"{k}: {v:,}" for k, v in list(res.rejected.items())[:4])
    notes = [
        f"{res.plans_evaluated:,} plans evaluated in {res.elapsed_s:.2f} s; {res.feasible:,} feasible; "
        f"rejected: {rej or 'none'}",
        *res.notes,
    ]
    emit(rows, "table", title=title, notes=notes)


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
    from llmcost.economics.budget import parse_count
    from llmcost.errors import UserError
    from llmcost.report import check_format
    from llmcost.search import run
    from llmcost.search.train import ZMODE_NAMES, TrainSpace, default_seq
    from llmcost.training import plan as TR
    from llmcost.training.plan import PRECISIONS, RECOMPUTE, SCHEDULES

    check_format(fmt)
    check_top(top)
    min_throughput = checks.optional_positive(min_throughput, "--min-throughput")
    max_memory = checks.optional_positive(max_memory, "--max-memory")
    run_tokens = parse_count(tokens, "--tokens") if tokens is not None else None
    spec = load_spec(model)
    hardware = get_hardware(hw)
    checks.gpus_per_node(hardware, gpus_per_node)
    gl = _common_list(gpus, "--gpus")
    seq = seq_len if seq_len is not None else default_seq(spec)
    gb = global_batch if global_batch is not None else 8 * max(gl)
    if seq < 1 or gb < 1:
        raise UserError("--seq-len and --global-batch must be positive")
    zero_l = _common_list(zero, "--zero", lambda x: {"fsdp": "3"}.get(x.lower(), x.lower()), ZMODE_NAMES)
    sp_l = _common_list(sp, "--sp", _on_off)
    tpo_l = _common_list(tp_overlap, "--tp-overlap", _on_off)
    precs = _common_list(precision, "--precision", str.lower, PRECISIONS)
    no_peak = next(r for r in TR.RULES if r.reason == "precision without compute on the hardware")
    for p in precs or ():
        if no_peak.broken(spec, SimpleNamespace(hw=hardware, prec=PRECISIONS.index(p))):
            raise UserError(no_peak.message(spec, SimpleNamespace(hw=hardware, prec=PRECISIONS.index(p))))
    space = TrainSpace(
        gpus=gl,
        global_batch=gb,
        seq_len=seq,
        tp=_common_list(tp, "--tp"),
        pp=_common_list(pp, "--pp"),
        cp=_common_list(cp, "--cp"),
        ep=_common_list(ep, "--ep"),
        micro_batch=_common_list(micro_batch, "--micro-batch"),
        virtual_stages=_common_list(virtual_stages, "--virtual-stages"),
        zero=zero_l or ZMODE_NAMES,
        recompute=_common_list(recompute, "--recompute", str.lower, RECOMPUTE) or RECOMPUTE,
        schedule=_common_list(schedule, "--schedule", str.lower, SCHEDULES) or SCHEDULES,
        precision=precs,
        sp=sp_l,
        tp_overlap=tpo_l or (False,),
        gpus_per_node=gpus_per_node,
    )
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
    rows = [_train_row(i, p) for i, p in enumerate(res.plans, 1)]
    what = (
        f"Pareto front ({' vs '.join(res.pareto)})" if res.pareto else f"top {len(rows)} by {res.objective}"
    )
    _emit(
        res,
        fmt,
        rows,
        f"search train {spec.name} on {'/'.join(map(str, gl))} x {hardware.id}, "
        f"global batch {gb} x {seq}: {what}",
    )


def _train_row(rank: int, p: dict[str, Any]) -> dict[str, Any]:
    from llmcost.units import fmt_time

    pl, m = p["plan"], p["metrics"]
    zero = "distopt" if pl["distributed_optimizer"] else str(pl["zero"])
    sched = pl["schedule"] + (f"/{pl['virtual_stages']}" if pl.get("virtual_stages") else "")
    row = {
        "#": rank,
        "gpus": pl["gpus"],
        "tp": pl["tp"],
        "pp": pl["pp"],
        "dp": pl["dp"],
        "cp": pl["cp"],
        "ep": pl["ep"],
        "sp": ("on+tpo" if pl.get("tp_overlap") else "on") if pl["sp"] else "off",
        "mb": pl["micro_batch"],
        "zero": zero,
        "recompute": pl["recompute"],
        "schedule": sched,
        "prec": pl["precision"],
        "step": fmt_time(m["iteration_time_s"]),
        "tok/s/GPU": round(m["tokens_per_s_per_gpu"], 1),
        "MFU": f"{100 * m['mfu']:.1f}%",
        "GiB/GPU": round(m["memory_gib_per_gpu"], 1),
    }
    if "time_to_train_s" in m:
        row["days"] = round(m["time_to_train_s"] / 86400, 1)
    if "cost_usd" in m:
        row["cost $M"] = round(m["cost_usd"] / 1e6, 2)
    row["bottleneck"] = p["bottleneck"]
    return row


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
    from llmcost import precision as Q
    from llmcost.catalog import get_hardware
    from llmcost.errors import UserError
    from llmcost.report import check_format
    from llmcost.search import run
    from llmcost.search.infer import DEFAULT_BATCHES, DEFAULT_WEIGHTS, InferSpace

    check_format(fmt)
    check_top(top)
    if prompt_len < 1 or output_len < 1:
        raise UserError("--prompt-len and --output-len must be at least 1")
    min_throughput = checks.optional_positive(min_throughput, "--min-throughput")
    hws = [get_hardware(h) for h in _common_list(hw, "--hw", str)]
    for h in hws:
        checks.gpus_per_node(h, gpus_per_node)

    def fmts(text: str | None, what: str) -> Any:
        return _common_list(text, what, lambda x: Q.normalize(x, what))

    space = InferSpace(
        prompt_len=prompt_len,
        output_len=output_len,
        gpus=_common_list(gpus, "--gpus"),
        tp=_common_list(tp, "--tp"),
        pp=_common_list(pp, "--pp"),
        ep=_common_list(ep, "--ep"),
        dp=_common_list(dp, "--dp"),
        batch=_common_list(batch, "--batch") or DEFAULT_BATCHES,
        weights=fmts(weights, "--weights") or DEFAULT_WEIGHTS,
        activations=fmts(activations, "--activations") or (None, "fp8"),
        kv_cache=fmts(kv_cache, "--kv-cache") or (None, "fp8"),
        gpus_per_node=gpus_per_node,
    )
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
    rows = [_infer_row(i, p) for i, p in enumerate(res.plans, 1)]
    what = (
        f"Pareto front ({' vs '.join(res.pareto)})" if res.pareto else f"top {len(rows)} by {res.objective}"
    )
    _emit(
        res,
        fmt,
        rows,
        f"search infer {model} on {', '.join(h.id for h in hws)}, {prompt_len} in / {output_len} out: {what}",
    )


def _infer_row(rank: int, p: dict[str, Any]) -> dict[str, Any]:
    from llmcost.units import fmt_time

    pl, m = p["plan"], p["metrics"]
    usd = m.get("usd_per_million_output_tokens")
    return {
        "#": rank,
        "hardware": p["hardware"],
        "gpus": pl["gpus"],
        "tp": pl["tp"],
        "pp": pl["pp"],
        "dp": pl["dp"],
        "ep": pl["ep"],
        "batch": pl["batch"],
        "W/A/KV": f"{pl['weights']}/{pl['activations']}/{pl['kv_cache']}",
        "TTFT": fmt_time(m["ttft_s"]),
        "TPOT": fmt_time(m["tpot_s"]),
        "tok/s/GPU": round(m["output_tokens_per_s_per_gpu"], 1),
        "tok/s/user": round(m["output_tokens_per_s_per_user"], 1),
        "$/M tok": "-" if usd is None else round(usd, 3),
        "GiB/GPU": round(m["memory_gib_per_gpu"], 1),
        "bottleneck": p["bottleneck"],
    }


def register(group: typer.Typer) -> None:
    """Add ``train`` and ``infer`` to the ``search`` group (:data:`llmcost.cli.search_cmd.search_app`)."""
    group.command("train")(search_train)
    group.command("infer")(search_infer)
