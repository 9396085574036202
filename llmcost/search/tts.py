"""``search tts``: sweep model x samples x generation length x strategy within a budget (no sympy).

Every plan goes through :func:`llmcost.tts.query.cost` (one formula per quantity); the graph
primitives and evaluators are prepared once per model. A plan is rejected, with its reason
counted, when it does not fit in memory, its context exceeds the model's
``max_position_embeddings``, it is over the budget, or (with an accuracy table) the table has
no point for its model and length. With an accuracy table the plans are ranked by accuracy
(then cost), the cost-accuracy Pareto front is available, and each (model, length) gets its
TTSPM saturation point (:mod:`llmcost.tts.accuracy`); without one, by generated tokens (the most
test-time compute the budget buys), then cost.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any

from llmcost.errors import PlanError, UserError
from llmcost.hardware import Hardware
from llmcost.search.common import check_size
from llmcost.tts import accuracy as A
from llmcost.tts import query as T

BUDGETS = {"eflops": "eflops_per_query", "usd": "usd_per_query", "seconds": "latency_s"}
SAMPLES = (1, 2, 4, 8, 16, 32, 64)
GEN_LENS = (1024, 2048, 4096, 8192, 16384, 32768)


def _check_request(
    hw: Hardware,
    budget_kind: str,
    budget: float,
    strategies: tuple[str, ...],
    accuracy: A.AccuracyTable | None,
    pareto: bool,
) -> None:
    """UserError for a budget, strategy or option the search cannot run."""
    if budget_kind not in BUDGETS:
        raise UserError(f"budget '{budget_kind}': use one of {', '.join(BUDGETS)}")
    if budget <= 0:
        raise UserError(f"the budget must be positive, got {budget}")
    if budget_kind == "usd" and not hw.price_per_hour:
        raise UserError(
            f"{hw.id} has no price in the catalog; use --budget-eflops or --budget-seconds, "
            "or give a price with a catalog override"
        )
    if pareto and accuracy is None:
        raise UserError("--pareto needs --accuracy FILE (the front is cost against accuracy)")
    for s in strategies:
        if s not in T.STRATEGIES:
            raise UserError(f"strategy '{s}': use {', '.join(T.STRATEGIES)}")


MAX_PLANS = 2**13
"""Most plans a tts search evaluates (8,192: one query each, ~20 s)."""


@dataclass(frozen=True)
class _Grid:
    """The swept dimensions and what a plan is judged by: ``key`` (a metric) at most ``budget``."""

    strategies: tuple[str, ...]
    samples: tuple[int, ...]
    gen_lens: tuple[int, ...]
    key: str
    budget: float
    accuracy: A.AccuracyTable | None

    @property
    def size(self) -> int:
        """Plans per model."""
        return len(self.strategies) * len(self.samples) * len(self.gen_lens)


@dataclass
class _Found:
    """What the sweep accumulates: plans evaluated, rejections by reason, the plans kept."""

    evaluated: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    plans: list[dict[str, Any]] = field(default_factory=list)

    def reject(self, reason: str) -> None:
        self.rejected[reason] = self.rejected.get(reason, 0) + 1


def _judge(
    model: str, hw: Hardware, ctx: T.Context, plan: T.TTSPlan, pt: A.Point | None, grid: _Grid
) -> str | dict[str, Any]:
    """Why ``plan`` is rejected, or its metrics (with its accuracy when there is a table)."""
    max_pos = ctx.spec.max_position_embeddings
    if T.CONTEXT_RULE.broken(ctx.spec, plan):
        return T.CONTEXT_RULE.reason
    if max_pos and T.context_len(plan) > max_pos:  # RoPE etc.: not extrapolated here
        return "context longer than max_position_embeddings"
    if grid.accuracy is not None and pt is None:
        return "no accuracy data for the model and length"
    try:
        r = T.cost(model, hw, plan, ctx)
    except PlanError:
        return "does not fit in memory"
    m = r.metrics()
    if m[grid.key] is None or m[grid.key] > grid.budget:
        return "over budget"
    if pt is not None:
        m["accuracy"] = A.accuracy(plan.strategy, plan.samples, pt)
    return m


def _sweep(model: str, hw: Hardware, base: T.TTSPlan, grid: _Grid, found: _Found) -> None:
    """Every plan of one model, in the order strategy, length, samples."""
    try:
        ctx = T.prepare(model, hw, base)
    except PlanError as e:
        for _ in range(grid.size):
            found.reject(f"{model}: {e}")
        found.evaluated += grid.size
        return
    for strategy in grid.strategies:
        for L in grid.gen_lens:
            pt = grid.accuracy.lookup(model, L, strategy) if grid.accuracy else None
            for N in grid.samples:
                found.evaluated += 1
                plan = replace(base, strategy=strategy, samples=N, gen_len=L)
                m = _judge(model, hw, ctx, plan, pt, grid)
                if isinstance(m, str):
                    found.reject(m)
                    continue
                found.plans.append({"plan": _plan_dict(model, plan), "metrics": m})


def _ranked(
    found: list[dict[str, Any]], key: str, ranked_by_accuracy: bool, pareto: bool, top: int
) -> list[Any]:
    """By accuracy (with a table) or generated tokens, then cost; the Pareto front or the ``top``."""
    if ranked_by_accuracy:
        found.sort(key=lambda e: (-e["metrics"]["accuracy"], e["metrics"][key]))
    else:
        found.sort(key=lambda e: (-e["metrics"]["generated_tokens"], e["metrics"][key]))
    if pareto:
        idx = A.pareto([e["metrics"][key] for e in found], [e["metrics"]["accuracy"] for e in found])
        return [found[i] for i in idx]
    return found[:top]


def search(
    models: list[str],
    hw: Hardware,
    budget_kind: str,
    budget: float,
    base: T.TTSPlan,
    *,
    strategies: tuple[str, ...] = T.STRATEGIES,
    samples: tuple[int, ...] = SAMPLES,
    gen_lens: tuple[int, ...] = GEN_LENS,
    accuracy: A.AccuracyTable | None = None,
    pareto: bool = False,
    epsilon: float = 0.01,
    top: int = 20,
) -> dict[str, Any]:
    """Evaluate the grid; ``{"plans_evaluated", "elapsed_s", "rejected", "plans"[, "saturation"]}``."""
    _check_request(hw, budget_kind, budget, strategies, accuracy, pareto)
    key = BUDGETS[budget_kind]
    t0 = time.perf_counter()
    grid = _Grid(strategies, samples, gen_lens, key, budget, accuracy)
    check_size(len(models) * grid.size, "tts", "--models, --strategies, --samples, --gen-lens", MAX_PLANS)
    found = _Found()
    for model in models:
        _sweep(model, hw, base, grid, found)
    out: dict[str, Any] = {
        "plans_evaluated": found.evaluated,
        "elapsed_s": time.perf_counter() - t0,
        "rejected": found.rejected,
        "plans": _ranked(found.plans, key, accuracy is not None, pareto, top),
    }
    if accuracy is not None:
        out["saturation"] = saturation_points(models, hw, base, accuracy, gen_lens, epsilon, key)
    out["elapsed_s"] = time.perf_counter() - t0
    return out


def _plan_dict(model: str, plan: T.TTSPlan) -> dict[str, Any]:
    d: dict[str, Any] = {
        "model": model,
        "strategy": plan.strategy,
        "samples": plan.samples,
        "gen_len": plan.gen_len,
        "prompt_len": plan.prompt_len,
        "tp": plan.infer.tp,
    }
    if plan.strategy == "beam":
        d |= {
            "beam_width": min(plan.beam_width, plan.samples),
            "beam_step": min(plan.beam_step, plan.gen_len),
        }
    if plan.sparse:
        d["sparse_attention"] = {
            "topk": plan.sparse.topk,
            "block": plan.sparse.block,
            "local": plan.sparse.local,
        }
    if plan.verifier:
        d["verifier"] = plan.verifier
    return d


def saturation_points(
    models: list[str],
    hw: Hardware,
    base: T.TTSPlan,
    accuracy: A.AccuracyTable,
    gen_lens: tuple[int, ...],
    epsilon: float,
    key: str,
) -> list[dict[str, Any]]:
    """TTSPM N* per (model, length) with the cost of Best-of-N* (parallel) and N* rounds (sequential)."""
    out = []
    for model in models:
        for L in gen_lens:
            pt = accuracy.lookup(model, L, "best_of_n")
            if pt is None:
                continue
            n = A.saturation(pt.p, pt.f_max, epsilon)
            row: dict[str, Any] = {
                "model": model,
                "gen_len": L,
                "p": pt.p,
                "f_max": pt.f_max,
                "epsilon": epsilon,
                "n_star": n,
                "accuracy_at_n_star": float(A.pass_at_n(float(n), pt.p, pt.f_max)),
            }
            for strategy in ("best_of_n", "sequential"):
                cost = None
                if n >= 1:
                    try:
                        r = T.cost(model, hw, replace(base, strategy=strategy, samples=n, gen_len=L))
                        cost = r.metrics()[key]
                    except PlanError:
                        cost = None
                row[f"{key}_{strategy}"] = cost
            out.append(row)
    return out
