"""Training budgets: compute-optimal model size and tokens (Chinchilla), run FLOPs, time and cost.

Fits (``fit`` argument; Hoffmann et al. 2022 and its replication disagree, see ``epoch``):

* ``tokens20`` (default): Hoffmann et al. 2022 Approaches 1 and 2 (Table 2: N_opt ∝ C^0.50,
  D_opt ∝ C^0.50) as the paper's own rule of thumb, D_opt = 20·N_opt (Chinchilla 70B on 1.4T
  tokens; Table 3 projections). With C = 6ND: ``N = sqrt(C/120)``, ``D = 20·N``.
* ``approach3``: the parametric fit L(N, D) = E + A/N^α + B/D^β with Hoffmann et al. 2022
  Eq. 10's published coefficients (E 1.69, A 406.4, B 410.7, α 0.34, β 0.28) and the closed
  form of Eq. 4: ``N = G·(C/6)^(β/(α+β))``, ``D = G^-1·(C/6)^(α/(α+β))``,
  ``G = (αA/(βB))^(1/(α+β))``. Known to give far more than 20 tokens/param at large C.
* ``epoch``: the same parametric form refitted by Besiroglu et al. 2024 ("Chinchilla Scaling:
  A replication attempt", arXiv 2404.10102, Eq. 4): E 1.8172, A 482.01, B 2085.43,
  α 0.3478, β 0.3658 (consistent with ≈20 tokens/param).

Run FLOPs: C = 6·N·D (Kaplan 2020 §2.1; Chinchilla §3) or the model-FLOPs count of the cost
model (matmuls incl. causal attention by the pairs its mask keeps, s²/2, the convention of
``llmcost train``'s MFU: Megatron-LM ``num_floating_point_operations`` since Megatron-Core 0.12;
PaLM, Chowdhery et al. 2022 App. B, counts the full s²;
:func:`llmcost.training.compute.model_flops_per_token`). Time on a cluster:
``C / (N_gpu·F·MFU)``; device-hours ``C/(F·MFU·3600)``; cost and energy as in
:mod:`llmcost.training.formulas` ([derived] from the MFU definition, PaLM App. B).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from llmcost.errors import UserError

FITS: dict[str, tuple[float, float, float, float, float] | None] = {
    "tokens20": None,
    "approach3": (1.69, 406.4, 410.7, 0.34, 0.28),
    "epoch": (1.8172, 482.01, 2085.43, 0.3478, 0.3658),
}
TOKENS_PER_PARAM = 20.0


@dataclass(frozen=True)
class Optimum:
    """Compute-optimal allocation of a FLOP budget."""

    flops: float
    params: float
    tokens: float
    loss: float | None
    fit: str

    @property
    def tokens_per_param(self) -> float:
        return self.tokens / self.params


_SUFFIX = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12, "p": 1e15, "e": 1e18}


def parse_count(text: str | float, what: str = "value") -> float:
    """A count such as ``15T`` tokens, ``70B`` parameters, ``3.8e25`` FLOPs (K, M, B/G, T, P, E):
    finite and > 0 (a UserError naming ``what`` otherwise)."""
    v: float | None = None
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        v = float(text)
    elif isinstance(text, str):
        t = text.strip().replace("_", "").replace(",", "")
        try:
            v = float(t)
        except ValueError:
            suf = t[-1:].lower()
            if suf in _SUFFIX:
                try:
                    v = float(t[:-1]) * _SUFFIX[suf]
                except (ValueError, OverflowError):
                    v = None
    if v is None:
        raise UserError(f"{what}: '{text}' is not a count; write e.g. 15T, 70B, 3.8e25")
    if not math.isfinite(v) or v <= 0:
        raise UserError(f"{what}: '{text}' must be a finite count > 0, e.g. 15T, 70B, 3.8e25")
    return v


def loss(params: float, tokens: float, fit: str = "epoch") -> float:
    """Predicted pre-training loss L(N, D) = E + A/N^α + B/D^β (Hoffmann et al. 2022 Eq. 2)."""
    coef = FITS.get(fit)
    if coef is None:
        raise UserError(f"fit '{fit}' has no loss curve; use approach3 or epoch")
    e, a, b, al, be = coef
    return e + a / params**al + b / tokens**be


def compute_optimal(flops: float, fit: str = "tokens20") -> Optimum:
    """Params and tokens minimizing loss at ``flops`` = 6·N·D (see the module docstring)."""
    if fit not in FITS:
        raise UserError(f"fit '{fit}': use one of {', '.join(FITS)}")
    if not flops > 0 or not math.isfinite(flops):
        raise UserError(f"the FLOP budget must be positive, got {flops}")
    coef = FITS[fit]
    if coef is None:
        n = math.sqrt(flops / (6 * TOKENS_PER_PARAM))
        d = TOKENS_PER_PARAM * n
        return Optimum(flops=flops, params=n, tokens=d, loss=loss(n, d, "epoch"), fit=fit)
    _, a, b, al, be = coef
    g = (al * a / (be * b)) ** (1 / (al + be))
    n = g * (flops / 6) ** (be / (al + be))
    d = (flops / 6) ** (al / (al + be)) / g
    return Optimum(flops=flops, params=n, tokens=d, loss=loss(n, d, fit), fit=fit)


def flops_6nd(params: float, tokens: float) -> float:
    """Training FLOPs C = 6·N·D (Kaplan et al. 2020 §2.1)."""
    return 6.0 * params * tokens


def flops_from_gpu_hours(gpu_hours: float, peak: float, mfu: float) -> float:
    """FLOPs a budget of device-hours buys at ``mfu`` of ``peak``: ``H·3600·F·MFU`` (MFU, PaLM App. B) [derived]."""
    if not 0 < mfu <= 1:
        raise UserError(f"--mfu must be in (0, 1], got {mfu}")
    return gpu_hours * 3600.0 * peak * mfu


def run_time(flops: float, gpus: int, peak: float, mfu: float) -> float:
    """Wall time of a run: ``C/(N·F·MFU)`` (MFU, PaLM App. B) [derived]."""
    if not 0 < mfu <= 1:
        raise UserError(f"--mfu must be in (0, 1], got {mfu}")
    return flops / (gpus * peak * mfu)
