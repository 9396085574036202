"""Stages 2 and 3 of a training step: the busiest pipeline stage, and the pipeline schedule with
its bubble and send/recvs (runtime: no sympy).

Layers per stage: :func:`llmcost.training.base.stage_layers` (a stated layout, else an even
split); the stage with the largest compute + exposed communication per micro-batch paces the
pipeline. Schedule, bubble and p2p: the
``pipeline__*`` / ``bubble__*`` entries of :mod:`llmcost.training.formulas`; the p2p carries one
micro-batch's boundary activations, scattered over TP ranks (Narayanan 2021 §4.1).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from llmcost.collectives.grid import collective_v, group_gpn
from llmcost.hardware import Hardware
from llmcost.model.spec import ModelSpec
from llmcost.training import _generated as G
from llmcost.training.base import SCHEDULES, mtp_indices, stage_layers
from llmcost.training.columns import Plans, key
from llmcost.training.compute import rowsum
from llmcost.training.layers import LayerTable, ModelLayers
from llmcost.training.memory import StageParams, params_per_device

PARTS = ("t_f", "t_b", "t_rc", "t_tp", "t_cp", "t_ep")
"""Per-micro-batch times of a stage: compute (forward, backward, recompute), exposed TP, CP, EP."""
HBM_PARTS = ("m_f", "m_b", "m_rc")
IO_HBM = ("h_io_f", "h_io_b")
"""The HBM time of the stage's embedding / head / loss, forward and backward (the power limit's
compute-bound share, :func:`llmcost.training.step.throttle`)."""
"""Per-micro-batch HBM times of a stage's layers (forward, backward, recompute; the embedding, head
and loss left out): what overlapped data-parallel and ZeRO-3 traffic competes with."""


@dataclass
class StageTimes:
    """Per plan row, one micro-batch on the busiest pipeline stage: forward, backward, recompute
    and exposed TP / CP / EP communication, the layers the stage holds (all its chunks), and the HBM
    time of its layers' forward, backward and recomputation (:data:`HBM_PARTS`); ``r_bub`` the
    per-micro-batch time of the average other stage over the busiest's (1 without pipelining), the
    pace of the bubble (``bubble__*``)."""

    t_f: np.ndarray
    t_b: np.ndarray
    t_rc: np.ndarray
    t_tp: np.ndarray
    t_cp: np.ndarray
    t_ep: np.ndarray
    n_lay: np.ndarray
    r_bub: np.ndarray
    m_f: np.ndarray
    m_b: np.ndarray
    m_rc: np.ndarray
    h_io_f: np.ndarray
    h_io_b: np.ndarray


@dataclass
class PipelineTimes:
    """Per plan row: exposed communication of one micro-batch ``t_comm``, one pipeline send/recv
    ``t_p2p``, the pipeline's time over the step ``pipe``, its bubble, the send/recv time left on
    the critical path ``t_pp_p2p``, and for DeepSpeed's PipelineEngine the TP share's send/recv
    ``t_p2p_part`` and the TP all-gather rebuilding it ``t_pp_ag`` (:func:`_p2p`)."""

    t_comm: np.ndarray
    t_p2p: np.ndarray
    pipe: np.ndarray
    bubble: np.ndarray
    t_pp_p2p: np.ndarray
    t_p2p_part: np.ndarray
    t_pp_ag: np.ndarray


def busiest_stage(
    spec: ModelSpec, mdl: ModelLayers, lt: LayerTable, inv: np.ndarray, p: Plans
) -> tuple[StageTimes, StageParams]:
    """The busiest stage's times and the parameters / first-stage layers of every row
    (:func:`stage_params`), once per (pp, v) split of the layers."""
    n = p.n
    st = {k: np.zeros(n) for k in (*PARTS, *HBM_PARTS, *IO_HBM, "n_lay")}
    st["r_bub"] = np.ones(n)
    lfirst, linv = key(p.pp, p.v)
    for li, f0 in enumerate(lfirst):
        rows = np.flatnonzero(linv == li)
        comps, mult = _split(spec, int(p.pp[f0]), int(p.v[f0]))[:2]
        parts = [_stage_parts(lt, comp, inv[rows]) for comp in comps]
        totals = np.stack([stage_total([q[k] for k in PARTS]) for q in parts])
        best = np.argmax(totals, axis=0)
        for k in (*PARTS, *HBM_PARTS, *IO_HBM):
            st[k][rows] = np.choose(best, [q[k] for q in parts])
        st["n_lay"][rows] = np.choose(best, [float(sum(comp[0])) for comp in comps])
        st["r_bub"][rows] = _other_pace(totals, best, np.array(mult, dtype=float))
    return StageTimes(**st), stage_params(spec, p)


def stage_total(parts: list[np.ndarray]) -> np.ndarray:
    """A stage's per-micro-batch time: its :data:`PARTS` in that order, added left to right (the same
    bits wherever it is summed)."""
    out = parts[0]
    for x in parts[1:]:
        out = out + x
    return out


def _other_pace(totals: np.ndarray, best: np.ndarray, mult: np.ndarray) -> np.ndarray:
    """Per row, the mean per-micro-batch time of the stages other than the busiest over the
    busiest's (``totals``: [composition, row]; ``mult``: stages of each composition); 1 with one
    stage or nothing to time."""
    others = mult.sum() - 1.0
    if others < 1.0 or totals.shape[0] == 1:
        return np.ones(totals.shape[1])  # one stage, or every stage alike
    top = np.take_along_axis(totals, best[None, :], axis=0)[0]
    rest = (mult[:, None] * totals).sum(axis=0) - top  # row by row: the same bits for one plan or many
    return np.where(top > 0, rest / (others * np.where(top > 0, top, 1.0)), 1.0)


def stage_params(spec: ModelSpec, p: Plans) -> StageParams:
    """Per row, the parameters on one device of the busiest stage (dense divided by tp, expert by the
    expert TP degree, plan ``expert_tp``; :func:`llmcost.training.memory.params_per_device` once per
    (pp, v, ep)) and the first stage's dense-FFN / MoE-FFN layers."""
    first, inv = key(p.pp, p.v, p.ep)
    trip = [(int(p.pp[i]), int(p.v[i]), int(p.ep[i])) for i in first]
    held = [params_per_device(spec, *t) for t in trip]
    split = [_split(spec, pp, v) for pp, v, _ in trip]
    dense = np.array([h.dense for h in held], dtype=float)[inv]
    expert = np.array([h.expert for h in held], dtype=float)[inv]
    n0 = np.array([n for _, _, n, _ in split], dtype=float)[inv]
    moe0 = np.array([m for _, _, _, m in split], dtype=float)[inv]
    return StageParams(dense / p.tp, expert / p.c["etp"], n0 - moe0, moe0)


@lru_cache(maxsize=4096)
def _split(spec: ModelSpec, pp: int, v: int) -> tuple[list[tuple[Any, ...]], list[int], int, int]:
    """The distinct stage compositions of ``pp`` stages of ``v`` chunks (:func:`_compositions`),
    how many stages each describes, the first stage's layers and its MoE layers (cached: a search
    asks once per chunk)."""
    mdl = ModelLayers.of(spec)
    stages = stage_layers(spec, pp, v)
    n0 = len(stages[0])
    comps = _compositions(mdl, stages, set(mtp_indices(spec)))
    moe0 = int(mdl.is_moe_layer[stages[0]].sum()) if n0 else 0
    return list(comps), list(comps.values()), n0, moe0


def _compositions(mdl: ModelLayers, stages: list[list[int]], mtp: set[int]) -> dict[tuple[Any, ...], int]:
    """Distinct stage compositions in stage order, (layers per layer shape, last stage, first, MTP
    modules it runs: ``mtp`` the MTP layers' indices), each with the number of stages it describes."""
    comps: dict[tuple[Any, ...], int] = {}
    for si, s in enumerate(stages):
        cnt = tuple(np.bincount([mdl.layer_key[i] for i in s], minlength=len(mdl.keys)).tolist())
        c = (cnt, si == len(stages) - 1, si == 0, sum(1 for i in s if i in mtp))
        comps[c] = comps.get(c, 0) + 1
    return comps


def _stage_parts(lt: LayerTable, comp: tuple[Any, ...], ki: np.ndarray) -> dict[str, np.ndarray]:
    """:data:`PARTS` (the io stages included) and :data:`HBM_PARTS` of one stage composition for
    configurations ``ki``."""
    cnt, last, first, n_mtp = comp
    cnt_a = np.array(cnt, dtype=float)[:, None]
    q = {k: rowsum(cnt_a * getattr(lt, k)[:, ki]) for k in (*PARTS, *HBM_PARTS)}
    q["t_f"] = q["t_f"] + lt.io_f[int(last), int(first)][ki] + n_mtp * lt.mtp_f[ki]
    q["t_b"] = q["t_b"] + lt.io_b[int(last), int(first)][ki] + n_mtp * lt.mtp_b[ki]
    q["h_io_f"] = lt.io_hf[int(last), int(first)][ki] + n_mtp * lt.mtp_hf[ki]
    q["h_io_b"] = lt.io_hb[int(last), int(first)][ki] + n_mtp * lt.mtp_hb[ki]
    return q


def pipeline(hw: Hardware, spec: ModelSpec, p: Plans, st: StageTimes) -> PipelineTimes:
    """The schedule of every row: ``pipeline__<schedule>`` and ``bubble__<schedule>``."""
    t_comm = st.t_tp + st.t_cp + st.t_ep
    t_p2p, t_part, t_ag = _p2p(hw, spec, p)
    pipe = np.zeros(p.n)
    bubble = np.zeros(p.n)
    exposed = np.zeros(p.n)
    for si, name in enumerate(SCHEDULES):
        sel = p.c["sched"] == si
        if not sel.any():
            continue
        a = {
            "n_micro": p.m[sel],
            "pp": p.pp[sel],
            "t_bwd": st.t_b[sel],
            "t_comm_mb": t_comm[sel],
            "t_fwd": st.t_f[sel],
            "t_p2p": t_p2p[sel],
            "t_p2p_part": t_part[sel],
            "t_pp_ag": t_ag[sel],
            "t_rc": st.t_rc[sel],
            "v_stages": p.v[sel],
            "r_bub": st.r_bub[sel],
        }
        a["t_pp_p2p"] = exposed[sel] = p2p_exposed(a, p.c["ppo"][sel] == 1, p.c["ppf"][sel] == 1)
        fn, names, _ = G.FUNCTIONS[f"pipeline__{name}"]
        pipe[sel] = fn(*(a[k] for k in names))
        fn, names, _ = G.FUNCTIONS[f"bubble__{name}"]
        bubble[sel] = fn(*(a[k] for k in names))
    return PipelineTimes(t_comm, t_p2p, pipe, bubble, exposed, t_part, t_ag)


def p2p_exposed(a: dict[str, np.ndarray], overlap: np.ndarray, unpaired: np.ndarray) -> np.ndarray:
    """Pipeline send/recv time left on the critical path of each row: ``pp__p2p_overlap`` where the
    plan overlaps it with compute (plan ``pp_overlap``), ``pp__p2p_unpaired`` where each send and
    receive blocks on its own (plan ``pp_p2p_full``), ``pp__p2p_serial`` elsewhere."""
    fn, names, _ = G.FUNCTIONS["pp__p2p_serial"]
    out = fn(*(a[k] for k in names))
    if unpaired.any():
        fn, names, _ = G.FUNCTIONS["pp__p2p_unpaired"]
        out = np.where(unpaired, fn(*(a[k] for k in names)), out)
    if overlap.any():
        fn, names, _ = G.FUNCTIONS["pp__p2p_overlap"]
        out = np.where(overlap, fn(*(a[k] for k in names)), out)
    return out


def _p2p(hw: Hardware, spec: ModelSpec, p: Plans) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(``t_p2p``, ``t_p2p_part``, ``t_pp_ag``) of every row: one send/recv of a micro-batch's
    boundary activations / t between adjacent stages (within a node when the stage stride leaves two
    stages on one), once per distinct configuration; the whole activation from every TP rank where
    the plan sends it unscattered (``pp_p2p_full``, DeepSpeed's PipelineEngine: its gradients), with
    the TP share alone and the TP all-gather that rebuilds it (its activations, ``pp__p2p_unpaired``);
    across WAN sites the stages of a replica are adjacent (stride tp: data parallelism outermost,
    :func:`llmcost.training.data_parallel.dp_groups`)."""
    c, tp, cp, dp, mb, pp = p.c, p.tp, p.cp, p.dp, p.mb, p.pp
    tokens_dev = mb * p.seq / cp
    act_bytes = tokens_dev * spec.hidden_size * p.b_a
    stride = tp * cp * dp
    site = hw.wan_site()
    if site is not None:
        stride = np.where(c["gpus"] > site, tp, stride)
    p2p_gpn = np.where((stride < p.gpn) & (p.gpn // stride >= 2), 2, 1)
    full = c["ppf"] == 1
    extra = (c["ppf"],) if full.any() else ()  # a search of Megatron plans keys no extra column
    pf2, pinv2 = key(c["gpus"], tp, cp, dp, mb, pp, c["zmode"], c["prec"], *extra)
    scatter = np.where(full, 1, tp)
    ranks, gpn = np.where(pp > 1, 2, 1)[pf2], p2p_gpn[pf2]
    t_p2p = collective_v(hw, "send_recv", (act_bytes / scatter)[pf2], ranks, gpn)[pinv2]
    if not full.any():
        return t_p2p, t_p2p, np.zeros(p.n)
    part = collective_v(hw, "send_recv", (act_bytes / tp)[pf2], ranks, gpn)[pinv2]
    on = full & (pp > 1)
    ag = collective_v(hw, "all_gather", np.where(on, act_bytes, 0.0), tp, group_gpn(p.gpn, tp, 1))
    return t_p2p, part, ag
