"""Numeric formats of weights, activations and KV cache: bytes per element and the compute peak used.

Formats: ``bf16``, ``fp16``, ``fp8``, ``int8``, ``int4``, ``fp4``. Bytes per element include
the scale overhead of the quantization scheme assumed, ``b = bits/8 + s_b/g`` for ``s_b`` bytes
of scale per group of ``g`` elements [derived from the schemes below]:

=======  =========================================================================  ========
format   scheme assumed                                                             bytes
=======  =========================================================================  ========
bf16     —                                                                          2
fp16     —                                                                          2
fp8      E4M3 with per-tensor / per-row scales (TensorRT-LLM, vLLM fp8); overhead    1
         below 0.1% for rows of >= 1024 elements, taken as 0
int8     symmetric, one fp16 scale per group of 128 (SmoothQuant per-channel is      1.015625
         smaller; 128 bounds it)
int4     GPTQ / AWQ style: groups of 128 along K, fp16 scale + 4-bit zero point      0.51953125
         (0.5 + 2.5/128)
fp4      OCP MXFP4: groups of 32, one E8M0 (1-byte) scale (0.5 + 1/32)               0.53125
=======  =========================================================================  ========

Which peak a GEMM runs at (:func:`gemm_math`): the math precision is the activation format
when the weights are at least as wide (bf16 / fp16 weights with fp16 activations...), the
shared format for W8A8 (fp8 x fp8 uses the fp8 peak, int8 x int8 the int8 peak) and W4A4; a
weight narrower than the activations is **weight-only** quantization (W8A16, W4A16, W4A8):
the GEMM computes at the activation precision after dequantizing the weights on the vector
units, which costs ``C_DQ`` element-ops per weight element per 128-row tile of tokens
([derived]: dequantization on the vector units next to the tensor-core MMA; QServe, Lin et al.
2024, abstract and §3: 20-90% of runtime in dequantization for W4A16 kernels). Activations narrower than the weights are refused.

Attention (:func:`attention_math`) multiplies Q by the cached K and V, so it runs at the KV
format when that is a float format with a hardware peak (FP8 FlashAttention-3 on Hopper);
integer KV caches are dequantized to the activation precision (bf16 when activations are 8-bit
integers). A format the hardware cannot compute in is a :class:`~llmcost.errors.PlanError`.
"""

from __future__ import annotations

from dataclasses import dataclass

from llmcost.errors import PlanError, UserError

FORMATS = ("bf16", "fp16", "fp8", "int8", "int4", "fp4")
BYTES: dict[str, float] = {
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0 + 2.0 / 128,
    "int4": 0.5 + 2.5 / 128,
    "fp4": 0.5 + 1.0 / 32,
}
"""Bytes per element including scales (group sizes in the module docstring)."""
BITS: dict[str, int] = {"bf16": 16, "fp16": 16, "fp8": 8, "int8": 8, "int4": 4, "fp4": 4}
C_DQ = 4.0
"""Vector element-ops to dequantize one weight element (unpack, convert, scale, zero point):
2-8 [calibrate]; QServe (Lin et al. 2024 §3) on the cost of dequantization."""
DQ_TILE = 128
"""Token rows per GEMM tile: a weight tile is dequantized once per 128-row block of tokens."""
_FLOAT = ("bf16", "fp16", "fp8", "fp4")


def normalize(fmt: str, what: str = "precision") -> str:
    """Canonical format name; UserError listing the formats otherwise."""
    key = str(fmt).strip().lower()
    key = {
        "bfloat16": "bf16",
        "float16": "fp16",
        "half": "fp16",
        "e4m3": "fp8",
        "mxfp4": "fp4",
        "nvfp4": "fp4",
        "w8": "int8",
        "w4": "int4",
    }.get(key, key)
    if key not in FORMATS:
        raise UserError(f"{what}: '{fmt}' is not a format; use one of {', '.join(FORMATS)}")
    return key


@dataclass(frozen=True)
class GemmMath:
    """How a GEMM with these weight and activation formats computes."""

    math: str  # datatype whose dense peak applies
    weight_only: bool  # weights dequantized to ``math`` on the vector units


def gemm_math(weights: str, activations: str) -> GemmMath:
    """Math precision of a GEMM (see the module docstring); PlanError for unsupported pairs."""
    w, a = normalize(weights, "weights"), normalize(activations, "activations")
    if a == w or {a, w} == {"bf16", "fp16"}:
        return GemmMath(a, False)
    if BITS[w] <= BITS[a]:  # narrower (or same width, other family): weight-only, dequantized to a
        return GemmMath(a, True)
    raise PlanError(
        f"activations in {a} with {w} weights is not a supported GEMM; use activations at least "
        f"as wide as the weights (e.g. --activations {w}) or quantize the weights too"
    )


def attention_math(kv_cache: str, activations: str) -> str:
    """Math precision of attention: the KV format if it is a float format, else the activations'."""
    kv, a = normalize(kv_cache, "kv_cache"), normalize(activations, "activations")
    if kv in _FLOAT and kv != "fp4":
        return kv
    return a if a in ("bf16", "fp16") else "bf16"


def vector_dtype(peaks: dict[str, float]) -> str:
    """Datatype of the vector (CUDA-core) peak used for elementwise work and dequantization."""
    for d in ("fp32", "bf16", "fp16"):
        if d in peaks:
            return d
    return next(iter(peaks))


def require(peaks: dict[str, float], dtype: str, hw_id: str, role: str) -> float:
    """Dense peak for ``dtype``; PlanError naming what the hardware supports otherwise."""
    if dtype not in peaks:
        have = ", ".join(d for d in ("bf16", "fp16", "fp8", "int8", "fp4", "int4") if d in peaks)
        raise PlanError(f"{hw_id} has no {dtype} compute for {role}; it supports {have}")
    return peaks[dtype]
