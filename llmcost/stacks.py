"""Software-stack profiles: what a training framework makes of the silicon.

Hardware says what the silicon can do; the stack says what software makes of it: which
communication it overlaps with compute, which kernels it runs, how its ZeRO-3 / FSDP gathers
parameters. A validation case names its stack as ``stack: {framework, year}``; :func:`profile_for`
turns that into a :class:`Profile`.

Every behaviour field of every profile carries a source in ``Profile.sources`` (field -> URL,
paper section, or repository path with a commit / release date). A field nobody documents keeps
the dataclass default and its source reads ``"default: not documented"``. Values are the
stack's *defaults* (flag defaults, or the configs it ships where it says so in ``notes``), not
what the best-tuned run of that year enabled: an opt-in fast path is recorded separately
(``attention_opt_in``) or in ``notes``. Facts only; no code is copied from the sources.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, Literal

from llmcost.errors import UserError

Attention = Literal["materialized", "flash1", "flash2", "flash3", "cudnn"]
GatherUnit = Literal["tensor", "bucket", "layer"]
PPOverlap = Literal["none", "interleaved", "all"]
OptimizerImpl = Literal["none", "foreach", "fused"]

NOT_DOCUMENTED = "default: not documented"
CURRENT_YEAR = 2026  # "today" for a case that names no stack (fixed: results must not drift)


@dataclass(frozen=True)
class Profile:
    """One framework over a range of years. Behaviour fields are listed in :data:`FIELDS`.

    attention: kernel family run by default (``materialized`` = scores written to memory).
    attention_opt_in: a faster family one flag away (``None``: none / same as default).
    fused_attention_with_dropout: whether the default attention stays fused with dropout > 0.
    dp_overlap: data-parallel gradient all-reduce / reduce-scatter overlapped with backward.
    dp_bucket_params / dp_bucket_bytes: gradient bucket size (elements, or bytes).
    dp_param_gather_overlap: ZeRO-1/2 (distributed-optimizer) parameter all-gather overlapped.
    zero3_prefetch: ZeRO-3 / FSDP all-gathers prefetched under compute (else on the critical path).
    zero3_gather_unit: ``tensor`` (per parameter / submodule), ``bucket``, ``layer`` (per block).
    zero3_gather_bucket_params: prefetch bucket (elements) where the unit is a bucket / prefetch window.
    zero3_regather_per_microbatch: parameters re-gathered for each micro-batch under accumulation.
    zero3_copy_out: each gather's buffer copied into the unsharded parameters on the compute stream
    (plan ``zero3_copy_out``; FSDP2's per-parameter sharding).
    tp_comm_overlap / ep_a2a_overlap / cp_overlap: TP, expert all-to-all, context-parallel comm overlap.
    ep_deepep: MoE tokens dispatched node-deduplicated, as DeepEP's normal kernels (plan ``ep_deepep``).
    tp_bwd_overlap: the backward's TP collectives of a column-parallel GEMM run asynchronously under its
    data- and weight-gradient GEMMs (plan ``tp_bwd_overlap``).
    pp_p2p_overlap: pipeline send/recv overlapped (``interleaved``: only in the interleaved schedule).
    sequence_parallel / selective_recompute: available in the stack (Korthikanti 2022).
    fused_optimizer: ``fused`` (one multi-tensor kernel), ``foreach`` (horizontal fusion), ``none``.
    fused_norm / fused_bias_act / fused_rope / fused_cross_entropy: fused kernels on by default.
    fp8_amax_overhead: fraction of step time for fp8 amax/scale bookkeeping, where measured.
    pipeline_overhead_s: fixed per-micro-batch pipeline-engine cost, where measured.
    fp8_recipe: how fp8 GEMM inputs are quantized (plan ``fp8_recipe``: delayed, current, dynamic, block).
    zero_modes: the ZeRO modes the framework runs, as ``search train --zero`` names them (``0``, ``distopt``
    = Megatron's distributed optimizer, ``1``, ``2``, ``3`` = ZeRO-3 / FSDP); ``search train --stack`` searches
    only those unless ``--zero`` asks for others.
    schedules / context_parallel / precisions: the pipeline schedules it runs, whether it has context
    parallelism, the training precisions it runs;
    with ``sequence_parallel`` and ``selective_recompute`` (available or not) they bound what
    ``search train --stack`` searches where documented.
    grad_reduce_in_fp32: gradients accumulated and reduced in fp32 whatever the training precision (True),
    in the 16-bit parameter dtype (False); undocumented: fp32 except in fp16 (plan ``grad_reduce_in_fp32``).
    eager_loss: the loss is PyTorch's eager ``F.cross_entropy`` on an fp32 upcast of the logits (plan
    ``fused_ce`` false); Megatron's own vocab-parallel cross-entropy, fused or not, is not eager.
    autocast_weights: 16-bit mixed precision is ``torch.autocast`` over fp32 parameters, which casts
    every matmul weight at each forward and its gradient back in the backward (plan ``autocast_weights``).
    tp_layout_copy: sequence-parallel TP collectives on the sequence dimension of batch-first
    activations, each copying the full activation once (plan ``tp_layout_copy``).
    pp_p2p_full: pipeline send/recv as DeepSpeed's PipelineEngine runs them: each TP rank sends the
    whole boundary activation, and every send and receive is its own blocking call (plan ``pp_p2p_full``).
    fp8_hp_inputs: fp8 training keeps each linear layer's input for the backward in 16 bits (torchao's
    float8), not as its fp8 cast (Transformer Engine) (plan ``fp8_hp_inputs``).
    optimizer_passes: the mixed-precision optimizer runs its own passes around the Adam step (Megatron's
    ``Float16OptimizerWithFloat16Params``: gradient copy, fp16 unscale, gradient norm, master re-read)
    (plan ``optimizer_passes``).
    """

    framework: str
    years: tuple[int, int]
    attention: Attention = "materialized"
    attention_opt_in: Attention | None = None
    fused_attention_with_dropout: bool | None = None
    dp_overlap: bool = False
    dp_bucket_params: float | None = None
    dp_bucket_bytes: float | None = None
    dp_param_gather_overlap: bool = False
    zero3_prefetch: bool | None = None
    zero3_gather_unit: GatherUnit | None = None
    zero3_gather_bucket_params: float | None = None
    zero3_regather_per_microbatch: bool | None = None
    zero3_copy_out: bool = False
    tp_comm_overlap: bool = False
    tp_bwd_overlap: bool = False
    pp_p2p_overlap: PPOverlap = "none"
    ep_a2a_overlap: bool = False
    ep_deepep: bool = False
    cp_overlap: bool = False
    sequence_parallel: bool = False
    selective_recompute: bool = False
    fused_optimizer: OptimizerImpl = "none"
    fused_norm: bool = False
    fused_bias_act: bool = False
    fused_rope: bool = False
    fused_cross_entropy: bool = False
    fp8_amax_overhead: float | None = None
    pipeline_overhead_s: float | None = None
    fp8_recipe: str | None = None
    eager_loss: bool = False
    autocast_weights: bool = False
    tp_layout_copy: bool = False
    pp_p2p_full: bool = False
    fp8_hp_inputs: bool = False
    optimizer_passes: bool = False
    grad_reduce_in_fp32: bool | None = None
    zero_modes: tuple[str, ...] | None = None
    schedules: tuple[str, ...] | None = None
    context_parallel: bool = False
    precisions: tuple[str, ...] | None = None
    sources: Mapping[str, str] = field(default_factory=dict)
    notes: str = ""

    @property
    def label(self) -> str:
        """``framework (first-last)`` for messages."""
        a, b = self.years
        return f"{self.framework} ({a})" if a == b else f"{self.framework} ({a}-{b})"

    def contains(self, year: int) -> bool:
        """Whether ``year`` lies in this profile's year range."""
        return self.years[0] <= year <= self.years[1]


_META = ("framework", "years", "sources", "notes")
FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Profile) if f.name not in _META)
DEFAULTS: Mapping[str, Any] = MappingProxyType(
    {f.name: f.default for f in fields(Profile) if f.name in FIELDS}
)


def _p(framework: str, years: tuple[int, int], notes: str, **facts: tuple[Any, str]) -> Profile:
    """Build a profile from ``field=(value, source)`` pairs; unnamed fields take the default."""
    unknown = set(facts) - set(FIELDS)
    if unknown:
        raise ValueError(f"unknown profile fields {sorted(unknown)}")
    values = {k: v for k, (v, _) in facts.items()}
    sources = {k: facts[k][1] if k in facts else NOT_DOCUMENTED for k in FIELDS}
    return Profile(framework, years, sources=MappingProxyType(sources), notes=notes, **values)


# --- sources used more than once -------------------------------------------------------------
_MLM = "NVIDIA/Megatron-LM"
_A19 = f"{_MLM} arguments.py @ f86bb67 (2019-12)"
_A20 = f"{_MLM} megatron/arguments.py @ 43529f7 (2020-12)"
_A21 = f"{_MLM} megatron/arguments.py @ 9da6e97 (2021-12)"
_A22 = f"{_MLM} megatron/arguments.py @ e1c334b (2022-12)"
_A23 = f"{_MLM} megatron/arguments.py @ e9b61f7 (2023-12)"
_A24 = f"{_MLM} megatron/training/arguments.py @ 076972e (2024-12) and @ f33e009 (2025-12)"
_LOCAL_DDP = (
    f"{_MLM} megatron/model/distributed.py + training.py (2019-2022): local DDP all-reduces the "
    "contiguous grad buffer after forward_backward_func returns (optimizer.reduce_model_grads), "
    "hooks only accumulate main_grad; --overlap-grad-reduce first appears 2023-08-16 (2d5220a)"
)
_APEX_ADAM = (
    "apex.optimizers.FusedAdam imported as Adam (megatron/training.py 2019; megatron/optimizer 2021+)"
)
_APEX_LN = "apex FusedLayerNorm / FastLayerNorm (megatron/model/fused_layer_norm.py; 2019 transformer.py)"
_SP = f"{_A22}: --sequence-parallel (added 2022-04-28, cfd2e21), store_true; Korthikanti et al. 2022 (arXiv 2205.05198) §4.2.2"
_SR = f"{_A22}: --recompute-granularity {{full,selective}} (added 2022-05-16, bbab79f); Korthikanti 2022 §5"
_FLASH_MLM = (
    f"{_A23}: --use-flash-attn store_true (added 2022-12-08, d693034); megatron/model/transformer.py "
    "imports flash_attn_varlen_func (FlashAttention-2) with flash_attn_unpadded_func (v1) fallback"
)
_P2P23 = (
    f"{_A23}: --no-overlap-p2p-communication (default on since 2023-10-12, 4eeff55); "
    "core_v0.12.0 arguments.py forces overlap_p2p_comm=False for the non-interleaved schedule"
)
_MP_OPT = (
    f"{_MLM} megatron/optimizer/optimizer.py (from c6a58e41, 2020-12-24) Float16OptimizerWithFloat16Params.step: "
    "_copy_model_grads_to_main_grads (main_grad.float()), _unscale_main_grads_and_check_for_nan (fp16 grad "
    "scaler), clip_grad_norm (multi_tensor_l2norm; --clip-grad 1.0 by default), the inner Adam step, "
    "_copy_main_params_to_model_params (multi_tensor_scale); the distributed optimizer runs them on its shard"
)
_ASYNC_TP = (
    f"{_MLM} megatron/arguments.py: --no-async-tensor-model-parallel-allreduce (default on since "
    "2021-09-02, 3f65246): the column-parallel input-gradient all-reduce runs under the weight-gradient "
    "GEMM; with --sequence-parallel (2022-04-28, cfd2e21) LinearWithGradAccumulationAndAsyncCommunication "
    "re-gathers the input under the data-gradient GEMM and reduce-scatters under the weight-gradient GEMM "
    "(megatron/core/tensor_parallel/layers.py)"
)
_TE_ASYNC_TP = (
    "NVIDIA/TransformerEngine transformer_engine/pytorch/module/linear.py, layernorm_linear.py "
    "'Overlap dgrad-RS/AR with wgrad' (column-parallel backward, async reduce-scatter / all-reduce); "
    f"Megatron-Core's own linear layers likewise ({_MLM} megatron/core/tensor_parallel/layers.py)"
)
_PP_MLM20 = (("1f1b",), f"{_A20}: --pipeline-model-parallel-size with the non-interleaved 1F1B schedule only")
_PP_MLM21 = (
    ("1f1b", "interleaved"),
    f"{_MLM}: --num-layers-per-virtual-pipeline-stage (interleaved 1F1B, 2021-02-13, dcef906); no GPipe or "
    "zero-bubble schedule upstream (git log -S zero_bubble: none)",
)
_PREC_MLM20 = (("fp16",), f"{_MLM} megatron/arguments.py: --fp16 only; --bf16 added 2021-03-08 (b4bc51b)")
_PREC_MLM21 = (
    ("fp16", "bf16"),
    f"{_MLM}: --bf16 (2021-03-08, b4bc51b); fp8 arrives with Transformer Engine 2022-12-21 (3499542)",
)
_PREC_MLM22 = (
    ("fp16", "bf16", "fp8"),
    f"{_MLM}: --fp8-e4m3 / --fp8-hybrid with Transformer Engine (2022-12-21, 3499542); no fp4",
)
_CP_NONE = (False, f"{_MLM}: --context-parallel-size added 2023-10-12 (292543d)")
_CP_MLM = (True, f"{_MLM} megatron/arguments.py: --context-parallel-size (added 2023-10-12, 292543d)")
_SP_NONE = (
    False,
    "sequence parallelism arrives 2022-04-28 (cfd2e21, Korthikanti et al. 2022); before it, TP all-reduces",
)
_SR_NONE = (False, "selective recomputation arrives 2022-05-16 (bbab79f); before it, full or none")
_ZERO_MLM21 = (("0",), f"{_A21}: no --use-distributed-optimizer and no ZeRO (added 2022-02-10, 329fe58)")
_ZERO_MLM22 = (
    ("0", "distopt"),
    f"{_A22}: --use-distributed-optimizer (added 2022-02-10, 329fe58), store_true; no ZeRO-2/3 or FSDP",
)
_ZERO_MCORE24 = (
    ("0", "distopt", "3"),
    f"{_MLM} megatron/training/arguments.py: --use-distributed-optimizer; --use-torch-fsdp2 (PyTorch FSDP2, "
    "added 2024-11-13, e1993fa) and --use-custom-fsdp (Megatron FSDP, 2025-02-26, d165a85), ZeRO-3-like; no ZeRO-2",
)
_TPO = f"--tp-comm-overlap store_true (added 2023-10-23, 116ffdd); {_A24}"
_DDP_BUCKET = (
    f"{_MLM} megatron/core/distributed/distributed_data_parallel_config.py (2025-12): bucket_size "
    "default max(40_000_000, 1_000_000 * dp_size) params; --ddp-bucket-size added 2024-04-11"
)
_OGR = f"--overlap-grad-reduce default False (added 2023-08-16); {_A24}; DistributedDataParallelConfig.overlap_grad_reduce=False"
_OPG = f"--overlap-param-gather default False (added 2023-11-17); {_A24}"
_TE_ATTN = (
    f"{_A24}: --attention-backend default auto (2024-12-07) and --transformer-impl default "
    "transformer_engine (2024-04-02); TE prefers cuDNN attention on Hopper+, flash-attn on Ampere "
    "(NVIDIA/NeMo PR #9188, docs memory_optimizations.rst, 2024)"
)
_TE_DROPOUT = "TE DotProductAttention: flash-attn and cuDNN FusedAttention both take attention_dropout (TE attention docs)"
_MOE_OVL = f"--overlap-moe-expert-parallel-comm store_true (added 2025-08-01, ae1c882); {_A24}"
_CP_TE = (
    f"{_A24}: --cp-comm-type default p2p (TE ring attention: KV exchange with the next rank is "
    "issued while the current chunk's attention runs)"
)
_DS_DOC = "microsoft/DeepSpeed docs/_pages/config-json.md"
_DS_CFG = "microsoft/DeepSpeed deepspeed/runtime/zero/config.py @ 4034205 (2023-12)"
_DS_OVERLAP = (
    f"{_DS_DOC} (2020-12, 81aeea3): overlap_comm default false; deepspeed/runtime/zero/constants.py "
    "(2021): ZERO3_OPTIMIZATION_OVERLAP_COMM_DEFAULT=True; zero/config.py validator: overlap_comm = (stage == 3)"
)
_DS_COMM = (
    "microsoft/DeepSpeed deepspeed/runtime/engine.py communication_data_type: the config's, else float16 with "
    "fp16 and bfloat16 with bf16 (2023-2025): gradients are reduced in the 16-bit parameter dtype"
)
_DS_RBS = f"{_DS_DOC}: reduce_bucket_size default 5e8 elements (2020-12 through 2025)"
_DS_ADAM = "microsoft/DeepSpeed deepspeed/runtime/engine.py @ 559c4ce (2021-12): optimizer type Adam -> FusedAdam unless torch_adam"
_DS_Z3 = (
    f"{_DS_CFG}: stage3_prefetch_bucket_size 5e7 in code (the docs table says 5e8), "
    "stage3_max_live_parameters 1e9, stage3_max_reuse_distance 1e9, stage3_param_persistence_threshold 1e5"
)
_DS_SCHED = (
    ("1f1b",),
    "microsoft/DeepSpeed deepspeed/runtime/pipe/schedule.py (v0.3 through 2025): TrainSchedule, 1F1B "
    "(PipeDream-Flush), is the PipelineEngine's one training schedule (InferenceSchedule and "
    "DataParallelSchedule aside); no interleaved or zero-bubble schedule",
)
_DS_NO_CP = (
    False,
    "microsoft/DeepSpeed: its first context / sequence parallelism, DeepSpeed-Ulysses "
    "(deepspeed/sequence/layer.py DistributedAttention), lands 2023-08-23 (a855405, #4198, v0.10.2)",
)
_DS_PR1453 = (
    "microsoft/DeepSpeed PR #1453 (4912e0a, 2022-01-20, released in v0.6.0): 'more fine grained "
    "synchronization for communication that allows blocking on less work', prefetching improvements, "
    "batched (coalesced) all-gather and reduce-scatter calls"
)
_DS_SYNC = (
    "microsoft/DeepSpeed v0.3.13-v0.5.10 (2021): deepspeed/runtime/zero/partition_parameters.py "
    "_allgather_param calls torch.cuda.synchronize() before each parameter's all-gather; stage3.py "
    "fetch_sub_module waits on every gather in flight (prefetched ones included) and "
    "_synchronize_communication ends in torch.cuda.synchronize(); prefetch_next_sub_modules gathers the "
    "next parameter only while the live parameters stay under stage3_max_live_parameters (1e9), so "
    "matrices of 5e8+ parameters are never prefetched; removed by " + _DS_PR1453
)
_DS_Z3_2021 = (
    "microsoft/DeepSpeed v0.3.14 (2021-04) stage3.py: fetch_sub_module and prefetch_next_sub_modules "
    "(prefetch window stage3_prefetch_bucket_size, 5e7 elements in code) gather each parameter with its own "
    "torch.distributed.all_gather (partition_parameters.py _allgather_param), not coalesced; llmcost prices "
    "the window as ceil(layer params / 5e7) collectives"
)
_DS_REGATHER = (
    "ZeRO paper (Rajbhandari et al. 2020, arXiv 1910.02054) §7.2.3: parameters all-gathered in forward and "
    f"again in backward, released after use; {_DS_DOC} stage3_max_reuse_distance (kept only if reused within 1e9 params)"
)
_FSDP_NOTES = (
    "pytorch docs notes/fsdp.rst 'FSDP Prefetch Nuances': implicit forward prefetch always on "
    "(all-gathers on a separate stream); FSDP1 backward_prefetch default BACKWARD_PRE; limit_all_gathers "
    "default True since pytorch PR #104900 (2023-07)"
)
_FSDP2_PF = (
    "pytorch/pytorch commit f2805a0 (PR #128884, 2024): FSDP2 uses implicit forward prefetching and "
    "explicit backward prefetching in reverse post-forward order by default"
)
_TT_FSDP = (
    "pytorch/torchtitan torchtitan/distributed/fsdp.py: fully_shard per transformer block; "
    "reshard_after_forward 'default' = True without PP (False with PP 'to avoid per-microbatch all-gathers')"
)
_TT_GA = (
    "pytorch/torchtitan gradient accumulation (PR #1238, 2025-06-05); trainer.py sets no "
    "set_requires_gradient_sync/no_sync, so each micro-batch re-gathers (reshard_after_forward/backward True)"
)
_TT_LOSS = (
    "pytorch/torchtitan train.py (2024-2025) loss_fn: torch.nn.functional.cross_entropy(pred.flatten(0, 1).float(), "
    "labels.flatten(0, 1)), eager, on an fp32 upcast of the logits"
)
_COMPOSER_FSDP = (
    "mosaicml/composer composer/utils/parallelism.py FSDPConfig: backward_prefetch 'BACKWARD_POST', "
    "forward_prefetch False, limit_all_gathers True (FSDP1 FlatParameter per wrapped block)"
)
_LF_YAML = "mosaicml/llm-foundry scripts/train/yamls/pretrain/mpt-7b.yaml"
_NEOX20 = "EleutherAI/gpt-neox configs/20B.yml (GPT-NeoX-20B as trained, 2022)"
_NEMO2 = (
    "NVIDIA/NeMo nemo/collections/llm/recipes/llama3_8b.py (NeMo 2.0, 2024-2025): MegatronStrategy "
    "DistributedDataParallelConfig(overlap_grad_reduce=True, overlap_param_gather=True)"
)
_BRIDGE = (
    "NVIDIA-NeMo/Megatron-Bridge src/megatron/bridge/recipes/common.py: DistributedDataParallelConfig("
    "overlap_grad_reduce=True, overlap_param_gather=True, use_distributed_optimizer=True)"
)
_LLAMA3 = "Llama 3 report (Dubey et al. 2024, arXiv 2407.21783) §3.3.2"
_PTDP = "Narayanan et al. 2021 (arXiv 2104.04473)"
_MAXTEXT = "AI-Hypercomputer/maxtext src/maxtext/configs/base.yml (2026)"
_XLA_FUSION = (
    "openxla.org/xla architecture (XLA architecture.md): XLA 'fuses pipelined operations to reduce memory "
    "overhead' by target-independent operation fusion (HLO InstructionFusion); norms, activations and rotary "
    "embeddings written as jnp elementwise chains compile into fused kernels"
)
_XLA_FUSED = {k: (True, _XLA_FUSION) for k in ("fused_norm", "fused_bias_act", "fused_rope")}
_XLA_FLAGS = (
    "AI-Hypercomputer/maxtext benchmarks/xla_flags_library.py: recipes set --xla_tpu_enable_async_collective_fusion, "
    "--xla_tpu_overlap_compute_collective_tc, --xla_enable_async_all_gather (XLA async collectives under the latency-hiding scheduler)"
)


def _megatron_lm() -> list[Profile]:
    """Megatron-LM (legacy megatron/ tree) by year; each a year-end snapshot of arguments.py."""
    common = {
        "fused_optimizer": ("fused", _APEX_ADAM),
        "fused_norm": (True, _APEX_LN),
        "dp_overlap": (False, _LOCAL_DDP),
        "attention": ("materialized", "no flash path before 2022-12 (git log -S'--use-flash-attn')"),
    }
    before_2022 = {
        "context_parallel": _CP_NONE,
        "sequence_parallel": _SP_NONE,
        "selective_recompute": _SR_NONE,
    }
    fusion21 = (
        True,
        f"{_A21}: --no-bias-gelu-fusion / --no-masked-softmax-fusion (default on since 2021-01-06, 9acc895); {_PTDP} §4.2",
    )
    return [
        _p(
            "megatron-lm",
            (2019, 2019),
            "Megatron-LM v1 (Shoeybi 2019): TP only, apex fused LN/Adam.",
            **common,
            zero_modes=_ZERO_MLM21,
            schedules=((), f"{_A19}: no pipeline parallelism"),
            precisions=_PREC_MLM20,
            **before_2022,
            fused_bias_act=(False, f"{_A19}: no bias-gelu fusion flag exists"),
        ),
        _p(
            "megatron-lm",
            (2020, 2020),
            "Adds PP (2020); fusions exist but are opt-in flags this year.",
            **common,
            zero_modes=_ZERO_MLM21,
            schedules=_PP_MLM20,
            precisions=_PREC_MLM20,
            **before_2022,
            fused_bias_act=(False, f"{_A20}: --bias-gelu-fusion store_true (opt-in, added 2020-09-11)"),
        ),
        _p(
            "megatron-lm",
            (2021, 2021),
            "PTD-P (Narayanan 2021): 1F1B/interleaved PP, scatter/gather p2p "
            "(cuts cross-node PP volume by t), fused bias-GeLU, bias-dropout-add and scale-mask-softmax (§4.2); "
            "§5.2 compares against ZeRO-3 without model parallelism.",
            **common,
            zero_modes=_ZERO_MLM21,
            schedules=_PP_MLM21,
            precisions=_PREC_MLM21,
            **before_2022,
            fused_bias_act=fusion21,
            pp_p2p_overlap=(
                "none",
                f"{_A21}: --no-scatter-gather-tensors-in-pipeline only; no overlap flag until 2023-05",
            ),
            tp_bwd_overlap=(
                False,
                f"{_ASYNC_TP}; the year's published runs (PTD-P, arXiv 2104.04473, April 2021) predate it",
            ),
            optimizer_passes=(True, _MP_OPT),
        ),
        _p(
            "megatron-lm",
            (2022, 2022),
            "Korthikanti 2022: sequence parallel + selective recompute; "
            "distributed optimizer (ZeRO-1) added 2022-02; FlashAttention flag lands 2022-12-08 (opt-in).",
            **common,
            zero_modes=_ZERO_MLM22,
            schedules=_PP_MLM21,
            context_parallel=_CP_NONE,
            precisions=_PREC_MLM22,
            fused_bias_act=fusion21,
            sequence_parallel=(True, _SP),
            selective_recompute=(True, _SR),
            tp_bwd_overlap=(True, _ASYNC_TP),
            optimizer_passes=(True, _MP_OPT),
            attention_opt_in=("flash1", f"{_A22}: --use-flash-attn (2022-12-08), flash-attn v1 at the time"),
        ),
        _p(
            "megatron-lm",
            (2023, 2023),
            "FlashAttention-2 is one flag away (--use-flash-attn, off by default); "
            "overlap-grad-reduce (2023-08), overlap-param-gather (2023-11), tp-comm-overlap (2023-10) all opt-in; "
            "fp8 via --transformer-impl transformer_engine (default local).",
            zero_modes=_ZERO_MLM22,
            schedules=_PP_MLM21,
            context_parallel=_CP_MLM,
            precisions=_PREC_MLM22,
            fused_optimizer=common["fused_optimizer"],
            fused_norm=common["fused_norm"],
            attention=("materialized", f"{_A23}: --use-flash-attn store_true (off by default)"),
            attention_opt_in=("flash2", _FLASH_MLM),
            fused_attention_with_dropout=(
                False,
                "default path: fused scale-mask-softmax then separate dropout (megatron/model/transformer.py CoreAttention)",
            ),
            dp_overlap=(False, f"{_A23}: --overlap-grad-reduce default=False"),
            dp_param_gather_overlap=(False, f"{_A23}: --overlap-param-gather default=False"),
            tp_comm_overlap=(False, f"{_A23}: --tp-comm-overlap store_true (added 2023-10-23)"),
            pp_p2p_overlap=("interleaved", _P2P23),
            tp_bwd_overlap=(True, _ASYNC_TP),
            fused_bias_act=(True, f"{_A23}: --no-bias-gelu-fusion"),
            sequence_parallel=(True, _SP),
            selective_recompute=(True, _SR),
            optimizer_passes=(True, _MP_OPT),
        ),
    ]


def _megatron_core() -> list[Profile]:
    """Megatron-Core (megatron/core + megatron/training), and NeMo / Megatron-Bridge that drive it."""
    core = {
        "schedules": _PP_MLM21,
        "context_parallel": _CP_MLM,
        "attention": ("cudnn", _TE_ATTN),
        "fused_attention_with_dropout": (True, _TE_DROPOUT),
        "dp_bucket_params": (40e6, _DDP_BUCKET),
        "pp_p2p_overlap": ("interleaved", _P2P23),
        "tp_bwd_overlap": (True, _TE_ASYNC_TP),
        "cp_overlap": (True, _CP_TE),
        "sequence_parallel": (True, _SP),
        "selective_recompute": (True, _SR),
        "fused_optimizer": (
            "fused",
            f"{_A24}: --optimizer adam -> TE/apex FusedAdam (megatron/core/optimizer)",
        ),
        "fused_norm": (
            True,
            f"{_A24}: TE LayerNormLinear / fused norm under --transformer-impl transformer_engine",
        ),
        "fused_bias_act": (True, f"{_A24}: --no-bias-gelu-fusion / --no-bias-swiglu-fusion (on by default)"),
        "fused_rope": (True, f"--no-rope-fusion (added 2024-01-18, de9428a): on by default; {_A24}"),
    }
    mcore = {
        **core,
        "zero_modes": _ZERO_MCORE24,
        "dp_overlap": (False, _OGR),
        "dp_param_gather_overlap": (False, _OPG),
        "tp_comm_overlap": (False, _TPO),
        "ep_a2a_overlap": (False, _MOE_OVL),
        "fused_cross_entropy": (False, f"--cross-entropy-loss-fusion store_true (added 2024-06-14); {_A24}"),
        "optimizer_passes": (
            True,
            f"{_MP_OPT}; the same class in megatron/core/optimizer/optimizer.py; --use-precision-aware-optimizer "
            "(Transformer Engine FusedAdam handling the master weights) is store_true, off by default",
        ),
    }
    nemo2 = {
        **core,
        "zero_modes": (_ZERO_MCORE24[0], f"NeMo 2.0 drives Megatron-Core: {_ZERO_MCORE24[1]}"),
        "dp_overlap": (True, _NEMO2),
        "dp_param_gather_overlap": (True, _NEMO2),
        "tp_comm_overlap": (
            False,
            "NeMo llama3_8b recipe tp_comm_overlap=False; llama3_70b performance recipe sets True with userbuffers cfg",
        ),
        "ep_a2a_overlap": (False, _MOE_OVL),
        "fused_cross_entropy": (
            True,
            "NVIDIA/NeMo nemo/collections/llm/gpt/model/base.py GPTConfig: cross_entropy_loss_fusion=True",
        ),
    }
    bridge = {
        **core,
        "zero_modes": (_ZERO_MCORE24[0], f"Megatron-Bridge drives Megatron-Core: {_ZERO_MCORE24[1]}"),
        "dp_overlap": (True, _BRIDGE),
        "dp_param_gather_overlap": (True, _BRIDGE),
        "tp_comm_overlap": (
            False,
            "Megatron-Bridge perf_recipes/llama/h100/llama3.py: CommOverlapConfig(tp_comm_overlap=False) for most configs, True for the 70B TP>1 ones",
        ),
        "ep_a2a_overlap": (
            False,
            "Megatron-Bridge recipes (deepseek_v2/v4): comm_overlap.overlap_moe_expert_parallel_comm = False",
        ),
        "fused_cross_entropy": (
            False,
            f"{_A24}: model default cross_entropy_loss_fusion False; DeepSeek recipes set True (impl te)",
        ),
    }
    mcore23 = {
        k: mcore[k]
        for k in (
            "dp_overlap",
            "dp_param_gather_overlap",
            "tp_comm_overlap",
            "tp_bwd_overlap",
            "pp_p2p_overlap",
            "schedules",
            "context_parallel",
            "sequence_parallel",
            "selective_recompute",
            "fused_optimizer",
            "fused_bias_act",
        )
    }
    return [
        _p(
            "megatron-core",
            (2023, 2023),
            "core 0.2-0.4 under megatron/training: --transformer-impl still defaults "
            "to local (TE opt-in); CP (2023-10) and EP (2023-10) arrive late in the year.",
            **mcore23,
            zero_modes=_ZERO_MLM22,
            attention=("materialized", f"{_A23}: --transformer-impl default local; --use-flash-attn off"),
            attention_opt_in=("flash2", _FLASH_MLM),
            fused_norm=(True, _APEX_LN),
            optimizer_passes=(True, _MP_OPT),
        ),
        _p(
            "megatron-core",
            (2024, 2026),
            "Flag defaults of megatron/training/arguments.py: every DP/TP/EP overlap "
            "is opt-in; attention through TE (cuDNN on Hopper+, FlashAttention-2 on Ampere).",
            **mcore,
        ),
        _p(
            "nemo",
            (2023, 2023),
            "NeMo 1.x megatron_gpt_config.yaml: optim fused_adam, transformer_engine False, "
            "use_flash_attention False, ub_tp_comm_overlap False; distributed_fused_adam (opt-in) overlaps grad sync.",
            attention=(
                "materialized",
                "NVIDIA/NeMo examples/nlp/language_modeling/conf/megatron_gpt_config.yaml (2023-12): use_flash_attention False, transformer_engine False",
            ),
            attention_opt_in=("flash2", "same file: use_flash_attention option"),
            dp_overlap=(
                False,
                "NVIDIA/NeMo megatron_gpt_model.py (2023-12): with optim fused_adam, allreduce_gradients() after the step's backward; overlap only with distributed_fused_adam",
            ),
            tp_comm_overlap=(False, "megatron_gpt_config.yaml (2023): ub_tp_comm_overlap False"),
            tp_bwd_overlap=(True, f"NeMo 1.x GPT runs Megatron's tensor-parallel layers: {_ASYNC_TP}"),
            schedules=(_PP_MLM21[0], f"NeMo 1.x runs Megatron's pipeline schedules: {_PP_MLM21[1]}"),
            fused_optimizer=("fused", "megatron_gpt_config.yaml (2023): optim.name fused_adam"),
            fused_bias_act=(True, "megatron_gpt_config.yaml (2023): bias_activation_fusion True"),
            fused_norm=(True, "megatron_gpt_config.yaml: persist_layer_norm True (apex persistent fused LN)"),
            sequence_parallel=(True, _SP),
            selective_recompute=(True, _SR),
            zero_modes=(
                ("0", "distopt"),
                "megatron_gpt_config.yaml (2023): optim fused_adam, or distributed_fused_adam (Apex, ZeRO-1-like sharded optimizer)",
            ),
        ),
        _p(
            "nemo",
            (2024, 2026),
            "NeMo 2.0 recipes on Megatron-Core: DP grad-reduce and param-gather overlap on, "
            "TP userbuffers overlap only in the large-model performance recipes.",
            **nemo2,
        ),
        _p(
            "megatron-bridge",
            (2025, 2026),
            "Megatron-Bridge (2025-) recipes: distributed optimizer with DP overlaps on.",
            **bridge,
        ),
    ]


_DS_P2P = (
    "deepspeedai/DeepSpeed deepspeed/runtime/pipe/engine.py (v0.3-v0.5): is_pipe_partitioned = "
    "is_model_parallel, so _exec_send_activations sends each TP rank's PartitionedTensor share and the "
    "receiver's _exec_forward_pass and the sender's _exec_recv_grads rebuild it with .full() (a TP "
    "all-gather); is_grad_partitioned = False, so _exec_send_grads sends the whole input gradient from "
    "every TP rank (partitioned too from v0.6.0); "
    "deepspeed/runtime/pipe/p2p.py send: async_op must be False (dist.send, or dist.broadcast in a "
    "2-rank group before torch 1.8); deepspeed/runtime/pipe/schedule.py TrainSchedule: SendGrad / "
    "RecvActivation and RecvGrad / SendActivation as separate instructions (GPT-NeoX and "
    "Megatron-DeepSpeed pipeline through this engine)"
)


def _deepspeed_family() -> list[Profile]:
    """DeepSpeed ZeRO and the Megatron forks that run on its engine."""
    ds = {
        "schedules": _DS_SCHED,
        "dp_overlap": (False, _DS_OVERLAP),
        "dp_bucket_params": (5e8, _DS_RBS),
        "fused_optimizer": ("fused", _DS_ADAM),
        "grad_reduce_in_fp32": (False, _DS_COMM),
        "pp_p2p_full": (True, _DS_P2P),
    }
    z3 = {
        "zero3_prefetch": (True, _DS_Z3),
        "zero3_gather_unit": (
            "tensor",
            "DeepSpeed stage3 fetches each submodule's parameters (coalesced all-gather) in its pre-forward/pre-backward hook; deepspeed/runtime/zero/partitioned_param_coordinator.py",
        ),
        "zero3_gather_bucket_params": (5e7, _DS_Z3),
        "zero3_regather_per_microbatch": (True, _DS_REGATHER),
    }
    neox_ds = {k: ds[k] for k in ("fused_optimizer", "pp_p2p_full", "schedules")}
    return [
        _p(
            "deepspeed",
            (2020, 2020),
            "ZeRO-1/2 only (stage 3 lands in 2021). Model code (attention, norms) is the "
            "user's; overlap_comm off unless set.",
            **ds,
            zero_modes=(("0", "1", "2"), f"{_DS_DOC} (2020-12): zero_optimization.stage 0, 1 or 2"),
            context_parallel=_DS_NO_CP,
        ),
        _p(
            "deepspeed",
            (2021, 2021),
            "ZeRO-3 as first released (v0.3.13-v0.5.10): a device-wide synchronize at every fetch and no "
            "prefetch once the gathered parameters pass stage3_max_live_parameters (1e9), so for models "
            "with matrices of 5e8+ parameters no gather or reduce-scatter overlaps compute. overlap_comm "
            "defaults to true for stage 3 only; the dp_overlap value here is the stage 1/2 default. "
            "Parameters are released after each submodule unless within stage3_max_reuse_distance (1e9 "
            "params), so models well above 1e9 params re-gather per micro-batch.",
            **ds,
            **{**z3, "zero3_prefetch": (False, _DS_SYNC), "zero3_gather_unit": ("tensor", _DS_Z3_2021)},
            zero_modes=(("0", "1", "2", "3"), f"{_DS_CFG}: zero_optimization.stage 0-3"),
            context_parallel=_DS_NO_CP,
        ),
        _p(
            "deepspeed",
            (2022, 2026),
            "ZeRO-3 with fine-grained synchronization and coalesced gathers (v0.6.0, 2022-01 on): each "
            "gather prefetched under compute. overlap_comm defaults to true for stage 3 only; the "
            "dp_overlap value here is the stage 1/2 default. Parameters are released after each "
            "submodule unless within stage3_max_reuse_distance (1e9 params), so models well above 1e9 "
            "params re-gather per micro-batch.",
            **ds,
            **{**z3, "zero3_prefetch": (True, f"{_DS_Z3}; {_DS_PR1453}")},
            zero_modes=(("0", "1", "2", "3"), f"{_DS_CFG}: zero_optimization.stage 0-3"),
        ),
        _p(
            "megatron-deepspeed",
            (2021, 2023),
            "Megatron-LM fork on the DeepSpeed engine (BLOOM, MT-NLG): Megatron "
            "fused kernels, DeepSpeed ZeRO-1 and PipelineEngine; FlashAttention flags added in 2023 (opt-in).",
            **ds,
            fused_norm=(True, _APEX_LN),
            fused_bias_act=(True, f"inherits Megatron-LM 2021 flags: {_A21} --no-bias-gelu-fusion"),
        ),
        _p(
            "gpt-neox",
            (2021, 2023),
            "Values are those of the shipped configs (configs/20B.yml), not of neox_args.py, "
            "whose fusion flags default to False. FlashAttention via attention_config 'flash' from 2023 (opt-in).",
            **neox_ds,
            dp_overlap=(True, f"{_NEOX20}: zero_optimization stage 1, overlap_comm True"),
            dp_bucket_params=(1.26e9, f"{_NEOX20}: reduce_bucket_size / allgather_bucket_size 1260000000"),
            fused_bias_act=(
                True,
                f"{_NEOX20}: bias-gelu-fusion true, scaled-upper-triang-masked-softmax-fusion true",
            ),
        ),
    ]


_FSDP2_COPY = (
    "pytorch torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py foreach_all_gather_copy_out: "
    "waits on the all-gather's event in the current (compute) stream, then torch.split_with_sizes_copy "
    "of the gathered buffer into each unsharded parameter (FSDP2 shards per parameter; FSDP1's "
    "FlatParameter and DeepSpeed gather in place)"
)


def _pytorch_native() -> list[Profile]:
    """torchtitan (FSDP2) and llm-foundry / Composer (FSDP1)."""
    fsdp2 = {
        "dp_overlap": (True, _FSDP2_PF),
        "zero3_prefetch": (True, _FSDP2_PF),
        "zero3_gather_unit": ("layer", _TT_FSDP),
        "zero3_regather_per_microbatch": (True, _TT_GA),
        "zero3_copy_out": (True, _FSDP2_COPY),
        "grad_reduce_in_fp32": (
            True,
            "pytorch/torchtitan torchtitan/config/job_config.py: mixed_precision_reduce 'float32' (the only value "
            "until 2025; FSDP2 MixedPrecisionPolicy reduce_dtype)",
        ),
        "tp_layout_copy": (
            True,
            "pytorch/torchtitan parallelize_llama.py apply_tp: SequenceParallel / PrepareModuleInput Shard(1) -> "
            "Replicate and RowwiseParallel output Shard(1) on [batch, seq, hidden] activations; pytorch "
            "torch/distributed/_functional_collectives.py all_gather_tensor (gather_dim != 0: torch.cat of the "
            "chunks) and reduce_scatter_tensor (scatter_dim != 0: chunk + cat before the collective)",
        ),
        "selective_recompute": (
            True,
            "pytorch/torchtitan train_configs/llama3_8b.toml (2024-12): activation_checkpoint mode 'selective'",
        ),
        "tp_comm_overlap": (
            False,
            "torchtitan --experimental.enable_async_tensor_parallel store_true (config_manager.py 2024-12); llama3_405b.toml turns it on with compile",
        ),
        "fused_norm": (
            False,
            "torchtitan llama3 tomls (2024-12): norm_type rmsnorm (fused_rmsnorm opt-in, removed 2025-02-06 #826); compile false",
        ),
        "fused_bias_act": (
            False,
            "pytorch/torchtitan torchtitan/models/llama/model.py FeedForward.forward: w2(F.silu(w1(x)) * w3(x)), "
            "eager silu and mul kernels; compile false in the llama3 tomls (torch.compile, opt-in, fuses them)",
        ),
        "fused_cross_entropy": (False, _TT_LOSS),
        "eager_loss": (True, _TT_LOSS),
        "fused_rope": (
            False,
            "pytorch/torchtitan torchtitan/models/llama/model.py apply_rotary_emb: view_as_complex(x.float()), "
            "complex multiply, view_as_real(...).type_as(x), eager; no RoPE kernel (compile, opt-in, fuses it)",
        ),
        "fp8_hp_inputs": (
            True,
            "pytorch/ao torchao/float8/float8_linear.py matmul_with_hp_or_float8_args.forward: "
            "ctx.save_for_backward(input_hp, weight_hp_t), the high-precision input re-cast in the backward "
            "(torchtitan's float8 is torchao's Float8Linear)",
        ),
        "fp8_recipe": (
            "current",
            "torchtitan docs/float8.md: Float8 via torchao (dynamic tensorwise scaling by default: an amax pass, then the "
            "cast); 'compile.enable (required for competitive performance): use torch.compile to fuse the float8 "
            "scaling/casting kernels' (compile is off by default: a compiled run says fp8_recipe dynamic)",
        ),
    }
    return [
        _p(
            "torchtitan",
            (2024, 2025),
            "FSDP2 per-block fully_shard; async TP and float8 (torchao) opt-in; "
            "torch.compile off in the 8B/70B tomls. SDPA: FlashAttention-2 backend on H100 (cuDNN first only on "
            "B200 from 2025-05-14).",
            **fsdp2,
            attention=(
                "flash2",
                "torchtitan models use F.scaled_dot_product_attention; backends [FLASH, EFFICIENT, MATH] except B200 (git log -S SDPBackend.CUDNN_ATTENTION, 3b85aa3 2025-05-14)",
            ),
            fused_optimizer=(
                "foreach",
                "torchtitan optimizer implementation: foreach until 'use Fused AdamW as default' (PR #881, 2025-02-24)",
            ),
            cp_overlap=(
                False,
                "torchtitan --experimental.context_parallel_rotate_method default 'allgather' (config_manager.py 2024-12): KV all-gathered up front",
            ),
        ),
        _p(
            "torchtitan",
            (2026, 2026),
            "As 2024-2025 with fused AdamW default and cuDNN SDPA first on every GPU "
            "(refactor 6a3a9da, 2025-10-09).",
            **fsdp2,
            attention=(
                "cudnn",
                "pytorch/torchtitan torchtitan/models/common/attention.py: sdpa_backends [CUDNN_ATTENTION, FLASH_ATTENTION, MATH] with set_priority",
            ),
            fused_optimizer=(
                "fused",
                "torchtitan components/optimizer/optimizer.py: implementation default 'fused'",
            ),
        ),
        _automodel(),
        _p(
            "llm-foundry",
            (2023, 2023),
            "Composer FSDP1 (FULL_SHARD, FlatParameter per block); MPT triton "
            "FlashAttention kernel; Composer DDPSyncStrategy SINGLE_AUTO_SYNC uses no_sync for all but the last "
            "micro-batch, but FULL_SHARD still re-gathers parameters each micro-batch.",
            attention=(
                "flash1",
                f"{_LF_YAML} (2023): attn_impl triton (Triton FlashAttention kernel); configuration_mpt.py default 'triton'",
            ),
            dp_overlap=(True, _FSDP_NOTES),
            zero3_prefetch=(True, _COMPOSER_FSDP),
            zero3_gather_unit=(
                "layer",
                f"{_LF_YAML}: fsdp_config sharding_strategy FULL_SHARD; MPT blocks are the FSDP wrap units",
            ),
            zero3_regather_per_microbatch=(
                True,
                "pytorch FSDP ShardingStrategy.FULL_SHARD docstring: unshard before forward, reshard after forward, unshard before backward",
            ),
            fused_norm=(
                False,
                "llmfoundry configuration_mpt.py norm_type default 'low_precision_layernorm' (torch layer_norm in low precision)",
            ),
        ),
        _p(
            "llm-foundry",
            (2024, 2025),
            "As 2023 with attn_impl flash (flash-attn 2).",
            attention=(
                "flash2",
                f"{_LF_YAML} (2024-06): attn_impl flash; configuration_mpt.py allows only torch | flash",
            ),
            dp_overlap=(True, _FSDP_NOTES),
            zero3_prefetch=(True, _COMPOSER_FSDP),
            zero3_gather_unit=("layer", f"{_LF_YAML}: fsdp_config sharding_strategy FULL_SHARD"),
            zero3_regather_per_microbatch=(True, "pytorch FSDP ShardingStrategy.FULL_SHARD docstring"),
            fused_norm=(False, "llmfoundry configuration_mpt.py norm_type default 'low_precision_layernorm'"),
        ),
    ]


_AM = "NVIDIA-NeMo/Automodel @89e3a9fdd (2025-10-06, the commit of docs/performance-summary.md)"


def _automodel() -> Profile:
    """NeMo AutoModel: PyTorch FSDP2 with Transformer Engine layers and DeepEP (its MoE parallelizer)."""
    return _p(
        "nemo-automodel",
        (2025, 2026),
        "PyTorch backend of NeMo: FSDP2 fully_shard per block (MoE parallelizer), Transformer Engine attention, "
        "linear and RMSNorm, DeepEP dispatch; activation checkpointing whole blocks where a config asks. The "
        "GPT-OSS benchmark configs run FlexAttention instead of TE attention (priced here at the cuDNN figure).",
        attention=(
            "cudnn",
            f"{_AM} examples/benchmark/configs qwen3_moe_30b / deepseek_v3 _te_deepep.yaml backend attn: te "
            "(TE DotProductAttention); the gptoss_*_te_deepep.yaml configs set attn: flex",
        ),
        dp_overlap=(True, _FSDP2_PF),
        zero3_prefetch=(True, _FSDP2_PF),
        zero3_gather_unit=(
            "layer",
            f"{_AM} nemo_automodel/components/moe/parallelizer.py apply_fsdp: fully_shard per transformer block",
        ),
        zero3_regather_per_microbatch=(
            True,
            f"{_AM} moe/parallelizer.py: reshard_after_forward=not pp_enabled (FSDP2 regathers each forward)",
        ),
        zero3_copy_out=(True, _FSDP2_COPY),
        grad_reduce_in_fp32=(
            True,
            f"{_AM} moe/parallelizer.py: MixedPrecisionPolicy(param_dtype=bfloat16, reduce_dtype=float32)",
        ),
        fused_norm=(True, f"{_AM} benchmark configs: backend rms_norm: te (TE RMSNorm kernel)"),
        eager_loss=(
            False,
            f"{_AM} benchmark configs: loss_fn MaskedCrossEntropy fp32_upcast: false (no fp32 copy of the logits)",
        ),
        fused_optimizer=(
            "foreach",
            f"{_AM} benchmark configs: optimizer torch.optim.Adam, foreach=None (PyTorch picks foreach on CUDA)",
        ),
        ep_a2a_overlap=(
            False,
            f"{_AM} nemo_automodel/components/moe/megatron/fused_a2a.py: DeepEP dispatch / combine with "
            "async_finish=False, allocate_on_comm_stream=False (waited on before the expert GEMMs)",
        ),
        ep_deepep=(
            True,
            f"{_AM} nemo_automodel/components/moe/megatron/fused_a2a.py: deep_ep Buffer dispatch / combine "
            "(the benchmark configs' *_te_deepep.yaml: dispatcher deepep)",
        ),
    )


_HF_LLAMA = "huggingface/transformers src/transformers/models/llama/modeling_llama.py"


def _transformers() -> list[Profile]:
    """Hugging Face transformers model code (eager PyTorch) under its Trainer."""
    return [
        _p(
            "transformers",
            (2026, 2026),
            "Hugging Face model code in eager PyTorch: every norm, activation and rotary chain unfused, the "
            "loss on fp32 logits, SDPA attention; Trainer's defaults for the optimizer and data parallelism.",
            attention=(
                "cudnn",
                f"{_HF_LLAMA}: attn_implementation 'sdpa' (the default) calls "
                "torch.nn.functional.scaled_dot_product_attention; PyTorch 2.11 ran cuDNN's SDPA kernel on an "
                "H100 (llmcost's kernel profile, hardware/measured/raw/h100-sxm-hf-step-2026-11-26.json)",
            ),
            fused_norm=(
                False,
                f"{_HF_LLAMA} LlamaRMSNorm.forward: to(float32), pow(2).mean(-1), rsqrt, weight * to(input_dtype): "
                "eager kernels",
            ),
            fused_bias_act=(
                False,
                f"{_HF_LLAMA} LlamaMLP.forward: down_proj(act_fn(gate_proj(x)) * up_proj(x))",
            ),
            fused_rope=(
                False,
                f"{_HF_LLAMA} apply_rotary_pos_emb: q * cos + rotate_half(q) * sin, rotate_half = cat(-x2, x1): "
                "eager kernels (more passes than torchtitan's complex multiply, which prices it)",
            ),
            eager_loss=(
                True,
                "huggingface/transformers src/transformers/loss/loss_utils.py ForCausalLMLoss: logits.float(), "
                "then nn.functional.cross_entropy",
            ),
            fused_optimizer=(
                "fused",
                "huggingface/transformers training_args.py: default_optim 'adamw_torch_fused' with torch >= 2.8",
            ),
            dp_overlap=(
                True,
                "Trainer (accelerate) wraps the model in torch DistributedDataParallel, whose bucketed all-reduce "
                "overlaps the backward (Li et al. 2020, PyTorch Distributed, VLDB 13(12))",
            ),
            grad_reduce_in_fp32=(
                True,
                "Trainer's bf16 / fp16 mixed precision is torch.autocast over fp32 parameters: gradients are fp32 and "
                "DDP reduces them as they are",
            ),
            autocast_weights=(
                True,
                "huggingface/transformers trainer.py: with bf16 / fp16 the forward runs under accelerate's "
                "autocast over the fp32 model; pytorch aten/src/ATen/autocast_mode.cpp cached_cast casts each "
                "weight once per autocast region, and its ToCopyBackward casts the gradient back to fp32",
            ),
        ),
    ]


def _jax_and_others() -> list[Profile]:
    """TPU/XLA stacks, Colossal-AI, and Meta's internal Llama 3 stack."""
    return [
        _p(
            "maxtext",
            (2023, 2026),
            "JAX/XLA on TPU (GPU too): sharding by GSPMD; ici_fsdp_parallelism -1 (auto) so "
            "FSDP-style sharding is the default; collective overlap comes from XLA's async collectives, enabled by the "
            "recipes' XLA flags.",
            attention=(
                "flash2",
                f"{_MAXTEXT}: attention 'autoselected' -> Pallas flash (splash) kernel on TPU for length >= 128 (layers/attention_op.py); family is FlashAttention-style, not Dao's FA2",
            ),
            dp_overlap=(True, _XLA_FLAGS),
            zero3_prefetch=(True, _XLA_FLAGS),
            tp_comm_overlap=(False, f"{_MAXTEXT}: te_comm_gemm_overlap 'disabled' (GPU TE collective-GEMM)"),
            **_XLA_FUSED,
        ),
        _p(
            "t5x",
            (2021, 2023),
            "JAX/GSPMD (flaxformer) on TPU: dot-product attention written as einsums; XLA "
            "fuses elementwise ops but attention scores are materialized.",
            attention=(
                "materialized",
                "google/flaxformer components/attention/dense_attention.py dot_product_attention (einsum, softmax, einsum)",
            ),
            **_XLA_FUSED,
        ),
        _p(
            "pathways",
            (2022, 2023),
            "PaLM (Chowdhery 2022, arXiv 2204.02311 §4): no pipeline parallelism; 2D "
            "model+data sharding within a pod (12-way model parallel), two-pod data parallelism over DCN; the "
            "paper reports 46.2% MFU. Multi-query attention, materialized under XLA.",
            attention=(
                "materialized",
                "Chowdhery et al. 2022 §4-5: no FlashAttention in PaLM (pre-dates it); XLA TPU einsum attention",
            ),
            **_XLA_FUSED,
        ),
        _p(
            "colossal-ai",
            (2022, 2025),
            "Colossal-AI plugins: LowLevelZeroPlugin (ZeRO-1/2), GeminiPlugin (ZeRO-3 "
            "chunks), HybridParallelPlugin (TP/PP/SP); flash attention via enable_flash_attention (opt-in).",
            dp_overlap=(
                True,
                "hpcaitech/ColossalAI colossalai/booster/plugin/low_level_zero_plugin.py: overlap_communication=True",
            ),
            dp_bucket_params=(12e6, "same file: reduce_bucket_size_in_m=12 (12 M elements)"),
            attention_opt_in=("flash2", "hybrid_parallel_plugin.py enable_flash_attention=False (opt-in)"),
        ),
        _p(
            "meta-internal",
            (2024, 2024),
            "Llama 3 405B stack (weak: recalled from the report, not re-read this "
            "session). 4D parallelism ordered [TP, CP, PP, DP(FSDP)], interleaved PP with tunable micro-batches, "
            "all-gather CP, FSDP that does not reshard after forward, FP32 grad accumulation/reduce-scatter; 38-43% BF16 MFU.",
            attention=(
                "flash2",
                f"{_LLAMA3}: not named in the report; H100 BF16 with all-gather CP implies a flash-style kernel (weak)",
            ),
            dp_overlap=(True, f"{_LLAMA3}: FSDP reduce-scatter/all-gather overlapped with compute (weak)"),
            zero3_prefetch=(True, f"{_LLAMA3}: FSDP (weak)"),
            zero3_gather_unit=("layer", f"{_LLAMA3}: PyTorch FSDP on transformer blocks (weak)"),
            zero3_regather_per_microbatch=(
                False,
                f"{_LLAMA3}: 'for model shards we do not reshard after forward computation to avoid an extra all-gather during backward' (weak)",
            ),
            cp_overlap=(
                False,
                f"{_LLAMA3}: all-gather based CP; the KV all-gather latency is exposed on the critical path (weak)",
            ),
            sequence_parallel=(True, f"{_LLAMA3}: TP with sequence parallelism (weak)"),
        ),
    ]


PROFILES: tuple[Profile, ...] = tuple(
    _megatron_lm()
    + _megatron_core()
    + _deepspeed_family()
    + _pytorch_native()
    + _transformers()
    + _jax_and_others()
)
ALIASES: Mapping[str, str] = MappingProxyType(
    {
        "composer": "llm-foundry",
        "mcore": "megatron-core",
        "nemo-megatron": "nemo",
        "neox": "gpt-neox",
        "colossalai": "colossal-ai",
        "meta": "meta-internal",
        "llama3": "meta-internal",
        "palm": "pathways",
    }
)
_MAINSTREAM: tuple[tuple[int, str], ...] = (
    (2019, "megatron-lm"),
    (2024, "megatron-core"),
)  # (from year, framework)


def frameworks() -> list[str]:
    """Known framework names, in table order."""
    return list(dict.fromkeys(p.framework for p in PROFILES))


def _nearest(framework: str, year: int) -> Profile:
    """The framework's profile whose year range is closest to ``year`` (containing it if any)."""
    cands = [p for p in PROFILES if p.framework == framework]
    return min(cands, key=lambda p: (max(p.years[0] - year, year - p.years[1], 0), -p.years[1]))


def default_for_year(year: int) -> Profile:
    """The mainstream LLM pre-training stack of ``year``: Megatron-LM to 2023, Megatron-Core from 2024."""
    fw = [f for start, f in _MAINSTREAM if year >= start]
    return _nearest(fw[-1] if fw else _MAINSTREAM[0][1], year)


def profile_for(framework: str | None, year: int | None) -> tuple[Profile, str | None]:
    """Profile for a case's ``stack: {framework, year}`` and a one-line note when it had to guess.

    Exact framework: the profile whose years contain ``year`` (else the nearest, noted). Unknown
    framework: the year's mainstream stack, noted. No framework: today's mainstream stack (or
    that of ``year``), noted. Never raises for an unknown name.
    """
    if framework is None or not str(framework).strip():
        y = CURRENT_YEAR if year is None else year
        p = default_for_year(y)
        when = "today" if year is None else str(year)
        return p, f"no stack given: assumed the mainstream stack of {when}, {p.label}"
    name = str(framework).strip().lower()
    name = ALIASES.get(name, name)
    y = CURRENT_YEAR if year is None else year
    if name not in frameworks():
        p = default_for_year(y)
        return p, f"unknown stack '{framework}': assumed the mainstream stack of {y}, {p.label}"
    p = _nearest(name, y)
    if year is None:
        return p, f"stack '{name}' without a year: assumed {p.label}"
    if not p.contains(year):
        return p, f"stack '{name}' has no profile for {year}: used the nearest, {p.label}"
    return p, None


NO_STACK = "none"
"""``--stack none`` (plan key ``stack: none``): no profile, the plan's own defaults stand."""


def is_no_stack(stack: Any) -> bool:
    """Whether ``stack`` asks for no profile (``"none"``, any case)."""
    return isinstance(stack, str) and stack.strip().lower() == NO_STACK


DEFAULT_STACK_NOTE = "no stack given: today's mainstream; --stack NAME:YEAR for another, --stack none for the plan's own defaults"
"""Appended to the stack note of a plan or search that named no stack."""


def resolve_stack(stack: Any) -> tuple[Any, bool]:
    """What a plan or search named (``None``: nothing) resolved: (the stack to apply, or ``None`` for
    ``"none"``; whether it was named). Nothing named gives today's mainstream, :func:`default_stack`."""
    if stack is None:
        return default_stack(), False
    return (None if is_no_stack(stack) else stack), True


def default_stack() -> dict[str, Any]:
    """Today's mainstream stack as a plan's ``stack`` key: what a plan that names none is costed
    under (the year is pinned, so the same plan costs the same later)."""
    return {"framework": default_for_year(CURRENT_YEAR).framework, "year": CURRENT_YEAR}


def parse_stack(stack: Any) -> tuple[str | None, int | None]:
    """``(framework, year)`` from a ``{framework, year}`` mapping, ``"name"`` or ``"name:year"``."""
    if stack is None:
        return None, None
    if isinstance(stack, Mapping):
        name, year = stack.get("framework"), stack.get("year")
    elif isinstance(stack, str):
        name, _, y = stack.partition(":")
        year = y.strip() or None
    else:
        raise UserError(f"stack: expected {{framework, year}} or 'NAME[:YEAR]', got {stack!r}")
    if year is not None:
        try:
            year = int(year)
        except (TypeError, ValueError):
            raise UserError(f"stack: year must be an integer such as 2024, got {year!r}") from None
        if not 2015 <= year <= 2100:
            raise UserError(
                f"stack: year {year} is outside 2015-2100; give the year of the software, e.g. 2024"
            )
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise UserError(f"stack: the framework must be a name such as vllm or megatron-lm, got {name!r}")
    if year is not None and is_no_stack(name):
        raise UserError(
            f"stack: '{NO_STACK}' (no profile) takes no year; give 'none' or NAME:YEAR such as nemo:2025"
        )
    return (str(name) if name is not None else None), year
