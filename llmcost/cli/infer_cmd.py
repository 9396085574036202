"""``llmcost infer MODEL --hw ID ...``: TTFT, TPOT, throughput, memory, cost and energy of one plan."""

from pathlib import Path
from typing import Annotated

import typer

from llmcost.cli.options import (
    EmitOpt,
    FormatOpt,
    GpusPerNodeOpt,
    HtmlOpt,
    HwOpt,
    ModelArg,
    PlotOpt,
    PowerCapOpt,
    PueOpt,
)


def infer(
    model: ModelArg,
    hw: HwOpt = "h100-sxm",
    gpus: Annotated[int | None, typer.Option("--gpus", help="GPUs in all (must equal tp*pp*dp*cp).")] = None,
    tp: Annotated[int | None, typer.Option("--tp", help="Tensor-parallel degree.")] = None,
    pp: Annotated[int | None, typer.Option("--pp", help="Pipeline-parallel degree.")] = None,
    ep: Annotated[
        int | None, typer.Option("--ep", help="Expert-parallel degree (MoE; spans dp x tp ranks).")
    ] = None,
    dp: Annotated[int | None, typer.Option("--dp", help="Data-parallel replicas.")] = None,
    cp: Annotated[
        int | None, typer.Option("--cp", help="Context-parallel degree (prefill ring attention).")
    ] = None,
    batch: Annotated[
        int | None, typer.Option("--batch", help="Concurrent sequences, whole system (default 1).")
    ] = None,
    prompt_len: Annotated[
        int | None, typer.Option("--prompt-len", help="Prompt tokens per sequence.")
    ] = None,
    output_len: Annotated[
        int | None, typer.Option("--output-len", help="Generated tokens per sequence.")
    ] = None,
    weights: Annotated[str | None, typer.Option("--weights", help="bf16 fp16 fp8 int8 int4 fp4")] = None,
    activations: Annotated[
        str | None, typer.Option("--activations", help="bf16 fp16 fp8 int8 int4 fp4")
    ] = None,
    kv_cache: Annotated[str | None, typer.Option("--kv-cache", help="bf16 fp16 fp8 int8 int4 fp4")] = None,
    op_precision: Annotated[
        str | None,
        typer.Option(
            "--op-precision",
            help="Formats of operator groups that differ from the plan's, GROUP=FORMAT[,...] with groups"
            " attention, ffn, experts, lm_head (e.g. attention=bf16 with --weights fp8).",
        ),
    ] = None,
    speculative: Annotated[
        str | None,
        typer.Option(
            "--speculative",
            help="Speculative decoding, METHOD:TOKENS with METHOD mtp, eagle or ngram and TOKENS drafted per"
            " step (e.g. mtp:3).",
        ),
    ] = None,
    acceptance_rate: Annotated[
        float | None,
        typer.Option(
            "--acceptance-rate", help="With --speculative: acceptance rate of one drafted token (0-1)."
        ),
    ] = None,
    acceptance_length: Annotated[
        float | None,
        typer.Option(
            "--acceptance-length",
            help="With --speculative: mean tokens a step emits (1 to TOKENS+1), as engines report it.",
        ),
    ] = None,
    schedule: Annotated[
        str | None,
        typer.Option(
            "--schedule",
            help="static (prefill the batch, then decode it) or continuous (in-flight batching at a"
            " concurrency of --batch requests, steady state).",
        ),
    ] = None,
    stack: Annotated[
        str | None,
        typer.Option(
            "--stack",
            help="Serving engine NAME[:YEAR] (vllm:2024, sglang, tensorrt-llm:2025): its host time per"
            " step and CUDA-graph use (plan keys host_step_s, host_seq_s, overlap_scheduler, graphs).",
        ),
    ] = None,
    prefill_pool: Annotated[
        str | None,
        typer.Option(
            "--prefill-pool",
            help="Disaggregate: the plan above is the decode pool and this one, KEY=VALUE[,...] (hw, tp, pp,"
            " dp, ep, cp, batch, weights, activations, kv_cache, gpus_per_node, schedule, prefill_chunk;"
            " not given: parallel degrees 1, batch = dp, static, the decode pool's hardware and formats),"
            " the prefill pool; the prompt KV cache is written between them by RDMA.",
        ),
    ] = None,
    kv_nics: Annotated[
        int, typer.Option("--kv-nics", help="With --prefill-pool: NICs each prefill GPU writes its KV over.")
    ] = 1,
    gpus_per_node: GpusPerNodeOpt = None,
    pue: PueOpt = None,
    power_cap: PowerCapOpt = None,
    plan_file: Annotated[
        Path | None, typer.Option("--plan", help="YAML plan (validation README infer keys).")
    ] = None,
    breakdown: Annotated[bool, typer.Option("--breakdown", help="Per-operator time and bound.")] = False,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain", help="Show the expressions with values substituted and where each is built."
        ),
    ] = False,
    emit_to: EmitOpt = None,
    fmt: FormatOpt = "table",
    plot: PlotOpt = None,
    html: HtmlOpt = None,
) -> None:
    """TTFT, TPOT, end-to-end latency, throughput, memory per GPU, cost and energy of an inference plan."""
    from llmcost import api
    from llmcost.cli import html_page as H
    from llmcost.cli import infer_view as V
    from llmcost.cli import plotting as P
    from llmcost.cli.common import check_emit, check_explain, emit_result
    from llmcost.report import check_format, emit

    check_format(fmt)
    check_explain(explain and not breakdown, fmt)
    excluded = {"--prefill-pool": prefill_pool is not None, "--breakdown": breakdown, "--explain": explain}
    excluded["--html"] = html is not None and fmt == "table"  # the config alone is printed
    check_emit(emit_to, fmt, "infer", **excluded)
    given = {
        "tp": tp,
        "pp": pp,
        "ep": ep,
        "dp": dp,
        "cp": cp,
        "batch": batch,
        "prompt_len": prompt_len,
        "output_len": output_len,
        "weights": weights,
        "activations": activations,
        "kv_cache": kv_cache,
        "op_precision": _op_precision(op_precision),
        "speculative": speculative_option(speculative, acceptance_rate, acceptance_length),
        "schedule": schedule,
        "stack": stack,
        "gpus": gpus,
        "gpus_per_node": gpus_per_node,
        "pue": pue,
        "power_cap": power_cap,
    }
    _disagg_options(prefill_pool, kv_nics, breakdown or plot is not None, explain)
    target, page = P.start(plot), H.start(html)
    if prefill_pool is not None:
        dep = api.infer_disaggregated(
            model, hw, plan_file, prefill_pool=prefill_pool, kv_nics=kv_nics, **given
        )
        table, machine, title = V.deployment_views(model, dep, fmt)
        emit_result(fmt, table, machine, title=title, notes=V.deployment_notes(dep))
        return H.finish(page)
    rep = api.infer(model, hw, plan_file, **given)
    r, hardware, plan = rep.result, rep.hardware, rep.result.plan
    for t in H.targets(target, page):
        P.infer(t, model, rep)
    if breakdown:
        title = f"{model} on {r.gpus} x {hardware.id}: per operator (all layers)"
        emit(V.ops_rows(r, fmt == "table"), fmt, title=title)
        return H.finish(page, lambda: H.infer_formulas(model, rep))
    if emit_to is not None and fmt == "table":  # the launch config alone, to pipe into a file
        print(api.emit(rep, emit_to, model=model))
        return
    table, machine, title = V.views(model, rep, fmt)
    if emit_to is not None:
        machine = {**machine, "emit": api.emit(rep, emit_to, model=model)}
    explanation = V.explain(model, hardware, plan, r) if explain else None
    emit_result(fmt, table, machine, title=title, notes=r.notes, explanation=explanation)
    H.finish(page, lambda: H.infer_formulas(model, rep))


def register(app: typer.Typer) -> None:
    """Add ``infer`` to the CLI."""
    app.command("infer")(infer)


def _op_precision(text: str | None) -> dict[str, str] | None:
    """``--op-precision attention=bf16,ffn=fp8`` as the plan key's mapping."""
    if text is None:
        return None
    from llmcost.errors import UserError

    out: dict[str, str] = {}
    for part in text.split(","):
        group, sep, fmt = part.partition("=")
        if not sep or not group.strip() or not fmt.strip():
            raise UserError(f"--op-precision: expected GROUP=FORMAT[,GROUP=FORMAT], got {text!r}")
        if group.strip() in out:
            raise UserError(f"--op-precision: group {group.strip()!r} given twice")
        out[group.strip()] = fmt.strip()
    return out


def speculative_option(
    text: str | None, rate: float | None, length: float | None
) -> dict[str, object] | None:
    """``--speculative mtp:3 [--acceptance-rate A | --acceptance-length L]`` as the plan key's mapping."""
    from llmcost.errors import UserError

    if text is None:
        if rate is not None or length is not None:
            raise UserError("--acceptance-rate / --acceptance-length need --speculative METHOD:TOKENS")
        return None
    method, sep, tokens = text.partition(":")
    if not sep or not tokens.strip().isdigit():
        raise UserError(f"--speculative: expected METHOD:TOKENS such as mtp:3, got {text!r}")
    out: dict[str, object] = {"method": method.strip(), "tokens": int(tokens)}
    if rate is not None:
        out["acceptance_rate"] = rate
    if length is not None:
        out["acceptance_length"] = length
    return out


def _disagg_options(pool: str | None, kv_nics: int, breakdown: bool, explain: bool) -> None:
    """One clear line for options that do not go with (or without) ``--prefill-pool``."""
    from llmcost.errors import UserError

    if pool is None and kv_nics != 1:
        raise UserError("--kv-nics applies with --prefill-pool (the KV write between the pools)")
    if pool is not None and (breakdown or explain):
        raise UserError(
            "--breakdown / --plot / --explain cost one pool: run infer on each pool's plan (disaggregated: true)"
        )
