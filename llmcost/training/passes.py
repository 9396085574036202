"""The passes a training step runs besides the graph's operators, each a memory-bound or
recomputed share of the layer (runtime: no sympy): the rotary embedding (:func:`rotary_op`), MoE
token permutations (:func:`moe_permute_op`), fp8 quantization of the GEMM inputs and output
gradients (:func:`fp8_quantize_op`), autocast's weight casts (:func:`autocast_op`), the copies of
sequence-parallel collectives on batch-first activations (:func:`tp_layout_copy_op`) and what per-op selective checkpointing recomputes
(:func:`op_sac_shares`). :func:`llmcost.training.compute.training_ops` appends them to a layer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from llmcost.training import _generated as G
from llmcost.training.operator import MATMUL_KINDS, TOp


def rotary_op(n_el: Any, b_a: float, unfused: bool) -> TOp:
    """The rotary embedding of ``n_el`` query and key elements: one fused kernel per tensor
    (``rope__fused_bytes``), or the eager chain of three kernels per tensor (``rope__unfused_bytes``);
    the backward moves the same bytes in as many kernels (``rope__backward_bytes``). ~6 FLOPs per
    element (a complex multiply); memory-bound either way."""
    by = G.rope__unfused_bytes(b_a, n_el) if unfused else G.rope__fused_bytes(b_a, n_el)
    extra = 2.0 * ROPE_EAGER_KERNELS - 1.0 if unfused else 1.0
    return TOp(
        "rotary",
        "elementwise",
        6 * n_el,
        0.0,
        by,
        extra_kernels=extra,
        bwd_bytes=G.rope__backward_bytes(by),
        bwd_extra=extra,
    )


def moe_permute_op(ops: list[TOp], b_a: float, h: int, sort: Any) -> TOp | None:
    """The token permutations of a MoE layer (``moe__permute_bytes``): the assignments are the rows
    of its routed-expert GEMM (``experts_up``: ``m·g``), the routed tokens the rows of its router;
    kernels: permute, unpermute and, where sorted, the two sorts; the backward moves the same
    bytes in as many kernels. None for a dense layer."""
    up = next((o for o in ops if o.name == "experts_up" and o.gemm is not None), None)
    router = next((o for o in ops if o.kind == "router" and o.gemm is not None), None)
    if up is None or router is None or sort is None:
        return None
    m, _n, _k, g = up.gemm
    by = G.moe__permute_bytes(m * g, b_a, h, sort, router.gemm[0])
    extra = 1.0 + 2.0 * np.asarray(sort, dtype=float)
    return TOp("moe_permute", "elementwise", 0.0, 0.0, by, extra_kernels=extra, bwd_bytes=by, bwd_extra=extra)


def autocast_op(ops: list[TOp], b_w: float) -> TOp | None:
    """``torch.autocast``'s casts of the fp32 matmul weights of ``ops`` (plan ``autocast_weights``): one
    kernel per weight reading 4 bytes and writing ``b_w`` per element in the forward, the gradient's
    cast back as many bytes in the backward (``autocast__cast_bytes``); None without a weight."""
    mats = [o for o in ops if o.kind in MATMUL_KINDS and np.any(np.asarray(o.weight_bytes) > 0)]
    if not mats:
        return None
    by = G.autocast__cast_bytes(b_w, sum(np.asarray(o.weight_bytes, dtype=float) for o in mats) / b_w)
    extra = float(len(mats) - 1)
    return TOp(
        "autocast_cast", "elementwise", 0.0, 0.0, by, extra_kernels=extra, bwd_bytes=by, bwd_extra=extra
    )


def tp_blocks(ops: list[TOp]) -> list[TOp]:
    """A layer's TP blocks: the all-reduce (or, with sequence parallelism, reduce-scatter + all-gather)
    that closes each row-parallel GEMM, attention's and the MLP's."""
    return [o for o in ops if o.kind == "collective" and o.group == "tp" and o.comm == "all_reduce"]


def tp_layout_copy_op(ops: list[TOp], on: Any) -> TOp | None:
    """The sequence-dimension copies of a layer's sequence-parallel TP collectives (plan
    ``tp_layout_copy``, rows where ``on``): each TP block's all-reduce runs as an all-gather and a
    reduce-scatter, each copying the block's full activation once (``tp__layout_copy_bytes``), in the
    forward and again in the backward (the gradients' reduce-scatter and all-gather); two kernels a
    block. None without a TP block."""
    blocks = tp_blocks(ops)
    if not blocks:
        return None
    on = np.asarray(on, dtype=float)
    by = on * sum(G.tp__layout_copy_bytes(np.asarray(o.size, dtype=float)) for o in blocks)
    extra = on * (2.0 * len(blocks) - 1.0)
    return TOp(
        "tp_layout_copy", "elementwise", 0.0, 0.0, by, extra_kernels=extra, bwd_bytes=by, bwd_extra=extra
    )


ROPE_EAGER_KERNELS = 3
"""Kernels of one eager rotary embedding per tensor (q or k): ``float()``, the complex multiply,
``type_as`` (pytorch/torchtitan torchtitan/models/llama/model.py ``apply_rotary_emb``)."""

FP8_QUANTIZE: dict[str, tuple[int, bool]] = {
    "delayed": (1, True),
    "current": (2, False),
    "dynamic": (1, False),
    "block": (1, False),
}
"""fp8 quantization recipe -> (reads of the 16-bit tensor by a standalone quantization, whether the
stack quantizes inside the producing kernel where it can) (``fp8__quantize_bytes``):
``delayed`` Transformer Engine delayed scaling (scale from the amax history, one read; LayerNormLinear
/ LayerNormMLP write the fp8 output of the norm and the activation, and the backward fuses the cast
with the activation gradient); ``current`` TE current scaling / torchao dynamic scaling in eager
mode (an amax pass, then the cast: two reads, two kernels); ``dynamic`` torchao dynamic tensorwise
scaling under torch.compile (the amax fused into the previous op, one cast kernel: torchao
``roofline_utils`` fp8 tensorwise; torchtitan docs/float8.md: compile "required for competitive
performance" to fuse the scaling and casting kernels); ``block`` MXFP8 / NVFP4 block scaling (scales
computed in the casting pass, one read)."""

FP8_COPIES = 2.0
"""Bytes per element of the quantized copies of an fp8 tensor: row- and column-wise, one byte each
(:func:`llmcost.training.formulas.fp8_quantize_bytes`). Blackwell reads column-wise fp8 natively
under tensorwise scaling; llmcost writes two everywhere (an overcount of one byte per element there)."""
FP4_COPIES = 2 * (0.5 + 1 / 16)
"""The same for NVFP4: two 4-bit copies, each with one fp8 scale per 16 elements (NVIDIA NVFP4:
16-element micro-blocks with an E4M3 scale)."""

TE_FUSED_INPUT = frozenset(
    {"qkv_proj", "q_proj", "q_a_proj", "kv_a_proj", "up_proj", "down_proj", "shared_up", "shared_down"}
)
"""GEMMs whose input Transformer Engine quantizes in the producing kernel: after the norm
(LayerNormLinear: QKV, MLA's q / kv down-projections; LayerNormMLP: FC1) and after the activation
(LayerNormMLP: FC2) (TransformerEngine pytorch/module/layernorm_linear.py ``with_quantized_norm``;
layernorm_mlp.py)."""
TE_FUSED_GRAD = frozenset({"up_proj", "shared_up"})
"""GEMMs whose output gradient TE quantizes inside the activation's backward kernel
(``nvte_cast_transpose_dbias_dgelu`` / ``nvte_dswiglu_cast_transpose``)."""
FP8_GEMMS = ("gemm", "expert_gemm")
"""Matmul kinds that run in fp8 (the router and the LM head stay 16-bit: Megatron-Core keeps the
output layer out of fp8)."""


def fp8_quantize_op(ops: list[TOp], recipe: str, b_a: float, copies: float = FP8_COPIES) -> TOp:
    """Quantization of the fp8 GEMMs of a layer: each GEMM's input ``[m,k]`` in the forward and
    its output gradient ``[m,n]`` in the backward (``fp8__quantize_bytes``, :data:`FP8_QUANTIZE`;
    ``copies`` bytes per element of quantized copies: :data:`FP8_COPIES`, :data:`FP4_COPIES`);
    one kernel per standalone quantization (two with a separate amax pass), none where the
    producer quantizes. The weights are not counted: TE caches their fp8 copy across micro-batches
    and FSDP stacks cast the shard before the gather."""
    reads, te = FP8_QUANTIZE[recipe]
    fwd: Any = 0.0
    bwd: Any = 0.0
    k_f = k_b = 0.0
    for o in ops:
        if o.kind not in FP8_GEMMS or o.gemm is None:
            continue
        m, n, k, g = o.gemm
        r_in = 0 if te and o.name in TE_FUSED_INPUT else reads
        r_gr = 0 if te and o.name in TE_FUSED_GRAD else reads
        fwd = fwd + G.fp8__quantize_bytes(b_a, copies, m * k * g, r_in)
        bwd = bwd + G.fp8__quantize_bytes(b_a, copies, m * n * g, r_gr)
        k_f += r_in
        k_b += r_gr
    extra_f, extra_b = max(k_f - 1.0, 0.0), max(k_b - 1.0, 0.0)
    return TOp(
        "fp8_quantize", "elementwise", 0.0, 0.0, fwd, extra_kernels=extra_f, bwd_bytes=bwd, bwd_extra=extra_b
    )


def op_sac_shares(q_dim: float, kv_dim: float, gated: bool) -> dict[str, float]:
    """Share of each matmul's forward that per-op selective checkpointing recomputes, by operator
    name (torchtitan: "Saves output of all compute ops, except every second mm", over a Llama
    block's wq, wk, wv, wo, w1, w3, w2, or a GELU block's wq, wk, wv, wo, fc1, fc2): of the fused
    QKV projection its K part (wk), the output projection (wo), and of a gated MLP the up half of
    the fused up projection (w3), of a plain one the down projection (fc2). The same for shared
    and routed experts (``shared_up``, ``experts_down``, ...); other matmuls are saved."""
    ffn = {"up": 0.5, "down": 0.0} if gated else {"up": 0.0, "down": 1.0}
    out = {
        "qkv_proj": kv_dim / (q_dim + 2 * kv_dim),
        "o_proj": 1.0,
        "up_proj": ffn["up"],
        "down_proj": ffn["down"],
    }
    for prefix in ("shared_", "experts_"):
        out.update({f"{prefix}{k}": v for k, v in ffn.items()})
    return out


def op_sac_share(o: TOp, shares: Mapping[str, float]) -> float:
    """Share of operator ``o``'s forward recomputed under per-op selective checkpointing: the
    attention core none (its output is saved), a matmul its :func:`op_sac_shares` entry (0 when
    absent: saved), every other operator (norms, activations, rotary, dropout, casts) all."""
    if o.kind == "attention":
        return 0.0
    if o.kind in MATMUL_KINDS:
        return shares.get(o.name, 0.0)
    return 1.0
