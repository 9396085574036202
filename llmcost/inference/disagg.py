"""Prefill / decode disaggregation (DistServe, Zhong et al. 2024; Splitwise, Patel et al. 2024;
Mooncake, Qin et al. 2024): a prefill pool and a decode pool, each its own plan and hardware, the
prompt's KV cache written from the prefill GPUs into the decode pool over the scale-out network
(one-sided RDMA, :func:`llmcost.collectives.formulas.rdma_write`).

Each pool is costed as one plan with ``disaggregated: true`` (:func:`llmcost.inference.serve.cost`:
the prefill pool generates one token, the decode pool never prefills); the composition is the
sympy formulas ``disagg__*`` of :mod:`llmcost.inference.formulas`:

* KV transfer: every prefill GPU writes its shard of its batch's prompt KV cache over its own
  NIC(s), all in parallel; it overlaps the next batch's prefill (the pool's request rate is bounded
  by the slower of the two) but not the request's own first token;
* TTFT = the prefill pool's TTFT + the transfer; TPOT = the decode pool's;
* requests per second: the slower pool's (the prefill pool's prompts, the decode pool's output
  tokens over the ``n_out − 1`` it generates per request); queueing is not modelled.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from llmcost.errors import PlanError
from llmcost.hardware import Hardware
from llmcost.inference import _generated as F
from llmcost.inference.serve import Evaluator, InferenceResult, Plan, _decode, cost, spec_of


@dataclass
class Deployment:
    """A disaggregated deployment costed: its two pools and the KV transfer between them."""

    prefill: InferenceResult
    decode: InferenceResult
    prefill_hw: Hardware
    decode_hw: Hardware
    kv_bytes_per_gpu: float  # one prefill batch's prompt KV on one prefill GPU
    kv_time: float  # its RDMA write
    nics: int

    def metrics(self) -> dict[str, Any]:
        """The deployment's figures (validation README infer metric names where they apply)."""
        p, d = self.prefill, self.decode
        pm, dm = p.metrics(), d.metrics()
        n_out = d.plan.output_len
        prompts = F.disagg__prefill_rate(
            input_rate=pm["input_tokens_per_s_per_gpu"] * p.gpus,
            prompt_len=p.plan.prompt_len,
            batch=p.batch,
            t_kv=self.kv_time,
        )
        decodes = F.disagg__decode_rate(out_rate=dm["output_tokens_per_s"], output_len=n_out)
        rate = min(float(prompts), float(decodes))
        gpus = p.gpus + d.gpus
        out_tps = rate * n_out
        ttft = float(F.disagg__ttft(ttft_prefill=p.ttft, t_kv=self.kv_time))
        usd = None
        if self.prefill_hw.price_per_hour and self.decode_hw.price_per_hour:
            usd_h = p.gpus * self.prefill_hw.price_per_hour + d.gpus * self.decode_hw.price_per_hour
            usd = usd_h / 3600 / out_tps * 1e6
        return {
            "ttft_s": ttft,
            "tpot_s": d.tpot,
            "e2e_latency_s": ttft + (n_out - 1) * d.tpot,
            "output_tokens_per_s": out_tps,
            "output_tokens_per_s_per_gpu": out_tps / gpus,
            "requests_per_s": rate,
            "bound_by": "prefill pool" if prompts < decodes else "decode pool",
            "prefill_requests_per_s": float(prompts),
            "decode_requests_per_s": float(decodes),
            "kv_transfer_s": self.kv_time,
            "kv_transfer_bytes_per_gpu": self.kv_bytes_per_gpu,
            "gpus": gpus,
            "usd_per_million_output_tokens": usd,
        }


def kv_transfer(model: Any, hw: Hardware, plan: Plan, batch: int, nics: int = 1) -> tuple[float, float]:
    """(bytes, seconds) of one prefill GPU writing its shard of a prefill batch's prompt KV cache
    (``batch`` sequences per replica at context ``prompt_len``, its pipeline stage's layers) to the
    decode pool: :func:`llmcost.collectives.formulas.rdma_write` across the scale-out network over
    ``nics`` NICs."""
    from llmcost.collectives.cost import collective

    ev = Evaluator(spec_of(model), hw, plan)
    kv = _decode(ev, float(batch), float(plan.prompt_len), plan.prompt_len, timed=False).kv_bytes
    size = float(np.asarray(kv, dtype=float)) / plan.pp
    t = collective(hw, "send_recv", size, gpus=2, gpus_per_node=1, algo="rdma_write", nics=nics)
    return size, float(t.time)


def deploy(
    model: Any,
    prefill_hw: Hardware,
    prefill_plan: Plan,
    decode_hw: Hardware,
    decode_plan: Plan,
    nics: int = 1,
    check_memory: bool = True,
) -> Deployment:
    """Cost a disaggregated deployment: ``prefill_plan`` on ``prefill_hw`` (one output token) and
    ``decode_plan`` on ``decode_hw``, both ``disaggregated``, with the same prompt and output lengths
    (the decode plan's)."""
    if prefill_plan.prompt_len != decode_plan.prompt_len:
        raise PlanError("the prefill and decode pools serve the same requests: give one prompt_len")
    pre_plan = replace(prefill_plan, disaggregated=True, output_len=1)
    dec_plan = replace(decode_plan, disaggregated=True)
    if dec_plan.output_len < 2:
        raise PlanError(
            "a decode pool needs output_len of at least 2 (its first token comes from the prefill pool)"
        )
    pre = cost(model, prefill_hw, pre_plan, check_memory=check_memory)
    dec = cost(model, decode_hw, dec_plan, check_memory=check_memory)
    per_replica = -(-pre.batch // pre_plan.dp)
    size, t = kv_transfer(model, prefill_hw, pre_plan, per_replica, nics)
    return Deployment(pre, dec, prefill_hw, decode_hw, size, t, nics)
