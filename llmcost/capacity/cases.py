"""Validation glue for ``kind: fit`` cases: the fewest devices a model trains (or serves) on under
one memory option, as ``llmcost fit`` finds it. Importing this module registers the evaluator with
:mod:`llmcost.validation.cases` (``llmcost validate`` does; the capacity planner sits above the
search, which validation serves, so validation cannot import it)."""

from __future__ import annotations

from typing import Any

from llmcost.errors import UserError
from llmcost.hardware import Hardware
from llmcost.validation.cases import register_evaluator
from llmcost.validation.prediction import Prediction

METRICS = ("min_devices", "fits_devices")
"""Metrics a fit case may name: ``min_devices``, the fewest devices (a paper's stated minimum);
``fits_devices``, a count the paper trained on: predicted as that count when llmcost's fewest is at
most it (the claim holds), else llmcost's fewest (an error only when llmcost says it does not fit)."""


@register_evaluator("fit")
def evaluate_case(case: dict[str, Any], hw: Hardware) -> Prediction:
    """Validation evaluator for ``kind: fit`` (registered in :mod:`llmcost.validation.cases`): plan keys
    ``mode`` (train, the default, or infer), ``zero`` and ``offload`` (train) or ``weights`` (infer),
    ``max_devices``, and the search keys of the mode (``seq_len``, ``global_batch``, ``precision``;
    ``batch``, ``prompt_len``, ``output_len``)."""
    from llmcost.capacity.run import run_fit
    from llmcost.model.config import spec_of

    name = case["metric"]["name"]
    if name not in METRICS:
        return Prediction(None, f"metric '{name}' is not a fit metric ({', '.join(METRICS)})")
    if "model" not in case:
        raise UserError(f"case {case['id']}: a fit case needs a 'model'")
    keys = dict(case.get("plan") or {})
    mode = str(keys.pop("mode", "train"))
    limit = keys.pop("max_devices", None)
    if mode == "train":
        option: Any = (str(keys.pop("zero", "3")), str(keys.pop("offload", "none")))
    else:
        option = str(keys.pop("weights", "bf16"))
    rep = run_fit(spec_of(case["model"]), hw, mode, None, limit, [option], keys)
    found = rep.options[0]
    if found.min_devices is None:
        return Prediction(None, found.reason or "does not fit")
    n = float(found.min_devices)
    claim = float(case["metric"]["value"])
    value = claim if name == "fits_devices" and n <= claim else n
    return Prediction(value, detail={"fewest": int(n), "plan": _short(found.plan), "memory": found.dominant})


def _short(plan: dict[str, Any] | None) -> str:
    if not plan:
        return "-"
    return " ".join(f"{k}{plan[k]}" for k in ("tp", "pp", "dp") if k in plan)
