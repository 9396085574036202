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

from llmcost.economics import _generated as E
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
    kv_time: float  # its write (the slower of the two ends)
    nics: int
    kv_per_request_decode_gpu: float  # one request's prompt KV landing on one decode GPU
    recv_bw: float  # what one decode GPU receives per second
    path: str  # rdma_write, or the shared scale-up domain's name

    def metrics(self) -> dict[str, Any]:
        """The deployment's figures (validation README infer metric names where they apply)."""
        p, d = self.prefill, self.decode
        dm = d.metrics()
        n_out = d.plan.output_len
        prompts = F.disagg__prefill_rate(batch=p.batch, t_batch=batch_time(p), t_kv=self.kv_time)
        decodes = F.disagg__decode_rate(
            out_rate=dm["output_tokens_per_s"],
            output_len=n_out,
            recv_bw=self.recv_bw,
            kv_req=self.kv_per_request_decode_gpu,
        )
        rate = float(F.disagg__rate(n_prefill=1, rate_prefill=prompts, n_decode=1, rate_decode=decodes))
        gpus = p.gpus + d.gpus
        out_tps = rate * n_out
        ttft = float(F.disagg__ttft(ttft_prefill=p.ttft, t_kv=self.kv_time))
        usd = None
        if self.prefill_hw.price_per_hour and self.decode_hw.price_per_hour:
            usd_h = p.gpus * self.prefill_hw.price_per_hour + d.gpus * self.decode_hw.price_per_hour
            usd = float(E.usd_per_million_tokens(devices=1, usd_hour=usd_h, seconds=1 / out_tps, tokens=1.0))
        return {
            "ttft_s": ttft,
            "tpot_s": d.tpot,
            "e2e_latency_s": float(F.cb_e2e(ttft=ttft, tpot=d.tpot, output_len=n_out)),
            "output_tokens_per_s": out_tps,
            "output_tokens_per_s_per_gpu": float(F.output_rate_per_device(out_rate=out_tps, devices=gpus)),
            "requests_per_s": rate,
            "bound_by": "prefill pool" if prompts < decodes else "decode pool",
            "prefill_requests_per_s": float(prompts),
            "decode_requests_per_s": float(decodes),
            "kv_transfer_s": self.kv_time,
            "kv_transfer_bytes_per_gpu": self.kv_bytes_per_gpu,
            "kv_path": self.path,
            "gpus": gpus,
            "usd_per_million_output_tokens": usd,
        }


def batch_time(r: InferenceResult) -> float:
    """Seconds per prefill batch of a pool in steady state: with pipeline stages a new batch enters
    every ``m·T_fwd/p`` (its m micro-batches through the busiest stage; GPipe, Huang et al. 2019);
    static with pp 1 its TTFT; continuous batching the time a request holds its slot (Little)."""
    if r.plan.schedule == "continuous":
        return r.e2e
    m = float(F.micro_batches(b_rep=-(-r.batch // r.plan.dp), pp=r.plan.pp))
    return float(F.disagg__batch_time(n_mb=m, t_prefill=float(np.asarray(r.prefill.time)), pp=r.plan.pp))


def kv_bytes(model: Any, hw: Hardware, plan: Plan, batch: float) -> float:
    """Prompt KV-cache bytes of ``batch`` sequences on one GPU of ``plan`` (its pipeline stage)."""
    ev = Evaluator(spec_of(model), hw, plan)
    kv = _decode(ev, float(batch), float(plan.prompt_len), plan.prompt_len, timed=False).kv_bytes
    return float(np.asarray(kv, dtype=float)) / plan.pp


def _write_time(hw: Hardware, size: float, nics: int, shared: bool = False) -> tuple[float, str]:
    """One GPU writing ``size`` bytes to another pool: an RDMA write over the scale-out network
    (:func:`llmcost.collectives.formulas.rdma_write`: the ranks placed in two of the device's
    outermost scale-up domains); with ``shared`` (both pools the same hardware, whose scale-up domain
    spans hosts: NVL72, a TPU slice) a send over that domain instead (NVIDIA Dynamo's KV transfers
    inside an NVL72 rack go over NVLink), and likewise where the device has no network tier."""
    from llmcost.collectives.cost import collective

    inner = [t for t in hw.fabric if not _is_network(t)]
    domain = max([t.devices or 1 for t in inner] + [max(hw.node_devices, 1)])
    spans = domain > max(hw.node_devices, 1)
    if (shared and spans) or all(not _is_network(t) for t in hw.fabric):
        t = collective(hw, "send_recv", size, gpus=2, gpus_per_node=1, algo="direct")
        return float(t.time), inner[-1].key if inner else hw.fabric[-1].key
    node = max(hw.node_devices, 1)
    t = collective(hw, "send_recv", size, gpus=2 * domain, gpus_per_node=node, algo="rdma_write", nics=nics)
    return float(t.time), "rdma_write"


def _is_network(tier: Any) -> bool:
    """A scale-out (network) tier, as :attr:`llmcost.collectives.cost.Level.network` reads one."""
    from llmcost.collectives.cost import Level

    return Level(tier, 2.0).network


def kv_write_time(pre_hw: Hardware, dec_hw: Hardware, size: float, nics: int = 1) -> tuple[float, str]:
    """(seconds, path) of one prefill GPU writing ``size`` bytes of KV cache to the decode pool: the
    slower of the two ends (the sender's and the receiver's NICs, :func:`_write_time`); pools of one
    hardware whose scale-up domain spans hosts share it."""
    shared = pre_hw.id == dec_hw.id
    t_send, path = _write_time(pre_hw, size, nics, shared)
    t_recv, _ = _write_time(dec_hw, size, nics, shared)
    return max(t_send, t_recv), path


def receive_rate(
    model: Any, pre_hw: Hardware, dec_hw: Hardware, dec_plan: Plan, nics: int = 1
) -> tuple[float, float]:
    """(bytes, bytes per second): one request's prompt KV cache landing on one decode GPU, and what
    that GPU's NICs take in (the decode pool's receive bound, ``disagg__decode_rate``)."""
    kv_req = kv_bytes(model, dec_hw, dec_plan, 1.0)
    t, _ = _write_time(dec_hw, kv_req, nics, pre_hw.id == dec_hw.id)
    return kv_req, kv_req / t


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
    (the decode plan's). The KV write runs at the slower of the two ends (the sender's and the
    receiver's NICs), and each decode GPU receives at most its NICs' rate."""
    from llmcost.errors import UserError

    spec = spec_of(model)
    if spec.is_encoder_decoder:
        raise PlanError(
            "disaggregation is modelled for decoder-only models; cost the plan without --prefill-pool"
        )
    if prefill_plan.prompt_len != decode_plan.prompt_len:
        raise PlanError("the prefill and decode pools serve the same requests: give one prompt_len")
    pre_plan = replace(prefill_plan, disaggregated=True, output_len=1)
    dec_plan = replace(decode_plan, disaggregated=True)
    if dec_plan.output_len < 2:
        raise PlanError(
            "a decode pool needs output_len of at least 2 (its first token comes from the prefill pool)"
        )
    pools = {}
    for name, hw, plan in (("prefill pool", prefill_hw, pre_plan), ("decode pool", decode_hw, dec_plan)):
        try:
            pools[name] = cost(model, hw, plan, check_memory=check_memory)
        except (PlanError, UserError) as e:
            raise type(e)(f"{name}: {e}") from None
    pre, dec = pools["prefill pool"], pools["decode pool"]
    size = kv_bytes(model, prefill_hw, pre_plan, -(-pre.batch // pre_plan.dp))
    t_kv, path = kv_write_time(prefill_hw, decode_hw, size, nics)
    kv_req, recv_bw = receive_rate(model, prefill_hw, decode_hw, dec_plan, nics)
    return Deployment(pre, dec, prefill_hw, decode_hw, size, t_kv, nics, kv_req, recv_bw, path)
