"""The figures of a whole training run from one step (runtime: no sympy): time to train,
GPU-hours, total FLOPs, energy and cost, through the generated ``time_to_train``, ``gpu_hours``,
``total_flops``, ``energy_j`` and ``cost_usd`` of :mod:`llmcost.training.formulas`.

The one place for them: ``llmcost train --tokens`` and ``llmcost search train --tokens``
(:func:`llmcost.training.step.evaluate`), ``llmcost budget`` (the run as one step of all its
tokens) and the validation's run metrics. Scalars or arrays of plans alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llmcost.training import _generated as G

GOODPUT = 0.9
"""Default share of a run's wall time that trains: Llama 3 405B pre-training reported "higher
than 90% effective training time" over 466 interruptions in 54 days on 16k H100 (Llama Team
2024, arXiv 2407.21783, §3.3.4); the plan key ``goodput`` replaces it."""


@dataclass(frozen=True)
class RunTotals:
    """A run's figures; None where :func:`run_totals` was not given what one needs."""

    time_to_train_s: Any = None
    gpu_hours: Any = None
    total_flops: Any = None
    energy_j: Any = None
    cost_usd: Any = None


def run_totals(
    train_tokens: Any,
    tokens_step: Any,
    *,
    step_time: Any = None,
    gpus: Any = None,
    flops_step: Any = None,
    power_w: Any = None,
    price_h: Any = None,
    goodput: Any = None,
) -> RunTotals:
    """The figures of a run of ``train_tokens`` tokens in steps of ``tokens_step`` tokens.

    With ``step_time``: time to train, and with ``gpus`` the GPU-hours, energy at ``power_w`` per
    device (TDP: an upper bound) and cost at ``price_h`` per device-hour (None when there is no
    price); with ``flops_step`` (model FLOPs of one step) the total FLOPs. Wall-time figures are
    over ``goodput`` (default :data:`GOODPUT`). A figure per token is a step of one token
    (``tokens_step`` 1)."""
    g = GOODPUT if goodput is None else goodput
    out: dict[str, Any] = {}
    if flops_step is not None:
        out["total_flops"] = G.total_flops(flops_step, tokens_step, train_tokens)
    if step_time is not None:
        out["time_to_train_s"] = G.time_to_train(g, step_time, tokens_step, train_tokens)
        if gpus is not None:
            out["gpu_hours"] = G.gpu_hours(g, gpus, step_time, tokens_step, train_tokens)
            if power_w is not None:
                out["energy_j"] = G.energy_j(g, gpus, power_w, step_time, tokens_step, train_tokens)
            if price_h:
                out["cost_usd"] = G.cost_usd(g, gpus, price_h, step_time, tokens_step, train_tokens)
    return RunTotals(**out)
