"""Compute time and FLOPs of one micro-batch through one layer in training (runtime: no sympy).

Forward operators come from the operator graph (:mod:`llmcost.graph.ops`, phase ``forward`` for
decoder layers and ``encoder`` for an encoder stack), evaluated through its generated numpy
module (:mod:`llmcost.graph._generated`, one function per layer shape; per device,
one layer). This module derives what training adds and prices every operator with the
roofline (:func:`llmcost.kernels.roofline.roofline`, plus the per-kernel floor of
:data:`llmcost.kernels.roofline.T_KERNEL`):

* backward (``bwd__*`` of :mod:`llmcost.training.formulas`): GEMMs 2× the forward FLOPs and bytes (input and
  weight gradients; SB-transformers "Forward and reverse FLOPs"); FlashAttention 2.5× the
  forward FLOPs (it recomputes S and P; Dao-AILab/flash-attention
  benchmarks/benchmark_flash_attention.py) and 2× its bytes; a materialized score matrix 2× the
  forward FLOPs and ``bwd__scores_per`` bytes per score (14, 12 causal, +5 with attention dropout); a fused
  norm 1.5× its activation bytes (``bwd__norm_bytes``), a fused activation ``(2n+1)/(n+1)×``
  (``bwd__act_bytes``), the residual block its dropout backward and the gradient sum at the fork
  (``bwd__residual_per``); eager chains 2× (``bwd__bytes``).
* recomputation: ``full`` reruns the layer forward (Narayanan 2021 §3.5; Chen et al. 2016),
  ``selective`` the attention core (Korthikanti 2022 §5), ``none`` nothing.
* sequence parallel: norms and dropout run on ``T/t`` tokens (Korthikanti 2022 §4.2.2).
* training-only elementwise work: dropout + residual add after attention and after the FFN
  (Megatron's fused bias-dropout-add: read 2 tensors, write 1, a 1-byte mask when hidden
  dropout is on; Korthikanti 2022 §4.1 tensors) and the fused softmax cross-entropy over the
  vocabulary (reads and writes the fp32 logits; Megatron-LM theoretical_memory_usage.py).
* unfused elementwise chains (plan ``fused_norm`` / ``fused_act`` false: eager PyTorch without
  a fused kernel or a compiler; :class:`Eager`): an RMSNorm runs as the eager composite
  (``norm__unfused_bytes``, 8 kernels instead of 1) and a gated activation as ``silu`` then
  ``mul`` (``act__unfused_bytes``, 5 tensor passes instead of 3; Megatron's un-fused bias adds a
  bias kernel); each extra kernel pays :data:`~llmcost.kernels.roofline.T_KERNEL`, the backward
  twice as many (``bwd__extra_kernels``). LayerNorm is one kernel in eager PyTorch
  (``native_layer_norm``) and stays so.
* passes beyond the graph (:mod:`llmcost.training.passes`): the rotary embedding (fused, or
  torchtitan's eager chain with plan ``fused_rope`` false), MoE token permutations, with fp8
  GEMMs the quantization of their inputs and output gradients (plan ``fp8_recipe``), and under
  ``torch.autocast`` over fp32 parameters (plan ``autocast_weights``) each matmul weight's cast and
  its gradient's (the LM head's in the io passes); per-op
  selective checkpointing (recompute ``op``) recomputes the share :func:`op_sac_share` says.
* GEMM shape: every matmul runs at the sustained training rate times its shape efficiency
  (:func:`llmcost.kernels.gemm.training_factors`: tile and wave quantization and the per-tile fixed
  cost, the backward's data- and weight-gradient GEMMs with their own shapes) where the device has
  ``gemm`` figures; the graph gives each matmul's ``(m, n, k, g)``.
* a materialized attention (no FlashAttention; Megatron before FlashAttention, and what
  selective recomputation recomputes) computes the whole s² score matrix and moves it through
  HBM: scores written, softmax read/written, dropout read/written with its mask, probabilities
  read by PV, ``fwd__scores_per`` bytes per score (8, 7 causal, +5 with attention dropout), as
  separate kernels whose times add (:func:`materialized_ops`).

FLOP conventions: model FLOPs are forward + backward (``flops__fwd_bwd``); executed attention FLOPs are the graph's (causal blocks skipped) for
FlashAttention and the full matrix when materialized; the *model* FLOPs of a causal decoder
layer count the (query, key) pairs its mask keeps (s²/2: Megatron-LM ``num_floating_point_operations``
since Megatron-Core 0.12, 2025; MaxText since July 2025), never more than any kernel executes, so
MFU and HFU stay at most 1. The masked half (``TOp.masked_flops``) is kept apart for the older
full-s² convention (PaLM App. B ``12·L·H·Q·T``; Narayanan 2021; Korthikanti 2022; torchtitan,
llm-foundry), which published MFUs before 2025 use: ``LayerCost.model_flops_full`` /
``hw_flops_full``. Encoder and cross-attention are bidirectional: nothing masked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np

from llmcost.kernels.gemm import training_factors
from llmcost.kernels.roofline import roofline
from llmcost.training import _generated as G
from llmcost.training.base import Machine, model_layers
from llmcost.training.operator import MATMUL_KINDS, TOp
from llmcost.training.passes import (
    FP8_COPIES,
    autocast_op,
    fp8_quantize_op,
    moe_permute_op,
    op_sac_share,
    rotary_op,
    tp_blocks,
    tp_layout_copy_op,
)
from llmcost.training.recompute import MODULE_BITS, LayerKind, recomputed_ops

CORE_ATTN = MODULE_BITS["core_attn"]
"""The ``rcm`` of plain selective recomputation: the attention core alone."""


@dataclass(frozen=True)
class Eager:
    """Which elementwise chains of a layer run unfused, and the model facts their cost reads:
    ``norm`` (RMSNorm as the eager composite: plan ``fused_norm`` false and an RMSNorm model),
    ``act`` (plan ``fused_act`` false), ``n_up`` (2 gated, 1 plain), ``bias`` (the MLP has a bias,
    added in its own kernel when unfused), ``ce`` (plan ``fused_ce`` false: the loss is eager
    ``F.cross_entropy`` on fp32 logits, :func:`loss_ops`), ``fused_norm`` (plan ``fused_norm``: the norms' backward is
    one fused pass, ``bwd__norm_bytes``; eager PyTorch's LayerNorm backward re-reads the input and the
    gradient in a second kernel for the weight gradients, priced at ``bwd__bytes``)."""

    norm: bool = False
    act: bool = False
    n_up: int = 1
    bias: bool = False
    rope: bool = False
    fused_norm: bool = True
    ce: bool = False
    autocast: bool = False
    tp_layout_copy: bool = False

    @classmethod
    def of(
        cls,
        spec: Any,
        fused_norm: bool,
        fused_act: bool,
        fused_rope: bool = True,
        fused_ce: bool = True,
        autocast: bool = False,
        tp_layout_copy: bool = False,
    ) -> Eager:
        """The unfused chains of ``spec`` under the plan's ``fused_norm`` / ``fused_act`` / ``fused_rope`` /
        ``fused_ce``, and its ``autocast_weights`` and ``tp_layout_copy``."""
        return cls(
            norm=not fused_norm and spec.norm_type == "rmsnorm",
            act=not fused_act,
            n_up=2 if spec.gated_mlp else 1,
            bias=bool(spec.mlp_bias),
            rope=not fused_rope,
            fused_norm=fused_norm,
            ce=not fused_ce,
            autocast=autocast,
            tp_layout_copy=tp_layout_copy,
        )


RMSNORM_EAGER_KERNELS = 8
"""Kernels of one eager RMSNorm forward: ``to(float32)``, ``pow``, ``mean``, ``add_(eps)``,
``rsqrt``, ``mul``, ``type_as``, ``mul(weight)`` (pytorch/pytorch aten/src/ATen/native/layer_norm.cpp
``rms_norm_symint``, the composite behind ``torch.nn.RMSNorm`` / ``F.rms_norm`` in PyTorch 2.4-2.7,
and the Llama reference ``RMSNorm._norm(x.float()).type_as(x) * weight`` that torchtitan ran: the
same sequence). A fused kernel (apex / Transformer Engine / Triton, or a compiler) is one."""


LOSS_EAGER_KERNELS = (2, 3)
"""Kernels of the eager loss (plan ``fused_ce`` false) beyond one, forward (upcast, ``nll_loss``) and
backward (fill, scatter, downcast), as the H100 profile of hardware/measured/h100-sxm.yaml shows them
(PyTorch 2.11): each pays the per-kernel floor."""


FUSED = Eager()
"""Every chain fused (the plan default)."""
ACT_OPS = ("act", "experts_act", "shared_act")
"""Graph operators that are the MLP activation (dense, routed experts, shared experts)."""


class PassOps(NamedTuple):
    """One pass (forward or backward) of a layer's non-collective operators, per operator on axis 0
    as :func:`layer_cost` prices them: executed FLOPs, HBM bytes, the roofline (time and bound)."""

    flops: np.ndarray
    bytes: np.ndarray
    roofline: Any  # llmcost.kernels.roofline.Roofline

    @property
    def time(self) -> np.ndarray:
        return self.roofline.time


@dataclass(frozen=True)
class LayerCost:
    """Forward / backward / recompute time and FLOPs of one layer (one micro-batch, one device)."""

    t_fwd: float
    t_bwd: float
    t_rc: float
    t_attn_fwd: float
    t_attn_bwd: float
    model_flops: float  # forward + backward, per device (causal attention: the pairs its mask keeps)
    hw_flops: float  # + recomputation, per device
    ops: tuple[TOp, ...]
    t_op_fwd: Any = None  # forward time of each non-collective op, in ``ops`` order (axis 0)
    model_flops_full: Any = 0.0  # ``model_flops`` under the full-s² convention (module docstring)
    hw_flops_full: Any = 0.0  # ``hw_flops`` under the full-s² convention
    # with layer_cost(keep=True), per operator: the rows ``t_fwd`` / ``t_bwd`` / ``t_rc`` sum
    fwd: PassOps | None = None
    bwd: PassOps | None = None
    t_op_rc: Any = 0.0  # 0: nothing recomputed
    # HBM time (bytes over η_m·W_hbm) of the forward, backward and recomputation: what an overlapped
    # collective's HBM traffic competes with (plan ``hbm_contention``; ``training.formulas._overlapped``)
    m_fwd: Any = 0.0
    m_bwd: Any = 0.0
    m_rc: Any = 0.0

    def collectives(self) -> list[TOp]:
        return [o for o in self.ops if o.kind == "collective"]

    def tp_gemm_ops(self) -> list[tuple[TOp, TOp] | None]:
        """Per collective of :meth:`collectives`, the first and the last GEMM operator of its block
        (:meth:`tp_gemm_pairs`) for a TP collective whose block has GEMMs, else ``None``."""
        out: list[tuple[TOp, TOp] | None] = []
        block: list[TOp] = []
        for o in self.ops:
            if o.kind == "gemm":
                block.append(o)
            elif o.kind == "collective":
                out.append((block[0], block[-1]) if o.group == "tp" and block else None)
                if o.group == "tp":
                    block = []
        return out

    def tp_gemm_pairs(self) -> list[tuple[Any, Any]]:
        """Per TP collective of :meth:`collectives` (``None`` for other groups): forward times of
        the first and the last GEMM of its block, the ops since the previous TP collective: the
        column-parallel GEMM that consumes the block's (gathered) input and the row-parallel GEMM
        whose output the collective reduces (QKV / O projections, FFN up / down; shared experts in
        a MoE block; 0 when the block has none). What TP overlap hides the collectives under
        (:func:`llmcost.training.formulas.tp_exposed_overlap`)."""
        out: list[Any] = []
        block: list[Any] = []
        j = 0
        for o in self.ops:
            if o.kind != "collective":
                if o.kind == "gemm":
                    block.append(self.t_op_fwd[j])
                j += 1
            elif o.group == "tp":
                out.append((block[0], block[-1]) if block else (0.0, 0.0))
                block = []
            else:
                out.append(None)
        return out


def layer_shape(spec: Any, stack: str, i: int) -> tuple[str, int | None]:
    """Graph shape and window of layer ``i`` of ``stack`` ('enc' or 'dec')."""
    from llmcost.graph.ops import attn_kind

    if stack == "enc":
        return f"encoder__std__{'moe' if i in spec.encoder_moe_layers and spec.moe else 'dense'}", None
    ffn = "moe" if (i in spec.moe_layers and spec.moe is not None) else "dense"
    attn = "cross" if spec.is_encoder_decoder else attn_kind(spec)
    return f"forward__{attn}__{ffn}", spec.layer_windows[i]


def graph_ops(shape: str, window: int | None, vals: dict[str, float]) -> list[TOp]:
    """The graph's forward operators of one layer (or io) shape at ``vals`` (numbers). The expert
    GEMMs compute the busiest EP rank's tokens (``ep_imb`` times the mean); their model FLOPs are the
    mean's, what MFU counts."""
    from llmcost.graph import _generated as gen
    from llmcost.graph.ops import window_value

    fn, names, _ = gen.FUNCTIONS[shape]
    dims_fn, dims_names, _ = gen.FUNCTIONS[f"gemm__{shape}"]
    v = dict(vals, window=window_value(window))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = fn(*(v[n] for n in names))
        dims = dims_fn(*(v[n] for n in dims_names))
    imb = _num(v.get("ep_imb", 1.0))
    ops = []
    for i, (name, kind, comm, group, variant) in enumerate(gen.LAYOUTS[shape]):
        fl, hb, wb, _dq, sz = (_num(x) for x in out[5 * i : 5 * i + 5])
        gemm = tuple(_num(x) for x in dims[4 * i : 4 * i + 4]) if kind in MATMUL_KINDS else None
        model = fl / imb if kind == "expert_gemm" else fl if kind in MATMUL_KINDS else 0.0
        ops.append(
            TOp(
                name,
                kind,
                fl,
                model,
                hb,
                sz,
                comm,
                group,
                variant,
                wb,
                gemm=gemm,
            )
        )
    return ops


def training_ops(
    ops: list[TOp],
    *,
    causal: bool,
    flash: bool,
    attention_dropout: bool,
    hidden_dropout: bool,
    t_sp: int,
    tokens: float,
    h: int,
    heads: float,
    seq_kv: float,
    b_a: float,
    eager: Eager = FUSED,
    rope_width: Any = 0.0,
    fp8: str | None = None,
    moe_sort: Any = None,
    fp8_copies: float = FP8_COPIES,
    attn_share: float = 1.0,
    b_w: float = 2.0,
    tp_copy: Any = False,
    micro_batch: Any = 1.0,
    head_dims: tuple[float, float] = (128.0, 128.0),
) -> list[TOp]:
    """Training form of the graph's forward ops (module docstring): model FLOPs of attention,
    materialized attention as its kernels (:func:`materialized_ops`: ``micro_batch`` sequences of
    ``tokens / micro_batch`` queries each, ``head_dims`` the query-key and value head dims),
    sequence-parallel norms, dropout + residual, unfused chains (``eager``),
    the rotary embedding of ``rope_width`` query and key elements per token (:func:`rotary_op`) and,
    with ``fp8`` (a recipe of :data:`llmcost.training.passes.FP8_QUANTIZE`), the quantization of the fp8 GEMMs' inputs
    (:func:`fp8_quantize_op`), and in a MoE layer the token permutations (:func:`moe_permute_op`;
    ``moe_sort`` 1 where received tokens are sorted by local expert), and where ``eager.autocast`` the
    casts of its ``b_w``-byte matmul weights from fp32 (:func:`autocast_op`), and where
    ``eager.tp_layout_copy`` and ``tp_copy`` (per row: sequence-parallel TP collectives not fused into
    the GEMMs) the sequence-dimension copies of those collectives (:func:`tp_layout_copy_op`).
    ``attention_dropout`` / ``hidden_dropout``: the model trains with dropout on the attention
    probabilities / on the attention and MLP outputs (:func:`llmcost.training.base.attention_dropout`).
    ``attn_share``: the share of the causal pairs a document mask keeps in a packed sequence
    (``seqdist__doc_share``): a FlashAttention kernel computes only those; materialized scores are the
    whole matrix whatever the mask."""
    out: list[TOp] = []
    for o in unfused(ops, eager, b_a):
        if o.kind == "attention":
            self_attn = causal and o.name == "attention"
            masked = o.flops if self_attn else 0.0
            if flash and self_attn and attn_share != 1.0:
                kept = o.flops * attn_share  # the full-s² count stays the pack's: kept + masked = 2·flops
                out.append(TOp(o.name, o.kind, kept, kept, o.bytes, masked_flops=2.0 * o.flops - kept))
            elif flash:
                out.append(TOp(o.name, o.kind, o.flops, o.flops, o.bytes, masked_flops=masked))
            else:
                shape = (tokens / micro_batch, seq_kv, heads * micro_batch)
                r_sm = 0.5 if self_attn else 1.0
                out.extend(materialized_ops(o, masked, shape, head_dims, float(attention_dropout), r_sm))
        elif o.kind == "norm":
            by, w = o.bytes / t_sp, o.weight_bytes / t_sp
            bwd = G.bwd__norm_bytes(by, w) if eager.fused_norm else None
            out.append(replace(o, flops=o.flops / t_sp, model_flops=0.0, bytes=by, bwd_bytes=bwd))
        elif o.kind == "elementwise" and o.name in ACT_OPS and not o.extra_kernels:
            out.append(replace(o, bwd_bytes=G.bwd__act_bytes(o.bytes, float(eager.n_up))))
        else:
            out.append(o)
    blocks = len(tp_blocks(ops))
    d_h = 1.0 if hidden_dropout else 0.0
    res = blocks * tokens * h / t_sp
    out.append(
        TOp(
            "dropout_residual",
            "elementwise",
            2 * res,
            0.0,
            G.fwd__residual_per(b_a, d_h) * res,
            bwd_bytes=G.bwd__residual_per(b_a, d_h) * res,
        )
    )
    if np.any(np.asarray(rope_width) > 0):
        out.append(rotary_op(tokens * rope_width, b_a, eager.rope))
    permute = moe_permute_op(out, b_a, h, moe_sort)
    if permute is not None:
        out.append(permute)
    if fp8 is not None:
        out.append(fp8_quantize_op(out, fp8, b_a, fp8_copies))
    cast = autocast_op(out, b_w) if eager.autocast else None
    if cast is not None:
        out.append(cast)
    copy = tp_layout_copy_op(ops, tp_copy) if eager.tp_layout_copy else None
    if copy is not None:
        out.append(copy)
    return out


def materialized_ops(
    o: TOp,
    masked: Any,
    shape: tuple[Any, Any, Any],
    head_dims: tuple[float, float],
    d_a: float,
    r_sm: float = 1.0,
) -> list[TOp]:
    """A materialized attention (graph op ``o``, ``masked`` FLOPs its causal mask drops) as the
    kernels it runs, one after the other, each reading what the previous one wrote, so their times
    add: ``QKᵀ`` as a batched GEMM, the scale-mask-softmax and the attention dropout as memory-bound
    passes over the scores, ``PV`` as a batched GEMM (NVIDIA/Megatron-LM megatron/model/transformer.py
    ``CoreAttention.forward``, 2021-2023: ``torch.baddbmm``, ``FusedScaleMaskSoftmax``,
    ``attention_dropout``, ``torch.bmm``; the backward likewise: the two GEMMs' data and weight
    gradients, the dropout and softmax backward passes). ``shape`` is ``(s_q, s_kv, g)``: ``g``
    products of ``s_q`` queries by ``s_kv`` keys (heads times sequences), so each GEMM is priced at
    its own shape (``QKᵀ``: ``m = s_q``, ``n = s_kv``, ``k = d_qk``; ``PV``: ``m = s_q``, ``n = d_v``,
    ``k = s_kv``; :func:`llmcost.kernels.gemm.training_factors`). Measured on an H200 (llmcost,
    bench/kernels/materialized.py, hardware/measured/raw/h200-sxm-materialized-2026-11-26.json): the
    two GEMMs at head dim 96-160 run at 220-420 TFLOP/s, about half the large-GEMM rate, and the
    parts run one after the other. The full ``s²`` matrix is
    executed whatever the mask; the GEMMs share the FLOPs and the Q, K, V, O bytes by head dim
    (``2·d_qk`` and ``2·d_v`` FLOPs per score); the scores op carries ``fwd__scores_per`` /
    ``bwd__scores_per`` bytes per score (the softmax reading the share ``r_sm`` of the scores: 1/2
    under a causal mask) and its kernels (softmax, and dropout with ``d_a`` = 1). Against the
    FlashAttention paper's A100 timings of Megatron's and PyTorch's attention (Dao et al. 2022,
    App. E.6 Tables 15, 16, 18, 19: fp16, batch 16, 8 heads of 64, no mask;
    hardware/measured/a100-sxm4-40gb-flashattention-paper.yaml) the forward is within -5% to +20%,
    the backward -14% to +1%, the sum -10% to +7% at 1024-4096 tokens (the 2-norm of the summed
    FLOPs and bytes was 18-45% fast, 41-55% at 512), and 17-26% fast at 512, where launches dominate."""
    s_q, s_kv, g = shape
    d_qk, d_v = head_dims
    share = d_qk / (d_qk + d_v)
    scores = s_q * s_kv * g
    full = o.flops + masked
    parts = (
        (o.name, share, (s_q, s_kv, d_qk, g)),
        (f"{o.name}_pv", 1.0 - share, (s_q, d_v, s_kv, g)),
    )
    out = [
        TOp(name, o.kind, full * f, o.flops * f, o.bytes * f, masked_flops=masked * f, gemm=gemm)
        for name, f, gemm in parts
    ]
    by, bwd = G.fwd__scores_per(d_a, r_sm) * scores, G.bwd__scores_per(d_a, r_sm) * scores
    out.insert(
        1, TOp(f"{o.name}_scores", o.kind, 0.0, 0.0, by, extra_kernels=d_a, bwd_bytes=bwd, bwd_extra=d_a)
    )
    return out


def unfused(ops: list[TOp], eager: Eager, b_a: float) -> list[TOp]:
    """The graph's ops with the chains ``eager`` leaves unfused priced as they run (module
    docstring): a norm's activation traffic (its bytes less its weights: read input, write output,
    ``2·n_el·b_a``) becomes ``norm__unfused_bytes`` over 8 kernels; an activation's
    (``(n_up+1)·n_el·b_a``) becomes ``act__unfused_bytes`` with ``act__unfused_kernels`` more.
    Every other op, and every op when nothing is unfused, is returned as it is."""
    act = eager.act and (eager.n_up > 1 or eager.bias)
    if not (eager.norm or act):
        return ops
    out = []
    bias = 1.0 if eager.bias else 0.0
    for o in ops:
        if eager.norm and o.kind == "norm":
            n_el = (o.bytes - o.weight_bytes) / (2 * b_a)
            o = replace(
                o,
                bytes=G.norm__unfused_bytes(b_a, n_el) + o.weight_bytes,
                extra_kernels=RMSNORM_EAGER_KERNELS - 1.0,
            )
        elif act and o.kind == "elementwise" and o.name in ACT_OPS:
            n_el = o.bytes / ((eager.n_up + 1) * b_a)
            o = replace(
                o,
                bytes=G.act__unfused_bytes(b_a, bias, n_el, eager.n_up),
                extra_kernels=float(G.act__unfused_kernels(bias, eager.n_up)),
            )
        out.append(o)
    return out


def _num(x: Any) -> Any:
    """A Python float for a scalar, a float array for an array (plan grids, :mod:`llmcost.search`)."""
    return float(x) if np.ndim(x) == 0 else np.asarray(x, dtype=float)


def rowsum(a: np.ndarray) -> np.ndarray:
    """Sum over axis 0, one row after the other: the same floating-point order for one plan
    (shape ``(k,)`` or ``(k, 1)``) as for a grid of plans (numpy's pairwise summation of a
    contiguous axis would round differently), so a plan costs the same alone or in a search."""
    if not a.shape[0]:
        return np.zeros(a.shape[1:])
    out = np.array(a[0], dtype=float)
    for r in a[1:]:
        out = out + r
    return out


def _rows(xs: list[Any]) -> np.ndarray:
    """Per-operator values stacked on axis 0: shape (ops,) for one plan, (ops, plans) for a grid."""
    return np.stack(np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in xs)))


def _col(x: Any, ndim: int) -> Any:
    """A per-operator vector reshaped to broadcast against (ops, plans) rows."""
    x = np.asarray(x, dtype=float)
    return x.reshape(x.shape + (1,) * (ndim - x.ndim)) if x.ndim == 1 else x


def _times(ops: list[TOp], m: Machine, backward: bool, flash: bool = False) -> tuple[PassOps, np.ndarray]:
    """(:class:`PassOps` of the non-collective ops, which are attention) of the forward, or of the
    backward: FLOPs and bytes through ``bwd__flops`` (``bwd__flops_flash`` for a FlashAttention core)
    and ``bwd__bytes`` of :mod:`llmcost.training.formulas`."""
    comp = [o for o in ops if o.kind != "collective"]
    fl = _rows([o.flops for o in comp])
    if backward:
        by = _rows([G.bwd__bytes(o.bytes) if o.bwd_bytes is None else o.bwd_bytes for o in comp])
    else:
        by = _rows([o.bytes for o in comp])
    kinds = [o.kind for o in comp]
    nd = max(fl.ndim, by.ndim)
    if backward:
        fa = _col([k == "attention" and flash for k in kinds], nd).astype(bool)
        fl = np.where(fa, G.bwd__flops_flash(fl), G.bwd__flops(fl))
    peak = _col(
        [m.peak_mm if k in MATMUL_KINDS else m.peak_attn if k == "attention" else m.peak_vec for k in kinds],
        nd,
    )
    eta_attn = m.eta_attn_bwd if backward and m.eta_attn_bwd is not None else m.eta_attn
    eta = _col([eta_attn if k == "attention" else m.eta_c for k in kinds], nd)
    eta = eta * _shape_factors(comp, m, backward, nd)
    live = (fl > 0) | (by > 0)
    if backward:
        extra = _col(
            _rows(
                [G.bwd__extra_kernels(o.extra_kernels) if o.bwd_extra is None else o.bwd_extra for o in comp]
            ),
            nd,
        )
    else:
        extra = _col(_rows([o.extra_kernels for o in comp]), nd)
    launch = np.where(live, m.t_kernel * (1.0 + extra), 0.0)
    rl = roofline(fl, by, peak, m.mem_bw, eta_c=eta, eta_m=m.eta_m, t_launch=launch)
    return PassOps(fl, by, rl), np.array([k == "attention" for k in kinds])


def _shape_factors(comp: list[TOp], m: Machine, backward: bool, nd: int) -> Any:
    """Per operator: the GEMM shape efficiency of a matmul (:func:`llmcost.kernels.gemm.training_factors`,
    forward or backward), 1 for every other operator and on a device without GEMM shape figures."""
    if m.gemm is None or not any(o.gemm is not None for o in comp):
        return 1.0
    rows = []
    for o in comp:
        if o.gemm is None:
            rows.append(1.0)
        else:
            fwd, bwd = training_factors(*o.gemm, m.gemm)
            rows.append(bwd if backward else fwd)
    return _col(_rows(rows), nd)


def layer_cost(
    ops: list[TOp],
    recompute: str,
    m: Machine,
    flash: bool,
    op_sac: Mapping[str, float] | None = None,
    keep: bool = False,
    rcm: int = CORE_ATTN,
) -> LayerCost:
    """Times and FLOPs of one layer from its training ops (backward / recompute per the module
    docstring). A materialized attention runs as batched GEMMs (QK^T, PV) plus memory-bound softmax
    and dropout passes, so its math is priced at the GEMM efficiency; only a fused FlashAttention
    kernel uses ``efficiency.attention``. ``keep``: the per-operator rows of both passes and of the
    recomputation stay in the result (``fwd``, ``bwd``, ``t_op_rc``: one plan's breakdown; a search
    lets them go). ``rcm``: with selective recomputation, the Megatron-Core modules it recomputes
    (:mod:`llmcost.training.recompute`; the attention core alone by default)."""
    comp = [o for o in ops if o.kind != "collective"]
    if not flash:
        m = replace(m, eta_attn=m.eta_c, eta_attn_bwd=m.eta_c)
    f_ops, is_attn = _times(ops, m, backward=False)
    b_ops, _ = _times(ops, m, backward=True, flash=flash)
    fwd, bwd = f_ops.time, b_ops.time
    t_f, t_b = _num(rowsum(fwd)), _num(rowsum(bwd))
    t_af, t_ab = _num(rowsum(fwd[is_attn])), _num(rowsum(bwd[is_attn]))
    model_fwd = sum(o.model_flops for o in comp)
    attn_model = sum(o.model_flops for o in comp if o.kind == "attention")
    masked = sum(o.masked_flops for o in comp)  # all attention's
    model = G.flops__fwd_bwd(model_fwd)
    op_rc: Any = 0.0
    if recompute == "full":
        t_rc, rc, rc_full, op_rc = t_f, model_fwd, model_fwd + masked, fwd
    elif recompute == "selective" and rcm != CORE_ATTN:
        share = _module_shares(comp, rcm)
        share = share.reshape(share.shape + (1,) * (fwd.ndim - 1))
        op_rc = fwd * share
        t_rc = _num(rowsum(op_rc))
        again = [o for o, x in zip(comp, share.reshape(-1), strict=True) if x]
        rc = sum(o.model_flops for o in again)
        rc_full = rc + sum(o.masked_flops for o in again)
    elif recompute == "selective":
        t_rc, rc, rc_full = t_af, attn_model, attn_model + masked
        if keep:
            op_rc = fwd * is_attn.reshape(is_attn.shape + (1,) * (fwd.ndim - 1))
    elif recompute == "op":
        shares = op_sac or {}
        share = _rows([op_sac_share(o, shares) for o in comp])
        share = share.reshape(share.shape + (1,) * (fwd.ndim - share.ndim))
        op_rc = fwd * share
        t_rc = _num(rowsum(op_rc))
        rc = rc_full = sum(op_sac_share(o, shares) * o.flops for o in comp if o.kind in MATMUL_KINDS)
    else:
        t_rc, rc, rc_full = 0.0, 0.0, 0.0
    full = G.flops__fwd_bwd(model_fwd + masked)
    kept = (f_ops, b_ops, op_rc) if keep else (None, None, 0.0)
    generic = recompute == "op" or (recompute == "selective" and rcm != CORE_ATTN)
    hbm = _hbm_times(f_ops, b_ops, "op" if generic else recompute, is_attn, m, share if generic else None)
    return LayerCost(
        t_f, t_b, t_rc, t_af, t_ab, model, model + rc, tuple(ops), fwd, full, full + rc_full, *kept, *hbm
    )


def _module_shares(comp: list[TOp], rcm: int) -> np.ndarray:
    """Per operator of a layer, 1 where the recompute modules ``rcm`` recompute it in full: the
    attention core with ``core_attn``, and :func:`llmcost.training.recompute.recomputed_ops`."""
    names = recomputed_ops(rcm, LayerKind.of(o.name for o in comp))
    attn = bool(rcm & CORE_ATTN)
    return np.array([(o.kind == "attention" and attn) or o.name in names for o in comp], dtype=float)


def pass_hbm_time(ops: PassOps, m: Machine) -> Any:
    """HBM time of one pass: its operators' bytes over ``η_m·W_hbm``."""
    return _num(rowsum(np.asarray(ops.bytes, dtype=float))) / (m.eta_m * m.mem_bw)


def _hbm_times(
    f_ops: PassOps, b_ops: PassOps, recompute: str, is_attn: np.ndarray, m: Machine, share: Any
) -> tuple[Any, Any, Any]:
    """HBM time of a layer's forward, backward and recomputation: each pass's operator bytes over
    ``η_m·W_hbm`` (the recomputation's: the forward's, its attention's, or per-op shares ``share``)."""
    bw = m.eta_m * m.mem_bw
    fb = np.asarray(f_ops.bytes, dtype=float)
    m_f, m_b = pass_hbm_time(f_ops, m), pass_hbm_time(b_ops, m)
    if recompute == "full":
        return m_f, m_b, m_f
    if recompute == "selective":
        return m_f, m_b, _num(rowsum(fb[is_attn])) / bw
    if recompute == "op":
        return m_f, m_b, _num(rowsum(fb * share)) / bw
    return m_f, m_b, 0.0


def model_flops_per_token(spec: Any, seq: int, full_attention: bool = False) -> float:
    """Model FLOPs (forward + backward of the matmuls, causal attention's kept pairs, no
    recomputation: the MFU count of the module docstring; ``full_attention``: the full s², the
    older convention) per trained token of a sequence of
    ``seq`` tokens, for the whole model on one device. No hardware: the graph's FLOPs in their
    training form, summed over the layers in the order of :func:`llmcost.training.step.evaluate`
    (the same figure as its ``model_flops_per_step`` of a one-device, one-sequence step ÷ ``seq``)."""
    from llmcost.graph.ops import model_values

    one = np.ones(1)
    vals: dict[str, Any] = model_values(spec)
    vals.update(tp=one, cp=one, ep=one, etp=one, b_w=2.0, b_a=2.0, b_kv=2.0, b_r=2.0, c_dq=0.0)
    vals.update(seq=seq, micro_batch=one, ctx=seq, seq_enc=seq)
    keys: list[tuple[str, int | None, str]] = []
    counts: list[float] = []
    for stack, i in model_layers(spec):
        k = (*layer_shape(spec, stack, i), stack)
        if k in keys:
            counts[keys.index(k)] += 1.0
        else:
            keys.append(k)
            counts.append(1.0)
    per_key = []
    for (shape, win, stack), n in zip(keys, counts, strict=True):
        ops = training_ops(
            graph_ops(shape, win, vals),
            causal=stack == "dec",
            flash=True,
            attention_dropout=False,
            hidden_dropout=False,
            t_sp=1,
            tokens=float(seq),
            h=spec.hidden_size,
            heads=spec.num_heads,
            seq_kv=seq,
            b_a=2.0,
        )
        comp = [o for o in ops if o.kind != "collective"]
        fwd = sum(o.model_flops + (o.masked_flops if full_attention else 0.0) for o in comp)
        per_key.append(n * G.flops__fwd_bwd(fwd))
    io = [*graph_ops("io__forward__all", None, vals), loss_ops(seq, spec.vocab_size, 1)]
    layers = rowsum(np.array(per_key, dtype=float).reshape(len(per_key), -1))
    return float((layers + G.flops__fwd_bwd(sum(o.model_flops for o in io)))[0] / seq)


def loss_ops(tokens: float, vocab: int, tp: int, eager: bool = False, b_a: float = 2.0) -> TOp:
    """The loss over this device's vocabulary shard, ``n = T·V/t`` logits. Fused softmax cross-entropy:
    read and write ``n`` fp32 values (Megatron-LM theoretical_memory_usage.py, output layer), the
    backward twice that. ``eager`` (plan ``fused_ce`` false): PyTorch's ``F.cross_entropy`` on an fp32
    upcast of the logits, kernel by kernel (``loss__eager_fwd_bytes`` / ``loss__eager_bwd_bytes``, with
    their extra kernels)."""
    n = tokens * vocab / tp
    if not eager:
        return TOp("cross_entropy", "elementwise", 5 * n, 0.0, 2 * 4 * n)
    kf, kb = LOSS_EAGER_KERNELS
    return TOp(
        "cross_entropy",
        "elementwise",
        5 * n,
        0.0,
        G.loss__eager_fwd_bytes(b_a, n),
        extra_kernels=kf,
        bwd_bytes=G.loss__eager_bwd_bytes(b_a, n),
        bwd_extra=kb,
    )


def io_cost(
    io: list[TOp],
    m: Machine,
    last_stage: bool,
    first_stage: bool,
    tokens: float,
    vocab: int,
    tp: int,
    eager: Eager = FUSED,
    b_a: float = 2.0,
    b_w: float = 2.0,
) -> tuple[float, float, float, float, float]:
    """(forward time, backward time, model FLOPs fwd+bwd, forward HBM time, backward HBM time) of the
    embedding (first stage) and the final norm + LM head + loss (last stage): the rows of
    :func:`io_passes` summed, the HBM times by :func:`pass_hbm_time`."""
    ops, fwd, bwd = io_passes(io, m, last_stage, first_stage, tokens, vocab, tp, eager, b_a, b_w)
    if fwd is None or bwd is None:
        return 0.0, 0.0, 0.0, 0.0, 0.0
    flops = G.flops__fwd_bwd(sum(o.model_flops for o in ops))
    return _num(rowsum(fwd.time)), _num(rowsum(bwd.time)), flops, pass_hbm_time(fwd, m), pass_hbm_time(bwd, m)


def _head_cast(io: list[TOp], ops: list[TOp], b_w: float) -> TOp | None:
    """Autocast's cast of the LM head's weight (:func:`autocast_op`); a head tied to the embedding
    carries no weight bytes of its own in the graph, so it casts the embedding's."""
    head = next((o for o in ops if o.kind == "lm_head"), None)
    if head is None:
        return None
    emb = next((o for o in io if o.kind == "embedding"), None)
    tied = not np.any(np.asarray(head.weight_bytes) > 0) and emb is not None
    return autocast_op([replace(head, weight_bytes=emb.weight_bytes) if tied else head], b_w)


def io_passes(
    io: list[TOp],
    m: Machine,
    last_stage: bool,
    first_stage: bool,
    tokens: float,
    vocab: int,
    tp: int,
    eager: Eager = FUSED,
    b_a: float = 2.0,
    b_w: float = 2.0,
) -> tuple[list[TOp], PassOps | None, PassOps | None]:
    """(ops, forward :class:`PassOps`, backward) of the embedding (first stage) and the final norm +
    LM head + loss (last stage), None without ops; an unfused final RMSNorm per ``eager`` (:func:`unfused`),
    the LM head's weight cast where ``eager.autocast`` (:func:`autocast_op`; the embedding lookup is not cast)."""
    io = unfused(io, eager, b_a)
    ops = [o for o in io if (o.kind == "embedding" and first_stage) or (o.kind != "embedding" and last_stage)]
    if last_stage:
        ops.append(loss_ops(tokens, vocab, tp, eager.ce, b_a))
    cast = _head_cast(io, ops, b_w) if eager.autocast and last_stage else None
    if cast is not None:
        ops.append(cast)
    if not ops:
        return ops, None, None
    return ops, _times(ops, m, backward=False)[0], _times(ops, m, backward=True)[0]
