"""Collective communication time over the fabric tiers of a cluster (runtime path: no sympy).

Operations: all_reduce, reduce_scatter, all_gather, broadcast, all_to_all, send_recv.
Algorithms (the formulas and their sources are the docstrings of
:mod:`llmcost.collectives.formulas`, the sympy source of truth):

============  ===========================================================================
op            algorithms
============  ===========================================================================
all_reduce    ring, tree (double binary tree), recursive_doubling, rabenseifner
              (recursive halving-doubling), hierarchical (2/3-level), in_network (NVLS/SHARP),
              star (hub reduce and send back: TPI-LLM, parameter server)
reduce_scat.  ring, recursive_halving, hierarchical
all_gather    ring, recursive_doubling, hierarchical
broadcast     ring (pipelined), tree (binomial)
all_to_all    direct, pairwise, hierarchical (DeepSpeed-MoE / Tutel 2DH)
send_recv     direct
============  ===========================================================================

Protocols (NCCL LL / LL128 / Simple): on an NCCL/RCCL platform (NVIDIA or AMD GPUs) NCCL's own
algorithms (ring, tree, in_network = NVLS/NVLS-Tree) are priced per protocol exactly as
``src/graph/tuning.cc`` prices them: latency = ``baseLat[algo][proto] + steps x hwLat[link][algo][proto]``
and bandwidth = the Simple bandwidth x the protocol's factor (LL 0.5, LL128 0.92; :data:`NCCL`
holds every constant with its source). The link class of each tier (nvlink / pci / net) comes from
its topology (:func:`link_class`). Algorithms NCCL does not implement (recursive doubling/halving,
Rabenseifner, hierarchical, pairwise, binomial broadcast) and point-to-point (``direct``: NCCL's
tuning model does not price p2p) run the Simple protocol only, as do all algorithms on other
platforms (TPU ICI, Gaudi, Trainium, ...): their per-step latency is the tier's catalog ``latency``.

``auto`` picks the fastest modelled algorithm-protocol pair for each size (NCCL likewise picks
algorithm and protocol by this cost model, ``ncclTopoGetAlgoTime``). Sizes follow nccl-tests: ``size`` is the full buffer per
rank; ``algbw = size / time`` and ``busbw = algbw × factor(op, n)`` with the factors of
nccl-tests doc/PERFORMANCE.md ([NT-perf]): all_reduce 2(n-1)/n, reduce_scatter / all_gather /
all_to_all (n-1)/n, broadcast and send_recv 1.

Placement (which tier each rank pair crosses): ranks are packed, ``gpus_per_node`` per host
(default: as many as the host holds), hosts contiguous; a group of ``r`` ranks fits in one
domain of a tier of ``D`` devices when ``r <= D``. Tiers a group does not spread over are
dropped, so 4 ranks with one per host form a single network level.

Evaluation uses :mod:`llmcost.collectives._generated` (numpy code printed from the sympy
expressions; ``python -m llmcost.collectives.formulas`` regenerates it and a test pins it);
a shape not pre-generated is lambdified once per process through
:func:`llmcost.symbolic.compile.compile_expr`.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from llmcost import checks
from llmcost.collectives.shapes import ALGORITHMS, OPS, RAIL_FORWARDED, RAIL_KIND, Shape
from llmcost.errors import PlanError, UserError
from llmcost.hardware import NETWORK_TOPOLOGIES, FabricTier, Hardware
from llmcost.kernels.roofline import T_KERNEL

# What NCCL / RCCL actually run (NVIDIA/nccl src/enqueue.cc algorithm selection, tuning.cc:
# Ring, Tree, NVLS / CollNet for all-reduce; Ring for reduce-scatter, all-gather and broadcast;
# all-to-all and send/recv as grouped point-to-point). On those platforms ``auto`` chooses among
# these, so a cost is what the job's library would do; the other algorithms stay available by name.
NCCL_ALGORITHMS: dict[str, tuple[str, ...]] = {
    "all_reduce": ("ring", "tree", "in_network"),
    "reduce_scatter": ("ring",),
    "all_gather": ("ring",),
    "broadcast": ("ring",),
    "all_to_all": ("direct",),
    "send_recv": ("direct",),
}

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
    "nvlstree": "in_network",
    "collnet": "in_network",
    "collnetdirect": "in_network",
    "collnetchain": "in_network",
    "collnet_direct": "in_network",
    "collnet_chain": "in_network",
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
    "deepep_ll": "deepep_low_latency",
    "deepep": "deepep_low_latency",
    "low_latency": "deepep_low_latency",
    "deepep_nvl": "deepep_normal",
    "normal": "deepep_normal",
    "rdma": "rdma_write",
    "parameter_server": "star",
    "hub": "star",
}
LIBRARY_ALGORITHMS = ("deepep_low_latency", "deepep_normal", "rdma_write")
"""Algorithms of a library other than NCCL (DeepEP on NVIDIA GPUs; a KV-cache transfer engine's RDMA
write): chosen by name, never by ``auto``."""

MOE_TOP_K = 8.0
"""Experts per token that ``deepep_normal`` routes to: DeepSeek-V3's top-8 of 256 (report §4.2), the
setting of DeepEP's normal-kernel table."""
MOE_NODE_LIMIT = 4.0
"""Nodes a token reaches at most under ``deepep_normal``: DeepSeek-V3's node-limited routing, M = 4
(report §2.1.2; DeepEP's test: ``num_topk_groups = min(num_nodes, 4)``)."""

PROTOCOLS = ("ll", "ll128", "simple")
PROTO_ALIASES = {"ll128": "ll128", "ll-128": "ll128", "ll_128": "ll128", "ll": "ll", "simple": "simple"}

# --- algorithm constants (software, not hardware) ------------------------------------------------
T0 = 8.4e-6
"""Per-collective software latency: NCCL baseLat Ring/Tree Simple = 8.4 us (src/graph/tuning.cc)."""

NCCL: dict[str, Any] = {
    "source": (
        "NVIDIA/nccl src/graph/tuning.cc, ncclTunerConstantsDefaults and ncclTopoTuneModel / "
        "ncclTopoGetAlgoTime, NCCL 2.28 (v2.28.7-1; the same constants on the 2026 master branch)"
    ),
    # baseLatencies[algo][proto], us (LL, LL128, Simple); NVLS / NVLS-Tree: 0 (their latency is hwLat only)
    "base_lat_us": {
        "tree": {"ll": 6.8, "ll128": 14.0, "simple": 8.4},
        "ring": {"ll": 6.6, "ll128": 14.0, "simple": 8.4},
        "nvls": {"simple": 0.0},
        "nvls_tree": {"simple": 0.0},
    },
    # hwLatencies[link][algo][proto], us per step
    "hw_lat_us": {
        "nvlink": {
            "tree": {"ll": 0.6, "ll128": 1.25, "simple": 4.0},
            "ring": {"ll": 0.6, "ll128": 1.9, "simple": 3.4},
            "nvls": {"simple": 25.0},
            "nvls_tree": {"simple": 25.0},
        },
        "pci": {
            "tree": {"ll": 1.0, "ll128": 1.9, "simple": 4.0},
            "ring": {"ll": 1.0, "ll128": 2.5, "simple": 5.7},
        },
        "net": {
            "tree": {"ll": 5.0, "ll128": 8.5, "simple": 14.0},
            "ring": {"ll": 2.7, "ll128": 4.0, "simple": 14.0},
            "nvls": {"simple": 18.0},
            "nvls_tree": {"simple": 20.9},
        },
    },
    # bus-bandwidth factor of a protocol relative to Simple: ring LL `busBw*.5` (half of every 8-byte word
    # is a flag), ring LL128 `busBw*0.92` (120 of 128 bytes carry data); tree LL `busBw/3.8`, tree LL128
    # `7/9` on one node and `120/128` across nodes
    "proto_bw": {
        "ring": {"ll": 0.5, "ll128": 0.92, "simple": 1.0},
        "tree": {"ll": 1 / 3.8, "ll128": 7 / 9, "ll128_multinode": 120 / 128, "simple": 1.0},
    },
    # llMaxBws (GB/s bus bandwidth cap of LL): one node by GPU generation; several nodes by host CPU
    # (Intel row used: NCCL's default for non-AMD hosts) for 2 and >2 nodes
    "ll_max_bw_gbps": {
        "volta": 39.0,
        "ampere": 87.7,
        "hopper": 141.0,
        "blackwell": 282.0,
        "nodes2": 39.0,
        "nodes_gt2": 20.4,
    },
    # getNetOverhead: 1 us per step (x86 Intel; AMD 2 us), x3 for Simple; floors the intra-node ring step
    # of a multi-node ring
    "net_overhead_us": 1.0,
    "net_overhead_simple_mult": 3.0,
    # "Plateau effect of ring": multi-node ring / Simple all-reduce latency x1.4 (>= SM80; 1.9 before)
    "ring_plateau": 1.4,
}
"""NCCL's tuning constants, in one place. A tier's catalog ``latency`` is its per-step latency for
NCCL's Ring/Simple (``hw_lat_us[link]["ring"]["simple"]``: NVLink 3.4, PCIe 5.7, network 14 us); every
other algorithm/protocol entry of that link class is scaled by ``latency / that reference`` so a
catalog figure (a measured network step, a user override) moves all protocols together and the
catalog figure equal to NCCL's reproduces tuning.cc exactly."""
KAPPA_TREE = 0.92
"""Tree all-reduce busBW factor: NCCL tuning.cc ``min(0.92·busBW, nCh·perChMaxTreeBw)`` (ncclTopoTuneModel)."""
KAPPA_INR = {"hopper": 0.85, "blackwell": 0.74}
"""NVLS efficiency relative to ring: NCCL tuning.cc nvlsEfficiency (Hopper 0.85, Blackwell 0.74)."""
P2P_NET_BYTES = 2 * 128 * 1024
"""p2p bytes in flight per peer per network step: NCCL_NCHANNELS_PER_NET_PEER 2 (NVIDIA/nccl #1189
log) × NCCL_P2P_NET_CHUNKSIZE 128 KiB (NCCL env docs, since 2.14)."""

WAN = "wan"
"""The topology of a wide-area tier between sites (:attr:`Level.wan`)."""


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


def normalize_protocol(protocol: str) -> str:
    """Canonical protocol name ('auto', 'll', 'll128' or 'simple'); UserError otherwise."""
    key = protocol.strip().lower()
    if key == "auto":
        return key
    if key not in PROTO_ALIASES:
        raise UserError(f"unknown protocol '{protocol}'; choose auto, ll, ll128 or simple")
    return PROTO_ALIASES[key]


PAT = {"all_gather": "recursive_doubling", "reduce_scatter": "recursive_halving"}
"""NCCL_ALGO=PAT (Parallel Aggregated Trees, NCCL 2.23: all-gather and reduce-scatter with one GPU
per node in log2(n) steps, NVIDIA/nccl release notes v2.23.4-1) is priced as the logarithmic
algorithm of the same op (its bandwidth term is the ring's, its latency log2(n) steps)."""


def normalize_algo(op: str, algo: str) -> str:
    """Canonical algorithm name for ``op`` ('auto' allowed). NCCL_ALGO spellings (Ring, Tree, NVLS,
    NVLSTree, CollNetDirect, CollNetChain, PAT) are accepted in any case: NVLS / NVLSTree / CollNet
    are ``in_network``, PAT the op's logarithmic algorithm (:data:`PAT`)."""
    key = algo.strip().lower().replace("-", "_")
    key = ALGO_ALIASES.get(key, key)
    if key == "pat":
        if op not in PAT:
            raise UserError(
                f"{op} has no algorithm 'PAT' (NCCL runs PAT for all_gather and reduce_scatter only)"
            )
        key = PAT[op]
    if key == "auto":
        return key
    if key not in ALGORITHMS[op]:
        raise UserError(f"{op} has no algorithm '{algo}'; choose auto, " + ", ".join(ALGORITHMS[op]))
    return key


def nccl_platform(hw: Hardware) -> bool:
    """True when collectives run on NCCL / RCCL (NVIDIA or AMD GPUs and systems built from them)."""
    vendor = hw.vendor.strip().lower()
    return hw.type in ("gpu", "system") and (vendor.startswith("nvidia") or vendor.startswith("amd"))


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
        return self.tier.devices is None or self.tier.topology in NETWORK_TOPOLOGIES

    @property
    def wan(self) -> bool:
        """True for a wide-area tier between sites (topology ``wan``): routed, each site reaching
        every other at its own uplink (a switch in the formulas), not priced by NCCL's tuning model
        (a job's cross-site collectives run its own code over TCP: Gloo in INTELLECT-1's PRIME,
        Hivemind in OpenDiLoCo), so a collective crossing it takes every level's catalog latency as
        is (no NCCL protocol tables: :func:`values`), the Simple protocol, and no NCCL p2p chunk
        pipeline at the WAN level."""
        return self.tier.topology == WAN

    @property
    def in_network(self) -> bool:
        return self.tier.in_network_reduction and self.kind == "switch"

    @property
    def link(self) -> str | None:
        """NCCL link class of the tier (tuning.cc NCCL_HW_NVLINK / PCI / NET): network tiers 'net', a
        tier named PCIe 'pci', another switch or mesh tier 'nvlink' (NVLink, xGMI), a torus None."""
        if self.wan:
            return None
        if self.network:
            return "net"
        if "pcie" in f"{self.tier.key} {self.tier.name}".lower():
            return "pci"
        return "nvlink" if self.kind in ("switch", "mesh") else None


def placement(
    hw: Hardware, gpus: int, gpus_per_node: int | None = None, stride: int = 1
) -> tuple[Level, ...]:
    """Levels a group of ``gpus`` ranks spans, innermost first (levels with one rank dropped).
    ``stride``: devices between consecutive ranks of the group; where it exceeds a node, a domain of
    ``D`` devices holds ``D // stride`` of them (a data-parallel group of replicas that each span
    nodes); otherwise the ranks per node (``gpus_per_node``) set the count."""
    if isinstance(gpus, bool) or not isinstance(gpus, int) or gpus < 2:
        raise PlanError(f"a collective needs at least 2 GPUs, got {gpus!r}")
    checks.finite_int(gpus, "gpus", 2)  # at most MAX_COUNT ranks
    node = max(hw.node_devices, 1)
    given = checks.gpus_per_node(hw, gpus_per_node)
    g = min(given if given is not None else node, gpus)
    inner = hw.fabric[0].devices or gpus
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
        elif stride > node:
            r = min(gpus, max(1, cap // stride))
        elif cap <= node:
            r = min(g, cap)
        else:
            r = min(gpus, g * (cap // node))
        r = max(r, below)
        if cap is not None and tier.topology != "torus":  # a torus slice takes its shape, not a share
            r = _even_share(r, below, gpus, g if stride <= node < cap else 1)
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


def _even_share(r: int, below: int, gpus: int, unit: int) -> int:
    """Ranks of a group per domain of a finite tier that holds at most ``r`` of them, where the job
    does not fill the domains by multiples: the fewest domains that hold it, each holding the same
    share, in whole groups of the tier below and whole nodes (``unit``: the group's ranks per node
    where the domain spans nodes). 128 GPUs run on two NVL72 racks of 64 (16 of their 18 trays
    each; NVIDIA's NeMo and Megatron-Bridge performance tables run GB200 at 64, 128 and 256 GPUs).
    ``r`` (refused by the caller) where no such share exists, e.g. 76 GPUs: two racks of 38 would
    split a 4-GPU tray. Switched domains only: a torus slice (TPU) has a shape of its own."""
    if gpus % r == 0 or r <= below:
        return r
    domains = -(-gpus // r)
    share = gpus // domains
    step = math.lcm(below, unit)
    return share if gpus % domains == 0 and share % step == 0 else r


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


def protocols(hw: Hardware, op: str, algo: str, levels: Sequence[Level]) -> tuple[str, ...]:
    """Protocols NCCL runs ``algo`` with on this placement (tuning.cc): ring and the all-reduce tree
    LL / LL128 / Simple, LL128 only where every intra-node level is NVLink (NCCL enables LL128 by
    default only for NVLink-connected GPUs); NVLS Simple only; everything else (non-NCCL algorithms,
    p2p, other platforms) Simple."""
    fam = _family(op, algo)
    if fam is None or fam == "nvls" or not nccl_platform(hw) or any(lv.link is None for lv in levels):
        return ("simple",)
    intra = [lv for lv in levels if not lv.network]
    if all(lv.link == "nvlink" for lv in intra):
        return PROTOCOLS
    return ("ll", "simple")


def _family(op: str, algo: str) -> str | None:
    """tuning.cc algorithm row of an llmcost algorithm (None: not an NCCL algorithm)."""
    if algo == "ring":
        return "ring"
    if algo == "tree" and op == "all_reduce":
        return "tree"
    if algo == "in_network":
        return "nvls"
    return None


def _ll_max_bw(hw: Hardware, levels: Sequence[Level]) -> float:
    """NCCL llMaxBws (B/s): by GPU generation on one node, by node count across nodes (Intel host row)."""
    c = NCCL["ll_max_bw_gbps"]
    nodes = math.prod(lv.d for lv in levels if lv.network)
    if nodes > 1:
        return (c["nodes2"] if nodes <= 2 else c["nodes_gt2"]) * 1e9
    arch = str(hw.raw.get("architecture", "")).lower()
    gen = next((g for g in ("blackwell", "hopper", "volta") if g in arch), "ampere")
    return c[gen] * 1e9


def _tree_hops(lv: Level, nccl: bool) -> float:
    """Steps of one tree phase at a level: NCCL chains the ranks inside a node (d-1) and builds
    binary trees across nodes (log2 d) (tuning.cc Tree: ``(nRanks/nNodes-1)*intraLat +
    log2(nNodes)*interLat``); elsewhere a binary tree at every level."""
    return float(lv.d - 1) if nccl and not lv.network else math.log2(lv.d)


def _catalog_values(hw: Hardware, levels: Sequence[Level], size: Any, nccl: bool) -> dict[str, Any]:
    """Every symbol at its Simple-protocol value: the catalog figures of each level's tier."""
    out: dict[str, Any] = {
        "S": size,
        "t_0": T0,
        "kappa_tree": KAPPA_TREE,
        "kappa_inr": kappa_inr(hw),
        "kappa_p": 1.0,
        "B_p": math.inf,
        "n_nic": 1.0,
        "moe_k": MOE_TOP_K,
        "moe_nodes": MOE_NODE_LIMIT,
    }
    for k, lv in enumerate(levels):
        t = lv.tier
        out[f"d_{k}"] = float(lv.d)
        out[f"W_{k}"] = t.bandwidth
        out[f"w_{k}"] = _link_bw(t)
        out[f"eta_{k}"] = t.efficiency
        out[f"alpha_{k}"] = max(t.latency, 1e-9)
        out[f"q_{k}"] = float(P2P_NET_BYTES) if lv.network and not lv.wan else math.inf
        out[f"m_{k}"] = _torus_dims(t, lv.d)
        out[f"h_{k}"] = _tree_hops(lv, nccl)
    return out


def _nccl_latencies(out: dict[str, Any], levels: Sequence[Level], fam: str, op: str, protocol: str) -> None:
    """``t_0`` and each level's ``alpha_k`` of NCCL algorithm row ``fam`` run with ``protocol``
    (tuning.cc baseLat and hwLat, scaled by the tier's catalog latency over NCCL's Ring/Simple)."""
    multinode = any(lv.network for lv in levels)
    ppn1 = all(lv.network for lv in levels)
    base, hwl = NCCL["base_lat_us"], NCCL["hw_lat_us"]
    scale = 1.0
    if fam == "ring" and op == "all_reduce" and protocol == "simple" and multinode:
        scale = NCCL["ring_plateau"]
    out["t_0"] = base[fam][protocol] * 1e-6 * scale
    for k, lv in enumerate(levels):
        link = lv.link or "nvlink"
        ref = hwl[link]["ring"]["simple"]
        row = fam
        if fam == "ring" and lv.network and ppn1:
            row = "tree"  # tuning.cc: at one rank per node the ring's network step uses the Tree figure
        if fam == "nvls":
            row = "nvls" if lv.in_network else "nvls_tree" if lv.network else "ring"
        lat = hwl[link].get(row, hwl[link]["ring"])[protocol] * lv.tier.latency / ref
        if fam == "ring" and multinode and not lv.network:
            ovh = NCCL["net_overhead_us"] * (
                NCCL["net_overhead_simple_mult"] if protocol == "simple" else 1.0
            )
            lat = max(lat, ovh * 1e-6)
        out[f"alpha_{k}"] = max(lat * scale, 1e-9)


def _nccl_bandwidth(
    out: dict[str, Any], hw: Hardware, levels: Sequence[Level], fam: str, protocol: str
) -> None:
    """``kappa_p`` and ``B_p`` of the ring and tree protocols (tuning.cc proto factors, llMaxBws)."""
    if fam in ("ring", "tree"):
        multinode = any(lv.network for lv in levels)
        key = "ll128_multinode" if fam == "tree" and protocol == "ll128" and multinode else protocol
        out["kappa_p"] = NCCL["proto_bw"][fam][key]
        if protocol == "ll":
            out["B_p"] = _ll_max_bw(hw, levels)


def values(
    hw: Hardware,
    levels: Sequence[Level],
    size: Any,
    algo: str = "ring",
    protocol: str = "simple",
    op: str = "all_reduce",
    nics: int = 1,
) -> dict[str, Any]:
    """Numeric value of every symbol of the collective expressions for this placement, for ``algo``
    run with ``protocol`` (latencies and protocol bandwidth from :data:`NCCL` on an NCCL platform;
    ``nics``: an ``rdma_write``'s NICs)."""
    nccl = nccl_platform(hw)
    out = _catalog_values(hw, levels, size, nccl)
    fam = _family(op, algo)
    if protocol not in protocols(hw, op, algo, levels):
        raise PlanError(f"{op}/{algo} does not run the {protocol} protocol on {hw.id}")
    if algo in ("deepep_low_latency", "deepep_normal"):
        out["t_0"] = 2 * T_KERNEL  # its send and receive kernels (formulas.deepep_low_latency / _normal)
    if algo == "rdma_write":
        out["t_0"] = 0.0  # work requests posted by the host, no kernel (formulas.rdma_write)
        out["n_nic"] = float(nics)
    if fam is None or not nccl or any(lv.link is None for lv in levels):
        return out
    _nccl_latencies(out, levels, fam, op, protocol)
    _nccl_bandwidth(out, hw, levels, fam, protocol)
    return out


def shape(op: str, algo: str, levels: Sequence[Level]) -> Shape:
    """The expression shape of ``op``/``algo`` on these levels. A rail-only network level above an
    inner level is of kind ``rail`` for the algorithms it forwards (:data:`RAIL_FORWARDED`): ranks one
    per domain (gpus_per_node 1) are taken to share one rail (the same local index), as a data- or
    pipeline-parallel group of a whole-node stride does."""
    topos = tuple(lv.kind for lv in levels)
    if algo in RAIL_FORWARDED.get(op, ()) and levels and levels[0].tier.topology != "rail_only":
        topos = tuple(
            RAIL_KIND if lv.tier.topology == "rail_only" else t for lv, t in zip(levels, topos, strict=True)
        )
    inr = tuple(lv.in_network for lv in levels) if algo == "in_network" else ()
    return Shape(op, algo, topos, inr)


def available(op: str, levels: Sequence[Level]) -> list[str]:
    """Algorithms of ``op`` that the fabric supports (in_network needs a reducing switch); library
    algorithms (:data:`LIBRARY_ALGORITHMS`) only when named."""
    return [
        a
        for a in ALGORITHMS[op]
        if (a != "in_network" or any(lv.in_network for lv in levels)) and a not in LIBRARY_ALGORITHMS
    ]


def auto_algorithms(hw: Hardware, op: str, levels: Sequence[Level]) -> list[str]:
    """The algorithms ``auto`` chooses among: on NCCL / RCCL platforms those the library runs
    (:data:`NCCL_ALGORITHMS`), elsewhere, and across a WAN tier (:attr:`Level.wan`: the job's own
    code), every available one. ``star`` is in the second set only:
    NCCL runs no hub all-reduce, while off NCCL (CPUs and laptops over TCP, as TPI-LLM's own
    sockets) the job's code picks its algorithm, and at a high per-step latency its 2 steps beat the
    ring's 2(p-1) (TPI-LLM §3.2)."""
    avail = available(op, levels)
    if nccl_platform(hw) and not any(lv.wan for lv in levels):
        return [a for a in avail if a in NCCL_ALGORITHMS[op]]
    return avail


_FALLBACK: dict[str, tuple[Any, tuple[str, ...]]] = {}


def compiled(sh: Shape) -> tuple[Any, tuple[str, ...]]:
    """(numpy function, argument names) for a shape: generated module, else lambdified once."""
    from llmcost.collectives._generated import FUNCTIONS

    entry = FUNCTIONS.get(sh.name)
    if entry is not None:
        return entry[0], entry[1]
    if sh.name not in _FALLBACK:
        from llmcost.collectives import formulas as cf
        from llmcost.symbolic.compile import compile_expr

        expr = cf.expression(sh)
        args = cf.arguments(expr)
        _FALLBACK[sh.name] = (compile_expr(expr, args), tuple(a.name for a in args))
    return _FALLBACK[sh.name]


@dataclass(frozen=True)
class CollectiveCost:
    """Time, algbw and busbw of one algorithm (arrays when ``size`` is an array)."""

    op: str
    algo: str
    gpus: int
    size: Any
    time: Any
    levels: tuple[Level, ...]
    protocol: Any = "simple"
    """NCCL protocol of the time: 'll', 'll128' or 'simple' (an array of names when ``size`` is)."""

    @property
    def algbw(self) -> Any:
        """nccl-tests algbw = size / time (B/s)."""
        return self.size / self.time

    @property
    def busbw(self) -> Any:
        """nccl-tests busbw = algbw × factor(op, n) (B/s)."""
        return self.algbw * busbw_factor(self.op, self.gpus)


def _fastest(
    op: str,
    algo: str,
    gpus: int,
    size: Any,
    times: list[Any],
    protos: Sequence[str],
    levels: tuple[Level, ...],
) -> CollectiveCost:
    """The fastest protocol of one algorithm (per size when sizes are arrays)."""
    if len(times) == 1:
        return CollectiveCost(op, algo, gpus, size, times[0], levels, protos[0])
    if np.ndim(size) == 0:
        i = int(np.argmin([float(t) for t in times]))
        return CollectiveCost(op, algo, gpus, size, times[i], levels, protos[i])
    stack = np.stack([np.broadcast_to(t, np.shape(size)) for t in times])
    idx = np.argmin(stack, axis=0)
    return CollectiveCost(op, algo, gpus, size, stack.min(axis=0), levels, np.array(protos)[idx])


def check_algorithms(
    hw: Hardware, levels: Sequence[Level], chosen: Sequence[str], avail: Sequence[str], nics: int = 1
) -> None:
    """PlanError (UserError for a misplaced ``nics``) when an algorithm of ``chosen`` cannot run on
    these levels: rdma_write off the network or over more NICs than a host has, a library algorithm
    off NVIDIA, in_network without a reducing switch."""
    for a in chosen:
        if a == "rdma_write":
            if not any(lv.network for lv in levels):
                tier = levels[-1].tier
                spans = (tier.devices or 0) > max(hw.node_devices, 1)
                raise PlanError(
                    "rdma_write crosses the scale-out network: "
                    + (
                        f"these ranks share one '{tier.key}' domain of {hw.id}, which spans hosts; send over it "
                        "(algorithm direct)"
                        if spans
                        else "place the two ranks on different nodes (gpus_per_node 1)"
                    )
                )
            if nics > max(hw.node_devices, 1):
                raise PlanError(
                    f"rdma_write over {nics} NICs: a {hw.id} host has {max(hw.node_devices, 1)} (one per device); "
                    f"use --nics {max(hw.node_devices, 1)} or fewer"
                )
            continue
        if nics != 1 and "rdma_write" not in chosen:
            raise UserError(f"--nics applies to the rdma_write algorithm, not {a}")
        if a in LIBRARY_ALGORITHMS:
            if not hw.vendor.strip().lower().startswith("nvidia"):
                raise PlanError(
                    f"{a} runs on NVIDIA GPUs (DeepEP: NVSHMEM over InfiniBand GPUDirect Async); "
                    f"{hw.id} is {hw.vendor}"
                )
            continue
        if a not in avail:
            raise PlanError(
                f"{a} needs a fabric tier with in-network reduction; {hw.id} spans "
                + ", ".join(lv.tier.key for lv in levels)
            )


def costs(
    hw: Hardware,
    op: str,
    size: Any,
    gpus: int,
    gpus_per_node: int | None = None,
    algos: Sequence[str] | None = None,
    protocol: str = "auto",
    nics: int = 1,
) -> list[CollectiveCost]:
    """Cost of each algorithm (default: every available one) for ``op`` of ``size`` bytes, each with
    its fastest protocol (``protocol='auto'``) or the protocol named; with the protocol named and no
    algorithm named, the algorithms that cannot run it are left out; ``nics``: the NICs an
    ``rdma_write`` is striped over (:func:`check_algorithms`)."""
    op = normalize_op(op)
    protocol = normalize_protocol(protocol)
    levels, runs = _prepared(
        hw, op, gpus, gpus_per_node, None if algos is None else tuple(algos), protocol, nics
    )
    sz = _size(size)
    out = [_fastest(op, a, gpus, sz, _times(fns, sz), protos, levels) for a, protos, fns in runs]
    if not all(np.all(np.isfinite(r.time)) for r in out):
        raise UserError(_too_large(float(np.max(sz)), "has no finite time"))
    return out


def _size(size: Any) -> Any:
    """A collective's size (bytes, a number or an array) checked: positive, finite, at most :data:`MAX_SIZE`."""
    size_arr = np.asarray(size, dtype=float)
    if np.any(~np.isfinite(size_arr)) or np.any(size_arr <= 0):
        raise UserError("collective size must be positive")
    if np.any(size_arr > MAX_SIZE):
        raise UserError(_too_large(float(size_arr.max()), "is past the largest size priced"))
    return size_arr if size_arr.ndim else float(size_arr)


def _times(fns: list[tuple[Any, tuple[str, ...], dict[str, Any]]], sz: Any) -> list[Any]:
    """Each prepared formula's time at size ``sz``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return [fn(*(sz if n == "S" else vals[n] for n in names)) for fn, names, vals in fns]


def auto_time(
    hw: Hardware, op: str, size: Any, gpus: int, gpus_per_node: int | None = None, stride: int = 1
) -> Any:
    """``collective(hw, op, size, gpus, gpus_per_node).time`` (algorithm and protocol 'auto'), without
    naming the winners: the least time over every algorithm and protocol it compares (a minimum,
    so the same bits), for arrays of plans (:func:`llmcost.collectives.grid.collective_v`);
    ``stride``: as :func:`placement`'s."""
    op = normalize_op(op)
    key = (id(hw), op, gpus, gpus_per_node, stride)
    hit = _AUTO.get(key)
    if hit is not None and hit[0]() is hw:
        algos = hit[1]
    else:
        algos = tuple(auto_algorithms(hw, op, placement(hw, gpus, gpus_per_node, stride)))
        if len(_AUTO) >= _PREPARED_MAX:
            _AUTO.clear()
        _AUTO[key] = (weakref.ref(hw), algos)
    _, runs = _prepared(hw, op, gpus, gpus_per_node, algos, "auto", 1, stride)
    sz = _size(size)
    times = [t for _, _, fns in runs for t in _times(fns, sz)]
    if np.ndim(sz) == 0:
        best_t: Any = min(float(t) for t in times)
    else:
        best_t = np.stack([np.broadcast_to(t, np.shape(sz)) for t in times]).min(axis=0)
    if not np.all(np.isfinite(best_t)):
        raise UserError(_too_large(float(np.max(sz)), "has no finite time"))
    return best_t


def deduplicated_time(
    hw: Hardware, size: Any, gpus: int, gpus_per_node: int | None, top_k: float, node_limit: float
) -> Any:
    """Time of one node-deduplicated MoE dispatch or combine (formula ``deepep_normal``: each token
    once over the network to every other node holding one of its experts, forwarded over the scale-up
    link) for arrays of ``size`` (bytes of the rank's tokens, each counted once), ``top_k`` experts
    per token and at most ``node_limit`` nodes per token (a model's group-limited routing; ``inf``:
    none). The algorithm class of DeepEP's normal kernels, Megatron-Core's flex dispatcher (DeepEP or
    HybridEP backend) and Primus-Turbo's port, so no vendor check: a training plan names the class
    (plan ``ep_deepep``), not the library the ``collective`` command costs."""
    levels = placement(hw, gpus, gpus_per_node)
    op, algo = "all_to_all", "deepep_normal"
    fn, names = compiled(shape(op, algo, levels))
    vals = {
        **values(hw, levels, 1.0, algo, "simple", op),
        "moe_k": float(top_k),
        "moe_nodes": float(node_limit),
    }
    return _times([(fn, names, vals)], _size(size))[0]


_Run = tuple[str, tuple[str, ...], list[tuple[Any, tuple[str, ...], dict[str, Any]]]]
_PREPARED: dict[tuple[Any, ...], tuple[Any, tuple[tuple[Level, ...], list[_Run]]]] = {}
""":func:`_prepared` by (id of the device, arguments), with a weak reference that proves the id is
still that device; cleared past :data:`_PREPARED_MAX` entries."""
_PREPARED_MAX = 1 << 14
_AUTO: dict[tuple[Any, ...], tuple[Any, tuple[str, ...]]] = {}
""":func:`auto_algorithms` per (id of the device, op, group), as :data:`_PREPARED`."""


def _prepared(
    hw: Hardware,
    op: str,
    gpus: int,
    gpus_per_node: int | None,
    algos: tuple[str, ...] | None,
    protocol: str,
    nics: int,
    stride: int = 1,
) -> tuple[tuple[Level, ...], list[_Run]]:
    """What :func:`costs` evaluates whatever the size: the placement and, per algorithm, its
    protocols with each one's compiled formula, argument names and symbol values (the size ``S``
    aside). Checked (errors raised) on every call; cached per device (a frozen catalog entry) and
    arguments, since a search costs the same group on thousands of size arrays."""
    key = (id(hw), op, gpus, gpus_per_node, algos, protocol, nics, stride)
    hit = _PREPARED.get(key)
    if hit is not None and hit[0]() is hw:
        return hit[1]
    levels = placement(hw, gpus, gpus_per_node, stride)
    avail = available(op, levels)
    chosen = avail if algos is None else [normalize_algo(op, a) for a in algos]
    pat = algos is not None and any(str(a).strip().lower() == "pat" for a in algos)
    if pat and any(not lv.network for lv in levels):
        raise PlanError(
            "PAT runs with one GPU per node (NCCL 2.23); use gpus_per_node 1 or another algorithm"
        )
    check_algorithms(hw, levels, chosen, avail, nics)
    if protocol != "auto":
        runs = [a for a in chosen if protocol in protocols(hw, op, a, levels)]
        if algos is not None and len(runs) < len(chosen) or not runs:
            bad = [a for a in chosen if a not in runs]
            raise PlanError(
                f"{op} "
                + ", ".join(bad)
                + f" cannot run the {protocol} protocol on {hw.id} (NCCL runs LL/LL128 "
                "only for ring and the all-reduce tree, LL128 only over NVLink; other algorithms, p2p and "
                "non-NCCL platforms run Simple)"
            )
        chosen = runs
    out: list[_Run] = []
    for a in chosen:
        protos = tuple(protocols(hw, op, a, levels) if protocol == "auto" else (protocol,))
        sh = shape(op, a, levels)
        fn, names = compiled(sh)
        out.append((a, protos, [(fn, names, values(hw, levels, 1.0, a, pr, op, nics)) for pr in protos]))
    if len(_PREPARED) >= _PREPARED_MAX:
        _PREPARED.clear()
    _PREPARED[key] = (weakref.ref(hw), (levels, out))
    return levels, out


MAX_SIZE = 2.0**60
"""The largest collective buffer priced, 1 EiB: a buffer lives in device memory, and the largest
systems of the catalog hold petabytes; far below where the formulas' products leave float64."""


def _too_large(size: float, why: str) -> str:
    """The one-line refusal of a size past :data:`MAX_SIZE` or whose time is not finite."""
    return f"collective size {size:.4g} bytes {why}; give at most 1 EiB (2^60 = {MAX_SIZE:.4g} bytes)"


def best(results: Sequence[CollectiveCost]) -> CollectiveCost:
    """The fastest of ``results`` (per size when sizes are arrays: ``algo`` and ``protocol`` become arrays)."""
    if np.ndim(results[0].time) == 0:
        return min(results, key=lambda r: float(r.time))
    times = np.stack([np.broadcast_to(r.time, np.shape(r.size)) for r in results])
    idx = np.argmin(times, axis=0)
    names = np.array([r.algo for r in results])[idx]
    protos = np.stack(
        [np.broadcast_to(np.asarray(r.protocol, dtype=object), np.shape(r.size)) for r in results]
    )
    proto = np.take_along_axis(protos, idx[None], axis=0)[0].astype(str)
    r0 = results[0]
    return CollectiveCost(r0.op, names, r0.gpus, r0.size, times.min(axis=0), r0.levels, proto)  # type: ignore[arg-type]


def collective(
    hw: Hardware,
    op: str,
    size: Any,
    gpus: int,
    gpus_per_node: int | None = None,
    algo: str = "auto",
    protocol: str = "auto",
    nics: int = 1,
) -> CollectiveCost:
    """Cost of ``op`` with ``algo`` and ``protocol`` ('auto' = the fastest algorithm and protocol
    for the size among :func:`auto_algorithms`, as NCCL's ncclTopoGetAlgoTime picks them); ``nics``:
    the NICs an ``rdma_write`` is striped over."""
    op = normalize_op(op)
    algo = normalize_algo(op, algo)
    if algo == "auto":
        levels = placement(hw, gpus, gpus_per_node)
        algos = auto_algorithms(hw, op, levels)
        prot = normalize_protocol(protocol)
        if prot != "auto":  # auto drops the algorithms that cannot run a named protocol
            algos = [a for a in algos if prot in protocols(hw, op, a, levels)] or algos
        return best(costs(hw, op, size, gpus, gpus_per_node, algos, protocol, nics))
    return costs(hw, op, size, gpus, gpus_per_node, [algo], protocol, nics)[0]
