"""GEMM efficiency by shape: the share of a device's sustained matmul rate one GEMM shape gets.

``η_shape(m, n, k, g) = q_wave · k / (k + k₀)``

* **Tile and wave quantization** ``q_wave``: a GEMM ``[m,k]x[k,n]`` (``g`` of them in one launch: a
  per-head batch, the experts of a grouped GEMM) is cut into output tiles of ``T_m x T_n``; each
  tile runs on one streaming multiprocessor (compute unit), ``U`` of them at a time, so the launch
  takes ``⌈g·⌈m/T_m⌉·⌈n/T_n⌉ / U⌉`` waves of full tiles whatever the useful work:
  ``q_wave = g·m·n / (waves · U · T_m · T_n)``. NVIDIA Deep Learning Performance Guide, "Matrix
  Multiplication Background", §"Tile Quantization" and §"Wave Quantization" (A100: 108 SMs; the
  cuBLAS tiles 256x128 / 128x256 are the most efficient, smaller tiles are picked only when
  they cut the waves).
* **Split-K** where one partial wave leaves SMs idle (fewer output tiles than SMs, ``g·⌈m/T_m⌉·⌈n/T_n⌉ <
  U``): the reduction is split ``s = max(1, min(⌊U/tiles⌋, ⌊k/k₀⌋))`` ways across the idle SMs, each
  split a ``k/s`` reduction paying the tile's fixed cost (CUTLASS "Efficient GEMM in CUDA",
  "Parallelized Reductions: Split K"; cuBLAS heuristics pick split-K for small outputs with long
  reductions), so a few-row GEMM (a short prompt, one token) is not priced as if most SMs sat idle;
  the partial sums' reduction is not priced. With ``s = 1`` this is the formula above.
* **Per-tile fixed cost** ``k/(k + k₀)``: each output tile fills the operand pipeline before its
  first multiply-accumulate and drains the accumulators through the epilogue after its last; that
  time does not shrink with ``k`` and is worth ``k₀`` elements of the reduction loop (CUTLASS
  "Efficient GEMM in CUDA": prologue, main loop, epilogue of a threadblock tile). So short
  reductions run below the sustained rate: a GEMM with ``k = k₀`` gets half of it. ``k₀`` is a
  catalog figure per device (``gemm.k_overhead``) with its source.

The sustained rate itself (``efficiency.compute_train``) is the rate of the GEMMs of a training
step at large shapes; a step's matmuls run at ``η_c · η_shape``. Training prices its three GEMMs
per matmul (forward ``[m,k]x[k,n]``, data gradient ``[m,n]x[n,k]``, weight gradient
``[k,m]x[m,n]``: :func:`training_factors`); inference its prefill matmuls (forward only, at the
plan's GEMM precision, :func:`gemm_at`). A device without a ``gemm`` entry gets ``η_shape = 1``.

Everything is numpy-vectorized; :func:`expression` is the same formula in sympy (for ``explain``
and the test that pins the two together); importing this module does not import sympy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from llmcost.hardware import GemmShape, Hardware


def gemm_at(hw: Hardware, precision: str) -> GemmShape | None:
    """The device's GEMM shape figures at the GEMM precision: a tile's fixed cost ``k0`` scales with
    the tensor peak over the memory bandwidth (the derivation of the catalog's ``k_overhead``), so an
    8- or 4-bit GEMM, twice or four times the 16-bit peak, carries that many times the 16-bit ``k0``."""
    from dataclasses import replace

    g = hw.gemm_shape
    if g is None or precision in ("bf16", "fp16") or "bf16" not in hw.peak or precision not in hw.peak:
        return g
    return replace(g, k0=g.k0 * hw.peak[precision] / hw.peak["bf16"])


def shape_efficiency(m: Any, n: Any, k: Any, g: Any, shape: GemmShape | None) -> Any:
    """``η_shape`` of ``g`` GEMMs ``[m,k]x[k,n]`` launched together (module docstring); 1 without a
    device shape, and where the GEMM is empty."""
    m, n, k, g = (np.asarray(x, dtype=float) for x in (m, n, k, g))
    if shape is None:
        return np.ones(np.broadcast(m, n, k, g).shape)
    live = (m > 0) & (n > 0) & (k > 0) & (g > 0)
    u, k0 = shape.units, shape.k0
    out = np.broadcast(m, n, k, g).shape
    tm, tn = (
        np.array([t[i] for t in shape.tiles], dtype=float).reshape((-1,) + (1,) * len(out)) for i in (0, 1)
    )
    with np.errstate(divide="ignore", invalid="ignore"):  # every tile at once (axis 0), then the best
        tiles = g * np.ceil(m / tm) * np.ceil(n / tn)
        s = np.maximum(1.0, np.minimum(np.floor(u / tiles), np.floor(k / k0)))  # split-K
        waves = np.ceil(tiles * s / u)
        q = g * m * n * s / (waves * u * tm * tn)
        eff = np.maximum(np.zeros(out), (q * (k / s) / (k / s + k0)).max(axis=0))
    return np.where(live, eff, 1.0)


def training_factors(m: Any, n: Any, k: Any, g: Any, shape: GemmShape | None) -> tuple[Any, Any]:
    """(forward, backward) shape efficiency of a matmul in training. The backward runs the data
    gradient ``dX = dY·Wᵀ`` (output ``m x k``, reduction ``n``) and the weight gradient
    ``dW = Xᵀ·dY`` (output ``k x n``, reduction ``m``), each with the forward's FLOPs, so its
    efficiency is their harmonic mean (SB-transformers "Forward and reverse FLOPs" for the two
    GEMMs)."""
    fwd = shape_efficiency(m, n, k, g, shape)
    dgrad = shape_efficiency(m, k, n, g, shape)
    wgrad = shape_efficiency(k, n, m, g, shape)
    return fwd, 2.0 / (1.0 / dgrad + 1.0 / wgrad)


def expression() -> Any:
    """``η_shape`` as a sympy expression in the registered symbols (imports sympy)."""
    import sympy as sp

    from llmcost.symbolic.symbols import sym

    m, n, k, g = sym("gemm_m"), sym("gemm_n"), sym("gemm_k"), sym("gemm_g")
    units, tm, tn, k0 = sym("gemm_units"), sym("tile_m"), sym("tile_n"), sym("k0")
    tiles = g * sp.ceiling(m / tm) * sp.ceiling(n / tn)
    s = sp.Max(1, sp.Min(sp.floor(units / tiles), sp.floor(k / k0)))
    return g * m * n * s / (sp.ceiling(tiles * s / units) * units * tm * tn) * (k / s) / (k / s + k0)
