"""Time single-GPU training steps of a torchtitan-style Llama, eager and per-block compiled, with kernel profiles.

Run on a CUDA machine with PyTorch (never by the tests): ``python bench/kernels/titan_step.py OUT.json``.
The model follows torchtitan's Llama as the ``torchtitan`` stack profile describes it (our own code):
``nn.RMSNorm``, rotary by complex multiply in fp32 (``view_as_complex``), grouped KV heads repeated
before ``F.scaled_dot_product_attention(is_causal=True)`` (the backend PyTorch picks), SwiGLU as
``w2(silu(w1 x) * w3 x)``, loss ``F.cross_entropy`` on fp32 logits, ``AdamW(fused=True)``; weights
fp32 with ``torch.autocast`` bf16 and a bf16 residual stream (autocast casts each weight at each
use; torchtitan's FSDP2 casts once per gather, which ``fsdp_copy.py`` measures).
"compiled" wraps each block in ``torch.compile`` as torchtitan's ``apply_compile`` does.
Per configuration: median of ``STEPS`` steps after ``WARMUP`` (compilation inside the warm-up), the
peak allocated memory, and for the profiled ones the device time per kernel over ``PROFILED`` steps.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import torch
import torch.nn.functional as F
from stepping import header, record_runs, step_record, timed_steps
from torch import nn

WARMUP, STEPS, PROFILED = 4, 10, 2
VOCAB = 128256
SHAPES = {
    "llama-3.2-1b": dict(dim=2048, ffn=8192, layers=16, heads=32, kv=8, hd=64),
    "llama-3.2-3b": dict(dim=3072, ffn=8192, layers=28, heads=24, kv=8, hd=128),
}
"""From the Hugging Face config.json of meta-llama/Llama-3.2-1B and -3B (embeddings tied)."""
RUNS = [
    ("llama-3.2-1b", 2, 4096, False, True),
    ("llama-3.2-1b", 1, 8192, False, False),
    ("llama-3.2-3b", 1, 4096, False, True),
    ("llama-3.2-1b", 2, 4096, True, True),
    ("llama-3.2-3b", 1, 4096, True, True),
]
"""(model, micro-batch, sequence, compiled, profiled)."""


def rope(x: torch.Tensor, freqs: torch.Tensor) -> torch.Tensor:
    """Rotary embedding of ``x`` [b, t, h, d] by complex multiply in fp32."""
    xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(xc * freqs[None, :, None, :]).flatten(3).type_as(x)


class Block(nn.Module):
    def __init__(self, dim: int, ffn: int, heads: int, kv: int, hd: int) -> None:
        super().__init__()
        self.heads, self.kv, self.hd = heads, kv, hd
        self.attn_norm, self.ffn_norm = nn.RMSNorm(dim, eps=1e-5), nn.RMSNorm(dim, eps=1e-5)
        self.wq = nn.Linear(dim, heads * hd, bias=False)
        self.wk = nn.Linear(dim, kv * hd, bias=False)
        self.wv = nn.Linear(dim, kv * hd, bias=False)
        self.wo = nn.Linear(heads * hd, dim, bias=False)
        self.w1 = nn.Linear(dim, ffn, bias=False)
        self.w3 = nn.Linear(dim, ffn, bias=False)
        self.w2 = nn.Linear(ffn, dim, bias=False)

    def forward(self, x: torch.Tensor, freqs: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        h = self.attn_norm(x)
        q = rope(self.wq(h).view(b, t, self.heads, self.hd), freqs)
        k = rope(self.wk(h).view(b, t, self.kv, self.hd), freqs)
        v = self.wv(h).view(b, t, self.kv, self.hd)
        rep = self.heads // self.kv
        k = k[:, :, :, None, :].expand(b, t, self.kv, rep, self.hd).reshape(b, t, self.heads, self.hd)
        v = v[:, :, :, None, :].expand(b, t, self.kv, rep, self.hd).reshape(b, t, self.heads, self.hd)
        o = F.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True
        )
        x = x + self.wo(o.transpose(1, 2).reshape(b, t, -1))
        h = self.ffn_norm(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class Llama(nn.Module):
    def __init__(self, dim: int, ffn: int, layers: int, heads: int, kv: int, hd: int) -> None:
        super().__init__()
        self.emb = nn.Embedding(VOCAB, dim)
        self.blocks = nn.ModuleList(Block(dim, ffn, heads, kv, hd) for _ in range(layers))
        self.norm = nn.RMSNorm(dim, eps=1e-5)
        self.out = nn.Linear(dim, VOCAB, bias=False)
        self.out.weight = self.emb.weight  # tied
        self.hd = hd

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        t = ids.shape[1]
        inv = 1.0 / (500000.0 ** (torch.arange(0, self.hd, 2, device=ids.device).float() / self.hd))
        freqs = torch.polar(
            torch.ones(t, self.hd // 2, device=ids.device),
            torch.outer(torch.arange(t, device=ids.device).float(), inv),
        )
        x = self.emb(ids).to(torch.bfloat16)  # bf16 residual stream, as under FSDP's bf16 parameters
        for blk in self.blocks:
            x = blk(x, freqs)
        return self.out(self.norm(x))


def make(name: str, compiled: bool) -> nn.Module:
    with torch.device("cuda"):
        model = Llama(**SHAPES[name])
    for p in model.parameters():
        if p.dim() > 1:
            nn.init.normal_(p, std=0.02)
    if compiled:
        for i, blk in enumerate(model.blocks):
            model.blocks[i] = torch.compile(blk, fullgraph=True)
    return model


def train_step(name: str, mb: int, seq: int, compiled: bool) -> tuple[nn.Module, Any]:
    """The model and one training step of it (forward under autocast, fp32 loss, backward, fused
    AdamW) on random tokens; also what ``step_clock.py`` runs."""
    torch.manual_seed(0)
    model = make(name, compiled)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)
    ids = torch.randint(0, VOCAB, (mb, seq + 1), device="cuda")
    x, y = ids[:, :-1].contiguous(), ids[:, 1:].contiguous()

    def step() -> None:
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(x)
        F.cross_entropy(logits.flatten(0, 1).float(), y.flatten()).backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    return model, step


def measure(name: str, mb: int, seq: int, compiled: bool, profiled: bool) -> dict[str, Any]:
    model, step = train_step(name, mb, seq, compiled)
    times, warm_s = timed_steps(step, WARMUP, STEPS)
    head = {"micro_batch": mb, "seq_len": seq, "compiled": compiled, "warmup_s": warm_s}
    return step_record(model, times, step, PROFILED if profiled else 0, model=name, **head)


def main(path: str, budget_s: float = 280.0) -> None:
    start = time.time()
    jobs = (
        (
            {"model": name, "micro_batch": mb, "seq_len": seq, "compiled": compiled},
            lambda a=(name, mb, seq, compiled, profiled): measure(*a),
        )
        for name, mb, seq, compiled, profiled in RUNS
        if time.time() - start <= budget_s
    )
    record_runs(path, header(), jobs)


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 280.0)
