"""MoE expert GEMMs by tokens per expert: one grouped launch against one GEMM per expert.

Run on a CUDA machine with PyTorch >= 2.8 (never by the tests): ``python bench/kernels/grouped.py OUT.json``.
For expert shapes of published MoE models it times, per tokens-per-expert ``m`` (every expert
receiving ``m`` tokens: the balanced case), the ``G`` expert GEMMs ``[m, k] x [k, n]`` in bf16 as

* ``grouped``: one ``torch._grouped_mm`` launch (the grouped GEMM torchtitan's MoE uses; CUTLASS
  grouped kernels under it), weights ``[G, n, k]`` read transposed;
* ``loop``: one ``torch.mm`` per expert (an unfused implementation).

Method as ``measure.py``: random normal data, ``triton.testing.do_bench`` median with L2 cleared,
rate = ``2·G·m·n·k`` over it. Shapes: Qwen3-30B-A3B (hidden 2048, expert FFN 768: gate+up ``n`` 1536,
down ``k`` 768), DeepSeek-V3 (7168, 2048), Mixtral 8x7B (4096, 14336), with the experts one GPU holds
under a typical expert parallelism.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import torch
from triton.testing import do_bench

BF16 = torch.bfloat16
SHAPES = [
    ("qwen3-30b-a3b up+gate (16 experts)", 16, 1536, 2048),
    ("qwen3-30b-a3b down (16 experts)", 16, 2048, 768),
    ("deepseek-v3 up+gate (8 experts)", 8, 4096, 7168),
    ("deepseek-v3 down (8 experts)", 8, 7168, 2048),
    ("mixtral-8x7b up+gate (8 experts)", 8, 28672, 4096),
]
"""(label, experts G, n, k)."""
TOKENS = (64, 128, 256, 512, 1024, 2048, 4096)


def _ms(fn: Any) -> float:
    return float(do_bench(fn, warmup=25, rep=100, return_mode="median"))


def point(g: int, m: int, n: int, k: int) -> dict[str, Any]:
    x = torch.randn(g * m, k, device="cuda", dtype=BF16)
    w = torch.randn(g, n, k, device="cuda", dtype=BF16)
    offs = torch.arange(1, g + 1, device="cuda", dtype=torch.int32) * m
    flops = 2.0 * g * m * n * k
    out: dict[str, Any] = {"experts": g, "m": m, "n": n, "k": k}
    try:
        ms = _ms(lambda: torch._grouped_mm(x, w.transpose(-2, -1), offs=offs, out_dtype=BF16))
        out["grouped_ms"], out["grouped_tflops"] = ms, flops / ms / 1e9
    except Exception as exc:  # noqa: BLE001 - record why, keep the loop figure
        out["grouped_error"] = f"{type(exc).__name__}: {exc}"[:200]
    xs = x.view(g, m, k)
    ms = _ms(lambda: [torch.mm(xs[i], w[i].t()) for i in range(g)])
    out["loop_ms"], out["loop_tflops"] = ms, flops / ms / 1e9
    return out


def main(path: str) -> None:
    torch.manual_seed(0)
    rows = []
    for label, g, n, k in SHAPES:
        for m in TOKENS:
            try:
                rows.append({"label": label, **point(g, m, n, k)})
            except Exception as exc:  # noqa: BLE001 - an out-of-memory keeps the rest
                rows.append({"label": label, "m": m, "error": str(exc)[:200]})
            r = rows[-1]
            print(label, m, round(r.get("grouped_tflops", 0)), round(r.get("loop_tflops", 0)), flush=True)
        with open(path, "w") as f:
            json.dump(
                {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "rows": rows},
                f,
                indent=1,
            )


if __name__ == "__main__":
    main(sys.argv[1])
