"""FSDP2's all-gather copy-out on the compute stream, measured on one GPU.

Run on a CUDA machine with PyTorch (never by the tests): ``python bench/kernels/fsdp_copy.py OUT.json``.
The torchtitan-style Llama 3.2 1B of ``titan_step.py`` under ``fully_shard`` (each block, then the root;
``MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32)``, as torchtitan) in a one-rank process
group, one micro-batch of 2 x 4096 tokens per step: the gathers still run and each is copied into the
unsharded parameters (``foreach_all_gather_copy_out``). Writes the step times, the parameter count and
the device time of every kernel over two profiled steps, so the copy-out kernels can be summed and set
against ``2·b_w`` bytes per gathered parameter at the measured copy bandwidth.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import torch
import torch.distributed as dist
import torch.nn.functional as F
from stepping import header, kernel_profile, timed_steps
from titan_step import VOCAB, make
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard


def main(path: str) -> None:
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29517")
    torch.cuda.set_device(0)
    dist.init_process_group("nccl", rank=0, world_size=1)
    torch.manual_seed(0)
    model = make("llama-3.2-1b", False)
    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for blk in model.blocks:
        fully_shard(blk, mp_policy=mp)
    fully_shard(model, mp_policy=mp)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)
    ids = torch.randint(0, VOCAB, (2, 4097), device="cuda")
    x, y = ids[:, :-1].contiguous(), ids[:, 1:].contiguous()

    def step() -> None:
        logits = model(x)
        F.cross_entropy(logits.flatten(0, 1).float(), y.flatten()).backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    times, warm_s = timed_steps(step, 4, 10)
    out: dict[str, Any] = {
        **header(),
        "params": sum(p.numel() for p in model.parameters()),
        "block_params": sum(p.numel() for p in model.blocks.parameters()),
        "step_ms": times,
        "warmup_s": warm_s,
        "kernels": kernel_profile(step, 2),
    }
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
    dist.destroy_process_group()
    print("steps", sorted(times)[len(times) // 2], "params", out["params"], "kernels", len(out["kernels"]))
    for k in out["kernels"][:25]:
        print(f"{k['us'] / 2000:9.3f} ms/step {k['count'] // 2:5d}x {k['name'][:110]}")


if __name__ == "__main__":
    main(sys.argv[1])
