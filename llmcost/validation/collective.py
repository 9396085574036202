"""The ``collective`` evaluator of ``llmcost validate``: nccl-tests style measurements."""

from __future__ import annotations

from typing import Any

from llmcost import checks
from llmcost.collectives.cost import collective
from llmcost.errors import UserError
from llmcost.hardware import Hardware
from llmcost.validation.prediction import Prediction

_COLLECTIVE_METRICS = ("time_s", "busbw_gbps", "algbw_gbps")


def evaluate_case(case: dict[str, Any], hw: Hardware) -> Prediction:
    """nccl-tests style collective: time_s, busbw_gbps or algbw_gbps (GB/s = 1e9 B/s)."""
    spec = case.get("collective")
    if not isinstance(spec, dict):
        raise UserError(f"case {case['id']}: a collective case needs a 'collective' mapping")
    cluster = case.get("cluster") or {}
    name = case["metric"]["name"]
    if name not in _COLLECTIVE_METRICS:
        return Prediction(
            None, f"metric '{name}' is not a collective metric ({', '.join(_COLLECTIVE_METRICS)})"
        )
    try:
        size_v = spec["size_bytes"]
        gpus_v = spec.get("gpus") or cluster["gpus"]
        op = str(spec["op"])
    except (KeyError, TypeError) as e:
        raise UserError(f"case {case['id']}: collective needs op, size_bytes and gpus ({e})") from None
    size = checks.positive_finite(size_v, f"case {case['id']}: collective.size_bytes")
    gpus = checks.finite_int(gpus_v, f"case {case['id']}: collective gpus", 2)
    gpn = spec.get("gpus_per_node", cluster.get("gpus_per_node"))
    if gpn is not None:
        gpn = checks.finite_int(gpn, f"case {case['id']}: gpus_per_node")
    nics = checks.finite_int(spec.get("nics", 1), f"case {case['id']}: collective.nics")
    r = collective(hw, op, size, gpus, gpn, str(spec.get("algorithm") or "auto"), nics=nics)
    value = {"time_s": float(r.time), "busbw_gbps": float(r.busbw) / 1e9, "algbw_gbps": float(r.algbw) / 1e9}[
        name
    ]
    return Prediction(value, detail={"algorithm": str(r.algo)})
