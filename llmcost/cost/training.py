"""Training step time, FLOPs, MFU / HFU and memory per device for one plan (runtime: no sympy).

The quantities are the expressions of :mod:`llmcost.cost.training_formulas`, evaluated through
the generated numpy module; their inputs are computed here:

* compute per micro-batch and device: per-operator roofline of the forward, backward and
  recomputation of every layer of the busiest pipeline stage (:mod:`.train_compute`);
* communication: collective times over the cluster's fabric tiers (:mod:`.collectives`), with
  the groups placed Megatron-style, tensor parallel innermost, then context, data (experts
  within it) and pipeline outermost (Narayanan 2021 §3.3: TP within a node);
* memory: :mod:`.train_memory`.

What overlaps and what is exposed (reported separately in :class:`TrainResult`):

* TP (all-reduce, or reduce-scatter + all-gather with sequence parallel), EP all-to-all and
  pipeline send/recv: exposed (on the critical path; no TP comm overlap modelled);
* CP ring KV exchange: overlapped with the attention of each ring step, the excess exposed;
* DP gradient reduction: bucketed, overlapped with the last micro-batch's backward (and the
  distributed optimizer's parameter all-gather with the next forward); the last bucket and
  anything longer than the backward is exposed (``overlap_dp: false`` exposes all of it);
* ZeRO-3 gathers / reduce-scatters: prefetched under each micro-batch's compute;
* optimizer step and host offload: exposed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from llmcost.cost import _training_generated as G
from llmcost.cost import train_compute as TC
from llmcost.cost.train_compute import LayerCost, Machine
from llmcost.errors import PlanError, UserError
from llmcost.graph import model_values
from llmcost.hardware import Hardware
from llmcost.modelspec import ModelSpec

RECOMPUTE = ("none", "selective", "full")
SCHEDULES = ("1f1b", "interleaved", "gpipe", "zero_bubble")
PRECISIONS = ("bf16", "fp16", "fp8", "fp4")
OFFLOAD = ("none", "cpu", "nvme")
BUCKET_PARAMS = 40_000_000
"""Gradient bucket size in parameters: Megatron-LM DDP default ``bucket_size = max(40M, 1M·dp)``
(megatron/core/distributed/distributed_data_parallel.py)."""
_PLAN_KEYS = ("tp", "pp", "dp", "cp", "ep", "sp", "zero", "distributed_optimizer", "micro_batch", "global_batch",
              "seq_len", "recompute", "schedule", "virtual_stages", "precision", "tokens", "gpus", "gpus_per_node",
              "attention", "overlap_dp", "offload")


@dataclass(frozen=True)
class TrainPlan:
    """A training plan: parallel degrees, batch, recompute, schedule and precision.

    Keys follow the validation README's train plan keys; ``dp`` defaults to what the GPU count
    leaves, ``sp`` to ``tp > 1``, ``global_batch`` to ``dp·micro_batch``.
    """

    gpus: int
    tp: int = 1
    pp: int = 1
    dp: int | None = None
    cp: int = 1
    ep: int = 1
    sp: bool | None = None
    zero: int = 0
    distributed_optimizer: bool = False
    micro_batch: int = 1
    global_batch: int | None = None
    seq_len: int | None = None
    recompute: str = "none"
    schedule: str = "1f1b"
    virtual_stages: int | None = None
    precision: str = "bf16"
    tokens: float | None = None
    gpus_per_node: int | None = None
    attention: str = "auto"  # 'flash' | 'materialized' | 'auto' (see :func:`check`)
    overlap_dp: bool = True
    offload: str = "none"

    @classmethod
    def from_mapping(cls, plan: dict[str, Any], gpus: int | None = None, gpus_per_node: int | None = None) -> TrainPlan:
        """Plan from validation-README keys (``zero: fsdp`` = 3); unknown keys are an error."""
        kw: dict[str, Any] = {}
        for k, v in (plan or {}).items():
            if k not in _PLAN_KEYS:
                from llmcost.errors import did_you_mean

                raise UserError(f"plan key '{k}' is not a train plan key{did_you_mean(k, _PLAN_KEYS)}")
            if v is not None:
                kw[k] = v
        if kw.get("zero") == "fsdp":
            kw["zero"] = 3
        if gpus is not None:
            kw.setdefault("gpus", gpus)
        if gpus_per_node is not None:
            kw.setdefault("gpus_per_node", gpus_per_node)
        if "gpus" not in kw:
            deg = [int(kw.get(k) or 1) for k in ("tp", "pp", "dp", "cp")]
            kw["gpus"] = math.prod(deg)
        try:
            return cls(**kw)
        except TypeError as e:
            raise UserError(f"bad train plan: {e}") from None


@dataclass
class Layout:
    """A checked plan with everything derived: degrees, micro-batches, stage layers."""

    plan: TrainPlan
    tp: int
    pp: int
    dp: int
    cp: int
    ep: int
    sp: bool
    v: int
    m: int
    seq: int
    global_batch: int
    stage_layers: list[list[int]]  # layer indices per pipeline stage (all chunks of a device)
    gpn: int
    flash: bool


def _int(v: Any, name: str, minimum: int = 1) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        raise PlanError(f"{name} must be an integer >= {minimum}, got {v!r}")
    return v


def _layers(spec: ModelSpec) -> list[tuple[str, int]]:
    """Layers in pipeline order: encoder layers then decoder layers, as (stack, index)."""
    return [("enc", i) for i in range(spec.num_encoder_layers)] + [("dec", i) for i in range(spec.num_layers)]


def check(spec: ModelSpec, plan: TrainPlan, hw: Hardware) -> Layout:
    """Validate ``plan`` against the model and hardware; PlanError with the reason otherwise."""
    gpus = _int(plan.gpus, "gpus")
    tp, pp, cp, ep = (_int(getattr(plan, k), k) for k in ("tp", "pp", "cp", "ep"))
    mp = tp * pp * cp
    if plan.dp is None:
        if gpus % mp:
            raise PlanError(f"{gpus} GPUs do not divide by tp*pp*cp = {mp}")
        dp = gpus // mp
    else:
        dp = _int(plan.dp, "dp")
    if tp * pp * dp * cp != gpus:
        raise PlanError(f"gpus ({gpus}) must equal tp*pp*dp*cp = {tp}*{pp}*{dp}*{cp} = {tp * pp * dp * cp}")
    if spec.num_heads % tp:
        raise PlanError(f"{spec.num_heads} attention heads do not divide by tp={tp}")
    if spec.num_kv_heads % tp and tp % spec.num_kv_heads:
        raise PlanError(f"{spec.num_kv_heads} KV heads and tp={tp}: one must divide the other")
    if spec.is_moe:
        assert spec.moe is not None
        if spec.moe.num_experts % ep:
            raise PlanError(f"{spec.moe.num_experts} experts do not divide by ep={ep}")
        if (dp * cp) % ep:
            raise PlanError(f"ep={ep} must divide dp*cp={dp * cp} (experts are sharded within data parallel)")
    elif ep != 1:
        raise PlanError(f"ep={ep} needs a MoE model; {spec.name} is dense")
    if plan.recompute not in RECOMPUTE:
        raise PlanError(f"recompute '{plan.recompute}': use one of {', '.join(RECOMPUTE)}")
    if plan.schedule not in SCHEDULES:
        raise PlanError(f"schedule '{plan.schedule}': use one of {', '.join(SCHEDULES)}")
    if plan.precision not in PRECISIONS:
        raise PlanError(f"precision '{plan.precision}': use one of {', '.join(PRECISIONS)}")
    if plan.precision not in hw.peak:
        have = ", ".join(d for d in PRECISIONS if d in hw.peak)
        raise PlanError(f"{hw.id} has no {plan.precision} compute; it trains in {have}")
    if plan.offload not in OFFLOAD:
        raise PlanError(f"offload '{plan.offload}': use one of {', '.join(OFFLOAD)}")
    zero = plan.zero
    if isinstance(zero, bool) or zero not in (0, 1, 2, 3):
        raise PlanError(f"zero must be 0, 1, 2, 3 or fsdp, got {zero!r}")
    if zero and plan.distributed_optimizer:
        raise PlanError("use either zero (DeepSpeed/FSDP) or distributed_optimizer (Megatron), not both")
    if zero == 3 and pp > 1:
        raise PlanError("ZeRO-3 with pipeline parallelism is not supported (parameters regathered per stage)")
    if plan.offload != "none" and zero == 0:
        raise PlanError("offload needs ZeRO (zero >= 1): ZeRO-Offload partitions the optimizer state to the host")
    v = 1
    if plan.schedule == "interleaved":
        v = _int(plan.virtual_stages if plan.virtual_stages is not None else 2, "virtual_stages")
        if pp == 1:
            raise PlanError("the interleaved schedule needs pp > 1")
    elif plan.virtual_stages not in (None, 1):
        raise PlanError(f"virtual_stages={plan.virtual_stages} needs schedule interleaved")
    layers = _layers(spec)
    n = len(layers)
    chunks = pp * v
    if n < chunks:
        raise PlanError(f"{n} layers cannot fill pp*v = {chunks} pipeline chunks")
    short = -n % chunks
    if short > 2:
        raise PlanError(f"{n} layers do not divide over pp*v = {chunks} chunks (only the first and last "
                        "chunk may hold one layer fewer, Megatron --decoder-first/last-pipeline-num-layers)")
    stage_layers = split_layers(n, pp, v)
    mb = _int(plan.micro_batch, "micro_batch")
    gb = plan.global_batch if plan.global_batch is not None else dp * mb
    gb = _int(gb, "global_batch")
    if gb % (dp * mb):
        raise PlanError(f"global_batch {gb} does not divide by dp*micro_batch = {dp}*{mb}")
    m = gb // (dp * mb)
    if plan.schedule == "interleaved" and m % pp:
        raise PlanError(f"the interleaved schedule needs micro-batches ({m}) divisible by pp ({pp})")
    seq = plan.seq_len if plan.seq_len is not None else min(spec.max_position_embeddings or 4096, 4096)
    seq = _int(seq, "seq_len")
    if cp > 1 and seq % (2 * cp):
        raise PlanError(f"seq_len {seq} must divide by 2*cp = {2 * cp} (load-balanced context parallel)")
    sp = plan.sp if plan.sp is not None else tp > 1
    if sp and tp == 1:
        sp = False
    node = plan.gpus_per_node or hw.node_devices or 1
    node = max(1, min(node, gpus))
    if gpus % node:
        raise PlanError(f"{gpus} GPUs do not divide into nodes of {node}")
    if plan.attention not in ("auto", "flash", "materialized"):
        raise PlanError(f"attention '{plan.attention}': use auto, flash or materialized")
    # auto: selective recomputation exists to recompute a materialized score matrix (Korthikanti
    # 2022 §5), and the dropout-trained GPT-2/3-style Megatron configs use Megatron's fused
    # scale-mask-softmax-dropout kernel on materialized scores; other models FlashAttention.
    # When the materialized scores do not fit in memory, :func:`evaluate` costs FlashAttention.
    flash = plan.attention == "flash" or (
        plan.attention == "auto" and plan.recompute != "selective" and not uses_dropout(spec))
    return Layout(plan, tp, pp, dp, cp, ep, bool(sp), v, m, seq, gb, stage_layers, node, flash)


def _fit_hint(plan: TrainPlan, memory: dict[str, float]) -> str:
    """What would shrink the largest memory component (one suggestion line for the error)."""
    big = max(memory, key=lambda k: memory[k])
    if big in ("optimizer", "gradients") and plan.zero < 3 and not plan.distributed_optimizer:
        return "shard the optimizer state (--zero 1/2/3 or --distributed-optimizer) or raise tp/pp"
    if big == "activations" and plan.recompute != "full":
        return "recompute activations (--recompute selective/full), lower --micro-batch, or raise tp/cp"
    return "raise tp/pp (or ep for MoE), or use more GPUs"


def split_layers(n: int, pp: int, v: int) -> list[list[int]]:
    """Layer indices per pipeline stage for ``n`` layers over ``pp·v`` chunks, chunk ``c`` on stage
    ``c mod pp``; the last chunk, then the first, hold one layer fewer when ``pp·v`` does not
    divide ``n`` (the caller checks that at most 2 are short)."""
    chunks = pp * v
    short = -n % chunks
    per = -(-n // chunks)
    sizes = [per] * chunks
    for i in range(short):  # the last chunk, then the first, hold one fewer
        sizes[-1 if i == 0 else 0] -= 1
    bounds = [sum(sizes[:i]) for i in range(chunks + 1)]
    stage_layers: list[list[int]] = [[] for _ in range(pp)]
    for c in range(chunks):
        stage_layers[c % pp].extend(range(bounds[c], bounds[c + 1]))
    return stage_layers


# --- communication -------------------------------------------------------------------------------
def _group_gpn(lay: Layout, group: int, stride: int) -> int:
    """Ranks of a group (rank stride ``stride``) that share a node."""
    if stride >= lay.gpn:
        return 1
    return math.gcd(max(1, lay.gpn // stride), group)


def _coll(hw: Hardware, op: str, size: float, group: int, gpn: int) -> float:
    if group < 2 or size <= 0:
        return 0.0
    from llmcost.cost.collectives import collective

    return float(collective(hw, op, float(size), group, gpn).time)


@dataclass
class TrainResult:
    """Everything ``llmcost train`` reports for one plan (SI units; per device unless stated)."""

    step_time: float
    breakdown: dict[str, float]
    memory: dict[str, float]
    model_flops_step: float
    hw_flops_step: float
    tokens_step: float
    gpus: int
    peak: float
    layout: Layout
    notes: list[str] = field(default_factory=list)
    values: dict[str, float] = field(default_factory=dict)  # symbol values of the step expression

    @property
    def tokens_per_s(self) -> float:
        return float(G.tokens_per_s(self.step_time, self.tokens_step))

    @property
    def mfu(self) -> float:
        return float(G.mfu(self.model_flops_step, self.gpus, self.peak, self.step_time))

    @property
    def hfu(self) -> float:
        return float(G.mfu(self.hw_flops_step, self.gpus, self.peak, self.step_time))

    @property
    def model_tflops_per_gpu(self) -> float:
        return float(G.tflops_per_gpu(self.model_flops_step, self.gpus, self.step_time)) / 1e12

    @property
    def hardware_tflops_per_gpu(self) -> float:
        return float(G.tflops_per_gpu(self.hw_flops_step, self.gpus, self.step_time)) / 1e12

    @property
    def memory_total(self) -> float:
        return sum(self.memory.values())

    def metrics(self) -> dict[str, float]:
        """The validation README's train metric names (per step)."""
        return {
            "iteration_time_s": self.step_time,
            "tokens_per_s_per_gpu": self.tokens_per_s / self.gpus,
            "model_tflops_per_gpu": self.model_tflops_per_gpu,
            "hardware_tflops_per_gpu": self.hardware_tflops_per_gpu,
            "mfu": self.mfu,
            "hfu": self.hfu,
            "memory_gib_per_gpu": self.memory_total / 2**30,
        }


def uses_dropout(spec: ModelSpec) -> bool:
    """GPT-2/3-style configs train with dropout 0.1 (Megatron-LM and GPT-2 defaults; Korthikanti
    2022 counts its masks); modern configs (Llama, Qwen, ...) set it to 0."""
    return spec.model_type in ("gpt", "gpt2", "opt", "bloom")


def machine(hw: Hardware, precision: str) -> Machine:
    """Peaks and efficiencies that price operators: GEMMs at the training precision's peak,
    attention at 16-bit unless the precision is 16-bit (FP8 training keeps attention in bf16;
    Transformer Engine), elementwise work at the vector peak. Efficiencies are the catalog's, the
    same as inference (:meth:`Hardware.gemm_efficiency` of the GEMM datatype,
    :meth:`Hardware.attention_efficiency` for fused attention; a materialized attention runs as
    GEMMs, :func:`llmcost.cost.train_compute.layer_cost`); per-kernel floor as inference."""
    from llmcost import precision as Q
    from llmcost.cost.inference import T_KERNEL

    attn = precision if precision in ("bf16", "fp16") else ("bf16" if "bf16" in hw.peak else precision)
    return Machine(peak_mm=hw.peak[precision], peak_attn=hw.peak.get(attn, hw.peak[precision]),
                   peak_vec=hw.peak[Q.vector_dtype(hw.peak)], eta_c=hw.gemm_efficiency(precision),
                   eta_attn=hw.attention_efficiency(attn), mem_bw=hw.memory_bandwidth,
                   eta_m=hw.memory_efficiency, t_kernel=T_KERNEL)


def _precision_bytes(lay: Layout) -> tuple[float, float, float, float]:
    """(b_w, b_g, b_o, b_a): bytes per weight, gradient, optimizer-state parameter, activation.

    Megatron (zero 0, with or without the distributed optimizer; [MEG-distopt] table): bf16/fp8
    keep fp32 main gradients (b_g 4) and fp32 master + Adam (12); fp16 keeps fp16 gradients and
    an fp32 gradient copy in the optimizer (16). ZeRO / FSDP (Rajbhandari 2020 §3): gradients in
    the parameter dtype (2) and 12 bytes of optimizer state. FP8 / FP4 training keeps bf16
    weights and activations between layers (Transformer Engine; NVIDIA FP8 primer)."""
    if lay.plan.zero:
        return 2.0, 2.0, 12.0, 2.0
    if lay.plan.precision == "fp16":
        return 2.0, 2.0, 16.0, 2.0
    return 2.0, 4.0, 12.0, 2.0


def evaluate(spec: ModelSpec, plan: TrainPlan, hw: Hardware, *, check_memory: bool = False) -> TrainResult:
    """Step time, FLOPs, MFU/HFU and memory per device of ``plan`` (see the module docstring)."""
    from llmcost.cost import train_memory as TM

    lay = check(spec, plan, hw)
    tp, pp, dp, cp, ep, v, m, seq = lay.tp, lay.pp, lay.dp, lay.cp, lay.ep, lay.v, lay.m, lay.seq
    b = lay.plan.micro_batch
    peak = hw.peak[plan.precision]
    eta_m, bw = hw.memory_efficiency, hw.memory_bandwidth
    b_w, b_g, b_o, b_a = _precision_bytes(lay)
    t_sp = tp if lay.sp else 1
    tokens_dev = b * seq / cp
    h = spec.hidden_size
    dropout = uses_dropout(spec)
    mach = machine(hw, plan.precision)
    vals = model_values(spec)
    vals.update(tp=tp, cp=cp, ep=ep, etp=tp if ep == 1 else 1, b_w=b_w, b_a=b_a, b_kv=b_a, b_r=max(b_a, 2.0),
                c_dq=0.0, seq=seq, micro_batch=b, ctx=seq, seq_enc=seq)
    layers = _layers(spec)
    cache: dict[tuple[str, int | None], LayerCost] = {}

    def lcost(idx: int) -> LayerCost:
        stack, i = layers[idx]
        shape, win = TC.layer_shape(spec, stack, i)
        key = (shape, win)
        if key not in cache:
            ops = TC.graph_ops(shape, win, vals)
            s_kv = min(seq, win) if win else seq
            ops = TC.training_ops(ops, causal=stack == "dec", flash=lay.flash, dropout=dropout, t_sp=t_sp,
                                  tokens=tokens_dev, h=h, heads=spec.num_heads / tp, seq_kv=s_kv, b_a=b_a)
            cache[key] = TC.layer_cost(ops, plan.recompute, mach, lay.flash)
        return cache[key]

    # --- communication per layer per micro-batch (sizes from the graph's collective ops) -------
    passes = 2 + (1 if plan.recompute == "full" else 0)  # forward, backward (+ recomputed forward)
    gpn_tp = _group_gpn(lay, tp, 1)
    gpn_cp = _group_gpn(lay, cp, tp)
    gpn_ep = _group_gpn(lay, ep, tp * cp)
    ccache: dict[tuple[str, float, int, int], float] = {}

    def coll(op: str, size: float, group: int, gpn: int) -> float:
        key = (op, size, group, gpn)
        if key not in ccache:
            ccache[key] = _coll(hw, op, size, group, gpn)
        return ccache[key]

    def layer_comm(lc: LayerCost) -> tuple[float, float, float]:
        t_tp = t_cp = t_ep = 0.0
        for o in lc.collectives():
            if o.size <= 0:
                continue
            if o.group == "tp" and tp > 1:
                # Megatron TP: all-reduce per block forward and backward; with sequence parallel a
                # reduce-scatter + all-gather of the same volume (Korthikanti 2022 §4.2.2)
                one = (coll("all_gather", o.size, tp, gpn_tp) + coll("reduce_scatter", o.size, tp, gpn_tp)
                       if lay.sp else coll("all_reduce", o.size, tp, gpn_tp))
                t_tp += passes * one
            elif o.group == "cp" and cp > 1 and o.variant == "pass_kv":
                # ring attention (Megatron CP): c-1 K,V steps forward, K,V + dK,dV backward, each
                # step hidden behind the attention of the previous one (formulas.md §3.6)
                fwd = (cp - 1) * coll("send_recv", o.size, 2, min(2, gpn_cp))
                t_cp += max(0.0, fwd - lc.t_attn_fwd) + max(0.0, 2 * fwd - lc.t_attn_bwd)
                if plan.recompute == "full":
                    t_cp += max(0.0, fwd - lc.t_attn_fwd)
            elif o.group == "ep" and ep > 1:
                t_ep += passes * coll("all_to_all", o.size, ep, gpn_ep)  # dispatch/combine fwd, bwd (+ rc)
        return t_tp, t_cp, t_ep

    # --- per-stage compute + comm; the busiest stage paces the pipeline --------------------------
    io_ops = TC.graph_ops("io__forward__all", None, vals)
    stages = []
    for s_idx, idxs in enumerate(lay.stage_layers):
        tf = tb = trc = ttp = tcp = tep = 0.0
        for idx in idxs:
            lc = lcost(idx)
            tf, tb, trc = tf + lc.t_fwd, tb + lc.t_bwd, trc + lc.t_rc
            a, c_, e = layer_comm(lc)
            ttp, tcp, tep = ttp + a, tcp + c_, tep + e
        iof, iob, _ = TC.io_cost(io_ops, mach, s_idx == pp - 1, s_idx == 0, tokens_dev, spec.vocab_size, tp)
        tf, tb = tf + iof, tb + iob
        stages.append((tf + tb + trc + ttp + tcp + tep, tf, tb, trc, ttp, tcp, tep))
    _, t_f, t_b, t_rc, t_tp, t_cp, t_ep = max(stages, key=lambda x: x[0])
    t_comm = t_tp + t_cp + t_ep
    act_bytes = tokens_dev * h * b_a

    # pipeline p2p: boundary activations, scattered over TP ranks (Narayanan 2021 §4.1)
    t_p2p = 0.0
    if pp > 1:
        stride = tp * cp * dp
        t_p2p = _coll(hw, "send_recv", act_bytes / tp, 2, 2 if stride < lay.gpn and lay.gpn // stride >= 2 else 1)

    pipe = getattr(G, f"pipeline__{plan.schedule}")(m, pp, t_b, t_comm, t_f, t_p2p, t_rc, v)
    bubble_fn = getattr(G, f"bubble__{plan.schedule}")
    if plan.schedule == "interleaved":
        bubble = bubble_fn(pp, t_b, t_comm, t_f, t_rc, v)
    elif plan.schedule == "zero_bubble":
        bubble = bubble_fn(pp, t_comm, t_f, t_rc)
    else:
        bubble = bubble_fn(pp, t_b, t_comm, t_f, t_rc)

    # --- parameters per device and data-parallel traffic ----------------------------------------
    pd = TM.params_per_device(spec, lay)
    dpc = dp * cp  # gradients are reduced over data x context parallel ranks (Megatron)
    gpn_dp = _group_gpn(lay, dpc, tp)
    dist_opt = plan.distributed_optimizer or plan.zero in (1, 2)
    exp_dp = dpc // ep
    gpn_edp = _group_gpn(lay, exp_dp, tp * ep) if exp_dp > 1 else 1
    t_dp = t_ag = t_z3 = 0.0
    b_comm = b_g
    if plan.zero == 3:
        per_mb = passes  # gathers: forward, backward (+ recompute)
        t_z3 = (per_mb * _coll(hw, "all_gather", pd.dense * b_w, dpc, gpn_dp)
                + _coll(hw, "reduce_scatter", pd.dense * b_comm, dpc, gpn_dp)
                + per_mb * _coll(hw, "all_gather", pd.expert * b_w, exp_dp, gpn_edp)
                + _coll(hw, "reduce_scatter", pd.expert * b_comm, exp_dp, gpn_edp))
    elif dist_opt:
        t_dp = (_coll(hw, "reduce_scatter", pd.dense * b_comm, dpc, gpn_dp)
                + _coll(hw, "reduce_scatter", pd.expert * b_comm, exp_dp, gpn_edp))
        t_ag = (_coll(hw, "all_gather", pd.dense * b_w, dpc, gpn_dp)
                + _coll(hw, "all_gather", pd.expert * b_w, exp_dp, gpn_edp))
    else:
        t_dp = (_coll(hw, "all_reduce", pd.dense * b_comm, dpc, gpn_dp)
                + _coll(hw, "all_reduce", pd.expert * b_comm, exp_dp, gpn_edp))
    n_buckets = max(1.0, (pd.dense + pd.expert) / BUCKET_PARAMS)
    dp_exposed = (G.dp__overlap(n_buckets, t_ag, t_b, t_dp, t_f) if plan.overlap_dp
                  else G.dp__serial(t_ag, t_dp))
    z3_exposed = G.zero3(m, t_b, t_f, t_rc, t_z3) if plan.zero == 3 else 0.0

    # --- optimizer and offload -------------------------------------------------------------------
    z_o = dpc if (dist_opt or plan.zero) else 1
    psi_opt = (pd.dense + pd.expert * dpc / max(exp_dp, 1) / max(dpc, 1)) / z_o if z_o > 1 else pd.dense + pd.expert
    opt_bytes = 24 + b_g + b_w
    t_opt = 0.0
    t_off = 0.0
    if plan.offload == "none":
        t_opt = float(G.optimizer(eta_m, bw, opt_bytes, psi_opt))
    else:
        t_off = TM.offload_time(hw, lay, psi_opt, b_w, b_g)
    step = pipe + dp_exposed + z3_exposed + t_opt + t_off

    # --- FLOPs (all devices) ---------------------------------------------------------------------
    seqs_step = lay.global_batch
    model_layers = hw_layers = 0.0
    for idx in range(len(layers)):
        lc = lcost(idx)
        model_layers += lc.model_flops
        hw_layers += lc.hw_flops
    lg_flops = TC.io_cost(io_ops, mach, True, True, tokens_dev, spec.vocab_size, tp)[2]
    # per-device layer FLOPs x TP ranks x CP ranks = per micro-batch of b sequences
    per_mb_model = (model_layers + lg_flops) * tp * cp
    per_mb_hw = (hw_layers + lg_flops) * tp * cp
    n_mb_total = seqs_step / b
    model_flops = per_mb_model * n_mb_total
    hw_flops = per_mb_hw * n_mb_total

    memory = TM.memory(spec, lay, pd, b_w, b_g, b_o, b_a, dropout)
    breakdown = {
        "compute_fwd": m * t_f, "compute_bwd": m * t_b, "compute_recompute": m * t_rc,
        "tp_comm": m * t_tp, "cp_comm": m * t_cp, "ep_comm": m * t_ep,
        "pp_p2p": float(pipe - m * (t_f + t_b + t_rc + t_comm) - bubble),
        "pp_bubble": float(bubble), "dp_comm": float(dp_exposed), "zero3_comm": float(z3_exposed),
        "optimizer": t_opt, "offload": t_off,
    }
    res = TrainResult(float(step), breakdown, memory, model_flops, hw_flops, seqs_step * seq, plan.gpus, peak, lay)
    res.values = {"n_micro": m, "pp": pp, "v_stages": v, "t_fwd": t_f, "t_bwd": t_b, "t_rc": t_rc,
                  "t_comm_mb": t_comm, "t_p2p": t_p2p, "t_dp": t_dp, "t_ag": t_ag, "n_buckets": n_buckets,
                  "t_z3": t_z3, "t_opt": t_opt, "t_offload": t_off}
    res.notes.append(f"attention {'FlashAttention (causal blocks skipped)' if lay.flash else 'materialized s^2 scores'}")
    if any(len(x) != len(lay.stage_layers[0]) for x in lay.stage_layers):
        res.notes.append("uneven pipeline: " + "/".join(str(len(x)) for x in lay.stage_layers) + " layers per stage")
    cap = hw.memory_usable
    if res.memory_total > cap and plan.attention == "auto" and not lay.flash:
        # 'auto' picked the materialized s^2 scores, which do not fit: a run of this plan can only
        # have used a memory-efficient fused attention (FlashAttention, Dao et al. 2022; what
        # Megatron-Core / Transformer Engine select), so cost that instead (see :func:`check`)
        from dataclasses import replace

        res2 = evaluate(spec, replace(plan, attention="flash"), hw, check_memory=check_memory)
        res2.notes.append("auto attention: materialized scores do not fit in memory, FlashAttention costed")
        return res2
    if res.memory_total > cap:
        msg = (f"does not fit: {res.memory_total / 2**30:.1f} GiB per GPU needed, {hw.id} has "
               f"{cap / 2**30:.1f} GiB (" + ", ".join(f"{k} {v / 2**30:.1f}" for k, v in memory.items() if v) + "); "
               + _fit_hint(plan, memory))
        if check_memory:
            raise PlanError(msg)
        res.notes.append(msg)
    return res
