"""``llmcost tts MODEL --hw ID --strategy ... --samples N``: cost of one test-time-scaling query."""

from typing import Annotated, Any

import typer

from llmcost.cli.options import FormatOpt, HtmlOpt, HwOpt, ModelArg, PlotOpt, PowerCapOpt, PueOpt

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
    **power: Any,
) -> Any:
    """A TTSPlan from CLI options (shared by ``tts`` and ``search tts``): :func:`llmcost.api.tts_plan`;
    ``power``: the serving keys ``power_cap`` and ``pue`` (``tts`` only)."""
    from llmcost import api

    query = dict(strategy=strategy, samples=samples, prompt_len=prompt_len, gen_len=gen_len)
    query |= dict(verifier=verifier, sparse_attention=sparse, intensity=intensity)
    query |= dict(beam_width=beam_width, beam_step=beam_step)
    return api.tts_plan(**query, tp=tp, ep=ep, weights=weights, kv_cache=kv_cache, **power)


def tts(
    model: ModelArg,
    hw: HwOpt = "h100-sxm",
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
    power_cap: PowerCapOpt = None,
    pue: PueOpt = None,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain", help="Show the expressions with values substituted and where each is built."
        ),
    ] = False,
    fmt: FormatOpt = "table",
    plot: PlotOpt = None,
    html: HtmlOpt = None,
) -> None:
    """FLOPs, bytes, Kinetics eFLOPs, latency, cost and energy of one test-time-scaling query."""
    from llmcost import api
    from llmcost.cli import html_page as H
    from llmcost.cli import plotting as P
    from llmcost.cli import tts_view as V
    from llmcost.cli.common import check_explain, emit_result
    from llmcost.report import check_format

    check_format(fmt)
    check_explain(explain, fmt)
    target, page = P.start(plot), H.start(html)
    plan = base_plan(
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
        power_cap=power_cap,
        pue=pue,
    )
    rep = api.tts(model, hw, plan)
    table, machine, title = V.views(model, rep, fmt)
    explanation = V.explain(rep.result) if explain else None
    emit_result(fmt, table, machine, title=title, notes=rep.result.notes, explanation=explanation)
    for t in H.targets(target, page):
        P.tts(t, model, rep, plan, title)
    H.finish(page, lambda: H.tts_formulas(rep))


def register(app: typer.Typer) -> None:
    """Add ``tts`` to the CLI."""
    app.command("tts")(tts)
