"""``llmcost fit``: the fewest devices a model trains or serves on, per memory option.

Training: for each ZeRO mode x offload tier (:data:`OPTIONS`), the smallest device count on
which some plan of the training search fits device memory and its offload tier
(:func:`llmcost.training.step.host_fits`), probed with the plans that need the least memory
(micro-batch 1, full recomputation: :func:`_probe_train`) and then reported with the fastest plan
of the full search at that count. Counts are 1, 2, 4 ... up to a node, then whole nodes: doubled
until one fits, then bisected (memory per device falls as the count grows: ZeRO shards and tensor
/ pipeline splits only ever help). Serving: the same over weight formats, for a batch and context.

With a device count given instead, the longest sequence (training) or context (serving) and the
largest batch that fit on it, each bisected the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from llmcost.errors import UserError
from llmcost.hardware import Hardware

OPTIONS: tuple[tuple[str, str], ...] = (
    ("0", "none"),
    ("distopt", "none"),
    ("1", "none"),
    ("1", "cpu"),
    ("1", "nvme"),
    ("2", "none"),
    ("2", "cpu"),
    ("2", "nvme"),
    ("3", "none"),
    ("3", "cpu"),
    ("3", "nvme"),
    ("3", "cpu+params"),
    ("3", "nvme+params"),
)
"""(ZeRO mode, offload tier) pairs ``fit --train`` reports: offload needs ZeRO, the parameters
only move with ZeRO-3 (:data:`llmcost.training.base.OFFLOAD`)."""

MISSING = "in the catalog"
"""What the message of a refusal for a missing catalog figure says (an option that cannot be
priced on the device is reported with that message, not as not fitting)."""

MAX_DEVICES = 8192
"""Largest count ``fit`` tries unless told (``--max-devices``)."""


@dataclass
class FitOption:
    """One memory option and the fewest devices it fits on (None: not within the limit, ``reason``)."""

    option: dict[str, Any]
    min_devices: int | None
    plan: dict[str, Any] | None = None
    metrics: dict[str, Any] = field(default_factory=dict)
    dominant: str | None = None
    reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out = {**self.option, "min_devices": self.min_devices, "plan": self.plan, "metrics": self.metrics}
        if self.dominant:
            out["dominated_by"] = self.dominant
        if self.reason:
            out["reason"] = self.reason
        return out


def counts(hw: Hardware, limit: int) -> list[int]:
    """Device counts to try: powers of two, and past a node of another size its multiples by powers
    of two (at most ``limit``). Doubling keeps the parallel degrees that divide one count dividing the
    next, so a plan that fits on one count has a counterpart on the next (whole-node multiples in
    between would break that, e.g. tp 16 on 24 GPUs)."""
    node = max(1, hw.node_devices or 1)
    powers = [1 << k for k in range(41) if 1 << k <= limit]
    if node & (node - 1) == 0:
        return powers
    return sorted({c for c in powers if c < node} | {node << k for k in range(41) if node << k <= limit})


def smallest(cands: Sequence[int], fits: Callable[[int], bool]) -> int | None:
    """The smallest of ``cands`` (ascending) where ``fits`` holds, assuming it holds from some
    point on: doubling the index until it does, then bisecting. None when the largest does not."""
    if not cands:
        return None
    hi = 0
    while not fits(cands[hi]):
        if hi == len(cands) - 1:
            return None
        lo, hi = hi, min(len(cands) - 1, 2 * hi + 1)
    lo = -1 if hi == 0 else (hi - 1) // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits(cands[mid]):
            hi = mid
        else:
            lo = mid
    return cands[hi]


def fewest(
    cands: Sequence[int], fits: Callable[[int], bool], opt: dict[str, Any], limit: int
) -> int | FitOption:
    """:func:`smallest` of ``cands`` where ``fits``, or the :class:`FitOption` saying why none does:
    not within ``limit``, or a catalog figure the option needs (:data:`MISSING`; any other error is the
    user's and raised)."""
    from llmcost.errors import PlanError

    try:
        n = smallest(cands, fits)
    except (UserError, PlanError) as e:
        if MISSING not in str(e):
            raise
        return FitOption(opt, None, reason=str(e))  # the device cannot price this option
    return FitOption(opt, None, reason=f"does not fit on {limit} devices or fewer") if n is None else n


def largest(lo: int, hi: int, fits: Callable[[int], bool]) -> int | None:
    """The largest integer in ``[lo, hi]`` where ``fits`` holds (holding below some point), by
    doubling then bisecting; None when ``lo`` does not fit."""
    if not fits(lo):
        return None
    good, step = lo, 1
    while good + step <= hi and fits(good + step):
        good, step = good + step, step * 2
    top = min(hi, good + step)
    while top - good > 1:
        mid = (good + top) // 2
        if fits(mid):
            good = mid
        else:
            top = mid
    return good if top > hi or not fits(top) else top


def dominant(memory: dict[str, float]) -> str:
    """The memory component that takes the most, with its share (``optimizer 62%``)."""
    total = sum(v for v in memory.values() if v > 0) or 1.0
    name, v = max(memory.items(), key=lambda kv: kv[1])
    return f"{name} {100 * v / total:.0f}%"


def check_limit(limit: int | None) -> int:
    """``--max-devices``: a count from 1 to 2^20."""
    from llmcost import checks

    n = MAX_DEVICES if limit is None else checks.finite_int(limit, "--max-devices")
    if n > 1 << 20:
        raise UserError(f"--max-devices {n}: at most {1 << 20} (a million devices)")
    return n


@dataclass
class FitReport:
    """``llmcost fit``: the options and their fewest devices, or what fits on a given count."""

    model: str
    hardware: str
    mode: str  # train | infer
    keys: dict[str, Any]
    options: list[FitOption] = field(default_factory=list)
    on_count: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"model": self.model, "hardware": self.hardware, "mode": self.mode, **self.keys}
        if self.on_count is not None:
            return {**out, **self.on_count}
        return {**out, "options": [o.as_dict() for o in self.options]}
