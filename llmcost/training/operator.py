"""The operator record a training step prices: one forward operator of one layer on one device
for one micro-batch, with what its backward and recomputation read of it (runtime: no sympy)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MATMUL_KINDS = ("gemm", "router", "expert_gemm", "lm_head")
"""Graph operator kinds that are matmuls (priced at the GEMM rate, counted in MFU)."""


@dataclass(frozen=True)
class TOp:
    """One forward operator of one layer on one device for one micro-batch (numbers)."""

    name: str
    kind: str
    flops: float  # executed
    model_flops: float  # counted in MFU (matmuls; causal attention: the pairs its mask keeps)
    bytes: float
    size: float = 0.0  # collectives: bytes per rank
    comm: str | None = None
    group: str | None = None
    variant: str | None = None
    weight_bytes: Any = 0.0  # weights it reads (part of ``bytes``)
    extra_kernels: float = 0.0  # kernels beyond one launched in the forward (unfused chains)
    gemm: tuple[Any, Any, Any, Any] | None = None  # (m, n, k, g) of a matmul (llmcost.kernels.gemm)
    bwd_bytes: Any = None  # backward bytes where they are not bwd__bytes of the forward's
    bwd_extra: Any = None  # backward extra kernels where they are not bwd__extra_kernels of the forward's
    masked_flops: Any = (
        0.0  # causal self-attention: its masked pairs' FLOPs, credited only by the full-s² convention
    )
