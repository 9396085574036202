"""Per-layer operator expressions (sympy): the source of truth for operator pricing in
:mod:`llmcost.inference.evaluator`, :mod:`llmcost.tts.query` and :mod:`llmcost.training.compute`.

The per-operator expressions come from the operator graph (:mod:`llmcost.graph.ops`, whose
docstring states the conventions and sources). This module gathers them per expression
*shape* — one function per layer shape (``forward__std__dense``, ``decode__mla__moe``, ...)
and per embedding/head variant — returning, for every operator of the layer in order, its
``flops, hbm_bytes, weight_bytes, dequant, size`` and, last, the layer's resident KV-cache
bytes; a second function per training / prefill shape (``gemm__<shape>``, :func:`gemm_shapes`) gives each matmul's GEMM shape
``(m, n, k, g)`` for the shape efficiency of :mod:`llmcost.kernels.gemm`. Operator metadata (name, kind, collective, group, variant) goes into ``LAYOUTS``.

``python -m llmcost.graph.formulas`` regenerates :mod:`llmcost.graph._generated`
(numpy only; the runtime imports it, never sympy); tests/test_inference.py pins it.
Operator time is :func:`llmcost.kernels.roofline.roofline`; collectives are
:mod:`llmcost.collectives.cost`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import sympy as sp

from llmcost.graph import ops as G
from llmcost.symbolic.compile import arguments, generated_header, write_generated

IO_SHAPES = (
    "io__forward__all",
    "io__forward__last",
    "io__decode__last",
    "io__encoder__all",
    "io__draft__last",
    "io__mtp__all",
)


def layer_shapes() -> list[str]:
    """Every layer shape pre-generated: decoder phases x attention x FFN, plus encoder layers."""
    out = [f"{ph}__{a}__{f}" for ph in ("forward", "decode") for a in G.ATTN_KINDS for f in G.FFN_KINDS]
    return out + [f"encoder__std__{f}" for f in G.FFN_KINDS]


def ops_of(shape: str) -> tuple[G.Op, ...]:
    """Operators of a layer or io shape."""
    if shape.startswith("io__"):
        _, phase, logits = shape.split("__")
        return G.io_ops(phase, logits)
    return G.layer_ops(shape)


def expression(shape: str) -> sp.Tuple:
    """(flops, hbm_bytes, weight_bytes, dequant, size) per operator, then KV bytes, as one Tuple."""
    items: list[Any] = []
    for op in ops_of(shape):
        items += [sp.sympify(getattr(op, q)) for q in G.QUANTITIES]
    kv = sp.Integer(0) if shape.startswith("io__") else G.layer_kv_bytes(shape)
    items.append(sp.sympify(kv))
    return sp.Tuple(*items)


def gemm_shapes() -> list[str]:
    """The shapes whose GEMM dimensions are generated: what a training step prices (forward and
    encoder layers, the training head ``io__forward__all`` and an MTP module's ``io__mtp__all``), which serving's prefill reuses for its
    forward layers (decode GEMMs are memory-bound)."""
    return [sh for sh in layer_shapes() if not sh.startswith("decode")] + ["io__forward__all", "io__mtp__all"]


def gemm_expression(shape: str) -> sp.Tuple:
    """(m, n, k, g) of every operator of ``shape`` (:data:`llmcost.graph.ops.GEMM_DIMS`; zeros for
    an operator that is not a matmul), as one Tuple."""
    items: list[Any] = []
    for op in ops_of(shape):
        items += [sp.sympify(x) for x in (op.gemm or (0, 0, 0, 0))]
    return sp.Tuple(*items)


def layout(shape: str) -> tuple[tuple[str, str, str | None, str | None, str | None], ...]:
    """(name, kind, comm, group, variant) of each operator of ``shape``."""
    return tuple((o.name, o.kind, o.comm, o.group, o.variant) for o in ops_of(shape))


GENERATED = Path(__file__).with_name("_generated.py")
HEADER = generated_header(
    "llmcost.graph.formulas",
    "tests/test_inference.py",
    "One numpy function per layer / io shape returning, per operator, (flops, hbm_bytes,\nweight_bytes, dequant, size), then the layer's KV-cache bytes, and one per training / prefill shape (``gemm__<shape>``)\nreturning each operator's GEMM shape (m, n, k, g). FUNCTIONS maps the name to\n(function, argument names, expression hash); LAYOUTS to the operators' metadata.",
)


def generated_source() -> str:
    """Source of the runtime module."""
    from llmcost.symbolic.compile import module_source

    shapes = layer_shapes() + list(IO_SHAPES)
    entries = []
    for sh in shapes:
        expr = expression(sh)
        entries.append((sh, expr, arguments(expr), ""))
    for sh in gemm_shapes():
        expr = gemm_expression(sh)
        entries.append((f"gemm__{sh}", expr, arguments(expr), ""))
    src = module_source(entries, header=HEADER)
    lay = "\n".join(f"    {sh!r}: {layout(sh)!r}," for sh in shapes)
    return src + f"\nLAYOUTS = {{\n{lay}\n}}\n"


if __name__ == "__main__":
    write_generated(GENERATED, generated_source())
