"""Plans as rows of integer columns, and grouping of rows by distinct values (runtime: no sympy).

A plan is a row of :data:`COLS` (categorical columns are indices into
:data:`~llmcost.training.base.ZMODES`, :data:`~llmcost.training.base.RECOMPUTE`, ...);
:class:`Plans` adds what every stage of :func:`llmcost.training.step.evaluate` reads of the rows.
Work that depends on few columns is done once per distinct value (:func:`key`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from llmcost.hardware import Hardware
from llmcost.training.base import RECOMPUTE, SCHEDULES, ZMODES, bytes_table

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
    "rcm",
    "etp",
    "prec",
    "sp",
    "flash",
    "auto",
    "offload",
    "overlap",
    "tpo",
    "fnorm",
    "fact",
    "z3b",
    "epi",
    "frope",
    "fp8r",
    "ppo",
    "fce",
    "tpb",
    "aoff",
    "aofl",
    "sync",
    "syncb",
    "sfrag",
    "sovl",
    "gf32",
    "hbmc",
    "z3co",
    "z3s",
    "acw",
    "dsa",
    "tlc",
    "ppf",
    "f8h",
    "mpo",
    "epdd",
    "epo",
)
"""Plan columns: degrees, micro-batch, virtual stages, schedule / ZeRO mode / recompute / precision
indices (with selective recomputation's modules as bits, plan ``recompute_modules``:
:mod:`llmcost.training.recompute`), the routed experts' tensor-parallel degree (plan ``expert_tp``:
``tp`` or 1), sequence parallel, FlashAttention costed, attention 'auto' (may fall back to
FlashAttention), offload index, DP overlap, TP communication overlap (0 none, 1 pipelined with
the GEMMs: plan ``tp_overlap``; 2 each reduce-scatter fused into its producer GEMM: plan
``tp_fused_rs``), fused norm, fused activation
(plan ``fused_norm`` / ``fused_act``), ZeRO-3 parameters per collective (plan ``zero3_bucket``; 0:
one collective per layer), the busiest EP rank's routed tokens over the mean in thousandths (plan
``ep_imbalance``; 0: the default), fused rotary embedding (plan ``fused_rope``), fp8 quantization recipe
(plan ``fp8_recipe``, index into :data:`~llmcost.training.base.FP8_RECIPES`), pipeline send/recv
overlapped (plan ``pp_overlap``), fused cross-entropy (plan ``fused_ce``), the backward's TP
collectives overlapped with its GEMMs (plan ``tp_bwd_overlap``), activations offloaded to the host
(plan ``offload_activations``), how many layers' activations Megatron-Core offloads (plan
``offload_layers``; 0: none), DiLoCo's inner steps per outer sync (plan ``sync_interval``; 1:
ordinary data parallelism), bits per parameter of its outer all-reduce (plan ``sync_bytes``),
Streaming DiLoCo's fragments and overlapped inner steps (plan ``sync_fragments``, ``sync_overlap``;
1 and 0: the whole model at once, blocking), gradients accumulated and reduced in fp32 (plan
``grad_reduce_in_fp32``, resolved: 0 or 1), whether overlapped collectives' HBM traffic competes
with the compute (plan ``hbm_contention``), whether ZeRO-3 copies each gather into the parameters
on the compute stream (plan ``zero3_copy_out``), whether ZeRO-3's collectives run on the critical
path (plan ``zero3_serial``) and whether autocast casts the fp32 weights at each
forward (plan ``autocast_weights``), and whether full recomputation splits each stored layer input over
the TP ranks (plan ``distribute_saved_activations``), and whether sequence-parallel collectives copy
the full activation (plan ``tp_layout_copy``), and whether pipeline send/recvs move whole activations
in unpaired blocking calls (plan ``pp_p2p_full``), and whether fp8 plans keep the linear layers'
inputs in 16 bits (plan ``fp8_hp_inputs``), and whether the mixed-precision optimizer runs its own
passes around the step (plan ``optimizer_passes``), and whether the MoE dispatch sends each token once
per node (plan ``ep_deepep``) and hides the all-to-all under another micro-batch's compute (plan
``ep_overlap``; :class:`Plans` derives ``epu``, the micro-batches it leaves unpaired, from it)."""


@dataclass(frozen=True)
class Plans:
    """Plan rows (``c``, :data:`COLS`) with what the stages derive from them: degrees as int64,
    bytes per weight / gradient / optimizer state / activation (:func:`~llmcost.training.base.
    precision_bytes`), ranks per node ``gpn``, micro-batches per step ``m``, ZeRO stage and
    sharded optimizer, the data x context ranks ``dpc`` gradients are reduced over and the
    expert-data-parallel ranks ``exp_dp``."""

    c: dict[str, np.ndarray]
    seq: int
    global_batch: int
    tp: np.ndarray
    pp: np.ndarray
    cp: np.ndarray
    ep: np.ndarray
    dp: np.ndarray
    mb: np.ndarray
    v: np.ndarray
    b_w: np.ndarray
    b_g: np.ndarray
    b_o: np.ndarray
    b_a: np.ndarray
    gpn: np.ndarray
    m: np.ndarray
    zero: np.ndarray
    dist_opt: np.ndarray
    dpc: np.ndarray
    exp_dp: np.ndarray
    shares: tuple[tuple[float, float], ...] | None = None
    """Causal-pair share a document mask keeps per sliding window (:mod:`llmcost.training.seqdist`);
    None: one causal mask over each sequence of ``seq`` tokens."""

    @property
    def n(self) -> int:
        return int(self.c["tp"].size)

    def variant(self, rows: np.ndarray, seq: int, cp: int | None, shares: Any) -> Plans:
        """Rows ``rows`` costed at ``seq`` tokens per sequence, ``cp`` context-parallel ranks (None:
        their own) and attention ``shares``: a micro-batch shape of :mod:`llmcost.training.varlen`."""
        c = {k: v[rows] for k, v in self.c.items()}
        arrays = {f.name: getattr(self, f.name)[rows] for f in fields(self) if f.name not in _SCALARS}
        if cp is not None:
            c["cp"] = np.full(rows.size, cp, dtype=np.int64)
            arrays["cp"] = c["cp"]
            arrays["dpc"] = arrays["dp"] * arrays["cp"]
            arrays["exp_dp"] = expert_dp(arrays["tp"], arrays["dpc"], c["etp"], arrays["ep"])
        return Plans(c=c, seq=seq, global_batch=self.global_batch, shares=shares, **arrays)


_SCALARS = ("c", "seq", "global_batch", "shares")
"""The fields of :class:`Plans` that are not one value per row."""


def plans(
    hw: Hardware, c: dict[str, np.ndarray], seq: int, global_batch: int, gpus_per_node: int | None
) -> Plans:
    """:class:`Plans` of the rows ``c``: ranks per node are ``gpus_per_node`` (else the hardware's
    node) at most the GPU count; the distributed optimizer and ZeRO-1/2 shard the optimizer."""
    btab = bytes_table()
    bw_, bg_, bo_, ba_ = (btab[c["zmode"], c["prec"], c["gf32"], i] for i in range(4))
    tp, pp, cp, ep, dp, mb, v = (c[k].astype(np.int64) for k in ("tp", "pp", "cp", "ep", "dp", "mb", "v"))
    zero = np.array([z for z, _ in ZMODES])[c["zmode"]]
    distopt_flag = np.array([d for _, d in ZMODES])[c["zmode"]]
    dpc = dp * cp  # gradients are reduced over data x context parallel ranks (Megatron)
    m = global_batch // (dp * mb)
    c = {**c, "epu": unpaired_column(ep_overlap_on(c), ep, pp, v, m)}
    return Plans(
        c=c,
        seq=seq,
        global_batch=global_batch,
        tp=tp,
        pp=pp,
        cp=cp,
        ep=ep,
        dp=dp,
        mb=mb,
        v=v,
        b_w=bw_,
        b_g=bg_,
        b_o=bo_,
        b_a=ba_,
        gpn=np.maximum(1, np.minimum(gpus_per_node or hw.node_devices or 1, c["gpus"])),
        m=m,
        zero=zero,
        dist_opt=distopt_flag | (zero == 1) | (zero == 2),
        dpc=dpc,
        exp_dp=expert_dp(tp, dpc, c["etp"], ep),
    )


def expert_dp(tp: np.ndarray, dpc: np.ndarray, etp: np.ndarray, ep: np.ndarray) -> np.ndarray:
    """Expert-data-parallel ranks: the TP x DP x CP ranks of a stage over the expert grid's ETP x EP,
    ``tp·dp·c / (etp·ep)`` (Megatron-Core parallel_state.py: expert_data_parallel_size = world /
    (ETP·EP·PP)); ``dp·c / ep`` where the experts are sharded over the TP ranks (``etp`` = tp)."""
    return (tp * dpc) // (etp * ep)


EP_OVERLAP_NEEDS = (
    (lambda c: c["ep"] > 1, "ep_overlap hides the expert all-to-all: it needs ep > 1"),
    (
        lambda c: c["rc"] != RECOMPUTE.index("full"),
        "ep_overlap does not run with full recomputation; use recompute none, selective or op",
    ),
    (
        lambda c: (c["pp"] == 1) | (c["sched"] == SCHEDULES.index("interleaved")),
        "ep_overlap with pp > 1 needs the interleaved schedule (virtual_stages >= 2)",
    ),
)
"""Where Megatron-Core runs ``ep_overlap`` (transformer_config.py asserts the same): (test on plan
columns ``ep``, ``rc``, ``pp``, ``sched``, the line a single plan that fails it gets)."""


def ep_overlap_on(c: dict[str, np.ndarray]) -> np.ndarray:
    """Rows whose expert all-to-alls overlap another micro-batch's compute: ``epo`` set where
    :data:`EP_OVERLAP_NEEDS` holds (a single plan asking elsewhere is refused, a searched row keeps
    it off)."""
    on = c["epo"] == 1
    for test, _ in EP_OVERLAP_NEEDS:
        on = on & test(c)
    return on


def unpaired_column(epo: Any, ep: Any, pp: Any, v: Any, m: Any) -> np.ndarray:
    """Column ``epu``: with EP overlap on (``epo``, ``ep`` > 1) the share of micro-batches whose
    all-to-alls no other micro-batch's compute hides, in millionths (at least 1); 0 without overlap.
    Megatron-Core pairs one micro-batch's forward with another's backward in the steady state: with
    ``pp`` 1 all but the first forward and the last backward (``1/m``); with the interleaved schedule
    all but the first rank's warm-up forwards and cool-down backwards, ``2(p − 1) + (v − 1)·p`` chunk
    steps of ``m·v`` (megatron/core/pipeline_parallel/schedules.py, the interleaved schedule's
    ``num_warmup_microbatches`` with ``microbatch_group_size_per_vp_stage`` = pp)."""
    ep, pp, v, m = (np.asarray(x, dtype=np.int64) for x in (ep, pp, v, m))
    warm = np.where(pp > 1, 2 * (pp - 1) + (v - 1) * pp, 1)
    u = np.minimum(1.0, warm / np.maximum(m * v, 1))
    on = (np.asarray(epo) == 1) & (ep > 1)
    return np.where(on, np.maximum(1, np.rint(u * 1e6)), 0).astype(np.int64)


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
        c = c - lo
        if span > 64 and span > n // 64:  # a sparse column (bytes codes, sizes): its own codes first
            c, span = _compact(c, span)
        k = k * span + c
        size *= span
        if size > 1 << 20:
            k, size = _compact(k, size)
    k, size = _compact(k, size)
    first = np.full(size, -1, dtype=np.int64)
    first[k[::-1]] = np.arange(n - 1, -1, -1)
    return first, k
