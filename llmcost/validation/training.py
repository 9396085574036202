"""The ``train`` evaluator of ``llmcost validate``: one published training measurement per case.

A case's plan (validation README "plan keys (train)") and cluster become a
:class:`~llmcost.training.plan.TrainPlan`; every metric of the README is produced by
:func:`llmcost.training.plan.evaluate` with the catalog's efficiency figures, the same for
every case. ``total_flops`` uses the model-FLOPs count (matmuls, no recompute) times the run's
tokens. A FLOP metric (:data:`llmcost.training.step.FULL_ATTENTION_METRICS`) is predicted under
the case's attention convention (``metric.attention_flops``, :data:`llmcost.validation.cases.ATTENTION_FLOPS`):
by default the full s² its source counted, ``causal`` for the pairs a causal mask keeps.
"""

from __future__ import annotations

from typing import Any

from llmcost.hardware import Hardware
from llmcost.training.kernel_classes import KERNEL_CLASS_METRICS, step_kernel_times
from llmcost.training.plan import (
    METRICS,
    POWER_CAP_METRICS,
    RUN_METRICS,
    SPEEDUP_METRICS,
    SUBLAYER_METRICS,
    SYNC_METRICS,
)
from llmcost.training.step import FULL_ATTENTION_METRICS
from llmcost.validation.prediction import Prediction

TRAIN_METRICS = (
    *METRICS,
    *SYNC_METRICS,
    *SUBLAYER_METRICS,
    *(m for m in RUN_METRICS if m != "cost_usd"),
    *SPEEDUP_METRICS,
    *POWER_CAP_METRICS,
    *KERNEL_CLASS_METRICS,
)
"""Metrics a train case may name: every per-step metric, DiLoCo's communication reduction, the TP
sublayers' speed-up, the run's (published runs give no price, so no ``cost_usd``), the speedup
over a baseline plan, the power-cap ratios and one kernel class's time in the step."""


def case_spec(case: dict[str, Any]) -> Any:
    """The case's model as a ModelSpec (catalog id or inline config)."""
    from llmcost.catalog import get_model_config
    from llmcost.model.config import from_config

    model = case["model"]
    cfg = model if isinstance(model, dict) else get_model_config(str(model))
    return from_config(cfg, where=f"case {case['id']}: model")


def evaluate_case(case: dict[str, Any], hw: Hardware) -> Prediction:
    """Predict the case's metric (validation README train metric names)."""
    from llmcost import checks
    from llmcost.economics.budget import parse_count
    from llmcost.training.compute import model_flops_per_token
    from llmcost.training.plan import TrainPlan, evaluate, goodput_of, sublayer_rows, sublayer_speedup
    from llmcost.training.run import run_totals
    from llmcost.training.stack import apply as apply_stack

    name = case["metric"]["name"]
    full = case["metric"].get("attention_flops", "full") == "full"
    if name not in TRAIN_METRICS:
        return Prediction(None, f"metric '{name}' is not a train metric ({', '.join(TRAIN_METRICS)})")
    spec = case_spec(case)
    plan_map = dict(case.get("plan") or {})
    tokens = plan_map.pop("tokens", None)
    cluster = case.get("cluster") or {}
    if name == "total_flops":
        if tokens is None:
            return Prediction(None, "total_flops needs plan.tokens")
        seq = checks.finite_int(plan_map.get("seq_len") or spec.max_position_embeddings or 2048, "seq_len")
        fpt = model_flops_per_token(spec, seq, full_attention=full)
        run = run_totals(parse_count(tokens, "plan.tokens"), 1.0, flops_step=fpt)
        return Prediction(run.total_flops, detail={"flops_per_token": fpt})
    if not cluster.get("gpus") and not plan_map.get("dp"):
        return Prediction(None, "the case gives no cluster size")
    if name in SPEEDUP_METRICS:
        return _speedup(case, spec, plan_map, hw)
    choice = apply_stack(case.get("stack"), plan_map, hw)
    plan = TrainPlan.from_mapping(choice.plan, cluster.get("gpus"), cluster.get("gpus_per_node"))
    r = evaluate(spec, plan, choice.hardware)
    metrics = r.metrics() | {k: r.row[k] for k in SYNC_METRICS}
    if name in SUBLAYER_METRICS:  # costed when asked: one layer's sublayers, not the step
        metrics["sublayer_speedup"] = sublayer_speedup(sublayer_rows(spec, plan, choice.hardware))
    if name in KERNEL_CLASS_METRICS:
        times = step_kernel_times(spec, plan, choice.hardware, r)
        if times is None:
            return Prediction(
                None, f"{name} is defined for pp 1 (every layer on one device); the plan has pp {plan.pp}"
            )
        metrics |= times
    if full:  # the source's convention: the full s², the masked half of causal attention credited
        metrics |= {k: r.row[f"{k}_full_attention"] for k in FULL_ATTENTION_METRICS if k in metrics}
    if tokens is not None:
        run = run_totals(
            parse_count(tokens, "plan.tokens"),
            r.tokens_step,
            step_time=r.step_time,
            gpus=r.gpus,
            goodput=goodput_of(plan),
        )
        metrics["time_to_train_s"] = float(run.time_to_train_s)
        metrics["gpu_hours"] = float(run.gpu_hours)
    if name in POWER_CAP_METRICS:
        if plan.power_cap is None:
            return Prediction(None, f"{name} needs plan.power_cap")
        metrics |= _cap_ratios(spec, plan, choice.hardware, r)
    if name not in metrics:
        return Prediction(None, f"metric '{name}' needs plan.tokens")
    fits = r.memory_total <= choice.hardware.memory_usable
    detail = {
        **({} if fits else {"fits": "NO"}),
        "step_time_s": r.step_time,
        "mfu": r.mfu,
        **{k: v for k, v in r.breakdown.items() if v},
        "notes": "; ".join([choice.note, *r.notes]),
    }
    return Prediction(float(metrics[name]), detail=detail)


def _speedup(case: dict[str, Any], spec: Any, plan_map: dict[str, Any], hw: Hardware) -> Prediction:
    """``step_speedup``: the step time of the plan with the keys of ``metric.baseline`` over the plan's."""
    from llmcost.training.plan import TrainPlan, evaluate
    from llmcost.training.stack import apply as apply_stack

    base = case["metric"].get("baseline")
    if not isinstance(base, dict) or not base:
        return Prediction(
            None, "step_speedup needs metric.baseline: the train plan keys that differ in the baseline"
        )
    cluster = case.get("cluster") or {}
    times = []
    for keys in (plan_map, {**plan_map, **base}):
        choice = apply_stack(case.get("stack"), keys, hw)
        plan = TrainPlan.from_mapping(choice.plan, cluster.get("gpus"), cluster.get("gpus_per_node"))
        times.append(evaluate(spec, plan, choice.hardware))
    r, b = times
    detail = {
        "step_time_s": r.step_time,
        "baseline_step_time_s": b.step_time,
        **{f"{k} (baseline)": v for k, v in b.breakdown.items() if v},
        **{k: v for k, v in r.breakdown.items() if v},
        "notes": "; ".join(r.notes),
    }
    return Prediction(b.step_time / r.step_time, detail=detail)


def _cap_ratios(spec: Any, plan: Any, hw: Hardware, capped: Any) -> dict[str, float]:
    """:data:`POWER_CAP_METRICS` of the costed ``capped`` result against ``plan`` at the default limit."""
    from dataclasses import replace

    from llmcost.training.plan import evaluate

    base = evaluate(spec, replace(plan, power_cap=None), hw)

    def joules(r: Any) -> float:
        return r.row["mean_draw_w"] * r.step_time

    return {
        "power_cap_time_ratio": capped.step_time / base.step_time,
        "power_cap_energy_ratio": joules(capped) / joules(base),
    }
