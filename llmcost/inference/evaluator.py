"""The inference evaluator: one (model, hardware, plan) priced operator by operator (no sympy).

:class:`Evaluator` runs the compiled graph functions (:mod:`llmcost.graph._generated`)
and prices each operator on the roofline (:func:`llmcost.kernels.roofline.roofline`) plus the
per-kernel overhead :data:`llmcost.kernels.roofline.T_KERNEL`, and each collective on the fabric
(:mod:`llmcost.collectives.cost`); :class:`OpCost` and :class:`PhaseCost` hold the result. The
composition into TTFT, TPOT, memory and money is :mod:`llmcost.inference.serve`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from llmcost import precision as Q
from llmcost.errors import PlanError
from llmcost.hardware import Hardware
from llmcost.inference.plan import Formats, Plan, check_plan, formats_on, plan_rows
from llmcost.kernels.roofline import T_KERNEL

_MM_KINDS = ("gemm", "lm_head", "router", "expert_gemm")


def shape_function(shape: str) -> tuple[Any, tuple[str, ...], tuple[tuple[Any, ...], ...]]:
    """The generated function of a layer / io shape (:mod:`llmcost.graph._generated`), its
    argument names and its operators' layout."""
    from llmcost.graph import _generated as gen

    fn, names, _ = gen.FUNCTIONS[shape]
    return fn, names, gen.LAYOUTS[shape]


@dataclass
class OpCost:
    """One operator's quantities and time (per occurrence; arrays over decode steps, and over plans
    on the last axis when the evaluator holds several)."""

    group: str
    count: int
    name: str
    kind: str
    flops: Any
    hbm_bytes: Any
    weight_bytes: Any
    time: Any
    roof: Any  # the Roofline behind ``time`` (its bound is worked out when read), or the bound
    comm: str | None = None
    variant: str | None = None

    @property
    def bound(self) -> Any:
        """``compute``, ``memory``, ``latency`` (:func:`llmcost.kernels.roofline.roofline`) or ``network``."""
        return self.roof if isinstance(self.roof, str) else self.roof.bound

    def at(self, i: int) -> OpCost:
        """This operator in plan ``i`` of an evaluator holding several plans."""
        from dataclasses import replace

        from llmcost.kernels.roofline import Roofline

        roof = self.roof
        if isinstance(roof, Roofline):
            roof = Roofline(
                *(_at(getattr(roof, k), i) for k in ("time", "compute", "memory", "network", "latency"))
            )
        q = {k: _at(getattr(self, k), i) for k in ("flops", "hbm_bytes", "weight_bytes", "time")}
        return replace(self, roof=roof, **q)


def _launch(hbm_bytes: Any) -> Any:
    """:data:`T_KERNEL` for an operator that runs (moves bytes), 0 for an absent one."""
    runs = np.asarray(hbm_bytes) > 0
    return T_KERNEL if runs.all() else np.where(runs, T_KERNEL, 0.0)


def _distinct(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values of ``x`` and, per element (flattened), the index of its value."""
    flat = x.ravel()
    order = np.argsort(flat, kind="stable")
    srt = flat[order]
    new = np.empty(srt.size, dtype=bool)
    new[:1] = True
    new[1:] = srt[1:] != srt[:-1]
    inv = np.empty(srt.size, dtype=np.int64)
    inv[order] = np.cumsum(new) - 1
    return srt[new], inv


def _at(x: Any, i: int) -> Any:
    """Element ``i`` of the plan axis (the last) of an array over plans; numbers as they are."""
    x = np.asarray(x)
    if x.ndim == 0:
        return x[()]
    return x[..., i if x.shape[-1] > 1 else 0]


EP_EXCHANGES = ("ep_dispatch", "ep_combine")
"""The expert-parallel exchanges of an MoE layer (what two-batch overlap hides under compute)."""


def _summed(ops: list[OpCost]) -> Any:
    """``Σ count · time`` over ``ops`` in order (in place once the total has its final shape)."""
    total: Any = 0
    own = False
    for o in ops:
        term = o.count * o.time
        if own and np.broadcast_shapes(total.shape, np.shape(term)) == total.shape:
            total += term
        else:
            total = total + term
            own = isinstance(total, np.ndarray)
    return total


@dataclass
class PhaseCost:
    """All operators of one evaluation of a phase, and their time summed over the model."""

    ops: list[OpCost]
    kv_bytes: Any
    weight_bytes: Any  # a number, or one per plan
    tbo: bool = False
    """Two-batch overlap: ``ops`` are one of two half micro-batches, whose expert-parallel exchanges
    run under the other's compute (:func:`llmcost.inference.formulas.tbo_step`)."""
    sm_share: float = 0.0
    """With ``tbo``: the share of the SMs the exchanges hold while they overlap compute."""

    @property
    def time(self) -> Any:
        """``Σ count · time`` over the operators, in their order (accumulated in place once the
        running total is an array of its final shape: the same additions, fewer copies); with
        two-batch overlap, two half batches with their EP exchanges under each other's compute."""
        if not self.tbo:
            return _summed(self.ops)
        from llmcost.inference import _generated as F

        comm = _summed([o for o in self.ops if o.name in EP_EXCHANGES])
        comp = _summed([o for o in self.ops if o.name not in EP_EXCHANGES])
        return F.tbo_step(t_comp=comp, t_comm=comm, s_comm=self.sm_share)

    @property
    def kernels(self) -> Any:
        """Operators the phase issues: ``Σ count`` over the operators that run (time > 0); twice
        that with two-batch overlap."""
        total: Any = 0
        for o in self.ops:
            total = total + o.count * (np.asarray(o.time) > 0)
        return 2 * total if self.tbo else total

    def workspace(self) -> Any:
        """Largest activation input + output of one operator (weights excluded); per batch element
        when the phase was evaluated on an array of micro-batches; with two-batch overlap both halves'
        (they are in flight together)."""
        acts = [
            np.asarray(o.hbm_bytes - o.weight_bytes, dtype=float) for o in self.ops if o.kind != "collective"
        ]
        if not acts:
            return 0.0
        one = np.maximum(0.0, np.max(np.stack(np.broadcast_arrays(*acts)), axis=0))
        return 2 * one if self.tbo else one

    def at(self, i: int) -> PhaseCost:
        """This phase in plan ``i`` of an evaluator holding several plans."""
        ops = [o.at(i) for o in self.ops]
        ops = [o for o in ops if o.kind != "collective" or np.any(np.asarray(o.time) > 0)]  # as one plan
        return PhaseCost(ops, _at(self.kv_bytes, i), _at(self.weight_bytes, i), self.tbo, self.sm_share)


class Evaluator:
    """Everything fixed for one (model, hardware, plan): values, peaks, placement.

    Several plans at once: a :class:`Plan` whose ``tp, pp, dp, ep, batch, gpus`` and format fields
    are 1-D arrays, one element per plan (``cp``, lengths, ``gpus_per_node`` and ``disaggregated``
    shared); every value then carries the plans on its last axis and the same code evaluates them
    all (``llmcost search infer``), element for element the numbers of each plan alone."""

    def __init__(self, spec: Any, hw: Hardware, plan: Plan) -> None:
        from dataclasses import replace

        from llmcost.graph import ops as G

        rows = plan_rows(plan)
        if rows is not None:  # integer fields as int arrays over the plans
            plan = replace(
                plan,
                **{
                    k: np.broadcast_to(np.asarray(getattr(plan, k), dtype=np.int64), (rows,))
                    for k in ("tp", "pp", "dp", "ep")
                },
            )
            shared = (
                "cp",
                "prompt_len",
                "output_len",
                "gpus_per_node",
                "prefill_chunk",
                "disaggregated",
                "ep_imbalance",
                "schedule",
                "speculative",
            )
            if any(np.ndim(getattr(plan, k)) for k in shared):
                raise ValueError(f"{', '.join(shared)} are shared by the plans")
        from llmcost.economics.power import capped

        hw = capped(hw, plan.power_cap)  # the device under the plan's power cap (the same device without one)
        check_plan(spec, hw, plan)
        self.spec, self.hw, self.plan, self.rows = spec, hw, plan, rows
        f = self._formats(hw, plan)
        self.formats = f.names
        self.math = f.math
        self.peak_mm, self.peak_attn = f.peak_mm, f.peak_attn
        self.peak_vec = hw.peak[Q.vector_dtype(hw.peak)]
        self.eta_mm, self.eta_attn = f.eta_mm, f.eta_attn
        self.vals: dict[str, Any] = G.model_values(spec)
        self.vals.update(
            tp=plan.tp,
            cp=plan.cp,
            ep=plan.ep,
            etp=self.pick(plan.ep == 1, plan.tp, 1),
            b_w=f.b_w,
            b_a=f.b_a,
            b_kv=f.b_kv,
            b_r=f.b_r,
            c_dq=f.c_dq,
            seq_enc=1.0,
            ctx=1.0,
            seq=1.0,
            n_dec=1.0,
            micro_batch=1.0,
            kv_reads=kv_reads(spec, plan),
            ep_imb=ep_imbalance(plan),
        )
        self.by_op = self._op_formats(hw, plan)
        node = plan.gpus_per_node or hw.node_devices or 1
        self.node = node
        self.groups = {"decoder": G.layer_groups(spec, "forward")}
        self._coll_cache: dict[tuple[Any, ...], Any] = {}
        self.failed: list[tuple[Any, str]] = []  # several plans: (plans, PlanError) of collectives

    def _formats(self, hw: Hardware, plan: Plan) -> Formats:
        """:func:`formats_on` of the plan, or of each plan (arrays over the plans)."""
        if self.rows is None:
            return formats_on(hw, plan.weights, plan.activations, plan.kv_cache)
        n = self.rows
        cols = [
            np.broadcast_to(np.asarray(getattr(plan, k), dtype=object), (n,)).tolist()
            for k in ("weights", "activations", "kv_cache")
        ]
        uniq: dict[tuple[Any, ...], int] = {}
        idx = np.fromiter(
            (uniq.setdefault(k, len(uniq)) for k in zip(*cols, strict=True)), dtype=np.int64, count=n
        )
        each = [formats_on(hw, *k) for k in uniq]

        def col(get: Callable[[Formats], Any]) -> Any:
            return np.array([get(f) for f in each], dtype=object if isinstance(get(each[0]), str) else None)[
                idx
            ]

        return Formats(
            names=(col(lambda f: f.names[0]), col(lambda f: f.names[1]), col(lambda f: f.names[2])),
            math=(col(lambda f: f.math[0]), col(lambda f: f.math[1])),
            **{
                k: col(lambda f, k=k: getattr(f, k))
                for k in ("peak_mm", "peak_attn", "eta_mm", "eta_attn", "b_w", "b_a", "b_kv", "b_r", "c_dq")
            },
        )

    def _op_formats(self, hw: Hardware, plan: Plan) -> dict[str, tuple[str, Formats, dict[str, Any]]]:
        """Per matmul named by the plan's ``op_precision`` (:data:`~llmcost.inference.plan.OP_GROUPS`):
        (group, its formats, its weight / activation bytes as symbol values); the KV cache and
        the communicated residual keep the plan's."""
        from dataclasses import replace

        from llmcost.inference.plan import OP_GROUPS

        out: dict[str, tuple[str, Formats, dict[str, Any]]] = {}
        for group, w, a in plan.op_precision:
            try:
                f = self._formats(hw, replace(plan, weights=w, activations=a))
            except PlanError as e:
                raise PlanError(f"op_precision.{group}: {e}") from None
            vals = {"b_w": f.b_w, "b_a": f.b_a, "c_dq": f.c_dq}
            for name in OP_GROUPS[group]:
                out[name] = (group, f, vals)
        return out

    def pick(self, cond: Any, a: Any, b: Any) -> Any:
        """``a if cond else b``, per plan when the evaluator holds several."""
        if self.rows is None:
            return a if cond else b
        return np.where(cond, a, b)

    def resident(self, x: Any) -> Any:
        """Largest value of ``x`` over the decode steps: a number, or one per plan."""
        if self.rows is None:
            return float(np.max(x))
        x = np.asarray(x, dtype=float)
        x = np.broadcast_to(x, np.broadcast_shapes(x.shape, (self.rows,)))
        return x.max(axis=tuple(range(x.ndim - 1))) if x.ndim > 1 else x

    # -- collectives ----------------------------------------------------------------------
    def degree(self, group: str) -> Any:
        p = self.plan
        return {"tp": p.tp, "ep": p.ep, "cp": p.cp, "pp": self.pick(p.pp > 1, 2, 1)}[group]

    def _gpn(self, size: Any, stride: Any) -> Any:
        if self.rows is None:
            per = max(1, self.node // stride) if stride < self.node else 1
            return math.gcd(size, per)
        per = np.where(stride < self.node, np.maximum(1, self.node // np.maximum(stride, 1)), 1)
        return np.gcd(size, per)

    def collective_time(self, comm: str, group: str, size: Any) -> Any:
        """Time of one collective of ``size`` bytes per rank over ``group`` (arrays allowed)."""
        arr = np.asarray(size, dtype=float)
        key = (comm, group, arr.shape, arr.tobytes())
        hit = self._coll_cache.get(key)
        if hit is None:
            hit = self._coll_cache[key] = self._collective_time(comm, group, arr)
        return hit

    def _collective_time(self, comm: str, group: str, arr: np.ndarray) -> Any:
        from llmcost.collectives.cost import collective

        d = self.degree(group)
        p = self.plan
        stride = {"tp": 1, "ep": 1, "cp": p.tp, "pp": p.tp * p.cp * p.dp}[group]
        if self.rows is None:
            if d <= 1 or not np.any(arr > 0):
                return np.zeros_like(arr) if arr.ndim else 0.0
            gpus = 2 if comm == "send_recv" else d
            gpn = self._gpn(gpus, stride)
            safe = np.where(arr > 0, arr, 1.0)
            r = collective(self.hw, comm, safe if arr.ndim else float(safe), gpus=gpus, gpus_per_node=gpn)
            return np.where(arr > 0, r.time, 0.0) if arr.ndim else float(r.time)
        # several plans: one call per (group size, ranks per node), on those plans' sizes
        n = self.rows
        arr = np.broadcast_to(arr, np.broadcast_shapes(arr.shape, (n,)))
        gpus = np.broadcast_to(np.where(d > 1, 2 if comm == "send_recv" else d, 1), (n,))
        gpn = np.broadcast_to(self._gpn(gpus, np.broadcast_to(stride, (n,))), (n,))
        out = np.zeros(arr.shape)
        live = gpus > 1
        for g, k in sorted(set(zip(gpus[live].tolist(), gpn[live].tolist(), strict=True))):
            rows = live & (gpus == g) & (gpn == k)
            sub = arr[..., rows]
            sizes, inv = _distinct(np.where(sub > 0, sub, 1.0))  # plans share few sizes
            try:
                r = collective(self.hw, comm, sizes, gpus=g, gpus_per_node=k)
            except PlanError as e:
                self.failed.append((rows, str(e)))
                continue
            out[..., rows] = np.where(sub > 0, np.asarray(r.time)[inv].reshape(sub.shape), 0.0)
        return out

    # -- operators ------------------------------------------------------------------------
    def phase(
        self, shape_of: list[tuple[str, Any]], io: str, *, timed: bool = True, **workload: Any
    ) -> PhaseCost:
        """Evaluate layer groups [(shape, GroupInfo)] and the io shape at ``workload`` values.
        ``timed=False``: quantities only (bytes for memory; no operator or collective times). With
        the plan's ``two_batch_overlap`` the operators are those of half the micro-batch (the KV
        cache and weights of all of it), priced as two overlapped halves (:attr:`PhaseCost.tbo`)."""
        if not (timed and self.two_batch):
            return self._phase(shape_of, io, timed, workload)
        full = self._phase(shape_of, io, False, workload)
        half = self._phase(shape_of, io, True, {**workload, "micro_batch": workload["micro_batch"] / 2})
        share = self.hw.collective_sm_share()
        return PhaseCost(half.ops, full.kv_bytes, full.weight_bytes, tbo=True, sm_share=share)

    @property
    def two_batch(self) -> bool:
        """Whether phases run as two overlapped half micro-batches: the plan's ``two_batch_overlap``
        on an MoE model with expert parallelism (the exchanges it hides)."""
        p = self.plan
        return bool(p.two_batch_overlap) and self.spec.moe is not None and np.ndim(p.ep) == 0 and p.ep > 1

    def _phase(
        self, shape_of: list[tuple[str, Any]], io: str, timed: bool, workload: dict[str, Any]
    ) -> PhaseCost:
        """:meth:`phase` of the whole micro-batch."""
        from llmcost.graph.ops import window_value

        vals = dict(self.vals, **workload)
        entries = [_Entry(g.shape, g.name, g.count, window_value(g.window)) for _, g in shape_of]
        entries.append(_Entry(io, "io", 1, math.inf))
        ops: list[OpCost] = []
        kv_total: Any = 0.0
        weights: Any = 0.0
        for entry in entries:
            layer = self._layer(entry, vals, timed)
            ops += layer.ops
            for w in layer.weights:  # one running sum over every operator, in order
                weights = weights + w
            kv_total = kv_total + layer.kv
        return PhaseCost(ops, kv_total, weights)

    def _layer(self, entry: _Entry, vals: dict[str, Any], timed: bool) -> _Layer:
        """The operators of one entry priced at ``vals`` (its generated function evaluated once);
        CP ring collectives are gathered and priced together (:meth:`_ring`)."""
        fn, names, layout = shape_function(entry.shape)
        v = dict(vals, window=entry.window)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out = fn(*(v[n] for n in names))
        shape_eff = self._shape_factors(entry, v, layout)
        outs: dict[str | None, Any] = {None: out}
        for group, _, ov in self.by_op.values():  # the layer again in each op_precision group's formats
            if group not in outs:
                w = dict(v, **ov)
                with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                    outs[group] = fn(*(w[n] for n in names))
        layer = _Layer([], [], entry.count * out[-1])
        ring: dict[str, list[_Op]] = {"pass_kv": [], "pass_q": []}
        attn_time: Any = 0.0
        for i, meta in enumerate(layout):
            own = self.by_op.get(meta[0])
            src = outs[own[0]] if own is not None else out
            op = _Op(*meta, *src[5 * i : 5 * i + 5])
            if op.kind == "collective":
                if timed and op.variant:
                    ring[op.variant].append(op)
                elif timed and (net := self._collective_op(entry, op)) is not None:
                    layer.ops.append(net)
                continue
            if op.kind in (*_MM_KINDS, "elementwise") and not np.any(np.asarray(op.flops) > 0):
                continue  # absent operator (no shared experts, ...)
            fmt = own[1] if own is not None else None
            eff = shape_eff[i] if shape_eff is not None and op.kind in _MM_KINDS else None
            cost = self._compute_op(entry, op, fmt, eff) if timed else _op_cost(entry, op, time=0.0, roof="")
            layer.ops.append(cost)
            layer.weights.append(entry.count * self.resident(op.weight_bytes))
            if timed and op.kind == "attention":
                attn_time = attn_time + cost.time
        if self.plan.cp > 1 and ring["pass_kv"]:
            layer.ops.append(self._ring(entry, ring, attn_time))
        return layer

    def _collective_op(self, entry: _Entry, op: _Op) -> OpCost | None:
        """A collective on its fabric (:meth:`collective_time`); None when it moves nothing."""
        t = self.collective_time(op.comm, op.group, op.size)
        if not np.any(np.asarray(t) > 0):
            return None
        net = op._replace(flops=0.0, hbm_bytes=0.0, weight_bytes=0.0)
        return _op_cost(entry, net, time=t, roof="network", comm=op.comm)

    def _shape_factors(self, entry: _Entry, v: dict[str, Any], layout: Any) -> dict[int, Any] | None:
        """Per matmul of a prefill (``forward``) layer: its GEMM shape efficiency
        (:func:`llmcost.kernels.gemm.shape_efficiency` at the plan's GEMM precision, from the graph's
        ``gemm__<shape>`` dimensions), as training prices its forward GEMMs; None for decode and io
        shapes (memory-bound at a few tokens) and on a device without ``gemm`` figures."""
        from llmcost.graph import _generated as gen
        from llmcost.kernels.gemm import gemm_at, shape_efficiency

        key = f"gemm__{entry.shape}"
        if self.hw.gemm_shape is None or key not in gen.FUNCTIONS:
            return None
        fn, names, _ = gen.FUNCTIONS[key]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            dims = fn(*(v[n] for n in names))
        out = {}
        for i, meta in enumerate(layout):
            if meta[1] not in _MM_KINDS:
                continue
            math = self.by_op[meta[0]][1].math[0] if meta[0] in self.by_op else self.math[0]
            d = dims[4 * i : 4 * i + 4]
            if np.ndim(math) == 0:
                out[i] = _blend(shape_efficiency(*d, gemm_at(self.hw, str(math))), v.get("shape_share"))
                continue
            names = np.asarray(math, dtype=object)  # one GEMM precision per plan (last axis)
            eff: Any = 0.0
            for name in dict.fromkeys(names.tolist()):
                eff = np.where(names == name, shape_efficiency(*d, gemm_at(self.hw, str(name))), eff)
            out[i] = _blend(eff, v.get("shape_share"))
        return out

    def _compute_op(
        self, entry: _Entry, op: _Op, fmt: Formats | None = None, shape_eff: Any = None
    ) -> OpCost:
        """An operator on the roofline at its math precision's peak and efficiency (``fmt``: a matmul
        of an ``op_precision`` group, at that group's; ``shape_eff``: a prefill matmul's GEMM shape
        efficiency, :meth:`_shape_factors`), plus :data:`llmcost.kernels.roofline.T_KERNEL` when it runs."""
        from llmcost.kernels.roofline import roofline

        kind = op.kind
        peak_mm, eta_mm = (self.peak_mm, self.eta_mm) if fmt is None else (fmt.peak_mm, fmt.eta_mm)
        peak = peak_mm if kind in _MM_KINDS else self.peak_attn if kind == "attention" else self.peak_vec
        # dequantization at the vector peak, in GEMM-peak FLOPs (none: the FLOPs as they are)
        dq = op.dequant
        # the matmul's FLOPs at its shape efficiency (the tensor-core tiles it fills), the dequantization
        # at the vector peak in GEMM-peak FLOPs
        mm = op.flops if shape_eff is None else op.flops / shape_eff
        fl_eq = mm if np.ndim(dq) == 0 and dq == 0 else mm + dq * (peak / self.peak_vec)
        eta = (
            self.eta_attn
            if kind == "attention"
            else eta_mm
            if kind in _MM_KINDS
            else self.hw.compute_efficiency
        )
        r = roofline(
            fl_eq,
            op.hbm_bytes,
            peak,
            self.hw.memory_bandwidth,
            eta_c=eta,
            eta_m=self.hw.expert_memory_efficiency() if kind == "expert_gemm" else self.hw.memory_efficiency,
            t_launch=_launch(op.hbm_bytes),
            **self._streamed(entry, op),
        )
        return _op_cost(entry, op, time=r.time, roof=r)

    def _streamed(self, entry: _Entry, op: _Op) -> dict[str, Any]:
        """What reaches the device over the host link while an operator runs, as a third roofline term
        ``bytes / B_tier`` (:func:`llmcost.inference.stack.tier_bandwidth`), prefetched under the
        previous layer (FlexGen, Sheng et al. 2023 §4; TPI-LLM's sliding window): with ``weights_tier``
        host or nvme a decoder layer's weights (the embedding and head stay resident); with ``kv_tier``
        host the KV cache an attention reads (its bytes moved, FlexGen's KV-cache offload)."""
        from llmcost.inference.stack import tier_bandwidth

        p = self.plan
        moved: Any = 0.0
        if p.weights_tier != "hbm" and entry.name != "io":
            moved = op.weight_bytes
            tier = p.weights_tier
        if p.kv_tier != "hbm" and op.kind == "attention":
            moved = moved + op.hbm_bytes
            tier = p.kv_tier if p.weights_tier == "hbm" else p.weights_tier
        if np.ndim(moved) == 0 and moved == 0.0:
            return {}
        return {"net_bytes": moved, "net_bw": tier_bandwidth(self.hw, tier, int(np.max(p.devices)))}

    def _ring(self, entry: _Entry, ring: dict[str, list[_Op]], attn_time: Any) -> OpCost:
        """Exposed CP ring time: cp−1 p2p steps overlapped with attention; pass-KV or pass-Q,
        whichever exposes less (Yang et al. 2024 §3, Alg. 1)."""
        steps = self.plan.cp - 1
        exposed: dict[str, Any] = {}
        for variant in ("pass_kv", "pass_q"):
            total: Any = 0.0
            for op in ring[variant]:
                t = self.collective_time(op.comm, op.group, op.size)
                total = total + (steps * t if op.comm == "send_recv" else t)
            exposed[variant] = np.maximum(0.0, total - attn_time) if variant == "pass_kv" else total
            if variant == "pass_q":  # the return all-to-all is not overlapped; the ring steps are
                p2p = sum(
                    steps * self.collective_time(op.comm, op.group, op.size)
                    for op in ring[variant]
                    if op.comm == "send_recv"
                )
                exposed[variant] = np.maximum(0.0, p2p - attn_time) + (total - p2p)
        take_q = self.resident(exposed["pass_q"]) < self.resident(exposed["pass_kv"])
        time = self.pick(take_q, exposed["pass_q"], exposed["pass_kv"])
        variant = self.pick(take_q, "pass_q", "pass_kv")
        if np.ndim(variant):
            variant = str(variant[0]) if np.all(variant == variant[0]) else "pass_kv|pass_q"
        ring_op = ring["pass_kv"][0]._replace(
            name=f"cp_ring_{variant}", flops=0.0, hbm_bytes=0.0, weight_bytes=0.0
        )
        return _op_cost(entry, ring_op, time=time, roof="network", comm="send_recv", variant=variant)


def _blend(eff: Any, share: Any) -> Any:
    """A mixed step's GEMM efficiency: the prompt tokens' share of the rows at the shape efficiency,
    the decode tokens' at the sustained rate as a decode step prices them (their FLOPs add:
    ``1 / (s/η + (1 − s))``), so the step tends to the decode step as its prompt tokens vanish;
    ``share`` None: the shape efficiency as it is."""
    if share is None:
        return eff
    return 1.0 / (share / eff + (1.0 - share))


class _Op(NamedTuple):
    """One operator of a generated layer function: its layout row and its five quantities."""

    name: str
    kind: str
    comm: str | None
    group: str | None
    variant: str | None
    flops: Any
    hbm_bytes: Any
    weight_bytes: Any
    dequant: Any
    size: Any


@dataclass(frozen=True)
class _Entry:
    """A layer group of a phase (or its io operators): generated shape, name, layers, window."""

    shape: str
    name: str
    count: int
    window: float


@dataclass
class _Layer:
    """One entry evaluated: its priced operators, their resident weight terms (count x bytes, in
    operator order) and its KV-cache bytes (count x per layer)."""

    ops: list[OpCost]
    weights: list[Any]
    kv: Any


def _op_cost(entry: _Entry, op: _Op, *, time: Any, roof: Any, **extra: Any) -> OpCost:
    """The :class:`OpCost` of ``op`` in ``entry`` at ``time`` (``roof``: its roofline or bound)."""
    return OpCost(
        group=entry.name,
        count=entry.count,
        name=op.name,
        kind=op.kind,
        flops=op.flops,
        hbm_bytes=op.hbm_bytes,
        weight_bytes=op.weight_bytes,
        time=time,
        roof=roof,
        **extra,
    )


def kv_reads(spec: Any, plan: Plan) -> Any:
    """Times a decode step reads each cached K/V element on a device (graph symbol ``kv_reads``): 1
    with ``decode_attention: grouped``; with ``per_head`` the device's query heads per KV head,
    ``(n_q/t) / (n_kv/min(t, n_kv))`` (numbers, or one per plan)."""
    if plan.decode_attention != "per_head":
        return 1.0
    t = np.asarray(plan.tp, dtype=float)
    out = (spec.num_heads / t) / (spec.num_kv_heads / np.minimum(t, spec.num_kv_heads))
    return float(out) if np.ndim(out) == 0 else out


def ep_imbalance(plan: Plan) -> Any:
    """Graph symbol ``ep_imb``: where ep > 1 the plan's ``ep_imbalance`` (default
    :data:`~llmcost.inference.plan.EP_IMBALANCE_EPLB`), 1 without expert parallelism (a number, or
    one per plan)."""
    from llmcost.graph.ops import ep_imbalance_value

    return ep_imbalance_value(0.0 if plan.ep_imbalance is None else plan.ep_imbalance, plan.ep)
