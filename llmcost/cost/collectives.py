"""Collective communication time over the fabric tiers of a cluster (runtime path: no sympy).

Operations: all_reduce, reduce_scatter, all_gather, broadcast, all_to_all, send_recv.
Algorithms (the formulas and their sources are the docstrings of
:mod:`llmcost.cost.collective_formulas`, the sympy source of truth):

============  ===========================================================================
op            algorithms
============  ===========================================================================
all_reduce    ring, tree (double binary tree), recursive_doubling, rabenseifner
              (recursive halving-doubling), hierarchical (2/3-level), in_network (NVLS/SHARP)
reduce_scat.  ring, recursive_halving, hierarchical
all_gather    ring, recursive_doubling, hierarchical
broadcast     ring (pipelined), tree (binomial)
all_to_all    direct, pairwise, hierarchical (DeepSpeed-MoE / Tutel 2DH)
send_recv     direct
============  ===========================================================================

``auto`` picks the fastest modelled algorithm for each size (NCCL likewise picks by its own
cost model, src/graph/tuning.cc). Sizes follow nccl-tests: ``size`` is the full buffer per
rank; ``algbw = size / time`` and ``busbw = algbw × factor(op, n)`` with the factors of
nccl-tests doc/PERFORMANCE.md ([NT-perf]): all_reduce 2(n-1)/n, reduce_scatter / all_gather /
all_to_all (n-1)/n, broadcast and send_recv 1.

Placement (which tier each rank pair crosses): ranks are packed, ``gpus_per_node`` per host
(default: as many as the host holds), hosts contiguous; a group of ``r`` ranks fits in one
domain of a tier of ``D`` devices when ``r <= D``. Tiers a group does not spread over are
dropped, so 4 ranks with one per host form a single network level.

Evaluation uses :mod:`llmcost.cost._collectives_generated` (numpy code printed from the sympy
expressions; ``python -m llmcost.cost.collective_formulas`` regenerates it and a test pins it);
a shape not pre-generated is lambdified once per process through
:func:`llmcost.symbolic.compile.compile_expr`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from llmcost.errors import PlanError, UserError
from llmcost.hardware import FabricTier, Hardware

OPS = ("all_reduce", "reduce_scatter", "all_gather", "broadcast", "all_to_all", "send_recv")
ALGORITHMS: dict[str, tuple[str, ...]] = {
    "all_reduce": ("ring", "tree", "recursive_doubling", "rabenseifner", "hierarchical", "in_network"),
    "reduce_scatter": ("ring", "recursive_halving", "hierarchical"),
    "all_gather": ("ring", "recursive_doubling", "hierarchical"),
    "broadcast": ("ring", "tree"),
    "all_to_all": ("direct", "pairwise", "hierarchical"),
    "send_recv": ("direct",),
}
TOPOLOGY_KINDS = ("switch", "mesh", "torus")

OP_ALIASES = {
    "allreduce": "all_reduce",
    "all-reduce": "all_reduce",
    "ar": "all_reduce",
    "reducescatter": "reduce_scatter",
    "reduce-scatter": "reduce_scatter",
    "rs": "reduce_scatter",
    "allgather": "all_gather",
    "all-gather": "all_gather",
    "ag": "all_gather",
    "bcast": "broadcast",
    "alltoall": "all_to_all",
    "all-to-all": "all_to_all",
    "a2a": "all_to_all",
    "sendrecv": "send_recv",
    "send-recv": "send_recv",
    "p2p": "send_recv",
}
ALGO_ALIASES = {
    "nvls": "in_network",
    "sharp": "in_network",
    "nvls_tree": "in_network",
    "collnet": "in_network",
    "in-network": "in_network",
    "double_binary_tree": "tree",
    "dbt": "tree",
    "binomial": "tree",
    "halving_doubling": "rabenseifner",
    "recursive_halving_doubling": "rabenseifner",
    "rhd": "rabenseifner",
    "rd": "recursive_doubling",
    "rh": "recursive_halving",
    "2d": "hierarchical",
    "hier": "hierarchical",
}

# --- algorithm constants (software, not hardware) ------------------------------------------------
T0 = 8.4e-6
"""Per-collective software latency: NCCL baseLat Ring/Tree Simple = 8.4 us (src/graph/tuning.cc)."""
KAPPA_TREE = 0.92
"""Tree all-reduce busBW factor: NCCL tuning.cc ``min(0.92·busBW, ...)`` (formulas.md §2.3)."""
KAPPA_INR = {"hopper": 0.85, "blackwell": 0.74}
"""NVLS efficiency relative to ring: NCCL tuning.cc nvlsEfficiency (Hopper 0.85, Blackwell 0.74)."""
P2P_NET_BYTES = 2 * 128 * 1024
"""p2p bytes in flight per peer per network step: NCCL_NCHANNELS_PER_NET_PEER 2 (NVIDIA/nccl #1189
log) × NCCL_P2P_NET_CHUNKSIZE 128 KiB (NCCL env docs, since 2.14)."""

_NET_TOPOLOGIES = ("fat_tree", "rail_fat_tree")


def busbw_factor(op: str, n: int | float) -> float:
    """nccl-tests bus-bandwidth factor of ``op`` on ``n`` ranks (doc/PERFORMANCE.md)."""
    if op == "all_reduce":
        return 2 * (n - 1) / n
    if op in ("reduce_scatter", "all_gather", "all_to_all"):
        return (n - 1) / n
    return 1.0


def normalize_op(op: str) -> str:
    """Canonical op name; UserError listing the ops otherwise."""
    key = op.strip().lower().replace(" ", "_")
    key = OP_ALIASES.get(key, key)
    if key not in OPS:
        from llmcost.errors import did_you_mean

        raise UserError(f"unknown collective '{op}'{did_you_mean(op, OPS)}")
    return key


def normalize_algo(op: str, algo: str) -> str:
    """Canonical algorithm name for ``op`` ('auto' allowed)."""
    key = algo.strip().lower().replace("-", "_")
    key = ALGO_ALIASES.get(key, key)
    if key == "auto":
        return key
    if key not in ALGORITHMS[op]:
        raise UserError(f"{op} has no algorithm '{algo}'; choose auto, " + ", ".join(ALGORITHMS[op]))
    return key


@dataclass(frozen=True)
class Shape:
    """What selects an expression: op, algorithm, topology kind per level, in-network flags."""

    op: str
    algo: str
    topos: tuple[str, ...]
    inr: tuple[bool, ...] = ()

    @property
    def name(self) -> str:
        base = f"{self.op}__{self.algo}__{'_'.join(self.topos)}"
        if self.algo == "in_network":
            base += "__inr" + "".join("1" if f else "0" for f in self.inr)
        return base


@dataclass(frozen=True)
class Level:
    """One fabric level a group spreads over: ``d`` ranks per domain of ``tier``."""

    tier: FabricTier
    d: float

    @property
    def kind(self) -> str:
        """Topology kind that selects the formula: switch, mesh or torus."""
        t = self.tier.topology
        return "mesh" if t == "mesh" else "torus" if t in ("torus", "ring") else "switch"

    @property
    def network(self) -> bool:
        """True for a NIC tier (p2p goes through NCCL's network proxy chunk pipeline)."""
        return self.tier.devices is None or self.tier.topology in _NET_TOPOLOGIES

    @property
    def in_network(self) -> bool:
        return self.tier.in_network_reduction and self.kind == "switch"


def placement(hw: Hardware, gpus: int, gpus_per_node: int | None = None) -> tuple[Level, ...]:
    """Levels a group of ``gpus`` ranks spans, innermost first (levels with one rank dropped)."""
    if isinstance(gpus, bool) or not isinstance(gpus, int) or gpus < 2:
        raise PlanError(f"a collective needs at least 2 GPUs, got {gpus!r}")
    node = max(hw.node_devices, 1)
    g = gpus_per_node if gpus_per_node is not None else min(gpus, node)
    if isinstance(g, bool) or not isinstance(g, int) or g < 1:
        raise PlanError(f"--gpus-per-node must be a positive integer, got {g!r}")
    g = min(g, gpus)
    inner = hw.fabric[0].devices or gpus
    if g > max(node, inner):
        raise PlanError(
            f"--gpus-per-node {g} exceeds {hw.id}'s host of {node} and its '{hw.fabric[0].key}' domain of {inner}; "
            f"use at most {max(node, inner)}, or a system entry with a larger domain"
        )
    if gpus % g:
        fits = [k for k in range(max(node, inner), 0, -1) if gpus % k == 0][:2]
        raise PlanError(
            f"{gpus} GPUs do not divide into nodes of {g}; set --gpus-per-node to a divisor of {gpus}, "
            f"e.g. {' or '.join(map(str, fits))}"
        )
    node = max(node, g)
    levels: list[Level] = []
    below = 1
    for tier in hw.fabric:
        cap = tier.devices
        if cap is None:
            r = gpus
        elif cap <= node:
            r = min(g, cap)
        else:
            r = min(gpus, g * (cap // node))
        r = max(r, below)
        if r % below:
            raise PlanError(
                f"{hw.id}: {gpus} GPUs do not fill whole '{tier.key}' groups of {below}; "
                f"use a multiple of {below} (or at most {below})"
            )
        if r > below:
            levels.append(Level(tier, r / below))
            below = r
        if below >= gpus:
            break
    if below < gpus:
        raise PlanError(f"{hw.id}: {gpus} GPUs exceed its outermost fabric tier '{hw.fabric[-1].key}'")
    return tuple(levels)


def _torus_dims(tier: FabricTier, d: float) -> float:
    dims = tier.torus_dims or 1
    return float(min(dims, max(1, math.ceil(math.log(d, 4) - 1e-9)))) if tier.topology == "torus" else 1.0


def _link_bw(tier: FabricTier) -> float:
    if tier.link_bandwidth:
        return tier.link_bandwidth
    if tier.topology == "torus":
        return tier.bandwidth / (2 * (tier.torus_dims or 1))
    if tier.topology == "ring":
        return tier.bandwidth / 2
    return tier.bandwidth / tier.links if tier.links else tier.bandwidth


def kappa_inr(hw: Hardware) -> float:
    """NVLS efficiency for the architecture (Blackwell 0.74, else Hopper's 0.85)."""
    arch = str(hw.raw.get("architecture", "")).lower()
    return KAPPA_INR["blackwell"] if "blackwell" in arch else KAPPA_INR["hopper"]


def values(hw: Hardware, levels: Sequence[Level], size: Any) -> dict[str, Any]:
    """Numeric value of every symbol of the collective expressions for this placement."""
    out: dict[str, Any] = {"S": size, "t_0": T0, "kappa_tree": KAPPA_TREE, "kappa_inr": kappa_inr(hw)}
    for k, lv in enumerate(levels):
        t = lv.tier
        out[f"d_{k}"] = float(lv.d)
        out[f"W_{k}"] = t.bandwidth
        out[f"w_{k}"] = _link_bw(t)
        out[f"eta_{k}"] = t.efficiency
        out[f"alpha_{k}"] = max(t.latency, 1e-9)
        out[f"q_{k}"] = float(P2P_NET_BYTES) if lv.network else math.inf
        out[f"m_{k}"] = _torus_dims(t, lv.d)
    return out


def shape(op: str, algo: str, levels: Sequence[Level]) -> Shape:
    """The expression shape of ``op``/``algo`` on these levels."""
    topos = tuple(lv.kind for lv in levels)
    inr = tuple(lv.in_network for lv in levels) if algo == "in_network" else ()
    return Shape(op, algo, topos, inr)


def available(op: str, levels: Sequence[Level]) -> list[str]:
    """Algorithms of ``op`` that the fabric supports (in_network needs a reducing switch)."""
    return [a for a in ALGORITHMS[op] if a != "in_network" or any(lv.in_network for lv in levels)]


_FALLBACK: dict[str, tuple[Any, tuple[str, ...]]] = {}


def compiled(sh: Shape) -> tuple[Any, tuple[str, ...]]:
    """(numpy function, argument names) for a shape: generated module, else lambdified once."""
    from llmcost.cost._collectives_generated import FUNCTIONS

    entry = FUNCTIONS.get(sh.name)
    if entry is not None:
        return entry[0], entry[1]
    if sh.name not in _FALLBACK:
        from llmcost.cost import collective_formulas as cf
        from llmcost.symbolic.compile import compile_expr

        expr = cf.expression(sh)
        args = cf.arguments(expr)
        _FALLBACK[sh.name] = (compile_expr(expr, args), tuple(a.name for a in args))
    return _FALLBACK[sh.name]


def evaluate(sh: Shape, vals: dict[str, Any]) -> Any:
    """Time in seconds of shape ``sh`` at ``vals`` (scalars or broadcastable arrays)."""
    fn, names = compiled(sh)
    with np.errstate(divide="ignore", invalid="ignore"):
        return fn(*(vals[n] for n in names))


@dataclass(frozen=True)
class CollectiveCost:
    """Time, algbw and busbw of one algorithm (arrays when ``size`` is an array)."""

    op: str
    algo: str
    gpus: int
    size: Any
    time: Any
    levels: tuple[Level, ...]

    @property
    def algbw(self) -> Any:
        """nccl-tests algbw = size / time (B/s)."""
        return self.size / self.time

    @property
    def busbw(self) -> Any:
        """nccl-tests busbw = algbw × factor(op, n) (B/s)."""
        return self.algbw * busbw_factor(self.op, self.gpus)


def costs(
    hw: Hardware,
    op: str,
    size: Any,
    gpus: int,
    gpus_per_node: int | None = None,
    algos: Sequence[str] | None = None,
) -> list[CollectiveCost]:
    """Cost of each algorithm (default: every available one) for ``op`` of ``size`` bytes."""
    op = normalize_op(op)
    levels = placement(hw, gpus, gpus_per_node)
    avail = available(op, levels)
    chosen = avail if algos is None else [normalize_algo(op, a) for a in algos]
    for a in chosen:
        if a not in avail:
            raise PlanError(
                f"{a} needs a fabric tier with in-network reduction; {hw.id} spans "
                + ", ".join(lv.tier.key for lv in levels)
            )
    size_arr = np.asarray(size, dtype=float)
    if np.any(~np.isfinite(size_arr)) or np.any(size_arr <= 0):
        raise UserError("collective size must be positive")
    vals = values(hw, levels, size_arr if size_arr.ndim else float(size_arr))
    out = []
    for a in chosen:
        t = evaluate(shape(op, a, levels), vals)
        out.append(CollectiveCost(op, a, gpus, vals["S"], t, levels))
    return out


def best(results: Sequence[CollectiveCost]) -> CollectiveCost:
    """The fastest of ``results`` (per size when sizes are arrays: ``algo`` becomes an array)."""
    if np.ndim(results[0].time) == 0:
        return min(results, key=lambda r: float(r.time))
    times = np.stack([np.broadcast_to(r.time, np.shape(r.size)) for r in results])
    idx = np.argmin(times, axis=0)
    names = np.array([r.algo for r in results])[idx]
    r0 = results[0]
    return CollectiveCost(r0.op, names, r0.gpus, r0.size, times.min(axis=0), r0.levels)  # type: ignore[arg-type]


def collective(
    hw: Hardware, op: str, size: Any, gpus: int, gpus_per_node: int | None = None, algo: str = "auto"
) -> CollectiveCost:
    """Cost of ``op`` with ``algo`` ('auto' = fastest modelled algorithm for the size)."""
    op = normalize_op(op)
    algo = normalize_algo(op, algo)
    if algo == "auto":
        return best(costs(hw, op, size, gpus, gpus_per_node))
    return costs(hw, op, size, gpus, gpus_per_node, [algo])[0]
