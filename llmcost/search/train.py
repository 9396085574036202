"""Training plan search: the declared space and its vectorized evaluation (runtime: no sympy).

Space (:class:`TrainSpace`): every (tp, pp, cp, ep) whose product with the derived dp is the GPU
count, micro-batch sizes (divisors of the global batch), ZeRO modes (0, Megatron distributed
optimizer, 1, 2, 3), recompute policies, schedules with their virtual stages, precisions with a
hardware peak, and optionally sequence parallelism and TP communication overlap (only when asked).
Validity is :func:`llmcost.cost.training.check`'s, applied to whole dimensions at once; each
rejected combination is counted under its reason.

Evaluation (:func:`evaluate_grid`) is :func:`llmcost.cost.train_step.evaluate`, the composition
:func:`llmcost.cost.training.evaluate` runs on one plan: a returned plan fed to ``llmcost train
--plan`` gives the same figures because it goes through the same function.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from llmcost.cost import train_step as TS
from llmcost.cost import training as TR
from llmcost.errors import UserError
from llmcost.hardware import Hardware
from llmcost.modelspec import ModelSpec
from llmcost.search.common import divisors

ZMODES = TS.ZMODES
"""ZeRO modes searched: (zero stage, Megatron distributed optimizer)."""
ZMODE_NAMES = ("0", "distopt", "1", "2", "3")
RC = TR.RECOMPUTE
SCHED = TR.SCHEDULES
PREC = TR.PRECISIONS
COLS = TS.COLS


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
    tp_overlap: tuple[bool, ...] = (False,)  # TP comm overlap: searched only when asked
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
    n_layers = len(TR.model_layers(spec))
    gb, seq = space.global_batch, space.seq_len
    # default: every training precision with a peak, fp16 only when asked (same peak as bf16, legacy)
    precs = (
        space.precision
        if space.precision is not None
        else tuple(p for p in PREC if p in hw.peak and p != "fp16")
    )
    for p in precs:
        if p not in PREC:
            raise UserError(f"--precision: '{p}' is not one of {', '.join(PREC)}")
    prec_ok = [p for p in precs if p in hw.peak]
    if len(prec_ok) < len(precs):
        rej[f"no {'/'.join(p for p in precs if p not in hw.peak)} compute on {hw.id}"] += 0  # counted below
    zm = [ZMODE_NAMES.index(z) for z in space.zero]
    rcs = [RC.index(r) for r in space.recompute]
    sps = space.sp if space.sp is not None else (None,)
    tpos = tuple(dict.fromkeys(bool(x) for x in space.tp_overlap)) or (False,)
    n_cat_all = len(zm) * len(rcs) * len(precs) * len(sps) * len(tpos)
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
                            if TR.pipeline_split_error(n_layers, pp, v):
                                rej["fewer layers than pp*v pipeline chunks"] += m2
                                continue
                            ok = gb % (dp * mbs) == 0
                            rej["global_batch does not divide by dp*micro_batch"] += (
                                int((~ok).sum()) * n_cat_all
                            )
                            good = mbs[ok]
                            if name == "interleaved":
                                okm = (gb // (dp * good)) % pp == 0
                                rej["interleaved: micro-batches not divisible by pp"] += (
                                    int((~okm).sum()) * n_cat_all
                                )
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
    cat = np.array(
        [
            (z, r, PREC.index(p), -1 if s is None else int(s), int(o))
            for z in zm
            for r in rcs
            for p in precs
            for s in sps
            for o in tpos
        ],
        dtype=np.int64,
    )
    ns, nc = struct.shape[0], cat.shape[0]
    S = np.repeat(struct, nc, axis=0)
    C = np.tile(cat, (ns, 1))
    cols = {
        "gpus": S[:, 0],
        "tp": S[:, 1],
        "pp": S[:, 2],
        "cp": S[:, 3],
        "ep": S[:, 4],
        "dp": S[:, 5],
        "v": S[:, 6],
        "sched": S[:, 7],
        "mb": np.repeat(mb, nc),
        "zmode": C[:, 0],
        "rc": C[:, 1],
        "prec": C[:, 2],
        "sp": C[:, 3],
        "tpo": C[:, 4],
    }
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
    tpo_bad = keep & (cols["tpo"] == 1) & (cols["sp"] == 0)
    rej["tp overlap needs tp > 1 with sequence parallel"] += int(tpo_bad.sum())
    keep &= ~tpo_bad
    # attention 'auto' (training.check): FlashAttention unless selective recompute or dropout
    cols["flash"] = ((cols["rc"] != RC.index("selective")) & (not TR.uses_dropout(spec))).astype(np.int64)
    n_all = cols["tp"].size
    cols["auto"] = np.ones(n_all, dtype=np.int64)  # attention 'auto', no offload, DP overlapped
    cols["offload"] = np.zeros(n_all, dtype=np.int64)
    cols["overlap"] = np.ones(n_all, dtype=np.int64)
    return Grid({k: v[keep] for k, v in cols.items()}, rej, declared)


# --- evaluation ------------------------------------------------------------------------------------
def evaluate_grid(
    spec: ModelSpec,
    hw: Hardware,
    grid: Grid,
    seq: int,
    global_batch: int,
    gpus_per_node: int | None = None,
    tokens: float | None = None,
) -> dict[str, np.ndarray]:
    """Step time, breakdown, FLOPs, memory and the README train metrics of every plan of ``grid``:
    :func:`llmcost.cost.train_step.evaluate`, the function ``llmcost train`` runs on one plan
    (attention 'auto': ``flash`` says which attention was costed)."""
    return TS.evaluate(spec, hw, grid.cols, seq, global_batch, gpus_per_node, tokens)


BREAKDOWN = (
    "compute",
    "tp_comm",
    "cp_comm",
    "ep_comm",
    "pp_bubble",
    "pp_p2p",
    "dp_comm",
    "zero3_comm",
    "optimizer",
)


def bottleneck(out: dict[str, np.ndarray], i: int) -> str:
    """The largest part of plan ``i``'s step time."""
    return max(BREAKDOWN, key=lambda k: float(out[k][i]))


def plan_dict(grid: Grid, i: int, global_batch: int, seq: int, tokens: float | None) -> dict[str, Any]:
    """Plan ``i`` with the validation README's train keys (feeds ``llmcost train --plan``)."""
    c = grid.cols
    z, d = ZMODES[int(c["zmode"][i])]
    sched = SCHED[int(c["sched"][i])]
    plan: dict[str, Any] = {
        "gpus": int(c["gpus"][i]),
        "tp": int(c["tp"][i]),
        "pp": int(c["pp"][i]),
        "dp": int(c["dp"][i]),
        "cp": int(c["cp"][i]),
        "ep": int(c["ep"][i]),
        "sp": bool(c["sp"][i]),
        "tp_overlap": bool(c["tpo"][i]),
        "zero": z,
        "distributed_optimizer": d,
        "micro_batch": int(c["mb"][i]),
        "global_batch": global_batch,
        "seq_len": seq,
        "recompute": RC[int(c["rc"][i])],
        "schedule": sched,
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


__all__ = ["TrainSpace", "Grid", "enumerate_space", "evaluate_grid", "plan_dict", "bottleneck"]
