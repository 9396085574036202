"""The eager MoE layer of one expert-parallel rank that ``hostbound.py`` and ``moe_layer.py`` time (needs
PyTorch on a CUDA device; never run by the tests)."""

from __future__ import annotations

import torch

BF16 = torch.bfloat16


class EagerMoE(torch.nn.Module):
    """``e`` local experts of ``h -> f`` (SwiGLU) behind a top-``k`` softmax router over ``n_route``
    experts; subclasses say how the routed rows are gathered, multiplied and combined."""

    def __init__(self, h: int, f: int, e: int, n_route: int, k: int) -> None:
        super().__init__()
        self.k, self.e = k, e
        self.router = torch.nn.Linear(h, n_route, bias=False, device="cuda", dtype=BF16)
        # stored [e, n, k] and read transposed, as torchtitan holds expert weights for _grouped_mm
        self.up = torch.nn.Parameter(torch.randn(e, 2 * f, h, device="cuda", dtype=BF16) * 0.02)
        self.down = torch.nn.Parameter(torch.randn(e, h, f, device="cuda", dtype=BF16) * 0.02)

    def route(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(the normalized top-``k`` weights ``[t, k]``, the routed rows' order by local expert, the
        rows per local expert): every routed row kept, as one rank of a balanced dispatch sees it."""
        probs = torch.softmax(self.router(x).float(), dim=-1)
        w, sel = torch.topk(probs, self.k, dim=-1)
        w = (w / w.sum(-1, keepdim=True)).to(x.dtype)
        local = sel.flatten() % self.e  # the experts this rank holds (all tokens kept: one rank's view)
        order = torch.argsort(local)
        counts = torch.zeros(self.e, device=x.device, dtype=torch.int64).scatter_add_(
            0, local, torch.ones_like(local)
        )  # not bincount: on CUDA it reads the maximum back to the host
        return w, order, counts
