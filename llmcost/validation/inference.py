"""Validation glue for ``kind: infer`` cases: the metrics a case may name and the evaluator
:mod:`llmcost.validation.cases` registers (costing in :mod:`llmcost.inference.serve`)."""

from __future__ import annotations

from typing import Any

from llmcost.errors import UserError
from llmcost.hardware import Hardware
from llmcost.inference.metrics import METRICS
from llmcost.inference.serve import InferenceResult, cost, dominant, plan_from_dict
from llmcost.validation.prediction import Prediction


def evaluate_case(case: dict[str, Any], hw: Hardware) -> Prediction:
    """Validation evaluator for ``kind: infer`` (registered in :mod:`llmcost.validation.cases`)."""
    name = case["metric"]["name"]
    if name not in METRICS:
        return Prediction(None, f"metric '{name}' is not an inference metric ({', '.join(METRICS)})")
    if "model" not in case:
        raise UserError(f"case {case['id']}: an infer case needs a 'model'")
    keys = dict(case.get("plan") or {}) if isinstance(case.get("plan"), dict) else case.get("plan") or {}
    if isinstance(keys, dict) and case.get("stack") is not None:
        keys.setdefault("stack", case["stack"])  # the serving engine's host time (inference/stack.py)
    plan = plan_from_dict(keys, case.get("cluster"))
    r = cost(
        case["model"], hw, plan, check_memory=False
    )  # a published run that "does not fit" is scored, flagged
    fits = r.memory["total"] <= r.memory["usable"]
    detail = {
        "batch": r.batch,
        "bound": _dominant(r),
        "math": "/".join(r.math),
        **({} if fits else {"fits": "NO"}),
    }
    return Prediction(float(r.metrics()[name]), detail=detail)


def _dominant(r: InferenceResult) -> str:
    """Kind of operator taking most of the decode step (or prefill when output_len is 1)."""
    return dominant(r.decode if r.plan.output_len > 1 else r.prefill)
