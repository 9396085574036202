"""The ``network`` evaluator of ``llmcost validate``: a network design's figure for one training plan.

A case is a train case (model, hardware, cluster, plan with its ``network`` key, stack) whose metric
is ``network_cost_ratio`` (the scale-out network's capital cost over a full-bisection fat tree's for
the same GPUs) or ``network_step_time_ratio`` (the plan's step time over its step time on that fat
tree): :func:`llmcost.training.network.network_figures`. Its own kind keeps these cases out of the
speed figures' calibration and the error bands.
"""

from __future__ import annotations

from typing import Any

from llmcost.hardware import Hardware
from llmcost.training.network import NETWORK_METRICS
from llmcost.validation.prediction import Prediction


def evaluate_case(case: dict[str, Any], hw: Hardware) -> Prediction:
    """Predict the case's network metric (validation README)."""
    from llmcost.training.network import network_figures
    from llmcost.training.plan import TrainPlan, evaluate
    from llmcost.training.stack import apply as apply_stack
    from llmcost.validation.training import case_spec

    name = case["metric"]["name"]
    if name not in NETWORK_METRICS:
        return Prediction(None, f"metric '{name}' is not a network metric ({', '.join(NETWORK_METRICS)})")
    cluster = case.get("cluster") or {}
    if not cluster.get("gpus"):
        return Prediction(None, "the case gives no cluster size")
    spec = case_spec(case)
    choice = apply_stack(case.get("stack"), dict(case.get("plan") or {}), hw)
    plan = TrainPlan.from_mapping(choice.plan, cluster.get("gpus"), cluster.get("gpus_per_node"))
    r = evaluate(spec, plan, choice.hardware)
    fig = network_figures(spec, plan, choice.hardware, r)
    if fig[name] is None:
        return Prediction(None, f"{name}: no priced network bill for this hardware and GPU count")
    b = fig["bill"]
    detail = {"step_time_s": r.step_time, "topology": b.topology if b else None, "notes": "; ".join(r.notes)}
    if b is not None:
        detail |= {"switches": b.switches, "tiers": b.tiers, "cost_usd": b.cost_usd}
    return Prediction(float(fig[name]), detail=detail)
