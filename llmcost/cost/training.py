"""Training plans: the plan, its checks and layout, and the cost of one plan (runtime: no sympy).

:func:`evaluate` checks a plan (:func:`check`) and costs it through
:func:`llmcost.cost.train_step.evaluate`, the one composition of a training step, run here on a
length-1 array and by ``llmcost search train`` on plan grids. The quantities are the expressions
of :mod:`llmcost.cost.training_formulas`, evaluated through the generated numpy module; their
inputs:

* compute per micro-batch and device: per-operator roofline of the forward, backward and
  recomputation of every layer of the busiest pipeline stage (:mod:`.train_compute`);
* communication: collective times over the cluster's fabric tiers (:mod:`.collectives`), with
  the groups placed Megatron-style, tensor parallel innermost, then context, data (experts
  within it) and pipeline outermost (Narayanan 2021 §3.3: TP within a node);
* memory: :mod:`.train_memory`.

What overlaps and what is exposed (reported separately in :class:`TrainResult`):

* TP (all-reduce, or reduce-scatter + all-gather with sequence parallel), EP all-to-all and
  pipeline send/recv: exposed (on the critical path); with ``tp_overlap`` (Megatron-Core
  ``--tp-comm-overlap``, Transformer Engine userbuffers; default off, needs sequence
  parallelism) each TP all-gather / reduce-scatter hides under its adjacent GEMM and only the
  excess is exposed;
* CP ring KV exchange: overlapped with the attention of each ring step, the excess exposed;
* DP gradient reduction: bucketed, overlapped with the last micro-batch's backward (and the
  distributed optimizer's parameter all-gather with the next forward); the last bucket and
  anything longer than the backward is exposed (``overlap_dp: false`` exposes all of it);
* ZeRO-3 / FSDP parameter gathers and gradient reduce-scatters, every micro-batch: prefetched
  layer by layer under the previous layer's compute; the first gather of each pass, the last
  reduce-scatter and each layer's excess of communication over compute are exposed;
* optimizer step and host offload: exposed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from llmcost.cost.train_compute import Machine
from llmcost.errors import PlanError, UserError
from llmcost.hardware import Hardware
from llmcost.modelspec import ModelSpec

RECOMPUTE = ("none", "selective", "full")
SCHEDULES = ("1f1b", "interleaved", "gpipe", "zero_bubble")
PRECISIONS = ("bf16", "fp16", "fp8", "fp4")
OFFLOAD = ("none", "cpu", "nvme")
BUCKET_PARAMS = 40_000_000
"""Gradient bucket size in parameters: Megatron-LM DDP default ``bucket_size = max(40M, 1M·dp)``
(megatron/core/distributed/distributed_data_parallel.py)."""
_PLAN_KEYS = (
    "tp",
    "pp",
    "dp",
    "cp",
    "ep",
    "sp",
    "zero",
    "distributed_optimizer",
    "micro_batch",
    "global_batch",
    "seq_len",
    "recompute",
    "schedule",
    "virtual_stages",
    "precision",
    "tokens",
    "gpus",
    "gpus_per_node",
    "attention",
    "overlap_dp",
    "tp_overlap",
    "offload",
)


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
    tp_overlap: bool = False
    """TP communication overlapped with the adjacent GEMMs: what Megatron-Core with Transformer
    Engine does with ``--tp-comm-overlap`` (userbuffers; requires sequence parallelism). Off by
    default: plain Megatron-LM / PyTorch TP runs its collectives on the critical path."""
    offload: str = "none"

    @classmethod
    def from_mapping(
        cls, plan: dict[str, Any], gpus: int | None = None, gpus_per_node: int | None = None
    ) -> TrainPlan:
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


def model_layers(spec: ModelSpec) -> list[tuple[str, int]]:
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
        raise PlanError(
            "offload needs ZeRO (zero >= 1): ZeRO-Offload partitions the optimizer state to the host"
        )
    v = 1
    if plan.schedule == "interleaved":
        v = _int(plan.virtual_stages if plan.virtual_stages is not None else 2, "virtual_stages")
        if pp == 1:
            raise PlanError("the interleaved schedule needs pp > 1")
    elif plan.virtual_stages not in (None, 1):
        raise PlanError(f"virtual_stages={plan.virtual_stages} needs schedule interleaved")
    n = len(model_layers(spec))
    why = pipeline_split_error(n, pp, v)
    if why:
        raise PlanError(why)
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
    if not isinstance(plan.tp_overlap, bool):
        raise PlanError(f"tp_overlap must be true or false, got {plan.tp_overlap!r}")
    if plan.tp_overlap and not sp:
        raise PlanError(
            "tp_overlap needs tp > 1 with sequence parallelism (Megatron-Core --tp-comm-overlap"
            " requires --sequence-parallel)"
        )
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
        plan.attention == "auto" and plan.recompute != "selective" and not uses_dropout(spec)
    )
    return Layout(plan, tp, pp, dp, cp, ep, bool(sp), v, m, seq, gb, stage_layers, node, flash)


def _fit_hint(plan: TrainPlan, memory: dict[str, float]) -> str:
    """What would shrink the largest memory component (one suggestion line for the error)."""
    big = max(memory, key=lambda k: memory[k])
    if big in ("optimizer", "gradients") and plan.zero < 3 and not plan.distributed_optimizer:
        return "shard the optimizer state (--zero 1/2/3 or --distributed-optimizer) or raise tp/pp"
    if big == "activations" and plan.recompute != "full":
        return "recompute activations (--recompute selective/full), lower --micro-batch, or raise tp/cp"
    return "raise tp/pp (or ep for MoE), or use more GPUs"


def pipeline_split_error(n: int, pp: int, v: int) -> str | None:
    """Why ``n`` layers cannot be split over ``pp·v`` pipeline chunks, or None when they can.

    Any split that gives every chunk a layer is allowed: frameworks place uneven layer counts
    (Megatron-LM ``--decoder-first-pipeline-num-layers`` / ``--decoder-last-pipeline-num-layers``
    and custom pipeline layouts; torchtitan's arbitrary stage splits); :func:`split_layers` spreads
    them as evenly as possible and the stage with the most work paces the pipeline. The single
    rule shared by :func:`check` and ``llmcost search train``."""
    chunks = pp * v
    if n < chunks:
        return f"{n} layers cannot fill pp*v = {chunks} pipeline chunks (each chunk holds at least one layer)"
    return None


def split_layers(n: int, pp: int, v: int) -> list[list[int]]:
    """Layer indices per pipeline stage for ``n`` layers over ``pp·v`` chunks, chunk ``c`` on stage
    ``c mod pp``, as evenly as possible: ``n mod (pp·v)`` chunks hold ``⌈n/(pp·v)⌉`` layers, the
    others one fewer. The lighter chunks sit at the ends, the last chunk first, then the first,
    the second-to-last, the second, ...: the first stage also holds the embedding and the most
    in-flight activations, the last the output layer and the loss (Llama 3 §3.3.2 removes one
    layer from the first and the last stage; Megatron's first/last-stage layer options)."""
    chunks = pp * v
    per, r = divmod(n, chunks)
    sizes = [per + (1 if r else 0)] * chunks
    ends_inward = [chunks - 1 - i // 2 if i % 2 == 0 else i // 2 for i in range(chunks)]
    for c in ends_inward[: chunks - r if r else 0]:
        sizes[c] -= 1
    bounds = [sum(sizes[:i]) for i in range(chunks + 1)]
    stage_layers: list[list[int]] = [[] for _ in range(pp)]
    for c in range(chunks):
        stage_layers[c % pp].extend(range(bounds[c], bounds[c + 1]))
    return stage_layers


@dataclass
class TrainResult:
    """Everything ``llmcost train`` reports for one plan (SI units; per device unless stated).

    ``row`` is the plan's row of :func:`llmcost.cost.train_step.evaluate`; the rates, MFU / HFU
    and memory total are read from it (the search's columns for the same plan)."""

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
    row: dict[str, float] = field(default_factory=dict)

    @property
    def tokens_per_s(self) -> float:
        return self.row["tokens_per_s"]

    @property
    def mfu(self) -> float:
        return self.row["mfu"]

    @property
    def hfu(self) -> float:
        return self.row["hfu"]

    @property
    def model_tflops_per_gpu(self) -> float:
        return self.row["model_tflops_per_gpu"]

    @property
    def hardware_tflops_per_gpu(self) -> float:
        return self.row["hardware_tflops_per_gpu"]

    @property
    def memory_total(self) -> float:
        return self.row["memory_bytes"]

    def metrics(self) -> dict[str, float]:
        """The validation README's train metric names (per step)."""
        return {k: self.row[k] for k in METRICS}


METRICS = (
    "iteration_time_s",
    "tokens_per_s_per_gpu",
    "model_tflops_per_gpu",
    "hardware_tflops_per_gpu",
    "mfu",
    "hfu",
    "memory_gib_per_gpu",
)
"""The validation README's per-step train metrics."""


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
    return Machine(
        peak_mm=hw.peak[precision],
        peak_attn=hw.peak.get(attn, hw.peak[precision]),
        peak_vec=hw.peak[Q.vector_dtype(hw.peak)],
        eta_c=hw.gemm_efficiency(precision),
        eta_attn=hw.attention_efficiency(attn),
        mem_bw=hw.memory_bandwidth,
        eta_m=hw.memory_efficiency,
        t_kernel=T_KERNEL,
    )


def precision_bytes(zero: int, precision: str) -> tuple[float, float, float, float]:
    """(b_w, b_g, b_o, b_a): bytes per weight, gradient, optimizer-state parameter, activation.

    Megatron (zero 0, with or without the distributed optimizer; [MEG-distopt] table): bf16/fp8
    keep fp32 main gradients (b_g 4) and fp32 master + Adam (12); fp16 keeps fp16 gradients and
    an fp32 gradient copy in the optimizer (16). ZeRO / FSDP (Rajbhandari 2020 §3): gradients in
    the parameter dtype (2) and 12 bytes of optimizer state. FP8 / FP4 training keeps bf16
    weights and activations between layers (Transformer Engine; NVIDIA FP8 primer)."""
    if zero:
        return 2.0, 2.0, 12.0, 2.0
    if precision == "fp16":
        return 2.0, 2.0, 16.0, 2.0
    return 2.0, 4.0, 12.0, 2.0


def evaluate(spec: ModelSpec, plan: TrainPlan, hw: Hardware, *, check_memory: bool = False) -> TrainResult:
    """Step time, FLOPs, MFU/HFU and memory per device of ``plan`` (see the module docstring).

    The plan is checked (:func:`check`) and costed as a length-1 array by
    :func:`llmcost.cost.train_step.evaluate`, the composition ``llmcost search train`` runs on its
    grids; this function only adds the notes. With attention 'auto', a plan whose materialized
    scores do not fit is costed with FlashAttention (noted). ``check_memory``: PlanError when the
    plan does not fit, else a note."""
    from dataclasses import replace

    from llmcost.cost import train_step as TS

    lay = check(spec, plan, hw)
    out = TS.evaluate(spec, hw, TS.plan_columns(lay), lay.seq, lay.global_batch, plan.gpus_per_node)
    row = {k: float(v[0]) for k, v in out.items()}
    fell_back = bool(out["fell_back"][0])
    if fell_back:
        plan = replace(plan, attention="flash")
        lay = replace(lay, plan=plan, flash=True)
    memory = {k: row[f"memory_{k}"] for k in TS.MEMORY}
    breakdown = {k: row[k] for k in TS.BREAKDOWN}
    res = TrainResult(
        row["iteration_time_s"],
        breakdown,
        memory,
        row["model_flops_per_step"],
        row["hardware_flops_per_step"],
        lay.global_batch * lay.seq,
        plan.gpus,
        hw.peak[plan.precision],
        lay,
        row=row,
    )
    res.values = {k: row[k] for k in TS.VALUES if k in row}
    res.values.update(n_micro=lay.m, pp=lay.pp, v_stages=lay.v)
    res.notes.append(
        f"attention {'FlashAttention (causal blocks skipped)' if lay.flash else 'materialized s^2 scores'}"
    )
    sizes = [len(x) for x in lay.stage_layers]
    if len(set(sizes)) > 1:
        res.notes.append(
            "uneven pipeline: " + "/".join(map(str, sizes)) + " layers per stage (the busiest stage"
            " paces the pipeline)"
        )
    cap = hw.memory_usable
    if res.memory_total > cap:
        msg = (
            f"does not fit: {res.memory_total / 2**30:.1f} GiB per GPU needed, {hw.id} has "
            f"{cap / 2**30:.1f} GiB ("
            + ", ".join(f"{k} {v / 2**30:.1f}" for k, v in memory.items() if v)
            + "); "
            + _fit_hint(plan, memory)
        )
        if check_memory:
            raise PlanError(msg)
        res.notes.append(msg)
    if fell_back:
        res.notes.append("auto attention: materialized scores do not fit in memory, FlashAttention costed")
    return res
