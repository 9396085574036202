"""Roofline time of one operator, with the bound that sets it.

``T = max(‖T_c, T_m‖_p, net_bytes / W_net) + t_launch``, ``T_c = FLOPs / (η_c·F)``,
``T_m = bytes / (η_m·W_hbm)``, ``‖a, b‖_p = (a^p + b^p)^(1/p)`` with ``p`` = :data:`OVERLAP_P`

* Roofline model: Williams, Waterman, Patterson, CACM 52(4) 2009, Fig. 1 (attainable
  throughput ``min(F, W·I)``); time form and the max/sum bounds: scaling-book
  (jax-ml/scaling-book) ``roofline.md`` "Where does the time go".
* Compute and memory overlap imperfectly near the ridge: the roofline's ``max(T_c, T_m)`` is the
  limit of perfect overlap, ``T_c + T_m`` of none (the Execution-Cache-Memory model's two cases:
  Treibig & Hager 2010, "Introducing a performance model for bandwidth-limited loop kernels",
  PPAM 2009, LNCS 6067). The p-norm between them is the smooth form, fitted to llmcost's H100
  measurements (:data:`OVERLAP_P`); it departs from the max only where the two terms are
  comparable (at ``T_m = 0.3·T_c``, +4%), so a large GEMM stays compute-bound and a decode GEMV
  memory-bound.
* Hierarchical (one ceiling per memory level, network as one more level): Yang, Kurth,
  Williams, CCPE 2020 ([derived]: one max over the levels).
* Launch / latency floor added, not maxed, because launch latency is serial for short kernels
  (CUDA Programming Guide §4.2 on graphs amortising launches).

The bound reported is ``compute``, ``memory`` or ``network`` (the largest of the three terms),
or ``latency`` when ``t_launch`` exceeds it. Everything is numpy-vectorized: pass arrays to
cost a grid of operators at once. :func:`expression` is the same formula in sympy (for
``explain``); importing this module does not import sympy.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

BOUNDS = ("compute", "memory", "network", "latency")

OVERLAP_P = 2
"""The norm joining the compute and memory terms (module docstring). Fitted to llmcost's H100 SXM
measurements (hardware/measured/h100-sxm.yaml: the bf16 M sweep at n = k = 8192 from 1 to 16384 rows,
the K sweep, and the MoE expert GEMMs at 64-4096 tokens per expert, with the catalog's GEMM shape
efficiency): rms log error 0.13 at p = 2 against 0.19 for the max (p = ∞), 0.14-0.16 at p = 3-4, 0.16
at 1.5 (tests/test_measured_kernels.py re-derives it). Measured on one device; the others assume it."""

T_KERNEL = 4e-6
"""Per-kernel overhead (s), ADDED to each operator's roofline time (:func:`roofline`'s ``t_launch``;
serial for dependent kernels; CUDA Programming Guide §4.2, CUDA Graphs): the gap between dependent kernels measured
in batch-1 decode, 2.5 µs per launch (FlashML-org/FreeToken PR #338, nsys: (143 − 44.7) µs / 39
launches) and 3.4 µs (turboderp-org/exllamav3 PR #380: 3.07 ms over 914 launches), plus ~1 µs of
GPU ramp-up / tail per kernel. One figure for every
device and engine (CUDA Graphs shrink the launch part; not modelled separately): inference,
training and test-time scaling price their operators with this one constant."""


@dataclass(frozen=True)
class Roofline:
    """Time (s) of an operator and what bounds it (arrays when the inputs are arrays)."""

    time: Any
    compute: Any
    memory: Any
    network: Any
    latency: Any

    @cached_property
    def bound(self) -> Any:
        """``compute``, ``memory`` or ``network`` (the largest term, the first on ties), or
        ``latency`` when the launch floor exceeds it; worked out when asked for (a plan search
        prices many operators and reads few bounds)."""
        terms = np.stack(np.broadcast_arrays(self.compute, self.memory, self.network, self.latency))
        idx = np.where(terms[3] > terms[:3].max(axis=0), 3, terms[:3].argmax(axis=0))
        bound = np.array(BOUNDS)[idx]
        return str(bound) if bound.ndim == 0 else bound


def roofline(
    flops: Any,
    hbm_bytes: Any,
    peak_flops: float,
    mem_bw: float,
    *,
    eta_c: float = 1.0,
    eta_m: float = 1.0,
    t_launch: Any = 0.0,
    net_bytes: Any = 0.0,
    net_bw: float = np.inf,
) -> Roofline:
    """Roofline time of an operator: the :data:`OVERLAP_P`-norm of the compute and memory terms, the
    network term if larger, plus the launch floor."""
    with np.errstate(divide="ignore", invalid="ignore"):
        tc = np.asarray(flops, dtype=float) / (peak_flops * eta_c)
        tm = np.asarray(hbm_bytes, dtype=float) / (mem_bw * eta_m)
        tn = np.where(
            np.asarray(net_bytes, dtype=float) > 0, np.asarray(net_bytes, dtype=float) / net_bw, 0.0
        )
    tl = np.asarray(t_launch, dtype=float)
    time = np.maximum(np.hypot(tc, tm), tn) + tl  # OVERLAP_P = 2: the 2-norm, hypot exact and overflow-free
    if np.ndim(time) == 0:
        return Roofline(float(time), float(tc), float(tm), float(tn), float(tl))
    return Roofline(time, tc, tm, tn, tl)


def expression() -> Any:
    """The roofline time as a sympy expression in the registered symbols (imports sympy)."""
    import sympy as sp

    from llmcost.symbolic.symbols import sym

    t_c = sym("flops") / (sym("eta_c") * sym("peak_flops"))
    t_m = sym("hbm_bytes") / (sym("eta_m") * sym("mem_bw"))
    norm = (t_c**OVERLAP_P + t_m**OVERLAP_P) ** sp.Rational(1, OVERLAP_P)
    return sp.Max(norm, sym("net_bytes") / sym("net_bw")) + sym("t_launch")
