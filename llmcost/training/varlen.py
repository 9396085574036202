"""Stages 1-2 of a training step under a sequence-length distribution (plan ``seq_len_dist``,
:mod:`llmcost.training.seqdist`; runtime: no sympy).

The step's micro-batches take several shapes (:class:`~llmcost.training.seqdist.Variant`): one
packed shape with a document mask, the lengths a padded micro-batch can take, or with dynamic CP one
shape per context-parallel degree. Each shape's layers are costed as a uniform step's are
(:func:`llmcost.training.layers.layer_table`, its own memo per shape) and its busiest pipeline stage
found; the step's per-micro-batch times are the shapes' mean weighted by their share of the
micro-batch slots. Without a scheduler that balances the data-parallel ranks, the slowest rank's
micro-batches set the step: the mean is stretched by ``seqdist__straggler``, from the spread of the
micro-batch time (over the padded lengths, and over the packs' attention pairs, ``seqdist__pack_cv``,
the pack's attention time read against a pack with no attention math).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from llmcost.hardware import Hardware
from llmcost.model.spec import ModelSpec
from llmcost.training import _generated as G
from llmcost.training.columns import Plans, key
from llmcost.training.layers import ConfigMemo, LayerTable, ModelLayers, layer_table
from llmcost.training.pipeline import HBM_PARTS, IO_HBM, PARTS, StageTimes, busiest_stage, stage_total
from llmcost.training.seqdist import Variant, Workload, normal_max, windows_of


@dataclass
class Shape:
    """One micro-batch shape of the plan rows ``rows``: its variant (sequence length, CP degree,
    attention shares), each row's ``time`` and ``flops`` weight (its share of that row's micro-batch
    slots and useful FLOPs), its layer table (configurations ``inv`` per row) and busiest stage's
    times; ``probe``: the pack without attention math."""

    rows: np.ndarray
    variant: Variant
    time: np.ndarray
    flops: np.ndarray
    lt: LayerTable
    inv: np.ndarray
    st: StageTimes
    probe: bool = False


def _rows_by_shape(
    spec: ModelSpec, p: Plans, wl: Workload
) -> list[tuple[Variant, np.ndarray, np.ndarray, np.ndarray]]:
    """Each distinct micro-batch shape of the rows ``p`` (sequence, CP degree, shares) with the rows
    that take it and their time and FLOP weights; the shapes of every (CP degree, micro-batch) group
    (and the pack without attention math where the packs' spread is costed), in one order for all
    rows: the probe last, then by sequence length and CP degree."""
    windows = windows_of(spec)
    bare = wl.probe(p.seq, windows)
    first, ginv = key(p.cp, p.mb)
    found: dict[Any, tuple[Variant, list[np.ndarray], list[float], list[float]]] = {}
    for g, f0 in enumerate(first):
        vs = wl.variants(p.seq, int(p.cp[f0]), int(p.mb[f0]), windows)
        if wl.pack_cv(p.seq, int(p.mb[f0])) > 0:
            vs = (*vs, bare)
        rows = np.flatnonzero(ginv == g)
        for v in vs:
            entry = found.setdefault((v.seq, v.cp, v.shares), (v, [], [], []))
            entry[1].append(rows)
            entry[2].append(v.time)
            entry[3].append(v.flops)
    out = []
    for k in sorted(found, key=lambda k: (found[k][0] == bare, k[0], k[1] or 0)):
        v, rows, time, flops = found[k]
        n = [r.size for r in rows]
        out.append((v, np.concatenate(rows), np.repeat(time, n), np.repeat(flops, n)))
    return out


def shapes(
    spec: ModelSpec, hw: Hardware, mdl: ModelLayers, p: Plans, memo: ConfigMemo | None, wl: Workload
) -> list[Shape]:
    """The micro-batch shapes of every row, each costed once over all the rows that take it."""
    out = []
    bare = wl.probe(p.seq, windows_of(spec))
    for v, rows, time, flops in _rows_by_shape(spec, p, wl):
        pv = p.variant(rows, v.seq, v.cp, v.shares)
        lt, _, inv = layer_table(spec, hw, mdl, pv, _memo(memo, p, v))
        st, _ = busiest_stage(spec, mdl, lt, inv, pv)
        out.append(Shape(rows, v, time, flops, lt, inv, st, v == bare))
    return out


def prefill(
    spec: ModelSpec, hw: Hardware, mdl: ModelLayers, p: Plans, memo: ConfigMemo, wl: Workload
) -> None:
    """Cost every micro-batch shape's configurations of the rows ``p`` (one per configuration) into
    ``memo``'s shape memos, as a search prefills its own (:meth:`llmcost.training.layers.ConfigMemo.prefill`)."""
    for v, rows, _, _ in _rows_by_shape(spec, p, wl):
        m = _memo(memo, p, v)
        if m is not None and m is not memo:
            m.prefill(spec, hw, mdl, p.variant(rows, v.seq, v.cp, v.shares))


def _memo(memo: ConfigMemo | None, p: Plans, v: Variant) -> ConfigMemo | None:
    """The memo a shape's configurations are kept in: the search's own for its uniform shape."""
    if memo is None or (v.seq == p.seq and v.shares is None):
        return memo
    return memo.variant(v.key)


def stage(p: Plans, sh: list[Shape], wl: Workload) -> tuple[StageTimes, np.ndarray]:
    """(The busiest stage's per-micro-batch times over the shapes, stretched by the slowest
    data-parallel rank; the stretch ``seqdist__straggler`` of each row)."""
    acc = {k: np.zeros(p.n) for k in (*PARTS, *HBM_PARTS, *IO_HBM)}
    n_lay = np.zeros(p.n)
    mean, square, bare = np.zeros(p.n), np.zeros(p.n), np.zeros(p.n)
    paced = np.zeros(p.n)  # the other stages' time, for the bubble's pace r_bub
    seen = np.zeros(p.n, dtype=bool)
    for s in sh:
        total = _total(s.st)
        if s.probe:
            bare[s.rows] = total
            continue
        w = s.time
        for k in (*PARTS, *HBM_PARTS, *IO_HBM):
            acc[k][s.rows] += w * getattr(s.st, k)
        mean[s.rows] += w * total
        paced[s.rows] += w * total * s.st.r_bub
        square[s.rows] += w * total * total
        n_lay[s.rows] = np.where(seen[s.rows], n_lay[s.rows], s.st.n_lay)
        seen[s.rows] = True
    factor = np.ones(p.n) if wl.balanced() else _stretch(p, wl, mean, square, bare)
    r_bub = np.where(mean > 0, paced / np.where(mean > 0, mean, 1.0), 1.0)
    return StageTimes(**{k: v * factor for k, v in acc.items()}, n_lay=n_lay, r_bub=r_bub), factor


def _total(st: StageTimes) -> np.ndarray:
    return stage_total([getattr(st, k) for k in PARTS])


def _stretch(p: Plans, wl: Workload, mean: np.ndarray, square: np.ndarray, bare: np.ndarray) -> np.ndarray:
    """``seqdist__straggler`` of each row: the spread over the shapes and, for packs, of their
    attention pairs (the attention's share of the pack's time × ``seqdist__pack_cv``)."""
    mix = np.sqrt(np.maximum(square - mean * mean, 0.0)) / mean
    pack_cv = _per_value(p.mb, lambda b: wl.pack_cv(p.seq, b))
    attn = np.where(bare > 0, np.maximum(mean - bare, 0.0) / mean, 0.0)
    cv = np.sqrt(mix * mix + (attn * pack_cv) ** 2)
    z = _per_value(p.dp, normal_max)
    fn, names, _ = G.FUNCTIONS["seqdist__straggler"]
    args: dict[str, Any] = {"cv_mb": cv, "n_micro": p.m.astype(float), "z_dp": z}
    return np.asarray(fn(*(args[k] for k in names)), dtype=float)


def _per_value(col: np.ndarray, fn: Any) -> np.ndarray:
    """``fn`` of each row's value of the integer column ``col``, computed once per distinct value."""
    values, inv = np.unique(col, return_inverse=True)
    return np.array([float(fn(int(v))) for v in values])[inv.reshape(-1)]
