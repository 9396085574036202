"""An MoE layer of one expert-parallel rank, operator by operator: what each of its kernels costs at
the shapes of the MoE training runs in ``validation/``.

Run on a CUDA machine with PyTorch >= 2.8 (never by the tests): ``python moe_layer.py OUT.json``
from ``bench/kernels``. For each shape (hidden ``h``, expert FFN ``f``, ``E`` routed experts, top-``k``,
``e`` experts on this rank, ``T`` tokens per rank) the rank receives ``R = T·k`` token-expert rows
(the balanced expert-parallel case: every rank sends its tokens' choices and receives as many), split
evenly over its ``e`` experts for the operators timed alone:

* ``router``: ``x·W_rᵀ`` (``[T, h] x [h, E]``); ``gating``: fp32 softmax and top-``k`` over it;
* ``permute``: the ``R`` rows gathered into expert order (``index_select``: read and write ``R·h``);
* ``up_fwd`` / ``up_dgrad`` / ``up_wgrad`` and ``down_*``: the grouped GEMMs (``torch._grouped_mm``,
  weights ``[e, n, k]`` read transposed, as torchtitan holds them) in the three layouts of training,
  the backward ones as autograd runs them (``torch.autograd.grad`` of the forward, graph retained);
* ``swiglu_fwd``: ``silu(a)·b`` in eager PyTorch (two kernels);
* ``unpermute``: the rows put back in token order (``index_copy_``) and ``combine``: the ``k`` rows of
  each token weighted and summed (one ``bmm``);
* ``layer``: the whole eager layer (random router, so the split is uneven as in a run), ``L`` layers in
  a row, forward and forward + backward, timed by CUDA events, with its kernel profile;
* ``up_fwd_skew``: ``up_fwd`` with half the experts given three times the rows of the other half.

A ``fp8`` section tries ``torch._scaled_grouped_mm`` (e4m3, row-wise scales) at the up projection's
shape beside ``torch._scaled_mm`` on one expert's rows, and records why where it does not run.

Method as ``measure.py``: random normal data, ``triton.testing.do_bench`` median (CUDA events, L2
cleared before each repetition, 25 ms warm-up, 100 ms of repetitions). Rates count ``2·m·n·k`` FLOPs and
the bytes read plus written.
"""

from __future__ import annotations

import sys
from typing import Any

import torch
import torch.nn.functional as F
from eager_moe import EagerMoE
from stepping import device_info, kernel_profile, run_sections
from triton.testing import do_bench

BF16 = torch.bfloat16
LAYERS = 4

SHAPES = [
    # label, h, f, E, k, e_local, T (tokens per rank = micro-batch x sequence)
    ("qwen3-30b-a3b ep8 mb2", 2048, 768, 128, 8, 16, 8192),
    ("qwen3-235b-a22b ep32 mb1", 4096, 1536, 128, 8, 4, 4096),
    ("qwen3-235b-a22b ep64 mb2", 4096, 1536, 128, 8, 2, 8192),
    ("deepseek-v3 ep32 mb1", 7168, 2048, 256, 8, 8, 4096),
    ("deepseek-v3 ep64 mb1", 7168, 2048, 256, 8, 4, 4096),
    ("gpt-oss-120b ep8 mb4", 2880, 2880, 128, 4, 16, 16384),
    ("gpt-oss-120b ep64 mb1 s8192", 2880, 2880, 128, 4, 2, 8192),
    ("mixtral-8x7b ep8 mb2", 4096, 14336, 8, 2, 1, 8192),
    ("deepseek-v2 ep8 mb1", 5120, 1536, 160, 6, 20, 4096),
]


def _ms(fn: Any) -> float:
    return float(do_bench(fn, warmup=25, rep=100, return_mode="median"))


def _offs(counts: list[int]) -> torch.Tensor:
    out, s = [], 0
    for c in counts:
        s += c
        out.append(s)
    return torch.tensor(out, device="cuda", dtype=torch.int32)


def _split(r: int, weights: list[int]) -> list[int]:
    """``r`` rows over groups in proportion to ``weights``, each a multiple of 16 (the grouped GEMM's
    alignment; ``r`` is one), the last taking the rest."""
    total = sum(weights)
    out = [r * w // total // 16 * 16 for w in weights[:-1]]
    return out + [r - sum(out)]


def _gemm_set(prefix: str, x: torch.Tensor, w: torch.Tensor, offs: torch.Tensor) -> dict[str, Any]:
    """Forward, data-gradient and weight-gradient times of ``x [R, k] x w[e, n, k]ᵀ`` grouped by ``offs``."""
    r, kk = x.shape
    e, n, _ = w.shape
    flops = 2.0 * r * n * kk
    out: dict[str, Any] = {f"{prefix}_mnk": [r, n, kk], f"{prefix}_experts": e}

    def fwd() -> torch.Tensor:
        return torch._grouped_mm(x, w.transpose(-2, -1), offs=offs, out_dtype=BF16)

    ms = _ms(fwd)
    out[f"{prefix}_fwd_ms"], out[f"{prefix}_fwd_tflops"] = ms, flops / ms / 1e9
    dy = torch.randn(r, n, device="cuda", dtype=BF16)
    for name, xg, wg in (("dgrad", True, False), ("wgrad", False, True)):
        try:
            xa = x.detach().requires_grad_(xg)
            wa = w.detach().requires_grad_(wg)
            y = torch._grouped_mm(xa, wa.transpose(-2, -1), offs=offs, out_dtype=BF16)
            target = xa if xg else wa
            ms = _ms(lambda y=y, t=target: torch.autograd.grad(y, t, dy, retain_graph=True))
            out[f"{prefix}_{name}_ms"], out[f"{prefix}_{name}_tflops"] = ms, flops / ms / 1e9
            del y
        except Exception as exc:  # noqa: BLE001 - record why, keep the rest
            out[f"{prefix}_{name}_error"] = f"{type(exc).__name__}: {exc}"[:300]
    return out


class MoE(EagerMoE):
    """An eager MoE layer of one expert-parallel rank: its routed rows gathered straight from the
    tokens, combined by one ``bmm``."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = x.shape[0]
        w, order, counts = self.route(x)
        offs = torch.cumsum(counts, 0).to(torch.int32)
        xs = x.index_select(0, torch.div(order, self.k, rounding_mode="floor"))
        hcat = torch._grouped_mm(xs, self.up.transpose(-2, -1), offs=offs)
        a, b = hcat.chunk(2, dim=-1)
        y = torch._grouped_mm(F.silu(a) * b, self.down.transpose(-2, -1), offs=offs)
        back = torch.empty_like(y).index_copy_(0, order, y)
        out = torch.bmm(w.unsqueeze(1), back.view(t, self.k, -1)).squeeze(1)
        return x + out


def _layer(h: int, f: int, n_route: int, k: int, e: int, t: int) -> dict[str, Any]:
    layers = [MoE(h, f, e, n_route, k) for _ in range(LAYERS)]
    x0 = torch.randn(t, h, device="cuda", dtype=BF16, requires_grad=True)

    def run(backward: bool) -> None:
        x = x0
        for m in layers:
            x = m(x)
        if backward:
            x.backward(torch.ones_like(x))

    out: dict[str, Any] = {"layers": LAYERS}
    out["fwd_ms"] = _ms(lambda: run(False))
    out["fwd_bwd_ms"] = _ms(lambda: run(True))
    out["fwd_kernels"] = kernel_profile(lambda: run(False), 2)[:40]
    out["fwd_bwd_kernels"] = kernel_profile(lambda: run(True), 2)[:60]
    return out


def shape_row(label: str, h: int, f: int, n_route: int, k: int, e: int, t: int) -> dict[str, Any]:
    r = t * k
    row: dict[str, Any] = {"label": label, "h": h, "f": f, "experts": n_route, "top_k": k,
                           "experts_local": e, "tokens": t, "rows": r}  # fmt: skip
    x = torch.randn(t, h, device="cuda", dtype=BF16)
    wr = torch.randn(n_route, h, device="cuda", dtype=BF16)
    row["router_ms"] = _ms(lambda: F.linear(x, wr))
    logits = F.linear(x, wr)
    row["gating_ms"] = _ms(lambda: torch.topk(torch.softmax(logits.float(), dim=-1), k, dim=-1))
    src = torch.randint(0, t, (r,), device="cuda")
    row["permute_ms"] = _ms(lambda: x.index_select(0, src))
    row["permute_bytes"] = 2 * r * h * 2
    offs = _offs(_split(r, [1] * e))
    xs = torch.randn(r, h, device="cuda", dtype=BF16)
    w_up = torch.randn(e, 2 * f, h, device="cuda", dtype=BF16)
    w_down = torch.randn(e, h, f, device="cuda", dtype=BF16)
    row.update(_gemm_set("up", xs, w_up, offs))
    hcat = torch.randn(r, 2 * f, device="cuda", dtype=BF16)
    a, b = hcat.chunk(2, dim=-1)
    row["swiglu_fwd_ms"] = _ms(lambda: F.silu(a) * b)
    row["swiglu_fwd_bytes"] = r * f * 2 * 5  # silu: read a, write tmp; mul: read tmp and b, write
    hs = torch.randn(r, f, device="cuda", dtype=BF16)
    row.update(_gemm_set("down", hs, w_down, offs))
    y = torch.randn(r, h, device="cuda", dtype=BF16)
    order = torch.randperm(r, device="cuda")
    row["unpermute_ms"] = _ms(lambda: torch.empty_like(y).index_copy_(0, order, y))
    wt = torch.rand(t, 1, k, device="cuda", dtype=BF16)
    row["combine_ms"] = _ms(lambda: torch.bmm(wt, y.view(t, k, h)))
    row["combine_bytes"] = (r * h + t * h) * 2
    if e > 1:
        skew = _offs(_split(r, [3] * (e // 2) + [1] * (e - e // 2)))
        ms = _ms(lambda: torch._grouped_mm(xs, w_up.transpose(-2, -1), offs=skew, out_dtype=BF16))
        row["up_fwd_skew_ms"] = ms
    torch.cuda.empty_cache()
    try:
        row["layer"] = _layer(h, f, n_route, k, e, t)
    except Exception as exc:  # noqa: BLE001 - an out-of-memory keeps the operator rows
        row["layer"] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
    torch.cuda.empty_cache()
    return row


def _shape_section(spec: tuple[Any, ...]) -> Any:
    return lambda: shape_row(*spec)


def fp8_section() -> dict[str, Any]:
    """``torch._scaled_grouped_mm`` at DeepSeek-V3's up projection (8 experts, 4096 rows each) and one
    expert's ``torch._scaled_mm``; the bf16 grouped GEMM beside them."""
    e, m, n, kk = 8, 4096, 4096, 7168
    out: dict[str, Any] = {"experts": e, "m": m, "n": n, "k": kk}
    fl = 2.0 * e * m * n * kk
    x = torch.randn(e * m, kk, device="cuda", dtype=BF16)
    w = torch.randn(e, n, kk, device="cuda", dtype=BF16)
    offs = _offs([m] * e)
    ms = _ms(lambda: torch._grouped_mm(x, w.transpose(-2, -1), offs=offs, out_dtype=BF16))
    out["bf16_grouped_ms"], out["bf16_grouped_tflops"] = ms, fl / ms / 1e9
    xq, wq = x.to(torch.float8_e4m3fn), w.to(torch.float8_e4m3fn)
    try:
        sa = torch.ones(e * m, device="cuda", dtype=torch.float32)
        sb = torch.ones(e, n, device="cuda", dtype=torch.float32)
        ms = _ms(
            lambda: torch._scaled_grouped_mm(
                xq, wq.transpose(-2, -1), sa, sb, offs=offs, out_dtype=BF16, use_fast_accum=True
            )
        )
        out["fp8_grouped_ms"], out["fp8_grouped_tflops"] = ms, fl / ms / 1e9
    except Exception as exc:  # noqa: BLE001 - record why
        out["fp8_grouped_error"] = f"{type(exc).__name__}: {exc}"[:300]
    try:
        one = 2.0 * m * n * kk
        s1 = torch.ones(m, 1, device="cuda", dtype=torch.float32)
        s2 = torch.ones(1, n, device="cuda", dtype=torch.float32)
        a0, b0 = xq[:m], wq[0]
        ms = _ms(lambda: torch._scaled_mm(a0, b0.t(), s1, s2, out_dtype=BF16, use_fast_accum=True))
        out["fp8_one_expert_ms"], out["fp8_one_expert_tflops"] = ms, one / ms / 1e9
    except Exception as exc:  # noqa: BLE001 - record why
        out["fp8_one_expert_error"] = f"{type(exc).__name__}: {exc}"[:300]
    return out


def main(path: str) -> None:
    torch.manual_seed(0)
    result: dict[str, Any] = {
        "device": device_info(),
        "method": __doc__,
    }
    sections = [("fp8", fp8_section)] + [(f"shape:{s[0]}", _shape_section(s)) for s in SHAPES]
    run_sections(path, result, sections)


if __name__ == "__main__":
    main(sys.argv[1])
