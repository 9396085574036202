"""``llmcost infer MODEL --hw ID ...``: TTFT, TPOT, throughput, memory, cost and energy of one plan."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from llmcost.cli.options import FormatOpt, GpusPerNodeOpt
from llmcost.units import GIB


def _ops_rows(r: Any, table: bool) -> list[dict[str, Any]]:
    import numpy as np

    from llmcost.units import fmt_time

    rows = []
    for phase, ph in (("prefill", r.prefill), ("decode", r.decode)):
        for o in ph.ops:
            t = float(np.mean(o.time)) * o.count
            bound = str(np.atleast_1d(o.bound)[-1])
            row = {
                "phase": phase,
                "group": o.group,
                "op": o.name,
                "kind": o.kind,
                "count": o.count,
                "bound": bound,
            }
            if table:
                row |= {
                    "time": fmt_time(t),
                    "GFLOP": float(np.mean(o.flops)) * o.count / 1e9,
                    "MB": float(np.mean(o.hbm_bytes)) * o.count / 1e6,
                }
            else:
                row |= {
                    "time_s": t,
                    "flops": float(np.mean(o.flops)) * o.count,
                    "hbm_bytes": float(np.mean(o.hbm_bytes)) * o.count,
                }
            rows.append(row)
    return rows


def _explain(model: str, hw: Any, plan: Any, r: Any) -> list[str]:
    """The expressions behind TTFT and TPOT with the plan's values substituted."""
    import sympy as sp

    from llmcost.graph import ops as G
    from llmcost.inference import serve as I
    from llmcost.kernels.roofline import expression as roof

    ev = I.Evaluator(I.spec_of(model), hw, plan)
    lines = [
        "TTFT = (m + p - 1)/p * T_prefill + (p - 1) * T_p2p;  TPOT = mean over decode steps of T_decode(ctx) "
        "+ (p - 1) * T_p2p;  T_phase = sum_groups count * sum_ops T_op",
        f"T_op = {roof()}  (per operator; collectives: llmcost collective)",
        f"values: tp={plan.tp} pp={plan.pp} dp={plan.dp} cp={plan.cp} ep={plan.ep} batch/replica="
        f"{r.batch // plan.dp} prompt={plan.prompt_len} output={plan.output_len}; math {r.math[0]} "
        f"(GEMM) / {r.math[1]} (attention); peak {ev.peak_mm / 1e12:.1f} / {ev.peak_attn / 1e12:.1f} TFLOP/s, "
        f"eta_c={hw.compute_efficiency}, W_hbm={hw.memory_bandwidth / 1e12:.2f} TB/s, eta_m={hw.memory_efficiency}",
    ]
    m = max(1, min(r.batch // plan.dp, plan.pp))
    for phase, work in (
        ("forward", {"seq": plan.prompt_len, "ctx": plan.prompt_len}),
        ("decode", {"seq": 1, "ctx": plan.prompt_len + plan.output_len // 2}),
    ):
        vals = dict(ev.vals, micro_batch=r.batch // plan.dp / m, **work)
        for g in G.layer_groups(ev.spec, phase)[:3]:
            vals["window"] = G.window_value(g.window)
            lines.append(f"-- {phase} layer group {g.name} x{g.count} (per layer, per GPU):")
            for op in G.layer_ops(g.shape):
                if op.kind == "collective":
                    expr, q = op.size, "size"
                else:
                    expr, q = op.flops, "flops"
                e = sp.sympify(expr)
                if e == 0:
                    continue
                sub = {
                    s: sp.Float(vals[s.name]) if vals[s.name] != float("inf") else sp.oo
                    for s in e.free_symbols
                }
                val = float(e.subs(sub))
                lines.append(f"   {op.name}.{q} = {e} = {val:.4g}")
                if op.kind != "collective":
                    hb = sp.sympify(op.hbm_bytes)
                    hv = float(
                        hb.subs(
                            {
                                s: sp.Float(vals[s.name]) if vals[s.name] != float("inf") else sp.oo
                                for s in hb.free_symbols
                            }
                        )
                    )
                    lines.append(f"   {op.name}.hbm_bytes = {hb} = {hv:.4g}")
    return lines


def infer(
    model: Annotated[str, typer.Argument(help="Model id (llmcost model list).")],
    hw: Annotated[str, typer.Option("--hw", help="Hardware id (llmcost hw list).")] = "h100-sxm",
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
    gpus_per_node: GpusPerNodeOpt = None,
    plan_file: Annotated[
        Path | None, typer.Option("--plan", help="YAML plan (validation README infer keys).")
    ] = None,
    breakdown: Annotated[bool, typer.Option("--breakdown", help="Per-operator time and bound.")] = False,
    explain: Annotated[
        bool, typer.Option("--explain", help="Show the expressions with values substituted.")
    ] = False,
    fmt: FormatOpt = "table",
) -> None:
    """TTFT, TPOT, end-to-end latency, throughput, memory per GPU, cost and energy of an inference plan."""
    from llmcost import api
    from llmcost.report import check_format, emit
    from llmcost.units import fmt_time

    check_format(fmt)
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
        "gpus": gpus,
        "gpus_per_node": gpus_per_node,
    }
    rep = api.infer(model, hw, plan_file, **given)
    r, hardware, plan = rep.result, rep.hardware, rep.result.plan
    table = fmt == "table"
    if breakdown:
        emit(
            _ops_rows(r, table), fmt, title=f"{model} on {r.gpus} x {hardware.id}: per operator (all layers)"
        )
        return
    if table:
        m = r.metrics()
        mem = {k: v / GIB for k, v in r.memory.items()}
        data: dict[str, Any] = {
            "TTFT": fmt_time(r.ttft),
            "TPOT": fmt_time(r.tpot),
            "end-to-end latency": fmt_time(r.e2e),
            "output tokens/s": m["output_tokens_per_s"],
            "output tokens/s per GPU": m["output_tokens_per_s_per_gpu"],
            "prefill tokens/s per GPU": m["input_tokens_per_s_per_gpu"],
            "memory GiB per GPU": {k: round(v, 2) for k, v in mem.items()},
            "largest batch that fits": r.max_batch,
            "USD per 1M output tokens": m["usd_per_million_output_tokens"],
            "J per output token (TDP)": m["joules_per_output_token"],
            "precision": f"weights {r.formats[0]}, activations {r.formats[1]}, KV {r.formats[2]}; math "
            f"{r.math[0]} (GEMM) / {r.math[1]} (attention)",
        }
        title = (
            f"{model} on {r.gpus} x {hardware.id} (tp {plan.tp}, pp {plan.pp}, dp {plan.dp}, cp {plan.cp}, "
            f"ep {plan.ep}), batch {r.batch}, {plan.prompt_len} in / {plan.output_len} out"
        )
        emit(data, "table", title=title, notes=r.notes)
    else:
        out = rep.as_dict()
        emit(out if fmt != "csv" else [out], fmt)
    if explain:
        print("\n".join(_explain(model, hardware, plan, r)))


def register(app: typer.Typer) -> None:
    """Add ``infer`` to the CLI."""
    app.command("infer")(infer)
