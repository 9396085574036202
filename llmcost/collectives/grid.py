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
    return _per_group(size, group, gpn, stride, lambda sz, g, n, st: auto_time(hw, op, sz, g, n, st))


def deduplicated_v(hw: Any, size: Any, group: Any, gpn: Any, top_k: float, node_limit: float) -> np.ndarray:
    """Time of one node-deduplicated MoE dispatch or combine per plan
    (:func:`llmcost.collectives.cost.deduplicated_time`) on the array of sizes (bytes of the rank's
    tokens, each once) of each (group, ranks-per-node) pair; 0 where the group has one rank or nothing
    to send, as :func:`collective_v`."""
    return _per_group(
        size, group, gpn, 1, lambda sz, g, n, _: deduplicated_time(hw, sz, g, n, top_k, node_limit)
    )


def _per_group(size: Any, group: Any, gpn: Any, stride: Any, time_of: Any) -> np.ndarray:
    """``time_of(sizes, group, ranks per node, stride)`` once per distinct (group, ranks-per-node,
    stride) triple on its distinct sizes, spread back over the plans; 0 where the group has one rank
    or nothing to send."""
    size, group, gpn, stride = (np.asarray(x) for x in np.broadcast_arrays(size, group, gpn, stride))
    out = np.zeros(size.shape)
    live = (group >= 2) & (size > 0)
    if not live.any():
        return out
    # sorted distinct triples, as np.unique(axis=1) gives them without importing numpy.ma (issue 14)
    triples = zip(group[live].tolist(), gpn[live].tolist(), stride[live].tolist(), strict=True)
    for g, n, st in sorted(set(triples)):
        mask = live & (group == g) & (gpn == n) & (stride == st)
        sizes, inv = np.unique(size[mask], return_inverse=True)
        out[mask] = np.asarray(time_of(sizes.astype(float), int(g), int(n), int(st)))[inv]
    return out


def group_gpn(gpn: int, group: Any, stride: Any) -> np.ndarray:
    """Ranks of a group (rank stride ``stride``) sharing a node: ``training._group_gpn`` on arrays."""
    group, stride = np.broadcast_arrays(np.asarray(group, dtype=np.int64), np.asarray(stride, dtype=np.int64))
    per = np.maximum(1, gpn // np.maximum(stride, 1))
    return np.where(stride >= gpn, 1, np.gcd(per, group))
