"""Stage 1 of a training step: the cost of one micro-batch through each layer shape, once per
distinct operator configuration of the plan rows (runtime: no sympy).

Per layer shape and configuration (tp, cp, ep, micro-batch, sp, TP overlap, recompute, precision,
bytes, attention, ranks per node, fused norm / activation): compute
(:mod:`llmcost.training.compute`: the graph's generated layer functions in their training form,
priced by the roofline), FLOPs, and the exposed TP / CP / EP communication of the layer
(:func:`llmcost.collectives.grid.collective_v`); the embedding, head and loss per stage kind.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from llmcost.collectives.grid import collective_v, deduplicated_v, group_gpn
from llmcost.graph.ops import model_values
from llmcost.hardware import Hardware
from llmcost.kernels.attention import head_factor, length_factor
from llmcost.model.spec import ModelSpec
from llmcost.training import _generated as G
from llmcost.training import compute as TC
from llmcost.training.base import (
    FP8_RECIPES,
    PRECISIONS,
    QUANTIZED,
    RECOMPUTE,
    Machine,
    attention_dropout,
    comm_share,
    dedup_interference,
    hidden_dropout,
    imbalance_value,
    machine,
    model_layers,
    node_limit,
)
from llmcost.training.columns import Plans, key
from llmcost.training.operator import TOp
from llmcost.training.passes import FP4_COPIES, FP8_COPIES, op_sac_shares
from llmcost.training.recompute import LayerKind, reruns_block


class ModelLayers:
    """Per-model layer structure: distinct layer shapes (``keys``: graph shape, window, stack) and
    which layers use them (``layer_key``), their counts, and which layers are MoE."""

    def __init__(self, spec: ModelSpec) -> None:
        self.layers = model_layers(spec)
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

    @staticmethod
    @lru_cache(maxsize=64)
    def of(spec: ModelSpec) -> ModelLayers:
        """The layer structure of ``spec`` (cached: every evaluated chunk of a search asks for it)."""
        return ModelLayers(spec)


class OpConfig(NamedTuple):
    """Operator configurations sharing recompute, precision, bytes, attention, ranks per node and
    fusion: per-configuration arrays ``tp`` ... ``tpb`` (and ``hbm``) and the shared scalars (``eager``:
    the unfused elementwise chains, :class:`llmcost.training.compute.Eager`)."""

    tp: np.ndarray
    cp: np.ndarray
    ep: np.ndarray
    mb: np.ndarray
    sp: np.ndarray
    tpo: np.ndarray  # TP overlap: 0 none, 1 pipelined with the GEMMs (tp_overlap), 2 fused RS (tp_fused_rs)
    tpb: np.ndarray
    epi: np.ndarray  # the busiest EP rank's routed tokens over the mean, thousandths (0: the default)
    rc: str
    prec: str
    b_w: float
    b_a: float
    flash: bool
    gpn: int
    eager: TC.Eager = TC.FUSED
    fp8: str | None = None  # quantization recipe when the GEMMs run in fp8 / fp4
    hbm: Any = 0  # 1: overlapped collectives' HBM traffic competes with the compute (hbm_contention)
    shares: Any = None  # causal-pair share a document mask keeps, per window (Plans.shares)
    epd: Any = 0  # 1: node-deduplicated MoE dispatch (plan ep_deepep), 0: NCCL all-to-all
    epu: Any = 0  # EP overlap: unpaired micro-batch share in millionths (0: no overlap, plan ep_overlap)
    moe_k: float = 1.0  # experts per token (the model's top-k)
    moe_nodes: float = math.inf  # nodes a token may reach (group-limited routing), inf: no limit
    rcm: int = TC.CORE_ATTN  # selective recomputation's modules (llmcost.training.recompute), bits
    etp: Any = None  # the routed experts' tensor-parallel degree (plan expert_tp); None: tp


@dataclass
class LayerTable:
    """Per layer shape (axis 0) and operator configuration (last axis), one micro-batch on one
    device: forward, backward and recompute time, model and hardware FLOPs, exposed TP / CP / EP
    communication; ``io_f`` / ``io_b`` (axes [last stage, first stage, configuration]) the
    embedding, head and loss times; ``lg_flops`` their model FLOPs (a stage holding both); ``m_f`` /
    ``m_b`` / ``m_rc`` the layer's HBM time per pass (what overlapped collectives' HBM traffic competes
    with, plan ``hbm_contention``)."""

    t_f: np.ndarray
    t_b: np.ndarray
    t_rc: np.ndarray
    model: np.ndarray
    hw: np.ndarray
    model_full: np.ndarray
    hw_full: np.ndarray
    t_tp: np.ndarray
    t_cp: np.ndarray
    t_ep: np.ndarray
    m_f: np.ndarray
    m_b: np.ndarray
    m_rc: np.ndarray
    io_f: np.ndarray
    io_b: np.ndarray
    lg_flops: np.ndarray
    io_hf: np.ndarray
    io_hb: np.ndarray
    mtp_f: np.ndarray
    mtp_b: np.ndarray
    mtp_hf: np.ndarray
    mtp_hb: np.ndarray


HBM = ("m_f", "m_b", "m_rc")
"""The per-pass HBM time fields of :class:`LayerTable`."""
COMM = ("t_tp", "t_cp", "t_ep")
"""The exposed communication fields of :class:`LayerTable`."""
FLOPS = ("model", "hw", "model_full", "hw_full")
"""The FLOP fields of :class:`LayerTable`: model and hardware FLOPs, causal attention's kept pairs
and (``_full``) the full-s² convention (:mod:`llmcost.training.compute`)."""


_OP_COLS = (
    "tp",
    "cp",
    "ep",
    "mb",
    "sp",
    "tpo",
    "tpb",
    "epi",
    "epdd",
    "epu",
    "hbmc",
    "rc",
    "rcm",
    "etp",
    "prec",
    "flash",
)
"""The plan columns an operator's cost depends on, degrees and options alike."""
KEY_COLS = ("gpus", *_OP_COLS)
"""The plan columns an operator configuration is keyed by (with the bytes and the fusions)."""
CFG_COLS = (*_OP_COLS, "fnorm", "fact", "frope", "fp8r", "fce", "acw", "tlc")
"""The plan columns an operator configuration is built from (:func:`_groups`): those it is keyed by
and the fusions."""


PREFILL_BATCH = 1 << 15
"""Operator configurations costed together when a search prefills its :class:`ConfigMemo`: large
enough that a group's fixed cost is spread, small enough that its temporaries stay ~100 MiB."""


class ConfigMemo:
    """Operator configurations already costed by one search (same model, device, sequence and node
    size), as :class:`LayerTable` fields over the configurations in the order they were costed,
    with each configuration's key (:func:`config_key`'s columns as a tuple) -> its position."""

    def __init__(self) -> None:
        self.index: dict[tuple[int, ...], int] = {}
        self.table: dict[str, np.ndarray] = {}
        self.variants: dict[Any, ConfigMemo] = {}

    def variant(self, key: Any) -> ConfigMemo:
        """The memo of a micro-batch shape (:attr:`llmcost.training.seqdist.Variant.key`: sequence length
        and attention shares) costed beside the search's own sequence."""
        return self.variants.setdefault(key, ConfigMemo())

    def positions(
        self, spec: ModelSpec, hw: Hardware, mdl: ModelLayers, p: Plans, first: np.ndarray
    ) -> np.ndarray:
        """Positions of the configurations of rows ``first`` (one row each), costing at once those
        not costed before."""
        keys = config_tuples(p, first)
        todo = [i for i, k in enumerate(keys) if k not in self.index]
        if todo:
            self.add(*costed(spec, hw, mdl, p, first[np.array(todo, dtype=np.int64)]))
        return np.array([self.index[k] for k in keys], dtype=np.int64)

    def add(self, keys: list[tuple[int, ...]], table: dict[str, np.ndarray]) -> None:
        """Append costed configurations (``keys`` in the order of ``table``'s last axis)."""
        base = len(self.index)
        for j, k in enumerate(keys):
            self.index.setdefault(k, base + j)
        self.table = {
            f: np.concatenate([self.table[f], v], axis=-1) if f in self.table else v for f, v in table.items()
        }

    def prefill(self, spec: ModelSpec, hw: Hardware, mdl: ModelLayers, p: Plans) -> None:
        """Cost every configuration of the rows ``p`` not costed yet, :data:`PREFILL_BATCH` at a time
        (the costing's temporary arrays stay bounded)."""
        first = config_key(p)[0]
        for s in range(0, first.size, PREFILL_BATCH):
            self.positions(spec, hw, mdl, p, first[s : s + PREFILL_BATCH])


def costed(
    spec: ModelSpec, hw: Hardware, mdl: ModelLayers, p: Plans, first: np.ndarray
) -> tuple[list[tuple[int, ...]], dict[str, np.ndarray]]:
    """(keys, :class:`LayerTable` fields) of the configurations of rows ``first`` (one row each)."""
    bwa, fused = _bytes_fused(p)
    return config_tuples(p, first), _configs(spec, hw, mdl, p, first, bwa, fused)


def layer_table(
    spec: ModelSpec, hw: Hardware, mdl: ModelLayers, p: Plans, memo: ConfigMemo | None = None
) -> tuple[LayerTable, np.ndarray, np.ndarray]:
    """(:class:`LayerTable` over the distinct operator configurations, first row of each, inverse):
    configurations grouped by what :class:`OpConfig` shares, each group costed at once. With a
    ``memo`` (one per search), a configuration costed before is taken from it, not costed again."""
    first, inv = config_key(p)
    if memo is None:
        bwa, fused = _bytes_fused(p)
        return LayerTable(**_configs(spec, hw, mdl, p, first, bwa, fused)), first, inv
    pos = memo.positions(spec, hw, mdl, p, first)
    return LayerTable(**{f: v[..., pos] for f, v in memo.table.items()}), first, inv


def config_tuples(p: Plans, first: np.ndarray) -> list[tuple[int, ...]]:
    """The configuration keys of rows ``first`` as tuples (:data:`KEY_COLS`, bytes, fusions)."""
    bwa, fused = _bytes_fused(p)
    cols = [p.c[k][first].tolist() for k in KEY_COLS] + [bwa[first].tolist(), fused[first].tolist()]
    return list(zip(*cols, strict=True))


def _bytes_fused(p: Plans) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the weight and activation bytes as one integer, and the fusions as one."""
    c = p.c
    bwa = np.round(p.b_w * 64).astype(np.int64) * 1000 + np.round(p.b_a * 64).astype(np.int64)
    bits = (
        ("fact", 1),
        ("fnorm", 2),
        ("frope", 4),
        ("fp8r", 8),
        ("fce", 64),
        ("acw", 128),
        ("dsa", 256),
        ("tlc", 512),
        ("f8h", 1024),  # the activation bytes an fp8 plan keeps (memory._layer_act) differ with it
    )
    return bwa, sum(c[k] * w for k, w in bits)


def config_key(p: Plans) -> tuple[np.ndarray, np.ndarray]:
    """(first row, inverse) of the rows' distinct operator configurations (:data:`KEY_COLS`, bytes,
    fusions): what :func:`layer_table` costs once each."""
    bwa, fused = _bytes_fused(p)
    return key(*(p.c[k] for k in KEY_COLS), bwa, fused)


def _configs(
    spec: ModelSpec,
    hw: Hardware,
    mdl: ModelLayers,
    p: Plans,
    first: np.ndarray,
    bwa: np.ndarray,
    fused: np.ndarray,
) -> dict[str, np.ndarray]:
    """:class:`LayerTable` fields of the configurations of rows ``first`` (one row each)."""
    table: dict[str, np.ndarray] = {}
    for sel, cfg in _groups(spec, p, first, bwa, fused):
        q = _group_table(spec, hw, mdl, p.seq, cfg)
        for f in fields(q):
            v = getattr(q, f.name)
            if f.name not in table:
                table[f.name] = np.zeros(v.shape[:-1] + (first.size,))
            table[f.name][..., sel] = v
    return table


@dataclass
class ShapeOperators:
    """One layer of one layer shape of a single plan (``stack`` 'io': the embedding, final norm, LM
    head and loss of a stage holding both), one micro-batch on one device, per operator as
    :func:`layer_table` costs it: its non-collective ``ops`` and, on axis 0 in their order, their
    forward / backward :class:`~llmcost.training.compute.PassOps` and recompute times (rows whose
    sums are the table's ``t_f`` / ``t_b`` / ``t_rc``, ``io_f`` / ``io_b``), ``comm``: each TP / CP / EP
    collective with its exposed time (summing to ``t_tp`` / ``t_cp`` / ``t_ep``); ``layers``: how many
    layers of the model have this shape."""

    shape: str
    window: int | None
    stack: str
    layers: int
    ops: list[TOp]
    fwd: TC.PassOps
    bwd: TC.PassOps
    t_op_rc: Any
    comm: list[tuple[TOp, np.ndarray]]


def _first_row(spec: ModelSpec, hw: Hardware, p: Plans) -> tuple[ModelLayers, Any, Any]:
    """(the model's layer shapes, the configuration of the first plan row of ``p``, its cost group):
    what :func:`layer_table` costs for that row."""
    bwa, fused = _bytes_fused(p)
    ((_, cfg),) = _groups(spec, p, np.zeros(1, dtype=np.int64), bwa, fused)
    return ModelLayers.of(spec), cfg, _group(spec, hw, p.seq, cfg)


def layer_operators(spec: ModelSpec, hw: Hardware, p: Plans) -> list[ShapeOperators]:
    """:class:`ShapeOperators` of each layer shape, then of the io stage, of the first plan row of
    ``p``: the functions :func:`layer_table` runs on that row's configuration, per-operator figures kept."""
    mdl, cfg, g = _first_row(spec, hw, p)
    out = []
    for k, n in zip(mdl.keys, mdl.count_all, strict=True):
        lc = _shape_cost(spec, p.seq, cfg, g, *k, keep=True)
        assert lc.fwd is not None and lc.bwd is not None  # kept
        comp = [o for o in lc.ops if o.kind != "collective"]
        out.append(
            ShapeOperators(*k, int(n), comp, lc.fwd, lc.bwd, lc.t_op_rc, exposed_per_collective(hw, lc, cfg))
        )
    io_ops = TC.graph_ops("io__forward__all", None, g.vals)
    ops, f, b = TC.io_passes(
        io_ops, g.mach, True, True, g.tokens_dev, spec.vocab_size, g.tpf, cfg.eager, cfg.b_a, cfg.b_w
    )
    if f is not None and b is not None:
        out.append(ShapeOperators("io", None, "io", 1, ops, f, b, 0.0, []))
    if spec.mtp_trained:  # each MTP module's embedding, norms, projection, head and loss
        mtp_ops = TC.graph_ops("io__mtp__all", None, g.vals)
        ops, f, b = TC.io_passes(
            mtp_ops, g.mach, True, True, g.tokens_dev, spec.vocab_size, g.tpf, cfg.eager, cfg.b_a, cfg.b_w
        )
        if f is not None and b is not None:
            out.append(ShapeOperators("mtp", None, "io", spec.mtp_trained, ops, f, b, 0.0, []))
    return out


def _groups(
    spec: ModelSpec, p: Plans, first: np.ndarray, bwa: np.ndarray, fused: np.ndarray
) -> list[tuple[np.ndarray, OpConfig]]:
    """The configurations of rows ``first`` grouped by what :class:`OpConfig` shares: (positions in
    ``first``, the group's configuration) per group."""
    c = p.c
    u = {k: c[k][first] for k in CFG_COLS}
    ubw, uba, ugpn = p.b_w[first], p.b_a[first], p.gpn[first]
    gfirst, ginv = key(u["rc"], u["rcm"], u["prec"], bwa[first], ugpn, u["flash"], fused[first])
    out = []
    for gi, f0 in enumerate(gfirst):
        sel = np.flatnonzero(ginv == gi)
        cfg = OpConfig(
            *(u[k][sel] for k in ("tp", "cp", "ep", "mb", "sp", "tpo", "tpb", "epi")),
            rc=RECOMPUTE[u["rc"][f0]],
            prec=PRECISIONS[u["prec"][f0]],
            b_w=float(ubw[f0]),
            b_a=float(uba[f0]),
            flash=bool(u["flash"][f0]),
            gpn=int(ugpn[f0]),
            eager=TC.Eager.of(
                spec,
                bool(u["fnorm"][f0]),
                bool(u["fact"][f0]),
                bool(u["frope"][f0]),
                bool(u["fce"][f0]),
                bool(u["acw"][f0]),
                bool(u["tlc"][f0]),
            ),
            fp8=quantize_recipe(PRECISIONS[u["prec"][f0]], FP8_RECIPES[u["fp8r"][f0]]),
            hbm=u["hbmc"][sel],
            shares=p.shares,
            epd=u["epdd"][sel],
            epu=u["epu"][sel],
            moe_k=float(spec.moe.top_k) if spec.moe is not None else 1.0,
            moe_nodes=node_limit(spec),
            rcm=int(u["rcm"][f0]),
            etp=u["etp"][sel],
        )
        out.append((sel, cfg))
    return out


def _values(spec: ModelSpec, seq: int, cfg: OpConfig) -> dict[str, Any]:
    """The graph's symbol values of one configuration group (per device, one micro-batch)."""
    tpf, cpf, epf, mbf = (np.asarray(x, dtype=float) for x in (cfg.tp, cfg.cp, cfg.ep, cfg.mb))
    vals: dict[str, Any] = model_values(spec)
    vals.update(
        tp=tpf,
        cp=cpf,
        ep=epf,
        etp=np.where(cfg.ep == 1, tpf, _etp(cfg)),
        b_w=cfg.b_w,
        b_a=cfg.b_a,
        b_kv=cfg.b_a,
        b_r=max(cfg.b_a, 2.0),
        c_dq=0.0,
        seq=seq,
        micro_batch=mbf,
        ctx=seq,
        seq_enc=seq,
        ep_imb=imbalance_value(cfg.epi, epf),
    )
    return vals


def _group_table(spec: ModelSpec, hw: Hardware, mdl: ModelLayers, seq: int, cfg: OpConfig) -> LayerTable:
    """:class:`LayerTable` of one configuration group (every layer shape, then the io stages)."""
    n = cfg.tp.size
    out = {k: np.zeros((len(mdl.keys), n)) for k in ("t_f", "t_b", "t_rc", *FLOPS, *COMM, *HBM)}
    g = _group(spec, hw, seq, cfg)
    for j, k in enumerate(mdl.keys):
        lc = _shape_cost(spec, seq, cfg, g, *k)
        for f, v in (
            ("t_f", lc.t_fwd),
            ("t_b", lc.t_bwd),
            ("t_rc", lc.t_rc),
            ("model", lc.model_flops),
            ("hw", lc.hw_flops),
            ("model_full", lc.model_flops_full),
            ("hw_full", lc.hw_flops_full),
            ("m_f", lc.m_fwd),
            ("m_b", lc.m_bwd),
            ("m_rc", lc.m_rc),
        ):
            out[f][j] = v
        for f, v in zip(COMM, exposed_comm(hw, lc, cfg), strict=True):
            out[f][j] = v
    io_f, io_b, lg, io_hf, io_hb = _io_table(spec, g.mach, g.vals, g.tokens_dev, g.tpf, n, cfg)
    mtp_f, mtp_b, mtp_fl, mtp_hf, mtp_hb = _mtp_io(spec, g, n, cfg)
    return LayerTable(
        **out, io_f=io_f, io_b=io_b, lg_flops=lg + spec.mtp_trained * mtp_fl, io_hf=io_hf, io_hb=io_hb,
        mtp_f=mtp_f, mtp_b=mtp_b, mtp_hf=mtp_hf, mtp_hb=mtp_hb,
    )  # fmt: skip


class _Group(NamedTuple):
    """What every layer shape of one configuration group shares: the device as its operators see it,
    the graph's values, tokens per device, the sequence-parallel split, tp, the op-SAC shares."""

    mach: Machine
    vals: dict[str, Any]
    tokens_dev: Any
    t_sp: Any
    tpf: np.ndarray
    op_sac: Any


def _group(spec: ModelSpec, hw: Hardware, seq: int, cfg: OpConfig) -> _Group:
    """:class:`_Group` of one configuration group."""
    mach = machine(hw, cfg.prec)
    fpe = mach.gemm.flops_per_exp if mach.gemm is not None else None
    s0 = mach.gemm.attention_s0 if mach.gemm is not None else None
    fwd, bwd = (float(head_factor(spec.head_dim, spec.v_head_dim, fpe, b)) for b in (False, True))
    len_f, len_b = (float(length_factor(seq, None if s0 is None else s0[i])) for i in (0, 1))
    eta_b = mach.eta_attn_bwd if mach.eta_attn_bwd is not None else mach.eta_attn
    mach = replace(
        mach, eta_attn=min(1.0, mach.eta_attn * fwd * len_f), eta_attn_bwd=min(1.0, eta_b * bwd * len_b)
    )
    tpf, cpf, mbf = (np.asarray(x, dtype=float) for x in (cfg.tp, cfg.cp, cfg.mb))
    t_sp = np.where(cfg.sp == 1, tpf, 1.0)
    op_sac = op_sac_shares(spec.q_dim, spec.kv_dim, bool(spec.gated_mlp))
    return _Group(mach, _values(spec, seq, cfg), mbf * seq / cpf, t_sp, tpf, op_sac)


def _shape_cost(
    spec: ModelSpec,
    seq: int,
    cfg: OpConfig,
    g: _Group,
    shape: str,
    win: int | None,
    stack: str,
    keep: bool = False,
) -> TC.LayerCost:
    """:class:`~llmcost.training.compute.LayerCost` of one layer shape of a configuration group
    (``keep``: with its per-operator rows)."""
    ops = TC.training_ops(
        TC.graph_ops(shape, win, g.vals),
        causal=stack == "dec",
        flash=cfg.flash,
        attention_dropout=attention_dropout(spec),
        hidden_dropout=hidden_dropout(spec),
        t_sp=g.t_sp,
        tokens=g.tokens_dev,
        h=spec.hidden_size,
        heads=spec.num_heads / g.tpf,
        seq_kv=min(seq, win) if win else seq,
        b_a=cfg.b_a,
        eager=cfg.eager,
        rope_width=rope_width(spec, g.tpf),
        fp8=cfg.fp8,
        fp8_copies=FP4_COPIES if cfg.prec == "fp4" else FP8_COPIES,
        moe_sort=moe_sort(spec, cfg.ep) if shape.endswith("__moe") else None,
        attn_share=attention_share(cfg.shares, win),
        b_w=cfg.b_w,
        tp_copy=(cfg.sp == 1) & (cfg.tp > 1) & (cfg.tpo == 0),
        micro_batch=cfg.mb,
        head_dims=(float(spec.head_dim), float(spec.v_head_dim)),
    )
    return TC.layer_cost(ops, cfg.rc, g.mach, cfg.flash, g.op_sac, keep, cfg.rcm)


def attention_share(shares: Any, window: int | None) -> float:
    """The causal-pair share a document mask keeps in layers of ``window`` (1: no mask)."""
    if shares is None:
        return 1.0
    w = math.inf if window is None else float(window)
    return next(s for x, s in shares if x == w)


def quantize_recipe(precision: str, recipe: str) -> str | None:
    """The quantization recipe a layer's GEMMs run under: none at 16 bits; the plan's at fp8; at
    fp4 block scaling whatever the plan says for fp8 (NVFP4 / MXFP4 are block-scaled formats;
    Transformer Engine's delayed scaling is an fp8 recipe)."""
    if precision not in QUANTIZED:
        return None
    return recipe if precision == "fp8" else "block"


def moe_sort(spec: ModelSpec, ep: np.ndarray) -> np.ndarray:
    """1 where a MoE layer sorts the tokens it receives by local expert (expert parallelism with
    more than one expert per device: Megatron-Core ``sort_chunks_by_idxs``), else 0."""
    n_exp = spec.moe.num_experts if spec.moe is not None else 1
    return ((ep > 1) & (np.ceil(n_exp / ep) > 1)).astype(float)


def rope_width(spec: ModelSpec, tp: Any) -> Any:
    """Query and key elements per token one device rotates: ``rope__width_std`` or, for MLA,
    ``rope__width_mla``; 0 without rotary embeddings."""
    if spec.position_embedding != "rope":
        return 0.0
    if spec.mla is not None:
        return G.rope__width_mla(spec.mla.qk_rope_head_dim, spec.num_heads, tp)
    return G.rope__width_std(spec.kv_dim, spec.num_kv_heads, spec.q_dim, tp)


def _io_table(
    spec: ModelSpec,
    mach: Machine,
    vals: dict[str, Any],
    tokens_dev: Any,
    tpf: np.ndarray,
    n: int,
    cfg: OpConfig,
) -> tuple[np.ndarray, ...]:
    """Embedding (first stage) and norm + head + loss (last stage) forward / backward times per
    [last, first] stage kind, their model FLOPs on a stage holding both, and their forward /
    backward HBM times per stage kind (an MTP module's: :func:`_mtp_io`)."""
    io_ops = TC.graph_ops("io__forward__all", None, vals)
    io_f, io_b, io_hf, io_hb = np.zeros((4, 2, 2, n))
    lg = np.zeros(n)
    for last in (False, True):
        for first in (False, True):
            f, b, fl, hf, hb = TC.io_cost(
                io_ops, mach, last, first, tokens_dev, spec.vocab_size, tpf, cfg.eager, cfg.b_a, cfg.b_w
            )
            for arr, v in ((io_f, f), (io_b, b), (io_hf, hf), (io_hb, hb)):
                arr[int(last), int(first)] = np.broadcast_to(np.asarray(v, dtype=float), (n,))
            if last and first:
                lg = np.broadcast_to(np.asarray(fl, dtype=float), (n,))
    return io_f, io_b, lg, io_hf, io_hb


def _mtp_io(spec: ModelSpec, g: _Group, n: int, cfg: OpConfig) -> tuple[np.ndarray, ...]:
    """One MTP module's embedding, norms, projection, head and loss (``io__mtp__all``): forward and
    backward time, model FLOPs fwd+bwd, forward and backward HBM time, on the stage that holds its
    layer (zeros for a model training none)."""
    if not spec.mtp_trained:
        return tuple(np.zeros(n) for _ in range(5))
    ops = TC.graph_ops("io__mtp__all", None, g.vals)
    got = TC.io_cost(
        ops, g.mach, True, True, g.tokens_dev, spec.vocab_size, g.tpf, cfg.eager, cfg.b_a, cfg.b_w
    )
    return tuple(np.broadcast_to(np.asarray(x, dtype=float), (n,)) for x in got)


def exposed_comm(hw: Hardware, lc: TC.LayerCost, cfg: OpConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exposed (t_tp, t_cp, t_ep) of one layer and micro-batch, summed over its collectives in
    order (:func:`exposed_per_collective`)."""
    n = cfg.tp.size
    sums = {"tp": np.zeros(n), "cp": np.zeros(n), "ep": np.zeros(n)}
    for o, t in exposed_per_collective(hw, lc, cfg):
        sums[str(o.group)] = sums[str(o.group)] + t
    return sums["tp"], sums["cp"], sums["ep"]


def exposed_per_collective(hw: Hardware, lc: TC.LayerCost, cfg: OpConfig) -> list[tuple[TOp, np.ndarray]]:
    """(collective, exposed time over the micro-batch's passes) of each TP / CP / EP collective of
    one layer, in the layer's order (other collectives left out).

    TP: all-reduce per block and pass (``tp__all_reduce``), with sequence parallel a
    reduce-scatter + all-gather of the same volume (``tp__sp``; Korthikanti 2022 §4.2.2), exposed;
    with TP overlap (``tpo`` 1, sequence parallel only) each hidden under its adjacent GEMM
    (``tp__overlap``); with the reduce-scatter fused into its producer GEMM (``tpo`` 2, T3)
    ``tp__fused_rs``; CP ring attention (``cp__ring``): c−1 K,V steps forward, K,V + dK,dV
    backward, each hidden behind the attention of the previous step; EP: dispatch / combine
    all-to-all per pass (``ep__all_to_all``). Formulas of :mod:`llmcost.training.formulas`."""
    n = cfg.tp.size
    out: list[tuple[TOp, np.ndarray]] = []
    again = _block_rerun(cfg, lc)
    ep_ops = [o for o in lc.collectives() if o.group == "ep"]
    ep_x = iter(
        _ep_exposed(
            hw, cfg, [np.broadcast_to(np.asarray(o.size, dtype=float), (n,)) for o in ep_ops], lc, again
        )
    )
    for o, gemms, gops in zip(lc.collectives(), lc.tp_gemm_pairs(), lc.tp_gemm_ops(), strict=True):
        size = np.broadcast_to(np.asarray(o.size, dtype=float), (n,))
        if o.group == "tp":
            t = _tp_exposed(hw, cfg, size, gemms, gops, again if str(o.name).startswith("ffn") else 0)
            out.append((o, np.where((cfg.tp > 1) & (size > 0), t, 0.0)))
        elif o.group == "cp" and o.variant == "pass_kv":
            out.append((o, np.where((cfg.cp > 1) & (size > 0), _cp_exposed(hw, cfg, size, lc), 0.0)))
        elif o.group == "ep":
            out.append((o, np.where((cfg.ep > 1) & (size > 0), next(ep_x), 0.0)))
    return out


def _etp(cfg: OpConfig) -> np.ndarray:
    """The configurations' expert tensor-parallel degree (plan ``expert_tp``; ``tp`` where unset):
    Megatron-Core's expert rank grid orders ETP innermost, then EP, then expert data parallelism
    (parallel_state.py ``expert_decoder_rank_generator``)."""
    return np.asarray(cfg.tp if cfg.etp is None else cfg.etp, dtype=float)


def _passes(cfg: OpConfig) -> int:
    """Passes per micro-batch: forward, backward (+ recomputed forward)."""
    return 2 + (1 if cfg.rc == "full" else 0)


def _block_rerun(cfg: OpConfig, lc: TC.LayerCost) -> int:
    """1 where selective recomputation's modules recompute the layer's whole FFN block, so its
    collectives (the sequence-parallel gather, the expert dispatch and combine) run a third time
    (:func:`llmcost.training.recompute.reruns_block`), else 0."""
    if cfg.rc != "selective" or cfg.rcm == TC.CORE_ATTN:
        return 0
    return int(reruns_block(cfg.rcm, LayerKind.of(o.name for o in lc.ops)))


class TpHbm(NamedTuple):
    """HBM times (bytes over ``η_m·W_hbm``) of one TP block's operators where the plan counts HBM
    contention (``hbm``), 0 elsewhere: its column- and row-parallel GEMMs (forward; a data-gradient
    GEMM moves as much) and its collectives over the TP ranks (ring: ``comm__hbm_ring_*``; fused into
    the producer GEMM: ``comm__hbm_fused_rs``)."""

    g_in: np.ndarray
    g_out: np.ndarray
    ag: np.ndarray
    rs: np.ndarray
    ar: np.ndarray
    rsf: np.ndarray

    @classmethod
    def of(cls, hw: Hardware, cfg: OpConfig, size: np.ndarray, gops: tuple[TOp, TOp] | None) -> TpHbm:
        bw = hw.memory_efficiency * hw.memory_bandwidth
        on = np.where(cfg.hbm == 1, 1.0 / bw, 0.0)
        tp = np.asarray(cfg.tp, dtype=float)
        g_in, g_out = (0.0, 0.0) if gops is None else (gops[0].bytes, gops[1].bytes)
        ring = G.comm__hbm_ring_rs(size, tp) * on
        return cls(
            np.asarray(g_in, dtype=float) * on,
            np.asarray(g_out, dtype=float) * on,
            G.comm__hbm_ring_ag(size, tp) * on,
            ring,
            G.comm__hbm_ring_ar(size, tp) * on,
            G.comm__hbm_fused_rs(size, tp) * on,
        )


def _tp_exposed(
    hw: Hardware,
    cfg: OpConfig,
    size: np.ndarray,
    gemms: Any,
    gops: tuple[TOp, TOp] | None,
    again: int = 0,
) -> np.ndarray:
    """``tp__sp`` (sequence parallel), ``tp__all_reduce``; with the backward's collectives overlapped
    (``tpb``) ``tp__sp_async`` / ``tp__all_reduce_async``; with TP overlap ``tp__overlap``; with the
    reduce-scatter fused into its producer (``tpo`` 2) ``tp__fused_rs``. HBM contention
    (:class:`TpHbm`) where the plan counts it. ``again`` 1: the block's forward runs a second time
    (its module recomputed, :func:`_block_rerun`)."""
    tp, sp, tpo, tpb = cfg.tp, cfg.sp, cfg.tpo, cfg.tpb
    gpn_tp = group_gpn(cfg.gpn, tp, 1)
    n_fpass = _passes(cfg) - 1 + again
    g_in, g_out = (np.broadcast_to(np.asarray(g, dtype=float), (tp.size,)) for g in gemms)
    s_comm = comm_share(hw)
    m = TpHbm.of(hw, cfg, size, gops)
    fused = tpo == 2
    if sp.any() or fused.any():
        ag = collective_v(hw, "all_gather", size, tp, gpn_tp)
        rs = collective_v(hw, "reduce_scatter", size, tp, gpn_tp)
    if sp.any():
        asy = G.tp__sp_async(m.g_in, m.ag, m.rs, n_fpass, s_comm, g_in, ag, rs)
        x_sp = np.where(tpb == 1, asy, G.tp__sp(n_fpass, ag, rs))
    else:
        x_sp = 0.0
    ar = collective_v(hw, "all_reduce", size, tp, gpn_tp) if (sp == 0).any() else 0.0
    x_ar = np.where(
        tpb == 1,
        G.tp__all_reduce_async(m.g_in, m.ar, n_fpass, s_comm, g_in, ar),
        G.tp__all_reduce(n_fpass, ar),
    )
    x = np.where(sp == 1, x_sp, x_ar)
    if (tpo == 1).any() and sp.any():
        hidden = G.tp__overlap(m.g_in, m.g_out, m.ag, m.rs, n_fpass, g_in, g_out, ag, rs)
        x = np.where((tpo == 1) & (sp == 1), hidden, x)
    if fused.any():
        x = np.where(fused, G.tp__fused_rs(m.g_in, m.g_out, m.rsf, n_fpass, g_in, g_out, ag, rs, tp), x)
    return x


class Sublayer(NamedTuple):
    """One TP sublayer of one layer (T3's unit: Pati et al. 2024, §6.1): a GEMM and the
    collective(s) that reduce its output, one micro-batch on one device. ``phase`` forward (the
    row-parallel GEMM) or backward (the column-parallel data-gradient GEMM); ``t_gemm`` its time,
    ``t_coll`` the collective(s) alone (the all-reduce, or with sequence parallelism the
    reduce-scatter), ``t_exposed`` what of them the plan leaves exposed after the GEMM."""

    collective: str
    phase: str
    gemm: str
    t_gemm: np.ndarray
    t_coll: np.ndarray
    t_exposed: np.ndarray


def sublayers(hw: Hardware, lc: TC.LayerCost, cfg: OpConfig) -> list[Sublayer]:
    """:class:`Sublayer` of each TP block of one layer, forward then backward, exposed as the step
    prices them (:func:`_tp_exposed`): fused into the GEMM (``tpo`` 2, ``tp__pair_fused``, the
    all-reduce's all-gather after it), pipelined with it (``tpo`` 1, ``tp__pair_overlap``), the
    backward's under the weight-gradient GEMM (``tpb``, ``overlap__contended``), else all of it."""
    out: list[Sublayer] = []
    n = cfg.tp.size
    tp, sp, tpo = cfg.tp, cfg.sp == 1, cfg.tpo
    gpn_tp = group_gpn(cfg.gpn, tp, 1)
    for o, gemms, gops in zip(lc.collectives(), lc.tp_gemm_pairs(), lc.tp_gemm_ops(), strict=True):
        if o.group != "tp" or gops is None or not np.any(tp > 1):
            continue
        size = np.broadcast_to(np.asarray(o.size, dtype=float), (n,))
        m = TpHbm.of(hw, cfg, size, gops)
        ag, rs, ar = (
            collective_v(hw, op, size, tp, gpn_tp) for op in ("all_gather", "reduce_scatter", "all_reduce")
        )
        t_c, m_c = np.where(sp, rs, ar), np.where(sp, m.rs, m.ar)
        g_in, g_out = (np.broadcast_to(np.asarray(g, dtype=float), (n,)) for g in gemms)
        for phase, g, mg, op in (("forward", g_out, m.g_out, gops[1]), ("backward", g_in, m.g_in, gops[0])):
            x = t_c
            if phase == "backward":
                x = np.where(cfg.tpb == 1, G.overlap__contended(m_c, mg, comm_share(hw), t_c, g), x)
            x = np.where((tpo == 1) & sp, G.tp__pair_overlap(mg, m.rs, g, rs), x)
            x = np.where(tpo == 2, G.tp__pair_fused(mg, m.rsf, g, rs, tp) + np.where(sp, 0.0, ag), x)
            out.append(Sublayer(str(o.name), phase, op.name, g, t_c, x))
    return out


def layer_sublayers(
    spec: ModelSpec, hw: Hardware, p: Plans
) -> list[tuple[str, int | None, str, int, list[Sublayer]]]:
    """(shape, window, stack, layers of that shape, its :func:`sublayers`) of each layer shape of
    the first plan row of ``p``, the configuration :func:`layer_table` costs."""
    mdl, cfg, g = _first_row(spec, hw, p)
    out = []
    for k, n in zip(mdl.keys, mdl.count_all, strict=True):
        lc = _shape_cost(spec, p.seq, cfg, g, *k)
        out.append((*k, int(n), sublayers(hw, lc, cfg)))
    return out


def _cp_exposed(hw: Hardware, cfg: OpConfig, size: np.ndarray, lc: TC.LayerCost) -> np.ndarray:
    """``cp__ring``: one ring step is a send/recv of the K,V block to the neighbour (within a node
    when the CP group leaves two ranks on one)."""
    gpn_cp = group_gpn(cfg.gpn, cfg.cp, cfg.tp)
    step = collective_v(hw, "send_recv", size, 2, np.minimum(2, gpn_cp))
    rc_fwd = 1.0 if cfg.rc == "full" else 0.0
    return G.cp__ring(np.asarray(cfg.cp, dtype=float), rc_fwd, lc.t_attn_bwd, lc.t_attn_fwd, step)


def _ep_exposed(
    hw: Hardware, cfg: OpConfig, sizes: list[np.ndarray], lc: TC.LayerCost, again: int = 0
) -> list[np.ndarray]:
    """Exposed time of each expert-parallel all-to-all of one layer (``sizes``: their bytes per
    device, each token once per expert): ``ep__all_to_all``, or with EP overlap (``epu`` > 0, plan
    ``ep_overlap``) ``ep__overlap``, the layer's compute shared among them by their times. One
    all-to-all is NCCL's (:func:`collective_v`) or, node-deduplicated (``epd``, plan ``ep_deepep``),
    :func:`deduplicated_v` of each token once, its kernels costing the compute under it
    :func:`dedup_interference` (NCCL's: its ``gemm.collective_sms``); ``again`` 1: a recomputed MoE block
    dispatches and combines a second time in the forward (:func:`_block_rerun`)."""
    if not sizes:
        return []
    gpn_ep = group_gpn(cfg.gpn, cfg.ep, _etp(cfg))  # EP ranks strided by the expert TP degree
    ded = np.broadcast_to(np.asarray(cfg.epd) == 1, cfg.ep.shape)
    n_f = _passes(cfg) - 1 + again
    one = []
    for size in sizes:
        t = collective_v(hw, "all_to_all", np.where(ded, 0.0, size), cfg.ep, gpn_ep)
        if ded.any():
            uniq = np.where(ded, size / cfg.moe_k, 0.0)
            t = np.where(ded, deduplicated_v(hw, uniq, cfg.ep, gpn_ep, cfg.moe_k, cfg.moe_nodes), t)
        one.append(t)
    full = [G.ep__all_to_all(n_f, t) for t in one]
    u = np.asarray(cfg.epu, dtype=float) / 1e6
    if not (u > 0).any():
        return full
    total = sum(full[1:], full[0])
    hide = lc.t_fwd + lc.t_bwd + lc.t_rc
    s_comm = np.where(ded, dedup_interference(hw), comm_share(hw))
    out = []
    for t, x in zip(one, full, strict=True):
        share = np.where(total > 0, hide * x / np.where(total > 0, total, 1.0), 0.0)
        out.append(np.where(u > 0, G.ep__overlap(n_f, s_comm, t, share, u), x))
    return out
