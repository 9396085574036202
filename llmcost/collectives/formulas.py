"""Collective cost formulas as sympy expressions: the source of truth for :mod:`.collectives`.

Model (α-β-γ of Hockney / TRG05 §2, per fabric level). A group of ``p`` ranks is placed on
the fabric as levels ``k = 0..L-1`` (innermost first): ``d_k`` ranks of the group per domain
of level ``k``, so ``p = Π d_k``. ``R_k = Π_{j<k} d_j`` ranks sit under one port group of
level ``k`` (their NICs share the level's traffic) and ``P_k = Π_{j>=k} d_j`` domains are
spanned at level ``k``. Per level: ``W_k`` (B/s per device, one direction, all links), ``w_k``
(one link), ``η_k`` (achieved fraction of line rate, from the catalog), ``α_k`` (per-step
latency), ``q_k`` (p2p bytes in flight per peer per step; ∞ inside a scale-up domain),
``m_k`` (torus dims spanned). ``S`` is the nccl-tests size: the full buffer per rank
(NVIDIA/nccl-tests doc/PERFORMANCE.md, ``*GetBw`` in src/*.cu). ``t_0`` is the per-collective software latency (NCCL
``baseLat[algo][proto]``, src/graph/tuning.cc).

Protocols (NCCL LL / LL128 / Simple) are numeric inputs, not shapes: for NCCL's own algorithms the
runtime sets ``t_0 = baseLat[algo][proto]``, ``α_k = hwLat[link_k][algo][proto]`` (scaled by the
tier's catalog latency), ``κ_p`` the protocol's bus-bandwidth factor relative to Simple (ring LL
0.5: half of each 8-byte word is a flag; ring LL128 0.92: 120 of 128 bytes are data; tree LL
1/3.8, tree LL128 7/9 or 120/128) and ``B_p`` its bus-bandwidth cap (NCCL ``llMaxBws`` for LL, ∞
otherwise); the bandwidth term uses ``min(κ_p·B, B_p)`` (tuning.cc ``ncclTopoTuneModel``). Simple is ``κ_p = 1``, ``B_p = ∞``. ``h_k`` is the depth of one tree phase at
level ``k``: NCCL chains the ranks of a node (``d-1``) and builds binary trees across nodes
(``log2 d``).

Bandwidth a device gets at a level depends on the topology and the traffic pattern:

* switch (NVSwitch, fat-tree, rail fat-tree): ``η·W`` for any pattern.
* mesh (AMD MI300X xGMI: 7 links of 64 GB/s, one per peer): one peer at a time gets one
  link ``η·w``; multi-ring / direct algorithms use every link to the group,
  ``η·min(W, (d-1)·w)`` (AMD Instinct MI300X: 7 peer links of 1/7 of the bandwidth; K_n decomposes into n-1
  directed Hamiltonian rings, Tillson 1980, so multi-channel rings reach all links).
* torus (TPU ICI): bidirectional rings per dimension, ``η·min(W, 2·m·w)`` for ring / direct
  patterns, one link for one-peer-at-a-time algorithms (scaling-book sharding.md, bidirectional ring all-gather).

Point-to-point traffic over a network level is also bounded by NCCL's p2p chunk pipeline:
``q/α`` per peer (``q`` = NCCL_NCHANNELS_PER_NET_PEER (2) × NCCL_P2P_NET_CHUNKSIZE (128 KiB),
one chunk per channel per step of latency ``α``; NVIDIA/nccl #2409 measures a fixed 10-12 µs
per-step cost and ~13 GB/s per channel at 128 KiB; NVIDIA/nccl #1189 logs "2 p2p channels per
peer").

Log factors use ``log2`` without ceiling (power-of-two ``d``; MPICH adds about two steps
otherwise: pmodels/mpich src/mpi/coll/*/ header comments), so expressions stay differentiable.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import sympy as sp

from llmcost.collectives.shapes import ALGORITHMS, OPS, RAIL_FORWARDED, RAIL_KIND, TOPOLOGY_KINDS, Shape
from llmcost.symbolic.compile import arguments, generated_header, write_generated
from llmcost.symbolic.symbols import define, define_family, level, sym

KAPPA_TREE = define(
    "kappa_tree",
    "1",
    "double-binary-tree bus-bandwidth factor (NCCL tuning.cc: 0.92)",
    latex=r"\kappa_{tree}",
)
KAPPA_INR = define(
    "kappa_inr",
    "1",
    "in-network (NVLS/SHARP) efficiency relative to ring (NCCL tuning.cc nvlsEfficiency)",
    latex=r"\kappa_{inr}",
)

KAPPA_P = define(
    "kappa_p",
    "1",
    "protocol bus-bandwidth factor relative to Simple (NCCL tuning.cc: ring LL 0.5, LL128 0.92; tree LL 1/3.8)",
    latex=r"\kappa_p",
)
MOE_K = define(
    "moe_k",
    "1",
    "experts a token is routed to (deepep_normal; DeepSeek-V3 top-8)",
    latex="k",
)
MOE_NODES = define(
    "moe_nodes",
    "1",
    "nodes a token may reach at most (deepep_normal; DeepSeek-V3 node-limited routing, M = 4)",
    latex="M",
)
N_NIC = define(
    "n_nic",
    "1",
    "NICs an RDMA write is striped over (rdma_write; Mooncake Transfer Engine multi-NIC pooling)",
    latex="n_{nic}",
)
B_P = define(
    "B_p",
    "B/s",
    "protocol bus-bandwidth cap (NCCL tuning.cc llMaxBws for LL; infinite otherwise)",
    latex="B_p",
)
define_family(
    "h",
    "1",
    "steps of one tree phase at level {k} (NCCL: d-1 chained in a node, log2 d across nodes)",
    latex="h",
)


@dataclass(frozen=True)
class _Lv:
    d: sp.Symbol
    W: sp.Symbol
    w: sp.Symbol
    eta: sp.Symbol
    alpha: sp.Symbol
    q: sp.Symbol
    m: sp.Symbol
    h: sp.Symbol
    topo: str


def _levels(topos: tuple[str, ...]) -> list[_Lv]:
    return [
        _Lv(
            level("d", k),
            level("W", k),
            level("w", k),
            level("eta", k),
            level("alpha", k),
            level("q", k),
            level("m", k),
            level("h", k),
            t,
        )
        for k, t in enumerate(topos)
    ]


def _lg(x: sp.Expr) -> sp.Expr:
    return sp.log(x, 2)


def bandwidth(lv: _Lv, pattern: str) -> sp.Expr:
    """Effective per-device bandwidth at a level: ``pattern`` 'multi' (all links) or 'single' (one peer)."""
    if lv.topo in ("switch", RAIL_KIND):
        return lv.eta * lv.W
    if pattern == "single":
        return lv.eta * lv.w
    if lv.topo == "mesh":
        return lv.eta * sp.Min(lv.W, (lv.d - 1) * lv.w)
    return lv.eta * sp.Min(lv.W, 2 * lv.m * lv.w)  # torus: bidirectional ring per dimension


def p2p_bandwidth(lv: _Lv, pattern: str, peers: sp.Expr) -> sp.Expr:
    """Bandwidth of p2p traffic to ``peers`` peers at once: link-bound or chunk-pipeline-bound (q/α per peer)."""
    return sp.Min(bandwidth(lv, pattern), peers * lv.q / lv.alpha)


def _R(L: list[_Lv], k: int) -> sp.Expr:
    return sp.Mul(*[lv.d for lv in L[:k]])


def _P(L: list[_Lv], k: int) -> sp.Expr:
    return sp.Mul(*[lv.d for lv in L[k:]])


def _ring_latency(L: list[_Lv], c: int) -> sp.Expr:
    """NCCL ring latency: c(p-1) steps, of which c(P_k - P_{k+1}) cross level k (tuning.cc nInterSteps)."""
    return sp.Add(*[c * (_P(L, k) - _P(L, k + 1)) * lv.alpha for k, lv in enumerate(L)])


def _ring_bw(L: list[_Lv]) -> sp.Expr:
    """Bottleneck of a flat multi-channel ring: min_k R_k·B_k (the R_k ranks under a level share its
    crossings; scaling-book gpus.md 'T = max(bytes/W_gpu, bytes/W_node)')."""
    return sp.Min(*[_R(L, k) * bandwidth(lv, "multi") for k, lv in enumerate(L)])


def _proto(bus: sp.Expr) -> sp.Expr:
    """Bus bandwidth under a protocol: ``min(κ_p·B, B_p)`` (tuning.cc: ring LL ``min(llMaxBw, busBw*.5)``,
    ring LL128 ``busBw*0.92``; Simple ``κ_p = 1, B_p = ∞``)."""
    return sp.Min(KAPPA_P * bus, B_P)


def ring(op: str, L: list[_Lv]) -> sp.Expr:
    """Ring (NCCL Ring; MPICH ring allgather; Baidu/Gibiansky ring all-reduce = RS + AG).

    AR ``2(p-1)α + 2((p-1)/p)·S/B``; RS/AG ``(p-1)α + ((p-1)/p)·S/B``; pipelined broadcast
    ``(p-1)α + S/B`` ([MPICH] allgather_intra_ring.c, allreduce_intra_ring.c; [NT-perf] busbw
    factors; Thakur et al. 2005 §4), with NCCL's split of steps across levels (tuning.cc
    ``(nsteps-nInterSteps)·intraLat + nInterSteps·interLat`` + ``baseLat`` = t_0), the ring
    bottleneck ``B = min_k R_k B_k`` and the protocol's bandwidth ``min(κ_p·B, B_p)``.
    """
    p = _P(L, 0)
    S, t0 = sym("S"), sym("t_0")
    bw = _proto(_ring_bw(L))
    if op == "all_reduce":
        return t0 + _ring_latency(L, 2) + 2 * (p - 1) / p * S / bw
    if op in ("reduce_scatter", "all_gather"):
        return t0 + _ring_latency(L, 1) + (p - 1) / p * S / bw
    if op == "broadcast":
        return t0 + _ring_latency(L, 1) + S / bw
    raise KeyError(op)


def tree(op: str, L: list[_Lv]) -> sp.Expr:
    """All-reduce: NCCL double binary tree ``2·Σ_k h_k·α_k + S/(min(κ_tree·κ_p·B, B_p)/2)`` (NCCL 2.4
    blog: two complementary trees each carrying half; tuning.cc Tree latency ``baseLat +
    2((ppn-1)·intraLat + log2(nNodes)·interLat)``, i.e. h_k = d_k-1 in a node and log2 d_k across
    nodes; algBW = 0.5·busBW, busBW ×0.92, LL ×1/3.8 capped at llMaxBw, LL128 ×7/9 or ×120/128).
    Broadcast: binomial tree ``Σ_k lg(d_k)(α_k + S/B_k)`` ([MPICH] bcast_intra_binomial.c)."""
    S, t0 = sym("S"), sym("t_0")
    if op == "all_reduce":
        lat = sp.Add(*[2 * lv.h * lv.alpha for lv in L])
        return t0 + lat + S / (sp.Min(KAPPA_TREE * KAPPA_P * _ring_bw(L), B_P) / 2)
    if op == "broadcast":
        return t0 + sp.Add(*[_lg(lv.d) * (lv.alpha + S / bandwidth(lv, "single")) for lv in L])
    raise KeyError(op)


def recursive_doubling(op: str, L: list[_Lv]) -> sp.Expr:
    """All-reduce: ``lg p·α + S·lg p·β`` ([MPICH] allreduce_intra_recursive_doubling.c; TRG05 §4.4).
    All-gather: ``lg p·α + ((p-1)/p)·S·β``, largest distance first so the small blocks cross the
    outer levels ([MPICH] allgather_intra_recursive_doubling.c)."""
    S, t0 = sym("S"), sym("t_0")
    if op == "all_reduce":
        return t0 + sp.Add(*[_lg(lv.d) * (lv.alpha + S / bandwidth(lv, "single")) for lv in L])
    if op == "all_gather":
        return t0 + _log_levels(L, 1)
    raise KeyError(op)


def _log_levels(L: list[_Lv], c: int) -> sp.Expr:
    """Σ_k c[lg(d_k)α_k + ((d_k-1)/d_k)(S/R_k)/B_k]: recursive halving (RS, inner level first) or
    doubling (AG, outer level first); level k carries the (S/R_k)-byte share left at that level."""
    S = sym("S")
    return sp.Add(
        *[
            c * (_lg(lv.d) * lv.alpha + (lv.d - 1) / lv.d * (S / _R(L, k)) / bandwidth(lv, "single"))
            for k, lv in enumerate(L)
        ]
    )


def recursive_halving(op: str, L: list[_Lv]) -> sp.Expr:
    """Reduce-scatter by recursive halving: ``lg p·α + ((p-1)/p)·S·β (+γ)`` ([MPICH]
    reduce_scatter_intra_recursive_halving.c; γ folded into η as GPUs reduce at line rate)."""
    if op != "reduce_scatter":
        raise KeyError(op)
    return sym("t_0") + _log_levels(L, 1)


def rabenseifner(op: str, L: list[_Lv]) -> sp.Expr:
    """All-reduce = recursive-halving RS + recursive-doubling AG: ``2 lg p·α + 2((p-1)/p)·S·β``
    ([MPICH] allreduce_intra_reduce_scatter_allgather.c; TRG05 §4.4)."""
    if op != "all_reduce":
        raise KeyError(op)
    return sym("t_0") + _log_levels(L, 2)


def hierarchical(op: str, L: list[_Lv]) -> sp.Expr:
    """Per-level phases, inner level first (Horovod hierarchical all-reduce; BlueConnect, Cho et al.
    SysML 2019; 3-level: Xu et al. 2025). AR ``Σ_k 2[(d_k-1)α_k + ((d_k-1)/d_k)(S/R_k)/B_k]``,
    RS/AG half of it [derived]. All-to-all: DeepSpeed-MoE / Tutel 2DH hierarchical
    all-to-all, ``Σ_k [2α_k + ((d_k-1)/d_k)·S/B_k]`` (Rajbhandari et al. 2022 §5; Hwang et al. 2023) [derived]."""
    S, t0 = sym("S"), sym("t_0")
    if op in ("all_reduce", "reduce_scatter", "all_gather"):
        c = 2 if op == "all_reduce" else 1
        return t0 + sp.Add(
            *[
                c * ((lv.d - 1) * lv.alpha + (lv.d - 1) / lv.d * (S / _R(L, k)) / bandwidth(lv, "multi"))
                for k, lv in enumerate(L)
            ]
        )
    if op == "all_to_all":
        return t0 + sp.Add(
            *[2 * lv.alpha + (lv.d - 1) / lv.d * S / p2p_bandwidth(lv, "multi", lv.d - 1) for lv in L]
        )
    raise KeyError(op)


def in_network(op: str, L: list[_Lv], inr: tuple[bool, ...]) -> sp.Expr:
    """In-network all-reduce (NVLS in NVSwitch, SHARP in IB switches), pipelined across levels.

    At a reducing level each device egresses its (S/R_k) share once for the switch's reduce
    (multimem.ld_reduce) and S/(R_k d_k) for the multicast store, and ingresses the mirror:
    ``((d+1)/d)·(S/R_k)/(κ_inr·B_k)`` ([SB-gpus] 'In network reductions'; the (n-1)/(n+1) busbw
    correction proposed in nccl-tests commit 4ec7c79, not merged upstream; κ_inr = NCCL
    nvlsEfficiency), with one step of latency α_k (tuning.cc NVLS: ``lat = intraLat (+ interLat)``,
    hwLat NVLS NVLink 25 µs, NET 18 µs, baseLat 0). Other levels run a ring on their share, with
    the NVLS-Tree latency ``2·h_k·α_k`` (tuning.cc ``2·log2(nNodes)·interLat``, hwLat NVLSTree
    NET 20.9 µs). NCCL NVLS-Tree overlaps the levels, so the bandwidth terms combine by max.
    """
    if op != "all_reduce":
        raise KeyError(op)
    S, t0 = sym("S"), sym("t_0")
    lat, bw = [], []
    for k, (lv, red) in enumerate(zip(L, inr, strict=True)):
        share = S / _R(L, k)
        if red:
            lat.append(lv.alpha)
            bw.append((lv.d + 1) / lv.d * share / (KAPPA_INR * bandwidth(lv, "multi")))
        else:
            lat.append(2 * lv.h * lv.alpha)
            bw.append(2 * (lv.d - 1) / lv.d * share / bandwidth(lv, "multi"))
    return t0 + sp.Add(*lat) + sp.Max(*bw)


def _rail_level(L: list[_Lv]) -> int | None:
    """Index ``r`` of the first rail-only level when levels lie below it (so that some peers sit at
    another local index of another domain), else None."""
    r = next((k for k, lv in enumerate(L) if lv.topo == RAIL_KIND), None)
    return r if r else None


def _forwarded(L: list[_Lv], r: int) -> sp.Expr:
    """Share of a rank's all-to-all buffer that a rail-only network forwards through level ``r-1``:
    of the ``S·(p - R_r)/p`` bytes bound beyond its domain, those for another local index,
    ``(R_r - 1)/R_r`` of them, first cross the domain to the rank on the destination's rail, which
    sends them on its own NIC (Wang et al., "Rail-only", arXiv 2307.12169: cross-rail traffic
    forwarded through the HB domain; NCCL's PXN relays the same way, NCCL 2.12 release notes)
    [derived]."""
    p, R = _P(L, 0), _R(L, r)
    return (p - R) / p * (R - 1) / R


def direct(op: str, L: list[_Lv]) -> sp.Expr:
    """All-to-all, all peers at once (NCCL grouped send/recv; MPICH isend/irecv): level k carries
    the S·(R_{k+1}-R_k)/p bytes bound to peers across it, levels overlap (max); latency one
    rendezvous (clear-to-send + data, 2α) at the outer level ([SB-gpus] intra/cross-node
    all-to-all) [derived]. Over a rail-only network (a ``rail`` level ``r``) the bytes for another
    local index beyond the domain also cross level ``r-1`` (:func:`_forwarded`), pipelined with the
    rail transfer (levels still overlap), one more step ``α_{r-1}`` of latency. Send/recv:
    ``2α + S/B`` on the outermost level, nccl-tests sendrecv pattern rank -> rank+1 ([NT-perf]
    SendRecvGetBw factor 1)."""
    S, t0 = sym("S"), sym("t_0")
    out = L[-1]
    if op == "send_recv":
        return t0 + 2 * out.alpha + S / p2p_bandwidth(out, "single", sp.Integer(1))
    if op == "all_to_all":
        p = _P(L, 0)
        r = _rail_level(L)
        terms = []
        for k, lv in enumerate(L):
            peers = _R(L, k + 1) - _R(L, k)
            share = peers / p + (_forwarded(L, r) if r is not None and k == r - 1 else 0)
            terms.append(S * share / p2p_bandwidth(lv, "multi", peers))
        hop = L[r - 1].alpha if r is not None else 0
        return t0 + 2 * out.alpha + hop + sp.Max(*terms)
    raise KeyError(op)


def pairwise(op: str, L: list[_Lv]) -> sp.Expr:
    """All-to-all by pairwise exchange: p-1 rounds, one peer each, ``(p-1)(2α) + ((p-1)/p)·S/B``
    ([MPICH] alltoall_intra_pairwise.c). Over a rail-only network each round to another local index
    beyond the domain first crosses level ``r-1`` (one more ``α_{r-1} + (S/p)/B_{r-1}``;
    :func:`_forwarded`) [derived]."""
    if op != "all_to_all":
        raise KeyError(op)
    S, t0 = sym("S"), sym("t_0")
    p = _P(L, 0)
    r = _rail_level(L)
    out = t0 + sp.Add(
        *[
            (_R(L, k + 1) - _R(L, k)) * (2 * lv.alpha + S / p / p2p_bandwidth(lv, "single", sp.Integer(1)))
            for k, lv in enumerate(L)
        ]
    )
    if r is None:
        return out
    fwd = L[r - 1]
    return out + p * _forwarded(L, r) * (fwd.alpha + S / p / p2p_bandwidth(fwd, "single", sp.Integer(1)))


def deepep_low_latency(op: str, L: list[_Lv]) -> sp.Expr:
    """DeepEP low-latency dispatch / combine (deepseek-ai/DeepEP, "low-latency kernels with pure
    RDMA"): GPU-initiated one-sided writes of every (token, expert) copy straight to its expert's
    rank (InfiniBand GPUDirect Async, no NCCL chunk pipeline and no per-peer rendezvous), NVLink
    inside a node; ``S`` is the bytes a rank sends over all its (token, expert) pairs, a share
    ``(R_{k+1}-R_k)/p`` of it crossing level ``k`` at the level's line rate (levels overlap: max).
    Fixed cost: ``t_0`` (the send and the receive kernels, each a kernel launch: DeepEP splits the
    two phases, the receive run by a hook) and one write plus its completion signal at the outer
    level, ``2α`` [derived]. Over a rail-only network the copies for another local index beyond the
    domain are forwarded through level ``r-1`` first, as :func:`direct`."""
    if op != "all_to_all":
        raise KeyError(op)
    S, t0 = sym("S"), sym("t_0")
    p = _P(L, 0)
    r = _rail_level(L)
    terms = [
        S
        * ((_R(L, k + 1) - _R(L, k)) / p + (_forwarded(L, r) if r is not None and k == r - 1 else 0))
        / bandwidth(lv, "multi")
        for k, lv in enumerate(L)
    ]
    hop = L[r - 1].alpha if r is not None else 0
    return t0 + 2 * L[-1].alpha + hop + sp.Max(*terms)


def deepep_normal(op: str, L: list[_Lv]) -> sp.Expr:
    """DeepEP normal dispatch / combine (deepseek-ai/DeepEP, "normal kernels with NVLink and RDMA
    forwarding", the DeepSeek-V3 training / prefill setting): a token goes once over RDMA to each
    other node holding one of its experts (to the rank with its own local index), which forwards it
    over NVLink to the target ranks; node-limited routing, at most ``M`` nodes per token (DeepSeek-V3
    §2.1.2). ``S``: the rank's tokens, each once. With the ``k`` experts uniform over the ``g =
    min(N, M)`` selected nodes of ``G`` ranks each (the test's random scores), a token reaches
    ``g·f`` nodes, ``f = 1 − (1 − 1/g)^k``, of which ``(g/N)·f`` is its own, and
    ``g·G·(1 − (1 − 1/(gG))^k)`` ranks; every received token passes the NVLink buffers, a rank's own
    included (csrc/kernels/intranode.cu: the senders loop over every rank). RDMA and NVLink overlap:
    ``t_0 + 2α + max(S·(g·f − (g/N)·f)/B_net, S·ranks/B_nvl)`` [derived]."""
    if op != "all_to_all":
        raise KeyError(op)
    S, t0, k, M = sym("S"), sym("t_0"), MOE_K, MOE_NODES
    G = L[0].d
    N = sp.Mul(*[lv.d for lv in L[1:]]) if len(L) > 1 else sp.Integer(1)
    g = sp.Min(N, M)
    f = 1 - (1 - 1 / g) ** k
    ranks = g * G * (1 - (1 - 1 / (g * G)) ** k)
    nvl = S * ranks / bandwidth(L[0], "multi")
    if len(L) == 1:
        return t0 + 2 * L[0].alpha + nvl
    remote = g * f - (g / N) * f
    return t0 + 2 * L[-1].alpha + sp.Max(S * remote / bandwidth(L[-1], "multi"), nvl)


def rdma_write(op: str, L: list[_Lv]) -> sp.Expr:
    """One-sided RDMA write of a buffer into another rank's memory, as KV-cache transfer engines run
    it (Mooncake Transfer Engine, NIXL; GPUDirect RDMA): the outer level's line rate summed over the
    ``n_nic`` NICs the transfer is striped over (Mooncake slices a request above 16 KB across every
    NIC of its topology-aware path, kvcache-ai/Mooncake doc/en/transfer-engine.md), no NCCL chunk
    pipeline and no rendezvous; a write and its completion notice, ``2α``:
    ``2α + S / (n_nic·η·W)`` [derived]."""
    if op != "send_recv":
        raise KeyError(op)
    S, t0 = sym("S"), sym("t_0")
    out = L[-1]
    return t0 + 2 * out.alpha + S / (N_NIC * bandwidth(out, "multi"))


def star(op: str, L: list[_Lv]) -> sp.Expr:
    """Star (hub) all-reduce: every rank sends its buffer to one hub, which sums and sends the
    result back (TPI-LLM, Li et al. 2024, arXiv 2410.00531 §3.2 Prop. 2 and App. A.1:
    ``t_star = 2(t_data + t_link) + t_barrier + t_aggr``, barrier and aggregation ≈ 0 (0.1 ms);
    Lizonghang/TPI-LLM src/tpi_llm/distributed/comm.py ``CommunicatorMaster.all_reduce``: the
    master receives each worker's tensor, adds it, sends the sum to each; the parameter-server
    push / pull of MXNet, Chen et al. 2015). Two steps of latency at the outer level, and the hub's
    links carry the other ``p-1`` buffers in and the result out: level ``k`` the ``R_{k+1}-R_k``
    ranks reached across it, levels overlap (max): ``t_0 + 2α + 2·max_k S(R_{k+1}-R_k)/B_k``, one
    level ``t_0 + 2α + 2(p-1)·S/B`` [derived: TPI-LLM's t_data is one buffer's path time, which
    leaves out the hub link's (p-1)-fold load]."""
    if op != "all_reduce":
        raise KeyError(op)
    S, t0 = sym("S"), sym("t_0")
    terms = [S * (_R(L, k + 1) - _R(L, k)) / bandwidth(lv, "multi") for k, lv in enumerate(L)]
    return t0 + 2 * L[-1].alpha + 2 * sp.Max(*terms)


_BUILDERS: dict[str, Callable[[str, list[_Lv]], sp.Expr]] = {
    "ring": ring,
    "tree": tree,
    "recursive_doubling": recursive_doubling,
    "recursive_halving": recursive_halving,
    "rabenseifner": rabenseifner,
    "hierarchical": hierarchical,
    "direct": direct,
    "pairwise": pairwise,
    "deepep_low_latency": deepep_low_latency,
    "rdma_write": rdma_write,
    "deepep_normal": deepep_normal,
    "star": star,
}


def expression(shape: Shape) -> sp.Expr:
    """Time (s) of one collective of this shape, as a sympy expression."""
    if shape.algo not in ALGORITHMS.get(shape.op, ()):
        raise KeyError(f"{shape.op} has no algorithm {shape.algo}")
    L = _levels(shape.topos)
    if shape.algo == "in_network":
        return in_network(shape.op, L, shape.inr)
    return _BUILDERS[shape.algo](shape.op, L)


def generated_shapes() -> list[Shape]:
    """Shapes pre-generated into the runtime module: every op/algorithm on 1-3 levels whose
    inner level is a switch, mesh or torus and whose outer levels are switches, and the forwarded
    all-to-alls (:data:`RAIL_FORWARDED`) with rail-only outer levels."""
    out: list[Shape] = []
    topo_sets = [(t,) + ("switch",) * extra for extra in range(3) for t in TOPOLOGY_KINDS]
    for op in OPS:
        for algo in ALGORITHMS[op]:
            for topos in topo_sets:
                if algo != "in_network":
                    out.append(Shape(op, algo, topos))
                    continue
                for inr in itertools.product((False, True), repeat=len(topos)):
                    if any(inr) and all(not f or t == "switch" for f, t in zip(inr, topos, strict=True)):
                        out.append(Shape(op, algo, topos, inr))
    rails = [(t,) + (RAIL_KIND,) * extra for extra in (1, 2) for t in TOPOLOGY_KINDS]
    out += [Shape(op, a, topos) for op, algos in RAIL_FORWARDED.items() for a in algos for topos in rails]
    return out


GENERATED = Path(__file__).with_name("_generated.py")
HEADER = generated_header(
    "llmcost.collectives.formulas",
    "tests/test_symbolic.py",
    "One numpy function per expression shape; FUNCTIONS maps the shape name to\n(function, argument names, expression hash).",
)


def generated_source() -> str:
    """Source of the runtime module for :func:`generated_shapes`."""
    from llmcost.symbolic.compile import module_source

    entries = []
    for sh in generated_shapes():
        expr = expression(sh)
        entries.append((sh.name, expr, arguments(expr), ""))
    return module_source(entries, header=HEADER)


if __name__ == "__main__":
    write_generated(GENERATED, generated_source())


def substitutions(
    expr: sp.Expr, vals: dict[str, object], *, keep: tuple[str, ...] = ()
) -> dict[sp.Symbol, sp.Expr]:
    """``{Symbol: value}`` for the free symbols of ``expr`` named in ``vals``, except ``keep`` (inf -> oo)."""
    out: dict[sp.Symbol, sp.Expr] = {}
    for s in expr.free_symbols:
        if s.name in keep or s.name not in vals:
            continue
        fv = float(vals[s.name])  # type: ignore[arg-type]
        out[s] = sp.oo if fv == float("inf") else sp.Float(fv)
    return out


def crossover(
    a: Shape,
    b: Shape,
    vals: dict[str, object],
    lo: float = 1.0,
    hi: float = 2.0**44,
    vals_b: dict[str, object] | None = None,
) -> list[float]:
    """Sizes S (bytes) in [lo, hi] where shapes ``a`` and ``b`` cost the same, all other symbols at
    ``vals`` (``vals_b`` for ``b`` when given: another algorithm's or protocol's latencies):
    ``sympy.solve`` on the affine-in-S expressions, else ``nsolve`` from each sign change of the
    difference on a log grid (Min/Max make it piecewise affine)."""
    S = sym("S")
    ea, eb = expression(a), expression(b)
    vb = vals if vals_b is None else vals_b
    diff = sp.N(ea.subs(substitutions(ea, vals, keep=("S",))) - eb.subs(substitutions(eb, vb, keep=("S",))))
    roots: list[float] = []
    try:
        sols = sp.solve(diff, S, rational=False)
        roots = [float(r) for r in sols if r.is_real and lo <= float(r) <= hi]
    except (NotImplementedError, TypeError, ValueError):
        sols = None
    if sols is None:
        f = sp.lambdify(S, diff, "math")
        grid = [lo * (hi / lo) ** (i / 400) for i in range(401)]
        signs = [f(x) for x in grid]
        for x0, x1, f0, f1 in zip(grid, grid[1:], signs, signs[1:], strict=False):
            if f0 == 0 or f0 * f1 < 0:
                try:
                    roots.append(float(sp.nsolve(diff, S, (x0, x1), solver="bisect")))
                except (ValueError, ZeroDivisionError):
                    roots.append(x0)
    return sorted(set(roots))
