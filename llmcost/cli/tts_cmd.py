"""``llmcost tts MODEL --hw ID --strategy ... --samples N``: cost of one test-time-scaling query."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from llmcost.cli.options import FormatOpt
from llmcost.units import GIB

StrategyOpt = Annotated[str, typer.Option("--strategy", help="best_of_n, majority, sequential or beam.")]
SparseOpt = Annotated[
    str | None,
    typer.Option(
        "--sparse-attention", help="Kinetics top-k: topk=K[,block=B][,local=W] (block=1: token top-k)."
    ),
]
IntensityOpt = Annotated[
    str,
    typer.Option(
        "--intensity",
        help="eFLOPs FLOPs per byte: kinetics (FP8 peak / HBM BW), plan (GEMM-precision peak / HBM BW) "
        "or a number.",
    ),
]


def base_plan(
    strategy: str,
    samples: int,
    prompt_len: int,
    gen_len: int,
    verifier: str | None,
    sparse: str | None,
    intensity: str,
    beam_width: int,
    beam_step: int,
    tp: int | None,
    ep: int | None,
    weights: str | None,
    kv_cache: str | None,
) -> Any:
    """A TTSPlan from CLI options (shared by ``tts`` and ``search tts``): :func:`llmcost.api.tts_plan`."""
    from llmcost import api

    query = dict(strategy=strategy, samples=samples, prompt_len=prompt_len, gen_len=gen_len)
    query |= dict(verifier=verifier, sparse_attention=sparse, intensity=intensity)
    query |= dict(beam_width=beam_width, beam_step=beam_step)
    return api.tts_plan(**query, tp=tp, ep=ep, weights=weights, kv_cache=kv_cache)


def _explain(r: Any) -> list[str]:
    """The closed forms behind the figures with this query's values substituted (imports sympy)."""
    import sympy as sp

    from llmcost.tts import formulas as F

    p = r.plan
    seq = p.strategy == "sequential"
    vals: dict[str, float] = {
        "n_samples": p.samples,
        "l_in": p.prompt_len,
        "l_out": p.gen_len,
        "intensity": r.intensity,
        "f_tok": r.prims.f_tok,
        "beam_width": min(p.beam_width, p.samples),
        "beam_step": min(p.beam_step, p.gen_len),
        "budget": float("inf"),
    }
    lines = [
        f"I = {r.intensity:.1f} FLOP/B: {r.intensity_note}",
        f"f_tok = {r.prims.f_tok:.4g} FLOPs per generated token (graph decode ops at context 0, tp 1)",
    ]
    for g in r.prims.groups:
        lines.append(
            f"group {g.name} x{g.count}: f_pair = {g.f_pair:.4g} FLOP per (query, key), k_pos = "
            f"{g.k_pos:.4g} B per position, window {g.window}"
        )
    names = [
        "linear_flops",
        "pairs__sequential" if seq else "pairs__parallel",
        "reads__sequential"
        if seq
        else ("reads__beam_shared" if p.strategy == "beam" else "reads__parallel_shared"),
        "eflops",
    ]
    if not seq and p.strategy != "beam" and len(r.prims.groups) == 1 and p.sparse is None:
        g = r.prims.groups[0]
        vals |= {"f_pair": g.f_pair, "k_pos": g.k_pos}
        names.append("eflops__dense_parallel")
    vals |= {"c_comp": r.totals["decode_flops"], "c_mem": r.totals["kv_read_bytes"]}
    for name in names:
        e = F.expression(name)
        sub = {
            s: sp.oo if vals.get(s.name) == float("inf") else sp.Float(vals[s.name])
            for s in e.free_symbols
            if s.name in vals
        }
        val = e.subs(sub)
        lines.append(f"{name} = {e}  = {float(val):.4g}" if val.is_number else f"{name} = {e}")
    lines.append(f"usd = {F.expression('usd')};  energy = {F.expression('energy')}")
    lines.append(
        "latency = prefill (graph forward, batch 1) + sum over decode steps of the graph decode ops "
        f"(batch {1 if seq else p.samples}) + shared-prompt attention + verifier prefill"
    )
    return lines


def tts(
    model: Annotated[str, typer.Argument(help="Model id (llmcost model list).")],
    hw: Annotated[str, typer.Option("--hw", help="Hardware id (llmcost hw list).")] = "h100-sxm",
    strategy: StrategyOpt = "best_of_n",
    samples: Annotated[
        int, typer.Option("--samples", help="Samples N (rounds for sequential, candidates for beam).")
    ] = 8,
    prompt_len: Annotated[int, typer.Option("--prompt-len", help="Prompt tokens.")] = 512,
    gen_len: Annotated[int, typer.Option("--gen-len", help="Generated tokens per sample / round.")] = 4096,
    verifier: Annotated[
        str | None, typer.Option("--verifier", help="Reward model id scoring every sample.")
    ] = None,
    sparse: SparseOpt = None,
    beam_width: Annotated[int, typer.Option("--beam-width", help="Beams kept per step (beam).")] = 4,
    beam_step: Annotated[int, typer.Option("--beam-step", help="Tokens per beam step (beam).")] = 256,
    intensity: IntensityOpt = "kinetics",
    tp: Annotated[int | None, typer.Option("--tp", help="Tensor-parallel degree.")] = None,
    ep: Annotated[int | None, typer.Option("--ep", help="Expert-parallel degree (MoE).")] = None,
    weights: Annotated[str | None, typer.Option("--weights", help="bf16 fp16 fp8 int8 int4 fp4")] = None,
    kv_cache: Annotated[str | None, typer.Option("--kv-cache", help="bf16 fp16 fp8 int8 int4 fp4")] = None,
    explain: Annotated[
        bool, typer.Option("--explain", help="Show the expressions with values substituted.")
    ] = False,
    fmt: FormatOpt = "table",
) -> None:
    """FLOPs, bytes, Kinetics eFLOPs, latency, cost and energy of one test-time-scaling query."""
    from llmcost import api
    from llmcost.report import check_format, emit
    from llmcost.units import fmt_time

    check_format(fmt)
    asked = base_plan(
        strategy,
        samples,
        prompt_len,
        gen_len,
        verifier,
        sparse,
        intensity,
        beam_width,
        beam_step,
        tp,
        ep,
        weights,
        kv_cache,
    )
    rep = api.tts(model, hw, asked)
    r, hardware, plan = rep.result, rep.hardware, rep.result.plan
    if fmt == "table":
        m, t = r.metrics(), r.totals
        data: dict[str, Any] = {
            "eFLOPs (Kinetics)": m["eflops_per_query"],
            "FLOPs": m["flops_per_query"],
            "bytes moved": m["bytes_per_query"],
            "bytes by part": {
                "weights": t["weight_bytes"],
                "KV reads": t["kv_read_bytes"],
                "activations": t["activation_bytes"],
                "prefill": r.prefill[1],
                "verifier": r.verifier["bytes"] if r.verifier else 0.0,
            },
            "FLOPs by part": {
                "linear": t["linear_flops"],
                "attention": t["attention_flops"],
                "prefill": r.prefill[0],
                "verifier": r.verifier["flops"] if r.verifier else 0.0,
            },
            "intensity I (FLOP/B)": f"{r.intensity:.1f} ({r.intensity_note})",
            "latency": fmt_time(m["latency_s"]),
            "latency by part": {k: fmt_time(v) for k, v in r.latency.items() if k != "total"},
            "KV cache GiB (query, resident)": m["kv_cache_gib"],
            "memory GiB per GPU": {k: round(v / GIB, 2) for k, v in r.memory.items()},
            "generated tokens": int(m["generated_tokens"]),
            "USD per query": m["usd_per_query"],
            "J per query (TDP)": m["joules_per_query"],
        }
        sp = f", {plan.sparse.describe()}" if plan.sparse else ""
        title = (
            f"{model} on {r.devices} x {hardware.id}: {plan.strategy}, N={plan.samples}, "
            f"{plan.prompt_len} in / {plan.gen_len} out{sp}"
        )
        emit(data, "table", title=title, notes=r.notes)
    else:
        out = rep.as_dict()
        emit(
            out if fmt != "csv" else [{k: v for k, v in out.items() if not isinstance(v, (dict, list))}], fmt
        )
    if explain:
        print("\n".join(_explain(r)))


def register(app: typer.Typer) -> None:
    """Add ``tts`` to the CLI."""
    app.command("tts")(tts)
