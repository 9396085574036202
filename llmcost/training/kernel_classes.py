"""A training step's device time by kernel class, as a profiler's kernel table sums it.

``gemm_time_s``: every matmul (:data:`~llmcost.training.operator.MATMUL_KINDS`: the layers' GEMMs,
the router, the experts, the LM head); ``attention_time_s``: the attention kernels (a fused
FlashAttention-class kernel, or a materialized attention's operators); ``elementwise_time_s``: every
other operator of the forward, backward and recomputation (norms, activations, rotary, residual adds,
dropout, casts, the loss, the embedding); ``optimizer_time_s``: the optimizer step. Each is the sum
over one step on one device of the per-operator times :func:`llmcost.training.plan.operator_breakdown`
gives (forward + backward + recomputation, times the layers of that shape and the micro-batches
per step), exposed communication and pipeline bubbles apart; what the board power limit adds
(``power_limit``: compute-bound work at the sustained clock) goes to the GEMMs and attention, the
compute-bound classes, in proportion to their time.

They exist to test the model's parts against a measured kernel profile, not only its sum: the step
time can be right while its GEMMs are priced too slow and its elementwise passes too fast
(``hardware/measured/README.md``). Defined for a plan without pipeline parallelism (every layer and
the embedding, head and loss on one device).
"""

from __future__ import annotations

from typing import Any

from llmcost.training.operator import MATMUL_KINDS

KERNEL_CLASS_METRICS = ("gemm_time_s", "attention_time_s", "elementwise_time_s", "optimizer_time_s")
"""The per-class device times of one step on one device (module docstring)."""


def kernel_class(kind: str) -> str:
    """The class of an operator kind: ``gemm``, ``attention`` or ``elementwise``."""
    if kind in MATMUL_KINDS:
        return "gemm"
    return "attention" if kind == "attention" else "elementwise"


def kernel_class_times(
    rows: list[dict[str, Any]], micro_batches: float, optimizer_s: float, throttle_s: float = 0.0
) -> dict[str, float]:
    """:data:`KERNEL_CLASS_METRICS` from :func:`llmcost.training.plan.operator_rows` of a ``pp = 1`` plan
    (one micro-batch through every layer), ``micro_batches`` per step, the step's optimizer time and
    what the power limit adds to it (``throttle_s``, shared by the GEMMs and attention)."""
    out = dict.fromkeys(KERNEL_CLASS_METRICS, 0.0)
    for r in rows:
        if r["phase"] in ("forward", "backward"):
            key = f"{kernel_class(r['kind'])}_time_s"
            out[key] += (r["time_s"] + r["recompute_s"]) * r["layers"] * micro_batches
    bound = out["gemm_time_s"] + out["attention_time_s"]
    if throttle_s > 0.0 and bound > 0.0:
        for key in ("gemm_time_s", "attention_time_s"):
            out[key] += throttle_s * out[key] / bound
    out["optimizer_time_s"] = float(optimizer_s)
    return out


def step_kernel_times(spec: Any, plan: Any, hw: Any, result: Any) -> dict[str, float] | None:
    """:data:`KERNEL_CLASS_METRICS` of ``plan`` costed as ``result`` (:func:`llmcost.training.plan.evaluate`),
    from its operator rows (what ``train --breakdown`` prints); None with pipeline parallelism. What
    ``TrainReport.kernel_times`` and the validation metrics both read."""
    from llmcost.training.plan import operator_breakdown, operator_rows

    if plan.pp != 1:
        return None
    rows = operator_rows(operator_breakdown(spec, plan, hw))
    br = result.breakdown
    return kernel_class_times(
        rows, result.row["n_micro"], br.get("optimizer", 0.0), br.get("power_limit", 0.0)
    )
