"""A training plan's scale-out network: its bill of materials and cost
(:func:`llmcost.economics.network.bill`), that cost over a full-bisection fat tree's for the same
devices (``network_cost_ratio``), and the plan's step time over its step time on that fat tree
(``network_step_time_ratio``): what a network design costs and what it takes from the step (Wang et al.,
"Rail-only", arXiv 2307.12169: the rail-only network keeps the step time of LLM training and cuts the
network's cost). ``llmcost train`` and validation cases read these; searches report the bill alone.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from llmcost.hardware import Hardware
from llmcost.model.spec import ModelSpec
from llmcost.training.plan import TrainPlan, TrainResult, evaluate

NETWORK_METRICS = ("network_cost_ratio", "network_step_time_ratio")
"""Validation metrics of a network design: its cost over a full-bisection fat tree's for the same
devices, and the plan's step time over its step time on that fat tree (validation README)."""
REFERENCE = "fat_tree"


def network_figures(spec: ModelSpec, plan: TrainPlan, hw: Hardware, result: TrainResult) -> dict[str, Any]:
    """``{"bill": NetworkBill | None, "network_cost_ratio", "network_step_time_ratio"}`` of ``plan``
    (costed as ``result`` on ``hw``). The step-time ratio re-costs the plan on the fat tree only where
    a tier is rail-only: a fat tree and a rail-optimized one are priced by the same formulas (ratio 1)."""
    from llmcost.economics.network import bill

    net = hw.with_network(plan.network)
    b = bill(net, plan.gpus, price_h=hw.price_per_hour)
    ref = bill(net, plan.gpus, REFERENCE)
    cost_ratio = None
    if b is not None and ref is not None and b.cost_usd is not None and ref.cost_usd:
        cost_ratio = b.cost_usd / ref.cost_usd
    step_ratio = 1.0
    if any(t.topology == "rail_only" for t in net.network_tiers()):
        base = evaluate(spec, replace(plan, network=REFERENCE), hw)
        step_ratio = result.step_time / base.step_time
    return {"bill": b, "network_cost_ratio": cost_ratio, "network_step_time_ratio": step_ratio}


def network_dict(figures: dict[str, Any]) -> dict[str, Any] | None:
    """The ``network`` block of ``llmcost train --format json``: the bill and the two ratios (None
    when the plan needs no billed network: one scale-up domain, or no part set for its NICs)."""
    b = figures["bill"]
    if b is None:
        return None
    return {
        **b.as_dict(),
        "network_cost_ratio": figures["network_cost_ratio"],
        "network_step_time_ratio": figures["network_step_time_ratio"],
    }
