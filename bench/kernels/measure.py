"""Measure one GPU's kernel rates by shape: the calibration data behind ``hardware/measured/``.

Run on a machine with a CUDA GPU, PyTorch and Triton (never by the tests; llmcost does not depend
on torch): ``python bench/kernels/measure.py OUT.json``. It writes one JSON object:

* ``device``: name, SMs, L2, clocks and power limit as the driver reports them, software versions;
* ``gemm``: bf16 ``[m,k]x[k,n]`` products in the three layouts of a training matmul (``nt`` forward
  ``X·Wᵀ`` with ``W`` stored ``[n,k]`` as ``nn.Linear`` does, ``nn`` data gradient ``dY·W``, ``tn``
  weight gradient ``dYᵀ·X``): square, K, M sweeps and the linear layers of common models;
* ``gemm_fp8``: e4m3 x e4m3 -> bf16 ``torch._scaled_mm`` with per-tensor scales (no cast pass);
* ``attention``: ``scaled_dot_product_attention`` forward and forward+backward per backend, head dim,
  sequence length, causal or not (FLOPs: ``4·b·h·s²·d``, half of it causal; backward 2.5x);
* ``attention_nvidia``: cuDNN at NVIDIA's cudnn-frontend benchmark shapes (64 query / 8 KV heads of
  128, causal, batch 1), to compare its harness with ours on one device;
* ``memory``: device-to-device copy and the elementwise passes of a layer, bytes read + written;
* ``sustained``: one 8192³ bf16 product repeated for ``SUSTAIN_S`` seconds with the SM clock, power
  and temperature sampled by ``nvidia-smi`` every 250 ms, the rate per second.

Method: random normal data (never zeros: they run faster), ``triton.testing.do_bench`` (CUDA events,
L2 cleared before each repetition, the median), each rate as FLOPs (or bytes) over that median. The
card is measured as found: no clock, power or mode is set.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any

import torch
import torch.nn.functional as F
from stepping import run_sections
from triton.testing import do_bench

SUSTAIN_S = float(os.environ.get("SUSTAIN_S", "30"))
BF16 = torch.bfloat16


def _smi(query: str) -> list[str]:
    out = subprocess.run(
        ["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader,nounits"],
        capture_output=True,
        text=True,
    )
    return [v.strip() for v in out.stdout.strip().split(",")]


def device_info() -> dict[str, Any]:
    """What the driver and PyTorch say about the card and the software."""
    p = torch.cuda.get_device_properties(0)
    keys = "name,driver_version,power.limit,power.default_limit,power.max_limit,clocks.max.sm,clocks.max.mem"
    smi = dict(zip(keys.split(","), _smi(keys), strict=False))
    return {
        "name": p.name,
        "sms": p.multi_processor_count,
        "l2_bytes": getattr(p, "L2_cache_size", None),
        "memory_bytes": p.total_memory,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "blas": str(torch.backends.cuda.preferred_blas_library()),
        "cudnn": torch.backends.cudnn.version(),
        "nvidia_smi": smi,
        "date": time.strftime("%Y-%m-%d"),
    }


def time_ms(fn: Any) -> float:
    """Median milliseconds of ``fn`` (do_bench: events, L2 cleared, warm-up 25 ms, 100 ms of repeats)."""
    return float(do_bench(fn, warmup=25, rep=100, return_mode="median"))


def gemm(m: int, n: int, k: int, layout: str, dtype: torch.dtype = BF16) -> dict[str, Any]:
    """One ``[m,k]x[k,n]`` product in ``layout`` (``nt``: B stored ``[n,k]``; ``nn``; ``tn``: A stored ``[k,m]``)."""
    a = (
        torch.randn(k, m, device="cuda", dtype=dtype).t()
        if layout[0] == "t"
        else torch.randn(m, k, device="cuda", dtype=dtype)
    )
    b = (
        torch.randn(n, k, device="cuda", dtype=dtype).t()
        if layout[1] == "t"
        else torch.randn(k, n, device="cuda", dtype=dtype)
    )
    ms = time_ms(lambda: torch.mm(a, b))
    return {"m": m, "n": n, "k": k, "layout": layout, "ms": ms, "tflops": 2.0 * m * n * k / ms / 1e9}


def gemm_fp8(m: int, n: int, k: int) -> dict[str, Any]:
    """e4m3 ``[m,k] x [k,n]`` through ``torch._scaled_mm`` (B column-major, per-tensor scales, bf16 out)."""
    a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()
    one = torch.ones((), device="cuda")
    ms = time_ms(lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=BF16))
    return {"m": m, "n": n, "k": k, "layout": "nt", "ms": ms, "tflops": 2.0 * m * n * k / ms / 1e9}


def model_shapes() -> list[tuple[str, int, int, int]]:
    """(label, m, n, k) of the linear layers of common models at 8192 tokens per micro-batch.

    Llama 3 8B (h 4096, ffn 14336, 8 KV heads of 128), Llama 3 70B at TP 8 (h 8192, ffn 28672),
    GPT-3 175B at TP 8 (h 12288, ffn 4h), Mixtral-like expert at 512 tokens (h 4096, ffn 14336)."""
    t = 8192
    rows = [
        ("llama3-8b qkv", t, 4096 + 2 * 1024, 4096),
        ("llama3-8b o", t, 4096, 4096),
        ("llama3-8b up+gate", t, 2 * 14336, 4096),
        ("llama3-8b down", t, 4096, 14336),
        ("llama3-70b tp8 qkv", t, (8192 + 2 * 1024) // 8, 8192),
        ("llama3-70b tp8 o", t, 8192, 8192 // 8),
        ("llama3-70b tp8 up+gate", t, 2 * 28672 // 8, 8192),
        ("llama3-70b tp8 down", t, 8192, 28672 // 8),
        ("gpt3-175b tp8 qkv", t, 3 * 12288 // 8, 12288),
        ("gpt3-175b tp8 proj", t, 12288, 12288 // 8),
        ("gpt3-175b tp8 fc1", t, 4 * 12288 // 8, 12288),
        ("gpt3-175b tp8 fc2", t, 12288, 4 * 12288 // 8),
        ("expert 512 tok up+gate", 512, 2 * 14336, 4096),
        ("expert 512 tok down", 512, 4096, 14336),
    ]
    return rows


def gemm_section() -> dict[str, list[dict[str, Any]]]:
    """The bf16 sweeps and model shapes, each in its training layouts."""
    out: dict[str, list[dict[str, Any]]] = {"square": [], "k_sweep": [], "m_sweep": [], "model": []}
    for s in (256, 512, 1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384):
        out["square"].append(gemm(s, s, s, "nt"))
    for k in (64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384):
        out["k_sweep"].append(gemm(4096, 4096, k, "nt"))
    for m in (1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384):
        out["m_sweep"].append(gemm(m, 8192, 8192, "nt"))
    for label, m, n, k in model_shapes():
        fwd = gemm(m, n, k, "nt")  # Y = X·Wᵀ
        dgrad = gemm(m, k, n, "nn")  # dX = dY·W
        wgrad = gemm(n, k, m, "tn")  # dW = dYᵀ·X
        out["model"].append({"label": label, "fwd": fwd, "dgrad": dgrad, "wgrad": wgrad})
    return out


def fp8_section() -> list[dict[str, Any]]:
    """fp8 squares and the Llama 3 8B / 70B shapes, forward layout."""
    rows = [gemm_fp8(s, s, s) for s in (1024, 2048, 4096, 8192, 16384)]
    for label, m, n, k in model_shapes()[:8]:
        rows.append({"label": label, **gemm_fp8(m, n, k)})
    return rows


def attention(backend: str, b: int, h: int, s: int, d: int, causal: bool) -> dict[str, Any]:
    """SDPA forward and forward+backward through one backend; FLOPs as FlashAttention counts them."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=BF16, requires_grad=True) for _ in range(3))
    do = torch.randn(b, h, s, d, device="cuda", dtype=BF16)
    be = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}[backend]
    fwd_flops = 4.0 * b * h * s * s * d / (2.0 if causal else 1.0)
    with sdpa_kernel(be):
        fwd_ms = time_ms(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
        out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        both_ms = time_ms(
            lambda: torch.autograd.grad(
                F.scaled_dot_product_attention(q, k, v, is_causal=causal), (q, k, v), do
            )
        )
        del out
    bwd_ms = both_ms - fwd_ms
    return {
        "backend": backend, "b": b, "h": h, "s": s, "d": d, "causal": causal,
        "fwd_ms": fwd_ms, "bwd_ms": bwd_ms,
        "fwd_tflops": fwd_flops / fwd_ms / 1e9, "bwd_tflops": 2.5 * fwd_flops / bwd_ms / 1e9,
    }  # fmt: skip


def attention_section() -> list[dict[str, Any]]:
    """16k tokens per launch (b = 16384 / s), 32 heads of 128 (16 of 256, 64 of 64)."""
    rows = []
    for backend in ("flash", "cudnn"):
        for d, h in ((64, 64), (128, 32), (256, 16)):
            for s in (1024, 2048, 4096, 8192, 16384):
                for causal in (True, False):
                    try:
                        rows.append(attention(backend, max(1, 16384 // s), h, s, d, causal))
                    except RuntimeError as exc:  # a backend without this head dim
                        rows.append(
                            {"backend": backend, "s": s, "d": d, "causal": causal, "error": str(exc)[:200]}
                        )
    return rows


def _gqa_row(s: int) -> dict[str, Any]:
    """One causal cuDNN SDPA of Llama 3.1's heads (64 query / 8 KV of 128, batch 1) at ``s`` tokens."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    q = torch.randn(1, 64, s, 128, device="cuda", dtype=BF16, requires_grad=True)
    k, v = (torch.randn(1, 8, s, 128, device="cuda", dtype=BF16, requires_grad=True) for _ in range(2))
    do = torch.randn(1, 64, s, 128, device="cuda", dtype=BF16)
    fwd_flops = 4.0 * 64 * s * s * 128 / 2.0

    def fwd() -> torch.Tensor:
        return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)

    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        fwd_ms = time_ms(fwd)
        both_ms = time_ms(lambda: torch.autograd.grad(fwd(), (q, k, v), do))
    bwd_ms = both_ms - fwd_ms
    return {
        "b": 1, "h": 64, "h_kv": 8, "s": s, "d": 128, "causal": True, "fwd_ms": fwd_ms, "bwd_ms": bwd_ms,
        "fwd_tflops": fwd_flops / fwd_ms / 1e9, "bwd_tflops": 2.5 * fwd_flops / bwd_ms / 1e9,
    }  # fmt: skip


def attention_nvidia_section() -> list[dict[str, Any]]:
    """cuDNN SDPA at the shapes of NVIDIA's cudnn-frontend benchmark (hardware/measured/
    blackwell-cudnn-sdpa-nvidia.yaml: Llama 3.1's heads, causal, batch 1 as on its H200 rows), so its
    harness and ours can be compared on one device: our 32 MHA heads read 8-15% below its H200 rows.
    Through SDPA with ``enable_gqa`` (PyTorch >= 2.5); FLOPs as above, with the query heads."""
    rows = []
    for s in (2048, 4096, 8192, 16384, 32768):
        try:
            rows.append(_gqa_row(s))
        except RuntimeError as exc:  # no cuDNN GQA path in this PyTorch
            rows.append({"s": s, "error": str(exc)[:200]})
    return rows


def memory_section() -> list[dict[str, Any]]:
    """Bytes read + written per second: copy, add, RMSNorm-like, SwiGLU, fp8 cast, at 256 Mi elements."""
    n = 256 * 1024 * 1024
    x, y = torch.randn(n, device="cuda", dtype=BF16), torch.randn(n, device="cuda", dtype=BF16)
    rows_2d = x.view(-1, 8192)
    dst = torch.empty_like(x)
    g = torch.randn(8192, device="cuda", dtype=BF16)
    cases = {
        "copy": (lambda: dst.copy_(x), 4 * n),
        "add": (lambda: torch.add(x, y, out=dst), 6 * n),
        "rms_norm": (lambda: F.rms_norm(rows_2d, (8192,), g), 4 * n),
        "silu_then_mul_two_kernels": (lambda: F.silu(x[: n // 2]) * x[n // 2 :], 3 * n),
        "cast_fp8": (lambda: x.to(torch.float8_e4m3fn), 3 * n),
    }
    rows = []
    for name, (fn, nbytes) in cases.items():
        ms = time_ms(fn)
        rows.append({"op": name, "elements": n, "bytes": nbytes, "ms": ms, "gb_s": nbytes / ms / 1e6})
    return rows


def sustained_section() -> dict[str, Any]:
    """8192³ bf16 back to back for SUSTAIN_S seconds; per-second rate beside the sampled clock and power."""
    s = 8192
    a, b = torch.randn(s, s, device="cuda", dtype=BF16), torch.randn(s, s, device="cuda", dtype=BF16)
    q = "timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active"
    smi = subprocess.Popen(
        ["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader,nounits", "-lms", "250"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    start, per_second = time.time(), []
    while time.time() - start < SUSTAIN_S:
        t0, e0, e1, count = time.time(), torch.cuda.Event(True), torch.cuda.Event(True), 0
        e0.record()
        while time.time() - t0 < 1.0:
            for _ in range(20):
                torch.mm(a, b)
            count += 20
            torch.cuda.synchronize()
        e1.record()
        torch.cuda.synchronize()
        per_second.append(
            {"t": round(time.time() - start, 2), "tflops": 2.0 * s**3 * count / e0.elapsed_time(e1) / 1e9}
        )
    smi.terminate()
    samples = [line.split(", ") for line in smi.communicate()[0].strip().splitlines()]
    return {"size": s, "per_second": per_second, "smi": samples}


def main(path: str) -> None:
    torch.manual_seed(0)
    try:
        info = device_info()
    except Exception as exc:  # noqa: BLE001 - the measurements still count
        info = {"error": str(exc)[:300], "name": torch.cuda.get_device_name(0)}
    sections = (("gemm", gemm_section), ("gemm_fp8", fp8_section), ("attention", attention_section),
                ("attention_nvidia", attention_nvidia_section), ("memory", memory_section),
                ("sustained", sustained_section))  # fmt: skip
    run_sections(path, {"device": info}, sections)


if __name__ == "__main__":
    main(sys.argv[1])
