"""Fused-attention efficiency by head dimension: the softmax's exponentials against the matmuls, and
the smaller tiles of wide heads.

``η_head(w) = f(w) / f(2·128)`` for ``w = d_qk + d_v <= 256``, ``f(w) = 1 / (1 + R / (2·w))``;
for ``w > 256``: 1 forward, ``(256 / w)^γ`` backward.

A fused attention kernel (FlashAttention 1-3, cuDNN) computes, per (query, key) score, ``2·d_qk``
FLOPs for ``QKᵀ`` and ``2·d_v`` for ``PV`` on the tensor cores, and one exponential on the special
function units, which are far slower: H100 SXM "has 989 TFLOPS of FP16 matmul but only 3.9 TFLOPS of
special functions" (Shah et al. 2024, FlashAttention-3, arXiv 2407.08608, §3). ``R`` is that ratio per
SM and clock (catalog ``gemm.flops_per_exp``: dense 16-bit tensor FLOPs per clock per SM over the
exp2 results per clock per SM of the CUDA C Programming Guide throughput table, compute capability
8.x-10.x, doubled on Blackwell Ultra): when the exponentials do not overlap the matmuls, the matmul
share of the time is ``f``. Small heads spend relatively more on the softmax: at ``R = 256`` (Hopper)
``f`` is 0.50 / 0.67 at head dim 64 / 128, the ratio 0.75 that FlashAttention-3 measures on H100
(FP16 forward, Fig. 5: about 497 / 648 TFLOPS at 16k tokens) and cuDNN 0.80 (llmcost's H100 / H200
tables). The catalog's attention figures are measured at head dim 128, so the factor is 1 there. The
backward does 2.5 times the matmul work per exponential, so its factor departs less from 1 (0.86 at
head dim 64; cuDNN measured 0.81-0.88).

Wider heads do not run faster, as the exponential bound alone would have them: a wide head's Q, K, V
and dO tiles and the backward's dK / dV accumulators (block x d each) fill the shared memory,
registers and tensor memory at fewer rows, so the kernels take smaller blocks (FlashAttention-2 tunes
its block sizes per head dimension against shared memory and registers, Dao 2023, arXiv 2307.08691
§3.3) and each loaded tile is reused over fewer scores. Measured with cuDNN, the forward stays near
the head-dim-128 rate (d 256 on H100 / H200 1.07-1.09, llmcost's tables; DeepSeek-V3's d_qk 192 / d_v 128
on GB200 / GB300 0.93-1.03 and d 256 1.02-1.08, NVIDIA's cudnn-frontend benchmark,
hardware/measured/blackwell-cudnn-sdpa-nvidia.yaml) and the backward falls below it (d 256 on Hopper
0.75-0.77, 192 / 128 on Blackwell 0.82-0.89): above ``w = 256`` the factor is 1 forward and
``(256 / w)^γ`` backward, :data:`WIDE_BACKWARD_EXPONENT` ``γ`` fitted to those measurements
(tests/test_measured_kernels.py re-derives it). FlashAttention-3's own kernel reaches 1.17 forward at
head dim 256 on H100 (Fig. 5): stacks that run it at wide heads are priced below its rate.

Sequence length (:func:`length_factor`): ``η_len(s) = s / (s + s₀)``. Each query block of a fused
kernel pays a fixed cost that does not grow with the keys it visits (loading the block, writing its
output and log-sum-exp; in the backward also the ``rowsum(dO·O)`` preprocessing and the dQ
accumulation and conversion passes, which move ``O(s·d)`` bytes), and a causal mask leaves the
diagonal tiles half wasted (a share of order ``block / s``); both are worth ``s₀`` keys, so a short
sequence runs below the long-sequence rate the catalog's ``attention`` figure gives. ``s₀`` is a
catalog figure per device and pass (``gemm.attention_s0``, forward and backward), measured; devices
without it get 1. Measured on an H100 SXM (llmcost, hardware/measured/h100-sxm.yaml, cuDNN 9.19 SDPA,
head dim 128, causal): forward 447 / 501 / 532 / 562 / 573 TFLOP/s at 1k / 2k / 4k / 8k / 16k tokens,
fitted by ``s₀`` = 312 (rms log error 0.8%); backward 296 / 399 / 447 / 483 / 522, ``s₀`` = 824 (1.9%);
on an H200 404 and 712. The GH100 entries take the mean of the two parts (360 / 770;
tests/test_measured_kernels.py re-derives it). ``s`` is the plan's sequence length: a context-parallel
ring's steps are separate launches over ``s/cp`` keys each, and a sliding window visits fewer keys;
neither is modelled.

Everything is numpy-vectorized; :func:`expression` is the same formula in sympy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

REFERENCE_WIDTH = 2 * 128
"""``d_qk + d_v`` at which the catalog's attention figures are measured (head dim 128)."""


WIDE_BACKWARD_EXPONENT = 0.44
"""``γ`` of the backward above ``w = 256`` (module docstring): least squares in log of ``(256/w)^γ`` to
the cuDNN backward over the head-dim-128 backward at the same sequence lengths, 4k-16k tokens: head
dim 256 on H100 and H200 (llmcost, hardware/measured/) and d_qk 192 / d_v 128 on GB200 and GB300
(NVIDIA/cudnn-frontend, hardware/measured/blackwell-cudnn-sdpa-nvidia.yaml); test-derived."""


BACKWARD_MATMULS = 2.5
"""Matmul FLOPs of the backward per score over the forward's: FlashAttention's backward recomputes
``QKᵀ`` and computes ``dV``, ``dP``, ``dQ``, ``dK`` (5 matmuls against 2) for the one exponential it
recomputes (Dao 2023, FlashAttention-2 §3.2; the 2.5x of ``bwd__flops_flash``)."""


def head_factor(d_qk: Any, d_v: Any, flops_per_exp: float | None, backward: bool = False) -> Any:
    """``η_head`` (module docstring) of the forward, or of the backward (``BACKWARD_MATMULS`` times
    the matmul work per exponential: ``f(2.5·w)/f(2.5·256)``, and ``(256/w)^γ`` above ``w = 256``); 1
    without the device figure."""
    w = np.asarray(d_qk, dtype=float) + np.asarray(d_v, dtype=float)
    if flops_per_exp is None:
        return np.ones(w.shape)
    scale = BACKWARD_MATMULS if backward else 1.0
    f = 1.0 / (1.0 + flops_per_exp / (2.0 * scale * w))
    narrow = f * (1.0 + flops_per_exp / (2.0 * scale * REFERENCE_WIDTH))
    wide = (REFERENCE_WIDTH / w) ** WIDE_BACKWARD_EXPONENT if backward else np.ones(w.shape)
    return np.where(w <= REFERENCE_WIDTH, narrow, wide)


def length_factor(seq: Any, s0: float | None) -> Any:
    """``η_len = s / (s + s₀)`` (module docstring) of a fused attention over ``seq`` keys; 1 without the
    device figure."""
    s = np.asarray(seq, dtype=float)
    if s0 is None:
        return np.ones(s.shape)
    return s / (s + s0)


def expression(backward: bool = False) -> Any:
    """``η_head`` (forward, or ``backward``) as a sympy expression in the registered symbols (imports
    sympy)."""
    import sympy as sp

    from llmcost.symbolic.symbols import sym

    r, w = sym("flops_per_exp"), sym("d_qk") + sym("d_v_head")
    ref, scale = sp.Integer(REFERENCE_WIDTH), sp.nsimplify(BACKWARD_MATMULS) if backward else sp.Integer(1)
    narrow = (1 + r / (2 * scale * ref)) / (1 + r / (2 * scale * w))
    wide = sp.Pow(ref / w, sp.Float(WIDE_BACKWARD_EXPONENT), evaluate=False) if backward else sp.Integer(1)
    return sp.Piecewise((narrow, w <= ref), (wide, True))


def length_expression() -> Any:
    """``η_len`` as a sympy expression in the registered symbols (imports sympy)."""
    from llmcost.symbolic.symbols import sym

    return sym("seq") / (sym("seq") + sym("attn_s0"))
