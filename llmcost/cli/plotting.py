"""``--plot FILE``: each command's figure from what it computed (:mod:`llmcost.plots`). Nothing here
runs, and matplotlib is not imported, unless a figure is asked for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from llmcost.units import GIB


def start(path: Path | None) -> Path | None:
    """The checked ``--plot`` target (None without one); matplotlib checked before any costing."""
    if path is None:
        return None
    from llmcost.plots.figure import start as check

    return check(path)


def _axes(res: Any) -> tuple[str, str]:
    """(x, y) metrics: the Pareto axes (the second across), else memory per GPU across and the objective up."""
    if res.pareto:
        return res.pareto[1], res.pareto[0]
    return "memory_gib_per_gpu", res.objective


def search_train(target: Path, rep: Any, max_memory: float | None, min_throughput: float | None) -> None:
    """The train search's kept plans (:func:`llmcost.plots.search.plot`)."""
    from llmcost.plots import search as P

    res, hw = rep.result, rep.hardware[0]
    bounds = [P.Bound("memory_gib_per_gpu", hw.memory_usable / GIB, f"over {hw.id}'s usable memory")]
    if max_memory is not None:
        bounds.append(P.Bound("memory_gib_per_gpu", max_memory, "over --max-memory"))
    if min_throughput is not None:
        bounds.append(P.Bound("tokens_per_s", min_throughput, "under --min-throughput", upper=False))
    labels = [P.train_label(p["plan"]) for p in res.plans]
    gpus = "/".join(map(str, rep.space.gpus))
    title = f"search train {rep.model} on {gpus} x {hw.id}: " + _what(res)
    P.plot(target, res.plans, _axes(res), labels, bounds, title, bool(res.pareto))


def search_infer(target: Path, rep: Any, slos: dict[str, Any], min_throughput: float | None) -> None:
    """The inference search's kept plans; the SLOs given and the largest usable memory as bounds."""
    from llmcost.plots import search as P
    from llmcost.search.space import slo_time

    res = rep.result
    top = max(rep.hardware, key=lambda h: h.memory_usable)
    bounds = [P.Bound("memory_gib_per_gpu", top.memory_usable / GIB, f"over {top.id}'s usable memory")]
    for key, (flag, text) in slos.items():
        if text is not None:
            bounds.append(P.Bound(key, slo_time(text, flag), f"over {flag}"))
    if min_throughput is not None:
        bounds.append(P.Bound("output_tokens_per_s", min_throughput, "under --min-throughput", upper=False))
    labels = [P.infer_label(p) for p in res.plans]
    title = f"search infer {rep.model} on {', '.join(h.id for h in rep.hardware)}: " + _what(res)
    P.plot(target, res.plans, _axes(res), labels, bounds, title, bool(res.pareto))


def _what(res: Any) -> str:
    """``Pareto front (a vs b)`` or ``top N by OBJECTIVE``, in the axis words."""
    from llmcost.plots.figure import METRICS

    def word(m: str) -> str:
        return METRICS[m][0] if m in METRICS else m

    if res.pareto:
        return f"Pareto front ({word(res.pareto[0])} vs {word(res.pareto[1])})"
    return f"top {len(res.plans)} by {word(res.objective)}"


def infer(target: Path, model: str, rep: Any) -> None:
    """``infer``'s operators (the ``--breakdown`` rows) on the device's roofline at the GEMM math format."""
    from llmcost.cli.infer_view import ops_rows
    from llmcost.plots.roofline import infer_figure

    r, hw, plan = rep.result, rep.hardware, rep.result.plan
    peak = hw.peak_flops(r.math[0])
    title = (
        f"{model} on {r.gpus} x {hw.id} (tp {plan.tp}, pp {plan.pp}, dp {plan.dp}), batch {r.batch}, "
        f"{plan.prompt_len} in / {plan.output_len} out: per operator"
    )
    label = f"dense {r.math[0]} peak {peak / 1e12:,.0f} TFLOP/s"
    infer_figure(target, ops_rows(r, False), peak, hw.memory_bandwidth, label, title)


def train(target: Path, rep: Any, title: str) -> None:
    """``train``'s operators on the device's roofline at the training precision (the ``--breakdown``
    rows, :meth:`llmcost.api.TrainReport.operators`) beside the step-time and memory breakdowns
    (:func:`llmcost.plots.roofline.train_figure`)."""
    from llmcost.plots.roofline import train_figure

    r = rep.result
    lay = r.layout
    title += f" (tp {lay.tp}, pp {lay.pp}, dp {lay.dp}), global batch {lay.global_batch} x {lay.seq}"
    memory = {k: v / GIB for k, v in r.memory.items() if v > 0}
    peak = (
        r.peak,
        rep.hardware.memory_bandwidth,
        f"dense {lay.plan.precision} peak {r.peak / 1e12:,.0f} TFLOP/s",
    )
    train_figure(
        target,
        {k: v for k, v in r.breakdown.items() if v > 0},
        memory,
        rep.hardware.memory_usable / GIB,
        title,
        (rep.operators(), *peak),
    )


def tts(target: Path, model: str, rep: Any, plan: Any, title: str) -> None:
    """``tts``: the same query costed (:func:`llmcost.api.tts`) at the sample counts and lengths
    ``search tts`` sweeps, beside this one's (plans that do not fit or run are left out)."""
    from dataclasses import replace

    from llmcost import api
    from llmcost.errors import UserError
    from llmcost.plots.tts import query_figure
    from llmcost.search.tts import GEN_LENS, SAMPLES

    def series(key: str, values: tuple[int, ...], at: int) -> list[tuple[int, dict[str, float]]]:
        out = []
        for v in sorted({*values, at}):
            try:
                out.append((v, api.tts(model, rep.hardware, replace(plan, **{key: v})).metrics()))
            except UserError:  # PlanError too: does not fit, too long for the model
                continue
        return out

    by_n = series("samples", SAMPLES, plan.samples)
    by_len = series("gen_len", GEN_LENS, plan.gen_len)
    query_figure(target, by_n, by_len, (plan.samples, plan.gen_len), title)


def search_tts(target: Path, res: dict[str, Any], key: str, budget: float, title: str, pareto: bool) -> None:
    """``search tts``'s plans and saturation points (:func:`llmcost.plots.tts.search_figure`)."""
    from llmcost.plots.tts import search_figure

    search_figure(target, res, key, budget, title, pareto)
