"""One training step for arrays of plans: the single composition behind ``llmcost train`` (a
length-1 array, :func:`llmcost.training.plan.evaluate`) and ``llmcost search train`` (a grid,
:mod:`llmcost.search.train`). Runtime: no sympy.

A plan is a row of integer columns (:data:`~llmcost.training.columns.COLS`). :func:`evaluate`
composes, per row, named stages over small records (what overlaps and what is exposed:
:mod:`llmcost.training.plan`'s docstring):

1. layer costs (:mod:`.layers`): compute and FLOPs of one micro-batch through every layer
   shape, and the exposed TP / CP / EP communication of that layer, once per distinct operator
   configuration;
2. the busiest pipeline stage (:func:`.pipeline.busiest_stage`): per-micro-batch times, the
   parameters per device and the first stage's layers;
3. the pipeline schedule, bubble and p2p (:func:`.pipeline.pipeline`);
4. data-parallel traffic and its overlap, ZeRO-3 gathers layer by layer, optimizer step or host
   offload (:func:`.data_parallel.data_parallel`);
5. totals: model / hardware FLOPs, memory by component (:func:`.memory.memory`), step time,
   MFU, HFU, rates and, with ``tokens``, the run's figures (:func:`.run.run_totals`).

Attention 'auto': a plan whose materialized scores do not fit is costed with FlashAttention.
Work that depends on few dimensions is done once per distinct value: operator costs per
(tp, cp, ep, micro-batch, sp, recompute, precision, attention), parameters per (pp, v, ep).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from llmcost.economics import _generated as E
from llmcost.economics.power import mean_draw, sustained_rate
from llmcost.hardware import Hardware
from llmcost.model.spec import ModelSpec
from llmcost.training import _generated as G
from llmcost.training.base import PRECISIONS, ZMODES, comm_share, offload_tier
from llmcost.training.columns import COLS, Plans, plans
from llmcost.training.compute import rowsum
from llmcost.training.data_parallel import DataParallelTimes, data_parallel, streaming_exposed
from llmcost.training.layers import FLOPS, ConfigMemo, LayerTable, ModelLayers, config_key, layer_table
from llmcost.training.memory import memory
from llmcost.training.pipeline import PipelineTimes, StageTimes, busiest_stage, pipeline, stage_params
from llmcost.training.run import run_totals
from llmcost.units import GIB

if TYPE_CHECKING:  # a distribution's modules load only with one (cold start)
    from llmcost.training import varlen as VL
    from llmcost.training.seqdist import Workload

__all__ = [
    "COLS",
    "ZMODES",
    "MEMORY",
    "BREAKDOWN",
    "VALUES",
    "evaluate",
    "costed_plans",
    "memory_fit",
    "plans",
    "config_key",
]


def evaluate(
    spec: ModelSpec,
    hw: Hardware,
    cols: dict[str, np.ndarray],
    seq: int,
    global_batch: int,
    gpus_per_node: int | None = None,
    tokens: float | None = None,
    memo: ConfigMemo | None = None,
    fit: MemoryFit | None = None,
    workload: Workload | None = None,
) -> dict[str, np.ndarray]:
    """Step time, breakdown, step-expression values, FLOPs, memory and the README train metrics of
    every plan row of ``cols`` (all checked by :func:`llmcost.training.plan.check`); with a
    ``workload`` (a sequence-length distribution, :mod:`llmcost.training.seqdist`) the micro-batches
    take its shapes (:mod:`llmcost.training.varlen`), memory stays sized at ``seq`` tokens.

    Attention 'auto' (``auto`` column): a plan whose materialized scores do not fit in memory can
    only have run with a memory-efficient fused attention (FlashAttention, Dao et al. 2022; what
    Megatron-Core / Transformer Engine select), so it is costed with FlashAttention instead
    (:func:`memory_fit` decides, from memory alone); the ``flash`` column of the result says which
    attention was costed, ``fell_back`` which rows switched. ``memo``: one
    :class:`~llmcost.training.layers.ConfigMemo` per search, shared by its chunks (operator
    configurations costed once, :func:`llmcost.training.layers.layer_table`);
    ``fit``: the rows' :func:`memory_fit` when the caller has it."""
    p, fit = costed_plans(spec, hw, cols, seq, global_batch, gpus_per_node, fit)
    out = _compose(spec, hw, p, tokens, memo, workload)
    out["flash"] = fit.flash.copy()
    out["fell_back"] = fit.fell_back.copy()
    return out


def costed_plans(
    spec: ModelSpec,
    hw: Hardware,
    cols: dict[str, np.ndarray],
    seq: int,
    global_batch: int,
    gpus_per_node: int | None = None,
    fit: MemoryFit | None = None,
) -> tuple[Plans, MemoryFit]:
    """(:class:`~llmcost.training.columns.Plans` of the rows as :func:`evaluate` costs them, with the
    attention :func:`memory_fit` decides, their :class:`MemoryFit`)."""
    fit = fit if fit is not None else memory_fit(spec, hw, cols, seq, global_batch, gpus_per_node)
    return plans(hw, {**cols, "flash": fit.flash}, seq, global_batch, gpus_per_node), fit


@dataclass
class MemoryFit:
    """Per plan row, from memory alone: the attention it is costed with (``flash``; ``fell_back``
    where attention 'auto' switched to FlashAttention), its bytes per device and whether it fits
    (device and host tiers), exactly as :func:`evaluate` reports them."""

    flash: np.ndarray
    fell_back: np.ndarray
    memory_bytes: np.ndarray
    fits: np.ndarray

    def take(self, idx: Any) -> MemoryFit:
        return MemoryFit(self.flash[idx], self.fell_back[idx], self.memory_bytes[idx], self.fits[idx])


def memory_fit(
    spec: ModelSpec,
    hw: Hardware,
    cols: dict[str, np.ndarray],
    seq: int,
    global_batch: int,
    gpus_per_node: int | None = None,
) -> MemoryFit:
    """:class:`MemoryFit` of the rows ``cols``: their memory with the attention they name, then, for
    attention 'auto' rows whose materialized scores do not fit, with FlashAttention. The memory
    stage of :func:`evaluate` without its times, so a search can set aside the plans that do not fit
    before costing them."""
    total, ok = _memory_only(spec, hw, plans(hw, cols, seq, global_batch, gpus_per_node))
    flash = cols["flash"].astype(np.int64, copy=True)
    redo = np.flatnonzero((flash == 0) & (cols["auto"] == 1) & ~ok)
    if redo.size:
        sub = {k: v[redo] for k, v in cols.items()}
        sub["flash"] = np.ones(redo.size, dtype=np.int64)
        total[redo], ok[redo] = _memory_only(spec, hw, plans(hw, sub, seq, global_batch, gpus_per_node))
        flash[redo] = 1
    fell = np.zeros(flash.size, dtype=bool)
    fell[redo] = True
    return MemoryFit(flash, fell, total, ok)


def _memory_only(spec: ModelSpec, hw: Hardware, p: Plans) -> tuple[np.ndarray, np.ndarray]:
    """(bytes per device, fits) of the rows ``p``: :func:`_compose`'s memory and fit, nothing else."""
    mem = memory(spec, p, stage_params(spec, p), config_key(p))
    total = _device_bytes(mem)
    return total, fits(hw, p, total, mem)


def fits(hw: Hardware, p: Plans, total: np.ndarray, mem: dict[str, np.ndarray]) -> np.ndarray:
    """Whether each row fits: its device bytes ``total`` within the usable memory and what it offloads
    within the node's host tiers (:func:`host_fits`)."""
    return ~(total > hw.memory_usable) & host_fits(hw, p, mem["host"], mem["activations_host"])


def _device_bytes(mem: dict[str, np.ndarray]) -> np.ndarray:
    """Device bytes of a memory breakdown: the :data:`MEMORY` components summed in order."""
    return (
        mem["weights"]
        + mem["gradients"]
        + mem["optimizer"]
        + mem["activations"]
        + mem["logits"]
        + mem["buffers"]
    )


@dataclass
class Flops:
    """Per plan row, FLOPs of one step over all devices: ``model`` (MFU) and ``hw`` (HFU), causal
    attention counted by the pairs its mask keeps; ``*_full`` by the full-s² convention
    (:data:`FLOPS_CONVENTION`)."""

    model: np.ndarray
    hw: np.ndarray
    model_full: np.ndarray
    hw_full: np.ndarray


def step_flops(mdl: ModelLayers, lt: LayerTable, inv: np.ndarray, p: Plans) -> Flops:
    """Per-device layer FLOPs x TP ranks x CP ranks per micro-batch, over the step's sequences."""
    cnt = mdl.count_all[:, None]
    lg = lt.lg_flops[inv]
    scale = p.global_batch / p.mb
    per = {k: (rowsum(cnt * getattr(lt, k))[inv] + lg) * p.tp * p.cp * scale for k in FLOPS}
    return Flops(**per)


def _mixed_flops(mdl: ModelLayers, p: Plans, sh: list[VL.Shape]) -> Flops:
    """:func:`step_flops` over the micro-batch shapes: the model FLOPs (``model*``) weighted by each
    shape's share of the useful work, the executed ones (``hw*``) by its share of the micro-batches,
    each scaled by the plan's own degrees."""
    acc = {k: np.zeros(p.n) for k in FLOPS}
    for s in sh:
        if s.probe:
            continue
        f = step_flops(mdl, s.lt, s.inv, p.variant(s.rows, p.seq, None, None))
        for k in FLOPS:
            w = s.flops if k.startswith("model") else s.time
            acc[k][s.rows] += w * getattr(f, k)
    return Flops(**acc)


FLOPS_CONVENTION = (
    "MFU / HFU count causal attention by the (query, key) pairs its mask keeps (s^2/2, as "
    "Megatron-Core >= 0.12 and MaxText count it), so they stay <= 1; PaLM and the Megatron papers "
    "count the full s^2"
)
"""The FLOP convention of ``mfu``, ``hfu``, ``*_tflops_per_gpu`` and ``total_flops``, as printed."""


def _compose(
    spec: ModelSpec,
    hw: Hardware,
    p: Plans,
    tokens: float | None,
    memo: ConfigMemo | None = None,
    workload: Workload | None = None,
) -> dict[str, np.ndarray]:
    """The stages of the module docstring, in order, for the rows ``p``."""
    mdl = ModelLayers.of(spec)
    extra: dict[str, np.ndarray] = {}
    if workload is None:
        lt, first, inv = layer_table(spec, hw, mdl, p, memo)
        st, held = busiest_stage(spec, mdl, lt, inv, p)
        fl = step_flops(mdl, lt, inv, p)
        tokens_step = float(p.global_batch * p.seq)
    else:
        from llmcost.training import varlen as VL

        first, inv = config_key(p)
        held = stage_params(spec, p)
        sh = VL.shapes(spec, hw, mdl, p, memo, workload)
        st, extra["straggler"] = VL.stage(p, sh, workload)
        fl = _mixed_flops(mdl, p, sh)
        tokens_step = p.global_batch * workload.tokens_per_sequence(p.seq)
    pipe = pipeline(hw, spec, p, st)
    dpt = data_parallel(hw, p, st, held)
    mem = memory(spec, p, held, (first, inv))
    dpt = replace(dpt, t_off=dpt.t_off + _activation_offload(hw, p, st, mem["activations_host"]))
    dpt = replace(dpt, dp_exposed=streaming_exposed(p, dpt.coll.t_frag, _inner(pipe, dpt), dpt.dp_exposed))
    step = pipe.pipe + dpt.dp_exposed + dpt.z3_exposed + dpt.t_opt + dpt.t_off
    thr = throttle(hw, p, st, pipe, dpt, step)
    step = step + thr["power_limit"]
    total = _device_bytes(mem)
    out: dict[str, np.ndarray] = {
        "iteration_time_s": step,
        "tokens_per_s": G.tokens_per_s(step, tokens_step),
        "model_flops_per_step": fl.model,
        "hardware_flops_per_step": fl.hw,
        "model_flops_per_step_full_attention": fl.model_full,
        "hardware_flops_per_step_full_attention": fl.hw_full,
        "memory_bytes": total,
        "memory_gib_per_gpu": total / GIB,
        **{f"memory_{k}": x for k, x in mem.items()},
        **_times(p, st, pipe, dpt, comm_share(hw)),
        **thr,
        **extra,
    }
    out["tokens_per_step"] = np.full(p.n, tokens_step)
    out["dp_comm_reduction"] = comm_reduction(p)
    out.update(_energy(hw, p, out, tokens_step))
    out.update(_rates(hw, p, fl, step, out["tokens_per_s"], tokens_step, tokens))
    out["fits"] = fits(hw, p, total, mem)
    return out


def throttle(
    hw: Hardware, p: Plans, st: StageTimes, pipe: PipelineTimes, dpt: DataParallelTimes, step: np.ndarray
) -> dict[str, np.ndarray]:
    """What the board power limit adds to each row's ``step`` (at the maximum clock): the step's
    compute-bound time (each pass beyond its HBM time), its waiting time (exposed communication,
    bubble) and the rest (memory-bound passes, optimizer, offload) give the draw at the maximum clock
    and the sustained rate ``kappa_clk`` (:func:`llmcost.economics.power.sustained_rate`); the
    critical path's compute-bound time ``t_cact`` (``throttle__compute_time``) runs ``1/κ`` slower
    (``throttle``)."""
    h_f, h_b = st.m_f + st.h_io_f, st.m_b + st.h_io_b  # the stage's embedding, head and loss with its layers
    passes = dict(n_micro=p.m, t_fwd=st.t_f, t_bwd=st.t_b, t_rc=st.t_rc, h_fwd=h_f, h_bwd=h_b, h_rc=st.m_rc)
    t_cb = G.throttle__compute_time(**passes, t_comm_mb=pipe.t_comm, t_bub=0.0)  # the passes alone
    comm = dpt.dp_exposed + dpt.z3_exposed - dpt.z3_copy  # the copy-out is memory-bound work, not waiting
    wait = p.m * (st.t_tp + st.t_cp + st.t_ep) + pipe.bubble + pipe.t_pp_p2p + comm
    kappa = sustained_rate(hw, t_cb, np.maximum(step - t_cb - wait, 0.0), wait)
    t_cact = G.throttle__compute_time(**passes, t_comm_mb=pipe.t_comm, t_bub=pipe.bubble)
    return {"power_limit": G.throttle(kappa_clk=kappa, t_cact=t_cact), "kappa_clk": kappa, "t_cact": t_cact}


def _inner(pipe: PipelineTimes, dpt: DataParallelTimes) -> np.ndarray:
    """One inner step without the outer sync: the step's other parts, summed as the step sums them."""
    return pipe.pipe + dpt.z3_exposed + dpt.t_opt + dpt.t_off


IDLE_PARTS = ("tp_comm", "cp_comm", "ep_comm", "pp_p2p", "pp_bubble", "dp_comm", "zero3_comm")
"""Step-time parts drawn at the idle draw: exposed communication and the pipeline bubble."""


def _energy(hw: Hardware, p: Plans, out: dict[str, np.ndarray], tokens_step: float) -> dict[str, np.ndarray]:
    """Mean draw per device over the step by kind of work (:func:`llmcost.economics.power.mean_draw`):
    the forward, backward and recomputation at the compute-bound draw (GEMM-dominated; their
    memory-bound operators are drawn at it too, an upper figure), the optimizer step and offload
    transfers at the memory-bound draw, exposed communication and bubbles (:data:`IDLE_PARTS`) at the
    idle draw (TDP where the catalog has no figure); and the device energy per token it gives
    (:func:`.run.run_totals` of a step, goodput 1)."""
    idle = out[IDLE_PARTS[0]]
    for k in IDLE_PARTS[1:]:
        idle = idle + out[k]
    times = {"compute": out["compute"], "memory": out["optimizer"] + out["offload"], "network": idle}
    draw = np.broadcast_to(np.asarray(mean_draw(times, hw), dtype=float), (p.n,))
    gpus = p.c["gpus"].astype(float)
    run = run_totals(
        1.0, tokens_step, step_time=out["iteration_time_s"], gpus=gpus, power_w=draw, goodput=1.0
    )
    return {"mean_draw_w": draw, "joules_per_token": run.energy_j}


def comm_reduction(p: Plans) -> np.ndarray:
    """Data-parallel bytes per token of ordinary data parallelism over the plan's: DiLoCo's
    ``diloco__comm_reduction`` where ``sync_interval`` > 1, else 1 (the plan is ordinary data
    parallelism)."""
    diloco = p.c["sync"] > 1
    if not diloco.any():
        return np.ones(p.n)
    return np.where(diloco, G.diloco__comm_reduction(p.b_g, p.c["syncb"] / 8.0, p.c["sync"]), 1.0)


def _times(
    p: Plans, st: StageTimes, pipe: PipelineTimes, dpt: DataParallelTimes, s_comm: float
) -> dict[str, np.ndarray]:
    """The step's breakdown (:data:`BREAKDOWN`) and the step expression's values (:data:`VALUES`)."""
    m, t_f, t_b, t_rc, t_comm = p.m, st.t_f, st.t_b, st.t_rc, pipe.t_comm
    return {
        "compute_fwd": m * t_f,
        "compute_bwd": m * t_b,
        "compute_recompute": m * t_rc,
        "compute": m * t_f + m * t_b + m * t_rc,
        "tp_comm": m * st.t_tp,
        "cp_comm": m * st.t_cp,
        "ep_comm": m * st.t_ep,
        "pp_p2p": pipe.t_pp_p2p,  # the step expression's own term (``pipeline_time``), never a difference
        "pp_bubble": pipe.bubble,
        "dp_comm": dpt.dp_exposed,
        "zero3_comm": dpt.z3_exposed,
        "optimizer": dpt.t_opt,
        "offload": dpt.t_off,
        "n_micro": m,
        # values of the step expression's symbols (``llmcost train --explain``)
        "t_fwd": t_f,
        "t_bwd": t_b,
        "t_rc": t_rc,
        "t_comm_mb": t_comm,
        "t_p2p": pipe.t_p2p,
        "t_p2p_part": pipe.t_p2p_part,
        "t_pp_ag": pipe.t_pp_ag,
        "t_pp_p2p": pipe.t_pp_p2p,
        "s_comm": np.full(p.n, s_comm),
        "t_dp": dpt.coll.t_dp,
        "t_ag": dpt.coll.t_ag,
        "n_buckets": dpt.n_buckets,
        "n_red": dpt.n_red,
        "t_z3_ag": dpt.coll.z3_ag,
        "t_z3_rs": dpt.coll.z3_rs,
        "t_z3_copy": np.broadcast_to(np.asarray(dpt.z3_copy, dtype=float), (p.n,)),
        "layers_stage": st.n_lay,
        "r_bub": st.r_bub,
        "z3_rc": dpt.z3_rc,
        "t_opt": dpt.t_opt,
        "t_offload": dpt.t_off,
        "sync_interval": p.c["sync"],
        "t_outer": np.where(p.c["sync"] > 1, dpt.coll.t_dp, 0.0),
        **{HBM_VALUES[k]: v for k, v in dpt.hbm_t.items()},
        "sync_fragments": p.c["sfrag"],
        "sync_overlap": p.c["sovl"],
        "t_frag": dpt.coll.t_frag,
        "t_inner": _inner(pipe, dpt),
    }


HBM_VALUES = {
    "dp": "m_dp",
    "ag": "m_ag",
    "z3_ag": "m_z3_ag",
    "z3_rs": "m_z3_rs",
    "m_f": "m_fwd",
    "m_b": "m_bwd",
    "m_rc": "m_rc",
}
"""The step expression's HBM-time symbols by their key in ``DataParallelTimes.hbm_t``."""


def _activation_offload(hw: Hardware, p: Plans, st: StageTimes, act_host: np.ndarray) -> np.ndarray:
    """Exposed activation-offload transfer of each row (``offload__activations``: plan
    ``offload_activations`` or ``offload_layers``; 0 where the plan keeps its activations on the
    device)."""
    from llmcost.training.memory import inflight

    off = act_host > 0  # what :func:`llmcost.training.memory.offloaded_activations` put on the host
    if not off.any():
        return np.zeros(p.n)
    link, _, _ = hw.host_bandwidths(need_nvme=False)
    per_mb = act_host / np.maximum(inflight(p), 1.0)
    t_comp = p.m * (st.t_f + st.t_b + st.t_rc)
    return np.where(off, G.offload__activations(per_mb, link, p.m, t_comp), 0.0)


def host_need(offload: Any, host: Any, acts: Any) -> dict[str, Any]:
    """Bytes per device each host tier holds: host memory (``cpu``) the offloaded activations ``acts``
    and, with a cpu offload tier, the rest of ``host``; NVMe (``nvme``) the rest with an nvme tier
    (numbers or arrays; ``offload`` an :data:`~llmcost.training.base.OFFLOAD` index)."""
    tiers = offload_tier(offload)
    state = host - acts  # the offload tier's share: gradients, optimizer state, parameters
    return {"cpu": np.where(tiers == 1, state, 0.0) + acts, "nvme": np.where(tiers == 2, state, 0.0)}


def host_fits(hw: Hardware, p: Plans, host: np.ndarray, acts: np.ndarray) -> np.ndarray:
    """Whether what each plan offloads fits on one node: each tier's bytes (:func:`host_need`) times the
    node's devices (they share the host) against ``host_memory.capacity`` (cpu) or
    ``host_memory.nvme_capacity`` (nvme); True where the catalog does not give the capacity."""
    node = hw.node_share(p.gpn)
    ok = np.ones(p.n, dtype=bool)
    for tier, bytes_ in host_need(p.c["offload"], host, acts).items():
        cap = hw.host_capacity(tier)
        if cap is not None:
            ok &= ~(bytes_ * node > cap)
    return ok


def _rates(
    hw: Hardware,
    p: Plans,
    fl: Flops,
    step: np.ndarray,
    tokens_per_s: np.ndarray,
    tokens_step: float,
    tokens: float | None,
) -> dict[str, np.ndarray]:
    """Per-GPU rates, MFU / HFU, price per token and, with ``tokens``, the run's figures."""
    peak = np.array([hw.peak.get(x, np.nan) for x in PRECISIONS])[p.c["prec"]]
    gpus = p.c["gpus"].astype(float)
    out: dict[str, np.ndarray] = {
        "tokens_per_s_per_gpu": tokens_per_s / gpus,
        "model_tflops_per_gpu": G.tflops_per_gpu(fl.model, gpus, step) / 1e12,
        "hardware_tflops_per_gpu": G.tflops_per_gpu(fl.hw, gpus, step) / 1e12,
        "mfu": G.mfu(fl.model, gpus, peak, step),
        "hfu": G.mfu(fl.hw, gpus, peak, step),
        **_full_attention(fl, gpus, peak, step),
    }
    price = hw.price_per_hour
    if price:
        out["usd_per_million_tokens"] = E.usd_per_million_tokens(gpus, step, tokens_step, price)
    if tokens:
        run = run_totals(tokens, tokens_step, step_time=step, gpus=gpus, flops_step=fl.model, price_h=price)
        out["total_flops"] = run.total_flops
        out["time_to_train_s"] = run.time_to_train_s
        out["gpu_hours"] = run.gpu_hours
        if price:
            out["cost_usd"] = run.cost_usd
    return out


def _full_attention(fl: Flops, gpus: np.ndarray, peak: np.ndarray, step: np.ndarray) -> dict[str, np.ndarray]:
    """The FLOP rates under the full-s² convention (``<metric>_full_attention``, the
    :data:`FULL_ATTENTION_METRICS`): what PaLM and the Megatron papers publish; they credit the
    masked half of causal attention, which no kernel runs, so they may exceed the peak."""
    return {
        "model_tflops_per_gpu_full_attention": G.tflops_per_gpu(fl.model_full, gpus, step) / 1e12,
        "hardware_tflops_per_gpu_full_attention": G.tflops_per_gpu(fl.hw_full, gpus, step) / 1e12,
        "mfu_full_attention": G.mfu(fl.model_full, gpus, peak, step),
        "hfu_full_attention": G.mfu(fl.hw_full, gpus, peak, step),
    }


FULL_ATTENTION_METRICS = ("model_tflops_per_gpu", "hardware_tflops_per_gpu", "mfu", "hfu", "total_flops")
"""Metrics whose value depends on the attention FLOP convention (a row has ``<name>_full_attention``
for the per-step ones; ``total_flops`` through :func:`llmcost.training.compute.model_flops_per_token`)."""


MEMORY = ("weights", "gradients", "optimizer", "activations", "logits", "buffers")
"""Memory components (``memory_<name>`` columns of :func:`evaluate`), in report order."""
BREAKDOWN = (
    "compute_fwd",
    "compute_bwd",
    "compute_recompute",
    "tp_comm",
    "cp_comm",
    "ep_comm",
    "pp_p2p",
    "pp_bubble",
    "dp_comm",
    "zero3_comm",
    "optimizer",
    "offload",
    "power_limit",
)
"""Step-time parts of ``llmcost train`` (they sum to ``iteration_time_s``), in report order."""
VALUES = (
    "n_micro",
    "pp",
    "v_stages",
    "r_bub",
    "t_fwd",
    "t_bwd",
    "t_rc",
    "t_comm_mb",
    "t_p2p",
    "t_p2p_part",
    "t_pp_ag",
    "t_pp_p2p",
    "s_comm",
    "t_dp",
    "t_ag",
    "n_buckets",
    "n_red",
    "t_z3_ag",
    "t_z3_rs",
    "t_z3_copy",
    "layers_stage",
    "z3_rc",
    "t_opt",
    "t_offload",
    "sync_interval",
    "t_outer",
    "m_dp",
    "m_ag",
    "m_z3_ag",
    "m_z3_rs",
    "m_fwd",
    "m_bwd",
    "m_rc",
    "sync_fragments",
    "sync_overlap",
    "t_frag",
    "t_inner",
    "kappa_clk",
    "t_cact",
)
"""Symbols of the step expression (:func:`llmcost.training.formulas.step_expression`)."""
