"""``llmcost budget``: compute-optimal params/tokens for a budget, or the FLOPs, time and cost of a run."""

from typing import Annotated, Any

import typer

from llmcost.cli.options import FormatOpt, complete_hardware


def budget(
    flops: Annotated[str | None, typer.Option("--flops", help="FLOP budget, e.g. 5.76e23.")] = None,
    gpu_hours: Annotated[
        str | None, typer.Option("--gpu-hours", help="Device-hour budget (needs --hw).")
    ] = None,
    model: Annotated[
        str | None, typer.Option("--model", help="Model id: FLOPs of training it on --tokens.")
    ] = None,
    tokens: Annotated[str | None, typer.Option("--tokens", help="Training tokens, e.g. 1.4T.")] = None,
    seq_len: Annotated[
        int, typer.Option("--seq-len", help="Sequence length for the attention FLOPs.")
    ] = 2048,
    hw: Annotated[
        str | None,
        typer.Option("--hw", help="Hardware id for time and cost.", autocompletion=complete_hardware),
    ] = None,
    gpus: Annotated[int | None, typer.Option("--gpus", help="GPUs of the cluster (time of the run).")] = None,
    mfu: Annotated[
        float, typer.Option("--mfu", help="Assumed model FLOPs utilisation for time and cost.")
    ] = 0.40,
    precision: Annotated[str, typer.Option("--precision", help="Peak used: bf16, fp16, fp8.")] = "bf16",
    fit: Annotated[
        str,
        typer.Option(
            "--fit",
            help="tokens20 (Chinchilla D=20N), approach3 (Hoffmann Eq. 4), "
            "epoch (Besiroglu et al. 2024 refit).",
        ),
    ] = "tokens20",
    fmt: FormatOpt = "table",
) -> None:
    """Chinchilla compute-optimal N and D for --flops or --gpu-hours; or total FLOPs of --model on
    --tokens; with --hw/--gpus the wall time, GPU-hours, cost and energy at --mfu."""
    from llmcost.report import check_format

    check_format(fmt)
    _check(model, flops, gpu_hours, tokens, seq_len, hw, gpus, mfu)
    hardware, peak = _hardware(hw, precision)
    if model is not None:
        out, c = _model_run(model, tokens, seq_len)
    else:
        out, c = _optimal_split(flops, gpu_hours, peak, mfu, fit)
    if hardware is not None and peak is not None:
        out.update(_run_on(hardware, c, gpus, peak, mfu))
    _emit(out, fmt, fit, model)


def _check(
    model: str | None,
    flops: str | None,
    gpu_hours: str | None,
    tokens: str | None,
    seq_len: int,
    hw: str | None,
    gpus: int | None,
    mfu: float,
) -> None:
    """Options that go together: --gpus with --hw, --tokens with --model, --model or a budget."""
    from llmcost import checks
    from llmcost.errors import UserError

    if gpus is not None:
        checks.finite_int(gpus, "--gpus")
        if hw is None:
            raise UserError("--gpus needs --hw (the run's time on that many GPUs of that hardware)")
    checks.finite_int(seq_len, "--seq-len")
    checks.positive_finite(mfu, "--mfu")
    if model is not None and (flops is not None or gpu_hours is not None):
        raise UserError(
            "--model with --tokens costs that run; --flops / --gpu-hours ask for the compute-optimal "
            "split of a budget: give one or the other"
        )
    if model is None and tokens is not None:
        raise UserError("--tokens needs --model (the FLOPs of training it on those tokens)")


def _hardware(hw: str | None, precision: str) -> tuple[Any, float | None]:
    """(hardware, its dense peak at ``precision``), or (None, None) without --hw."""
    if hw is None:
        return None, None
    from llmcost.catalog import get_hardware

    hardware = get_hardware(hw)
    return hardware, hardware.peak_flops(precision)


def _model_run(model: str, tokens: str | None, seq_len: int) -> tuple[dict[str, Any], float]:
    """FLOPs of training ``model`` on ``tokens``: per token (matmuls incl. attention) and 6ND."""
    from llmcost.economics import budget as B
    from llmcost.errors import UserError
    from llmcost.model.config import spec_of
    from llmcost.model.params import count_params
    from llmcost.training.compute import model_flops_per_token
    from llmcost.training.run import run_totals

    if tokens is None:
        raise UserError("--model needs --tokens")
    spec = spec_of(model)
    d = B.parse_count(tokens, "--tokens")
    fpt = model_flops_per_token(spec, seq_len)
    n = count_params(spec).active
    c = run_totals(d, 1.0, flops_step=fpt).total_flops  # FLOPs per token: a step of one token
    out = {
        "model": model,
        "params": n,
        "tokens": d,
        "flops_per_token": fpt,
        "total_flops": c,
        "total_flops_6nd": B.flops_6nd(n, d),
    }
    return out, c


def _optimal_split(
    flops: str | None, gpu_hours: str | None, peak: float | None, mfu: float, fit: str
) -> tuple[dict[str, Any], float]:
    """Compute-optimal params and tokens of a --flops or --gpu-hours budget under ``fit``."""
    from llmcost.economics import budget as B
    from llmcost.errors import UserError

    if (flops is None) == (gpu_hours is None):
        raise UserError("give exactly one of --flops or --gpu-hours (or --model with --tokens)")
    if flops is not None:
        c = B.parse_count(flops, "--flops")
    else:
        if peak is None:
            raise UserError("--gpu-hours needs --hw (and uses --mfu)")
        c = B.flops_from_gpu_hours(B.parse_count(gpu_hours, "--gpu-hours"), peak, mfu)
    o = B.compute_optimal(c, fit)
    out = {
        "fit": fit,
        "flops": c,
        "params": o.params,
        "tokens": o.tokens,
        "tokens_per_param": o.tokens_per_param,
        "predicted_loss": o.loss,
    }
    return out, c


def _run_on(hardware: Any, c: float, gpus: int | None, peak: float, mfu: float) -> dict[str, Any]:
    """GPU-hours, energy, cost (and with --gpus the wall time) of ``c`` FLOPs at ``mfu``."""
    from llmcost.economics import budget as B
    from llmcost.training.run import run_totals

    # the run as one step of n devices (tokens per step = run tokens): the training formulas
    n = gpus or 1
    t = B.run_time(c, n, peak, mfu)
    run = run_totals(1.0, 1.0, step_time=t, gpus=n, power_w=hardware.tdp, price_h=hardware.price_per_hour)
    out: dict[str, Any] = {
        "hardware": hardware.id,
        "mfu_assumed": mfu,
        "gpu_hours": float(run.gpu_hours),
        "energy_j": float(run.energy_j),
    }
    if run.cost_usd is not None:
        out["cost_usd"] = float(run.cost_usd)
    if gpus:
        out.update(gpus=gpus, time_to_train_s=float(run.time_to_train_s))
    return out


def _emit(out: dict[str, Any], fmt: str, fit: str, model: str | None) -> None:
    """The result as a document, or (quantity, value) rows with the fit (or the FLOPs convention)."""
    from llmcost.report import emit

    if fmt != "table":
        emit(out, fmt)
        return
    notes = (
        [_fit_note(fit)]
        if model is None
        else ["total_flops: matmuls incl. causal attention (the pairs its mask keeps, s^2/2), no recompute"]
    )
    if "gpu_hours" in out:
        from llmcost.training.run import GOODPUT

        notes.append(
            f"GPU-hours, energy, cost and time are wall time at goodput {GOODPUT:g} (Llama 3 report)"
        )
    emit(
        [{"quantity": k, "value": _show(v)} for k, v in out.items()],
        fmt,
        title="training budget",
        notes=notes,
    )


def _fit_note(fit: str) -> str:
    return {
        "tokens20": "Hoffmann et al. 2022 Approaches 1-2: D = 20 N, C = 6 N D",
        "approach3": "Hoffmann et al. 2022 Approach 3, Eq. 4 with Eq. 10 coefficients",
        "epoch": "Besiroglu et al. 2024 refit of Approach 3",
    }[fit]


def _show(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}" if abs(v) < 1e4 else f"{v:.4e}"
    return str(v)


def register(app: typer.Typer) -> None:
    """Add ``budget`` to the CLI."""
    app.command("budget")(budget)
