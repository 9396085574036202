"""Time whole single-GPU training steps of Llama-shaped models in eager PyTorch, with a kernel profile.

Run on a CUDA machine with PyTorch and transformers (never by the tests):
``python bench/kernels/step.py OUT.json``. For each (model, micro-batch, sequence) it builds the model
from its published config with random weights (nothing is downloaded), and times optimizer steps of
the plain PyTorch recipe: fp32 master weights, ``torch.autocast`` bf16 matmuls, SDPA attention (the
backend PyTorch picks, recorded), ``AdamW(fused=True)``, loss = Hugging Face's cross entropy. It
writes the median step time of ``STEPS`` steps after ``WARMUP``, the peak allocated memory, and for
the first configuration the device time of every kernel over ``PROFILED`` profiled steps
(``torch.profiler``), so the step can be split into GEMMs, attention, elementwise passes and the
optimizer offline.
"""

from __future__ import annotations

import sys
from typing import Any

import torch
import transformers
from stepping import header, record_runs, step_record, timed_steps
from transformers import LlamaConfig, LlamaForCausalLM

WARMUP, STEPS, PROFILED = 4, 10, 2
CONFIGS = {
    "llama-3.2-1b": dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=16, num_attention_heads=32,
                         num_key_value_heads=8, head_dim=64, tie_word_embeddings=True),
    "llama-3.2-3b": dict(hidden_size=3072, intermediate_size=8192, num_hidden_layers=28, num_attention_heads=24,
                         num_key_value_heads=8, head_dim=128, tie_word_embeddings=True),
}  # fmt: skip
"""Shapes from the Hugging Face config.json of meta-llama/Llama-3.2-1B and -3B."""
RUNS = [
    ("llama-3.2-1b", 2, 4096),
    ("llama-3.2-1b", 4, 4096),
    ("llama-3.2-1b", 1, 8192),
    ("llama-3.2-3b", 1, 4096),
]


def build(name: str) -> torch.nn.Module:
    """The model on the GPU, random weights in fp32, SDPA attention (the default where the keyword is gone)."""
    kw = dict(
        vocab_size=128256,
        max_position_embeddings=131072,
        rope_theta=500000.0,
        rms_norm_eps=1e-5,
        **CONFIGS[name],
    )
    try:
        cfg = LlamaConfig(attn_implementation="sdpa", **kw)
    except TypeError:
        cfg = LlamaConfig(**kw)
    with torch.device("cuda"):
        model = LlamaForCausalLM(cfg)
    return model


def step_fn(model: torch.nn.Module, opt: torch.optim.Optimizer, ids: torch.Tensor) -> Any:
    def step() -> None:
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    return step


def run(name: str, mb: int, seq: int, profiled: bool) -> dict[str, Any]:
    torch.manual_seed(0)
    model = build(name)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)
    ids = torch.randint(0, 128256, (mb, seq), device="cuda")
    step = step_fn(model, opt, ids)
    torch.cuda.reset_peak_memory_stats()
    times, _ = timed_steps(step, WARMUP, STEPS, reset_peak=False)
    out = step_record(
        model, times, step, PROFILED if profiled else 0, model=name, micro_batch=mb, seq_len=seq
    )
    del model, opt, step
    torch.cuda.empty_cache()
    return out


def main(path: str) -> None:
    result = header()
    result["sdpa_backends"] = {
        k: getattr(torch.backends.cuda, f"{k}_sdp_enabled")()
        for k in ("flash", "cudnn", "mem_efficient", "math")
    }
    result["transformers"] = transformers.__version__
    jobs = (
        ({"model": name, "micro_batch": mb, "seq_len": seq}, lambda a=(name, mb, seq, i in (0, 3)): run(*a))
        for i, (name, mb, seq) in enumerate(RUNS)
    )
    record_runs(path, result, jobs)


if __name__ == "__main__":
    main(sys.argv[1])
