"""Measure what the host costs a training step: PyTorch's CPU time per dispatched operator, a
device-to-host synchronization, and an eager MoE layer with and without a per-layer synchronization.

Run on a machine with a CUDA GPU and PyTorch (never by the tests):
``python bench/kernels/hostbound.py OUT.json``. It writes one JSON object:

* ``dispatch``: per operator kind, the host time of one eager call on tiny tensors (so the device
  never holds the host back): the median over repetitions of the wall time of ``N`` calls issued
  back to back, divided by ``N``, without synchronizing between them;
* ``sync``: the wall time of ``x.cpu()`` of a small device tensor on an idle device (a
  device-to-host copy and the wait), and of ``torch.cuda.synchronize()``;
* ``moe``: an eager MoE layer (router, top-k, sort into expert order, ``torch._grouped_mm`` up and
  down with SwiGLU between, scatter back, weighted sum) at the shapes one expert-parallel rank of a
  model holds, forward and forward + backward, ``L`` layers in a row:

  - ``gpu_ms``: the device time of the ``L`` layers (CUDA events around them, the host far ahead);
  - ``wall_ms``: the same ``L`` layers with the tokens-per-expert counts copied to the host in every
    layer's forward and used as split sizes (what Megatron-Core's dropless all-to-all dispatcher
    does, ``tokens_per_expert`` to the host before the permutation), timed by the host clock;
  - ``wall_nosync_ms``: the same without the copy (the counts stay on the device);
  - ``cpu_ms``: the host time to issue the ``L`` layers while the device spins (``torch.cuda._sleep``,
    about 0.2 s). Only the forward's is a host time: ``backward()`` returned only once the device had
    run the spin (the fwd + bwd figure equals the spin), so that one bounds nothing.

Method: random normal data; the median of ``REPS`` timed repetitions after 3 warm-ups.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from typing import Any

import torch
import torch.nn.functional as F
from eager_moe import EagerMoE
from stepping import device_info, run_sections

BF16 = torch.bfloat16
REPS = int(os.environ.get("REPS", "7"))


def _wall(fn: Any, reps: int = REPS) -> float:
    """Median host wall time (ms) of ``fn`` with the device drained before and after."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        out.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(out)


def _issue(fn: Any, n: int) -> float:
    """Host time (µs) per call of ``n`` calls issued back to back (no wait between them)."""
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(REPS):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        out.append((time.perf_counter() - t0) * 1e6 / n)
        torch.cuda.synchronize()
    return statistics.median(out)


def dispatch_section() -> dict[str, float]:
    """Host µs per eager call of common operators on tiny device tensors."""
    x = torch.randn(64, 64, device="cuda", dtype=BF16)
    w = torch.randn(64, 64, device="cuda", dtype=BF16)
    idx = torch.randint(0, 64, (64,), device="cuda")
    g = torch.randn(4, 16, 64, device="cuda", dtype=BF16)
    wg = torch.randn(4, 64, 64, device="cuda", dtype=BF16).transpose(-2, -1)
    offs = torch.tensor([16, 32, 48, 64], device="cuda", dtype=torch.int32)
    xg = torch.randn(64, 64, device="cuda", dtype=BF16)
    xr = torch.randn(64, 64, device="cuda", dtype=BF16, requires_grad=True)
    ops = {
        "empty": lambda: torch.empty(64, 64, device="cuda", dtype=BF16),
        "add": lambda: torch.add(x, x),
        "silu": lambda: F.silu(x),
        "linear": lambda: F.linear(x, w),
        "softmax": lambda: torch.softmax(x, dim=-1),
        "topk": lambda: torch.topk(x, 4, dim=-1),
        "argsort": lambda: torch.argsort(idx),
        "index_select": lambda: x.index_select(0, idx),
        "index_add": lambda: torch.zeros_like(x).index_add_(0, idx, x),
        "grouped_mm": lambda: torch._grouped_mm(xg, wg, offs=offs),
        "bmm": lambda: torch.bmm(g, wg),
        "linear_autograd_fwd": lambda: F.linear(xr, w),
    }
    out = {k: _issue(f, 2000) for k, f in ops.items()}
    y = F.linear(xr, w).sum()
    out["linear_fwd_bwd_autograd"] = _issue(lambda: torch.autograd.grad(F.linear(xr, w).sum(), xr), 500)
    del y
    return out


def sync_section() -> dict[str, float]:
    """Host µs of a device-to-host copy of a small tensor and of a device synchronization, idle device."""
    c = torch.randint(0, 100, (128,), device="cuda")
    out = {}
    for name, fn in (("cpu_copy_128", lambda: c.cpu()), ("tolist_128", lambda: c.tolist()),
                     ("synchronize", torch.cuda.synchronize)):  # fmt: skip
        for _ in range(50):
            fn()
        ts = []
        for _ in range(500):
            t0 = time.perf_counter()
            fn()
            ts.append((time.perf_counter() - t0) * 1e6)
        out[name] = statistics.median(ts)
    return out


class MoE(EagerMoE):
    """An eager MoE layer of one expert-parallel rank, its routed rows repeated then gathered."""

    def forward(self, x: torch.Tensor, sync: bool) -> torch.Tensor:
        t = x.shape[0]
        w, order, counts = self.route(x)
        if sync:
            splits = counts.cpu().tolist()  # Megatron's dropless dispatcher: counts to the host
            offs = torch.tensor(list(_cumsum(splits)), device="cuda", dtype=torch.int32)
        else:
            offs = torch.cumsum(counts, 0).to(torch.int32)
        xs = x.repeat_interleave(self.k, dim=0).index_select(0, order)
        hcat = torch._grouped_mm(xs, self.up.transpose(-2, -1), offs=offs)
        a, b = hcat.chunk(2, dim=-1)
        y = torch._grouped_mm(F.silu(a) * b, self.down.transpose(-2, -1), offs=offs)
        back = torch.empty_like(y).index_copy_(0, order, y)
        out = (back.view(t, self.k, -1) * w.unsqueeze(-1)).sum(1)
        return x + out


def _cumsum(xs: list[int]) -> list[int]:
    s, out = 0, []
    for v in xs:
        s += v
        out.append(s)
    return out


def moe_case(
    label: str, h: int, f: int, e: int, n_route: int, k: int, tokens: int, layers: int
) -> dict[str, Any]:
    layers_ = [MoE(h, f, e, n_route, k) for _ in range(layers)]
    x0 = torch.randn(tokens, h, device="cuda", dtype=BF16, requires_grad=True)

    def run(sync: bool, backward: bool) -> None:
        x = x0
        for m in layers_:
            x = m(x, sync)
        if backward:
            x.float().pow(2).mean().backward()

    row: dict[str, Any] = {"label": label, "h": h, "f": f, "experts_local": e, "experts": n_route,
                           "top_k": k, "tokens": tokens, "layers": layers}  # fmt: skip
    for backward in (False, True):
        key = "fwd_bwd" if backward else "fwd"
        row[f"{key}_wall_ms"] = _wall(lambda b=backward: run(True, b))
        row[f"{key}_wall_nosync_ms"] = _wall(lambda b=backward: run(False, b))
        e0, e1 = torch.cuda.Event(True), torch.cuda.Event(True)
        gpu = []
        for _ in range(REPS):
            torch.cuda.synchronize()
            torch.cuda._sleep(400_000_000)  # ~0.2 s of device spin: the host gets far ahead
            e0.record()
            run(False, backward)
            e1.record()
            torch.cuda.synchronize()
            gpu.append(e0.elapsed_time(e1))
        row[f"{key}_gpu_ms"] = statistics.median(gpu)
        cpu = []
        for _ in range(REPS):
            torch.cuda.synchronize()
            torch.cuda._sleep(400_000_000)
            t0 = time.perf_counter()
            run(False, backward)
            cpu.append((time.perf_counter() - t0) * 1e3)
            torch.cuda.synchronize()
        row[f"{key}_cpu_ms"] = statistics.median(cpu)
        x0.grad = None
        for m in layers_:
            m.zero_grad(set_to_none=True)
    return row


def moe_section() -> list[dict[str, Any]]:
    """One EP rank of Qwen3-30B-A3B (EP 8: 16 of 128 experts, top-8, h 2048, f 768) and of
    gpt-oss-120b (EP 8: 16 of 128, top-4, h 2880, f 2880), the tokens one rank's experts receive
    at 2 x 4096 and 4 x 4096 tokens per rank (balanced), 12 layers."""
    return [
        moe_case("qwen3-30b-a3b ep8 mb2", 2048, 768, 16, 128, 8, 8192, 12),
        moe_case("gpt-oss-120b ep8 mb4", 2880, 2880, 16, 128, 4, 16384, 12),
        moe_case("gpt-oss-120b ep8 mb1", 2880, 2880, 16, 128, 4, 4096, 12),
    ]


def main(path: str) -> None:
    torch.manual_seed(0)
    result: dict[str, Any] = {"device": device_info(cpu=_cpu_name())}
    run_sections(path, result, (("dispatch", dispatch_section), ("sync", sync_section), ("moe", moe_section)))


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            return next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        return "unknown"


if __name__ == "__main__":
    main(sys.argv[1])
