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
from llmcost.training.pipeline import PARTS, StageTimes, busiest_stage
from llmcost.training.seqdist import Variant, Workload, normal_max, windows_of


@dataclass
class Shape:
    """One micro-batch shape of the plan rows ``rows``: its variant, layer table (configurations
    ``inv`` per row) and busiest stage's times; ``probe``: the pack without attention math."""

    rows: np.ndarray
    variant: Variant
    lt: LayerTable
    inv: np.ndarray
    st: StageTimes
    probe: bool = False


def shapes(
    spec: ModelSpec, hw: Hardware, mdl: ModelLayers, p: Plans, memo: ConfigMemo | None, wl: Workload
) -> list[Shape]:
    """The micro-batch shapes of every row: the rows whose (context-parallel degree, micro-batch) give
    the same shapes are costed together, each shape's layers at once."""
    windows = windows_of(spec)
    first, ginv = key(p.cp, p.mb)
    same: dict[tuple[Variant, ...], list[int]] = {}
    for g, f0 in enumerate(first):
        vs = wl.variants(p.seq, int(p.cp[f0]), int(p.mb[f0]), windows)
        if wl.pack_cv(p.seq, int(p.mb[f0])) > 0:
            vs = (*vs, wl.probe(p.seq, windows))
        same.setdefault(vs, []).append(g)
    out = []
    for vs, groups in same.items():
        rows = np.flatnonzero(np.isin(ginv, groups))
        probe = vs[-1] == wl.probe(p.seq, windows)
        for j, v in enumerate(vs):
            pv = p.variant(rows, v.seq, v.cp, v.shares)
            lt, _, inv = layer_table(spec, hw, mdl, pv, _memo(memo, p, v))
            st, _ = busiest_stage(spec, mdl, lt, inv, pv)
            out.append(Shape(rows, v, lt, inv, st, probe and j == len(vs) - 1))
    return out


def _memo(memo: ConfigMemo | None, p: Plans, v: Variant) -> ConfigMemo | None:
    """The memo a shape's configurations are kept in: the search's own for its uniform shape."""
    if memo is None or (v.seq == p.seq and v.shares is None):
        return memo
    return memo.variant(v.key)


def stage(p: Plans, sh: list[Shape], wl: Workload) -> tuple[StageTimes, np.ndarray]:
    """(The busiest stage's per-micro-batch times over the shapes, stretched by the slowest
    data-parallel rank; the stretch ``seqdist__straggler`` of each row)."""
    acc = {k: np.zeros(p.n) for k in PARTS}
    n_lay = np.zeros(p.n)
    mean, square, bare = np.zeros(p.n), np.zeros(p.n), np.zeros(p.n)
    seen = np.zeros(p.n, dtype=bool)
    for s in sh:
        total = _total(s.st)
        if s.probe:
            bare[s.rows] = total
            continue
        w = s.variant.time
        for k in PARTS:
            acc[k][s.rows] += w * getattr(s.st, k)
        mean[s.rows] += w * total
        square[s.rows] += w * total * total
        n_lay[s.rows] = np.where(seen[s.rows], n_lay[s.rows], s.st.n_lay)
        seen[s.rows] = True
    factor = np.ones(p.n) if wl.balanced() else _stretch(p, wl, mean, square, bare)
    return StageTimes(**{k: v * factor for k, v in acc.items()}, n_lay=n_lay), factor


def _total(st: StageTimes) -> np.ndarray:
    return st.t_f + st.t_b + st.t_rc + st.t_tp + st.t_cp + st.t_ep


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
