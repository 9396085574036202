"""Measure materialized (unfused) attention the way Megatron-LM 2019-2023 runs it, part by part.

Run on a machine with a CUDA GPU, PyTorch and Triton (never by the tests):
``python bench/kernels/materialized.py OUT.json``.

Megatron-LM's ``CoreAttention`` (megatron/model/transformer.py, 2021-2023) computes, per micro-batch
and tensor-parallel rank, over ``[b·np, s, d]`` views of ``[s, b, np, d]`` activations:

1. ``torch.baddbmm(empty, q, kᵀ, beta=0, alpha=1/sqrt(d))``: the ``[b·np, s, s]`` scores;
2. ``FusedScaleMaskSoftmax`` (``scaled_upper_triang_masked_softmax`` for a causal mask): one kernel
   reading the scores and writing the probabilities;
3. attention dropout (``torch.nn.Dropout``: a 1-byte mask);
4. ``torch.bmm(p, v)``: the context.

Megatron's CUDA extension is not installed here, so the fused softmax is stood in for by (a) the eager
``torch.softmax`` on a pre-masked input (one kernel, read + write, as the fused kernel), and (b) scale +
causal mask + softmax compiled by ``torch.compile`` into one Triton kernel. The backward is timed as the
whole chain's ``torch.autograd.grad`` minus its forward. FlashAttention-2 (SDPA's flash backend) at the
same shapes is timed beside it.

Method as ``measure.py``: random normal fp16 data, ``triton.testing.do_bench`` medians (L2 cleared).
"""

from __future__ import annotations

import json
import math
import sys
import time
from typing import Any

import torch
import torch.nn.functional as F
from measure import time_ms

F16 = torch.float16

SHAPES = [
    # label, b, heads per rank, s, d
    ("gpt3-175b tp8", 1, 12, 2048, 128),
    ("gpt3-175b tp8 mb2", 2, 12, 2048, 128),
    ("mt-nlg-530b tp8", 1, 16, 2048, 160),
    ("1t tp8", 1, 20, 2048, 160),
    ("22b tp8", 1, 8, 2048, 96),
    ("39b tp8", 1, 8, 2048, 128),
    ("bloom-176b tp4", 1, 28, 2048, 128),
    ("glm-130b tp4", 1, 24, 2048, 128),
    ("s512", 1, 12, 512, 128),
    ("s1024", 1, 12, 1024, 128),
    ("s4096", 1, 12, 4096, 128),
    ("gpt2-1.5b tp1 mb8", 8, 25, 1024, 64),
]


def _inputs(b: int, np_: int, s: int, d: int, grad: bool) -> tuple[torch.Tensor, ...]:
    """q, k, v as Megatron holds them: ``[s, b·np, d]`` storage seen as ``[b·np, s, d]``."""
    q, k, v = (
        torch.randn(s, b * np_, d, device="cuda", dtype=F16).transpose(0, 1).requires_grad_(grad)
        for _ in range(3)
    )
    return q, k, v


def _compiled_softmax() -> Any:
    torch._dynamo.config.cache_size_limit = 64  # one compile per shape and scale

    def fused(x: torch.Tensor, scale: float) -> torch.Tensor:
        s = x.shape[-1]
        idx = torch.arange(s, device=x.device)
        mask = idx[None, :] > idx[:, None]
        return torch.softmax((x * scale).masked_fill(mask, float("-inf")).float(), dim=-1).to(x.dtype)

    return torch.compile(fused, dynamic=False)


def one(label: str, b: int, np_: int, s: int, d: int, fused: Any) -> dict[str, Any]:
    n = b * np_
    scale = 1.0 / math.sqrt(d)
    q, k, v = _inputs(b, np_, s, d, False)
    empty = torch.empty(n, s, s, device="cuda", dtype=F16)
    mask = torch.triu(torch.ones(s, s, device="cuda", dtype=torch.bool), 1)
    scores = torch.baddbmm(empty, q, k.transpose(1, 2), beta=0.0, alpha=scale)
    masked = scores.masked_fill(mask, float("-inf"))
    probs = torch.softmax(masked, dim=-1)
    row: dict[str, Any] = {"label": label, "b": b, "np": np_, "s": s, "d": d, "scores": n * s * s}
    row["qk_ms"] = time_ms(lambda: torch.baddbmm(empty, q, k.transpose(1, 2), beta=0.0, alpha=scale))
    row["softmax_eager_ms"] = time_ms(lambda: torch.softmax(masked, dim=-1))
    try:
        fused(scores, scale)
        row["softmax_fused_ms"] = time_ms(lambda: fused(scores, scale))
    except Exception as exc:  # noqa: BLE001 - keep the other parts
        row["softmax_fused_error"] = str(exc)[:200]
    row["dropout_ms"] = time_ms(lambda: F.dropout(probs, 0.1, True))
    row["pv_ms"] = time_ms(lambda: torch.bmm(probs, v))
    flops_mm = 2.0 * n * s * s * d
    row["qk_tflops"] = flops_mm / row["qk_ms"] / 1e9
    row["pv_tflops"] = flops_mm / row["pv_ms"] / 1e9
    row["softmax_eager_gb_s"] = 4.0 * n * s * s / row["softmax_eager_ms"] / 1e6
    row["dropout_gb_s"] = 5.0 * n * s * s / row["dropout_ms"] / 1e6
    masked = probs = scores = None  # free the scores before the chains
    for drop in (0.1, 0.0):
        qg, kg, vg = _inputs(b, np_, s, d, True)
        do = torch.randn(n, s, d, device="cuda", dtype=F16)

        def fwd(qg=qg, kg=kg, vg=vg, drop=drop) -> torch.Tensor:
            sc = torch.baddbmm(empty, qg, kg.transpose(1, 2), beta=0.0, alpha=scale)
            p = torch.softmax(sc.masked_fill(mask, float("-inf")), dim=-1)
            if drop:
                p = F.dropout(p, drop, True)
            return torch.bmm(p, vg)

        key = f"drop{drop:g}"
        f_ms = time_ms(fwd)
        both = time_ms(
            lambda fwd=fwd, qg=qg, kg=kg, vg=vg, do=do: torch.autograd.grad(fwd(), (qg, kg, vg), do)
        )
        row[f"chain_{key}_fwd_ms"] = f_ms
        row[f"chain_{key}_bwd_ms"] = both - f_ms
        del qg, kg, vg, do
    from torch.nn.attention import SDPBackend, sdpa_kernel

    qf, kf, vf = (torch.randn(b, np_, s, d, device="cuda", dtype=F16, requires_grad=True) for _ in range(3))
    dof = torch.randn(b, np_, s, d, device="cuda", dtype=F16)
    try:
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            f_ms = time_ms(lambda: F.scaled_dot_product_attention(qf, kf, vf, is_causal=True))
            both = time_ms(
                lambda: torch.autograd.grad(
                    F.scaled_dot_product_attention(qf, kf, vf, is_causal=True), (qf, kf, vf), dof
                )
            )
        row["flash_fwd_ms"], row["flash_bwd_ms"] = f_ms, both - f_ms
    except RuntimeError as exc:
        row["flash_error"] = str(exc)[:200]
    return row


def main(path: str) -> None:
    torch.manual_seed(0)
    p = torch.cuda.get_device_properties(0)
    result: dict[str, Any] = {
        "device": {"name": p.name, "sms": p.multi_processor_count, "torch": torch.__version__,
                   "cuda": torch.version.cuda, "date": time.strftime("%Y-%m-%d")},
        "rows": [],
    }  # fmt: skip
    fused = _compiled_softmax()
    for shape in SHAPES:
        t0 = time.time()
        try:
            result["rows"].append(one(*shape, fused))
        except Exception as exc:  # noqa: BLE001 - keep the other shapes
            result["rows"].append({"label": shape[0], "error": f"{type(exc).__name__}: {exc}"[:300]})
        torch.cuda.empty_cache()
        print(f"{shape[0]}: {time.time() - t0:.1f} s", flush=True)
        with open(path, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
