"""SM clock, board draw and step time of training steps run back to back, under the card's power limit.

Run on a CUDA machine with PyTorch (never by the tests): ``python bench/kernels/step_clock.py OUT.json``.
The torchtitan-style Llama of ``titan_step.py`` (eager and per-block compiled) plus an 8-layer model of
Llama 3 8B's layer shape (more of its time in GEMMs), each trained for ``SECONDS`` seconds of
back-to-back steps while ``nvidia-smi`` samples the SM clock, the draw and the throttle reasons every
250 ms (as ``duty.py``). Per configuration: the median step time, clock and draw over the last two
thirds of the run (after the clock settles). What it checks: the throttle model's draw and clock of
whole steps (``llmcost.economics.power.sustained_rate``), whose figures were fitted on GEMM/copy
alternations, not on steps. The card is measured as found: no clock, power or mode is set.
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

import torch
from duty import _smi_start, _smi_stop
from stepping import header, record_runs
from titan_step import SHAPES, train_step

SECONDS = 18.0
SHAPES["llama-3-8b-8l"] = dict(dim=4096, ffn=14336, layers=8, heads=32, kv=8, hd=128)
RUNS = [
    ("llama-3.2-1b", 2, 4096, False),
    ("llama-3.2-3b", 1, 4096, False),
    ("llama-3.2-1b", 2, 4096, True),
    ("llama-3.2-3b", 1, 4096, True),
    ("llama-3-8b-8l", 2, 4096, True),
]
"""(model, micro-batch, sequence, compiled)."""


def measure(name: str, mb: int, seq: int, compiled: bool) -> dict[str, Any]:
    _, step = train_step(name, mb, seq, compiled)
    for _ in range(4):
        step()
    torch.cuda.synchronize()
    smi = _smi_start()
    ms, start = [], time.time()
    while time.time() - start < SECONDS:
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        step()
        b.record()
        b.synchronize()
        if time.time() - start > SECONDS / 3:
            ms.append(a.elapsed_time(b))
    late = _smi_stop(smi)
    late = late[len(late) // 3 :]
    return {
        "model": name, "micro_batch": mb, "seq_len": seq, "compiled": compiled, "steps": len(ms),
        "step_ms": statistics.median(ms), "step_ms_min": min(ms),
        "sm_clock_mhz": statistics.median(float(s[0]) for s in late),
        "power_w": statistics.median(float(s[1]) for s in late),
        "throttle": sorted({s[2] for s in late}),
    }  # fmt: skip


def main(path: str) -> None:
    jobs = (
        (
            {"model": name, "micro_batch": mb, "compiled": compiled},
            lambda a=(name, mb, seq, compiled): measure(*a),
        )
        for name, mb, seq, compiled in RUNS
    )
    record_runs(path, header(), jobs)


if __name__ == "__main__":
    main(sys.argv[1])
