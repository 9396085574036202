"""``llmcost search tts``: test-time-scaling plans within a budget (see :mod:`llmcost.search.tts`)."""

from pathlib import Path
from typing import Annotated, Any

import typer

from llmcost.cli.options import FormatOpt, HtmlOpt, HwOpt, ParetoOpt, PlotOpt, TopOpt
from llmcost.cli.tts_cmd import IntensityOpt, SparseOpt


def _ints(text: str | None, default: tuple[int, ...], what: str) -> tuple[int, ...]:
    from llmcost.search.common import parse_list

    return parse_list(text, what, int) or default


def _accuracy_notes(table: Any, names: list[str]) -> list[str]:
    """UserError (with did-you-mean) for an accuracy row naming no known model; a note for rows
    of models the search does not sweep (--models)."""
    from llmcost.catalog import model_ids
    from llmcost.errors import UserError, did_you_mean

    known = set(model_ids()) | set(names)
    listed = sorted({m for m, _ in table.rows})
    for m in listed:
        if m not in known:
            raise UserError(
                f"--accuracy: unknown model '{m}'{did_you_mean(m, known)} (rows name catalog model ids "
                "or the --models entries)"
            )
    unused = [m for m in listed if m not in names]
    return [f"--accuracy rows for {', '.join(unused)} not used (not in --models)"] if unused else []


def search_tts(
    models: Annotated[str, typer.Option("--models", help="Comma-separated model ids.")],
    hw: HwOpt = "h100-sxm",
    budget_eflops: Annotated[
        float | None, typer.Option("--budget-eflops", help="Kinetics eFLOPs per query.")
    ] = None,
    budget_usd: Annotated[float | None, typer.Option("--budget-usd", help="USD per query.")] = None,
    budget_seconds: Annotated[
        float | None, typer.Option("--budget-seconds", help="Latency per query (s).")
    ] = None,
    accuracy: Annotated[
        Path | None, typer.Option("--accuracy", help="YAML/CSV: model, gen_len, p[, wrong_share, f_max].")
    ] = None,
    pareto: ParetoOpt = False,
    strategies: Annotated[
        str | None, typer.Option("--strategies", help="Comma-separated (default all).")
    ] = None,
    samples: Annotated[
        str | None, typer.Option("--samples", help="Comma-separated N (default 1..64, powers of 2).")
    ] = None,
    gen_lens: Annotated[
        str | None, typer.Option("--gen-lens", help="Comma-separated lengths (default 1K..32K).")
    ] = None,
    prompt_len: Annotated[int, typer.Option("--prompt-len", help="Prompt tokens.")] = 512,
    verifier: Annotated[str | None, typer.Option("--verifier", help="Reward model id.")] = None,
    sparse: SparseOpt = None,
    intensity: IntensityOpt = "kinetics",
    epsilon: Annotated[
        float, typer.Option("--epsilon", help="TTSPM saturation: accuracy gain per sample.")
    ] = 0.01,
    tp: Annotated[int | None, typer.Option("--tp", help="Tensor-parallel degree.")] = None,
    weights: Annotated[str | None, typer.Option("--weights", help="bf16 fp16 fp8 int8 int4 fp4")] = None,
    kv_cache: Annotated[str | None, typer.Option("--kv-cache", help="bf16 fp16 fp8 int8 int4 fp4")] = None,
    top: TopOpt = 20,
    fmt: FormatOpt = "table",
    plot: PlotOpt = None,
    html: HtmlOpt = None,
) -> None:
    """Sweep model x samples x generation length x strategy of test-time scaling within a budget."""
    from llmcost.catalog import get_hardware
    from llmcost.checks import positive_finite
    from llmcost.cli import html_page as H
    from llmcost.cli import plotting as P
    from llmcost.cli.tts_cmd import base_plan
    from llmcost.errors import UserError
    from llmcost.report import check_format
    from llmcost.search import tts as S
    from llmcost.search.common import check_top

    check_format(fmt)
    check_top(top, fmt)
    kind, budget = _budget(budget_eflops, budget_usd, budget_seconds)
    target, page = P.start(plot), H.start(html)
    epsilon = positive_finite(epsilon, "--epsilon")
    names = [m.strip() for m in models.split(",") if m.strip()]
    if not names:
        raise UserError("--models: give at least one model id")
    strats = tuple(s.strip() for s in strategies.split(",")) if strategies else S.T.STRATEGIES
    first = strats[0] if strats else "best_of_n"
    base = base_plan(
        first, 1, prompt_len, 1024, verifier, sparse, intensity, 4, 256, tp, None, weights, kv_cache
    )
    table, extra_notes = _accuracy(accuracy, names)
    res = S.search(
        names,
        get_hardware(hw),
        kind,
        float(budget),
        base,
        strategies=strats,
        samples=_ints(samples, S.SAMPLES, "--samples"),
        gen_lens=_ints(gen_lens, S.GEN_LENS, "--gen-lens"),
        accuracy=table,
        pareto=pareto,
        epsilon=epsilon,
        top=top,
    )
    if not res["plans"]:
        from llmcost.search.common import nothing_fits

        raise UserError(nothing_fits(res["rejected"], "tts"))
    if extra_notes:
        res["notes"] = extra_notes
    _emit(res, fmt, S.BUDGETS[kind], f"search tts on {hw}", budget, pareto, epsilon, extra_notes)
    title = f"search tts {', '.join(names)} on {hw}: within {S.BUDGETS[kind]} <= {budget:g}"
    for t in H.targets(target, page):
        P.search_tts(t, res, S.BUDGETS[kind], float(budget), title, pareto)
    H.finish(page, lambda: H.area_formulas("tts"))


def _budget(eflops: float | None, usd: float | None, seconds: float | None) -> tuple[str, float]:
    """(kind, value) of the one budget given, checked positive."""
    from llmcost.checks import positive_finite
    from llmcost.errors import UserError

    given = [(k, v) for k, v in (("eflops", eflops), ("usd", usd), ("seconds", seconds)) if v is not None]
    if len(given) != 1:
        raise UserError("give exactly one of --budget-eflops, --budget-usd, --budget-seconds")
    kind, budget = given[0]
    return kind, positive_finite(budget, f"--budget-{kind}")


def _accuracy(path: Path | None, names: list[str]) -> tuple[Any, list[str]]:
    """The --accuracy table (None without it) and notes on its rows."""
    if path is None:
        return None, []
    from llmcost.tts.accuracy import load

    table = load(path)
    return table, _accuracy_notes(table, names)


def _emit(
    res: dict[str, Any],
    fmt: str,
    key: str,
    what: str,
    budget: float,
    pareto: bool,
    epsilon: float,
    extra_notes: list[str],
) -> None:
    """The result document, CSV rows, or the plans table (and the TTSPM saturation table)."""
    from llmcost.report import emit

    if fmt != "table":
        emit([_row(e, key) for e in res["plans"]] if fmt == "csv" else res, fmt)
        return
    rej = ", ".join(f"{k}: {v}" for k, v in res["rejected"].items()) or "none"
    notes = [
        f"{res['plans_evaluated']} plans evaluated in {res['elapsed_s']:.2f} s; rejected: {rej}",
        *extra_notes,
    ]
    which = "Pareto front" if pareto else f"top {len(res['plans'])}"
    title = f"{what}: {which} within {key} <= {budget:g}"
    emit([_row(e, key) for e in res["plans"]], "table", title=title, notes=notes)
    if res.get("saturation"):
        emit(res["saturation"], "table", title=f"TTSPM saturation (gain per extra sample < {epsilon:g})")


def _row(e: dict[str, Any], key: str) -> dict[str, Any]:
    p, m = e["plan"], e["metrics"]
    row = {
        "model": p["model"],
        "strategy": p["strategy"],
        "N": p["samples"],
        "gen_len": p["gen_len"],
        key: m[key],
        "eflops": m["eflops_per_query"],
        "latency_s": m["latency_s"],
        "usd": m["usd_per_query"],
        "kv_gib": m["kv_cache_gib"],
    }
    if "accuracy" in m:
        row["accuracy"] = m["accuracy"]
    return row


def register(group: typer.Typer) -> None:
    """Add ``tts`` to the ``search`` group (:data:`llmcost.cli.search_cmd.search_app`)."""
    group.command("tts")(search_tts)
