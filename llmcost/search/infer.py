"""Inference plan search: (hardware, GPU count, tp, pp, ep, dp, weight / activation / KV formats)
x batch sizes, evaluated vectorized over the batch (runtime: no sympy).

Each (hardware, parallel layout, formats) is one :class:`llmcost.cost.inference.Evaluator`; all
batch sizes of it go through :func:`llmcost.cost.inference.serve`, the composition
:func:`llmcost.cost.inference.cost` runs on one batch, at once (micro-batch on one array axis,
decode contexts on the other), and the metrics are :meth:`InferenceResult.metrics` on those
arrays. ``tests/test_search.py`` re-costs returned plans one by one with ``cost``: identical.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from llmcost import precision as Q
from llmcost.cost import inference as I
from llmcost.errors import PlanError
from llmcost.hardware import Hardware
from llmcost.search.common import divisors

DEFAULT_BATCHES = tuple(2**i for i in range(0, 11))
DEFAULT_WEIGHTS = ("bf16", "fp8", "int8", "int4", "fp4")


@dataclass(frozen=True)
class InferSpace:
    """The declared space: None for a dimension means every value the model allows."""

    prompt_len: int
    output_len: int
    gpus: tuple[int, ...] | None = None  # None: one node of each hardware
    tp: tuple[int, ...] | None = None
    pp: tuple[int, ...] | None = None
    ep: tuple[int, ...] | None = None
    dp: tuple[int, ...] | None = None
    batch: tuple[int, ...] = DEFAULT_BATCHES
    weights: tuple[str, ...] = DEFAULT_WEIGHTS
    activations: tuple[str | None, ...] = (None, "fp8")  # None: the plan default for the weights
    kv_cache: tuple[str | None, ...] = (None, "fp8")  # None: the plan default
    gpus_per_node: int | None = None


def _metrics_batches(ev: I.Evaluator, batches: np.ndarray) -> dict[str, np.ndarray]:
    """The metrics of every system batch of ``batches`` at once: :func:`llmcost.cost.inference.serve`
    (the composition :func:`llmcost.cost.inference.cost` runs on one batch) on the array of
    per-replica batches, and :meth:`InferenceResult.metrics` on its arrays."""
    p = ev.plan
    r = I.serve(ev, batches // p.dp)
    mem = r["memory"]
    res = I.InferenceResult(
        model=ev.spec.name,
        hardware=ev.hw.id,
        plan=p,
        batch=batches,  # type: ignore[arg-type]
        gpus=p.devices,
        ttft=r["ttft"],
        tpot=r["tpot"],
        e2e=r["e2e"],
        memory=mem,
        max_batch=0,
        prefill=r["prefill"],
        decode=r["decode"],
        math=ev.math,
        formats=ev.formats,
        price_per_hour=ev.hw.price_per_hour,
        tdp=ev.hw.tdp,
    )
    shape = np.shape(batches)
    out = {
        k: np.broadcast_to(np.asarray(v, dtype=float), shape) if v is not None else np.full(shape, np.nan)
        for k, v in res.metrics().items()
        if k != "max_batch"
    }
    out["fits"] = ~(np.asarray(mem["total"]) > mem["usable"])
    return out


def search_space(
    model: str, hws: list[Hardware], space: InferSpace, advance: Any = None
) -> tuple[list[dict[str, Any]], dict[str, np.ndarray], Counter[str], int]:
    """Evaluate the space; returns (plan per row, metric columns, rejections, plans evaluated)."""
    spec = I.spec_of(model)
    rej: Counter[str] = Counter()
    plans: list[dict[str, Any]] = []
    cols: dict[str, list[np.ndarray]] = {}
    evaluated = 0
    experts = spec.moe.num_experts if spec.moe is not None else 1
    fmts = [(w, a, kv) for w in space.weights for a in space.activations for kv in space.kv_cache]
    batches_all = np.array(sorted(space.batch), dtype=np.int64)
    seen: set[tuple[Any, ...]] = set()
    for hw in hws:
        gpus_list = space.gpus or (hw.node_devices or 1,)
        for g in gpus_list:
            for tp in space.tp or divisors(g):
                for pp in space.pp or divisors(g):
                    for ep in space.ep or (divisors(experts) if spec.moe is not None else [1]):
                        dps = [g // (tp * pp)] if g % (tp * pp) == 0 else []
                        if space.dp is not None:
                            dps = [d for d in dps if d in space.dp]
                        if not dps:  # not a factorization: counted only when the user narrowed the degrees
                            if space.tp is not None or space.pp is not None or space.dp is not None:
                                rej["tp*pp*dp does not equal the GPUs"] += len(fmts) * batches_all.size
                            continue
                        dp = dps[0]
                        for w, a, kv in fmts:
                            n_b = batches_all.size
                            try:
                                plan = I.Plan(
                                    tp=tp,
                                    pp=pp,
                                    dp=dp,
                                    ep=ep,
                                    batch=None,
                                    prompt_len=space.prompt_len,
                                    output_len=space.output_len,
                                    weights=w,
                                    activations=a,
                                    kv_cache=kv,
                                    gpus=g,
                                    gpus_per_node=space.gpus_per_node,
                                )
                                ev = I.Evaluator(spec, hw, plan)
                            except PlanError as e:
                                rej[_reason(str(e))] += n_b
                                continue
                            key = (hw.id, g, tp, pp, ep, dp, ev.formats)
                            if key in seen:  # a default format resolved to one listed explicitly
                                continue
                            seen.add(key)
                            ok = batches_all % dp == 0
                            rej["batch does not divide over dp"] += int((~ok).sum())
                            bs = batches_all[ok]
                            if not bs.size:
                                continue
                            try:
                                out = _metrics_batches(ev, bs)
                            except PlanError as e:
                                rej[_reason(str(e))] += int(bs.size)
                                continue
                            evaluated += int(bs.size)
                            if advance:
                                advance(int(bs.size))
                            wf, af, kf = ev.formats
                            for b in bs:
                                plans.append(
                                    {
                                        "hardware": hw.id,
                                        "gpus": g,
                                        "tp": tp,
                                        "pp": pp,
                                        "dp": dp,
                                        "ep": ep,
                                        "batch": int(b),
                                        "prompt_len": space.prompt_len,
                                        "output_len": space.output_len,
                                        "weights": wf,
                                        "activations": af,
                                        "kv_cache": kf,
                                    }
                                )
                            for k, v in out.items():
                                cols.setdefault(k, []).append(np.asarray(v))
    merged = {k: np.concatenate(v) for k, v in cols.items()}
    return plans, merged, rej, evaluated


def _reason(msg: str) -> str:
    """A rejection reason without the plan's numbers (so that counts aggregate)."""
    low = msg.lower()
    for key, text in (
        ("heads do not divide", "attention heads do not divide by tp"),
        ("kv heads", "KV heads and tp do not divide"),
        ("layers do not divide", "layers do not divide into pp stages"),
        ("experts do not divide", "experts do not divide by ep"),
        ("must span whole tp", "ep must span whole TP groups within dp*tp"),
        ("needs a mixture-of-experts", "ep > 1 needs a MoE model"),
        ("not a supported gemm", "activations narrower than weights"),
        ("fabric", "GPU count does not fit the fabric"),
    ):
        if key in low:
            return text
    if "has no" in low or "compute" in low:
        return "format without a hardware peak"
    return msg.split(";")[0][:80]


def plan_keys(plan: dict[str, Any]) -> dict[str, Any]:
    """The validation README's infer plan keys of a search row (feeds ``llmcost infer --plan``)."""
    return {k: v for k, v in plan.items() if k != "hardware"}


def bottleneck(model: str, hw: Hardware, plan: dict[str, Any]) -> str:
    """Operator kind and bound taking most of the decode step, from the single-plan path."""
    r = I.cost(model, hw, I.plan_from_dict(plan_keys(plan)))
    return I._dominant(r)


__all__ = ["InferSpace", "search_space", "plan_keys", "bottleneck", "Q"]
