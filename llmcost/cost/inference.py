"""Inference cost of one plan: TTFT, TPOT, throughput, memory, money and energy (no sympy).

Workload (formulas.md §4, static batching as in TensorRT-LLM's gptSessionBenchmark): a batch
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
  (GPipe fill, Huang et al. 2019; formulas.md §4.5).
* memory per device: weights (layers / pp, plus embedding or head), KV cache at
  ``prompt_len + output_len``, activation workspace (the largest operator input + output of
  one prefill layer, one layer live at a time, plus fp32 logits), reserved runtime memory
  :data:`RESERVED_FRACTION` of usable memory.
* money and energy: ``$ / 1M output tokens = gpus·price·e2e / 3600 / (batch·output_len)·1e6``;
  ``J / output token = gpus·TDP·e2e / (batch·output_len)`` (formulas.md §8: TDP is an upper bound).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from llmcost import precision as Q
from llmcost.errors import PlanError, UserError
from llmcost.hardware import Hardware

T_KERNEL = 4e-6
"""Per-kernel overhead (s), ADDED to each operator's roofline time (:func:`llmcost.cost.roofline.roofline`;
formulas.md §1.2, §1.11: serial for dependent kernels): the gap between dependent kernels measured
in batch-1 decode, 2.5 µs per launch (FlashML-org/FreeToken PR #338, nsys: (143 − 44.7) µs / 39
launches) and 3.4 µs (turboderp-org/exllamav3 PR #380: 3.07 ms over 914 launches), plus ~1 µs of
GPU ramp-up / tail per kernel; inside formulas.md §1.2's '2-10 µs eager'. One figure for every
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
        w = Q.normalize(self.weights, "weights")
        a = (
            Q.normalize(self.activations, "activations")
            if self.activations
            else (w if w in ("bf16", "fp16") else "bf16")
        )
        kv = (
            Q.normalize(self.kv_cache, "kv_cache")
            if self.kv_cache
            else (a if a in ("bf16", "fp16", "fp8") else "bf16")
        )
        return w, a, kv


def _int(v: Any, key: str, minimum: int = 1) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or int(v) != v or v < minimum:
        raise UserError(f"plan key '{key}': expected an integer >= {minimum}, got {v!r}")
    return int(v)


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
    """A ModelSpec from a catalog id or an inline HF-style mapping."""
    from llmcost.modelspec import from_config

    if isinstance(model, dict):
        cfg = {k: v for k, v in model.items() if k != "name"}
        return from_config(cfg, where=f"inline model {model.get('name', '')}".strip())
    from llmcost.catalog import get_model_config

    return from_config(get_model_config(str(model)), where=f"models/{model}")


def check_plan(spec: Any, hw: Hardware, plan: Plan) -> None:
    """PlanError when the plan does not divide the model or the cluster."""
    tp, pp, ep, dp, cp = plan.tp, plan.pp, plan.ep, plan.dp, plan.cp
    if plan.gpus is not None and plan.gpus != plan.devices:
        raise PlanError(
            f"{plan.gpus} GPUs but tp*pp*dp*cp = {tp}*{pp}*{dp}*{cp} = {plan.devices}; "
            "make the product equal the GPU count"
        )
    if spec.num_heads % tp:
        raise PlanError(
            f"{spec.num_heads} attention heads do not divide by tp {tp}; use a tp dividing {spec.num_heads}"
        )
    kv = spec.num_kv_heads
    if spec.mla is None and (kv % tp if tp <= kv else tp % kv):
        raise PlanError(f"{kv} KV heads and tp {tp}: tp must divide the KV heads or be a multiple of them")
    layers = [spec.num_layers] + ([spec.num_encoder_layers] if spec.is_encoder_decoder else [])
    for n in layers:
        if n % pp:
            raise PlanError(f"{n} layers do not divide into pp {pp} stages; use a pp dividing {n}")
    if ep > 1:
        if spec.moe is None:
            raise PlanError(f"ep {ep} needs a mixture-of-experts model; {spec.name} is dense (use ep 1)")
        if ep > spec.moe.num_experts:
            raise PlanError(
                f"ep {ep} exceeds the {spec.moe.num_experts} experts (each rank holds at least one "
                f"expert); use ep <= {spec.moe.num_experts}"
            )
        if (dp * tp) % ep or ep % tp:
            raise PlanError(
                f"ep {ep} must span whole TP groups within dp*tp = {dp * tp} ranks "
                f"(ep a multiple of tp {tp} dividing {dp * tp})"
            )
    if cp > 1 and spec.is_encoder_decoder:
        raise PlanError("context parallelism is not modelled for encoder-decoder models; use cp 1")
    if plan.batch is not None and plan.batch % dp:
        raise PlanError(f"batch {plan.batch} does not divide over dp {dp} replicas; use a multiple of {dp}")
    if plan.output_len < 1 or plan.prompt_len < 1:
        raise PlanError("prompt_len and output_len must be at least 1")
    if plan.gpus_per_node is not None and plan.gpus_per_node < 1:
        raise PlanError("gpus_per_node must be positive")


# ------------------------------------------------------------------------------ evaluation
def _generated(shape: str) -> tuple[Any, tuple[str, ...], tuple[tuple[Any, ...], ...]]:
    from llmcost.cost import _inference_generated as gen

    fn, names, _ = gen.FUNCTIONS[shape]
    return fn, names, gen.LAYOUTS[shape]


@dataclass
class OpCost:
    """One operator's quantities and time (per occurrence; arrays over decode steps)."""

    group: str
    count: int
    name: str
    kind: str
    flops: Any
    hbm_bytes: Any
    weight_bytes: Any
    time: Any
    bound: Any
    comm: str | None = None
    variant: str | None = None


@dataclass
class PhaseCost:
    """All operators of one evaluation of a phase, and their time summed over the model."""

    ops: list[OpCost]
    kv_bytes: Any
    weight_bytes: float

    @property
    def time(self) -> Any:
        return sum(o.count * o.time for o in self.ops)

    def workspace(self) -> Any:
        """Largest activation input + output of one operator (weights excluded); per batch element
        when the phase was evaluated on an array of micro-batches."""
        acts = [
            np.asarray(o.hbm_bytes - o.weight_bytes, dtype=float) for o in self.ops if o.kind != "collective"
        ]
        if not acts:
            return 0.0
        return np.maximum(0.0, np.max(np.stack(np.broadcast_arrays(*acts)), axis=0))


class Evaluator:
    """Everything fixed for one (model, hardware, plan): values, peaks, placement."""

    def __init__(self, spec: Any, hw: Hardware, plan: Plan) -> None:
        from llmcost import graph as G

        check_plan(spec, hw, plan)
        self.spec, self.hw, self.plan = spec, hw, plan
        w, a, kv = plan.formats()
        self.formats = (w, a, kv)
        gm = Q.gemm_math(w, a)
        att = Q.attention_math(kv, a)
        self.peak_mm = Q.require(hw.peak, gm.math, hw.id, f"{w} weights x {a} activations")
        self.peak_attn = Q.require(hw.peak, att, hw.id, f"attention with a {kv} KV cache")
        self.peak_vec = hw.peak[Q.vector_dtype(hw.peak)]
        self.math = (gm.math, att)
        self.eta_mm = hw.gemm_efficiency(gm.math)  # efficiency.compute_<dtype> (fp8 GEMMs...), else compute
        self.eta_attn = hw.attention_efficiency(att)  # efficiency.attention, else the GEMM figure
        ba = Q.BYTES[a]
        self.vals: dict[str, Any] = G.model_values(spec)
        self.vals.update(
            tp=plan.tp,
            cp=plan.cp,
            ep=plan.ep,
            etp=plan.tp if plan.ep == 1 else 1,
            b_w=Q.BYTES[w],
            b_a=ba,
            b_kv=Q.BYTES[kv],
            b_r=max(ba, 2.0),
            c_dq=Q.C_DQ if gm.weight_only else 0.0,
            seq_enc=1.0,
            ctx=1.0,
            seq=1.0,
            micro_batch=1.0,
        )
        node = plan.gpus_per_node or hw.node_devices or 1
        self.node = node
        self.groups = {"decoder": G.layer_groups(spec, "forward")}
        self._coll_cache: dict[tuple[str, str, bytes], Any] = {}

    # -- collectives ----------------------------------------------------------------------
    def degree(self, group: str) -> int:
        return {"tp": self.plan.tp, "ep": self.plan.ep, "cp": self.plan.cp, "pp": 2}[group]

    def _gpn(self, size: int, stride: int) -> int:
        per = max(1, self.node // stride) if stride < self.node else 1
        return math.gcd(size, per)

    def collective_time(self, comm: str, group: str, size: Any) -> Any:
        """Time of one collective of ``size`` bytes per rank over ``group`` (arrays allowed)."""
        from llmcost.cost.collectives import collective

        d = self.degree(group)
        arr = np.asarray(size, dtype=float)
        if d <= 1 or not np.any(arr > 0):
            return np.zeros_like(arr) if arr.ndim else 0.0
        p = self.plan
        stride = {"tp": 1, "ep": 1, "cp": p.tp, "pp": p.tp * p.cp * p.dp}[group]
        gpus = 2 if comm == "send_recv" else d
        gpn = self._gpn(gpus, stride)
        safe = np.where(arr > 0, arr, 1.0)
        r = collective(self.hw, comm, safe if arr.ndim else float(safe), gpus, gpn)
        return np.where(arr > 0, r.time, 0.0) if arr.ndim else float(r.time)

    # -- operators ------------------------------------------------------------------------
    def phase(self, shape_of: list[tuple[str, Any]], io: str, **workload: Any) -> PhaseCost:
        """Evaluate layer groups [(shape, GroupInfo)] and the io shape at ``workload`` values."""
        from llmcost.cost.roofline import roofline
        from llmcost.graph import window_value

        vals = dict(self.vals, **workload)
        ops: list[OpCost] = []
        kv_total: Any = 0.0
        weights = 0.0
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
                peak = (
                    self.peak_mm
                    if kind in _MM_KINDS
                    else self.peak_attn
                    if kind == "attention"
                    else self.peak_vec
                )
                fl_eq = fl + dq * (peak / self.peak_vec)
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
                    t_launch=np.where(np.asarray(hb) > 0, T_KERNEL, 0.0),
                )
                ops.append(OpCost(gname, count, name, kind, fl, hb, wb, r.time, r.bound))
                weights += count * float(np.max(wb))
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
        best: tuple[Any, str] | None = None
        for variant in ("pass_kv", "pass_q"):
            total: Any = 0.0
            for _, comm, group, sz in ring[variant]:
                t = self.collective_time(comm, group, sz)
                total = total + (steps * t if comm == "send_recv" else t)
            exposed = np.maximum(0.0, total - attn_time) if variant == "pass_kv" else total
            if variant == "pass_q":  # the return all-to-all is not overlapped; the ring steps are
                p2p = sum(
                    steps * self.collective_time(c, g, s) for _, c, g, s in ring[variant] if c == "send_recv"
                )
                exposed = np.maximum(0.0, p2p - attn_time) + (total - p2p)
            if best is None or float(np.max(exposed)) < float(np.max(best[0])):
                best = (exposed, variant)
        assert best is not None
        return OpCost(
            gname,
            count,
            f"cp_ring_{best[1]}",
            "collective",
            0.0,
            0.0,
            0.0,
            best[0],
            "network",
            "send_recv",
            best[1],
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
            "memory_gib_per_gpu": self.memory["total"] / 2**30,
            "max_batch": self.max_batch,
            "usd_per_million_output_tokens": (
                self.price_per_hour * self.gpus * per_tok_s / 3600 * 1e6 if self.price_per_hour else None
            ),
            "joules_per_output_token": self.gpus * self.tdp * per_tok_s,
            "output_tokens_per_s_per_user": 1.0 / self.tpot,
        }
        return m


def _phase_groups(ev: Evaluator, phase: str) -> list[tuple[str, Any]]:
    from llmcost.graph import layer_groups

    return [(phase, g) for g in layer_groups(ev.spec, phase)]


def _prefill(ev: Evaluator, b: float, P: int) -> PhaseCost:
    """Prefill of ``b`` sequences of ``P`` tokens (encoder pass + first decoder step for enc-dec)."""
    if ev.spec.is_encoder_decoder:
        enc = ev.phase(_phase_groups(ev, "encoder"), "io__encoder__all", micro_batch=b, seq=P, ctx=P)
        dec = ev.phase(
            _phase_groups(ev, "forward"), "io__forward__last", micro_batch=b, seq=1, ctx=1, seq_enc=P
        )
        return PhaseCost(enc.ops + dec.ops, dec.kv_bytes, enc.weight_bytes + dec.weight_bytes)
    return ev.phase(_phase_groups(ev, "forward"), "io__forward__last", micro_batch=b, seq=P, ctx=P)


def _decode(ev: Evaluator, b: float, ctx: Any, P: int) -> PhaseCost:
    enc = ev.spec.is_encoder_decoder
    return ev.phase(
        _phase_groups(ev, "decode"),
        "io__decode__last",
        micro_batch=b,
        ctx=ctx,
        seq=1,
        seq_enc=P if enc else 1,
    )


def _memory(ev: Evaluator, b_rep: Any, pre: PhaseCost) -> dict[str, Any]:
    """Per-device memory by component (bytes) at ``b_rep`` sequences per replica (a number, or an
    array of them: one value per element)."""
    p = ev.plan
    final = p.prompt_len + p.output_len
    ctx = 1 + p.output_len if ev.spec.is_encoder_decoder else final
    kv_phase = _decode(ev, b_rep, float(ctx), p.prompt_len)
    ops = list(kv_phase.ops)
    if ev.spec.is_encoder_decoder:
        enc = ev.phase(_phase_groups(ev, "encoder"), "io__encoder__all", micro_batch=1.0, seq=1.0, ctx=1.0)
        ops += [o for o in enc.ops if o.group != "io"]
    layer_w = sum(o.count * float(np.max(o.weight_bytes)) for o in ops if o.group != "io")
    io_w = {o.name: float(np.max(o.weight_bytes)) for o in ops if o.group == "io"}
    head = io_w.get("embedding", 0.0) + io_w.get("lm_head", 0.0)
    if p.pp > 1:  # embedding on the first stage, head on the last: the fuller stage counts
        head = max(io_w.get("embedding", 0.0), io_w.get("lm_head", 0.0))
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


def serve(ev: Evaluator, b_rep: Any) -> dict[str, Any]:
    """TTFT, TPOT, end-to-end latency, memory by component and the two phases of ``ev``'s plan at
    ``b_rep`` sequences per replica: a number (:func:`cost`) or an array of them (``llmcost search
    infer``), the one composition of both.

    PP: ``m = min(b, pp)`` micro-batches, ``TTFT = (m + p − 1)/p · T_fwd(b/m) + (p − 1)·T_p2p`` and
    ``TPOT = T_dec(b/m) + (p − 1)·T_p2p`` (GPipe fill, Huang et al. 2019; formulas.md §4.5); every
    decode step at its own context, ``prompt_len + 1 ... prompt_len + output_len − 1`` (static
    batching, TensorRT-LLM gptSessionBenchmark)."""
    p, spec = ev.plan, ev.spec
    m = _micro(b_rep, p.pp)
    mbs = b_rep / m
    pre = _prefill(ev, mbs, p.prompt_len)
    mem = _memory(ev, b_rep, pre)
    p2p: Any = 0.0
    if p.pp > 1:
        tok = mbs * p.prompt_len / p.cp
        p2p = np.asarray(
            ev.collective_time("send_recv", "pp", tok * spec.hidden_size * ev.vals["b_r"]), dtype=float
        )
    ttft = (m + p.pp - 1) / p.pp * np.asarray(pre.time, dtype=float) + (p.pp - 1) * p2p
    if p.output_len > 1:
        ctx = p.prompt_len + np.arange(1, p.output_len, dtype=float)
    else:
        ctx = np.array([p.prompt_len + 1.0])
    if spec.is_encoder_decoder:
        ctx = ctx - p.prompt_len + 1
    col = (lambda x: x) if np.ndim(mbs) == 0 else (lambda x: np.asarray(x)[..., None])  # batch x decode step
    dec = _decode(ev, col(mbs), ctx, p.prompt_len)
    p2p_d: Any = 0.0
    if p.pp > 1:
        p2p_d = np.asarray(
            ev.collective_time("send_recv", "pp", mbs * spec.hidden_size * ev.vals["b_r"]), dtype=float
        )
    steps = np.asarray(dec.time, dtype=float) + (p.pp - 1) * col(p2p_d)
    steps = np.broadcast_to(steps, np.shape(mbs) + ctx.shape)
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
        pre = _prefill(ev, b_rep / _micro(b_rep, p.pp), p.prompt_len)
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
    notes: list[str] = []
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
        gib = 2**30
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
    ph = r.decode if r.plan.output_len > 1 else r.prefill
    by: dict[str, float] = {}
    for o in ph.ops:
        key = "network" if o.kind == "collective" else f"{o.kind}:{np.atleast_1d(o.bound)[0]}"
        by[key] = by.get(key, 0.0) + o.count * float(np.mean(o.time))
    return max(by, key=by.__getitem__) if by else ""
