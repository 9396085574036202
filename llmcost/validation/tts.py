"""The ``tts`` evaluator of ``llmcost validate``: one published test-time-scaling figure per case."""

from __future__ import annotations

from typing import Any

from llmcost.errors import UserError
from llmcost.hardware import Hardware
from llmcost.tts.query import METRICS, cost, plan_from_dict
from llmcost.validation.prediction import Prediction


def evaluate_case(case: dict[str, Any], hw: Hardware) -> Prediction:
    """Validation evaluator for ``kind: tts`` (registered in :mod:`llmcost.validation.cases`)."""
    name = case["metric"]["name"]
    if name not in METRICS:
        return Prediction(None, f"metric '{name}' is not a tts metric ({', '.join(METRICS)})")
    if "model" not in case:
        raise UserError(f"case {case['id']}: a tts case needs a 'model'")
    plan = plan_from_dict(case.get("tts") or {}, case.get("plan"))
    r = cost(case["model"], hw, plan)
    detail = {"strategy": plan.strategy, "I": round(r.intensity, 1)}
    return Prediction(float(r.metrics()[name]), detail=detail)
