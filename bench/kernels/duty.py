"""GEMM rate against the share of time the GPU spends in GEMMs, under the card's power limit.

Run on a CUDA machine with PyTorch (never by the tests): ``python bench/kernels/duty.py OUT.json [sleep]``.
For each target duty ``d`` it alternates one 8192³ bf16 GEMM (``nt``) with a device-to-device copy
sized so that the copy takes ``(1 - d) / d`` of the GEMM's time (with ``sleep``: a spin kernel,
``torch.cuda._sleep``, on one SM instead of the copy: a gap that draws about idle power, as exposed
communication or a pipeline bubble does), for ``SECONDS`` seconds, timing each
GEMM and each copy with CUDA events; ``nvidia-smi`` samples the SM clock, the draw and the throttle
reasons every 250 ms. Per duty it writes the median GEMM rate and copy bandwidth over the last
two thirds of the run (after the clock settles), the achieved GEMM share of the time, and the
median clock and draw. The card is measured as found: no clock, power or mode is set.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from typing import Any

import torch

SECONDS = 10.0
DUTIES = (1.0, 0.8, 0.6, 0.5, 0.4, 0.3, 0.2)
N = 8192


def _smi_start() -> subprocess.Popen:
    q = "clocks.sm,power.draw,clocks_throttle_reasons.active"
    return subprocess.Popen(
        ["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader,nounits", "-lms", "250"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip


def _smi_stop(p: subprocess.Popen) -> list[list[str]]:
    p.terminate()
    return [ln.split(", ") for ln in p.communicate()[0].strip().splitlines()]


def run(duty: float, gemm: Any, copy_of: Any, t_gemm_ms: float, bw: float, dtype: str) -> dict[str, Any]:
    """One duty level: GEMM then copy, back to back, timed by events."""
    want = 0 if duty >= 1.0 else int(t_gemm_ms * 1e-3 * (1 - duty) / duty * bw / 2)
    copy, copy_bytes = copy_of(want)
    smi = _smi_start()
    g_ms, c_ms, start = [], [], time.time()
    while time.time() - start < SECONDS:
        evs = [torch.cuda.Event(enable_timing=True) for _ in range(60)]
        for i in range(20):
            evs[3 * i].record()
            gemm()
            evs[3 * i + 1].record()
            if copy is not None:
                copy()
            evs[3 * i + 2].record()
        torch.cuda.synchronize()
        if time.time() - start > SECONDS / 3:
            for i in range(20):
                g_ms.append(evs[3 * i].elapsed_time(evs[3 * i + 1]))
                c_ms.append(evs[3 * i + 1].elapsed_time(evs[3 * i + 2]))
    samples = _smi_stop(smi)
    late = samples[len(samples) // 3 :]
    g, c = statistics.median(g_ms), statistics.median(c_ms)
    return {
        "dtype": dtype, "target_duty": duty, "duty": g / (g + c), "copy_bytes": copy_bytes,
        "gemm_ms": g, "gemm_tflops": 2.0 * N**3 / g / 1e9,
        "copy_gb_s": (2 * copy_bytes / c / 1e6) if copy_bytes else None,
        "sm_clock_mhz": statistics.median(float(s[0]) for s in late),
        "power_w": statistics.median(float(s[1]) for s in late),
        "throttle": sorted({s[2] for s in late}),
    }  # fmt: skip


def sleeper() -> Any:
    """``copy_of``'s counterpart for the spin gap: a ``torch.cuda._sleep`` of the cycles that last the asked
    time at the clock of a calibration run (the events time what it really took)."""
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    torch.cuda._sleep(10_000_000)
    e1.record()
    torch.cuda.synchronize()
    cycles_per_ms = 10_000_000 / e0.elapsed_time(e1)

    def of(nbytes_equiv: int) -> tuple[Any, int]:
        if nbytes_equiv == 0:
            return None, 0
        cycles = int(nbytes_equiv / CALIBRATED_BW * 2 * 1e3 * cycles_per_ms)
        return (lambda: torch.cuda._sleep(cycles)), 0

    return of


CALIBRATED_BW = 3.0e12
"""Bytes per second the copy gap was sized with in ``run`` (read + written); the spin gap converts back."""


def main(path: str, mode: str = "copy") -> None:
    torch.manual_seed(0)
    a = torch.randn(N, N, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(N, N, device="cuda", dtype=torch.bfloat16).t()
    src = torch.randn(5 * 1024**3, device="cuda", dtype=torch.bfloat16)  # 10 GiB
    dst = torch.empty_like(src)

    def copy_of(nbytes: int) -> tuple[Any, int]:
        """A copy of ``nbytes`` (read, and as many written; capped at the buffer) and its size."""
        if nbytes == 0:
            return None, 0
        n = min(nbytes // 2, src.numel())
        s, d = src[:n], dst[:n]
        return (lambda: d.copy_(s)), 2 * n

    a8 = a.to(torch.float8_e4m3fn)
    b8 = torch.randn(N, N, device="cuda").to(torch.float8_e4m3fn).t()
    one = torch.ones((), device="cuda")
    gemms = {
        "bf16": lambda: torch.mm(a, b),
        "fp8": lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16),
    }
    result: dict[str, Any] = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "runs": []}
    # calibrate: the GEMM's time and the copy's bandwidth, briefly (the power limit moves both later)
    for _ in range(10):
        gemms["bf16"]()
    torch.cuda.synchronize()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    dst.copy_(src)
    e1.record()
    torch.cuda.synchronize()
    bw = 2 * src.numel() * 2 / (e0.elapsed_time(e1) * 1e-3)
    plan = [("bf16", d) for d in DUTIES] + [("fp8", d) for d in (1.0, 0.5, 0.3)]
    if mode == "sleep":
        bw, copy_of = CALIBRATED_BW, sleeper()
        plan = [("bf16", d) for d in (0.8, 0.6, 0.4, 0.3)]
    for dtype, duty in plan:
        fn = gemms[dtype]
        e0.record()
        for _ in range(5):
            fn()
        e1.record()
        torch.cuda.synchronize()
        t_gemm = e0.elapsed_time(e1) / 5
        try:
            result["runs"].append(run(duty, fn, copy_of, t_gemm, bw, dtype))
        except Exception as exc:  # noqa: BLE001 - keep the other levels
            result["runs"].append({"dtype": dtype, "target_duty": duty, "error": str(exc)[:300]})
        result["runs"][-1]["gap"] = mode
        r = result["runs"][-1]
        print(
            dtype, duty, {k: (round(v, 3) if isinstance(v, float) else v) for k, v in r.items()}, flush=True
        )
        with open(path, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "copy")
