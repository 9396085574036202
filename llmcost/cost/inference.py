"""Inference cost of one plan: TTFT, TPOT, throughput, memory, money and energy (no sympy).

Workload (static batching as in TensorRT-LLM's gptSessionBenchmark): a batch
of ``batch`` sequences (whole system; ``batch/dp`` per replica) runs prefill of
``prompt_len`` tokens, then ``output_len − 1`` decode steps whose context grows from
``prompt_len + 1``; every decode step is costed at its own context (the compiled decode
function is evaluated on the array of contexts at once).

* operator time: :func:`llmcost.cost.roofline.roofline` on the graph's FLOPs and bytes, at the
  peak of the operator's math precision (:mod:`llmcost.precision`), with the catalog's
  compute and memory efficiencies (GEMMs ``efficiency.compute_<math dtype>`` when the entry has
  one, else ``efficiency.compute``; attention ``efficiency.attention`` when the hardware entry
  has one, else the GEMM figure; :class:`llmcost.hardware.Hardware`) and a per-kernel overhead :data:`T_KERNEL` (added); weight
  dequantization (weight-only formats) is charged at the vector peak.
* collectives: :mod:`llmcost.cost.collectives` (fastest modelled algorithm) with groups placed
  on the fabric tiers: TP innermost, then CP, DP (EP spans DP x TP ranks), PP outermost.
* TP: two all-reduces per layer; EP: dispatch + combine all-to-all per MoE layer; CP prefill:
  ring pass-KV or pass-Q (the one with less exposed time; the ring overlaps attention),
  decode merges partial outputs; PP: ``m = min(b, pp)`` micro-batches,
  ``TTFT = (m + p − 1)/p · T_fwd(b/m) + (p − 1)·T_p2p`` and ``TPOT = T_dec(b/m) + (p − 1)·T_p2p``
  (GPipe fill, Huang et al. 2019).
* memory per device: weights (layers / pp, plus embedding or head), KV cache at
  ``prompt_len + output_len``, activation workspace (the largest operator input + output of
  one prefill layer, one layer live at a time, plus fp32 logits), reserved runtime memory
  :data:`RESERVED_FRACTION` of usable memory.
* money and energy: ``$ / 1M output tokens = gpus·price·e2e / 3600 / (batch·output_len)·1e6``
  (:func:`llmcost.cost.economics_formulas.usd_per_million_tokens`);
  ``J / output token = gpus·TDP·e2e / (batch·output_len)`` (TDP is an upper bound on the draw) [derived].
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from llmcost import checks
from llmcost import precision as Q
from llmcost.cost import _economics_generated as E
from llmcost.cost import rules as R
from llmcost.cost.rules import Rule
from llmcost.errors import PlanError, UserError
from llmcost.hardware import Hardware
from llmcost.units import GIB

T_KERNEL = 4e-6
"""Per-kernel overhead (s), ADDED to each operator's roofline time (:func:`llmcost.cost.roofline.roofline`;
serial for dependent kernels; CUDA Programming Guide §4.2, CUDA Graphs): the gap between dependent kernels measured
in batch-1 decode, 2.5 µs per launch (FlashML-org/FreeToken PR #338, nsys: (143 − 44.7) µs / 39
launches) and 3.4 µs (turboderp-org/exllamav3 PR #380: 3.07 ms over 914 launches), plus ~1 µs of
GPU ramp-up / tail per kernel. One figure for every
device and engine (CUDA Graphs shrink the launch part; not modelled separately). Training and
test-time scaling price their operators with the same constant."""
RESERVED_FRACTION = 0.10
"""Reserved runtime memory (CUDA context, NCCL buffers, allocator slack) as a fraction of usable
memory: vLLM ``gpu_memory_utilization`` default 0.9 (vllm/config.py) and TensorRT-LLM
``kv_cache_free_gpu_mem_fraction`` default 0.9."""
PLAN_KEYS = (
    "tp",
    "pp",
    "ep",
    "dp",
    "cp",
    "batch",
    "prompt_len",
    "output_len",
    "weights",
    "activations",
    "kv_cache",
    "disaggregated",
    "gpus",
    "gpus_per_node",
)
_MM_KINDS = ("gemm", "lm_head", "router", "expert_gemm")


@dataclass(frozen=True)
class Plan:
    """An inference plan (validation README 'plan keys (infer)')."""

    tp: int = 1
    pp: int = 1
    dp: int = 1
    cp: int = 1
    ep: int = 1
    batch: int | None = 1  # None: the largest batch that fits
    prompt_len: int = 1024
    output_len: int = 128
    weights: str = "bf16"
    activations: str | None = None  # default: bf16 unless weights are 16-bit (then the same)
    kv_cache: str | None = None  # default: the activation format (bf16 for integer activations)
    disaggregated: bool = False
    gpus: int | None = None
    gpus_per_node: int | None = None

    @property
    def devices(self) -> int:
        return self.tp * self.pp * self.dp * self.cp

    def formats(self) -> tuple[str, str, str]:
        """(weights, activations, kv_cache) with defaults applied."""
        return resolve_formats(self.weights, self.activations, self.kv_cache)


def resolve_formats(weights: str, activations: str | None, kv_cache: str | None) -> tuple[str, str, str]:
    """(weights, activations, kv_cache) with the plan defaults applied: activations bf16 unless the
    weights are 16-bit (then the same); the KV cache in the activation format (bf16 for integer
    activations)."""
    w = Q.normalize(weights, "weights")
    a = Q.normalize(activations, "activations") if activations else (w if w in ("bf16", "fp16") else "bf16")
    kv = Q.normalize(kv_cache, "kv_cache") if kv_cache else (a if a in ("bf16", "fp16", "fp8") else "bf16")
    return w, a, kv


def _int(v: Any, key: str, minimum: int = 1) -> int:
    return checks.finite_int(v, f"plan key '{key}'", minimum)


def plan_from_dict(d: dict[str, Any], cluster: dict[str, Any] | None = None) -> Plan:
    """A :class:`Plan` from README plan keys (+ ``cluster: {gpus, gpus_per_node}``)."""
    if not isinstance(d, dict):
        raise UserError("plan: expected a mapping of plan keys")
    unknown = [k for k in d if k not in PLAN_KEYS]
    if unknown:
        from llmcost.errors import did_you_mean

        raise UserError(
            f"plan key '{unknown[0]}' is not an infer plan key{did_you_mean(unknown[0], PLAN_KEYS)}"
        )
    kw: dict[str, Any] = {}
    for k in ("tp", "pp", "dp", "cp", "ep", "prompt_len", "output_len", "gpus", "gpus_per_node"):
        if d.get(k) is not None:
            kw[k] = _int(d[k], k)
    kw["batch"] = _int(d["batch"], "batch") if d.get("batch") is not None else None
    for k in ("weights", "activations", "kv_cache"):
        if d.get(k) is not None:
            kw[k] = Q.normalize(str(d[k]), k)
    kw["disaggregated"] = bool(d.get("disaggregated", False))
    cl = cluster or {}
    for k in ("gpus", "gpus_per_node"):
        if cl.get(k) is not None and k not in kw:
            kw[k] = _int(cl[k], f"cluster.{k}")
    return Plan(**kw)


# ------------------------------------------------------------------------------ model
def spec_of(model: str | dict[str, Any]) -> Any:
    """A ModelSpec from a catalog id, a config file (``.yaml``/``.yml``/``.json`` path) or an inline
    HF-style mapping: the one resolver of a model argument, used by every command."""
    from pathlib import Path

    from llmcost.modelspec import from_config

    if isinstance(model, dict):
        cfg = {k: v for k, v in model.items() if k != "name"}
        return from_config(cfg, where=f"inline model {model.get('name', '')}".strip())
    path = Path(str(model))
    if path.suffix in (".yaml", ".yml", ".json") and path.is_file():
        from llmcost.catalog import read_file

        return from_config(read_file(path), where=str(path))
    from llmcost.catalog import get_model_config

    return from_config(get_model_config(str(model)), where=f"models/{model}")


def _layers(spec: Any) -> list[int]:
    return [spec.num_layers] + ([spec.num_encoder_layers] if spec.is_encoder_decoder else [])


def _experts(spec: Any) -> int:
    return spec.moe.num_experts if spec.moe is not None else 0


RULES: tuple[Rule, ...] = (
    Rule(
        "GPU count is not tp*pp*dp*cp",
        lambda s, p: False if p.gpus is None else p.gpus != p.devices,
        lambda s, p: (
            f"{p.gpus} GPUs but tp*pp*dp*cp = {p.tp}*{p.pp}*{p.dp}*{p.cp} = {p.devices}; "
            "make the product equal the GPU count"
        ),
        ("gpus", "tp", "pp", "dp", "cp"),
    ),
    R.HEADS,
    R.KV_HEADS,
    Rule(
        "layers do not divide into pp stages",
        lambda s, p: np.any([n % p.pp != 0 for n in _layers(s)], axis=0),
        lambda s, p: next(
            f"{n} layers do not divide into pp {p.pp} stages; use a pp dividing {n}"
            for n in _layers(s)
            if n % p.pp
        ),
        ("pp",),
    ),
    R.EP_NEEDS_MOE,
    Rule(
        "ep exceeds the experts",
        lambda s, p: (s.moe is not None) & (p.ep > _experts(s)),
        lambda s, p: (
            f"ep {p.ep} exceeds the {_experts(s)} experts (each rank holds at least one "
            f"expert); use ep <= {_experts(s)}"
        ),
        ("ep",),
    ),
    Rule(
        "ep must span whole TP groups within dp*tp",
        lambda s, p: (p.ep > 1) & (((p.dp * p.tp) % p.ep != 0) | (p.ep % p.tp != 0)),
        lambda s, p: (
            f"ep {p.ep} must span whole TP groups within dp*tp = {p.dp * p.tp} ranks "
            f"(ep a multiple of tp {p.tp} dividing {p.dp * p.tp})"
        ),
        ("ep", "dp", "tp"),
    ),
    Rule(
        "cp with an encoder-decoder model",
        lambda s, p: (p.cp > 1) & s.is_encoder_decoder,
        lambda s, p: "context parallelism is not modelled for encoder-decoder models; use cp 1",
        ("cp",),
    ),
    Rule(
        "batch does not divide over dp",
        lambda s, p: False if p.batch is None else p.batch % p.dp != 0,
        lambda s, p: f"batch {p.batch} does not divide over dp {p.dp} replicas; use a multiple of {p.dp}",
        ("batch", "dp"),
    ),
    Rule(
        "prompt_len or output_len below 1",
        lambda s, p: (p.output_len < 1) | (p.prompt_len < 1),
        lambda s, p: "prompt_len and output_len must be at least 1",
        ("prompt_len", "output_len"),
    ),
    Rule(
        "GPUs do not fill whole nodes",
        lambda s, p: (
            False if p.gpus_per_node is None else p.devices % np.minimum(p.gpus_per_node, p.devices) != 0
        ),
        lambda s, p: (
            f"{p.devices} GPUs do not divide into nodes of {p.gpus_per_node}; use a gpus_per_node "
            f"dividing {p.devices}"
        ),
        ("gpus_per_node", "tp", "pp", "dp", "cp"),
    ),
    R.context_rule(
        lambda p: p.prompt_len + p.output_len, "prompt_len + output_len", ("prompt_len", "output_len")
    ),
)
"""The inference plan validity rules, each written once: :func:`check_plan` raises the first a
plan breaks; ``llmcost search infer`` applies the same predicates as masks over its plans."""
BATCH_RULE = next(i for i, r in enumerate(RULES) if r.reason == "batch does not divide over dp")


def first_broken(spec: Any, plan: Plan) -> Any:
    """Index in :data:`RULES` of the first rule ``plan`` breaks, -1 when none: an int, or an int
    array over the plans when the plan's fields are arrays."""
    return R.first_broken(RULES, spec, plan)


def check_plan(spec: Any, hw: Hardware, plan: Plan) -> None:
    """PlanError when the plan does not divide the model or the cluster (the first of :data:`RULES`
    it breaks; a plan with array fields: the first plan breaking it)."""
    checks.gpus_per_node(hw, plan.gpus_per_node, "gpus_per_node")
    for rule in RULES:
        broken = np.asarray(rule.broken(spec, plan))
        if broken.any():
            one = plan if broken.ndim == 0 else plan_row(plan, int(np.flatnonzero(broken)[0]))
            raise PlanError(rule.message(spec, one))


def plan_row(plan: Plan, i: int) -> Plan:
    """Plan ``i`` of a plan whose fields are arrays over plans (scalar fields are shared)."""
    from dataclasses import fields, replace

    kw = {}
    for f in fields(plan):
        v = getattr(plan, f.name)
        if isinstance(v, np.ndarray) and v.ndim:
            kw[f.name] = np.broadcast_to(v, (plan_rows(plan) or 1,))[i].item()
    return replace(plan, **kw)


def plan_rows(plan: Plan) -> int | None:
    """Number of plans in a plan whose fields are 1-D arrays over plans; None for one plan."""
    n = {len(v) for v in vars(plan).values() if isinstance(v, np.ndarray) and v.ndim}
    if len(n) > 1:
        raise ValueError(f"plan fields of different lengths {sorted(n)}")
    return n.pop() if n else None


@dataclass(frozen=True)
class Formats:
    """What a (weights, activations, KV cache) format triple fixes on one hardware."""

    names: tuple[str, str, str]  # defaults applied
    math: tuple[str, str]  # GEMM and attention math precision
    peak_mm: float
    peak_attn: float
    eta_mm: float
    eta_attn: float
    b_w: float
    b_a: float
    b_kv: float
    b_r: float  # residual stream / communication bytes: at least 2 (bf16)
    c_dq: float  # dequantization element-ops per weight element (weight-only formats)


def formats_on(hw: Hardware, weights: str, activations: str | None, kv_cache: str | None) -> Formats:
    """The numbers of a format triple on ``hw`` (:mod:`llmcost.precision`); PlanError when the pair
    is not a supported GEMM or the hardware has no peak for the math precision."""
    w, a, kv = resolve_formats(weights, activations, kv_cache)
    gm = Q.gemm_math(w, a)
    att = Q.attention_math(kv, a)
    peak_mm = Q.require(hw.peak, gm.math, hw.id, f"{w} weights x {a} activations")
    peak_attn = Q.require(hw.peak, att, hw.id, f"attention with a {kv} KV cache")
    ba = Q.BYTES[a]
    return Formats(
        names=(w, a, kv),
        math=(gm.math, att),
        peak_mm=peak_mm,
        peak_attn=peak_attn,
        eta_mm=hw.gemm_efficiency(gm.math),  # efficiency.compute_<dtype> (fp8 GEMMs...), else compute
        eta_attn=hw.attention_efficiency(att),  # efficiency.attention, else the GEMM figure
        b_w=Q.BYTES[w],
        b_a=ba,
        b_kv=Q.BYTES[kv],
        b_r=max(ba, 2.0),
        c_dq=Q.C_DQ if gm.weight_only else 0.0,
    )


# ------------------------------------------------------------------------------ evaluation
def _generated(shape: str) -> tuple[Any, tuple[str, ...], tuple[tuple[Any, ...], ...]]:
    from llmcost.cost import _inference_generated as gen

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
        """``compute``, ``memory``, ``latency`` (:func:`llmcost.cost.roofline.roofline`) or ``network``."""
        return self.roof if isinstance(self.roof, str) else self.roof.bound

    def at(self, i: int) -> OpCost:
        """This operator in plan ``i`` of an evaluator holding several plans."""
        from dataclasses import replace

        from llmcost.cost.roofline import Roofline

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


@dataclass
class PhaseCost:
    """All operators of one evaluation of a phase, and their time summed over the model."""

    ops: list[OpCost]
    kv_bytes: Any
    weight_bytes: Any  # a number, or one per plan

    @property
    def time(self) -> Any:
        """``Σ count · time`` over the operators, in their order (accumulated in place once the
        running total is an array of its final shape: the same additions, fewer copies)."""
        total: Any = 0
        own = False
        for o in self.ops:
            term = o.count * o.time
            if own and np.broadcast_shapes(total.shape, np.shape(term)) == total.shape:
                total += term
            else:
                total = total + term
                own = isinstance(total, np.ndarray)
        return total

    def workspace(self) -> Any:
        """Largest activation input + output of one operator (weights excluded); per batch element
        when the phase was evaluated on an array of micro-batches."""
        acts = [
            np.asarray(o.hbm_bytes - o.weight_bytes, dtype=float) for o in self.ops if o.kind != "collective"
        ]
        if not acts:
            return 0.0
        return np.maximum(0.0, np.max(np.stack(np.broadcast_arrays(*acts)), axis=0))

    def at(self, i: int) -> PhaseCost:
        """This phase in plan ``i`` of an evaluator holding several plans."""
        ops = [o.at(i) for o in self.ops]
        ops = [o for o in ops if o.kind != "collective" or np.any(np.asarray(o.time) > 0)]  # as one plan
        return PhaseCost(ops, _at(self.kv_bytes, i), _at(self.weight_bytes, i))


class Evaluator:
    """Everything fixed for one (model, hardware, plan): values, peaks, placement.

    Several plans at once: a :class:`Plan` whose ``tp, pp, dp, ep, batch, gpus`` and format fields
    are 1-D arrays, one element per plan (``cp``, lengths, ``gpus_per_node`` and ``disaggregated``
    shared); every value then carries the plans on its last axis and the same code evaluates them
    all (``llmcost search infer``), element for element the numbers of each plan alone."""

    def __init__(self, spec: Any, hw: Hardware, plan: Plan) -> None:
        from dataclasses import replace

        from llmcost import graph as G

        rows = plan_rows(plan)
        if rows is not None:  # integer fields as int arrays over the plans
            plan = replace(
                plan,
                **{
                    k: np.broadcast_to(np.asarray(getattr(plan, k), dtype=np.int64), (rows,))
                    for k in ("tp", "pp", "dp", "ep")
                },
            )
            if any(np.ndim(getattr(plan, k)) for k in ("cp", "prompt_len", "output_len", "gpus_per_node")):
                raise ValueError("cp, prompt_len, output_len and gpus_per_node are shared by the plans")
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
            micro_batch=1.0,
        )
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
        from llmcost.cost.collectives import collective

        d = self.degree(group)
        p = self.plan
        stride = {"tp": 1, "ep": 1, "cp": p.tp, "pp": p.tp * p.cp * p.dp}[group]
        if self.rows is None:
            if d <= 1 or not np.any(arr > 0):
                return np.zeros_like(arr) if arr.ndim else 0.0
            gpus = 2 if comm == "send_recv" else d
            gpn = self._gpn(gpus, stride)
            safe = np.where(arr > 0, arr, 1.0)
            r = collective(self.hw, comm, safe if arr.ndim else float(safe), gpus, gpn)
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
                r = collective(self.hw, comm, sizes, g, k)
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
        ``timed=False``: quantities only (bytes for memory; no operator or collective times)."""
        from llmcost.cost.roofline import roofline
        from llmcost.graph import window_value

        vals = dict(self.vals, **workload)
        ops: list[OpCost] = []
        kv_total: Any = 0.0
        weights: Any = 0.0
        entries = [(g.shape, g, g.count) for _, g in shape_of] + [(io, None, 1)]
        for shape, g, count in entries:
            fn, names, layout = _generated(shape)
            v = dict(vals, window=window_value(g.window) if g is not None else math.inf)
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                out = fn(*(v[n] for n in names))
            gname = g.name if g is not None else "io"
            attn_time: Any = 0.0
            ring: dict[str, list[Any]] = {"pass_kv": [], "pass_q": []}
            for i, (name, kind, comm, group, variant) in enumerate(layout):
                fl, hb, wb, dq, sz = out[5 * i : 5 * i + 5]
                if kind == "collective":
                    if not timed:
                        continue
                    if variant:
                        ring[variant].append((name, comm, group, sz))
                        continue
                    t = self.collective_time(comm, group, sz)
                    if not np.any(np.asarray(t) > 0):
                        continue
                    ops.append(OpCost(gname, count, name, kind, 0.0, 0.0, 0.0, t, "network", comm))
                    continue
                if kind in (*_MM_KINDS, "elementwise") and not np.any(np.asarray(fl) > 0):
                    continue  # absent operator (no shared experts, ...)
                if not timed:
                    ops.append(OpCost(gname, count, name, kind, fl, hb, wb, 0.0, ""))
                    weights = weights + count * self.resident(wb)
                    continue
                peak = (
                    self.peak_mm
                    if kind in _MM_KINDS
                    else self.peak_attn
                    if kind == "attention"
                    else self.peak_vec
                )
                # dequantization at the vector peak, in GEMM-peak FLOPs (none: the FLOPs as they are)
                fl_eq = fl if np.ndim(dq) == 0 and dq == 0 else fl + dq * (peak / self.peak_vec)
                eta = (
                    self.eta_attn
                    if kind == "attention"
                    else self.eta_mm
                    if kind in _MM_KINDS
                    else self.hw.compute_efficiency
                )
                r = roofline(
                    fl_eq,
                    hb,
                    peak,
                    self.hw.memory_bandwidth,
                    eta_c=eta,
                    eta_m=self.hw.memory_efficiency,
                    t_launch=_launch(hb),
                )
                ops.append(OpCost(gname, count, name, kind, fl, hb, wb, r.time, r))
                weights = weights + count * self.resident(wb)
                if kind == "attention":
                    attn_time = attn_time + r.time
            if self.plan.cp > 1 and ring["pass_kv"]:
                ops.append(self._ring(gname, count, ring, attn_time))
            kv_total = kv_total + count * out[-1]
        return PhaseCost(ops, kv_total, weights)

    def _ring(self, gname: str, count: int, ring: dict[str, list[Any]], attn_time: Any) -> OpCost:
        """Exposed CP ring time: cp−1 p2p steps overlapped with attention; pass-KV or pass-Q,
        whichever exposes less (Yang et al. 2024 §3, Alg. 1)."""
        steps = self.plan.cp - 1
        exposed: dict[str, Any] = {}
        for variant in ("pass_kv", "pass_q"):
            total: Any = 0.0
            for _, comm, group, sz in ring[variant]:
                t = self.collective_time(comm, group, sz)
                total = total + (steps * t if comm == "send_recv" else t)
            exposed[variant] = np.maximum(0.0, total - attn_time) if variant == "pass_kv" else total
            if variant == "pass_q":  # the return all-to-all is not overlapped; the ring steps are
                p2p = sum(
                    steps * self.collective_time(c, g, s) for _, c, g, s in ring[variant] if c == "send_recv"
                )
                exposed[variant] = np.maximum(0.0, p2p - attn_time) + (total - p2p)
        take_q = self.resident(exposed["pass_q"]) < self.resident(exposed["pass_kv"])
        time = self.pick(take_q, exposed["pass_q"], exposed["pass_kv"])
        variant = self.pick(take_q, "pass_q", "pass_kv")
        if np.ndim(variant):
            variant = str(variant[0]) if np.all(variant == variant[0]) else "pass_kv|pass_q"
        return OpCost(
            gname,
            count,
            f"cp_ring_{variant}",
            "collective",
            0.0,
            0.0,
            0.0,
            time,
            "network",
            "send_recv",
            variant,
        )


@dataclass
class InferenceResult:
    """Metrics of one plan (validation README metric names in :meth:`metrics`)."""

    model: str
    hardware: str
    plan: Plan
    batch: int
    gpus: int
    ttft: float
    tpot: float
    e2e: float
    memory: dict[str, float]
    max_batch: int
    prefill: PhaseCost
    decode: PhaseCost
    math: tuple[str, str]
    formats: tuple[str, str, str]
    price_per_hour: float | None
    tdp: float
    notes: list[str] = field(default_factory=list)

    @property
    def output_tokens(self) -> int:
        return self.batch * self.plan.output_len

    def metrics(self) -> dict[str, Any]:
        """Metric values keyed by the validation README names (plus extras)."""
        out_tps = self.output_tokens / self.e2e
        if self.plan.disaggregated and self.plan.output_len > 1:
            # decode pool of a disaggregated deployment: prefill runs on the prefill pool, so this
            # pool's output rate is its decode rate, batch / TPOT (DistServe, Zhong et al. 2024 §2)
            out_tps = self.batch / self.tpot
        per_tok_s = 1.0 / out_tps
        m = {
            "ttft_s": self.ttft,
            "tpot_s": self.tpot,
            "e2e_latency_s": self.e2e,
            "output_tokens_per_s": out_tps,
            "output_tokens_per_s_per_gpu": out_tps / self.gpus,
            "input_tokens_per_s_per_gpu": self.batch * self.plan.prompt_len / self.ttft / self.gpus,
            "memory_gib_per_gpu": self.memory["total"] / GIB,
            "max_batch": self.max_batch,
            "usd_per_million_output_tokens": (
                E.usd_per_million_tokens(self.gpus, per_tok_s, 1.0, self.price_per_hour)
                if self.price_per_hour
                else None
            ),
            "joules_per_output_token": self.gpus * self.tdp * per_tok_s,
            "output_tokens_per_s_per_user": 1.0 / self.tpot,
        }
        return m


def _phase_groups(ev: Evaluator, phase: str) -> list[tuple[str, Any]]:
    from llmcost.graph import layer_groups

    return [(phase, g) for g in layer_groups(ev.spec, phase)]


def _prefill(ev: Evaluator, b: float, P: int, timed: bool = True) -> PhaseCost:
    """Prefill of ``b`` sequences of ``P`` tokens (encoder pass + first decoder step for enc-dec)."""
    if ev.spec.is_encoder_decoder:
        enc = ev.phase(
            _phase_groups(ev, "encoder"), "io__encoder__all", timed=timed, micro_batch=b, seq=P, ctx=P
        )
        dec = ev.phase(
            _phase_groups(ev, "forward"),
            "io__forward__last",
            timed=timed,
            micro_batch=b,
            seq=1,
            ctx=1,
            seq_enc=P,
        )
        return PhaseCost(enc.ops + dec.ops, dec.kv_bytes, enc.weight_bytes + dec.weight_bytes)
    return ev.phase(
        _phase_groups(ev, "forward"), "io__forward__last", timed=timed, micro_batch=b, seq=P, ctx=P
    )


def _decode(ev: Evaluator, b: float, ctx: Any, P: int, timed: bool = True) -> PhaseCost:
    enc = ev.spec.is_encoder_decoder
    return ev.phase(
        _phase_groups(ev, "decode"),
        "io__decode__last",
        timed=timed,
        micro_batch=b,
        ctx=ctx,
        seq=1,
        seq_enc=P if enc else 1,
    )


def _memory(ev: Evaluator, b_rep: Any, pre: PhaseCost) -> dict[str, Any]:
    """Per-device memory by component (bytes) at ``b_rep`` sequences per replica (a number, or an
    array of them: one value per element, the plans of ``ev`` when it holds several)."""
    p = ev.plan
    final = p.prompt_len + p.output_len
    ctx = 1 + p.output_len if ev.spec.is_encoder_decoder else final
    kv_phase = _decode(ev, b_rep, float(ctx), p.prompt_len, timed=False)
    ops = list(kv_phase.ops)
    if ev.spec.is_encoder_decoder:
        enc = ev.phase(
            _phase_groups(ev, "encoder"), "io__encoder__all", timed=False, micro_batch=1.0, seq=1.0, ctx=1.0
        )
        ops += [o for o in enc.ops if o.group != "io"]
    layer_w = sum(o.count * ev.resident(o.weight_bytes) for o in ops if o.group != "io")
    io_w = {o.name: ev.resident(o.weight_bytes) for o in ops if o.group == "io"}
    emb, lm = io_w.get("embedding", 0.0), io_w.get("lm_head", 0.0)
    # pp > 1: embedding on the first stage, head on the last: the fuller stage counts
    head = ev.pick(p.pp > 1, np.maximum(emb, lm), emb + lm)
    weights = layer_w / p.pp + head + io_w.get("final_norm", 0.0)
    kv = np.asarray(kv_phase.kv_bytes, dtype=float) / p.pp
    work = pre.workspace()
    usable = ev.hw.memory_usable
    reserved = RESERVED_FRACTION * usable
    return {
        "weights": weights,
        "kv_cache": kv,
        "activations": work,
        "reserved": reserved,
        "total": weights + kv + work + reserved,
        "usable": usable,
    }


def _micro(b_rep: Any, pp: int) -> Any:
    """Pipeline micro-batches ``m = min(b, pp)`` (at least 1), on numbers or arrays."""
    return np.maximum(1, np.minimum(b_rep, pp))


def _contexts(ev: Evaluator) -> np.ndarray:
    """Context of each decode step: ``prompt_len + 1 ... prompt_len + output_len − 1`` (one step
    at ``prompt_len + 1`` when one token is generated; decoder positions for enc-dec)."""
    p = ev.plan
    if p.output_len > 1:
        ctx = p.prompt_len + np.arange(1, p.output_len, dtype=float)
    else:
        ctx = np.array([p.prompt_len + 1.0])
    if ev.spec.is_encoder_decoder:
        ctx = ctx - p.prompt_len + 1
    return ctx


def _decode_steps(ev: Evaluator, mbs: Any) -> PhaseCost:
    """Every decode step of a micro-batch of ``mbs`` sequences (arrays: decode step x plan)."""
    ctx = _contexts(ev)
    return _decode(ev, mbs, ctx[:, None] if np.ndim(mbs) else ctx, ev.plan.prompt_len)


def bottleneck_phase(ev: Evaluator, b_rep: Any) -> PhaseCost:
    """The phase :func:`dominant` names a plan's bottleneck from, as :func:`serve` evaluates it:
    the decode steps, or the prefill when one token is generated."""
    p = ev.plan
    mbs = b_rep / _micro(b_rep, p.pp)
    return _decode_steps(ev, mbs) if p.output_len > 1 else _prefill(ev, mbs, p.prompt_len)


def serve(ev: Evaluator, b_rep: Any) -> dict[str, Any]:
    """TTFT, TPOT, end-to-end latency, memory by component and the two phases of ``ev``'s plan at
    ``b_rep`` sequences per replica: a number (:func:`cost`), or a 1-D array, one batch per plan
    when ``ev`` holds several plans (``llmcost search infer``): the one composition of both.

    PP: ``m = min(b, pp)`` micro-batches, ``TTFT = (m + p − 1)/p · T_fwd(b/m) + (p − 1)·T_p2p`` and
    ``TPOT = T_dec(b/m) + (p − 1)·T_p2p`` (GPipe fill, Huang et al. 2019); every
    decode step at its own context, ``prompt_len + 1 ... prompt_len + output_len − 1`` (static
    batching, TensorRT-LLM gptSessionBenchmark). With an array the decode steps run on the first
    axis and the plans on the last; each plan's steps are then summed in the same order as alone."""
    p, spec = ev.plan, ev.spec
    m = _micro(b_rep, p.pp)
    mbs = b_rep / m
    pre = _prefill(ev, mbs, p.prompt_len)
    mem = _memory(ev, b_rep, pre)
    # pp = 1: no pipeline degree, the p2p time is 0 (collective_time)
    tok = mbs * p.prompt_len / p.cp
    p2p = np.asarray(
        ev.collective_time("send_recv", "pp", tok * spec.hidden_size * ev.vals["b_r"]), dtype=float
    )
    ttft = (m + p.pp - 1) / p.pp * np.asarray(pre.time, dtype=float) + (p.pp - 1) * p2p
    ctx = _contexts(ev)
    many = np.ndim(mbs) > 0
    dec = _decode_steps(ev, mbs)
    p2p_d = np.asarray(
        ev.collective_time("send_recv", "pp", mbs * spec.hidden_size * ev.vals["b_r"]), dtype=float
    )
    steps = np.asarray(dec.time, dtype=float) + (p.pp - 1) * p2p_d
    steps = np.broadcast_to(steps, ctx.shape + np.shape(mbs))
    if many:  # plan x decode step, each plan's steps contiguous: summed as one plan's alone
        steps = np.ascontiguousarray(steps.T)
    tpot = np.mean(steps, axis=-1)
    e2e = ttft + (np.sum(steps, axis=-1) if p.output_len > 1 else 0.0)
    return {"ttft": ttft, "tpot": tpot, "e2e": e2e, "memory": mem, "prefill": pre, "decode": dec}


def largest_batch(ev: Evaluator) -> int:
    """Largest system batch (a multiple of dp) whose memory fits.

    Memory grows monotonically with the batch but is only piecewise affine (below ``pp``
    the micro-batch count changes with the batch), so the per-replica batch is found by
    doubling and then bisecting on the memory function itself.
    """
    p = ev.plan
    usable = ev.hw.memory_usable

    def fits(b_rep: int) -> bool:
        pre = _prefill(ev, b_rep / _micro(b_rep, p.pp), p.prompt_len, timed=False)  # its workspace
        return float(_memory(ev, float(b_rep), pre)["total"]) <= usable

    if not fits(1):
        return 0
    lo, hi = 1, 2
    while fits(hi):
        lo, hi = hi, hi * 2
        if hi > 2**30:
            return 10**9
    while hi - lo > 1:  # fits(lo) and not fits(hi)
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo * p.dp


def cost(model: str | dict[str, Any], hw: Hardware, plan: Plan) -> InferenceResult:
    """Cost ``plan`` for ``model`` on ``hw``; PlanError when it does not divide or does not fit."""
    spec = spec_of(model)
    ev = Evaluator(spec, hw, plan)
    p = plan
    notes: list[str] = [n for n in (R.context_note(spec, p.prompt_len + p.output_len),) if n]
    max_b = largest_batch(ev)
    batch = p.batch
    if batch is None:
        if max_b < p.dp:
            raise PlanError(f"{spec.name} does not fit on {p.devices} x {hw.id} even at batch {p.dp}")
        batch = max_b
        notes.append(f"batch not given: using the largest that fits, {batch}")
    b_rep = batch // p.dp
    r = serve(ev, b_rep)
    mem = {k: float(v) for k, v in r["memory"].items()}
    if mem["total"] > mem["usable"]:
        gib = GIB
        raise PlanError(
            f"does not fit: {mem['total'] / gib:.1f} GiB per GPU needed (weights {mem['weights'] / gib:.1f}, "
            f"KV {mem['kv_cache'] / gib:.1f}, activations {mem['activations'] / gib:.1f}, reserved "
            f"{mem['reserved'] / gib:.1f}) of {mem['usable'] / gib:.1f} GiB usable on {hw.id}; largest batch that "
            f"fits: {max_b}" + ("" if max_b else "; add GPUs (tp/pp) or quantize weights/KV")
        )
    ttft, tpot, e2e = float(r["ttft"]), float(r["tpot"]), float(r["e2e"])
    pre, dec = r["prefill"], r["decode"]
    if p.disaggregated:
        notes.append(
            "disaggregated: metrics are for this pool alone (KV transfer not costed)"
            + ("; decode pool: output tokens/s = batch / TPOT" if p.output_len > 1 else "")
        )
    notes += [n for n in (hw.assumed_note(),) if n]
    if spec.moe is not None and p.ep > 1 and spec.moe.num_experts % p.ep:
        E = spec.moe.num_experts
        notes.append(
            f"ep {p.ep} does not divide {E} experts: the busiest rank holds ceil({E}/{p.ep}) = "
            f"{-(-E // p.ep)} expert slots (redundant experts fill the slack, EPLB; assignments balanced)"
        )
    return InferenceResult(
        model=spec.name,
        hardware=hw.id,
        plan=p,
        batch=batch,
        gpus=p.devices,
        ttft=ttft,
        tpot=tpot,
        e2e=e2e,
        memory=mem,
        max_batch=max_b,
        prefill=pre,
        decode=dec,
        math=ev.math,
        formats=ev.formats,
        price_per_hour=hw.price_per_hour,
        tdp=hw.tdp,
        notes=notes,
    )


# ------------------------------------------------------------------------------ validation
METRICS = (
    "ttft_s",
    "tpot_s",
    "e2e_latency_s",
    "output_tokens_per_s",
    "output_tokens_per_s_per_gpu",
    "input_tokens_per_s_per_gpu",
    "memory_gib_per_gpu",
)


def evaluate_case(case: dict[str, Any], hw: Hardware) -> Any:
    """Validation evaluator for ``kind: infer`` (registered in :mod:`llmcost.validate`)."""
    from llmcost.validate import Prediction

    name = case["metric"]["name"]
    if name not in METRICS:
        return Prediction(None, f"metric '{name}' is not an inference metric ({', '.join(METRICS)})")
    if "model" not in case:
        raise UserError(f"case {case['id']}: an infer case needs a 'model'")
    plan = plan_from_dict(case.get("plan") or {}, case.get("cluster"))
    r = cost(case["model"], hw, plan)
    detail = {"batch": r.batch, "bound": _dominant(r), "math": "/".join(r.math)}
    return Prediction(float(r.metrics()[name]), detail=detail)


def _dominant(r: InferenceResult) -> str:
    """Kind of operator taking most of the decode step (or prefill when output_len is 1)."""
    return dominant(r.decode if r.plan.output_len > 1 else r.prefill)


def dominant(ph: PhaseCost) -> str:
    """Kind (and bound) of the operators taking most of the phase's time."""
    by: dict[str, float] = {}
    for o in ph.ops:
        key = "network" if o.kind == "collective" else f"{o.kind}:{np.atleast_1d(o.bound)[0]}"
        by[key] = by.get(key, 0.0) + o.count * float(np.mean(o.time))
    return max(by, key=by.__getitem__) if by else ""
