"""Roofline time of one operator, with the bound that sets it.

``T = max(FLOPs / (η_c·F), bytes / (η_m·W_hbm), net_bytes / W_net) + t_launch``

* Roofline model: Williams, Waterman, Patterson, CACM 52(4) 2009, Fig. 1 (attainable
  throughput ``min(F, W·I)``); time form and the max/sum bounds: scaling-book
  (jax-ml/scaling-book) ``roofline.md`` "Where does the time go".
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
    """Roofline time of an operator: max of the compute, memory and network terms, plus the launch floor."""
    with np.errstate(divide="ignore", invalid="ignore"):
        tc = np.asarray(flops, dtype=float) / (peak_flops * eta_c)
        tm = np.asarray(hbm_bytes, dtype=float) / (mem_bw * eta_m)
        tn = np.where(
            np.asarray(net_bytes, dtype=float) > 0, np.asarray(net_bytes, dtype=float) / net_bw, 0.0
        )
    tl = np.asarray(t_launch, dtype=float)
    time = np.maximum(np.maximum(tc, tm), tn) + tl  # max is exact: the same bits as a stacked max
    if np.ndim(time) == 0:
        return Roofline(float(time), float(tc), float(tm), float(tn), float(tl))
    return Roofline(time, tc, tm, tn, tl)


def expression() -> Any:
    """The roofline time as a sympy expression in the registered symbols (imports sympy)."""
    import sympy as sp

    from llmcost.symbolic.symbols import sym

    return sp.Max(
        sym("flops") / (sym("eta_c") * sym("peak_flops")),
        sym("hbm_bytes") / (sym("eta_m") * sym("mem_bw")),
        sym("net_bytes") / sym("net_bw"),
    ) + sym("t_launch")
