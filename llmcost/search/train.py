"""Training plan search: the declared space and its vectorized evaluation (runtime: no sympy).

Space (:class:`TrainSpace`): every (tp, pp, cp, ep) whose product with the derived dp is the GPU
count, micro-batch sizes (divisors of the global batch), ZeRO modes (0, Megatron distributed
optimizer, 1, 2, 3), recompute policies, schedules with their virtual stages, precisions with a
hardware peak, and optionally sequence parallelism and TP communication overlap (only when asked).
Validity is :data:`llmcost.training.plan.RULES`, the rules :func:`llmcost.training.plan.check`
raises: the same predicates applied as masks level by level over the enumerated dimensions
(:func:`enumerate_space`), each rejected combination counted under the first rule it breaks.

Evaluation (:func:`evaluate_grid`) is :func:`llmcost.training.step.evaluate`, the composition
:func:`llmcost.training.plan.evaluate` runs on one plan: a returned plan fed to ``llmcost train
--plan`` gives the same figures because it goes through the same function.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from llmcost.errors import UserError
from llmcost.hardware import Hardware
from llmcost.model.spec import ModelSpec
from llmcost.rules import Rule
from llmcost.search.common import check_size, divisors
from llmcost.training import plan as TR
from llmcost.training import step as TS
from llmcost.training.base import FP8_RECIPES, model_layers
from llmcost.training.columns import ep_overlap_on
from llmcost.training.layers import PREFILL_BATCH, ConfigMemo, config_tuples
from llmcost.training.recompute import DEFAULT_MASK, mask_modules, modules_mask, selective_column

ZMODES = TS.ZMODES
"""ZeRO modes searched: (zero stage, Megatron distributed optimizer)."""
ZMODE_NAMES = ("0", "distopt", "1", "2", "3")
RC = TR.RECOMPUTE
SCHED = TR.SCHEDULES
PREC = TR.PRECISIONS
COLS = TS.COLS
OPTIONS_NARROW = "--gpus, --tp, --pp, --cp, --ep, --micro-batch, --virtual-stages, --zero, --recompute"
"""The options that narrow a train space, named when it is refused for its size."""


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
    recompute: tuple[str, ...] = RC[:3]  # none, selective, full; 'op' (per-op SAC) when asked
    schedule: tuple[str, ...] = SCHED
    precision: tuple[str, ...] | None = None
    sp: tuple[bool, ...] | None = None  # None: on when tp > 1 (Megatron default)
    tp_overlap: tuple[bool, ...] = (False,)  # TP comm overlap: searched only when asked
    gpus_per_node: int | None = None
    stack: Any = None  # a software stack ({framework, year} or "NAME[:YEAR]"): its plan defaults
    stack_default: bool = False  # ``stack`` is today's mainstream, none named (it bounds nothing)
    stack_bounds: tuple[tuple[str, tuple[Any, ...]], ...] = ()  # dimensions the stack bounded (search.space)
    offload: str = "none"  # where every plan keeps its optimizer state: none (device), cpu, nvme
    workload: Any = None  # every plan's sequence-length distribution (llmcost.training.seqdist.Workload)
    sync_interval: int = 1  # DiLoCo's inner steps per outer sync of every plan (1: ordinary DP)
    sync_bytes: float | None = None  # bytes per parameter of its outer all-reduce (None: fp32)
    sync_fragments: int = 1  # Streaming DiLoCo: fragments of the outer sync (1: all at once)
    sync_overlap: int = 0  # Streaming DiLoCo: inner steps a fragment's all-reduce overlaps (0: blocking)
    power_cap: float | None = None  # board power limit of every plan's devices, W (None: the default limit)
    ep_imbalance: float | None = None  # busiest EP rank's routed tokens over the mean (None: the default)
    ep_deepep: bool | None = None  # node-deduplicated MoE dispatch (None: the stack's, else off)
    ep_overlap: bool | None = None  # expert all-to-all under another micro-batch's compute where it runs
    mtp_layers: int = 0  # MTP modules every plan trains (llmcost.training.base.with_mtp)
    recompute_modules: tuple[str, ...] | None = None  # what selective plans recompute (None: core_attn)
    expert_tp: int | None = None  # 1: every EP plan keeps its experts whole (Parallel Folding); None: tp


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


# --- validity: training.RULES over the enumerated dimensions ---------------------------------------
LEVELS: tuple[tuple[str, ...], ...] = (
    ("gpus", "tp", "pp", "cp", "dp", "node", "seq", "sync"),
    ("ep",),
    ("sched", "v"),
    ("mb", "gb"),
    ("zero", "distopt", "prec", "sp", "tpo", "offload", "rc"),
)
"""The dimensions in the order :func:`enumerate_space` expands them (the rule fields of
:class:`llmcost.training.plan.RuleFields` each dimension fixes): a rule is applied at the first
level where every field it reads is known."""

DEDUPS: dict[str, Rule] = {
    "fewer layers than pp*v pipeline chunks": Rule(
        "pp=1: schedule moot (same plan as 1f1b)",
        lambda s, p: (p.pp == 1) & (p.sched != SCHED.index("1f1b")),
        lambda s, p: "",
        ("pp", "sched"),
    ),
    "offload without ZeRO": Rule(
        "tp=1: sequence parallel moot (same plan as off)",
        lambda s, p: (p.sp == 1) & (p.tp == 1),
        lambda s, p: "",
        ("sp", "tp"),
    ),
}
"""Not validity rules: plans ``training.check`` accepts that cost the same as another plan of the
space (without a pipeline every schedule is 1f1b; with tp 1 sequence parallelism is off), listed
once; each skipped before the rule it is keyed by (where the plan-by-plan order puts it)."""


def _level(rule: Rule) -> int:
    return max(next(i for i, names in enumerate(LEVELS) if f in names) for f in rule.reads)


CHECKS: tuple[tuple[Rule, int], ...] = tuple(
    (r, _level(r))
    for rule in TR.RULES
    for r in ((DEDUPS[rule.reason], rule) if rule.reason in DEDUPS else (rule,))
)
""":data:`llmcost.training.plan.RULES` (and the :data:`DEDUPS`), each with its level in
:data:`LEVELS`; the rules are ordered by level, so applying them level by level counts each
rejected plan under the first rule it breaks, as ``training.check`` reports it."""


def _apply(
    spec: ModelSpec, fields: TR.RuleFields, level: int, weight: Any, rej: Counter[str], skip: str = ""
) -> np.ndarray:
    """Mask of the plans of ``fields`` that break none of the rules of ``level``; each rejected plan
    adds its ``weight`` (the plans it stands for in the full space) to the first rule it breaks,
    except the rule ``skip`` (not counted)."""
    n = len(fields.tp)
    ok = np.ones(n, dtype=bool)
    for rule, lv in CHECKS:
        if lv != level:
            continue
        bad = np.broadcast_to(rule.broken(spec, fields), (n,)) & ok
        if rule.reason != skip:
            rej[rule.reason] += int(bad.sum()) * weight if np.ndim(weight) == 0 else int(weight[bad].sum())
        ok &= ~bad
    return ok


def _schedules(space: TrainSpace, pp: int, n_layers: int) -> list[tuple[int, int]]:
    """(schedule index, virtual stages) searched at pipeline degree ``pp``: interleaved with each
    virtual-stage count from 2 to the layers per stage (or those given) when pp > 1."""
    out: list[tuple[int, int]] = []
    for s in space.schedule:
        if s == "interleaved" and pp > 1:
            vs = _pick(space.virtual_stages, list(range(2, max(2, n_layers // max(pp, 1)) + 1)))
            out += [(SCHED.index(s), v) for v in vs if v >= 2]
        elif s != "interleaved":
            out.append((SCHED.index(s), 1))
    return out


def _expand(cols: dict[str, np.ndarray], keep: np.ndarray, counts: Any) -> dict[str, np.ndarray]:
    """The kept rows of ``cols``, each repeated ``counts`` times (its children, in order); a space
    past :data:`llmcost.search.common.MAX_PLANS` is refused before it is built."""
    n = int(keep.sum()) * int(counts) if np.ndim(counts) == 0 else int(counts[keep].sum())
    check_size(n, "train", OPTIONS_NARROW)
    return {k: np.repeat(v[keep], counts if np.ndim(counts) == 0 else counts[keep]) for k, v in cols.items()}


def _option_rows(space: TrainSpace, hw: Hardware) -> np.ndarray:
    """The per-plan option rows (ZeRO mode, recompute, precision, sequence parallel -1 = auto,
    TP overlap) as indices. Default precisions: every training precision with a peak, fp16 only
    when asked or where the device has no bf16 (V100, T4: fp16 is how they train)."""
    precs = (
        space.precision
        if space.precision is not None
        else tuple(p for p in PREC if p in hw.peak and (p != "fp16" or "bf16" not in hw.peak))
    )
    for p in precs:
        if p not in PREC:
            raise UserError(f"--precision: '{p}' is not one of {', '.join(PREC)}")
    sps = space.sp if space.sp is not None else (None,)
    tpos = tuple(dict.fromkeys(bool(x) for x in space.tp_overlap)) or (False,)
    return np.array(
        [
            (ZMODE_NAMES.index(z), RC.index(r), PREC.index(p), -1 if s is None else int(s), int(o))
            for z in space.zero
            for r in space.recompute
            for p in precs
            for s in sps
            for o in tpos
        ],
        dtype=np.int64,
    ).reshape(-1, 5)


def _layout_cols(space: TrainSpace, hw: Hardware) -> dict[str, np.ndarray]:
    """Level 0: the layouts (gpus, tp, pp, cp) with the derived dp and the node size."""
    lay: list[np.ndarray] = []
    narrowed = space.tp is not None or space.pp is not None or space.cp is not None
    for g in space.gpus:
        if narrowed:
            degs = [_pick(given, divisors(g)) for given in (space.tp, space.pp, space.cp)]
            check_size(math.prod(len(d) for d in degs), "train", "--gpus, --tp, --pp, --cp")
            grid = np.stack(np.meshgrid(*degs, indexing="ij"), axis=-1).reshape(-1, 3)
        else:  # the factorizations of g, in the order of the full grid (the others are not declared)
            grid = np.array(
                [(t, p, c) for t in divisors(g) for p in divisors(g // t) for c in divisors(g // (t * p))],
                dtype=np.int64,
            ).reshape(-1, 3)
        node = TR.node_size(hw, g, space.gpus_per_node)
        lay.append(np.column_stack([np.full(len(grid), g), grid, np.full(len(grid), node)]))
    g, tp, pp, cp, node = np.concatenate(lay).astype(np.int64).T if lay else np.zeros((5, 0), dtype=np.int64)
    ways = np.where(tp * pp > g, g + 1, tp * pp * cp)  # degrees up to 2^24 each: no int64 overflow
    return {"gpus": g, "tp": tp, "pp": pp, "cp": cp, "dp": g // ways, "node": node}


@dataclass(frozen=True)
class _Choices:
    """What each level after the layouts expands a plan into: ep degrees, (schedule, virtual
    stages) per pipeline degree, micro-batches and the per-plan option rows."""

    eps: np.ndarray
    pps: list[int]
    sched_of: dict[int, np.ndarray]
    mbs: np.ndarray
    cat: np.ndarray

    def n_sched(self, pp: np.ndarray) -> np.ndarray:
        """Schedules searched for each pipeline degree of ``pp``."""
        return np.array([len(self.sched_of[p]) for p in self.pps], dtype=np.int64)[
            np.searchsorted(self.pps, pp)
        ]


def _layouts_level(
    spec: ModelSpec,
    space: TrainSpace,
    hw: Hardware,
    cols: dict[str, np.ndarray],
    ch: _Choices,
    rej: Counter[str],
) -> tuple[np.ndarray, int]:
    """Level 0: mask of the valid layouts and the size of the declared space."""
    weight = ch.eps.size * ch.n_sched(cols["pp"]) * ch.mbs.size * len(ch.cat)
    f = _fields(space, hw, cols)
    narrowed = space.tp is not None or space.pp is not None or space.cp is not None
    factor = TR.RULES[0].reason
    declared = int(weight.sum()) if narrowed else int(weight[~TR.RULES[0].broken(spec, f)].sum())
    return _apply(spec, f, 0, weight, rej, skip="" if narrowed else factor), declared


_Level = tuple[dict[str, np.ndarray], np.ndarray]


def _fields(space: TrainSpace, hw: Hardware, cols: dict[str, np.ndarray], **more: Any) -> TR.RuleFields:
    """The rule fields of enumerated plans ``cols``: the space's sequence length and DiLoCo sync
    interval (the same for every plan) and ``more``."""
    if space.expert_tp == 1 and "ep" in cols:  # whole experts wherever the plan has EP
        more = {"etp": _folded(cols), **more}
    return TR.RuleFields(**cols, seq=space.seq_len, sync=space.sync_interval, hw=hw, **more)


def _folded(cols: dict[str, np.ndarray]) -> np.ndarray:
    """Expert TP 1 where a plan has expert parallelism, else its tp (``search train --expert-tp 1``)."""
    return np.where(cols["ep"] > 1, 1, cols["tp"]).astype(np.int64)


def _ep_level(
    spec: ModelSpec, space: TrainSpace, hw: Hardware, lv: _Level, ch: _Choices, rej: Counter[str]
) -> _Level:
    """Level 1: each kept layout times the ep degrees."""
    cols = _expand(lv[0], lv[1], ch.eps.size)
    cols["ep"] = np.tile(ch.eps, len(cols["tp"]) // max(ch.eps.size, 1))
    f = _fields(space, hw, cols)
    return cols, _apply(spec, f, 1, ch.n_sched(cols["pp"]) * ch.mbs.size * len(ch.cat), rej)


def _schedule_level(
    spec: ModelSpec, space: TrainSpace, hw: Hardware, lv: _Level, ch: _Choices, rej: Counter[str]
) -> _Level:
    """Level 2, schedule and virtual stages (their choices depend on pp): row r's j-th child is
    entry j of its pp's list in the concatenated table."""
    cols, keep = lv
    n_sched = ch.n_sched(cols["pp"])
    counts, row_pp = n_sched[keep], cols["pp"][keep]
    cols = _expand(cols, keep, n_sched)
    pps, sched_of = ch.pps, ch.sched_of
    table = np.concatenate([sched_of[p] for p in pps] or [np.zeros((0, 2), dtype=np.int64)])
    start = np.cumsum([0, *(len(sched_of[p]) for p in pps)])[np.searchsorted(pps, row_pp)]
    idx = np.arange(int(counts.sum())) + np.repeat(start - (np.cumsum(counts) - counts), counts)
    cols["sched"], cols["v"] = table[idx].T
    f = _fields(space, hw, cols)
    return cols, _apply(spec, f, 2, ch.mbs.size * len(ch.cat), rej)


def _micro_batch_level(
    spec: ModelSpec, space: TrainSpace, hw: Hardware, lv: _Level, ch: _Choices, rej: Counter[str]
) -> _Level:
    """Level 3: each kept plan times the micro-batch sizes."""
    cols = _expand(lv[0], lv[1], ch.mbs.size)
    cols["mb"] = np.tile(ch.mbs, len(cols["tp"]) // max(ch.mbs.size, 1))
    f = _fields(space, hw, cols, gb=space.global_batch)
    return cols, _apply(spec, f, 3, len(ch.cat), rej)


def _options_level(
    spec: ModelSpec, space: TrainSpace, hw: Hardware, lv: _Level, ch: _Choices, rej: Counter[str]
) -> _Level:
    """Level 4, the per-plan options: ZeRO mode, recompute, precision, sequence parallel, TP overlap."""
    n_cat = len(ch.cat)
    cols = _expand(lv[0], lv[1], n_cat)
    reps = len(cols["tp"]) // max(n_cat, 1)
    for j, k in enumerate(("zmode", "rc", "prec", "sp", "tpo")):
        cols[k] = np.tile(ch.cat[:, j], reps)
    zero = np.array([z for z, _ in ZMODES], dtype=np.int64)[cols["zmode"]]
    distopt = np.array([d for _, d in ZMODES])[cols["zmode"]]
    off = TR.OFFLOAD.index(space.offload)
    f = _fields(space, hw, cols, gb=space.global_batch, zero=zero, distopt=distopt, offload=off)
    return cols, _apply(spec, f, 4, 1, rej)


def _plan_cols(spec: ModelSpec, lv: _Level, shared: dict[str, int]) -> dict[str, np.ndarray]:
    """The kept plans as :data:`COLS`, with the values every searched plan shares (``shared``:
    a stack's defaults, :func:`stacked`)."""
    cols, keep = lv
    n = len(cols["tp"])
    del cols["node"]
    cols["sp"] = TR.sequence_parallel(cols["sp"], cols["tp"]).astype(np.int64)
    cols["flash"] = TR.auto_flash(spec, cols["rc"] == RC.index("selective")).astype(np.int64)
    cols["auto"] = np.ones(n, dtype=np.int64)  # attention 'auto', no offload, DP overlapped
    cols["offload"] = np.zeros(n, dtype=np.int64)
    cols["overlap"] = np.ones(n, dtype=np.int64)
    cols["fnorm"] = np.ones(n, dtype=np.int64)  # fused norms and activations (the plan default)
    cols["fact"] = np.ones(n, dtype=np.int64)
    cols["z3b"] = np.zeros(n, dtype=np.int64)  # ZeRO-3: one collective per layer (the plan default)
    cols["epi"] = np.zeros(n, dtype=np.int64)  # EP load ratio: the plan default
    cols["etp"] = cols["tp"].astype(np.int64)  # experts sharded over the TP ranks (Megatron-Core's default)
    if shared.get("etp_whole"):
        cols["etp"] = _folded(cols)
    cols["frope"] = np.ones(n, dtype=np.int64)  # fused rotary embedding (the plan default)
    cols["fp8r"] = np.zeros(n, dtype=np.int64)  # fp8 recipe: delayed scaling (the plan default)
    cols["ppo"] = np.zeros(n, dtype=np.int64)  # blocking pipeline send/recv (the plan default)
    cols["fce"] = np.ones(n, dtype=np.int64)  # fused cross-entropy (the plan default)
    cols["aoff"] = np.zeros(n, dtype=np.int64)  # activations kept on the device (the plan default)
    cols["aofl"] = np.zeros(n, dtype=np.int64)  # no layer's activations offloaded (the plan default)
    cols["sync"] = np.ones(n, dtype=np.int64)  # ordinary data parallelism (sync_interval 1)
    cols["syncb"] = np.full(n, TR.SYNC_BITS, dtype=np.int64)
    cols["sfrag"] = np.ones(n, dtype=np.int64)  # the outer sync at once, blocking (plain DiLoCo)
    cols["sovl"] = np.zeros(n, dtype=np.int64)
    cols["gf32"] = np.array([TR.grad_fp32_default(x) for x in PREC], dtype=np.int64)[cols["prec"]]
    for k, col in TR.OPTION_COLUMNS.items():  # the plan's option flags at their defaults (all off)
        cols[col] = np.full(n, int(getattr(TR.TrainPlan, k)), dtype=np.int64)
    cols["tpb"] = np.zeros(
        n, dtype=np.int64
    )  # backward TP collectives on the critical path (the plan default)
    for k, v in shared.items():
        cols[k] = np.full(n, v, dtype=np.int64)
    cols["rcm"] = selective_column(cols["rc"] == RC.index("selective"), shared.get("rcm_sel", DEFAULT_MASK))
    if shared.get("ppo") == -1:
        cols["ppo"] = (cols["sched"] == SCHED.index("interleaved")).astype(np.int64)
    return {k: cols[k][keep] for k in COLS}


def stacked(space: TrainSpace, hw: Hardware) -> tuple[dict[str, int], Hardware, str | None]:
    """What the space's software stack decides for every plan (:func:`llmcost.training.stack.apply`
    on an empty plan, as ``llmcost train --stack`` would): column values, the device as the stack
    sees it (its attention kernel family) and the note naming the profile; nothing without a stack."""
    from llmcost.stacks import is_no_stack

    if space.stack is None or is_no_stack(space.stack):
        return {}, hw, None
    from llmcost.training.stack import apply, pp_overlap_of

    choice = apply(space.stack, {}, hw)
    p = choice.plan
    flash = int(p["attention"] == "flash")
    shared = {"flash": flash, "auto": 0, "overlap": int(bool(p["overlap_dp"]))}
    for key, col in (
        ("fused_norm", "fnorm"),
        ("fused_act", "fact"),
        ("fused_rope", "frope"),
        ("fused_ce", "fce"),
        ("tp_bwd_overlap", "tpb"),
        ("grad_reduce_in_fp32", "gf32"),
        *TR.OPTION_COLUMNS.items(),  # those a profile sets (zero3_copy_out, autocast_weights, ...)
    ):
        if key in p:
            shared[col] = int(bool(p[key]))
    if "fp8_recipe" in p:
        shared["fp8r"] = FP8_RECIPES.index(p["fp8_recipe"])
    overlap = pp_overlap_of(choice.profile)
    if overlap == "interleaved":
        shared["ppo"] = -1  # per plan: on where the schedule is interleaved (_plan_cols)
    elif overlap == "all":
        shared["ppo"] = 1
    if p.get("zero3_bucket") is not None:
        shared["z3b"] = TR.bucket_column(p["zero3_bucket"])
    if p.get("ep_imbalance") is not None:
        shared["epi"] = TR.imbalance_column(p["ep_imbalance"])
    return shared, choice.hardware, choice.note


@dataclass
class Enumerated:
    """The declared space enumerated up to its last level: the valid plans before the per-plan
    options (``parents``: layout, ep, schedule, micro-batch), each expanded into its option rows
    (:func:`_options_level`) only when a chunk of plans is drawn (:meth:`chunks`), so a search
    holds one chunk of plans at a time whatever the size of the space."""

    spec: ModelSpec
    space: TrainSpace
    hw: Hardware
    ch: _Choices
    parents: dict[str, np.ndarray]
    shared: dict[str, int]
    declared: int
    rejected: Counter[str]

    @property
    def candidates(self) -> int:
        """Plans before the option rules: parents x option rows (each chunk drawn adds its
        rejections to :attr:`rejected`)."""
        return int(self.parents["tp"].size) * len(self.ch.cat)

    def starts(self, plans: int) -> list[tuple[int, int]]:
        """(first parent, parents) of each chunk of about ``plans`` candidates (at least one parent)."""
        n_par, n_cat = int(self.parents["tp"].size), max(len(self.ch.cat), 1)
        step = max(1, plans // n_cat)
        return [(s, min(step, n_par - s)) for s in range(0, n_par, step)]

    def chunk(self, start: int, size: int, rejected: Counter[str]) -> tuple[Grid, int]:
        """The valid plans of parents ``start`` to ``start + size`` in enumeration order, with the
        candidates they were drawn from; their option rejections counted in ``rejected``."""
        sub = {k: v[start : start + size] for k, v in self.parents.items()}
        lv = _options_level(
            self.spec, self.space, self.hw, (sub, np.ones(size, dtype=bool)), self.ch, rejected
        )
        return Grid(_plan_cols(self.spec, lv, self.shared), rejected, self.declared), size * len(self.ch.cat)

    def chunks(self, plans: int, counted: bool = True) -> Iterator[tuple[Grid, int]]:
        """:meth:`chunk` after chunk; rejections counted in :attr:`rejected` (not when ``counted``
        is False: a second pass)."""
        rej = self.rejected if counted else Counter()
        for s, n in self.starts(plans):
            yield self.chunk(s, n, rej)

    def prefill(self, memo: ConfigMemo, hw: Hardware, plans: int, gpus_per_node: int | None) -> None:
        """Cost into ``memo``, on ``hw`` (the device the chunks are costed on: as the stack sees it),
        every operator configuration the plans can be costed with (:meth:`new_configs`), about
        :data:`llmcost.training.layers.PREFILL_BATCH` at a time: costing them together rather than
        chunk by chunk is what pays (each configuration group carries a fixed cost). With a
        sequence-length distribution, every micro-batch shape's configurations too
        (:func:`llmcost.training.varlen.prefill`)."""
        from llmcost.training import varlen

        mdl = TS.ModelLayers.of(self.spec)
        for p in self.new_configs(memo, hw, plans, gpus_per_node):
            memo.prefill(self.spec, hw, mdl, p)
            if self.space.workload is not None:
                varlen.prefill(self.spec, hw, mdl, p, memo, self.space.workload)

    def new_configs(
        self, memo: ConfigMemo, hw: Hardware, plans: int, gpus_per_node: int | None
    ) -> Iterator[TS.Plans]:
        """The operator configurations of the space not in ``memo`` (each with its attention and, for
        attention 'auto', FlashAttention too), one row each, in batches of about
        :data:`llmcost.training.layers.PREFILL_BATCH`, from one pass over the chunks. Counts
        nothing; holds one row per configuration not yet yielded."""
        seen = set(memo.index)
        pending: list[dict[str, np.ndarray]] = []
        n_pending = 0
        for grid, _ in self.chunks(plans, counted=False):
            c = grid.cols
            auto = np.flatnonzero((c["auto"] == 1) & (c["flash"] == 0))
            both = {k: np.concatenate([v, v[auto]]) for k, v in c.items()}
            both["flash"][c["flash"].size :] = 1
            p = TS.plans(hw, both, self.space.seq_len, self.space.global_batch, gpus_per_node)
            first = TS.config_key(p)[0]
            new = []
            for i, k in enumerate(config_tuples(p, first)):
                if k not in seen:
                    seen.add(k)
                    new.append(i)
            pending.append({k: v[first[new]] for k, v in both.items()})
            n_pending += len(new)
            if n_pending >= PREFILL_BATCH:
                yield self._rows(hw, pending, gpus_per_node)
                pending, n_pending = [], 0
        if n_pending:
            yield self._rows(hw, pending, gpus_per_node)

    def _rows(self, hw: Hardware, rows: list[dict[str, np.ndarray]], gpus_per_node: int | None) -> TS.Plans:
        """The configurations of ``rows`` (one row each) as plan rows."""
        cols = {k: np.concatenate([r[k] for r in rows]) for k in rows[0]}
        return TS.plans(hw, cols, self.space.seq_len, self.space.global_batch, gpus_per_node)


def build_space(spec: ModelSpec, hw: Hardware, space: TrainSpace) -> Enumerated:
    """The plans of ``space`` that :func:`llmcost.training.plan.check` accepts (memory aside), as
    :class:`Enumerated` chunks.

    The dimensions are expanded level by level (:data:`LEVELS`: layout, ep, schedule,
    micro-batch, per-plan options) and after each the rules of :data:`llmcost.training.plan.RULES`
    that read only known fields mask the plans, counting each rejected one (with all the plans it
    stands for) under the first rule it breaks. Layouts whose tp*pp*cp does not divide the GPUs
    are counted only for degrees the user gave (otherwise they are not in the declared space).
    A space past :data:`llmcost.search.common.MAX_PLANS` candidates is refused before any chunk."""
    rej: Counter[str] = Counter()
    n_layers = len(model_layers(spec))
    cat = _option_rows(space, hw)
    experts = spec.moe.num_experts if spec.is_moe and spec.moe is not None else 1
    eps = np.array(_pick(space.ep, divisors(experts) if spec.is_moe else [1]), dtype=np.int64)
    mbs = np.array(_pick(space.micro_batch, divisors(space.global_batch)), dtype=np.int64)
    cols = _layout_cols(space, hw)
    pps = sorted(set(cols["pp"].tolist()))
    sched_of = {p: np.array(_schedules(space, p, n_layers), dtype=np.int64).reshape(-1, 2) for p in pps}
    ch = _Choices(eps, pps, sched_of, mbs, cat)
    keep, declared = _layouts_level(spec, space, hw, cols, ch, rej)
    lv: _Level = (cols, keep)
    for level in (_ep_level, _schedule_level, _micro_batch_level):
        lv = level(spec, space, hw, lv, ch, rej)
    parents = {k: v[lv[1]] for k, v in lv[0].items()}
    check_size(int(parents["tp"].size) * len(cat), "train", OPTIONS_NARROW)
    sync = TR.sync_values(space.sync_interval, space.sync_bytes, space.sync_fragments, space.sync_overlap)
    TR.check_fragments(spec, space.sync_fragments)
    shared = {
        **stacked(space, hw)[0],
        "offload": TR.OFFLOAD.index(space.offload),
        **dict(zip(("sync", "syncb", "sfrag", "sovl"), sync, strict=True)),
        "epi": TR.imbalance_column(space.ep_imbalance),
        **{col: int(v) for col, v in (("epdd", space.ep_deepep), ("epo", space.ep_overlap)) if v is not None},
        **({"rcm_sel": modules_mask(space.recompute_modules)} if space.recompute_modules is not None else {}),
        **({"etp_whole": 1} if space.expert_tp == 1 else {}),
    }
    return Enumerated(spec, space, hw, ch, parents, shared, declared, rej)


def enumerate_space(spec: ModelSpec, hw: Hardware, space: TrainSpace) -> Grid:
    """Every plan of ``space`` that :func:`llmcost.training.plan.check` accepts (memory aside), in
    one :class:`Grid` (:func:`build_space`'s chunks concatenated; the search draws them one by one)."""
    en = build_space(spec, hw, space)
    parts = [g.cols for g, _ in en.chunks(max(en.candidates, 1))] or [
        {k: np.zeros(0, dtype=np.int64) for k in COLS}
    ]
    return Grid({k: np.concatenate([c[k] for c in parts]) for k in COLS}, en.rejected, en.declared)


# --- evaluation ------------------------------------------------------------------------------------
def evaluate_grid(
    spec: ModelSpec,
    hw: Hardware,
    grid: Grid,
    seq: int,
    global_batch: int,
    gpus_per_node: int | None = None,
    tokens: float | None = None,
    memo: ConfigMemo | None = None,
    fit: TS.MemoryFit | None = None,
    workload: Any = None,
) -> dict[str, np.ndarray]:
    """Step time, breakdown, FLOPs, memory and the README train metrics of every plan of ``grid``:
    :func:`llmcost.training.step.evaluate`, the function ``llmcost train`` runs on one plan
    (attention 'auto': ``flash`` says which attention was costed); ``memo`` carries what earlier
    chunks of the same search costed, ``fit`` the rows' :func:`memory_fit` when already made,
    ``workload`` the plans' sequence-length distribution."""
    return TS.evaluate(spec, hw, grid.cols, seq, global_batch, gpus_per_node, tokens, memo, fit, workload)


def memory_fit(
    spec: ModelSpec, hw: Hardware, grid: Grid, seq: int, global_batch: int, gpus_per_node: int | None = None
) -> TS.MemoryFit:
    """Each plan's memory and fit with the attention it is costed with
    (:func:`llmcost.training.step.memory_fit`): the plans that do not fit are rejected uncosted."""
    return TS.memory_fit(spec, hw, grid.cols, seq, global_batch, gpus_per_node)


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


def plan_dict(
    grid: Grid,
    i: int,
    global_batch: int,
    seq: int,
    tokens: float | None,
    stack: Any = None,
    workload: Any = None,
    power_cap: float | None = None,
    mtp_layers: int = 0,
) -> dict[str, Any]:
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
        "recompute_modules": _modules_of(c, i),
        "expert_tp": 1 if c["etp"][i] == 1 and c["tp"][i] > 1 else None,
        "mtp_layers": mtp_layers or None,
        "schedule": sched,
        "virtual_stages": int(c["v"][i]) if sched == "interleaved" else None,
        "precision": PREC[int(c["prec"][i])],
        "offload": TR.OFFLOAD[int(c["offload"][i])] if c["offload"][i] else None,
        **_stack_keys(c, i),
        **_sync_keys(c, i),
    }
    if tokens:
        plan["tokens"] = tokens
    plan["stack"] = stack if stack is not None else "none"  # so train --plan of it applies no profile either
    if workload is not None:
        plan.update(workload.plan_keys())
    plan["power_cap"] = power_cap
    return {k: v for k, v in plan.items() if v is not None}


def _modules_of(c: dict[str, np.ndarray], i: int) -> list[str] | None:
    """Row ``i``'s ``recompute_modules`` where they are not selective recomputation's default."""
    if RC[int(c["rc"][i])] != "selective" or int(c["rcm"][i]) == DEFAULT_MASK:
        return None
    return list(mask_modules(int(c["rcm"][i])))


def _stack_keys(c: dict[str, np.ndarray], i: int) -> dict[str, Any]:
    """The plan keys a stack decides, as row ``i`` has them (so the plan costs what the row costs
    with or without the stack): attention, DP and pipeline overlap, fused kernels, fp8 recipe and
    ZeRO-3 bucket, fp32 gradients, and the option flags that are on (``optimizer_passes``, ...)."""
    auto, flash = bool(c["auto"][i]), bool(c["flash"][i])
    options = {k: True for k, col in TR.OPTION_COLUMNS.items() if c[col][i] and k != "ep_overlap"}
    if ep_overlap_on({k: c[k][i : i + 1] for k in ("epo", "ep", "rc", "pp", "sched")})[0]:
        options["ep_overlap"] = True  # where the row runs it (a searched row elsewhere keeps it off)
    return options | {
        "attention": "auto" if auto else ("flash" if flash else "materialized"),
        "overlap_dp": bool(c["overlap"][i]),
        "pp_overlap": bool(c["ppo"][i]),
        "fused_norm": bool(c["fnorm"][i]),
        "fused_act": bool(c["fact"][i]),
        "fused_rope": bool(c["frope"][i]),
        "fused_ce": bool(c["fce"][i]),
        "tp_bwd_overlap": bool(c["tpb"][i]),
        "fp8_recipe": FP8_RECIPES[int(c["fp8r"][i])],
        "zero3_bucket": int(c["z3b"][i]) or None,
        "ep_imbalance": int(c["epi"][i]) / 1000 if c["ep"][i] > 1 and c["epi"][i] else None,
        "grad_reduce_in_fp32": bool(c["gf32"][i]),
    }


def _sync_keys(c: dict[str, np.ndarray], i: int) -> dict[str, Any]:
    """DiLoCo's plan keys of row ``i`` (none for ordinary data parallelism)."""
    if c["sync"][i] <= 1:
        return {}
    out = {"sync_interval": int(c["sync"][i]), "sync_bytes": int(c["syncb"][i]) / 8}
    if (c["sfrag"][i], c["sovl"][i]) != (1, 0):
        out.update(sync_fragments=int(c["sfrag"][i]), sync_overlap=int(c["sovl"][i]))
    return out


def default_seq(spec: ModelSpec) -> int:
    """``training.check``'s default sequence length (:func:`llmcost.training.plan.default_seq_len`)."""
    return TR.default_seq_len(spec)


__all__ = ["TrainSpace", "Grid", "enumerate_space", "evaluate_grid", "plan_dict", "bottleneck"]
