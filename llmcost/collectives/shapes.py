"""What the collective formulas and the runtime share: the operations, each one's algorithms, the
topology kinds of a fabric level and :class:`Shape`, the key that selects one expression (its
``name`` is the key of the generated function). Below both :mod:`llmcost.collectives.formulas`
(sympy) and :mod:`llmcost.collectives.cost` (runtime), so neither imports the other for them.
"""

from __future__ import annotations

from dataclasses import dataclass

OPS = ("all_reduce", "reduce_scatter", "all_gather", "broadcast", "all_to_all", "send_recv")
ALGORITHMS: dict[str, tuple[str, ...]] = {
    "all_reduce": (
        "ring",
        "tree",
        "recursive_doubling",
        "rabenseifner",
        "hierarchical",
        "in_network",
        "star",
    ),
    "reduce_scatter": ("ring", "recursive_halving", "hierarchical"),
    "all_gather": ("ring", "recursive_doubling", "hierarchical"),
    "broadcast": ("ring", "tree"),
    "all_to_all": ("direct", "pairwise", "hierarchical", "deepep_low_latency", "deepep_normal"),
    "send_recv": ("direct", "rdma_write"),
}
TOPOLOGY_KINDS = ("switch", "mesh", "torus")
RAIL_KIND = "rail"
"""The kind of a rail-only network level (topology ``rail_only``) in a shape whose algorithm sends
between different local indices: that traffic is forwarded through the level below first
(:func:`llmcost.collectives.formulas.direct`). Every other algorithm sees such a level as a switch."""
RAIL_FORWARDED: dict[str, tuple[str, ...]] = {"all_to_all": ("direct", "pairwise", "deepep_low_latency")}
"""Algorithms whose peers include other local indices across domains, so that a rail-only network
forwards part of their bytes: the flat all-to-alls. Rings, trees and hierarchical / rail-aligned
algorithms (2DH all-to-all, DeepEP's normal kernels) keep each network transfer on one rail."""


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
