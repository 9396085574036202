"""``llmcost tts MODEL --hw ID --strategy ... --samples N``: cost of one test-time-scaling query."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from llmcost.cli.options import FormatOpt

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
    """A TTSPlan from CLI options (shared by ``tts`` and ``search tts``)."""
    from llmcost.inference import serve as I
    from llmcost.tts import query as T

    given = {"tp": tp, "ep": ep, "weights": weights, "kv_cache": kv_cache}
    infer = I.plan_from_dict({k: v for k, v in given.items() if v is not None})
    plan = T.TTSPlan(
        strategy=strategy,
        samples=samples,
        prompt_len=prompt_len,
        gen_len=gen_len,
        beam_width=beam_width,
        beam_step=beam_step,
        verifier=verifier,
        sparse=T.parse_sparse(sparse),
        intensity=intensity,
        infer=infer,
    )
    plan.check()
    return plan


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
        bool,
        typer.Option(
            "--explain", help="Show the expressions with values substituted and where each is built."
        ),
    ] = False,
    fmt: FormatOpt = "table",
) -> None:
    """FLOPs, bytes, Kinetics eFLOPs, latency, cost and energy of one test-time-scaling query."""
    from llmcost.catalog import get_hardware
    from llmcost.cli import tts_view as V
    from llmcost.cli.common import check_explain, emit_result
    from llmcost.report import check_format
    from llmcost.tts.query import cost

    check_format(fmt)
    check_explain(explain, fmt)
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
    )
    _check_beam(strategy, samples, gen_len, beam_width, beam_step)
    hardware = get_hardware(hw)
    r = cost(model, hardware, plan)
    table, machine, title = V.views(model, r, hardware, plan, fmt)
    explanation = V.explain(r) if explain else None
    emit_result(fmt, table, machine, title=title, notes=r.notes, explanation=explanation)


def _check_beam(strategy: str, samples: int, gen_len: int, beam_width: int, beam_step: int) -> None:
    """Beam search keeps at most --samples candidates, in steps no longer than --gen-len."""
    from llmcost.errors import UserError

    if strategy == "beam" and beam_width > samples:
        raise UserError(
            f"--beam-width {beam_width} exceeds --samples {samples} (the candidates kept per step); "
            f"use --beam-width <= {samples} or raise --samples"
        )
    if strategy == "beam" and beam_step > gen_len:
        raise UserError(
            f"--beam-step {beam_step} is longer than --gen-len {gen_len}; use --beam-step <= {gen_len}"
        )


def register(app: typer.Typer) -> None:
    """Add ``tts`` to the CLI."""
    app.command("tts")(tts)
