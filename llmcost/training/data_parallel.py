"""Stage 4 of a training step: data-parallel traffic and its overlap, ZeRO-3 gathers layer by
layer, and the optimizer step or host offload (runtime: no sympy).

Gradients are reduced over the ``d·c`` data x context ranks (experts over their expert-data-
parallel ranks) every step, or, with DiLoCo (plan ``sync_interval`` H > 1), every parameter's delta
once per H steps (``dp__diloco``); the sharded optimizer (ZeRO-1/2, Megatron distributed optimizer) reduce-scatters
the gradients and all-gathers the parameters once per step, ZeRO-3 one layer at a time (in
prefetch buckets, one collective each, where the plan sets ``zero3_bucket``). What is
exposed: ``dp__overlap`` / ``dp__serial`` and ``zero3`` / ``zero3__serial`` of :mod:`llmcost.training.formulas`;
the optimizer step ``optimizer``; host offload :func:`offload_time`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from llmcost.collectives.grid import collective_v, group_gpn
from llmcost.hardware import Hardware
from llmcost.training import _generated as G
from llmcost.training.base import BUCKET_PARAMS, PRECISIONS, RECOMPUTE, comm_share
from llmcost.training.columns import Plans, key
from llmcost.training.memory import StageParams
from llmcost.training.pipeline import StageTimes


@dataclass
class DPCollectives:
    """Per plan row: gradient reduction ``t_dp`` and parameter all-gather ``t_ag`` per step (0 with
    ZeRO-3), and ZeRO-3's per-layer gather ``z3_ag`` and reduce-scatter ``z3_rs`` (0 without)."""

    t_dp: np.ndarray
    t_ag: np.ndarray
    z3_ag: np.ndarray
    z3_rs: np.ndarray
    hbm: DPHbm
    t_frag: np.ndarray
    """Streaming DiLoCo: one fragment's outer all-reduce (0 elsewhere)."""


@dataclass
class DPHbm:
    """Per plan row, the HBM bytes each device moves in the collectives of :class:`DPCollectives`
    (ring: ``comm__hbm_ring_*``): ``dp`` the gradient reduction, ``ag`` the parameter all-gather,
    ``z3_ag`` / ``z3_rs`` one ZeRO-3 layer's gather / reduce-scatter."""

    dp: np.ndarray
    ag: np.ndarray
    z3_ag: np.ndarray
    z3_rs: np.ndarray


@dataclass
class DataParallelTimes:
    """Per plan row: the exposed data-parallel time ``dp_exposed`` (gradient buckets
    ``n_buckets``, ``n_red`` reductions per step), ZeRO-3's exposed time ``z3_exposed`` (``z3_rc``: full recomputation gathers a
    third time; it includes ``z3_copy``, FSDP2's copy-out of the gathers on the compute stream), the
    optimizer step ``t_opt``, the host offload ``t_off`` and the HBM times ``hbm_t`` that went into the
    exposed figures (:func:`_hbm_times`)."""

    coll: DPCollectives
    n_buckets: np.ndarray
    n_red: np.ndarray
    dp_exposed: np.ndarray
    z3_rc: np.ndarray
    z3_exposed: np.ndarray
    t_opt: np.ndarray
    t_off: np.ndarray
    hbm_t: dict[str, np.ndarray] = field(default_factory=dict)
    z3_copy: np.ndarray | float = 0.0


def dp_collectives(hw: Hardware, p: Plans, st: StageTimes, sp: StageParams) -> DPCollectives:
    """The data-parallel collectives of every row, once per configuration they depend on. ZeRO-3
    moves one layer at a time (the average layer of the busiest stage), in ``n_z3`` collectives
    of ``1/n_z3`` of it each where the plan sets ``zero3_bucket`` (:func:`zero3_collectives`);
    the sharded optimizer (ZeRO-1/2, distributed optimizer) the whole shard once per step; plain
    DP all-reduces, DiLoCo (``sync`` > 1) all-reduces ``diloco__outer_bytes`` (``t_dp`` is then the
    outer all-reduce, once per H steps)."""
    c, tp, dpc, exp_dp, dense, expert = p.c, p.tp, p.dpc, p.exp_dp, sp.dense, sp.expert
    gpn_dp, gpn_edp, stride = dp_groups(hw, p)
    z3, dist_opt = p.zero == 3, p.dist_opt
    df, dinv = key(
        c["gpus"],
        tp,
        p.pp,
        p.v,
        p.cp,
        p.ep,
        c["zmode"],
        c["prec"],
        c["gf32"],
        c["z3b"],
        c["sync"],
        c["syncb"],
        c["sfrag"],
    )

    slow = hw.slow_nic_view()  # (devices on the tier's own NIC, the entry on the slow NICs)
    mixed = np.zeros(df.size, dtype=bool) if slow is None else c["gpus"][df] > slow[0]

    def coll(op: str, size: np.ndarray, group: np.ndarray, gpn: np.ndarray) -> np.ndarray:
        """Per row; a job with ranks on slow NICs (``slow_nics``) moves at the slowest link."""
        s, g, n, k = size[df], group[df], gpn[df], stride[df]
        t = collective_v(hw, op, np.where(mixed, 0.0, s), g, n, k)
        if mixed.any() and slow is not None:
            t = np.where(mixed, collective_v(slow[1], op, np.where(mixed, s, 0.0), g, n, k), t)
        return t[dinv]

    per = np.where(z3, 1.0 / np.maximum(st.n_lay, 1.0), np.where(dist_opt, 1.0, 0.0))
    n_d, n_e = (zero3_collectives(x * per, z3, c["z3b"]) for x in (dense, expert))

    def moved(
        op: str, psi: np.ndarray, b: np.ndarray, n: np.ndarray, group: np.ndarray, gpn: np.ndarray
    ) -> np.ndarray:
        """``n`` collectives of ``1/n`` of ``psi·b·per`` bytes (``zero3__layer_comm``)."""
        return G.zero3__layer_comm(n, coll(op, G.zero3__collective_bytes(psi * b * per, n), group, gpn))

    ag_d = moved("all_gather", dense, p.b_w, n_d, dpc, gpn_dp)
    ag_e = moved("all_gather", expert, p.b_w, n_e, exp_dp, gpn_edp)
    rs_d = moved("reduce_scatter", dense, p.b_g, n_d, dpc, gpn_dp)
    rs_e = moved("reduce_scatter", expert, p.b_g, n_e, exp_dp, gpn_edp)
    plain = ~(z3 | dist_opt)
    diloco = c["sync"] > 1  # the outer all-reduce of every parameter (dp__diloco), ep 1: one group
    ar_size = dense * p.b_g
    if diloco.any():
        ar_size = np.where(diloco, G.diloco__outer_bytes(c["syncb"] / 8.0, dense, expert), ar_size)
    ar_d = coll("all_reduce", np.where(plain, ar_size, 0.0), dpc, gpn_dp)
    ar_e = coll("all_reduce", np.where(plain & ~diloco, expert * p.b_g, 0.0), exp_dp, gpn_edp)
    t_frag = np.zeros(p.n)
    streaming = streamed(p)
    if streaming.any():
        frag = G.diloco__fragment_bytes(c["syncb"] / 8.0, dense, expert, c["sfrag"])
        t_frag = coll("all_reduce", np.where(streaming, frag, 0.0), dpc, gpn_dp)
    fetch = param_fetch(hw, p, (dense / dpc + expert / np.maximum(exp_dp, 1)) * per)
    hbm = _hbm(p, sp, per, np.where(plain, ar_size, 0.0))
    return DPCollectives(
        t_dp=np.where(z3, 0.0, np.where(dist_opt, rs_d + rs_e, ar_d + ar_e)),
        t_ag=np.where(z3 | ~dist_opt, 0.0, ag_d + ag_e),
        z3_ag=np.where(z3, ag_d + ag_e + fetch, 0.0),  # per layer, per pass (the tier fetch first)
        z3_rs=np.where(z3, rs_d + rs_e, 0.0),
        hbm=hbm,
        t_frag=t_frag,
    )


def _hbm(p: Plans, sp: StageParams, per: np.ndarray, ar_size: np.ndarray) -> DPHbm:
    """:class:`DPHbm` of every row: the ring figures of the same buffers :func:`dp_collectives`
    moves (``per``: the share of the stage's parameters one sharded collective moves; ``ar_size``
    the plain all-reduce's bytes), over the data-parallel and expert-data-parallel groups."""
    z3, dist_opt = p.zero == 3, p.dist_opt
    plain = ~(z3 | dist_opt)

    def ring(f: Any, size: np.ndarray, group: np.ndarray) -> np.ndarray:
        return np.where(group > 1, f(size, group), 0.0)

    def both(f: Any, b: np.ndarray) -> np.ndarray:
        return ring(f, sp.dense * b * per, p.dpc) + ring(f, sp.expert * b * per, p.exp_dp)

    diloco = p.c["sync"] > 1
    ar = ring(G.comm__hbm_ring_ar, ar_size, p.dpc)
    ar = ar + ring(G.comm__hbm_ring_ar, np.where(plain & ~diloco, sp.expert * p.b_g, 0.0), p.exp_dp)
    rs, ag = both(G.comm__hbm_ring_rs, p.b_g), both(G.comm__hbm_ring_ag, p.b_w)
    return DPHbm(
        dp=np.where(z3, 0.0, np.where(dist_opt, rs, ar)),
        ag=np.where(z3 | ~dist_opt, 0.0, ag),
        z3_ag=np.where(z3, ag, 0.0),
        z3_rs=np.where(z3, rs, 0.0),
    )


def streamed(p: Plans) -> np.ndarray:
    """Rows running Streaming DiLoCo: the outer sync in fragments or overlapped (plan
    ``sync_fragments`` > 1 or ``sync_overlap`` > 0)."""
    return (p.c["sync"] > 1) & ((p.c["sfrag"] > 1) | (p.c["sovl"] > 0))


def streaming_exposed(
    p: Plans, t_frag: np.ndarray, t_inner: np.ndarray, dp_exposed: np.ndarray
) -> np.ndarray:
    """``dp_exposed`` with Streaming DiLoCo's rows (:func:`streamed`) replaced by ``dp__streaming``:
    each fragment's all-reduce ``t_frag`` exposes only its excess over ``sync_overlap`` inner steps of
    ``t_inner`` (the step without the outer sync)."""
    s = streamed(p)
    if not s.any():
        return dp_exposed
    c = p.c
    return np.where(s, G.dp__streaming(c["sfrag"], c["sync"], c["sovl"], t_frag, t_inner), dp_exposed)


def dp_groups(hw: Hardware, p: Plans) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ranks per node of the dense and of the expert data-parallel group, devices between their
    ranks) of every row. Megatron's order (tensor innermost, then context, data, pipeline outermost:
    the stride is left to the ranks per node, 1); a job larger than a WAN site (the hardware's
    ``wan`` tier: :meth:`~llmcost.hardware.Hardware.wan_site`) keeps whole replicas (tp x pp, the
    ``RULES`` require cp 1 and ep 1 there) in a site with data parallelism outermost, across the
    sites: ranks ``tp·pp`` devices apart (Megatron-LM ``--use-tp-pp-dp-mapping``)."""
    gpn_dp = group_gpn(p.gpn, p.dpc, p.tp)
    gpn_edp = np.where(p.exp_dp > 1, group_gpn(p.gpn, p.exp_dp, p.c["etp"] * p.ep), 1)  # outside ETP x EP
    site = hw.wan_site()
    if site is None:
        return gpn_dp, gpn_edp, np.ones(p.n, dtype=np.int64)
    outer, w = p.c["gpus"] > site, p.tp * p.pp
    gpn_dp = np.where(outer, group_gpn(p.gpn, p.dpc, w), gpn_dp)
    gpn_edp = np.where(outer & (p.exp_dp > 1), group_gpn(p.gpn, p.exp_dp, w), gpn_edp)
    return gpn_dp, gpn_edp, np.where(outer, w, 1)


def param_fetch(hw: Hardware, p: Plans, shard: np.ndarray) -> np.ndarray:
    """Per layer and pass, the fetch of each device's ``shard`` of parameters from the offload tier
    where the plan offloads them (``offload__param_fetch``; 0 elsewhere)."""
    from llmcost.training.base import offload_params, offload_tier

    params = offload_params(p.c["offload"])
    if not np.any(params):
        return np.zeros(p.n)
    tier = offload_tier(p.c["offload"])
    link, _, nvme = hw.host_bandwidths(need_nvme=bool(np.any(params & (tier == 2))))
    node = hw.node_share(p.gpn)
    nv = np.where(tier == 2, 1.0, 0.0)
    bw = np.where(tier == 2, nvme if nvme else 1.0, link)
    t = G.offload__param_fetch(p.b_w, shard, bw, np.where(nv > 0, node, 1))
    return np.where(params, t, 0.0)


def zero3_collectives(psi_layer: np.ndarray, z3: np.ndarray, bucket: np.ndarray) -> np.ndarray:
    """ZeRO-3 collectives per layer and pass of every row (``zero3__collectives``): one where the
    plan gathers per layer (``zero3_bucket`` unset, column 0), without ZeRO-3, or with nothing to
    move."""
    bucketed = z3 & (bucket > 0) & (psi_layer > 0)
    if not bucketed.any():
        return np.ones(np.shape(psi_layer))
    return np.where(bucketed, G.zero3__collectives(psi_layer, np.maximum(bucket, 1)), 1.0)


def data_parallel(hw: Hardware, p: Plans, st: StageTimes, sp: StageParams) -> DataParallelTimes:
    """Exposed data-parallel and ZeRO-3 time, optimizer step and offload of every row."""
    dc = dp_collectives(hw, p, st, sp)
    z3 = p.zero == 3
    z3_rc = (p.c["rc"] == RECOMPUTE.index("full")).astype(float)  # full recompute gathers a third time
    n_buckets = np.maximum(1.0, (sp.dense + sp.expert) / BUCKET_PARAMS)
    overlap = p.c["overlap"] == 1
    s_comm = comm_share(hw)
    n_red = np.where(p.zero == 2, p.m, 1).astype(float)  # ZeRO-2 reduces after every backward
    m = _hbm_times(hw, p, st, dc.hbm)
    dp_exposed = G.dp__overlap(
        m["ag"], m["m_b"], m["dp"], m["m_f"], n_buckets, n_red, s_comm, dc.t_ag, st.t_b, dc.t_dp, st.t_f
    )
    if not overlap.all():
        dp_exposed = np.where(overlap, dp_exposed, G.dp__serial(n_red, dc.t_ag, dc.t_dp))
    diloco = p.c["sync"] > 1  # t_dp is then the outer all-reduce, once per sync_interval steps
    if diloco.any():
        dp_exposed = np.where(diloco, G.dp__diloco(p.c["sync"], dc.t_dp), dp_exposed)
    z3_copy = np.where(
        z3 & (p.c["z3co"] == 1),
        G.zero3__copy_out(p.b_w, hw.memory_efficiency, hw.memory_bandwidth, p.m, sp.dense + sp.expert),
        0.0,
    )
    z3_exposed = np.where(
        z3,
        G.zero3(
            layers_stage=st.n_lay, m_bwd=m["m_b"], m_fwd=m["m_f"], m_rc=m["m_rc"], m_z3_ag=m["z3_ag"],
            m_z3_rs=m["z3_rs"], n_micro=p.m, s_comm=s_comm, t_bwd=st.t_b, t_fwd=st.t_f, t_rc=st.t_rc,
            t_z3_ag=dc.z3_ag, t_z3_copy=z3_copy, t_z3_rs=dc.z3_rs, z3_rc=z3_rc,
        ),
        0.0,
    )  # fmt: skip
    serial = z3 & (p.c["z3s"] == 1)  # DeepSpeed before v0.6.0 on large models: no prefetch
    if serial.any():
        z3_serial = G.zero3__serial(
            layers_stage=st.n_lay,
            n_micro=p.m,
            t_z3_ag=dc.z3_ag,
            t_z3_copy=z3_copy,
            t_z3_rs=dc.z3_rs,
            z3_rc=z3_rc,
        )
        z3_exposed = np.where(serial, z3_serial, z3_exposed)
    t_opt, t_off = optimizer_step(hw, p, sp)
    return DataParallelTimes(dc, n_buckets, n_red, dp_exposed, z3_rc, z3_exposed, t_opt, t_off, m, z3_copy)


def _hbm_times(hw: Hardware, p: Plans, st: StageTimes, h: DPHbm) -> dict[str, np.ndarray]:
    """HBM times (bytes over ``η_m·W_hbm``) of the data-parallel collectives and of the stage's
    passes they overlap, where the plan counts HBM contention (plan ``hbm_contention``), else 0."""
    on = np.where(p.c["hbmc"] == 1, 1.0, 0.0)
    bw = hw.memory_efficiency * hw.memory_bandwidth
    out = {k: getattr(h, k) / bw * on for k in ("dp", "ag", "z3_ag", "z3_rs")}
    return out | {k: getattr(st, k) * on for k in ("m_f", "m_b", "m_rc")}


def optimizer_step(hw: Hardware, p: Plans, sp: StageParams) -> tuple[np.ndarray, np.ndarray]:
    """(optimizer step on the device, host offload) per row: the parameters one device updates,
    its optimizer shard, through ``optimizer``; with offload the step runs on the host instead."""
    dense, expert, dpc, exp_dp = sp.dense, sp.expert, p.dpc, p.exp_dp
    z_o = np.where(p.dist_opt | (p.zero > 0), dpc, 1)
    # the memory rule (memory__optimizer): dense states over z_o ranks, expert states over at most
    # the expert-data-parallel ranks that hold the same experts
    psi_opt = dense / z_o + expert / np.minimum(z_o, np.maximum(exp_dp, 1))
    off = p.c["offload"]
    t_opt = G.optimizer(
        b_g=p.b_g,
        b_mp=mp_bytes(p),
        b_w=p.b_w,
        eta_m=hw.memory_efficiency,
        mem_bw=hw.memory_bandwidth,
        psi_opt=psi_opt,
    )
    t_off = np.zeros(p.n)
    if off.any():  # ZeRO-Offload: the optimizer step runs on the host
        t_opt = np.where(off == 0, t_opt, 0.0)
        t_off = offload_time(hw, off, p.gpn, psi_opt, p.b_w, p.b_g)
    return t_opt, t_off


def mp_bytes(p: Plans) -> np.ndarray:
    """Bytes per parameter the mixed-precision optimizer's own passes add to the step (``optimizer__mp_bytes``)
    where the plan runs them (plan ``optimizer_passes``), else 0: the copy of 16-bit main gradients to
    fp32, fp16's unscale and inf check (loss scaling in fp16 only), the gradient norm and the master's
    re-read for the 16-bit copy."""
    on = p.c["mpo"] == 1
    if not on.any():
        return np.zeros(p.n)
    s_ls = (p.c["prec"] == PRECISIONS.index("fp16")).astype(float)
    c_cp = (p.c["gf32"] == 0).astype(float)  # 16-bit main gradients (the resolved grad_reduce_in_fp32)
    return np.where(on, G.optimizer__mp_bytes(b_g=p.b_g, c_cp=c_cp, s_ls=s_ls), 0.0)


def offload_time(
    hw: Hardware, offload: np.ndarray, gpn: np.ndarray, psi_opt: np.ndarray, b_w: np.ndarray, b_g: np.ndarray
) -> np.ndarray:
    """Exposed host offload per step for plans whose ``offload`` index
    (:data:`llmcost.training.base.OFFLOAD`) is not 'none' (0 elsewhere): ``offload__cpu``
    (ZeRO-Offload) and ``offload__nvme`` (ZeRO-Infinity) with the catalog's ``host_memory``
    link, memory and NVMe bandwidths, the node's devices sharing the host."""
    from llmcost.training.base import offload_tier

    nvme = offload_tier(offload) == 2
    link, hbw, nvme_bw = hw.host_bandwidths(need_nvme=bool(np.any(nvme)))
    node = hw.node_share(gpn)
    t = G.offload__cpu(b_g, b_w, hw.memory_efficiency, link, hbw, psi_opt, node)
    if nvme.any():
        t = np.where(nvme, G.offload__nvme(nvme_bw, psi_opt, node, t), t)
    return np.where(offload > 0, t, 0.0)
