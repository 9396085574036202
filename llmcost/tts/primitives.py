"""Per-token primitives of a model for test-time scaling, read off the operator graph (no sympy).

FLOPs per generated token without attention over the context (``f_tok``), attention FLOPs per
(query, key) pair (``f_pair``), KV bytes per cached position (``k_pos``), activation bytes per
token (``a_tok``) and weight bytes per decode step (``w_step``) are the generated inference
functions of the operator graph (:mod:`llmcost.graph._generated`, through
:func:`llmcost.inference.evaluator.shape_function`) evaluated at chosen contexts: ``f_pair`` is the
attention FLOPs at context 1 minus context 0, ``a_tok`` the bytes with weights at 0 bytes, ``w_step``
the bytes with weights minus without. Whole model on one device (tp = 1) unless ``_dev``
(the plan's tp). :mod:`llmcost.tts.formulas` sums them over a strategy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from llmcost.inference.evaluator import Evaluator, shape_function

FLOPS, HBM = 0, 1
"""Quantity index of an operator's FLOPs and HBM bytes in a generated layer function."""
ATTENTION = ("attention",)


@dataclass(frozen=True)
class GroupPrims:
    """One attention layer group: its count, window, and per-position figures (all its layers)."""

    name: str
    shape: str
    count: int
    window: float
    f_pair: float  # attention FLOPs per (query, key) pair, whole model (tp = 1)
    k_pos: float  # KV bytes per position, whole model
    f_pair_dev: float  # the same per device at the plan's tp
    k_pos_dev: float


def shape_values(
    shape: str, vals: dict[str, Any], window: float, **workload: Any
) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The generated function of ``shape`` at ``vals`` and ``workload``, and its layout."""
    fn, names, layout = shape_function(shape)
    v = dict(vals, window=window, **workload)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return fn(*(v[n] for n in names)), layout


def quantity_sum(
    shape: str,
    vals: dict[str, Any],
    window: float,
    q: int,
    *,
    kinds: tuple[str, ...] | None = None,
    **workload: Any,
) -> Any:
    """Σ over the operators of one layer/io shape (of ``kinds``, else all but collectives) of
    quantity index ``q`` (:data:`FLOPS` or :data:`HBM`)."""
    out, layout = shape_values(shape, vals, window, **workload)
    return sum(
        out[5 * i + q]
        for i, op in enumerate(layout)
        if op[1] != "collective" and (kinds is None or op[1] in kinds)
    )


def window_of(w: int | None) -> float:
    """Numeric window of a layer group (∞ for full attention)."""
    return math.inf if w is None else float(w)


@dataclass
class Prims:
    """Per-token primitives of a model read off the graph (tp = 1 unless ``_dev``)."""

    groups: list[GroupPrims]
    f_tok: float
    a_tok: float
    vals1: dict[str, Any]

    def w_step(self, spec: Any, batch: Any) -> Any:
        """Weight bytes one decode step of ``batch`` sequences reads (MoE: touched experts)."""
        from llmcost.graph.ops import layer_groups

        total: Any = 0.0
        zero = dict(self.vals1, b_w=0.0)
        for g in layer_groups(spec, "decode"):
            w = window_of(g.window)
            total = total + g.count * (
                quantity_sum(g.shape, self.vals1, w, HBM, micro_batch=batch, ctx=0.0)
                - quantity_sum(g.shape, zero, w, HBM, micro_batch=batch, ctx=0.0)
            )
        io = quantity_sum("io__decode__last", self.vals1, math.inf, HBM, micro_batch=batch, ctx=0.0)
        return total + io - quantity_sum("io__decode__last", zero, math.inf, HBM, micro_batch=batch, ctx=0.0)


def _group_prims(g: Any, v1: dict[str, Any], vd: dict[str, Any]) -> GroupPrims:
    """Per-position figures of layer group ``g``: whole model (``v1``, tp = 1) and per device (``vd``)."""
    one = {"micro_batch": 1.0}
    f0 = quantity_sum(g.shape, v1, math.inf, FLOPS, kinds=ATTENTION, ctx=0.0, **one)
    f1 = quantity_sum(g.shape, v1, math.inf, FLOPS, kinds=ATTENTION, ctx=1.0, **one)
    fd0 = quantity_sum(g.shape, vd, math.inf, FLOPS, kinds=ATTENTION, ctx=0.0, **one)
    fd1 = quantity_sum(g.shape, vd, math.inf, FLOPS, kinds=ATTENTION, ctx=1.0, **one)
    kv1 = shape_values(g.shape, v1, math.inf, ctx=1.0, **one)[0][-1]
    kvd = shape_values(g.shape, vd, math.inf, ctx=1.0, **one)[0][-1]
    return GroupPrims(
        name=g.name,
        shape=g.shape,
        count=g.count,
        window=window_of(g.window),
        f_pair=g.count * float(f1 - f0),
        k_pos=g.count * float(kv1),
        f_pair_dev=g.count * float(fd1 - fd0),
        k_pos_dev=g.count * float(kvd),
    )


def primitives(spec: Any, ev1: Evaluator, ev: Evaluator) -> Prims:
    """Read the per-token figures off the generated decode functions (``ev1``: tp = 1)."""
    from llmcost.graph.ops import layer_groups

    groups, f_tok, a_tok = [], 0.0, 0.0
    v1 = ev1.vals
    zero = dict(v1, b_w=0.0)
    for g in layer_groups(spec, "decode"):
        groups.append(_group_prims(g, v1, ev.vals))
        w = window_of(g.window)
        f_tok += g.count * float(quantity_sum(g.shape, v1, w, FLOPS, micro_batch=1.0, ctx=0.0))
        a_tok += g.count * float(quantity_sum(g.shape, zero, w, HBM, micro_batch=1.0, ctx=0.0))
    f_tok += float(quantity_sum("io__decode__last", v1, math.inf, FLOPS, micro_batch=1.0, ctx=0.0))
    a_tok += float(quantity_sum("io__decode__last", zero, math.inf, HBM, micro_batch=1.0, ctx=0.0))
    return Prims(groups, f_tok, a_tok, v1)


def prefill_totals(spec: Any, vals: dict[str, Any], batch: float, seq: float) -> tuple[float, float]:
    """(FLOPs, HBM bytes) of a prefill of ``batch`` x ``seq`` tokens on one device (graph)."""
    from llmcost.graph.ops import layer_groups

    if seq <= 0:
        return 0.0, 0.0
    fl = by = 0.0
    work = {"micro_batch": batch, "seq": seq, "ctx": seq}
    for g in layer_groups(spec, "forward"):
        fl += g.count * float(quantity_sum(g.shape, vals, window_of(g.window), FLOPS, **work))
        by += g.count * float(quantity_sum(g.shape, vals, window_of(g.window), HBM, **work))
    fl += float(quantity_sum("io__forward__last", vals, math.inf, FLOPS, **work))
    by += float(quantity_sum("io__forward__last", vals, math.inf, HBM, **work))
    return fl, by
