"""Timing and kernel profiles of whole training steps on a CUDA device (shared by ``step.py`` and
``titan_step.py``; needs PyTorch, never run by the tests)."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Iterable
from typing import Any

import torch


def timed_steps(step: Any, warmup: int, steps: int, reset_peak: bool = True) -> tuple[list[float], float]:
    """(milliseconds of each of ``steps`` steps by CUDA events, seconds of the ``warmup`` steps before
    them); ``reset_peak``: the peak-memory statistics restart after the warm-up."""
    t0 = time.time()
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    warm_s = time.time() - t0
    if reset_peak:
        torch.cuda.reset_peak_memory_stats()
    times = []
    for _ in range(steps):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        step()
        e1.record()
        torch.cuda.synchronize()
        times.append(e0.elapsed_time(e1))
    return times, warm_s


def kernel_profile(step: Any, steps: int) -> list[dict[str, Any]]:
    """Device time (µs, summed over ``steps`` profiled steps) and launches of every kernel name."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
    rows = []
    for a in prof.key_averages():
        us = getattr(a, "self_device_time_total", None) or getattr(a, "self_cuda_time_total", 0)
        if us:
            rows.append({"name": a.key[:300], "count": a.count, "us": float(us), "type": str(a.device_type)})
    return sorted(rows, key=lambda r: -r["us"])


def step_record(net: Any, times: list[float], step: Any, profiled: int, **head: Any) -> dict[str, Any]:
    """One configuration's record: ``head`` (model name, micro-batch, ...), the parameters, the median
    and every step time, the peak allocated memory, and with ``profiled`` > 0 the kernel profile of
    that many more steps."""
    out = {
        **head,
        "params": sum(p.numel() for p in net.parameters()),
        "step_ms_median": statistics.median(times),
        "step_ms": times,
        "peak_allocated_bytes": torch.cuda.max_memory_allocated(),
    }
    if profiled:
        out["kernels"] = kernel_profile(step, profiled)
    return out


def header() -> dict[str, Any]:
    """The record a measurement file starts with: the device, the PyTorch version, no runs yet."""
    return {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "runs": []}


def device_info(**extra: Any) -> dict[str, Any]:
    """The measuring device as a record: its name, SMs, the PyTorch version, today's date, and
    ``extra`` (the host's CPU, say)."""
    props = torch.cuda.get_device_properties(0)
    return {
        "name": props.name,
        "sms": props.multi_processor_count,
        "torch": torch.__version__,
        "date": time.strftime("%Y-%m-%d"),
        **extra,
    }


def record_runs(
    path: str, result: dict[str, Any], jobs: Iterable[tuple[dict[str, Any], Callable[[], Any]]]
) -> None:
    """Run each ``(head, fn)`` of ``jobs`` in turn and append its record to ``result["runs"]`` (on an
    exception, an out-of-memory say, ``head`` with the error, and the other runs go on); the device's
    cache is emptied after each and ``result`` rewritten to ``path``, so a crash keeps the runs before."""
    for head, fn in jobs:
        t0 = time.time()
        try:
            rec = fn()
        except Exception as exc:  # noqa: BLE001 - keep the other runs
            rec = {**head, "error": f"{type(exc).__name__}: {exc}"[:400]}
        result["runs"].append(rec)
        torch.cuda.empty_cache()
        print(" ".join(f"{k}={v}" for k, v in head.items()) + f": {time.time() - t0:.1f} s", flush=True)
        with open(path, "w") as f:
            json.dump(result, f, indent=1)


def run_sections(
    path: str, result: dict[str, Any], sections: Iterable[tuple[str, Callable[[], Any]]]
) -> None:
    """Run each ``(name, fn)`` section into ``result[name]``, an exception recorded in its place so the
    other sections still count; the JSON rewritten to ``path`` after each (a run cut short keeps what
    it measured)."""
    for name, fn in sections:
        t0 = time.time()
        try:
            result[name] = fn()
        except Exception as exc:  # noqa: BLE001 - keep the other sections
            result[name] = {"error": f"{type(exc).__name__}: {exc}"[:500]}
        print(f"{name}: {time.time() - t0:.1f} s", flush=True)
        with open(path, "w") as f:
            json.dump(result, f, indent=1)
