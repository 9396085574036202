"""Training plans: the plan, its checks and layout, and the cost of one plan (runtime: no sympy).

:func:`evaluate` checks a plan (:func:`check`) and costs it through
:func:`llmcost.training.step.evaluate`, the one composition of a training step, run here on a
length-1 array and by ``llmcost search train`` on plan grids. The quantities are the expressions
of :mod:`llmcost.training.formulas`, evaluated through the generated numpy module; their
inputs:

* compute per micro-batch and device: per-operator roofline of the forward, backward and
  recomputation of every layer of the busiest pipeline stage (:mod:`.compute`, :mod:`.layers`);
* communication: collective times over the cluster's fabric tiers (:mod:`llmcost.collectives`), with
  the groups placed Megatron-style, tensor parallel innermost, then context, data (experts
  within it) and pipeline outermost (Narayanan 2021 §3.3: TP within a node);
* memory: :mod:`.memory`.

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
import re
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np

from llmcost import checks
from llmcost import rules as R
from llmcost.economics.power import cap_note, cap_of, capped, draw_note, pue_of, throttle_note
from llmcost.errors import PlanError, UserError
from llmcost.graph.ops import checked_ep_imbalance
from llmcost.hardware import Hardware
from llmcost.model.spec import ModelSpec
from llmcost.rules import Rule
from llmcost.training import step as TS
from llmcost.training.base import (
    ATTENTION,
    FP8_RECIPES,
    OFFLOAD,
    PRECISIONS,
    RECOMPUTE,
    SCHEDULES,
    ZMODES,
    attention_dropout,
    grad_fp32_default,
    n_layers,
    parse_pp_layout,
    stage_layers,
    with_mtp,
)
from llmcost.training.recompute import DEFAULT_MODULES, RECOMPUTE_MODULES, modules_mask, selective_column
from llmcost.units import GIB

if TYPE_CHECKING:
    from llmcost.training.layers import ShapeOperators
    from llmcost.training.seqdist import Workload

FLAG_KEYS = (
    "tp_overlap",
    "pp_overlap",
    "tp_bwd_overlap",
    "fused_norm",
    "fused_act",
    "fused_rope",
    "fused_ce",
)
"""Train plan keys that are true or false (besides ``sp`` and ``overlap_dp``, which may be left unset)."""
STACK_KEYS = ("overlap_dp", *FLAG_KEYS[1:], "fp8_recipe")
"""Train plan keys a software stack decides (:mod:`llmcost.training.stack`) that a costed plan
reports, so it re-costs the same without the stack."""

PLAN_KEYS = (
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
    "recompute_modules",
    "mtp_layers",
    "pp_layout",
    "expert_tp",
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
    "fused_norm",
    "fused_act",
    "fused_rope",
    "fused_ce",
    "fp8_recipe",
    "pp_overlap",
    "tp_bwd_overlap",
    "zero3_bucket",
    "zero3_copy_out",
    "zero3_serial",
    "autocast_weights",
    "distribute_saved_activations",
    "tp_layout_copy",
    "pp_p2p_full",
    "fp8_hp_inputs",
    "optimizer_passes",
    "goodput",
    "ep_imbalance",
    "ep_deepep",
    "ep_overlap",
    "micro_batches",
    "offload_activations",
    "offload_layers",
    "sync_interval",
    "sync_bytes",
    "sync_fragments",
    "sync_overlap",
    "grad_reduce_in_fp32",
    "network",
    "tp_fused_rs",
    "hbm_contention",
    "seq_len_dist",
    "packing",
    "dynamic_cp",
    "power_cap",
    "pue",
)
OPTION_KEYS = (
    "tp_fused_rs",
    "hbm_contention",
    "zero3_copy_out",
    "zero3_serial",
    "autocast_weights",
    "distribute_saved_activations",
    "tp_layout_copy",
    "pp_p2p_full",
    "fp8_hp_inputs",
    "optimizer_passes",
    "ep_deepep",
    "ep_overlap",
)
"""Train plan keys that are true or false and that a costed plan reports only where they are on
(:mod:`llmcost.api`), so plans that leave them off print as before."""
OPTION_COLUMNS = {
    "hbm_contention": "hbmc",
    "zero3_copy_out": "z3co",
    "zero3_serial": "z3s",
    "autocast_weights": "acw",
    "distribute_saved_activations": "dsa",
    "tp_layout_copy": "tlc",
    "pp_p2p_full": "ppf",
    "fp8_hp_inputs": "f8h",
    "optimizer_passes": "mpo",
    "ep_deepep": "epdd",
    "ep_overlap": "epo",
}
"""Plan column of each of the :data:`OPTION_KEYS` that is one column, 0 or 1 (``tp_fused_rs`` shares
``tpo`` with ``tp_overlap``): :func:`plan_columns` and the search fill them from this one table."""


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
    recompute_modules: Any = None
    """With ``recompute: selective``, the Megatron-Core submodules recomputed (a list of
    :data:`llmcost.training.recompute.RECOMPUTE_MODULES`, e.g. ``[layernorm, moe_act]``; Megatron-Core
    ``--recompute-modules``); None: the attention core alone (``core_attn``, Megatron-Core's default)."""
    mtp_layers: int = 0
    """Multi-token-prediction modules trained with the model (Megatron-Core ``--mtp-num-layers``;
    DeepSeek-V3 §2.2 trains one): each is one more layer of the model's last layer's kind on the last
    pipeline stage, with its own embedding, projection, LM head and loss
    (:func:`llmcost.training.base.with_mtp`). 0: none, whatever MTP modules the checkpoint holds."""
    expert_tp: int | None = None
    """Tensor-parallel degree of the routed experts with expert parallelism (Megatron-Core
    ``--expert-tensor-parallel-size``): ``tp`` (Megatron-Core's default, None) shards each expert over
    the TP ranks, its EP groups strided by ``tp`` within data parallelism; 1 keeps experts whole, each
    rank dispatching its own tokens, the EP groups over consecutive ranks of the TP x DP x CP grid
    (Parallel Folding, the Megatron-Core MoE report's term; parallel_state.py's expert rank generator)."""
    pp_layout: str | None = None
    """The pipeline's layers per chunk as Megatron-Core's ``--pipeline-model-parallel-layout`` states
    them (e.g. ``Et*4|(t*4|)*14tmL``: ``E`` embedding, ``t`` a decoder layer, ``m`` an MTP module, ``L``
    the loss, ``|`` between chunks, chunk ``c`` on stage ``c mod pp``; :func:`llmcost.training.base.
    parse_pp_layout`); None: layers split evenly, the lighter chunks at the ends."""
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
    fused_norm: bool = True
    """Norms run as one fused kernel (apex / Transformer Engine / a compiler). False: eager PyTorch,
    where an RMSNorm is a chain of elementwise kernels (:mod:`llmcost.training.compute`); a stack
    sets it (:mod:`llmcost.training.stack`)."""
    fused_act: bool = True
    """The MLP activation runs as one fused kernel (with its bias). False: a gated activation runs
    ``silu`` then ``mul``, a bias its own add (:mod:`llmcost.training.compute`)."""
    pp_overlap: bool = False
    """Pipeline send/recvs overlapped with the adjacent chunks' compute (Megatron-Core
    ``overlap_p2p_comm``, default for the interleaved schedule; ``pp__p2p_overlap``). Off by default:
    blocking send/recv on the critical path (``pp__p2p_serial``); a stack sets it."""
    tp_bwd_overlap: bool = False
    """The backward's TP collectives of a column-parallel GEMM run asynchronously under its data- and
    weight-gradient GEMMs (Megatron-LM's async TP all-reduce, on by default since 2021-09, and with
    sequence parallelism the input re-gather and the gradient reduce-scatter; Transformer Engine
    likewise; ``tp__all_reduce_async`` / ``tp__sp_async``). Off by default: every TP collective on the
    critical path; a stack sets it."""
    fused_rope: bool = True
    """The rotary embedding runs as one fused kernel per tensor (Transformer Engine, a compiler).
    False: eager PyTorch's upcast, complex multiply and downcast (:func:`llmcost.training.passes.rotary_op`)."""
    offload_activations: bool = False
    """The activations a layer keeps for its backward (its checkpoints, with recomputation) go to host
    memory in the forward and come back for the backward (ZeRO-Infinity §5 activation checkpoint
    offload; Megatron-Core's activation offloading), two layers' worth resident; needs the catalog's
    host link."""
    offload_layers: int = 0
    """Megatron-Core's CPU activation offloading (TransformerConfig ``cpu_offloading`` with
    ``cpu_offloading_num_layers``, Transformer Engine's ``get_cpu_offload_context``): the activations
    of this many of the model's layers go to host memory in the forward and come back for the
    backward, the others stay; one more layer's worth is in flight. Megatron-Core allows it only
    below the model's layer count, without pipeline parallelism and without activation
    recomputation (transformer_config.py ``__post_init__``). 0: none."""
    fused_ce: bool = True
    """The loss is a fused vocabulary-parallel cross-entropy on fp32 logits (Megatron). False: the
    eager ``F.cross_entropy`` on an fp32 upcast, whose peak holds 10 bytes per logit
    (:func:`llmcost.training.formulas.logits_bytes`)."""
    fp8_recipe: str = "delayed"
    """How fp8 GEMM inputs are quantized (precision fp8; fp4 is always block-scaled): ``delayed``
    (Transformer Engine's default), ``current``, ``dynamic`` (torchao under torch.compile) or
    ``block`` (MXFP8);
    :data:`llmcost.training.passes.FP8_QUANTIZE`."""
    zero3_bucket: float | None = None
    """Parameters per ZeRO-3 gather / reduce-scatter collective (DeepSpeed
    ``stage3_prefetch_bucket_size``): each layer moves in ``ceil(layer params / zero3_bucket)``
    collectives, each paying its own latency. None: one collective per layer (FSDP per-block
    units); a stack whose profile gathers per tensor / bucket sets it
    (:mod:`llmcost.training.stack`)."""
    goodput: float | None = None
    """Share of the run's wall time that trains (failures, restarts, checkpoints lost): the
    run's time, GPU-hours, energy and cost are over it. None: :data:`llmcost.training.run.GOODPUT`."""
    ep_imbalance: float | None = None
    """MoE with expert parallelism: routed tokens on the busiest EP rank over the mean (>= 1). Every
    rank waits for it at the combine all-to-all, so its expert GEMMs, activation and all-to-all
    volumes set the layer's time (graph symbol ``ep_imb``); MFU still counts the mean. None:
    :data:`llmcost.graph.ops.EP_IMBALANCE`; 1: balanced (benchmarks that force the
    router to balance)."""
    sync_interval: int = 1
    """DiLoCo / local SGD (Douillard et al. 2023): every data-parallel rank is a worker (one model
    replica over its tp x pp ranks) that takes this many inner steps without cross-worker
    communication, then all-reduces its parameter delta once (``dp__diloco``). 1: ordinary data
    parallelism (a gradient all-reduce every step)."""
    sync_bytes: float | None = None
    """Bytes per parameter of DiLoCo's outer all-reduce (``diloco__outer_bytes``): 4 (fp32, the
    default), 2 (OpenDiLoCo's FP16), 1 or 0.5 (quantized deltas); only with ``sync_interval`` > 1."""
    sync_fragments: int = 1
    """Streaming DiLoCo (Douillard et al. 2025): the outer sync in this many fragments of the
    parameters, one every ``sync_interval / sync_fragments`` steps (``diloco__fragment_bytes``)."""
    sync_overlap: int = 0
    """Streaming DiLoCo: inner steps each fragment's outer all-reduce overlaps (``dp__streaming``;
    0: blocking); at most ``sync_interval / sync_fragments``."""
    grad_reduce_in_fp32: bool | None = None
    """Gradients accumulated over the micro-batches and reduced in fp32 (Megatron's ``main_grad``
    buffer, 4 bytes per gradient in memory and in the data-parallel reduction) for plain DP, the
    distributed optimizer and ZeRO-1/2; ZeRO-3 is unaffected (:func:`llmcost.training.base.
    precision_bytes`). None: the stack's, else yes except in fp16 (:func:`llmcost.training.base.
    grad_fp32_default`)."""
    network: str | None = None
    """The scale-out network's topology (:data:`llmcost.hardware.NETWORK_TOPOLOGIES`: ``fat_tree``,
    ``rail_fat_tree`` or ``rail_only``), every scale-out tier of the device set to it
    (:meth:`llmcost.hardware.Hardware.with_network`); None: as the catalog has it."""
    tp_fused_rs: bool = False
    """Each TP reduce-scatter (without sequence parallelism the all-reduce's first half) is fused into
    the GEMM that produces its buffer: T3 (Pati et al. 2024, arXiv 2401.16677), the GEMM's output
    stages sent and reduced as they are produced by DMA engines and near-memory adds, no SMs taken
    (``tp__fused_rs``); the all-gather stays on the critical path. A hardware-software proposal
    (simulated in the paper), not a shipped library; takes the place of ``tp_bwd_overlap`` for the
    collectives it fuses; not with ``tp_overlap``. Off by default."""
    zero3_copy_out: bool = False
    """ZeRO-3 / FSDP: each parameter gather's buffer is copied into the unsharded parameters on the
    compute stream (FSDP2's ``foreach_all_gather_copy_out``), reading and writing ``b_w`` bytes per
    parameter twice a micro-batch (``zero3__copy_out``); the torchtitan stack sets it. Off by default
    (FSDP1, DeepSpeed: gathered in place)."""
    zero3_serial: bool = False
    """ZeRO-3's gathers and reduce-scatters never overlap compute: each runs on the critical path
    (``zero3__serial``), as DeepSpeed's ZeRO-3 did before v0.6.0 for large models (a device-wide
    synchronize at every fetch, and no prefetch once two gathered matrices pass
    ``stage3_max_live_parameters``); the deepspeed 2021 stack sets it. Off by default: each layer's
    gather prefetched under the previous layer's compute (``zero3``)."""
    autocast_weights: bool = False
    """16-bit mixed precision as ``torch.autocast`` over fp32 parameters: every matmul weight is cast
    to the compute dtype at each forward (and recomputed forward), reading 4 and writing ``b_w`` bytes
    per parameter, and its gradient cast back to fp32 in the backward, as many bytes
    (``autocast__cast_bytes``); memory-bound kernels on the compute stream. The transformers stack
    sets it. Off by default (Megatron, DeepSpeed and FSDP's mixed precision keep 16-bit weights and
    cast the fp32 master once per optimizer step). Memory is unchanged: fp32 weights (4 bytes), the
    cached 16-bit copies alive from the forward to the backward (``b_w``) and Adam's two fp32 moments
    (8) are the 16-bit weights, fp32 master and moments the model already holds per parameter."""
    distribute_saved_activations: bool = False
    """Full recomputation with each layer's stored input split over the TP ranks (Megatron-LM
    ``--distribute-saved-activations``, earlier ``--distribute-checkpointed-activations``; DeepSpeed
    activation checkpointing ``partition_activations``): the checkpoint memory of ``act__full`` is divided
    by ``t`` as sequence parallelism divides it. No effect without full recomputation or ``tp`` > 1, or
    with sequence parallelism (the inputs are split already). The all-gather that rebuilds each input
    before its recomputation (``2sbh`` bytes over the TP group, once per layer and micro-batch) is not
    priced. Off by default."""
    tp_layout_copy: bool = False
    """Sequence-parallel TP collectives on the sequence dimension of batch-first activations (PyTorch
    DTensor ``Shard(1)`` of ``[batch, seq, hidden]``, as torchtitan runs TP): each all-gather's output
    and each reduce-scatter's input is copied once, reading and writing the full activation
    (``torch.cat`` of the chunks in ``_functional_collectives``), in the forward and the backward
    (``tp__layout_copy_bytes``). Only with ``tp`` > 1, sequence parallelism and the collectives not fused
    into the GEMMs (``tp_overlap``: async TP gathers into the matmul through a moved-dimension view).
    The torchtitan stack sets it. Off by default (Megatron's activations are sequence-first)."""
    pp_p2p_full: bool = False
    """Pipeline send/recv as DeepSpeed's PipelineEngine runs them (GPT-NeoX and Megatron-DeepSpeed
    pipeline through it): the activation goes as each TP rank's ``1/t`` share and is rebuilt by a TP
    all-gather at the receiver and again at the sender before its backward, the gradient goes whole
    from every TP rank (DeepSpeed before v0.6.0), and each send and receive is its own blocking call,
    so a micro-batch's transfers run one after the other (``pp__p2p_unpaired``) instead of together;
    with ``pp_overlap`` the overlapped form prices them (whole activations). The DeepSpeed stacks set
    it. Off by default."""
    fp8_hp_inputs: bool = False
    """fp8 / fp4 training that keeps each linear layer's input for the backward in 16 bits, as torchao's
    float8 does (``matmul_with_hp_or_float8_args`` saves ``input_hp``), where Transformer Engine keeps
    its fp8 cast (``act__flash``'s ``_fp8_saved_inputs``: the QKV, output-projection, FC1 and FC2
    inputs at one byte). No effect in 16-bit training. The torchtitan stack sets it. Off by default
    (Transformer Engine)."""
    optimizer_passes: bool = False
    """The mixed-precision optimizer runs its own passes around the Adam step, as Megatron's
    ``Float16OptimizerWithFloat16Params`` (and the distributed optimizer, on its shard) does: 16-bit main
    gradients copied to fp32, fp16's unscale and inf check, the gradient norm for clipping, the fp32
    master re-read for its 16-bit copy (``optimizer__mp_bytes``: 52 bytes per parameter in all for fp16,
    38 for bf16 with fp32 gradients, against 28-30 for a fused master-weight step). The megatron-lm and
    megatron-core stacks set it. Off by default."""
    ep_deepep: bool = False
    """The MoE dispatch and combine send each token once over the network to every other node that
    holds one of its experts, forwarded there over the scale-up link (DeepEP's normal kernels, the
    DeepSeek-V3 training setting; Megatron-Core's flex dispatcher with the deepep or hybridep
    backend; Primus-Turbo's port), priced by the ``deepep_normal`` formula at the model's top-k and
    group-limited routing; its kernels hold 20 SMs while they overlap compute. Off by default: NCCL's
    all-to-all of every (token, expert) copy (Megatron-Core's alltoall dispatcher)."""
    ep_overlap: bool = False
    """Each micro-batch's expert all-to-alls hidden under another micro-batch's compute, the forward
    of one merged with the backward of the next (Megatron-Core ``--overlap-moe-expert-parallel-comm
    --delay-wgrad-compute``, v0.14; DeepSeek-V3's DualPipe pairs them likewise): per layer what the
    all-to-alls exceed of the paired compute, or the SMs they hold, is exposed (``ep__overlap``), and
    all of it for the micro-batches the schedule leaves unpaired (pipeline warm-up and cool-down).
    Needs ``ep`` > 1, no full recomputation and, with ``pp`` > 1, the interleaved schedule (as
    Megatron-Core asserts). Off by default."""
    hbm_contention: bool = False
    """An overlapped collective's HBM traffic competes with the compute it overlaps (ring bytes per
    device, ``comm__hbm_ring_*``): the pair takes at least both kernels' HBM time
    (``training.formulas._overlapped``) in the TP, data-parallel and ZeRO-3 overlaps. Off by default:
    only the SMs a collective holds are counted."""
    seq_len_dist: Any = None
    """The step's sequence lengths: ``[[length, weight], ...]`` (weights: how often each length occurs),
    a YAML / JSON / CSV file of them (``--seq-len-dist``) or a :class:`llmcost.training.seqdist.SeqDist`;
    None: every sequence is ``seq_len`` tokens (:mod:`llmcost.training.seqdist`)."""
    packing: str | None = None
    """How the lengths are carried: ``document`` (the default with a distribution: packed to ``seq_len``,
    a document mask), ``causal`` (packed, one causal mask) or ``none`` (padded micro-batches);
    :data:`llmcost.training.seqdist.PACKING`."""
    dynamic_cp: bool = False
    """Context parallelism sized per sequence (Megatron-Core dynamic CP; ByteScale's data-aware
    sharding): a sequence runs on the fewest of the ``cp`` ranks that hold it, the ranks balanced."""
    power_cap: float | str | None = None
    """Board power limit per device (W, or a string such as ``'400W'``): the step is costed on the
    device as :func:`llmcost.economics.power.capped` returns it (compute slowed to the clock the cap
    allows, draws at most the cap). None: the default limit."""
    pue: float | None = None
    """Facility power usage effectiveness: the energy reported is device energy x PUE (None: 1.0)."""
    micro_batches: int | None = None
    """Derived, read back: what ``train --format json`` reports; :func:`check` refuses a plan whose
    other keys give another count, so a costed plan feeds ``--plan`` as it is."""

    @classmethod
    def from_mapping(
        cls, plan: dict[str, Any], gpus: int | None = None, gpus_per_node: int | None = None
    ) -> TrainPlan:
        """Plan from validation-README keys (``zero: fsdp`` = 3); unknown keys are an error. A
        ``stack`` key may only say ``none`` (a plan costed as it stands): a profile is applied by
        :func:`llmcost.training.stack.apply` (``llmcost.api.train``), not by the plan."""
        kw: dict[str, Any] = {}
        for k, v in (plan or {}).items():
            if k == "stack":
                _no_stack_only(v)
                continue
            if k not in PLAN_KEYS:
                from llmcost.errors import did_you_mean

                raise UserError(f"plan key '{k}' is not a train plan key{did_you_mean(k, PLAN_KEYS)}")
            if v is not None:
                kw[k] = v
        if kw.get("zero") == "fsdp":
            kw["zero"] = 3
        if gpus is not None:
            kw.setdefault("gpus", gpus)
        if gpus_per_node is not None:
            kw.setdefault("gpus_per_node", gpus_per_node)
        if "gpus" not in kw:
            deg = [checks.finite_int(kw.get(k) or 1, k) for k in ("tp", "pp", "dp", "cp")]
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
    workload: Workload | None = None  # the sequence-length distribution (plan seq_len_dist)


def _int(v: Any, name: str, minimum: int = 1) -> int:
    return checks.finite_int(v, name, minimum)


def default_seq_len(spec: ModelSpec) -> int:
    """The sequence length of a plan that sets none: the model's context, at most 4096."""
    return int(min(spec.max_position_embeddings or 4096, 4096))


def node_size(hw: Hardware, gpus: int, gpus_per_node: int | None) -> int:
    """Ranks per node as the plan is placed: ``gpus_per_node``, else the hardware's node size,
    at most the GPU count; ``gpus_per_node`` goes through the one check every command uses
    (:func:`llmcost.checks.gpus_per_node`: an integer >= 1 within the host and scale-up domain)."""
    g = checks.gpus_per_node(hw, gpus_per_node, "gpus_per_node")
    return max(1, min(g if g is not None else (hw.node_devices or 1), gpus))


def sequence_parallel(sp: Any, tp: Any) -> Any:
    """Whether sequence parallelism is on: requested (``sp`` 1 on, 0 off, -1 the default: on) and
    tp > 1 (with tp 1 there is nothing to split: the same plan as off)."""
    return (sp != 0) & (tp > 1)


def auto_flash(spec: ModelSpec, selective: Any) -> Any:
    """What attention 'auto' costs: FlashAttention, unless the plan recomputes selectively or the
    model trains with attention-probability dropout (:func:`attention_dropout`; then materialized
    scores). Selective recomputation exists to recompute a materialized score matrix (Korthikanti
    2022 §5), and configs with attention dropout (GPT-2/3-style Megatron runs, attention dropout
    0.1) use Megatron's fused scale-mask-softmax-dropout kernel on materialized scores; other
    models FlashAttention. When the materialized scores do not fit in memory, :func:`evaluate`
    costs FlashAttention."""
    return np.logical_and(np.logical_not(selective), not attention_dropout(spec))


class RuleFields(SimpleNamespace):
    """What :data:`RULES` read of a plan: scalars (one plan, :func:`check`) or numpy arrays (one
    element per plan, ``llmcost search train``). ``gpus``, ``tp``, ``pp``, ``dp``, ``cp``, ``ep``;
    ``dp_given`` (the plan set dp rather than leaving the GPU count to fix it; messages only);
    ``node`` (ranks per node, :func:`node_size`); ``seq``; ``sched`` (index in :data:`SCHEDULES`),
    ``v`` (pipeline chunks per device); ``mb``, ``gb`` (micro and global batch); ``zero`` (stage),
    ``distopt``; ``prec`` (index in :data:`PRECISIONS`); ``sp`` (1 on, 0 off, -1 default),
    ``tpo`` (TP overlap: 0 none, 1 ``tp_overlap``, 2 ``tp_fused_rs``); ``offload`` (index in :data:`OFFLOAD`);
    ``rc`` (index in :data:`RECOMPUTE`); ``sync`` (DiLoCo's inner steps per outer sync, plan
    ``sync_interval``; 1: ordinary data parallelism); ``hw``."""


_INTERLEAVED = SCHEDULES.index("interleaved")


def _experts(spec: ModelSpec) -> int:
    return spec.moe.num_experts if spec.moe is not None else 0


def _etp(p: RuleFields) -> Any:
    """The plan's expert tensor-parallel degree (``expert_tp``; the search's plans: ``tp``)."""
    return getattr(p, "etp", p.tp)


def _too_few_layers(n: Any, pp: Any, v: Any) -> Any:
    return n < pp * v


def _unfilled_chunks(spec: ModelSpec, pp: Any, v: Any) -> Any:
    """Fewer layers than ``pp·v`` chunks, unless the plan's ``pp_layout`` states those chunks: a
    stated layout may leave a chunk to the embedding or the loss alone (Megatron-Core's
    ``account_for_embedding_in_pipeline_split`` / ``account_for_loss_in_pipeline_split``, e.g.
    ``E|(t|)*126L``), which :func:`layout_chunks` has checked."""
    stated = spec.pp_chunks is not None and np.asarray(pp * v) == len(spec.pp_chunks)
    return _too_few_layers(n_layers(spec), pp, v) & ~np.asarray(stated)


def _no_peak(hw: Hardware, prec: Any) -> Any:
    return np.array([d not in hw.peak for d in PRECISIONS])[prec]


def _site(hw: Hardware) -> int:
    """Devices per WAN site of ``hw`` (:meth:`llmcost.hardware.Hardware.wan_site`), 0 without a WAN tier."""
    return hw.wan_site() or 0


def _spans_sites(p: RuleFields) -> Any:
    """Whether the job spans WAN sites (more GPUs than a site holds)."""
    return (_site(p.hw) > 0) & (p.gpus > _site(p.hw))


def _factor_message(s: ModelSpec, p: RuleFields) -> str:
    mp = p.tp * p.pp * p.cp
    if not p.dp_given:
        return f"{p.gpus} GPUs do not divide by tp*pp*cp = {p.tp}*{p.pp}*{p.cp} = {mp}; use degrees whose product divides {p.gpus}"
    return (
        f"gpus ({p.gpus}) must equal tp*pp*dp*cp = {p.tp}*{p.pp}*{p.dp}*{p.cp} = {mp * p.dp}; "
        "drop dp to let the GPU count fix it"
    )


RULES: tuple[Rule, ...] = (
    Rule(
        "tp*pp*cp does not divide the GPUs",
        lambda s, p: p.tp * p.pp * p.dp * p.cp != p.gpus,
        _factor_message,
        ("gpus", "tp", "pp", "cp", "dp"),
    ),
    Rule(
        "GPUs do not fill whole nodes",
        lambda s, p: p.gpus % p.node != 0,
        lambda s, p: (
            f"{p.gpus} GPUs do not divide into nodes of {p.node}; use a multiple of {p.node} GPUs "
            "or set gpus_per_node"
        ),
        ("gpus", "node"),
    ),
    Rule(
        "GPUs do not fill whole WAN sites",
        lambda s, p: (_site(p.hw) > 0) & (p.gpus > _site(p.hw)) & (p.gpus % max(_site(p.hw), 1) != 0),
        lambda s, p: (
            f"{p.gpus} GPUs do not fill whole WAN sites of {_site(p.hw)} ({p.hw.id}'s 'wan' tier); use a "
            f"multiple of {_site(p.hw)} GPUs, or at most {_site(p.hw)}"
        ),
        ("gpus",),
    ),
    R.context_rule(lambda p: p.seq, "seq_len", ("seq",)),
    R.HEADS,
    R.KV_HEADS,
    Rule(
        "seq_len does not divide by 2*cp",
        lambda s, p: (p.cp > 1) & (p.seq % (2 * p.cp) != 0),
        lambda s, p: f"seq_len {p.seq} must divide by 2*cp = {2 * p.cp} (load-balanced context parallel)",
        ("cp", "seq"),
    ),
    R.EP_NEEDS_MOE,
    Rule(
        "experts do not divide by ep",
        lambda s, p: s.is_moe & (_experts(s) % p.ep != 0),
        lambda s, p: f"{_experts(s)} experts do not divide by ep {p.ep}; use an ep dividing {_experts(s)}",
        ("ep",),
    ),
    Rule(
        "ep does not divide dp*cp",
        lambda s, p: (p.tp * p.dp * p.cp) % (_etp(p) * p.ep) != 0,
        lambda s, p: (
            f"ep {p.ep} must divide dp*cp = {p.dp}*{p.cp} = {p.dp * p.cp} (experts sharded over the TP ranks:"
            " expert_tp = tp); with expert_tp 1 (Parallel Folding) ep must divide tp*dp*cp"
            if np.all(_etp(p) == p.tp)
            else f"ep {p.ep} must divide tp*dp*cp = {p.tp * p.dp * p.cp} (expert_tp 1: EP over the TP x DP x CP ranks)"
        ),
        ("ep", "dp", "cp"),
    ),
    Rule(
        "DiLoCo with cp or ep > 1",
        lambda s, p: (p.sync > 1) & ((p.cp > 1) | (p.ep > 1)),
        lambda s, p: (
            "sync_interval > 1 (DiLoCo) is modelled with ep 1 and cp 1 (workers = data-parallel ranks)"
        ),
        ("sync", "cp", "ep"),
    ),
    Rule(
        "a replica spans WAN sites",
        lambda s, p: _spans_sites(p) & ((p.cp > 1) | (p.ep > 1) | (_site(p.hw) % (p.tp * p.pp) != 0)),
        lambda s, p: (
            f"across WAN sites ({p.hw.id}: sites of {_site(p.hw)} GPUs) whole model replicas sit in a site and "
            f"data parallelism spans the sites: use cp 1, ep 1 and tp*pp dividing {_site(p.hw)} "
            f"(got tp*pp = {p.tp * p.pp}, cp {p.cp}, ep {p.ep})"
        ),
        ("gpus", "tp", "pp", "cp", "ep"),
    ),
    Rule(
        "interleaved schedule needs pp > 1",
        lambda s, p: (p.sched == _INTERLEAVED) & (p.pp == 1),
        lambda s, p: "the interleaved schedule needs pp > 1; use pp > 1 or schedule 1f1b",
        ("sched", "pp"),
    ),
    Rule(
        "virtual_stages without the interleaved schedule",
        lambda s, p: (p.sched != _INTERLEAVED) & (p.v != 1),
        lambda s, p: f"virtual_stages={p.v} needs schedule interleaved",
        ("sched", "v"),
    ),
    Rule(
        "fewer layers than pp*v pipeline chunks",
        lambda s, p: _unfilled_chunks(s, p.pp, p.v),
        lambda s, p: pipeline_split_error(n_layers(s), p.pp, p.v) or "",
        ("pp", "v"),
    ),
    Rule(
        "global_batch does not divide by dp*micro_batch",
        lambda s, p: p.gb % (p.dp * p.mb) != 0,
        lambda s, p: (
            f"global_batch {p.gb} does not divide by dp*micro_batch = {p.dp}*{p.mb}; "
            f"use a multiple of {p.dp * p.mb}"
        ),
        ("gb", "dp", "mb"),
    ),
    Rule(
        "interleaved: micro-batches not divisible by pp",
        lambda s, p: (p.sched == _INTERLEAVED) & ((p.gb // (p.dp * p.mb)) % p.pp != 0),
        lambda s, p: (
            f"the interleaved schedule needs micro-batches ({p.gb // (p.dp * p.mb)}) divisible by pp ({p.pp})"
        ),
        ("sched", "gb", "dp", "mb", "pp"),
    ),
    Rule(
        "precision without compute on the hardware",
        lambda s, p: _no_peak(p.hw, p.prec),
        lambda s, p: (
            f"{p.hw.id} has no {PRECISIONS[p.prec]} compute; it trains in "
            + ", ".join(d for d in PRECISIONS if d in p.hw.peak)
        ),
        ("prec",),
    ),
    Rule(
        "ZeRO with the distributed optimizer",
        lambda s, p: (p.zero > 0) & (p.distopt != 0),
        lambda s, p: "use either zero (DeepSpeed/FSDP) or distributed_optimizer (Megatron), not both",
        ("zero", "distopt"),
    ),
    Rule(
        "DiLoCo with ZeRO or the distributed optimizer",
        lambda s, p: (p.sync > 1) & ((p.zero > 0) | (p.distopt != 0)),
        lambda s, p: (
            "sync_interval > 1 (DiLoCo) keeps a whole optimizer per worker: use zero 0 without the distributed optimizer"
        ),
        ("sync", "zero", "distopt"),
    ),
    Rule(
        "ZeRO-3 with pipeline parallelism",
        lambda s, p: (p.zero == 3) & (p.pp > 1),
        lambda s, p: (
            "ZeRO-3 with pipeline parallelism is not supported (parameters regathered per stage); "
            "use zero <= 2 or pp 1"
        ),
        ("zero", "pp"),
    ),
    Rule(
        "ZeRO-2 with pipeline parallelism",
        lambda s, p: (p.zero == 2) & (p.pp > 1),
        lambda s, p: (
            "ZeRO-2 with pipeline parallelism is not supported: its partitioned gradients are reduced after "
            "every micro-batch's backward (deepspeedai/DeepSpeed runtime/pipe/engine.py refuses ZeRO-2/3 with "
            "pipelines); use zero 1 (one reduce-scatter per step, as FSDP under PyTorch pipelining) or pp 1"
        ),
        ("zero", "pp"),
    ),
    Rule(
        "recompute op outside a dense attention block",
        lambda s, p: (p.rc == RECOMPUTE.index("op")) & (s.mla is not None or s.is_moe),
        lambda s, p: (
            "recompute op (per-op selective checkpointing) is modelled for dense MHA/GQA blocks only: "
            "its saved matmuls follow a Llama block's order; use selective or full for MLA / MoE models"
        ),
        ("rc",),
    ),
    Rule(
        "parameter offload without ZeRO-3",
        lambda s, p: (np.asarray(p.offload) >= 3) & (p.zero != 3),
        lambda s, p: (
            "offloading parameters needs ZeRO-3 (--zero 3): only sharded parameters are fetched per layer"
        ),
        ("offload", "zero"),
    ),
    Rule(
        "offload without ZeRO",
        lambda s, p: (p.offload != 0) & (p.zero == 0),
        lambda s, p: (
            "offload needs ZeRO (zero >= 1): ZeRO-Offload partitions the optimizer state to the host"
        ),
        ("offload", "zero"),
    ),
    Rule(
        "tp overlap needs tp > 1 with sequence parallel",
        lambda s, p: (p.tpo == 1) & (sequence_parallel(p.sp, p.tp) == 0),
        lambda s, p: (
            "tp_overlap needs tp > 1 with sequence parallelism (Megatron-Core --tp-comm-overlap"
            " requires --sequence-parallel)"
        ),
        ("tpo", "sp", "tp"),
    ),
    Rule(
        "fused reduce-scatter needs tp > 1",
        lambda s, p: (p.tpo == 2) & (p.tp == 1),
        lambda s, p: "tp_fused_rs fuses the TP reduce-scatter into its GEMM: it needs tp > 1",
        ("tpo", "tp"),
    ),
)
"""The training plan validity rules, each written once (the heads, KV-heads and MoE ones shared
with inference, :mod:`llmcost.rules`): :func:`check` raises the first a plan breaks;
``llmcost search train`` applies the same predicates as masks over the enumerated dimensions and
counts each rejected plan under the first rule it breaks. Ordered by the dimension they read
(layout, ep, schedule, batch, then the per-plan options), the order the search enumerates in."""


def bucket_column(b: Any) -> int:
    """``zero3_bucket`` as a column value: parameters per collective, 0 for None (one per layer);
    a numeric string is read as a number (YAML 1.1 reads ``5e7`` as a string)."""
    if b is None:
        return 0
    if isinstance(b, str) and re.fullmatch(r"\s*[0-9.]+(e[+-]?[0-9]+)?\s*", b, re.IGNORECASE):
        b = float(b)
    if isinstance(b, bool) or not isinstance(b, (int, float)) or not math.isfinite(b) or b < 1:
        raise PlanError(f"zero3_bucket must be a number of parameters >= 1 (or unset), got {b!r}")
    return int(round(b))


SYNC_BITS = 32
"""Bits per parameter of DiLoCo's outer all-reduce when the plan sets no ``sync_bytes``: fp32, the
precision of the parameters the outer step updates (``diloco__outer_bytes``)."""


def _workload(plan: TrainPlan) -> Workload | None:
    """The plan's sequence-length distribution, checked (:func:`llmcost.training.seqdist.workload`);
    None for a uniform step, without loading the distribution's module."""
    if plan.seq_len_dist is None and plan.packing is None and not plan.dynamic_cp:
        return None
    from llmcost.training.seqdist import workload

    return workload(plan.seq_len_dist, plan.packing, plan.dynamic_cp)


def grad_fp32(plan: TrainPlan) -> bool:
    """The plan's ``grad_reduce_in_fp32``, checked, or the precision's default."""
    g = plan.grad_reduce_in_fp32
    if g is None:
        return grad_fp32_default(plan.precision)
    if not isinstance(g, bool):
        raise PlanError(f"grad_reduce_in_fp32 must be true or false, got {g!r}")
    return g


def sync_columns(plan: TrainPlan) -> tuple[int, int, int, int]:
    """(``sync``: inner steps per outer sync H, ``syncb``: bits per parameter of the outer
    all-reduce, ``sfrag``: fragments P, ``sovl``: overlapped inner steps) of a plan (:func:`sync_values`)."""
    return sync_values(plan.sync_interval, plan.sync_bytes, plan.sync_fragments, plan.sync_overlap)


def sync_values(h: Any, b: Any, fragments: Any = 1, overlap: Any = 0) -> tuple[int, int, int, int]:
    """(H, bits per parameter of DiLoCo's outer all-reduce, fragments, overlapped inner steps) of
    ``sync_interval`` ``h``, ``sync_bytes`` ``b``, ``sync_fragments`` and ``sync_overlap``, checked: H
    an integer >= 1, ``sync_bytes`` a whole number of bits from 1 to 64, fragments P >= 1 and overlap
    τ >= 0 integers with P·max(τ, 1) <= H (a fragment every H/P steps, its overlap done before the
    next); all but H only with H > 1 (the one check of ``train`` and ``search train``)."""
    _, bits = _sync_interval_bytes(h, b)
    for name, v, low in (("sync_fragments", fragments, 1), ("sync_overlap", overlap, 0)):
        if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= checks.MAX_COUNT:
            raise PlanError(f"{name} must be an integer >= {low}, got {v!r}")
    if (fragments, overlap) != (1, 0) and h == 1:
        raise PlanError("sync_fragments / sync_overlap need sync_interval > 1 (Streaming DiLoCo)")
    if fragments * max(overlap, 1) > h:
        raise PlanError(
            f"sync_fragments * sync_overlap must be at most sync_interval ({fragments} * {overlap} > {h}): "
            "one fragment syncs every sync_interval / sync_fragments steps and its overlap ends before the next"
        )
    return h, bits, fragments, overlap


def _sync_interval_bytes(h: Any, b: Any) -> tuple[int, int]:
    """(H, bits) of ``sync_interval`` and ``sync_bytes``, checked (:func:`sync_values`)."""
    if isinstance(h, bool) or not isinstance(h, int) or not 1 <= h <= checks.MAX_COUNT:
        raise PlanError(f"sync_interval must be an integer >= 1 (inner steps per DiLoCo sync), got {h!r}")
    if b is None:
        return h, SYNC_BITS
    bits = b * 8 if isinstance(b, (int, float)) and not isinstance(b, bool) and math.isfinite(b) else -1
    if not (1 <= bits <= 64 and bits == int(bits)):
        raise PlanError(
            f"sync_bytes must be bytes per parameter in whole bits, 0.125 to 8 (e.g. 4, 2, 0.5), got {b!r}"
        )
    if h == 1:
        raise PlanError("sync_bytes needs sync_interval > 1 (DiLoCo's outer all-reduce)")
    return h, int(bits)


def check_fragments(spec: ModelSpec, fragments: int) -> None:
    """PlanError when Streaming DiLoCo's fragments outnumber the model's layers (a fragment is a
    group of whole layers, arXiv 2501.18512 §2.1)."""
    if fragments > n_layers(spec):
        raise PlanError(
            f"sync_fragments {fragments}: a fragment is a group of whole layers; the model has {n_layers(spec)}"
        )


def imbalance_column(x: Any) -> int:
    """``ep_imbalance`` as a column value: the busiest rank's load over the mean in thousandths, 0
    for None (:data:`~llmcost.graph.ops.EP_IMBALANCE`); one clear line for anything but
    a number >= 1."""
    return 0 if x is None else int(round(1000 * checked_ep_imbalance(x)))


def recompute_mask(plan: TrainPlan) -> int:
    """The plan's ``rcm`` column: the bits of the modules selective recomputation recomputes
    (:mod:`llmcost.training.recompute`; the attention core when the plan names none), 0 for every
    other recompute mode."""
    mods = DEFAULT_MODULES if plan.recompute_modules is None else plan.recompute_modules
    return int(selective_column(plan.recompute == "selective", modules_mask(mods)))


def expert_tp_of(plan: TrainPlan, tp: int) -> int:
    """The plan's expert tensor-parallel degree, checked: ``tp`` (None, Megatron-Core's default) or,
    with expert parallelism, 1."""
    e = plan.expert_tp
    if e is None:
        return tp
    if isinstance(e, bool) or e not in (1, tp):
        raise PlanError(f"expert_tp must be 1 (whole experts, Parallel Folding) or tp = {tp}, got {e!r}")
    if e != tp and _int(plan.ep, "ep") == 1:
        raise PlanError("expert_tp 1 needs expert parallelism (ep > 1); without it the experts follow tp")
    return int(e)


def mtp_of(spec: ModelSpec, plan: TrainPlan) -> int:
    """The plan's ``mtp_layers``, checked: an integer >= 0, on a decoder-only model."""
    n = plan.mtp_layers
    most = spec.num_layers - spec.mtp_trained
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= most:
        raise PlanError(
            f"mtp_layers must be a whole number of MTP modules >= 0 and at most the model's {most} layers"
            f" (e.g. 1), got {n!r}"
        )
    if n and spec.is_encoder_decoder:
        raise PlanError(
            f"mtp_layers: {spec.name} is an encoder-decoder; MTP modules are trained on decoder-only models"
        )
    return n


def training_spec(spec: ModelSpec, plan: TrainPlan) -> ModelSpec:
    """The model as ``plan`` trains it: with its MTP modules (:func:`llmcost.training.base.with_mtp`)
    and its stated pipeline layout (:func:`layout_chunks`)."""
    from dataclasses import replace

    out = with_mtp(spec, mtp_of(spec, plan))
    chunks = layout_chunks(out, plan)
    return out if chunks == out.pp_chunks else replace(out, pp_chunks=chunks)


def _check_offload_layers(spec: ModelSpec, plan: TrainPlan, pp: int) -> None:
    """``offload_layers`` where Megatron-Core runs it (:attr:`TrainPlan.offload_layers`): a count below
    the model's layers, with pp 1, no recomputation and not beside ``offload_activations``."""
    n = plan.offload_layers
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise PlanError(f"offload_layers must be a layer count >= 0, got {n!r}")
    if n == 0:
        return
    problems = [
        (
            n >= spec.num_layers,
            f"offload_layers {n}: {spec.name} has {spec.num_layers} layers; offload fewer",
        ),
        (pp > 1, "offload_layers needs pp 1 (Megatron-Core offloads no pipeline-parallel model)"),
        (plan.recompute != "none", "offload_layers needs recompute none (Megatron-Core refuses both)"),
        (
            plan.offload_activations,
            "offload_layers and offload_activations both offload activations: set one",
        ),
    ]
    for broken, message in problems:
        if broken:
            raise PlanError(message)


def layout_chunks(spec: ModelSpec, plan: TrainPlan) -> tuple[int, ...] | None:
    """Layers (decoder layers and MTP modules) per chunk of the plan's ``pp_layout``, checked as
    Megatron-Core checks it (validate_layer_layout: the embedding first, the loss last, every decoder
    layer and MTP module once, MTP modules after the decoder layers, ``pp x virtual stages`` chunks);
    None without one. PlanError naming what is wrong."""
    text = plan.pp_layout
    if text is None:
        return None
    if not isinstance(text, str):
        raise PlanError(f"pp_layout must be a layout string such as 'Et*4|(t*4|)*14tmL', got {text!r}")
    try:
        chunks = parse_pp_layout(text)
    except ValueError as e:
        raise PlanError(f"pp_layout {text!r}: {e}") from None
    flat = "".join(chunks)
    pp = _int(plan.pp, "pp")
    v = _int(plan.virtual_stages or 1, "virtual_stages") if plan.schedule == "interleaved" else 1
    decoders, mtp = flat.count("t"), flat.count("m")
    problems = [
        (len(chunks) != pp * v, f"{len(chunks)} chunks, the plan has pp x virtual stages = {pp * v}"),
        (not flat.startswith("E") or flat.count("E") != 1, "the embedding E once, first"),
        (not flat.endswith("L") or flat.count("L") != 1, "the loss L once, last"),
        (decoders != spec.num_layers - spec.mtp_trained, f"{decoders} decoder layers t, {spec.name} has {spec.num_layers - spec.mtp_trained}"),
        (mtp != spec.mtp_trained, f"{mtp} MTP modules m, the plan trains mtp_layers = {spec.mtp_trained}"),
        ("t" in flat[flat.find("m") :] if mtp else False, "MTP modules m after every decoder layer t"),
    ]  # fmt: skip
    for broken, what in problems:
        if broken:
            raise PlanError(f"pp_layout {text!r}: {what}")
    return tuple(c.count("t") + c.count("m") for c in chunks)


def check_recompute_modules(spec: ModelSpec, plan: TrainPlan) -> None:
    """``recompute_modules``: a list of known module names, only with selective recomputation, each
    one the model has (PlanError naming what is wrong, with a did-you-mean)."""
    mods = plan.recompute_modules
    if mods is None:
        return
    if isinstance(mods, str) or not isinstance(mods, (list, tuple)):
        raise PlanError(
            f"recompute_modules must be a list of module names (e.g. [layernorm, moe_act]), got {mods!r}"
        )
    if plan.recompute != "selective":
        raise PlanError(
            f"recompute_modules needs recompute selective (Megatron-Core --recompute-granularity "
            f"selective), the plan has recompute {plan.recompute!r}"
        )
    from llmcost.errors import did_you_mean

    for m in mods:
        if m not in RECOMPUTE_MODULES:
            raise PlanError(
                f"recompute module {m!r} is not one of {', '.join(RECOMPUTE_MODULES)}"
                f"{did_you_mean(str(m), RECOMPUTE_MODULES)}"
            )
    need = {"mla_up_proj": (spec.mla is not None, "MLA attention")}
    for m in ("moe_act", "shared_experts", "moe"):
        need[m] = (spec.is_moe, "MoE layers")
    for m in mods:
        has, what = need.get(m, (True, ""))
        if not has:
            raise PlanError(f"recompute module {m!r} needs a model with {what}; {spec.name} has none")
    if "shared_experts" in mods and not (spec.moe and spec.moe.num_shared_experts):
        raise PlanError(f"recompute module 'shared_experts' needs shared experts; {spec.name} has none")


def goodput_of(plan: TrainPlan) -> float:
    """The plan's goodput, checked: a fraction in (0, 1]; None gives the sourced default."""
    from llmcost.training.run import GOODPUT

    g = plan.goodput
    if g is None:
        return GOODPUT
    if isinstance(g, bool) or not isinstance(g, (int, float)) or not math.isfinite(g) or not 0 < g <= 1:
        raise PlanError(f"goodput must be a fraction of wall time in (0, 1], e.g. 0.9, got {g!r}")
    return float(g)


def _check_ep_overlap(plan: TrainPlan, ep: int, pp: int) -> None:
    """``ep_overlap`` only where Megatron-Core runs it (:data:`llmcost.training.columns.EP_OVERLAP_NEEDS`):
    PlanError with the first unmet need's line."""
    from llmcost.training.columns import EP_OVERLAP_NEEDS

    if not plan.ep_overlap:
        return
    c = {
        "ep": np.array([ep]),
        "pp": np.array([pp]),
        "rc": np.array([RECOMPUTE.index(plan.recompute)]),
        "sched": np.array([SCHEDULES.index(plan.schedule)]),
    }
    for test, message in EP_OVERLAP_NEEDS:
        if not test(c)[0]:
            raise PlanError(message)


def rule_fields(spec: ModelSpec, plan: TrainPlan, hw: Hardware) -> RuleFields:
    """The fields :data:`RULES` read of one plan, each key checked for its type and domain
    (PlanError naming the key); ``dp`` defaults to what the GPU count leaves (rounded down: a
    GPU count the other degrees do not divide breaks the first rule)."""
    gpus = _int(plan.gpus, "gpus")
    tp, pp, cp, ep = (_int(getattr(plan, k), k) for k in ("tp", "pp", "cp", "ep"))
    dp = gpus // (tp * pp * cp) if plan.dp is None else _int(plan.dp, "dp")
    for key, value, allowed in (
        ("recompute", plan.recompute, RECOMPUTE),
        ("schedule", plan.schedule, SCHEDULES),
        ("precision", plan.precision, PRECISIONS),
        ("offload", plan.offload, OFFLOAD),
        ("attention", plan.attention, ATTENTION),
        ("fp8_recipe", plan.fp8_recipe, FP8_RECIPES),
    ):
        if value not in allowed:
            raise PlanError(f"{key} '{value}': use one of {', '.join(allowed)}")
    zero = plan.zero
    if isinstance(zero, bool) or zero not in (0, 1, 2, 3):
        raise PlanError(f"zero must be 0, 1, 2, 3 or fsdp, got {zero!r}")
    for key in (*FLAG_KEYS, *OPTION_KEYS, "offload_activations"):
        if not isinstance(getattr(plan, key), bool):
            raise PlanError(f"{key} must be true or false, got {getattr(plan, key)!r}")
    _check_ep_overlap(plan, ep, pp)
    _check_offload_layers(spec, plan, pp)
    check_recompute_modules(spec, plan)
    mtp_of(spec, plan)
    layout_chunks(with_mtp(spec, plan.mtp_layers), plan)
    if plan.tp_overlap and plan.tp_fused_rs:
        raise PlanError(
            "tp_overlap and tp_fused_rs are two ways to hide the same reduce-scatter: set one of them"
        )
    etp = expert_tp_of(plan, tp)
    bucket_column(plan.zero3_bucket)
    imbalance_column(plan.ep_imbalance)
    goodput_of(plan)
    pue_of(plan.pue)
    sync_columns(plan)
    sched = SCHEDULES.index(plan.schedule)
    if sched == _INTERLEAVED:
        v = _int(plan.virtual_stages if plan.virtual_stages is not None else 2, "virtual_stages")
    else:
        v = plan.virtual_stages if plan.virtual_stages is not None else 1
    mb = _int(plan.micro_batch, "micro_batch")
    gb = dp * mb if plan.global_batch is None else _int(plan.global_batch, "global_batch")
    seq = _int(plan.seq_len if plan.seq_len is not None else default_seq_len(spec), "seq_len")
    return RuleFields(
        gpus=gpus,
        tp=tp,
        pp=pp,
        dp=dp,
        cp=cp,
        ep=ep,
        dp_given=plan.dp is not None,
        node=node_size(hw, gpus, plan.gpus_per_node),
        seq=seq,
        sched=sched,
        v=v,
        mb=mb,
        gb=gb,
        zero=int(zero),
        distopt=bool(plan.distributed_optimizer),
        prec=PRECISIONS.index(plan.precision),
        sp=-1 if plan.sp is None else int(bool(plan.sp)),
        tpo=2 if plan.tp_fused_rs else int(plan.tp_overlap),
        offload=OFFLOAD.index(plan.offload),
        rc=RECOMPUTE.index(plan.recompute),
        sync=plan.sync_interval,
        hw=hw,
        etp=etp,
    )


def check(spec: ModelSpec, plan: TrainPlan, hw: Hardware) -> Layout:
    """Validate ``plan`` against the model and hardware: each key's type and domain
    (:func:`rule_fields`), then :data:`RULES`; PlanError with the first broken rule's message."""
    f = rule_fields(spec, plan, hw)
    for rule in RULES:
        if rule.broken(spec, f):
            raise PlanError(rule.message(spec, f))
    check_fragments(spec, plan.sync_fragments)
    m = f.gb // (f.dp * f.mb)
    given = plan.micro_batches
    if given is not None and (isinstance(given, bool) or not isinstance(given, (int, float)) or given != m):
        raise PlanError(
            f"plan key 'micro_batches' {given!r} does not match global_batch / (dp * micro_batch) = {m}; "
            "it is derived: drop it or fix the batch keys"
        )
    flash = plan.attention == "flash" or (
        plan.attention == "auto" and bool(auto_flash(spec, plan.recompute == "selective"))
    )
    wl = _workload(plan)
    return Layout(
        plan,
        f.tp,
        f.pp,
        f.dp,
        f.cp,
        f.ep,
        bool(sequence_parallel(f.sp, f.tp)),
        f.v,
        m,
        f.seq,
        f.gb,
        stage_layers(spec, f.pp, f.v),
        f.node,
        flash,
        wl,
    )


def plan_columns(lay: Layout) -> dict[str, np.ndarray]:
    """One checked plan as length-1 columns (:data:`llmcost.training.columns.COLS`)."""
    p = lay.plan
    row = {
        "gpus": p.gpus,
        "tp": lay.tp,
        "pp": lay.pp,
        "cp": lay.cp,
        "ep": lay.ep,
        "dp": lay.dp,
        "mb": p.micro_batch,
        "v": lay.v,
        "sched": SCHEDULES.index(p.schedule),
        "zmode": ZMODES.index((int(p.zero), bool(p.distributed_optimizer))),
        "rc": RECOMPUTE.index(p.recompute),
        "rcm": recompute_mask(p),
        "etp": expert_tp_of(p, lay.tp),
        "prec": PRECISIONS.index(p.precision),
        "sp": int(lay.sp),
        "flash": int(lay.flash),
        "auto": int(p.attention == "auto"),
        "offload": OFFLOAD.index(p.offload),
        "overlap": int(p.overlap_dp),
        "tpo": 2 if p.tp_fused_rs else int(p.tp_overlap),
        "fnorm": int(p.fused_norm),
        "fact": int(p.fused_act),
        "z3b": bucket_column(p.zero3_bucket),
        "epi": imbalance_column(p.ep_imbalance),
        "frope": int(p.fused_rope),
        "ppo": int(p.pp_overlap),
        "tpb": int(p.tp_bwd_overlap),
        "fce": int(p.fused_ce),
        "fp8r": FP8_RECIPES.index(p.fp8_recipe),
        "aoff": int(p.offload_activations),
        "aofl": int(p.offload_layers),
        **dict(zip(("sync", "syncb", "sfrag", "sovl"), sync_columns(p), strict=True)),
        "gf32": int(grad_fp32(p)),
        **{col: int(getattr(p, k)) for k, col in OPTION_COLUMNS.items()},
    }
    return {k: np.array([row[k]], dtype=np.int64) for k in TS.COLS}


def _no_stack_only(stack: Any) -> None:
    """A TrainPlan's ``stack`` key: ``none`` or absent; one clear line otherwise."""
    from llmcost.stacks import is_no_stack

    if stack is not None and not is_no_stack(stack):
        raise UserError(
            f"plan key 'stack' ({stack!r}): a TrainPlan applies no profile; cost the plan with "
            "llmcost.api.train (or llmcost train --plan) to apply it, or say stack: none"
        )


ZERO3_NOTE = (
    "ZeRO-3: each layer's parameter gather is assumed to overlap the previous layer's compute (NCCL-ideal "
    "prefetch, as FSDP and DeepSpeed from v0.6.0 run it; DeepSpeed's 2021 ZeRO-3 did not prefetch: "
    "zero3_serial, --stack deepspeed:2021): optimistic where the gathers cross more ranks than the "
    "published runs the band is read off"
)
ZERO3_SERIAL_NOTE = (
    "ZeRO-3: every gather and reduce-scatter on the critical path, none under compute (zero3_serial: "
    "DeepSpeed before v0.6.0)"
)


def _bucket_note(bucket: int, serial: bool) -> str:
    """The ZeRO-3 note of a plan whose parameters move in prefetch buckets."""
    return (
        f"ZeRO-3: parameters gathered (and gradients reduce-scattered) in buckets of {bucket:.3g} "
        "parameters, one collective each over the data-parallel ranks (zero3_bucket); "
        + (
            "none overlaps compute (zero3_serial)"
            if serial
            else "each bucket's gather is assumed to overlap the previous layer's compute"
        )
    )


def dispatch_note(plan: TrainPlan, lay: Layout) -> str:
    """How an expert-parallel plan moves its tokens: the dispatcher and whether another micro-batch's
    compute hides the all-to-all (with the share of micro-batches the schedule leaves unpaired)."""
    from llmcost.training.columns import unpaired_column

    how = (
        "each token once per node holding its experts, forwarded over the scale-up link (ep_deepep)"
        if plan.ep_deepep
        else "NCCL all-to-all of every (token, expert) copy (ep_deepep for a DeepEP-style dispatcher)"
    )
    if plan.ep_overlap:
        u = int(unpaired_column(1, lay.ep, lay.pp, lay.v, lay.m)[()]) / 1e6
        hidden = (
            f"hidden under the paired micro-batch's compute, {u:.1%} of micro-batches unpaired (ep_overlap)"
        )
    else:
        hidden = "on the critical path (ep_overlap to hide it under another micro-batch's compute)"
    return f"expert all-to-all: {how}; {hidden}"


def imbalance_note(stated: float | None) -> str:
    """What an expert-parallel plan assumes of the routing: the busiest EP rank's load over the mean."""
    from llmcost.graph.ops import EP_IMBALANCE
    from llmcost.training.base import EP_IMBALANCE_SOURCE

    if stated is not None:
        return (
            f"expert parallelism: the busiest EP rank takes {stated:g}x the mean routed tokens "
            "(ep_imbalance); its expert GEMMs and all-to-all volume set the MoE layers' time, MFU "
            "counts the mean"
        )
    return (
        f"expert parallelism: the busiest EP rank takes {EP_IMBALANCE:g}x the mean routed tokens "
        f"({EP_IMBALANCE_SOURCE}; plan key ep_imbalance to state yours, 1 for a force-balanced router)"
    )


def zero3_note(plan: TrainPlan) -> str:
    """The ZeRO-3 note of ``plan``: how its parameters move and what overlaps them."""
    if plan.zero3_bucket is not None:
        return _bucket_note(bucket_column(plan.zero3_bucket), plan.zero3_serial)
    return ZERO3_SERIAL_NOTE if plan.zero3_serial else ZERO3_NOTE


def diloco_note(res: TrainResult) -> str:
    """What a DiLoCo plan's data-parallel line is: the outer all-reduce, how often, the reduction,
    and the same plan as ordinary data parallelism (:func:`ordinary_dp`)."""
    lay, dp = res.layout, res.ordinary_dp or {}
    same = (
        f"; as ordinary data parallelism the same plan steps in {dp['iteration_time_s']:.4g} s "
        f"(dp comm {dp['dp_comm_s']:.3g} s), {res.step_time and dp['iteration_time_s'] / res.step_time:.3g}x "
        "DiLoCo's step time"
        if dp
        else ""
    )
    plan, v = lay.plan, res.values
    how = (
        f"in {plan.sync_fragments} fragments ({v['t_frag']:.3g} s each, overlapping {plan.sync_overlap} inner "
        f"steps of {v['t_inner']:.3g} s: Streaming DiLoCo; dp comm is the excess per step)"
        if (plan.sync_fragments, plan.sync_overlap) != (1, 0)
        else f"({v['t_dp']:.3g} s, blocking; dp comm is it per step)"
    )
    return (
        f"DiLoCo: {lay.dp} workers (the data-parallel ranks) all-reduce their parameter deltas every "
        f"{plan.sync_interval} steps {how}: "
        f"{res.row['dp_comm_reduction']:.4g}x fewer data-parallel bytes per token than ordinary data "
        f"parallelism{same}; the outer Nesterov step (once per sync) is not costed"
    )


def ordinary_dp(spec: ModelSpec, hw: Hardware, lay: Layout) -> dict[str, float]:
    """The plan of ``lay`` with ``sync_interval`` 1 (a gradient reduction every step, overlapped as
    the plan says) through the same composition: its step time, tokens/s and exposed data-parallel
    time, for the comparison DiLoCo is about."""
    cols = plan_columns(lay)
    cols["sync"][:], cols["syncb"][:], cols["sfrag"][:], cols["sovl"][:] = 1, SYNC_BITS, 1, 0
    out = TS.evaluate(spec, hw, cols, lay.seq, lay.global_batch, lay.plan.gpus_per_node)
    return {
        "iteration_time_s": float(out["iteration_time_s"][0]),
        "tokens_per_s": float(out["tokens_per_s"][0]),
        "dp_comm_s": float(out["dp_comm"][0]),
    }


def wan_note(hw: Hardware, lay: Layout) -> str | None:
    """Where the job spans WAN sites (the hardware's ``wan`` tier): how many, and what crosses."""
    site = hw.wan_site()
    if site is None or lay.plan.gpus <= site:
        return None
    t = next(t for t in hw.fabric if t.topology == "wan")
    what = (
        "the outer all-reduce (DiLoCo)" if lay.plan.sync_interval > 1 else "every step's gradient reduction"
    )
    return (
        f"WAN: {lay.plan.gpus // site} sites of {site} GPUs joined by '{t.key}' ({t.bandwidth * site * 8 / 1e9:.4g} "
        f"Gbit/s per site one way, {t.latency * 1e3:.4g} ms); whole replicas (tp*pp = {lay.tp * lay.pp}) sit in a "
        f"site, data parallelism spans the sites, so {what} crosses it"
    )


def workload_note(spec: ModelSpec, res: TrainResult) -> str:
    """What a plan's sequence-length distribution does to its step (:mod:`llmcost.training.seqdist`)."""
    from llmcost.training import seqdist as SD

    lay = res.layout
    wl = lay.workload
    assert wl is not None
    d, seq = wl.dist, lay.seq
    head = f"sequence lengths: {len(d.lengths)} lengths, mean {d.mean:.4g} tokens; "
    if wl.packing == "none":
        body = (
            f"no packing: micro-batches padded to their longest sequence (truncated at {seq}), "
            f"{SD.padding_overhead(d, seq, lay.plan.micro_batch):.3g} tokens computed per real token"
        )
    elif wl.packing == "causal":
        body = f"packed into {seq}-token sequences under one causal mask each (no document mask)"
    else:
        share = SD.doc_share(d, seq, SD.windows_of(spec)[-1])
        body = f"packed into {seq}-token sequences, a document mask keeping {share:.3g} of the causal pairs"
        if wl.dynamic_cp and lay.cp > 1:
            body += f"; dynamic CP: each sequence on the fewest of {lay.cp} CP ranks holding it at {seq // lay.cp} tokens each"
    if wl.balanced():
        tail = "; the scheduler balances the data-parallel ranks"
    else:
        tail = f"; the slowest of {lay.dp} data-parallel ranks stretches each micro-batch x{res.row['straggler']:.4g}"
    return head + body + tail + f"; memory sized at {seq} tokens per sequence"


def _fit_hint(plan: TrainPlan, memory: dict[str, float]) -> str:
    """What would shrink the largest memory component (one suggestion line for the error)."""
    big = max(memory, key=lambda k: memory[k])
    if plan.sync_interval > 1 and big in ("optimizer", "gradients"):
        return "raise tp/pp (DiLoCo workers keep whole optimizer states: no ZeRO across them)"
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
    if _too_few_layers(n, pp, v):
        return f"{n} layers cannot fill pp*v = {pp * v} pipeline chunks (each chunk holds at least one layer)"
    return None


@dataclass
class TrainResult:
    """Everything ``llmcost train`` reports for one plan (SI units; per device unless stated).

    ``row`` is the plan's row of :func:`llmcost.training.step.evaluate`; the rates, MFU / HFU
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
    ordinary_dp: dict[str, float] | None = None
    """With DiLoCo (``sync_interval`` > 1): the same plan as ordinary data parallelism (a gradient
    reduction every step), :func:`ordinary_dp`: ``iteration_time_s``, ``tokens_per_s``, ``dp_comm_s``."""

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
        """The validation README's train metric names (per step); with DiLoCo (``sync_interval``
        > 1) also :data:`SYNC_METRICS`."""
        diloco = self.layout.plan.sync_interval > 1
        return {k: self.row[k] for k in (*METRICS, *(SYNC_METRICS if diloco else ()))}


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
SYNC_METRICS = ("dp_comm_reduction",)
"""DiLoCo's metric: data-parallel bytes per token of ordinary data parallelism over the plan's
(``diloco__comm_reduction``; 1 for ordinary data parallelism)."""
SUBLAYER_METRICS = ("sublayer_speedup",)
"""T3's metric (Pati et al. 2024 §6.1): the geometric mean over the plan's TP sublayers of their
speed-up over running each GEMM and its collective(s) one after the other (:func:`sublayer_speedup`
of :func:`sublayer_rows`; computed when asked, not with the step)."""
SPEEDUP_METRICS = ("step_speedup",)
"""A ratio of two plans' step times: the case's plan with its ``metric.baseline`` keys over the plan
itself (e.g. static over dynamic context parallelism)."""
POWER_CAP_METRICS = ("power_cap_time_ratio", "power_cap_energy_ratio")
"""A power-capped plan over the same plan at the default limit: step time, and device energy per step
(mean draw x step time); the plan sets ``power_cap``."""
RUN_METRICS = ("time_to_train_s", "gpu_hours", "total_flops", "cost_usd")
"""Metrics of a whole training run (they need its token count; ``cost_usd`` also a price)."""


def evaluate(spec: ModelSpec, plan: TrainPlan, hw: Hardware, *, check_memory: bool = False) -> TrainResult:
    """Step time, FLOPs, MFU/HFU and memory per device of ``plan`` (see the module docstring).

    The plan is checked (:func:`check`) and costed as a length-1 array by
    :func:`llmcost.training.step.evaluate`, the composition ``llmcost search train`` runs on its
    grids; this function only adds the notes. With attention 'auto', a plan whose materialized
    scores do not fit is costed with FlashAttention (noted). ``check_memory``: PlanError when the
    plan does not fit, else a note."""
    from dataclasses import replace

    spec = training_spec(spec, plan)
    hw = hw.with_network(plan.network)
    cap = cap_of(plan.power_cap)
    base, hw = hw, capped(hw, cap)
    lay = check(spec, plan, hw)
    cols = plan_columns(lay)
    out = TS.evaluate(spec, hw, cols, lay.seq, lay.global_batch, plan.gpus_per_node, workload=lay.workload)
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
        row["tokens_per_step"],
        plan.gpus,
        hw.peak[plan.precision],
        lay,
        row=row,
    )
    res.values = {k: row[k] for k in TS.VALUES if k in row}
    res.values.update(n_micro=lay.m, pp=lay.pp, v_stages=lay.v)
    if plan.sync_interval > 1:
        res.ordinary_dp = ordinary_dp(spec, hw, lay)
    res.notes += _notes(spec, hw, res, check_memory)
    res.notes += [
        n for n in (throttle_note(hw, row["kappa_clk"], row["power_limit"]), cap_note(base, cap)) if n
    ]
    res.notes.append(
        draw_note(hw) + ": forward, backward and recomputation compute-bound, optimizer and offload "
        "memory-bound, exposed communication and bubbles idle"
        + (f"; facility energy at PUE {pue_of(plan.pue):g}" if plan.pue not in (None, 1, 1.0) else "")
    )
    if fell_back:
        res.notes.append("auto attention: materialized scores do not fit in memory, FlashAttention costed")
    return res


def operator_breakdown(spec: ModelSpec, plan: TrainPlan, hw: Hardware) -> list[ShapeOperators]:
    """Per layer shape, one layer's operators (one micro-batch, one device) as the step of
    :func:`evaluate` costs ``plan``: the same configuration (attention 'auto' decided by memory) through
    the same functions (:func:`llmcost.training.layers.layer_operators`), per-operator figures kept;
    with a sequence-length distribution, its micro-batch shape with the largest share of the slots."""
    from llmcost.training.layers import layer_operators

    spec = training_spec(spec, plan)
    hw = hw.with_network(plan.network)
    hw = capped(hw, cap_of(plan.power_cap))
    lay = check(spec, plan, hw)
    p, _ = TS.costed_plans(spec, hw, plan_columns(lay), lay.seq, lay.global_batch, plan.gpus_per_node)
    if lay.workload is not None:  # the micro-batch shape that fills most slots
        from llmcost.training.seqdist import windows_of

        shapes = lay.workload.variants(lay.seq, lay.cp, plan.micro_batch, windows_of(spec))
        v = max(shapes, key=lambda x: x.time)
        p = p.variant(np.arange(p.n), v.seq, v.cp, v.shares)
    return layer_operators(spec, hw, p)


def operator_rows(shapes: list[ShapeOperators]) -> list[dict[str, Any]]:
    """:func:`operator_breakdown` as rows (numbers, SI): per layer shape (``layer``, ``layers`` of it in
    the model) its forward then backward operators (``phase``; a forward row's ``recompute_s`` is its
    recomputation) with executed ``flops``, ``hbm_bytes``, ``time_s``, attained ``flops_per_s`` and
    ``bound``, then its collectives (``phase`` ``exposed``: their time left exposed over the passes).
    Operators with no work are left out; per shape and phase, the times sum to the layer's in the step."""
    rows: list[dict[str, Any]] = []
    for s in shapes:
        head = {"layer": _shape_label(s.shape, s.window, s.stack), "layers": s.layers}
        rc = np.broadcast_to(np.asarray(s.t_op_rc, dtype=float), np.shape(s.fwd.time))
        for phase, ps in (("forward", s.fwd), ("backward", s.bwd)):
            bound = np.broadcast_to(ps.roofline.bound, np.shape(ps.time))
            for j, o in enumerate(s.ops):
                fl, by, t = (float(np.ravel(x[j])[0]) for x in (ps.flops, ps.bytes, ps.time))
                if t == 0.0:
                    continue
                row = {**head, "phase": phase, "op": o.name, "kind": o.kind, "flops": fl, "hbm_bytes": by}
                rc_j = float(np.ravel(rc[j])[0]) if phase == "forward" else 0.0
                rows.append(
                    row
                    | {
                        "time_s": t,
                        "recompute_s": rc_j,
                        "flops_per_s": fl / t,
                        "bound": str(np.ravel(bound[j])[0]),
                    }
                )
        for o, t in s.comm:
            if float(t[0]) > 0.0:
                row = {
                    **head,
                    "phase": "exposed",
                    "op": o.name,
                    "kind": "collective",
                    "flops": 0.0,
                    "hbm_bytes": 0.0,
                }
                rows.append(
                    row | {"time_s": float(t[0]), "recompute_s": 0.0, "flops_per_s": 0.0, "bound": "network"}
                )
    return rows


def sublayer_rows(spec: ModelSpec, plan: TrainPlan, hw: Hardware) -> list[dict[str, Any]]:
    """The plan's TP sublayers (T3's unit, Pati et al. 2024 §6.1: a GEMM and the collective(s) that
    reduce its output; :func:`llmcost.training.layers.sublayers`), one row per layer shape, block and
    pass, as the step of :func:`evaluate` costs them (one micro-batch on one device): ``gemm_s``,
    ``collective_s`` (alone), ``sequential_s`` (one after the other), ``plan_s`` (with what the plan
    leaves exposed) and ``speedup`` (``sublayer__speedup``); none without TP."""
    from llmcost.training import _generated as G
    from llmcost.training.layers import layer_sublayers

    spec = training_spec(spec, plan)
    lay = check(spec, plan, hw)
    p, _ = TS.costed_plans(spec, hw, plan_columns(lay), lay.seq, lay.global_batch, plan.gpus_per_node)
    rows: list[dict[str, Any]] = []
    for shape, window, stack, n, subs in layer_sublayers(spec, hw, p):
        for sub in subs:
            g, c, x = (float(np.ravel(v)[0]) for v in (sub.t_gemm, sub.t_coll, sub.t_exposed))
            rows.append(
                {
                    "layer": _shape_label(shape, window, stack),
                    "layers": n,
                    "phase": sub.phase,
                    "gemm": sub.gemm + (" dgrad" if sub.phase == "backward" else ""),
                    "collective": sub.collective,
                    "gemm_s": g,
                    "collective_s": c,
                    "sequential_s": g + c,
                    "plan_s": g + x,
                    "speedup": float(G.sublayer__speedup(c, x, g)),
                }
            )
    return rows


def sublayer_speedup(rows: list[dict[str, Any]]) -> float:
    """Geometric mean of the :func:`sublayer_rows` speed-ups, each sublayer weighted by the layers
    of its shape (T3 §6.1 reports the geometric mean over a model's sublayers); 1 without TP."""
    w = np.array([r["layers"] for r in rows], dtype=float)
    if not w.size or w.sum() <= 0:
        return 1.0
    ln = np.log(np.array([r["speedup"] for r in rows], dtype=float))
    return float(np.exp((w * ln).sum() / w.sum()))


def _shape_label(shape: str, window: int | None, stack: str) -> str:
    """``dense``, ``moe``, ``mla moe``, ``encoder dense``, ``dense window 4096``: a layer shape in words."""
    if stack == "io":
        return "MTP module: embedding, projection, head, loss" if shape == "mtp" else "embedding, head, loss"
    words = [w for w in shape.split("__")[1:] if w != "std"]
    return " ".join(
        (["encoder"] if stack == "enc" else []) + words + ([f"window {window}"] if window else [])
    )


def _notes(spec: ModelSpec, hw: Hardware, res: TrainResult, check_memory: bool) -> list[str]:
    """The notes of a costed plan: attention costed, context, ZeRO-3, assumed hardware figures,
    uneven pipeline and, when it does not fit, why and what would help (PlanError with
    ``check_memory``)."""
    lay, plan, memory = res.layout, res.layout.plan, res.memory
    notes = [
        f"attention {'FlashAttention (causal blocks skipped)' if lay.flash else 'materialized s^2 scores'}"
    ]
    notes += [n for n in (R.context_note(spec, lay.seq),) if n]
    if lay.workload is not None:
        notes.append(workload_note(spec, res))
    notes.append(TS.FLOPS_CONVENTION)
    if plan.zero == 3:
        notes.append(zero3_note(plan))
    if spec.moe is not None and lay.ep > 1:
        notes.append(imbalance_note(plan.ep_imbalance))
        notes.append(dispatch_note(plan, lay))
    notes += [n for n in (hw.assumed_note(), wan_note(hw, lay)) if n]
    if plan.sync_interval > 1:
        notes.append(diloco_note(res))
    host_acts = res.row.get("memory_activations_host", 0.0)
    if host_acts:
        what = f"{plan.offload_layers} layers'" if plan.offload_layers else "the stored"
        notes.append(
            f"activation offload: {what} activations on the host, {host_acts / GIB:.1f} GiB per GPU, over"
            " the host link and back, the part longer than the step's compute exposed"
        )
    sizes = [len(x) for x in lay.stage_layers]
    if len(set(sizes)) > 1:
        notes.append(
            "uneven pipeline: " + "/".join(map(str, sizes)) + " layers per stage (the busiest stage"
            " paces the pipeline)"
        )
    cap = hw.memory_usable
    if res.memory_total > cap:
        msg = (
            f"does not fit: {res.memory_total / GIB:.1f} GiB per GPU needed, {hw.id} has "
            f"{cap / GIB:.1f} GiB ("
            + ", ".join(f"{k} {v / GIB:.1f}" for k, v in memory.items() if v)
            + "); "
            + _fit_hint(plan, memory)
        )
        if check_memory:
            raise PlanError(msg)
        notes.append(msg)
    host = _host_over(hw, res)
    if host:
        if check_memory:
            raise PlanError(host)
        notes.append(host)
    return notes


def _host_over(hw: Hardware, res: TrainResult) -> str:
    """Why what the plan offloads does not fit on a node (:func:`llmcost.training.step.host_fits`), or ''."""
    plan = res.layout.plan
    node = hw.node_share(res.layout.gpn)
    row = res.row
    need = TS.host_need(
        OFFLOAD.index(plan.offload), row.get("memory_host", 0.0), row.get("memory_activations_host", 0.0)
    )
    for t, bytes_ in need.items():
        per_device = float(bytes_)
        cap = hw.host_capacity(t)
        if per_device and cap is not None and per_device * node > cap:
            where = "host memory" if t == "cpu" else "NVMe"
            return (
                f"does not fit: the offloaded state needs {per_device * node / 1e12:.2f} TB per node ({node} devices), "
                f"{hw.id}'s node has {cap / 1e12:.2f} TB of {where}; use more nodes (ZeRO shards it) or "
                + ("offload to nvme" if t == "cpu" else "a node with more NVMe")
            )
    return ""
