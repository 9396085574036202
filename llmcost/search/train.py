"""Training plan search: the declared space and its vectorized evaluation (runtime: no sympy).

Space (:class:`TrainSpace`): every (tp, pp, cp, ep) whose product with the derived dp is the GPU
count, micro-batch sizes (divisors of the global batch), ZeRO modes (0, Megatron distributed
optimizer, 1, 2, 3), recompute policies, schedules with their virtual stages, precisions with a
hardware peak, and optionally sequence parallelism. Validity is :func:`llmcost.cost.training.check`'s,
applied to whole dimensions at once; each rejected combination is counted under its reason.

Evaluation (:func:`evaluate_grid`) computes the quantities of :func:`llmcost.cost.training.evaluate`
for arrays of plans, through the same functions: the graph's generated layer functions, the
training form of the operators and their roofline (:mod:`llmcost.cost.train_compute`, array
capable), collectives (:func:`llmcost.cost.collectives.collective` on arrays of sizes), and the
generated training expressions (pipeline schedules, DP overlap, ZeRO-3, optimizer, activations,
MFU...). Work that depends on few dimensions is done once per distinct value: operator costs
per (tp, cp, ep, micro-batch, sp, recompute, precision), parameters per (pp, v, tp, ep).
``tests/test_search.py`` re-evaluates returned plans through ``evaluate`` and compares.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np

from llmcost.cost import _training_generated as G
from llmcost.cost import train_compute as TC
from llmcost.cost import training as TR
from llmcost.errors import UserError
from llmcost.graph import model_values
from llmcost.hardware import Hardware
from llmcost.modelspec import ModelSpec
from llmcost.search.common import collective_v, divisors, group_gpn

ZMODES = ((0, False), (0, True), (1, False), (2, False), (3, False))
"""ZeRO modes searched: (zero stage, Megatron distributed optimizer)."""
ZMODE_NAMES = ("0", "distopt", "1", "2", "3")
RC = TR.RECOMPUTE
SCHED = TR.SCHEDULES
PREC = TR.PRECISIONS
COLS = ("gpus", "tp", "pp", "cp", "ep", "dp", "mb", "v", "sched", "zmode", "rc", "prec", "sp", "flash")


@dataclass(frozen=True)
class TrainSpace:
    """The declared space: None for a dimension means every value the model allows."""

    gpus: tuple[int, ...]
    global_batch: int
    seq_len: int
    tp: tuple[int, ...] | None = None
    pp: tuple[int, ...] | None = None
    cp: tuple[int, ...] | None = None
    ep: tuple[int, ...] | None = None
    micro_batch: tuple[int, ...] | None = None
    virtual_stages: tuple[int, ...] | None = None
    zero: tuple[str, ...] = ZMODE_NAMES
    recompute: tuple[str, ...] = RC
    schedule: tuple[str, ...] = SCHED
    precision: tuple[str, ...] | None = None
    sp: tuple[bool, ...] | None = None  # None: on when tp > 1 (Megatron default)
    gpus_per_node: int | None = None


@dataclass
class Grid:
    """Valid plans as integer columns (:data:`COLS`; categorical columns are indices)."""

    cols: dict[str, np.ndarray]
    rejected: Counter[str]
    declared: int

    def __len__(self) -> int:
        return int(self.cols["tp"].size)

    def take(self, idx: Any) -> Grid:
        return Grid({k: v[idx] for k, v in self.cols.items()}, self.rejected, self.declared)


def _pick(given: tuple[int, ...] | None, allowed: list[int]) -> list[int]:
    return sorted(given) if given is not None else allowed


def enumerate_space(spec: ModelSpec, hw: Hardware, space: TrainSpace) -> Grid:
    """Every plan of ``space`` that :func:`llmcost.cost.training.check` accepts (memory aside)."""
    rej: Counter[str] = Counter()
    n_layers = len(TR._layers(spec))
    gb, seq = space.global_batch, space.seq_len
    # default: every training precision with a peak, fp16 only when asked (same peak as bf16, legacy)
    precs = space.precision if space.precision is not None else tuple(p for p in PREC if p in hw.peak and p != "fp16")
    for p in precs:
        if p not in PREC:
            raise UserError(f"--precision: '{p}' is not one of {', '.join(PREC)}")
    prec_ok = [p for p in precs if p in hw.peak]
    if len(prec_ok) < len(precs):
        rej[f"no {'/'.join(p for p in precs if p not in hw.peak)} compute on {hw.id}"] += 0  # counted below
    zm = [ZMODE_NAMES.index(z) for z in space.zero]
    rcs = [RC.index(r) for r in space.recompute]
    sps = space.sp if space.sp is not None else (None,)
    n_cat_all = len(zm) * len(rcs) * len(precs) * len(sps)
    experts = spec.moe.num_experts if spec.is_moe and spec.moe is not None else 1
    rows: list[tuple[int, ...]] = []
    mbs_rows: list[np.ndarray] = []
    declared = 0
    for g in space.gpus:
        node = max(1, min(space.gpus_per_node or hw.node_devices or 1, g))
        tps = _pick(space.tp, divisors(g))
        pps = _pick(space.pp, divisors(g))
        cps = _pick(space.cp, divisors(g))
        eps = _pick(space.ep, divisors(experts) if spec.is_moe else [1])
        mbs = np.array(_pick(space.micro_batch, divisors(gb)), dtype=np.int64)
        for tp in tps:
            for pp in pps:
                scheds: list[tuple[int, int]] = []
                for s in space.schedule:
                    if s == "interleaved" and pp > 1:
                        vs = _pick(space.virtual_stages, list(range(2, max(2, n_layers // max(pp, 1)) + 1)))
                        scheds += [(SCHED.index(s), v) for v in vs if v >= 2]
                    elif s != "interleaved":
                        scheds.append((SCHED.index(s), 1))
                for cp in cps:
                    mult = len(eps) * len(scheds) * len(mbs) * n_cat_all
                    if g % (tp * pp * cp):  # not a factorization: counted only for values the user gave
                        if space.tp is not None or space.pp is not None or space.cp is not None:
                            declared += mult
                            rej["tp*pp*cp does not divide the GPUs"] += mult
                        continue
                    declared += mult
                    if g % node:
                        rej[f"{g} GPUs do not fill nodes of {node}"] += mult
                        continue
                    dp = g // (tp * pp * cp)
                    if spec.num_heads % tp:
                        rej["attention heads do not divide by tp"] += mult
                        continue
                    if spec.num_kv_heads % tp and tp % spec.num_kv_heads:
                        rej["KV heads and tp do not divide"] += mult
                        continue
                    if cp > 1 and seq % (2 * cp):
                        rej["seq_len does not divide by 2*cp"] += mult
                        continue
                    for ep in eps:
                        m1 = len(scheds) * len(mbs) * n_cat_all
                        if spec.is_moe and experts % ep:
                            rej["experts do not divide by ep"] += m1
                            continue
                        if not spec.is_moe and ep != 1:
                            rej["ep > 1 needs a MoE model"] += m1
                            continue
                        if (dp * cp) % ep:
                            rej["ep does not divide dp*cp"] += m1
                            continue
                        for sc, v in scheds:
                            m2 = len(mbs) * n_cat_all
                            name = SCHED[sc]
                            if name == "interleaved" and pp == 1:
                                rej["interleaved schedule needs pp > 1"] += m2
                                continue
                            if pp == 1 and name != "1f1b":
                                rej["pp=1: schedule moot (same plan as 1f1b)"] += m2
                                continue
                            chunks = pp * v
                            if n_layers < chunks or -n_layers % chunks > 2:
                                rej["layers do not split over pp*v chunks"] += m2
                                continue
                            ok = gb % (dp * mbs) == 0
                            rej["global_batch does not divide by dp*micro_batch"] += int((~ok).sum()) * n_cat_all
                            good = mbs[ok]
                            if name == "interleaved":
                                okm = (gb // (dp * good)) % pp == 0
                                rej["interleaved: micro-batches not divisible by pp"] += int((~okm).sum()) * n_cat_all
                                good = good[okm]
                            if good.size:
                                rows.append((g, tp, pp, cp, ep, dp, v, sc))
                                mbs_rows.append(good)
    if not rows:
        return Grid({c: np.zeros(0, dtype=np.int64) for c in COLS}, rej, declared)
    base = np.array(rows, dtype=np.int64)
    counts = np.array([m.size for m in mbs_rows])
    struct = np.repeat(base, counts, axis=0)
    mb = np.concatenate(mbs_rows)
    cat = np.array([(z, r, PREC.index(p), -1 if s is None else int(s))
                    for z in zm for r in rcs for p in precs for s in sps], dtype=np.int64)
    ns, nc = struct.shape[0], cat.shape[0]
    S = np.repeat(struct, nc, axis=0)
    C = np.tile(cat, (ns, 1))
    cols = {"gpus": S[:, 0], "tp": S[:, 1], "pp": S[:, 2], "cp": S[:, 3], "ep": S[:, 4], "dp": S[:, 5],
            "v": S[:, 6], "sched": S[:, 7], "mb": np.repeat(mb, nc), "zmode": C[:, 0], "rc": C[:, 1],
            "prec": C[:, 2], "sp": C[:, 3]}
    keep = np.ones(ns * nc, dtype=bool)
    bad_prec = ~np.isin(cols["prec"], [PREC.index(p) for p in prec_ok])
    for p in set(precs) - set(prec_ok):
        rej[f"no {p} compute on {hw.id}"] += int((cols["prec"] == PREC.index(p)).sum())
    rej.pop(f"no {'/'.join(p for p in precs if p not in hw.peak)} compute on {hw.id}", None)
    keep &= ~bad_prec
    z3pp = keep & (cols["zmode"] == 4) & (cols["pp"] > 1)
    rej["ZeRO-3 with pipeline parallelism"] += int(z3pp.sum())
    keep &= ~z3pp
    sp_dup = keep & (cols["sp"] == 1) & (cols["tp"] == 1)
    rej["sequence parallel needs tp > 1"] += int(sp_dup.sum())
    keep &= ~sp_dup
    cols["sp"] = np.where(cols["sp"] < 0, cols["tp"] > 1, cols["sp"] == 1).astype(np.int64)
    # attention 'auto' (training.check): FlashAttention unless selective recompute or dropout
    cols["flash"] = ((cols["rc"] != RC.index("selective")) & (not TR.uses_dropout(spec))).astype(np.int64)
    return Grid({k: v[keep] for k, v in cols.items()}, rej, declared)


# --- evaluation ------------------------------------------------------------------------------------
def _compact(k: np.ndarray, size: int) -> tuple[np.ndarray, int]:
    """Codes 0..n-1 of the distinct values of ``k`` (values in [0, size)), in increasing order."""
    if size <= max(1 << 20, 4 * k.size):
        present = np.zeros(size, dtype=bool)
        present[k] = True
        ids = np.cumsum(present) - 1
        return ids[k], int(present.sum())
    vals, inv = np.unique(k, return_inverse=True)
    return inv.reshape(-1), int(vals.size)


def _key(*cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


def _bytes_table(hw: Hardware) -> np.ndarray:
    """(b_w, b_g, b_o, b_a) per (zmode, precision) from :func:`training._precision_bytes`."""
    out = np.zeros((len(ZMODES), len(PREC), 4))
    for zi, (z, d) in enumerate(ZMODES):
        for pi, p in enumerate(PREC):
            lay = SimpleNamespace(plan=SimpleNamespace(zero=z, distributed_optimizer=d, precision=p))
            out[zi, pi] = TR._precision_bytes(lay)  # type: ignore[arg-type]
    return out


class _Model:
    """Per-model layer structure: distinct layer shapes and which layers use them."""

    def __init__(self, spec: ModelSpec) -> None:
        self.layers = TR._layers(spec)
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


def _layer_quantities(spec: ModelSpec, hw: Hardware, mdl: _Model, gpn: int, seq: int, tp: np.ndarray,
                      cp: np.ndarray, ep: np.ndarray, mb: np.ndarray, sp: np.ndarray, rc: str, prec: str,
                      b_w: float, b_a: float, flash: bool) -> dict[str, np.ndarray]:
    """Per layer shape (axis 0) and operator configuration (axis 1): compute, FLOPs and exposed
    TP / CP / EP communication of one micro-batch (``evaluate``'s ``lcost`` and ``layer_comm``)."""
    dropout = TR.uses_dropout(spec)
    mach = TR.machine(hw, prec)
    tpf, cpf, epf, mbf = (np.asarray(x, dtype=float) for x in (tp, cp, ep, mb))
    t_sp = np.where(sp == 1, tpf, 1.0)
    tokens_dev = mbf * seq / cpf
    vals: dict[str, Any] = model_values(spec)
    vals.update(tp=tpf, cp=cpf, ep=epf, etp=np.where(ep == 1, tpf, 1.0), b_w=b_w, b_a=b_a, b_kv=b_a,
                b_r=max(b_a, 2.0), c_dq=0.0, seq=seq, micro_batch=mbf, ctx=seq, seq_enc=seq)
    passes = 2 + (1 if rc == "full" else 0)
    gpn_tp = group_gpn(gpn, tp, 1)
    gpn_cp = group_gpn(gpn, cp, tp)
    gpn_ep = group_gpn(gpn, ep, tp * cp)
    n = tp.size
    out = {k: np.zeros((len(mdl.keys), n)) for k in ("t_f", "t_b", "t_rc", "model", "hw", "t_tp", "t_cp", "t_ep")}
    for j, (shape, win, stack) in enumerate(mdl.keys):
        ops = TC.graph_ops(shape, win, vals)
        s_kv = min(seq, win) if win else seq
        ops = TC.training_ops(ops, causal=stack == "dec", flash=flash, dropout=dropout, t_sp=t_sp,
                              tokens=tokens_dev, h=spec.hidden_size, heads=spec.num_heads / tpf, seq_kv=s_kv, b_a=b_a)
        lc = TC.layer_cost(ops, rc, mach, flash)
        for k, v in (("t_f", lc.t_fwd), ("t_b", lc.t_bwd), ("t_rc", lc.t_rc), ("model", lc.model_flops),
                     ("hw", lc.hw_flops)):
            out[k][j] = v
        t_tp = np.zeros(n)
        t_cp = np.zeros(n)
        t_ep = np.zeros(n)
        for o in lc.collectives():
            size = np.broadcast_to(np.asarray(o.size, dtype=float), (n,))
            if o.group == "tp":
                if sp.any():
                    one_sp = (collective_v(hw, "all_gather", size, tp, gpn_tp)
                              + collective_v(hw, "reduce_scatter", size, tp, gpn_tp))
                else:
                    one_sp = 0.0
                one = np.where(sp == 1, one_sp, collective_v(hw, "all_reduce", size, tp, gpn_tp))
                t_tp = t_tp + np.where((tp > 1) & (size > 0), passes * one, 0.0)
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


def evaluate_grid(spec: ModelSpec, hw: Hardware, grid: Grid, seq: int, global_batch: int,
                  gpus_per_node: int | None = None, tokens: float | None = None) -> dict[str, np.ndarray]:
    """Step time, breakdown, FLOPs, memory and the README train metrics of every plan of ``grid``.

    As :func:`llmcost.cost.training.evaluate` with attention 'auto': a plan whose materialized
    scores do not fit is costed with FlashAttention instead (``flash`` says which was costed)."""
    out = _evaluate(spec, hw, grid, seq, global_batch, gpus_per_node, tokens)
    redo = np.flatnonzero((grid.cols["flash"] == 0) & ~out["fits"])
    if redo.size:
        sub = grid.take(redo)
        sub.cols["flash"] = np.ones(redo.size, dtype=np.int64)
        o2 = _evaluate(spec, hw, sub, seq, global_batch, gpus_per_node, tokens)
        for k, v in o2.items():
            out[k][redo] = v
        out["flash"] = grid.cols["flash"].copy()
        out["flash"][redo] = 1
    else:
        out["flash"] = grid.cols["flash"].copy()
    return out


def _evaluate(spec: ModelSpec, hw: Hardware, grid: Grid, seq: int, global_batch: int,
              gpus_per_node: int | None, tokens: float | None) -> dict[str, np.ndarray]:
    c = grid.cols
    n = len(grid)
    mdl = _Model(spec)
    btab = _bytes_table(hw)
    bw_, bg_, bo_, ba_ = (btab[c["zmode"], c["prec"], i] for i in range(4))
    gpn_all = np.maximum(1, np.minimum(gpus_per_node or hw.node_devices or 1, c["gpus"]))
    # --- operator-level quantities, once per distinct configuration -----------------------------
    bwa = np.round(bw_ * 64).astype(np.int64) * 1000 + np.round(ba_ * 64).astype(np.int64)
    first, inv = _key(c["gpus"], c["tp"], c["cp"], c["ep"], c["mb"], c["sp"], c["rc"], c["prec"], bwa, c["flash"])
    LQ: dict[str, np.ndarray] = {}
    u = {k: c[k][first] for k in ("tp", "cp", "ep", "mb", "sp", "rc", "prec", "flash")}
    ubw, uba, ugpn = bw_[first], ba_[first], gpn_all[first]
    gfirst, ginv = _key(u["rc"], u["prec"], bwa[first], ugpn, u["flash"])
    for gi, f0 in enumerate(gfirst):
        sel = np.flatnonzero(ginv == gi)
        q = _layer_quantities(spec, hw, mdl, int(ugpn[f0]), seq, u["tp"][sel], u["cp"][sel], u["ep"][sel],
                              u["mb"][sel], u["sp"][sel], RC[u["rc"][f0]], PREC[u["prec"][f0]],
                              float(ubw[f0]), float(uba[f0]), bool(u["flash"][f0]))
        for k, v in q.items():
            if k not in LQ:
                LQ[k] = np.zeros(v.shape[:-1] + (first.size,))
            LQ[k][..., sel] = v
    tp, pp, cp, ep, dp, mb, v = (c[k].astype(np.int64) for k in ("tp", "pp", "cp", "ep", "dp", "mb", "v"))
    # --- busiest pipeline stage ------------------------------------------------------------------
    comp = ("t_f", "t_b", "t_rc", "t_tp", "t_cp", "t_ep")
    st = {k: np.zeros(n) for k in comp}
    dense = np.zeros(n)
    expert = np.zeros(n)
    n_moe0 = np.zeros(n)
    n_dense0 = np.zeros(n)
    from llmcost.cost import train_memory as TM

    lfirst, linv = _key(pp, v)
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
            p = {k: (cnt_a * LQ[k][:, ki]).sum(axis=0) for k in comp}
            p["t_f"] = p["t_f"] + LQ[f"io_f{io}"][ki]
            p["t_b"] = p["t_b"] + LQ[f"io_b{io}"][ki]
            parts.append(p)
            totals.append(p["t_f"] + p["t_b"] + p["t_rc"] + p["t_tp"] + p["t_cp"] + p["t_ep"])
        best = np.argmax(np.stack(totals), axis=0)
        for k in comp:
            st[k][rows] = np.choose(best, [p[k] for p in parts])
        n0 = len(stages[0])
        moe0 = int(mdl.is_moe_layer[stages[0]].sum()) if n0 else 0
        n_moe0[rows], n_dense0[rows] = moe0, n0 - moe0
        # parameters of the busiest device: once per (pp, v, ep); every term is divided by tp
        pf, pinv = _key(ep[rows])
        for pj, r0 in enumerate(pf):
            lay = SimpleNamespace(stage_layers=stages, tp=1, ep=int(ep[rows][r0]), pp=P)
            pd = TM.params_per_device(spec, lay)  # type: ignore[arg-type]
            sel = rows[pinv == pj]
            dense[sel], expert[sel] = pd.dense / tp[sel], pd.expert / tp[sel]
    t_f, t_b, t_rc = st["t_f"], st["t_b"], st["t_rc"]
    t_comm = st["t_tp"] + st["t_cp"] + st["t_ep"]
    m = global_batch // (dp * mb)
    h = spec.hidden_size
    tokens_dev = mb * seq / cp
    act_bytes = tokens_dev * h * ba_
    stride = tp * cp * dp
    p2p_gpn = np.where((stride < gpn_all) & (gpn_all // stride >= 2), 2, 1)
    pf2, pinv2 = _key(c["gpus"], tp, cp, dp, mb, pp, c["zmode"], c["prec"])
    t_p2p = collective_v(hw, "send_recv", (act_bytes / tp)[pf2], np.where(pp > 1, 2, 1)[pf2], p2p_gpn[pf2])[pinv2]
    pipe = np.zeros(n)
    bubble = np.zeros(n)
    for si, name in enumerate(SCHED):
        sel = c["sched"] == si
        if not sel.any():
            continue
        a = {"n_micro": m[sel], "pp": pp[sel], "t_bwd": t_b[sel], "t_comm_mb": t_comm[sel], "t_fwd": t_f[sel],
             "t_p2p": t_p2p[sel], "t_rc": t_rc[sel], "v_stages": v[sel]}
        fn, names, _ = G.FUNCTIONS[f"pipeline__{name}"]
        pipe[sel] = fn(*(a[k] for k in names))
        fn, names, _ = G.FUNCTIONS[f"bubble__{name}"]
        bubble[sel] = fn(*(a[k] for k in names))
    # --- data parallel, ZeRO, optimizer ------------------------------------------------------------
    zero = np.array([z for z, _ in ZMODES])[c["zmode"]]
    distopt_flag = np.array([d for _, d in ZMODES])[c["zmode"]]
    dpc = dp * cp
    gpn_dp = group_gpn(gpn_all, dpc, tp)
    dist_opt = distopt_flag | (zero == 1) | (zero == 2)
    exp_dp = dpc // ep
    gpn_edp = np.where(exp_dp > 1, group_gpn(gpn_all, exp_dp, tp * ep), 1)
    z3 = zero == 3
    df, dinv = _key(c["gpus"], tp, pp, v, cp, ep, c["zmode"], c["prec"])  # what DP traffic depends on

    def coll(op: str, size: np.ndarray, group: np.ndarray, gpn: np.ndarray) -> np.ndarray:
        return collective_v(hw, op, size[df], group[df], gpn[df])[dinv]

    ag_d = coll("all_gather", np.where(z3 | dist_opt, dense * bw_, 0.0), dpc, gpn_dp)
    ag_e = coll("all_gather", np.where(z3 | dist_opt, expert * bw_, 0.0), exp_dp, gpn_edp)
    rs_d = coll("reduce_scatter", np.where(z3 | dist_opt, dense * bg_, 0.0), dpc, gpn_dp)
    rs_e = coll("reduce_scatter", np.where(z3 | dist_opt, expert * bg_, 0.0), exp_dp, gpn_edp)
    plain = ~(z3 | dist_opt)
    ar_d = coll("all_reduce", np.where(plain, dense * bg_, 0.0), dpc, gpn_dp)
    ar_e = coll("all_reduce", np.where(plain, expert * bg_, 0.0), exp_dp, gpn_edp)
    passes = 2 + (c["rc"] == RC.index("full"))
    t_z3 = np.where(z3, passes * ag_d + rs_d + passes * ag_e + rs_e, 0.0)
    t_dp = np.where(z3, 0.0, np.where(dist_opt, rs_d + rs_e, ar_d + ar_e))
    t_ag = np.where(z3 | ~dist_opt, 0.0, ag_d + ag_e)
    n_buckets = np.maximum(1.0, (dense + expert) / TR.BUCKET_PARAMS)
    dp_exposed = G.dp__overlap(n_buckets, t_ag, t_b, t_dp, t_f)
    z3_exposed = np.where(z3, G.zero3(m, t_b, t_f, t_rc, t_z3), 0.0)
    z_o = np.where(dist_opt | (zero > 0), dpc, 1)
    psi_opt = np.where(z_o > 1, (dense + expert * dpc / np.maximum(exp_dp, 1) / np.maximum(dpc, 1)) / z_o,
                       dense + expert)
    t_opt = G.optimizer(hw.memory_efficiency, hw.memory_bandwidth, 24 + bg_ + bw_, psi_opt)
    step = pipe + dp_exposed + z3_exposed + t_opt
    # --- FLOPs -----------------------------------------------------------------------------------
    cnt = mdl.count_all[:, None]
    lg = LQ["lg_flops"][inv]
    model_flops = ((cnt * LQ["model"]).sum(axis=0)[inv] + lg) * tp * cp * (global_batch / mb)
    hw_flops = ((cnt * LQ["hw"]).sum(axis=0)[inv] + lg) * tp * cp * (global_batch / mb)
    # --- memory (train_memory.memory on arrays) ----------------------------------------------------
    mem = _memory(spec, c, (first, inv), dense, expert, bw_, bg_, bo_, ba_, zero, dpc, exp_dp, m, n_dense0,
                  n_moe0, seq)
    total = mem["weights"] + mem["gradients"] + mem["optimizer"] + mem["activations"] + mem["logits"] + mem["buffers"]
    peak = np.array([hw.peak.get(p, np.nan) for p in PREC])[c["prec"]]
    tokens_step = float(global_batch * seq)
    out: dict[str, np.ndarray] = {
        "iteration_time_s": step,
        "tokens_per_s": G.tokens_per_s(step, tokens_step),
        "model_flops_per_step": model_flops, "hardware_flops_per_step": hw_flops,
        "memory_bytes": total, "memory_gib_per_gpu": total / 2**30,
        "compute": m * t_f + m * t_b + m * t_rc, "tp_comm": m * st["t_tp"], "cp_comm": m * st["t_cp"],
        "ep_comm": m * st["t_ep"], "pp_p2p": pipe - m * (t_f + t_b + t_rc + t_comm) - bubble, "pp_bubble": bubble,
        "dp_comm": dp_exposed, "zero3_comm": z3_exposed, "optimizer": t_opt, "n_micro": m,
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
        out["usd_per_million_tokens"] = gpus * price * step / 3600 / tokens_step * 1e6
    if tokens:
        out["total_flops"] = model_flops / tokens_step * tokens
        out["time_to_train_s"] = G.time_to_train(step, tokens_step, tokens)
        out["gpu_hours"] = G.gpu_hours(gpus, step, tokens_step, tokens)
        if price:
            out["cost_usd"] = G.cost_usd(gpus, price, step, tokens_step, tokens)
    return out


def _memory(spec: ModelSpec, c: dict[str, np.ndarray], k1: tuple[np.ndarray, np.ndarray], dense: np.ndarray,
            expert: np.ndarray, b_w: np.ndarray, b_g: np.ndarray, b_o: np.ndarray, b_a: np.ndarray,
            zero: np.ndarray, dpc: np.ndarray, exp_dp: np.ndarray, m: np.ndarray, n_dense0: np.ndarray,
            n_moe0: np.ndarray, seq: int) -> dict[str, np.ndarray]:
    """Bytes per device by component, as :func:`llmcost.cost.train_memory.memory`; per-layer
    activations once per operator configuration ``k1`` (first rows, inverse)."""
    from llmcost.cost import train_memory as TM

    tp, cp, mb, pp, v = (c[k].astype(float) for k in ("tp", "cp", "mb", "pp", "v"))
    z3 = zero == 3
    z_w = np.where(z3, dpc, 1)
    z_g = np.where(zero >= 2, dpc, 1)
    z_o = np.where((zero >= 1) | (c["zmode"] == 1), dpc, 1)
    e_dp = np.maximum(1, exp_dp)
    ez_w, ez_g, ez_o = (np.minimum(z, e_dp) for z in (z_w, z_g, z_o))
    weights = dense * b_w / z_w + expert * b_w / ez_w
    grads = dense * b_g / z_g + expert * b_g / ez_g
    optim = dense * b_o / z_o + expert * b_o / ez_o
    dropout = TR.uses_dropout(spec)
    moe = spec.moe
    dense_ffn = float(spec.intermediate_size)
    moe_ffn = dense_ffn
    if moe is not None:
        moe_ffn = float(moe.top_k * moe.expert_intermediate_size + moe.num_shared_experts * moe.shared_intermediate_size)
    f1, inv1 = k1
    cp1, mb1, tp1, ba1 = cp[f1], mb[f1], tp[f1], b_a[f1]
    tsp1 = np.where(c["sp"][f1] == 1, tp1, 1.0)

    def act(policy: str, ffn: float) -> np.ndarray:
        fn, names, _ = G.FUNCTIONS[f"act__{policy}"]
        args = {"cp": cp1, "d_ff_act": ffn, "kv_dim": spec.kv_dim, "d_model": spec.hidden_size, "q_dim": spec.q_dim,
                "dropout": 1.0 if dropout else 0.0, "micro_batch": mb1, "n_q": spec.num_heads,
                "phi_a": 6.0 if spec.gated_mlp else 4.0, "seq": seq, "tp": tp1, "tp_sp": tsp1}
        return (fn(*(args[k] for k in names)) * ba1 / 2.0)[inv1]

    rc = c["rc"]
    flash = c["flash"] == 1

    def per_layer(policy: str) -> tuple[np.ndarray, np.ndarray]:  # (dense-FFN layer, MoE-FFN layer)
        if policy == "attn":  # the attention that runs: FlashAttention or materialized scores
            return (np.where(flash, act("flash", dense_ffn), act("materialized", dense_ffn)),
                    np.where(flash, act("flash", moe_ffn), act("materialized", moe_ffn)))
        return act(policy, dense_ffn), act(policy, moe_ffn)

    stored = np.zeros(m.shape)
    working = np.zeros(m.shape)
    for r, name in enumerate(RC):
        sel = rc == r
        if not sel.any():
            continue
        d, e = per_layer({"full": "full", "selective": "selective"}.get(name, "attn"))
        stored = np.where(sel, n_dense0 * d + n_moe0 * e, stored)
        if name == "full":  # one layer's full activations live while it is recomputed
            d, e = per_layer("attn")
            working = np.where(sel, np.maximum(np.where(n_dense0 > 0, d, 0.0), np.where(n_moe0 > 0, e, 0.0)), working)
    sched = c["sched"]
    base = np.minimum(m, pp)
    inflight = np.where(sched == SCHED.index("gpipe"), m.astype(float),
                        np.where(sched == SCHED.index("interleaved"), base * (1 + (pp - 1) / (pp * v)), base))
    acts = stored * inflight + working
    logits = 4.0 * seq / cp * mb * spec.vocab_size / tp
    buffers = np.where(z3, 2 * (dense + expert) / max(1, TM.n_layers(spec)) * b_w, 0.0)
    return {"weights": weights, "gradients": grads, "optimizer": optim, "activations": acts, "logits": logits,
            "buffers": buffers}


BREAKDOWN = ("compute", "tp_comm", "cp_comm", "ep_comm", "pp_bubble", "pp_p2p", "dp_comm", "zero3_comm", "optimizer")


def bottleneck(out: dict[str, np.ndarray], i: int) -> str:
    """The largest part of plan ``i``'s step time."""
    return max(BREAKDOWN, key=lambda k: float(out[k][i]))


def plan_dict(grid: Grid, i: int, global_batch: int, seq: int, tokens: float | None) -> dict[str, Any]:
    """Plan ``i`` with the validation README's train keys (feeds ``llmcost train --plan``)."""
    c = grid.cols
    z, d = ZMODES[int(c["zmode"][i])]
    sched = SCHED[int(c["sched"][i])]
    plan: dict[str, Any] = {
        "gpus": int(c["gpus"][i]), "tp": int(c["tp"][i]), "pp": int(c["pp"][i]), "dp": int(c["dp"][i]),
        "cp": int(c["cp"][i]), "ep": int(c["ep"][i]), "sp": bool(c["sp"][i]), "zero": z,
        "distributed_optimizer": d, "micro_batch": int(c["mb"][i]), "global_batch": global_batch, "seq_len": seq,
        "recompute": RC[int(c["rc"][i])], "schedule": sched,
        "virtual_stages": int(c["v"][i]) if sched == "interleaved" else None,
        "precision": PREC[int(c["prec"][i])],
    }
    if tokens:
        plan["tokens"] = tokens
    return {k: v for k, v in plan.items() if v is not None}


def default_seq(spec: ModelSpec) -> int:
    """``training.check``'s default sequence length."""
    return int(min(spec.max_position_embeddings or 4096, 4096))


def gpn_of(hw: Hardware, gpus: int, gpus_per_node: int | None) -> int:
    """Ranks per node as ``training.check`` places them."""
    return max(1, min(gpus_per_node or hw.node_devices or 1, gpus))


__all__ = ["TrainSpace", "Grid", "enumerate_space", "evaluate_grid", "plan_dict", "bottleneck", "math"]
