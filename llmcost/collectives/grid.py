"""Collectives on arrays of plans: the one collective costing (:func:`.cost.collective`, fastest
algorithm) evaluated per distinct (group, ranks-per-node) pair, and the ranks of a group that
share a node, for the training step composition and the searches."""

from __future__ import annotations

from typing import Any

import numpy as np

from llmcost.collectives.cost import auto_time, deduplicated_time


def collective_v(hw: Any, op: str, size: Any, group: Any, gpn: Any, stride: Any = 1) -> np.ndarray:
    """Time of one collective per plan: :func:`llmcost.collectives.cost.collective`'s (fastest
    algorithm and protocol: :func:`~llmcost.collectives.cost.auto_time`) evaluated on the array of
    sizes of each (group, ranks-per-node, stride) triple (``stride``: devices between consecutive
    ranks, :func:`~llmcost.collectives.cost.placement`); 0 where the group has one rank or nothing to
    send (as the single-plan path)."""
    size, group, gpn, stride = (np.asarray(x) for x in np.broadcast_arrays(size, group, gpn, stride))
    out = np.zeros(size.shape)
    live = (group >= 2) & (size > 0)
    if not live.any():
        return out
    # sorted distinct triples, as np.unique(axis=1) gives them without importing numpy.ma (issue 14)
    triples = zip(group[live].tolist(), gpn[live].tolist(), stride[live].tolist(), strict=True)
    for g, n, s in sorted(set(triples)):
        mask = live & (group == g) & (gpn == n) & (stride == s)
        sizes, inv = np.unique(size[mask], return_inverse=True)
        out[mask] = np.asarray(auto_time(hw, op, sizes.astype(float), int(g), int(n), int(s)))[inv]
    return out


def deduplicated_v(hw: Any, size: Any, group: Any, gpn: Any, top_k: float, node_limit: float) -> np.ndarray:
    """Time of one node-deduplicated MoE dispatch or combine per plan
    (:func:`llmcost.collectives.cost.deduplicated_time`) on the array of sizes (bytes of the rank's
    tokens, each once) of each (group, ranks-per-node) pair; 0 where the group has one rank or nothing
    to send, as :func:`collective_v`."""
    size, group, gpn = (np.asarray(x) for x in np.broadcast_arrays(size, group, gpn))
    out = np.zeros(size.shape)
    live = (group >= 2) & (size > 0)
    for g, n in sorted(set(zip(group[live].tolist(), gpn[live].tolist(), strict=True))):
        mask = live & (group == g) & (gpn == n)
        sizes, inv = np.unique(size[mask], return_inverse=True)
        t = deduplicated_time(hw, sizes.astype(float), int(g), int(n), top_k, node_limit)
        out[mask] = np.asarray(t)[inv]
    return out


def group_gpn(gpn: int, group: Any, stride: Any) -> np.ndarray:
    """Ranks of a group (rank stride ``stride``) sharing a node: ``training._group_gpn`` on arrays."""
    group, stride = np.broadcast_arrays(np.asarray(group, dtype=np.int64), np.asarray(stride, dtype=np.int64))
    per = np.maximum(1, gpn // np.maximum(stride, 1))
    return np.where(stride >= gpn, 1, np.gcd(per, group))
