"""What every training module shares (runtime: no sympy; imports no other training module).

The categorical plan choices (:data:`RECOMPUTE`, :data:`SCHEDULES`, :data:`PRECISIONS`,
:data:`OFFLOAD`, :data:`ATTENTION`, the ZeRO modes :data:`ZMODES`), the model's layers in
pipeline order and their split over pipeline stages, the dropout the model trains with, the
bytes per weight / gradient / optimizer state / activation, and the :class:`Machine` that prices
an operator.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from llmcost import precision as Q
from llmcost.graph.ops import ep_imbalance_value
from llmcost.hardware import GemmShape, Hardware
from llmcost.kernels.gemm import gemm_at
from llmcost.kernels.roofline import T_KERNEL
from llmcost.model.spec import ModelSpec

RECOMPUTE = ("none", "selective", "full", "op")
"""Activation recomputation: none; ``selective`` the attention core (Korthikanti 2022 §5);
``full`` each layer from its input; ``op`` PyTorch's per-op selective checkpointing as torchtitan
runs it (every other matmul and every elementwise op recomputed: :func:`llmcost.training.passes.op_sac_shares`)."""
SCHEDULES = ("1f1b", "interleaved", "gpipe", "zero_bubble")
PRECISIONS = ("bf16", "fp16", "fp8", "fp4")
QUANTIZED = ("fp8", "fp4")
"""Training precisions whose GEMM inputs are quantized (fp8 under a scaling recipe; fp4 block-scaled)."""
OFFLOAD = ("none", "cpu", "nvme", "cpu+params", "nvme+params")
"""Offload tiers of a plan: ``cpu`` (ZeRO-Offload, Ren et al. 2021: the fp16 gradients and the optimizer
state on the host, the optimizer step on its CPUs), ``nvme`` (the optimizer state on the node's NVMe,
ZeRO-Infinity), and with ``+params`` the ZeRO-3 parameter shards there too, fetched for each gather
(ZeRO-Infinity, Rajbhandari et al. 2021 §5: "offload_param")."""


def offload_tier(index: object) -> object:
    """The tier of an :data:`OFFLOAD` index (arrays too): 0 none, 1 host memory, 2 NVMe."""
    import numpy as np

    i = np.asarray(index)
    return np.where(i == 0, 0, np.where((i == 2) | (i == 4), 2, 1))


def offload_params(index: object) -> object:
    """Whether an :data:`OFFLOAD` index offloads the parameters too (``cpu+params``, ``nvme+params``)."""
    import numpy as np

    return np.asarray(index) >= 3


FP8_RECIPES = ("delayed", "current", "dynamic", "block")
"""fp8 quantization recipes of a plan (``fp8_recipe``; :data:`llmcost.training.passes.FP8_QUANTIZE`)."""
ATTENTION = ("auto", "flash", "materialized")
ZMODES = ((0, False), (0, True), (1, False), (2, False), (3, False))
"""ZeRO modes: (zero stage, Megatron distributed optimizer)."""
BUCKET_PARAMS = 40_000_000
"""Gradient bucket size in parameters: Megatron-LM DDP default ``bucket_size = max(40M, 1M·dp)``
(megatron/core/distributed/distributed_data_parallel.py)."""


def model_layers(spec: ModelSpec) -> list[tuple[str, int]]:
    """Layers in pipeline order: encoder layers then decoder layers, as (stack, index)."""
    return [("enc", i) for i in range(spec.num_encoder_layers)] + [("dec", i) for i in range(spec.num_layers)]


def with_mtp(spec: ModelSpec, n: int) -> ModelSpec:
    """``spec`` training ``n`` multi-token-prediction (MTP) modules: each one more decoder layer of
    the last layer's shape (MoE where the last layer is; its window) after the model's layers, so
    the pipeline puts it on the last stage and FLOPs, parameters and activations count it, as
    Megatron-Core runs ``--mtp-num-layers`` (MTP on the last pipeline stage; training.py
    ``num_floating_point_operations`` adds ``mtp_num_layers`` layers of the last layer's kind); the
    module's embedding, norms, projection and extra logits are its io (``io__mtp__all``,
    :func:`llmcost.training.layers`). ``n`` 0 (or already applied): ``spec`` itself."""
    from dataclasses import replace

    if n == spec.mtp_trained:
        return spec
    base = spec.num_layers - spec.mtp_trained
    last = base - 1
    extra = range(base, base + n)
    moe = tuple(i for i in spec.moe_layers if i < base)
    if last in spec.moe_layers:
        moe += tuple(extra)
    windows = tuple(spec.layer_windows[:base]) + (spec.layer_windows[last],) * n
    return replace(spec, num_layers=base + n, moe_layers=moe, layer_windows=windows, mtp_trained=n)


LAYOUT_MAX = 1 << 20
"""Symbols a pipeline layout may unroll to (a model's layers plus chunk separators are far fewer)."""
LAYOUT_SYMBOLS = {"E": "embedding", "t": "decoder layer", "m": "MTP layer", "L": "loss"}
"""Megatron-Core's pipeline layout symbols (pipeline_parallel_layer_layout.py ``parse_str_to_list``)."""


def parse_pp_layout(text: str) -> list[str]:
    """The chunks of a Megatron-Core pipeline layout string, each the symbols it holds in order:
    ``|`` separates chunks (chunk ``c`` runs on pipeline rank ``c mod p``, virtual stage ``c div p``),
    ``(...)*n`` and ``x*n`` repeat, commas are cosmetic (NVIDIA/Megatron-LM
    megatron/core/transformer/pipeline_parallel_layer_layout.py, core_v0.15.0). ValueError naming the
    first symbol that is not one of :data:`LAYOUT_SYMBOLS`."""
    import re

    s = text.replace(",", "").replace(" ", "")
    for pattern in (r"\(([^)]+)\)\*(\d+)", r"(.)\*(\d+)"):
        grown = sum(len(m.group(1)) * int(m.group(2)) for m in re.finditer(pattern, s))
        if len(s) + grown > LAYOUT_MAX:
            raise ValueError(f"it unrolls to more than {LAYOUT_MAX:,} symbols")
        s = re.sub(pattern, lambda x: x.group(1) * int(x.group(2)), s)
    bad = next((ch for ch in s if ch not in LAYOUT_SYMBOLS and ch != "|"), None)
    if bad is not None:
        raise ValueError(f"symbol {bad!r} is not one of {', '.join(LAYOUT_SYMBOLS)} or '|'")
    return s.split("|")


def stage_layers(spec: ModelSpec, pp: int, v: int) -> list[list[int]]:
    """Layer indices per pipeline stage: the plan's stated layout where it has one for ``pp·v``
    chunks (``spec.pp_chunks``: layers per chunk in order, chunk ``c`` on stage ``c mod pp``), else
    :func:`split_layers`."""
    chunks = spec.pp_chunks
    if chunks is None or len(chunks) != pp * v:
        return split_layers(n_layers(spec), pp, v)
    out: list[list[int]] = [[] for _ in range(pp)]
    start = 0
    for c, n in enumerate(chunks):
        out[c % pp].extend(range(start, start + n))
        start += n
    return out


def mtp_indices(spec: ModelSpec) -> range:
    """Indices (in pipeline order) of the layers that are MTP modules (:func:`with_mtp`)."""
    total = n_layers(spec)
    return range(total - spec.mtp_trained, total)


def n_layers(spec: ModelSpec) -> int:
    """Transformer layers of the model (encoder and decoder)."""
    return spec.num_layers + spec.num_encoder_layers


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


def attention_dropout(spec: ModelSpec) -> bool:
    """Whether the model trains with dropout on the attention probabilities: its config's
    probability (:attr:`ModelSpec.attention_dropout`, e.g. GPT-2 ``attn_pdrop`` 0.1, Megatron
    ``--attention-dropout`` 0.1; Llama / Qwen / BLOOM / OPT 0.0) is above 0. It stores a 1-byte
    mask and the dropped probabilities per score (Korthikanti 2022 §4.1)."""
    return spec.attention_dropout > 0


def hidden_dropout(spec: ModelSpec) -> bool:
    """Whether the model trains with dropout on the attention and MLP outputs
    (:attr:`ModelSpec.hidden_dropout` > 0: GPT-2 ``resid_pdrop``, OPT ``dropout``, Megatron
    ``--hidden-dropout``): a 1-byte mask per element of each (Korthikanti 2022 §4.1)."""
    return spec.hidden_dropout > 0


def uses_dropout(spec: ModelSpec) -> bool:
    """Whether the model trains with any dropout (:func:`attention_dropout` or
    :func:`hidden_dropout`)."""
    return attention_dropout(spec) or hidden_dropout(spec)


def precision_bytes(
    zero: int, precision: str, grad_fp32: bool | None = None
) -> tuple[float, float, float, float]:
    """(b_w, b_g, b_o, b_a): bytes per weight, gradient, optimizer-state parameter, activation.

    ``grad_fp32``: gradients accumulated over the micro-batches and reduced in fp32 (None: the
    precision's default, :func:`grad_fp32_default`). Megatron's gradient buffer is then fp32
    (``main_grad``, b_g 4; Megatron-LM ``megatron/training/arguments.py``: "bfloat16 requires
    gradient accumulation and all-reduce to be done in fp32", forced for bf16 unless
    ``--grad-reduce-in-bf16``) and the optimizer holds fp32 master + Adam (12), for plain DP, the
    distributed optimizer and ZeRO-1/2 alike. Without it (fp16 as Megatron and the ZeRO paper run
    it; DeepSpeed, whose gradient communication is in the parameter dtype) gradients are 16-bit
    (2): ZeRO-1/2 keep 12 bytes of optimizer state (Rajbhandari 2020 §3), plain DP / the
    distributed optimizer an fp32 gradient copy in the optimizer too (16). ZeRO-3 / FSDP is
    unchanged by it (2, 2, 12): FSDP's fp32 shard is the master copy itself, so its 16 bytes per
    parameter do not grow with an fp32 reduction. FP8 / FP4 training keeps bf16 weights and
    activations between layers (Transformer Engine; NVIDIA FP8 primer)."""
    fp32 = grad_fp32_default(precision) if grad_fp32 is None else grad_fp32
    if zero == 3:
        return 2.0, 2.0, 12.0, 2.0
    if fp32:
        return 2.0, 4.0, 12.0, 2.0
    return (2.0, 2.0, 12.0, 2.0) if zero else (2.0, 2.0, 16.0, 2.0)


def grad_fp32_default(precision: str) -> bool:
    """Whether gradients are accumulated and reduced in fp32 when neither the plan nor its stack
    says: yes except in fp16 training (Megatron-LM forces it for bf16, and fp8 / fp4 training
    computes bf16 gradients, ``megatron/training/arguments.py``; torchtitan's FSDP reduces in
    float32 by default, ``mixed_precision_reduce``, ``torchtitan/config/job_config.py``); fp16
    keeps fp16 gradients (Megatron's ``--accumulate-allreduce-grads-in-fp32`` is off by default
    for fp16; ZeRO, Rajbhandari 2020 §3)."""
    return precision != "fp16"


def bytes_table() -> np.ndarray:
    """(b_w, b_g, b_o, b_a) per (ZeRO mode, precision, fp32 gradients 0/1): :func:`precision_bytes`
    over :data:`ZMODES` x :data:`PRECISIONS` x (no, yes)."""
    out = np.zeros((len(ZMODES), len(PRECISIONS), 2, 4))
    for zi, (z, _) in enumerate(ZMODES):
        for pi, p in enumerate(PRECISIONS):
            for g in (0, 1):
                out[zi, pi, g] = precision_bytes(z, p, bool(g))
    return out


@dataclass(frozen=True)
class Machine:
    """What prices an operator: peaks and efficiencies of the device at the training precision."""

    peak_mm: float
    peak_attn: float
    peak_vec: float
    eta_c: float
    eta_attn: float
    mem_bw: float
    eta_m: float
    t_kernel: float
    gemm: GemmShape | None = None  # GEMM shape figures (llmcost.kernels.gemm); None: every shape at eta_c
    eta_attn_bwd: float | None = None  # fused attention's backward where it differs from eta_attn


def machine(hw: Hardware, precision: str) -> Machine:
    """Peaks and efficiencies that price operators: GEMMs at the training precision's peak,
    attention at 16-bit unless the precision is 16-bit (FP8 training keeps attention in bf16;
    Transformer Engine), elementwise work at the vector peak. Efficiencies are the catalog's, the
    same as inference except the sustained training GEMM figure (:meth:`Hardware.train_gemm_efficiency`
    of the GEMM datatype,
    :meth:`Hardware.attention_efficiency` for fused attention, its backward's own figure where the
    catalog measures one; a materialized attention runs as
    GEMMs, :func:`llmcost.training.compute.layer_cost`); per-kernel floor as inference."""
    attn = precision if precision in ("bf16", "fp16") else ("bf16" if "bf16" in hw.peak else precision)
    return Machine(
        peak_mm=hw.peak[precision],
        peak_attn=hw.peak.get(attn, hw.peak[precision]),
        peak_vec=hw.peak[Q.vector_dtype(hw.peak)],
        eta_c=hw.train_gemm_efficiency(precision),
        eta_attn=hw.attention_efficiency(attn),
        eta_attn_bwd=hw.attention_bwd_efficiency_value,
        mem_bw=hw.memory_bandwidth,
        eta_m=hw.memory_efficiency,
        t_kernel=T_KERNEL,
        gemm=gemm_at(hw, precision),
    )


def comm_share(hw: Hardware) -> float:
    """Share of the device's SMs an overlapped NCCL collective holds (``s_comm`` of
    :func:`llmcost.training.formulas._overlapped`): the catalog's ``gemm.collective_sms`` over its
    ``gemm.units``; 0 where the entry does not say."""
    return hw.collective_sm_share()


DEDUP_DISPATCH_SMS = 20
"""SMs a node-deduplicated dispatch or combine holds while it overlaps compute (plans with
``ep_deepep`` and ``ep_overlap``): Megatron-Core's flex dispatcher sets DeepEP's to 20 when
``moe_flex_dispatcher_num_sms`` is unset ("DeepEP's historical mcore default",
megatron/core/transformer/moe/token_dispatcher.py ``set_deepep_num_sms``)."""


DEDUP_GEMM_LOSS = (0.20, 132)
"""What an overlapped node-deduplicated dispatch or combine costs the compute under it, measured: "In
our DeepSeek-V3 benchmark, DeepEP uses 20 SMs per GPU and introduces roughly 20% GEMM-efficiency
overhead" (NVIDIA 2026, Scalable Training of Mixture-of-Experts Models with Megatron Core, arXiv
2603.07685, §4.2.3; H100, 132 SMs): more than the 15% of the SMs it holds, its copies also taking
memory bandwidth from the GEMMs. (loss, SMs of the device it was measured on);
:func:`dedup_interference` carries it to another device by the share of its SMs the 20 are."""


def dedup_interference(hw: Hardware) -> float:
    """Share of the compute an overlapped deduplicated all-to-all's kernels cost while they run
    (``s_comm`` of ``ep__overlap``): :data:`DEDUP_GEMM_LOSS` scaled by the share of this device's SMs
    :data:`DEDUP_DISPATCH_SMS` are against the measured device's; 0 where the entry gives no SM
    count."""
    loss, units = DEDUP_GEMM_LOSS
    return min(1.0, loss * hw.sm_share(DEDUP_DISPATCH_SMS) * units / DEDUP_DISPATCH_SMS)


def node_limit(spec: ModelSpec) -> float:
    """Nodes one token's experts may sit on at most: the model's group-limited routing (DeepSeek-V2
    ``topk_group`` 3, V3 4 of ``n_group`` 8: §2.1.2 of the V3 report, node-limited routing with the
    groups on nodes), else no limit (``inf``)."""
    k = spec.moe.topk_group if spec.moe is not None else None
    return float(k) if k else math.inf


EP_IMBALANCE_SOURCE = "TensorRT-LLM's per-step EP-rank figure with EPLB; training without it measures higher"
"""Where :data:`llmcost.graph.ops.EP_IMBALANCE` comes from, in a few words (the train note names it)."""


def imbalance_value(column: Any, ep: Any) -> Any:
    """Graph symbol ``ep_imb`` from the plan column ``epi`` (thousandths; 0: the default),
    :func:`llmcost.graph.ops.ep_imbalance_value`."""
    return ep_imbalance_value(np.asarray(column, dtype=float) / 1000.0, ep)
