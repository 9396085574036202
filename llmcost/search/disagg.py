"""Sizing a prefill / decode disaggregated deployment (``llmcost search infer --disaggregated``):
which prefill plan and which decode plan, and how many instances of each, serve the most requests
within a GPU budget and the TTFT / TPOT SLOs (DistServe, Zhong et al. 2024 §4: placement per phase
under per-phase SLOs; each pool replicated to balance the two rates).

Each pool's candidates are the plans of :func:`llmcost.search.infer.search_space` on one pool
(``disaggregated``: the prefill pool generates one token, the decode pool never prefills), priced
by the same compiled functions as ``llmcost infer --prefill-pool``
(:mod:`llmcost.inference.disagg`: the KV write by RDMA, TTFT = prefill + write, a pool's request
rate). The best of each pool on (requests per second per GPU, latency) are kept, then every pair
gets the instance counts ``n_p, n_d`` with ``n_p·g_p + n_d·g_d <= budget`` that maximise
``min(n_p·R_p, n_d·R_d)``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from llmcost.hardware import Hardware
from llmcost.inference import _generated as F
from llmcost.inference import disagg as D
from llmcost.search import infer as SI

KEEP = 24
"""Candidates kept per pool (the best by requests per second per GPU among those meeting the SLO)."""


@dataclass
class Candidate:
    """One pool's plan: its row, GPUs per instance, requests per second per instance, latency."""

    plan: dict[str, Any]
    gpus: int
    rate: float
    latency: float  # TTFT with the KV write (prefill) or TPOT (decode)
    kv_time: float = 0.0
    kv_bytes: float = 0.0  # prefill: a batch's prompt KV on one GPU
    t_batch: float = 0.0  # prefill: seconds per batch in steady state


@dataclass
class SizedDeployment:
    """A sized deployment: the two pools' plans and instance counts, and what they give."""

    prefill: Candidate
    decode: Candidate
    n_prefill: int
    n_decode: int
    output_len: int

    @property
    def gpus(self) -> int:
        return self.n_prefill * self.prefill.gpus + self.n_decode * self.decode.gpus

    @property
    def rate(self) -> float:
        return float(
            F.disagg__rate(
                n_prefill=self.n_prefill,
                rate_prefill=self.prefill.rate,
                n_decode=self.n_decode,
                rate_decode=self.decode.rate,
            )
        )

    def metrics(self) -> dict[str, Any]:
        out_tps = self.rate * self.output_len
        return {
            "ttft_s": self.prefill.latency,
            "tpot_s": self.decode.latency,
            "requests_per_s": self.rate,
            "output_tokens_per_s": out_tps,
            "output_tokens_per_s_per_gpu": float(
                F.output_rate_per_device(out_rate=out_tps, devices=self.gpus)
            ),
            "gpus": self.gpus,
            "kv_transfer_s": self.prefill.kv_time,
            "bound_by": "prefill pool"
            if self.n_prefill * self.prefill.rate < self.n_decode * self.decode.rate
            else "decode pool",
        }

    def as_dict(self) -> dict[str, Any]:
        return {
            "prefill": {"plan": self.prefill.plan, "instances": self.n_prefill},
            "decode": {"plan": self.decode.plan, "instances": self.n_decode},
            "metrics": self.metrics(),
        }


def search(
    model: str,
    hws: list[Hardware],
    space: SI.InferSpace,
    budget: int,
    max_ttft: float | None = None,
    max_tpot: float | None = None,
    top: int = 10,
    nics: int = 1,
) -> list[SizedDeployment]:
    """The best ``top`` deployments within ``budget`` GPUs, by requests per second (then fewer GPUs)."""
    pre = _prefill_candidates(model, hws, space, max_ttft)
    dec = _decode_candidates(model, hws, space, max_tpot, nics)
    by_hw = {h.id: h for h in hws}
    out: list[SizedDeployment] = []
    for p in pre:
        for d in dec:
            # the write runs at the slower end, over a shared NVL72 / TPU domain where both pools sit in one
            t_kv, _ = D.kv_write_time(by_hw[p.plan["hardware"]], by_hw[d.plan["hardware"]], p.kv_bytes, nics)
            ttft = float(F.disagg__ttft(ttft_prefill=p.latency, t_kv=t_kv))
            if max_ttft is not None and ttft > max_ttft:
                continue
            rate = float(F.disagg__prefill_rate(batch=p.plan["batch"], t_batch=p.t_batch, t_kv=t_kv))
            best = _sized(replace(p, rate=rate, latency=ttft, kv_time=t_kv), d, budget, space.output_len)
            if best is not None:
                out.append(best)
    out.sort(key=lambda x: (-x.rate, x.gpus))
    return out[:top]


def _sized(p: Candidate, d: Candidate, budget: int, output_len: int) -> SizedDeployment | None:
    """The instance counts of ``p`` and ``d`` within ``budget`` GPUs serving the most requests."""
    n_p = np.arange(1, max(1, (budget - d.gpus) // p.gpus) + 1)
    n_d = (budget - n_p * p.gpus) // d.gpus
    ok = n_d >= 1
    if not ok.any():
        return None
    n_p, n_d = n_p[ok], n_d[ok]
    rate = F.disagg__rate(n_prefill=n_p, rate_prefill=p.rate, n_decode=n_d, rate_decode=d.rate)
    r = float(rate[int(np.argmax(rate))])
    # the fewest instances of each pool reaching the best rate (the faster pool has no spare one)
    a = max(1, int(np.ceil(r / p.rate - 1e-9)))
    b = max(1, int(np.ceil(r / d.rate - 1e-9)))
    return SizedDeployment(p, d, a, b, output_len)


def _prefill_candidates(
    model: str, hws: list[Hardware], space: SI.InferSpace, max_ttft: float | None
) -> list[Candidate]:
    from llmcost.inference.serve import cost, plan_from_dict

    sp = replace(space, output_len=1, disaggregated=True, speculative=None)
    plans, cols, _, _ = SI.search_space(model, hws, sp)
    gpus = plans.arrays["gpus"].astype(float)
    rate = cols["input_tokens_per_s_per_gpu"] / space.prompt_len  # prompts per second per GPU, no KV bound
    ok = np.asarray(cols["fits"], dtype=bool) & np.isfinite(rate)
    if max_ttft is not None:
        ok &= cols["ttft_s"] <= max_ttft
    out = []
    by_hw = {h.id: h for h in hws}
    for i in _best(ok, rate):
        row = plans[int(i)]
        hw = by_hw[row["hardware"]]
        plan = plan_from_dict(SI.plan_keys(row))
        r = cost(model, hw, plan, check_memory=False)
        size = D.kv_bytes(model, hw, plan, -(-plan.batch // plan.dp))
        c = Candidate(row, int(gpus[i]), 0.0, float(cols["ttft_s"][i]), 0.0, size, D.batch_time(r))
        out.append(c)
    return out


def _decode_candidates(
    model: str, hws: list[Hardware], space: SI.InferSpace, max_tpot: float | None, nics: int
) -> list[Candidate]:
    from llmcost.inference.serve import plan_from_dict

    sp = replace(space, disaggregated=True)
    plans, cols, _, _ = SI.search_space(model, hws, sp)
    gpus = plans.arrays["gpus"].astype(float)
    ok = np.asarray(cols["fits"], dtype=bool) & np.isfinite(cols["output_tokens_per_s"])
    if max_tpot is not None:
        ok &= cols["tpot_s"] <= max_tpot
    by_hw = {h.id: h for h in hws}
    out = []
    for i in _best(ok, cols["output_tokens_per_s"] / gpus):
        row = plans[int(i)]
        hw = by_hw[row["hardware"]]
        # as the decode pool of a pool on other hardware (the network); a shared domain only lifts it
        kv_req, recv_bw = D.receive_rate(model, hw, hw, plan_from_dict(SI.plan_keys(row)), nics)
        rate = F.disagg__decode_rate(
            out_rate=cols["output_tokens_per_s"][i],
            output_len=space.output_len,
            recv_bw=recv_bw,
            kv_req=kv_req,
        )
        out.append(Candidate(row, int(gpus[i]), float(rate), float(cols["tpot_s"][i])))
    return out


def _best(ok: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Indices of the :data:`KEEP` best ``score`` among ``ok``."""
    idx = np.flatnonzero(ok)
    return idx[np.argsort(-score[idx], kind="stable")[:KEEP]]
