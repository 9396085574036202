"""``llmcost train MODEL``: step time and its breakdown, throughput, MFU/HFU and memory per GPU."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from llmcost.cli.options import FormatOpt, GpusPerNodeOpt
from llmcost.units import GIB


def train(
    model: Annotated[str, typer.Argument(help="Model id (llmcost model list) or a config file.")],
    hw: Annotated[str, typer.Option("--hw", help="Hardware id (llmcost hw list).")] = "h100-sxm",
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
    recompute: Annotated[str | None, typer.Option("--recompute", help="none, selective or full.")] = None,
    schedule: Annotated[
        str | None, typer.Option("--schedule", help="1f1b, interleaved, gpipe, zero_bubble.")
    ] = None,
    virtual_stages: Annotated[
        int | None, typer.Option("--virtual-stages", help="Model chunks per device (interleaved).")
    ] = None,
    precision: Annotated[str | None, typer.Option("--precision", help="bf16, fp16, fp8 or fp4.")] = None,
    attention: Annotated[str | None, typer.Option("--attention", help="auto, flash or materialized.")] = None,
    offload: Annotated[str | None, typer.Option("--offload", help="none, cpu or nvme (needs ZeRO).")] = None,
    gpus_per_node: GpusPerNodeOpt = None,
    tokens: Annotated[
        str | None, typer.Option("--tokens", help="Training tokens of the run, e.g. 15T.")
    ] = None,
    plan_file: Annotated[
        Path | None, typer.Option("--plan", help="YAML/JSON plan (validation README train keys).")
    ] = None,
    explain: Annotated[
        bool, typer.Option("--explain", help="Print the step-time expression and its values.")
    ] = False,
    fmt: FormatOpt = "table",
) -> None:
    """Step time with breakdown, tokens/s, TFLOP/s per GPU, MFU, HFU and memory per GPU; with --tokens
    the run's time, GPU-hours, cost and energy. Plans that do not divide or fit are rejected."""
    from llmcost import api
    from llmcost.report import check_format, emit

    check_format(fmt)
    zero_v: Any = None
    if zero is not None:
        zero_v = "fsdp" if zero.strip().lower() == "fsdp" else _int_opt(zero, "--zero")
    given = {
        "gpus": gpus,
        "tp": tp,
        "pp": pp,
        "dp": dp,
        "cp": cp,
        "ep": ep,
        "sp": sp,
        "tp_overlap": tp_overlap,
        "zero": zero_v,
        "distributed_optimizer": dist_opt,
        "micro_batch": micro_batch,
        "global_batch": global_batch,
        "seq_len": seq_len,
        "recompute": recompute,
        "schedule": schedule,
        "virtual_stages": virtual_stages,
        "precision": precision,
        "attention": attention,
        "offload": offload,
        "gpus_per_node": gpus_per_node,
    }
    rep = api.train(model, hw, plan_file, tokens=tokens, **given)
    r, hardware = rep.result, rep.hardware
    out = rep.as_dict()
    if explain:
        _explain(r, fmt)
        return
    if fmt != "table":
        emit(out, fmt)
        return
    plan_line = "plan: " + ", ".join(f"{k}={v}" for k, v in out["plan"].items())
    emit(
        table_rows(out),
        fmt,
        title=f"train {rep.spec.name} on {r.gpus} x {hardware.id}",
        notes=[plan_line, *r.notes],
    )


def _int_opt(v: str, name: str) -> int:
    from llmcost.errors import UserError

    try:
        return int(v)
    except ValueError:
        raise UserError(f"{name}: expected an integer or fsdp, got '{v}'") from None


def table_rows(out: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows (quantity, value) for the rich table."""
    from llmcost.units import fmt_time

    rows = [
        {"quantity": "step time", "value": fmt_time(out["iteration_time_s"])},
        *(
            {"quantity": f"  {k.replace('_', ' ')}", "value": fmt_time(v)}
            for k, v in out["time_breakdown_s"].items()
            if v > 0
        ),
        {"quantity": "tokens/s", "value": f"{out['tokens_per_s']:,.0f}"},
        {"quantity": "tokens/s per GPU", "value": f"{out['tokens_per_s_per_gpu']:,.1f}"},
        {"quantity": "model TFLOP/s per GPU", "value": f"{out['model_tflops_per_gpu']:.1f}"},
        {"quantity": "hardware TFLOP/s per GPU", "value": f"{out['hardware_tflops_per_gpu']:.1f}"},
        {"quantity": "MFU", "value": f"{100 * out['mfu']:.1f}%"},
        {"quantity": "HFU", "value": f"{100 * out['hfu']:.1f}%"},
        {"quantity": "memory per GPU", "value": f"{out['memory_gib_per_gpu']:.1f} GiB"},
        *(
            {"quantity": f"  {k}", "value": f"{v / GIB:.2f} GiB"}
            for k, v in out["memory_bytes"].items()
            if v > 0
        ),
    ]
    if "time_to_train_s" in out:
        rows += [
            {"quantity": "total FLOPs", "value": f"{out['total_flops']:.3e}"},
            {"quantity": "time to train", "value": f"{out['time_to_train_s'] / 86400:.1f} days"},
            {"quantity": "GPU-hours", "value": f"{out['gpu_hours']:,.0f}"},
            {"quantity": "energy (TDP bound)", "value": f"{out['energy_j'] / 3.6e9:,.1f} MWh"},
            {"quantity": "cost", "value": "-" if out["cost_usd"] is None else f"${out['cost_usd']:,.0f}"},
        ]
    return rows


def _explain(r: Any, fmt: str) -> None:
    """The step-time expression (training_formulas) with the values that went into it."""
    import sympy as sp

    from llmcost.cli.explain_cmd import explain_rows
    from llmcost.report import emit
    from llmcost.training import formulas as F

    lay = r.layout
    expr = F.step_expression(
        lay.plan.schedule, "overlap" if lay.plan.overlap_dp else "serial", lay.plan.zero == 3
    )
    vals = dict(r.values)
    rows = explain_rows(expr, vals)
    text = f"T = {sp.sstr(expr)}"
    if fmt == "table":
        print(text)
        print(
            f"= {r.step_time:.6g} s  (t_dp, t_ag, t_z3_ag, t_z3_rs, t_p2p: collective times, see llmcost collective)"
        )
        emit(rows, fmt, title="symbols")
    else:
        emit({"expression": text, "latex": sp.latex(expr), "symbols": rows, "step_time_s": r.step_time}, fmt)


def register(app: typer.Typer) -> None:
    """Add ``train`` to the CLI."""
    app.command("train")(train)
