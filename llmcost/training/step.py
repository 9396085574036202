"""One training step for arrays of plans: the single composition behind ``llmcost train`` (a
length-1 array, :func:`llmcost.training.plan.evaluate`) and ``llmcost search train`` (a grid,
:mod:`llmcost.search.train`). Runtime: no sympy.

A plan is a row of integer columns (:data:`COLS`; categorical columns are indices into
:data:`ZMODES`, :data:`~llmcost.training.plan.RECOMPUTE`, ...). :func:`evaluate` composes, per
row (what overlaps and what is exposed: :mod:`llmcost.training.plan`'s docstring):

* compute per micro-batch and device of every layer shape (:mod:`.train_compute`: the graph's
  generated layer functions in their training form, priced by the roofline), and the exposed
  TP / CP / EP communication of that layer (:func:`llmcost.collectives.grid.collective_v`, i.e.
  :func:`llmcost.collectives.cost.collective`), once per distinct operator configuration;
* the busiest pipeline stage (layers per stage: :func:`llmcost.training.plan.split_layers`),
  the pipeline schedule, bubble and p2p (``pipeline__*`` / ``bubble__*`` of
  :mod:`.training_formulas`);
* data-parallel traffic and its overlap (``dp__overlap`` / ``dp__serial``), ZeRO-3 gathers
  layer by layer (``zero3``), optimizer step or host offload (:func:`.train_memory.offload_time`);
* model / hardware FLOPs, memory by component (:func:`.train_memory.memory`), MFU, HFU, rates;
* attention 'auto': a plan whose materialized scores do not fit is costed with FlashAttention.

Work that depends on few dimensions is done once per distinct value: operator costs per
(tp, cp, ep, micro-batch, sp, recompute, precision, attention), parameters per (pp, v, ep).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from llmcost.economics import _generated as E
from llmcost.graph.ops import model_values
from llmcost.hardware import Hardware
from llmcost.model.spec import ModelSpec
from llmcost.training import _generated as G
from llmcost.training import compute as TC
from llmcost.training import plan as TR
from llmcost.units import GIB

ZMODES = ((0, False), (0, True), (1, False), (2, False), (3, False))
"""ZeRO modes: (zero stage, Megatron distributed optimizer)."""
RC = TR.RECOMPUTE
SCHED = TR.SCHEDULES
PREC = TR.PRECISIONS
OFFLOAD = TR.OFFLOAD
COLS = (
    "gpus",
    "tp",
    "pp",
    "cp",
    "ep",
    "dp",
    "mb",
    "v",
    "sched",
    "zmode",
    "rc",
    "prec",
    "sp",
    "flash",
    "auto",
    "offload",
    "overlap",
    "tpo",
)
"""Plan columns: degrees, micro-batch, virtual stages, schedule / ZeRO mode / recompute / precision
indices, sequence parallel, FlashAttention costed, attention 'auto' (may fall back to
FlashAttention), offload index, DP overlap, TP communication overlap."""


def plan_columns(lay: TR.Layout) -> dict[str, np.ndarray]:
    """One checked plan as length-1 columns (:data:`COLS`)."""
    p = lay.plan
    row = {
        "gpus": p.gpus,
        "tp": lay.tp,
        "pp": lay.pp,
        "cp": lay.cp,
        "ep": lay.ep,
        "dp": lay.dp,
        "mb": p.micro_batch,
        "v": lay.v,
        "sched": SCHED.index(p.schedule),
        "zmode": ZMODES.index((int(p.zero), bool(p.distributed_optimizer))),
        "rc": RC.index(p.recompute),
        "prec": PREC.index(p.precision),
        "sp": int(lay.sp),
        "flash": int(lay.flash),
        "auto": int(p.attention == "auto"),
        "offload": OFFLOAD.index(p.offload),
        "overlap": int(p.overlap_dp),
        "tpo": int(p.tp_overlap),
    }
    return {k: np.array([row[k]], dtype=np.int64) for k in COLS}


# --- grouping helpers ------------------------------------------------------------------------------
def _compact(k: np.ndarray, size: int) -> tuple[np.ndarray, int]:
    """Codes 0..n-1 of the distinct values of ``k`` (values in [0, size)), in increasing order."""
    if size <= max(1 << 20, 4 * k.size):
        present = np.zeros(size, dtype=bool)
        present[k] = True
        ids = np.cumsum(present) - 1
        return ids[k], int(present.sum())
    vals, inv = np.unique(k, return_inverse=True)
    return inv.reshape(-1), int(vals.size)


def key(*cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first index of each distinct row, inverse) over integer columns, without sorting."""
    n = int(np.shape(cols[0])[0])
    k = np.zeros(n, dtype=np.int64)
    size = 1
    for c in cols:
        c = np.asarray(c, dtype=np.int64)
        lo = int(c.min()) if n else 0
        span = (int(c.max()) - lo + 1) if n else 1
        k = k * span + (c - lo)
        size *= span
        if size > 1 << 20:
            k, size = _compact(k, size)
    k, size = _compact(k, size)
    first = np.full(size, -1, dtype=np.int64)
    first[k[::-1]] = np.arange(n - 1, -1, -1)
    return first, k


def _bytes_table() -> np.ndarray:
    """(b_w, b_g, b_o, b_a) per (zmode, precision): :func:`llmcost.training.plan.precision_bytes`."""
    out = np.zeros((len(ZMODES), len(PREC), 4))
    for zi, (z, _) in enumerate(ZMODES):
        for pi, p in enumerate(PREC):
            out[zi, pi] = TR.precision_bytes(z, p)
    return out


class _Model:
    """Per-model layer structure: distinct layer shapes and which layers use them."""

    def __init__(self, spec: ModelSpec) -> None:
        self.layers = TR.model_layers(spec)
        keys: list[tuple[str, int | None, str]] = []
        self.layer_key: list[int] = []
        for stack, i in self.layers:
            shape, win = TC.layer_shape(spec, stack, i)
            k = (shape, win, stack)
            if k not in keys:
                keys.append(k)
            self.layer_key.append(keys.index(k))
        self.keys = keys
        self.count_all = np.bincount(self.layer_key, minlength=len(keys)).astype(float)
        moe_l = []
        for stack, i in self.layers:
            is_moe = (i in spec.moe_layers) if stack == "dec" else (i in spec.encoder_moe_layers)
            moe_l.append(bool(is_moe and spec.moe is not None))
        self.is_moe_layer = np.array(moe_l)


def _layer_quantities(
    spec: ModelSpec,
    hw: Hardware,
    mdl: _Model,
    gpn: int,
    seq: int,
    tp: np.ndarray,
    cp: np.ndarray,
    ep: np.ndarray,
    mb: np.ndarray,
    sp: np.ndarray,
    tpo: np.ndarray,
    rc: str,
    prec: str,
    b_w: float,
    b_a: float,
    flash: bool,
) -> dict[str, np.ndarray]:
    """Per layer shape (axis 0) and operator configuration (axis 1): compute, FLOPs and exposed
    TP / CP / EP communication of one micro-batch, and the embedding / head / loss per stage kind.

    TP: all-reduce per block forward and backward, with sequence parallel a reduce-scatter +
    all-gather of the same volume (Korthikanti 2022 §4.2.2), exposed; with TP overlap (``tpo``,
    sequence parallel only) each hidden under its adjacent GEMM (``tp__overlap``); CP ring
    attention (Megatron CP): c−1 K,V steps forward, K,V + dK,dV backward, each hidden behind the attention of the previous
    step (Megatron-LM docs/user-guide/features/context_parallel.md); EP: dispatch / combine all-to-all per pass (+ recompute)."""
    from llmcost.collectives.grid import collective_v, group_gpn

    drop_a, drop_h = TR.attention_dropout(spec), TR.hidden_dropout(spec)
    mach = TR.machine(hw, prec)
    tpf, cpf, epf, mbf = (np.asarray(x, dtype=float) for x in (tp, cp, ep, mb))
    t_sp = np.where(sp == 1, tpf, 1.0)
    tokens_dev = mbf * seq / cpf
    vals: dict[str, Any] = model_values(spec)
    vals.update(
        tp=tpf,
        cp=cpf,
        ep=epf,
        etp=np.where(ep == 1, tpf, 1.0),
        b_w=b_w,
        b_a=b_a,
        b_kv=b_a,
        b_r=max(b_a, 2.0),
        c_dq=0.0,
        seq=seq,
        micro_batch=mbf,
        ctx=seq,
        seq_enc=seq,
    )
    passes = 2 + (1 if rc == "full" else 0)  # forward, backward (+ recomputed forward)
    gpn_tp = group_gpn(gpn, tp, 1)
    gpn_cp = group_gpn(gpn, cp, tp)
    gpn_ep = group_gpn(gpn, ep, tp * cp)
    n = tp.size
    out = {
        k: np.zeros((len(mdl.keys), n)) for k in ("t_f", "t_b", "t_rc", "model", "hw", "t_tp", "t_cp", "t_ep")
    }
    for j, (shape, win, stack) in enumerate(mdl.keys):
        ops = TC.graph_ops(shape, win, vals)
        s_kv = min(seq, win) if win else seq
        ops = TC.training_ops(
            ops,
            causal=stack == "dec",
            flash=flash,
            attention_dropout=drop_a,
            hidden_dropout=drop_h,
            t_sp=t_sp,
            tokens=tokens_dev,
            h=spec.hidden_size,
            heads=spec.num_heads / tpf,
            seq_kv=s_kv,
            b_a=b_a,
        )
        lc = TC.layer_cost(ops, rc, mach, flash)
        for k, v in (
            ("t_f", lc.t_fwd),
            ("t_b", lc.t_bwd),
            ("t_rc", lc.t_rc),
            ("model", lc.model_flops),
            ("hw", lc.hw_flops),
        ):
            out[k][j] = v
        t_tp = np.zeros(n)
        t_cp = np.zeros(n)
        t_ep = np.zeros(n)
        for o, gemms in zip(lc.collectives(), lc.tp_gemm_pairs(), strict=True):
            size = np.broadcast_to(np.asarray(o.size, dtype=float), (n,))
            if o.group == "tp":
                if sp.any():
                    ag = collective_v(hw, "all_gather", size, tp, gpn_tp)
                    rs = collective_v(hw, "reduce_scatter", size, tp, gpn_tp)
                    one_sp = ag + rs
                else:
                    one_sp = 0.0
                one = np.where(sp == 1, one_sp, collective_v(hw, "all_reduce", size, tp, gpn_tp))
                x = passes * one
                if tpo.any() and sp.any():
                    g_in, g_out = (np.broadcast_to(np.asarray(g, dtype=float), (n,)) for g in gemms)
                    hidden = G.tp__overlap(passes - 1, g_in, g_out, ag, rs)
                    x = np.where((tpo == 1) & (sp == 1), hidden, x)
                t_tp = t_tp + np.where((tp > 1) & (size > 0), x, 0.0)
            elif o.group == "cp" and o.variant == "pass_kv":
                fwd = (cpf - 1) * collective_v(hw, "send_recv", size, 2, np.minimum(2, gpn_cp))
                x = np.maximum(0.0, fwd - lc.t_attn_fwd) + np.maximum(0.0, 2 * fwd - lc.t_attn_bwd)
                if rc == "full":
                    x = x + np.maximum(0.0, fwd - lc.t_attn_fwd)
                t_cp = t_cp + np.where((cp > 1) & (size > 0), x, 0.0)
            elif o.group == "ep":
                x = passes * collective_v(hw, "all_to_all", size, ep, gpn_ep)
                t_ep = t_ep + np.where((ep > 1) & (size > 0), x, 0.0)
        out["t_tp"][j], out["t_cp"][j], out["t_ep"][j] = t_tp, t_cp, t_ep
    io_ops = TC.graph_ops("io__forward__all", None, vals)
    for last in (False, True):
        for first in (False, True):
            f, b, fl = TC.io_cost(io_ops, mach, last, first, tokens_dev, spec.vocab_size, tpf)
            out[f"io_f{int(last)}{int(first)}"] = np.broadcast_to(np.asarray(f, dtype=float), (n,))
            out[f"io_b{int(last)}{int(first)}"] = np.broadcast_to(np.asarray(b, dtype=float), (n,))
            if last and first:
                out["lg_flops"] = np.broadcast_to(np.asarray(fl, dtype=float), (n,))
    return out


# --- the step --------------------------------------------------------------------------------------
def evaluate(
    spec: ModelSpec,
    hw: Hardware,
    cols: dict[str, np.ndarray],
    seq: int,
    global_batch: int,
    gpus_per_node: int | None = None,
    tokens: float | None = None,
) -> dict[str, np.ndarray]:
    """Step time, breakdown, step-expression values, FLOPs, memory and the README train metrics of
    every plan row of ``cols`` (all checked by :func:`llmcost.training.plan.check`).

    Attention 'auto' (``auto`` column): a plan whose materialized scores do not fit in memory can
    only have run with a memory-efficient fused attention (FlashAttention, Dao et al. 2022; what
    Megatron-Core / Transformer Engine select), so it is costed with FlashAttention instead; the
    ``flash`` column of the result says which attention was costed, ``fell_back`` which rows
    switched."""
    out = _compose(spec, hw, cols, seq, global_batch, gpus_per_node, tokens)
    redo = np.flatnonzero((cols["flash"] == 0) & (cols["auto"] == 1) & ~out["fits"])
    out["flash"] = cols["flash"].copy()
    out["fell_back"] = np.zeros(out["flash"].size, dtype=bool)
    if redo.size:
        sub = {k: v[redo] for k, v in cols.items()}
        sub["flash"] = np.ones(redo.size, dtype=np.int64)
        o2 = _compose(spec, hw, sub, seq, global_batch, gpus_per_node, tokens)
        for k, v in o2.items():
            out[k][redo] = v
        out["flash"][redo] = 1
        out["fell_back"][redo] = True
    return out


def _compose(
    spec: ModelSpec,
    hw: Hardware,
    c: dict[str, np.ndarray],
    seq: int,
    global_batch: int,
    gpus_per_node: int | None,
    tokens: float | None,
) -> dict[str, np.ndarray]:
    from llmcost.collectives.grid import collective_v, group_gpn
    from llmcost.training import memory as TM

    n = int(c["tp"].size)
    mdl = _Model(spec)
    btab = _bytes_table()
    bw_, bg_, bo_, ba_ = (btab[c["zmode"], c["prec"], i] for i in range(4))
    gpn_all = np.maximum(1, np.minimum(gpus_per_node or hw.node_devices or 1, c["gpus"]))
    # --- operator-level quantities, once per distinct configuration -----------------------------
    bwa = np.round(bw_ * 64).astype(np.int64) * 1000 + np.round(ba_ * 64).astype(np.int64)
    first, inv = key(
        c["gpus"], c["tp"], c["cp"], c["ep"], c["mb"], c["sp"], c["tpo"], c["rc"], c["prec"], bwa, c["flash"]
    )
    LQ: dict[str, np.ndarray] = {}
    u = {k: c[k][first] for k in ("tp", "cp", "ep", "mb", "sp", "tpo", "rc", "prec", "flash")}
    ubw, uba, ugpn = bw_[first], ba_[first], gpn_all[first]
    gfirst, ginv = key(u["rc"], u["prec"], bwa[first], ugpn, u["flash"])
    for gi, f0 in enumerate(gfirst):
        sel = np.flatnonzero(ginv == gi)
        q = _layer_quantities(
            spec,
            hw,
            mdl,
            int(ugpn[f0]),
            seq,
            u["tp"][sel],
            u["cp"][sel],
            u["ep"][sel],
            u["mb"][sel],
            u["sp"][sel],
            u["tpo"][sel],
            RC[u["rc"][f0]],
            PREC[u["prec"][f0]],
            float(ubw[f0]),
            float(uba[f0]),
            bool(u["flash"][f0]),
        )
        for k, v in q.items():
            if k not in LQ:
                LQ[k] = np.zeros(v.shape[:-1] + (first.size,))
            LQ[k][..., sel] = v
    tp, pp, cp, ep, dp, mb, v = (c[k].astype(np.int64) for k in ("tp", "pp", "cp", "ep", "dp", "mb", "v"))
    # --- busiest pipeline stage: the one with the largest compute + exposed comm paces the pipeline
    comp = ("t_f", "t_b", "t_rc", "t_tp", "t_cp", "t_ep")
    st = {k: np.zeros(n) for k in comp}
    dense = np.zeros(n)
    expert = np.zeros(n)
    n_moe0 = np.zeros(n)
    n_dense0 = np.zeros(n)
    n_lay = np.zeros(n)  # layers of the busiest stage (all its chunks)
    lfirst, linv = key(pp, v)
    for li, f0 in enumerate(lfirst):
        P, V = int(pp[f0]), int(v[f0])
        rows = np.flatnonzero(linv == li)
        stages = TR.split_layers(len(mdl.layers), P, V)
        comps: dict[tuple[Any, ...], None] = {}  # distinct stage compositions, in stage order
        for si, s in enumerate(stages):
            cnt = tuple(np.bincount([mdl.layer_key[i] for i in s], minlength=len(mdl.keys)).tolist())
            comps.setdefault((cnt, si == P - 1, si == 0), None)
        ki = inv[rows]
        totals = []
        parts = []
        for cnt, last, firsts in comps:
            cnt_a = np.array(cnt, dtype=float)[:, None]
            io = f"{int(last)}{int(firsts)}"
            p = {k: TC.rowsum(cnt_a * LQ[k][:, ki]) for k in comp}
            p["t_f"] = p["t_f"] + LQ[f"io_f{io}"][ki]
            p["t_b"] = p["t_b"] + LQ[f"io_b{io}"][ki]
            parts.append(p)
            totals.append(p["t_f"] + p["t_b"] + p["t_rc"] + p["t_tp"] + p["t_cp"] + p["t_ep"])
        best = np.argmax(np.stack(totals), axis=0)
        for k in comp:
            st[k][rows] = np.choose(best, [p[k] for p in parts])
        n_lay[rows] = np.choose(best, [float(sum(cnt)) for cnt, _, _ in comps])
        n0 = len(stages[0])
        moe0 = int(mdl.is_moe_layer[stages[0]].sum()) if n0 else 0
        n_moe0[rows], n_dense0[rows] = moe0, n0 - moe0
        # parameters of the busiest device: once per (pp, v, ep); every term is divided by tp
        pf, pinv = key(ep[rows])
        for pj, r0 in enumerate(pf):
            pd = TM.params_per_device(spec, stages, tp=1, ep=int(ep[rows][r0]), pp=P)
            sel = rows[pinv == pj]
            dense[sel], expert[sel] = pd.dense / tp[sel], pd.expert / tp[sel]
    t_f, t_b, t_rc = st["t_f"], st["t_b"], st["t_rc"]
    t_comm = st["t_tp"] + st["t_cp"] + st["t_ep"]
    m = global_batch // (dp * mb)
    h = spec.hidden_size
    tokens_dev = mb * seq / cp
    # pipeline p2p: boundary activations, scattered over TP ranks (Narayanan 2021 §4.1)
    act_bytes = tokens_dev * h * ba_
    stride = tp * cp * dp
    p2p_gpn = np.where((stride < gpn_all) & (gpn_all // stride >= 2), 2, 1)
    pf2, pinv2 = key(c["gpus"], tp, cp, dp, mb, pp, c["zmode"], c["prec"])
    t_p2p = collective_v(hw, "send_recv", (act_bytes / tp)[pf2], np.where(pp > 1, 2, 1)[pf2], p2p_gpn[pf2])[
        pinv2
    ]
    pipe = np.zeros(n)
    bubble = np.zeros(n)
    for si, name in enumerate(SCHED):
        sel = c["sched"] == si
        if not sel.any():
            continue
        a = {
            "n_micro": m[sel],
            "pp": pp[sel],
            "t_bwd": t_b[sel],
            "t_comm_mb": t_comm[sel],
            "t_fwd": t_f[sel],
            "t_p2p": t_p2p[sel],
            "t_rc": t_rc[sel],
            "v_stages": v[sel],
        }
        fn, names, _ = G.FUNCTIONS[f"pipeline__{name}"]
        pipe[sel] = fn(*(a[k] for k in names))
        fn, names, _ = G.FUNCTIONS[f"bubble__{name}"]
        bubble[sel] = fn(*(a[k] for k in names))
    # --- data parallel, ZeRO, optimizer ------------------------------------------------------------
    zero = np.array([z for z, _ in ZMODES])[c["zmode"]]
    distopt_flag = np.array([d for _, d in ZMODES])[c["zmode"]]
    dpc = dp * cp  # gradients are reduced over data x context parallel ranks (Megatron)
    gpn_dp = group_gpn(gpn_all, dpc, tp)
    dist_opt = distopt_flag | (zero == 1) | (zero == 2)
    exp_dp = dpc // ep
    gpn_edp = np.where(exp_dp > 1, group_gpn(gpn_all, exp_dp, tp * ep), 1)
    z3 = zero == 3
    df, dinv = key(c["gpus"], tp, pp, v, cp, ep, c["zmode"], c["prec"])  # what DP traffic depends on

    def coll(op: str, size: np.ndarray, group: np.ndarray, gpn: np.ndarray) -> np.ndarray:
        return collective_v(hw, op, size[df], group[df], gpn[df])[dinv]

    # ZeRO-3 moves one layer at a time (the average layer of the busiest stage); the sharded
    # optimizer (ZeRO-1/2, distributed optimizer) the whole shard once per step
    per = np.where(z3, 1.0 / np.maximum(n_lay, 1.0), np.where(dist_opt, 1.0, 0.0))
    ag_d = coll("all_gather", dense * bw_ * per, dpc, gpn_dp)
    ag_e = coll("all_gather", expert * bw_ * per, exp_dp, gpn_edp)
    rs_d = coll("reduce_scatter", dense * bg_ * per, dpc, gpn_dp)
    rs_e = coll("reduce_scatter", expert * bg_ * per, exp_dp, gpn_edp)
    plain = ~(z3 | dist_opt)
    ar_d = coll("all_reduce", np.where(plain, dense * bg_, 0.0), dpc, gpn_dp)
    ar_e = coll("all_reduce", np.where(plain, expert * bg_, 0.0), exp_dp, gpn_edp)
    z3_ag = np.where(z3, ag_d + ag_e, 0.0)  # per layer, per pass
    z3_rs = np.where(z3, rs_d + rs_e, 0.0)
    z3_rc = (c["rc"] == RC.index("full")).astype(float)  # full recompute gathers a third time
    t_dp = np.where(z3, 0.0, np.where(dist_opt, rs_d + rs_e, ar_d + ar_e))
    t_ag = np.where(z3 | ~dist_opt, 0.0, ag_d + ag_e)
    n_buckets = np.maximum(1.0, (dense + expert) / TR.BUCKET_PARAMS)
    overlap = c["overlap"] == 1
    dp_exposed = G.dp__overlap(n_buckets, t_ag, t_b, t_dp, t_f)
    if not overlap.all():
        dp_exposed = np.where(overlap, dp_exposed, G.dp__serial(t_ag, t_dp))
    z3_exposed = np.where(z3, G.zero3(n_lay, m, t_b, t_f, t_rc, z3_ag, z3_rs, z3_rc), 0.0)
    z_o = np.where(dist_opt | (zero > 0), dpc, 1)
    psi_opt = np.where(
        z_o > 1, (dense + expert * dpc / np.maximum(exp_dp, 1) / np.maximum(dpc, 1)) / z_o, dense + expert
    )
    off = c["offload"]
    t_opt = G.optimizer(hw.memory_efficiency, hw.memory_bandwidth, 24 + bg_ + bw_, psi_opt)
    t_off = np.zeros(n)
    if off.any():  # ZeRO-Offload: the optimizer step runs on the host
        t_opt = np.where(off == 0, t_opt, 0.0)
        t_off = TM.offload_time(hw, off, gpn_all, psi_opt, bw_, bg_)
    step = pipe + dp_exposed + z3_exposed + t_opt + t_off
    # --- FLOPs (all devices): per-device layer FLOPs x TP ranks x CP ranks per micro-batch ---------
    cnt = mdl.count_all[:, None]
    lg = LQ["lg_flops"][inv]
    model_flops = (TC.rowsum(cnt * LQ["model"])[inv] + lg) * tp * cp * (global_batch / mb)
    hw_flops = (TC.rowsum(cnt * LQ["hw"])[inv] + lg) * tp * cp * (global_batch / mb)
    # --- memory ------------------------------------------------------------------------------------
    mem = TM.memory(
        spec, c, (first, inv), dense, expert, bw_, bg_, bo_, ba_, zero, dpc, exp_dp, m, n_dense0, n_moe0, seq
    )
    total = (
        mem["weights"]
        + mem["gradients"]
        + mem["optimizer"]
        + mem["activations"]
        + mem["logits"]
        + mem["buffers"]
    )
    peak = np.array([hw.peak.get(p, np.nan) for p in PREC])[c["prec"]]
    tokens_step = float(global_batch * seq)
    out: dict[str, np.ndarray] = {
        "iteration_time_s": step,
        "tokens_per_s": G.tokens_per_s(step, tokens_step),
        "model_flops_per_step": model_flops,
        "hardware_flops_per_step": hw_flops,
        "memory_bytes": total,
        "memory_gib_per_gpu": total / GIB,
        **{f"memory_{k}": x for k, x in mem.items()},
        "compute_fwd": m * t_f,
        "compute_bwd": m * t_b,
        "compute_recompute": m * t_rc,
        "compute": m * t_f + m * t_b + m * t_rc,
        "tp_comm": m * st["t_tp"],
        "cp_comm": m * st["t_cp"],
        "ep_comm": m * st["t_ep"],
        "pp_p2p": pipe - m * (t_f + t_b + t_rc + t_comm) - bubble,
        "pp_bubble": bubble,
        "dp_comm": dp_exposed,
        "zero3_comm": z3_exposed,
        "optimizer": t_opt,
        "offload": t_off,
        "n_micro": m,
        # values of the step expression's symbols (``llmcost train --explain``)
        "t_fwd": t_f,
        "t_bwd": t_b,
        "t_rc": t_rc,
        "t_comm_mb": t_comm,
        "t_p2p": t_p2p,
        "t_dp": t_dp,
        "t_ag": t_ag,
        "n_buckets": n_buckets,
        "t_z3_ag": z3_ag,
        "t_z3_rs": z3_rs,
        "layers_stage": n_lay,
        "z3_rc": z3_rc,
        "t_opt": t_opt,
        "t_offload": t_off,
    }
    gpus = c["gpus"].astype(float)
    out["tokens_per_s_per_gpu"] = out["tokens_per_s"] / gpus
    out["model_tflops_per_gpu"] = G.tflops_per_gpu(model_flops, gpus, step) / 1e12
    out["hardware_tflops_per_gpu"] = G.tflops_per_gpu(hw_flops, gpus, step) / 1e12
    out["mfu"] = G.mfu(model_flops, gpus, peak, step)
    out["hfu"] = G.mfu(hw_flops, gpus, peak, step)
    out["fits"] = ~(total > hw.memory_usable)
    price = hw.price_per_hour
    if price:
        out["usd_per_million_tokens"] = E.usd_per_million_tokens(gpus, step, tokens_step, price)
    if tokens:
        out["total_flops"] = model_flops / tokens_step * tokens
        out["time_to_train_s"] = G.time_to_train(step, tokens_step, tokens)
        out["gpu_hours"] = G.gpu_hours(gpus, step, tokens_step, tokens)
        if price:
            out["cost_usd"] = G.cost_usd(gpus, price, step, tokens_step, tokens)
    return out


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
)
"""Step-time parts of ``llmcost train`` (they sum to ``iteration_time_s``), in report order."""
VALUES = (
    "n_micro",
    "pp",
    "v_stages",
    "t_fwd",
    "t_bwd",
    "t_rc",
    "t_comm_mb",
    "t_p2p",
    "t_dp",
    "t_ag",
    "n_buckets",
    "t_z3_ag",
    "t_z3_rs",
    "layers_stage",
    "z3_rc",
    "t_opt",
    "t_offload",
)
"""Symbols of the step expression (:func:`llmcost.training.formulas.step_expression`)."""
