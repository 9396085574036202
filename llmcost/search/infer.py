"""Inference plan search: (hardware, GPU count, tp, pp, ep, dp, weight / activation / KV formats)
x batch sizes, evaluated vectorized over the batch (runtime: no sympy).

Each (hardware, parallel layout, formats) is one :class:`llmcost.cost.inference.Evaluator`; all
batch sizes of it go through the same phase functions as :func:`llmcost.cost.inference.cost`
at once (micro-batch on one array axis, decode contexts on the other), and the metrics are
:meth:`InferenceResult.metrics` on those arrays. ``tests/test_search.py`` re-costs returned
plans one by one with ``cost`` and compares.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from llmcost import precision as Q
from llmcost.cost import inference as I
from llmcost.errors import PlanError
from llmcost.hardware import Hardware
from llmcost.search.common import divisors

DEFAULT_BATCHES = tuple(2**i for i in range(0, 11))
DEFAULT_WEIGHTS = ("bf16", "fp8", "int8", "int4", "fp4")


@dataclass(frozen=True)
class InferSpace:
    """The declared space: None for a dimension means every value the model allows."""

    prompt_len: int
    output_len: int
    gpus: tuple[int, ...] | None = None  # None: one node of each hardware
    tp: tuple[int, ...] | None = None
    pp: tuple[int, ...] | None = None
    ep: tuple[int, ...] | None = None
    dp: tuple[int, ...] | None = None
    batch: tuple[int, ...] = DEFAULT_BATCHES
    weights: tuple[str, ...] = DEFAULT_WEIGHTS
    activations: tuple[str | None, ...] = (None, "fp8")  # None: the plan default for the weights
    kv_cache: tuple[str | None, ...] = (None, "fp8")  # None: the plan default
    gpus_per_node: int | None = None


def _metrics_batches(ev: I.Evaluator, batches: np.ndarray) -> dict[str, np.ndarray]:
    """:func:`llmcost.cost.inference.cost` for every system batch of ``batches`` at once."""
    p = ev.plan
    spec = ev.spec
    b_rep = batches // p.dp
    m = np.maximum(1, np.minimum(b_rep, p.pp))
    mbs = b_rep / m
    pre = I._prefill(ev, mbs, p.prompt_len)
    # memory (inference._memory at b_rep, the workspace per batch)
    final = p.prompt_len + p.output_len
    ctx_m = 1 + p.output_len if spec.is_encoder_decoder else final
    kv_phase = I._decode(ev, b_rep.astype(float), float(ctx_m), p.prompt_len)
    ops = list(kv_phase.ops)
    if spec.is_encoder_decoder:
        enc = ev.phase(I._phase_groups(ev, "encoder"), "io__encoder__all", micro_batch=1.0, seq=1.0, ctx=1.0)
        ops += [o for o in enc.ops if o.group != "io"]
    layer_w = sum(o.count * float(np.max(o.weight_bytes)) for o in ops if o.group != "io")
    io_w = {o.name: float(np.max(o.weight_bytes)) for o in ops if o.group == "io"}
    head = io_w.get("embedding", 0.0) + io_w.get("lm_head", 0.0)
    if p.pp > 1:
        head = max(io_w.get("embedding", 0.0), io_w.get("lm_head", 0.0))
    weights = layer_w / p.pp + head + io_w.get("final_norm", 0.0)
    kv = np.asarray(kv_phase.kv_bytes, dtype=float) / p.pp
    acts = [np.broadcast_to(np.asarray(o.hbm_bytes - o.weight_bytes, dtype=float), mbs.shape)
            for o in pre.ops if o.kind != "collective"]
    work = np.maximum(0.0, np.max(np.stack(acts), axis=0)) if acts else np.zeros(mbs.shape)
    usable = ev.hw.memory_usable
    reserved = I.RESERVED_FRACTION * usable
    total = weights + kv + work + reserved
    mem = {"weights": weights, "kv_cache": kv, "activations": work, "reserved": reserved, "total": total,
           "usable": usable}
    # latency
    p2p = np.zeros(mbs.shape)
    if p.pp > 1:
        p2p = np.asarray(ev.collective_time("send_recv", "pp", mbs * p.prompt_len / p.cp * spec.hidden_size
                                            * ev.vals["b_r"]), dtype=float)
    ttft = (m + p.pp - 1) / p.pp * np.asarray(pre.time, dtype=float) + (p.pp - 1) * p2p
    if p.output_len > 1:
        ctx = p.prompt_len + np.arange(1, p.output_len, dtype=float)
    else:
        ctx = np.array([p.prompt_len + 1.0])
    if spec.is_encoder_decoder:
        ctx = ctx - p.prompt_len + 1
    dec = I._decode(ev, mbs[:, None], ctx[None, :], p.prompt_len)
    p2p_d = np.zeros(mbs.shape)
    if p.pp > 1:
        p2p_d = np.asarray(ev.collective_time("send_recv", "pp", mbs * spec.hidden_size * ev.vals["b_r"]), dtype=float)
    steps = np.broadcast_to(np.asarray(dec.time, dtype=float), (mbs.size, ctx.size)) + (p.pp - 1) * p2p_d[:, None]
    tpot = steps.mean(axis=1)
    e2e = ttft + (steps.sum(axis=1) if p.output_len > 1 else 0.0)
    r = I.InferenceResult(model=spec.name, hardware=ev.hw.id, plan=p, batch=batches, gpus=p.devices,  # type: ignore[arg-type]
                          ttft=ttft, tpot=tpot, e2e=e2e, memory=mem, max_batch=0, prefill=pre, decode=dec,  # type: ignore[arg-type]
                          math=ev.math, formats=ev.formats, price_per_hour=ev.hw.price_per_hour, tdp=ev.hw.tdp)
    out = {k: np.asarray(v, dtype=float) if v is not None else np.full(mbs.shape, np.nan)
           for k, v in r.metrics().items() if k != "max_batch"}
    out["output_tokens_per_s_per_user"] = 1.0 / tpot
    out["fits"] = ~(total > usable)
    return out


def search_space(model: str, hws: list[Hardware], space: InferSpace,
                 advance: Any = None) -> tuple[list[dict[str, Any]], dict[str, np.ndarray], Counter[str], int]:
    """Evaluate the space; returns (plan per row, metric columns, rejections, plans evaluated)."""
    spec = I.spec_of(model)
    rej: Counter[str] = Counter()
    plans: list[dict[str, Any]] = []
    cols: dict[str, list[np.ndarray]] = {}
    evaluated = 0
    experts = spec.moe.num_experts if spec.moe is not None else 1
    fmts = [(w, a, kv) for w in space.weights for a in space.activations for kv in space.kv_cache]
    batches_all = np.array(sorted(space.batch), dtype=np.int64)
    seen: set[tuple[Any, ...]] = set()
    for hw in hws:
        gpus_list = space.gpus or (hw.node_devices or 1,)
        for g in gpus_list:
            for tp in space.tp or divisors(g):
                for pp in space.pp or divisors(g):
                    for ep in space.ep or (divisors(experts) if spec.moe is not None else [1]):
                        dps = [g // (tp * pp)] if g % (tp * pp) == 0 else []
                        if space.dp is not None:
                            dps = [d for d in dps if d in space.dp]
                        if not dps:  # not a factorization: counted only when the user narrowed the degrees
                            if space.tp is not None or space.pp is not None or space.dp is not None:
                                rej["tp*pp*dp does not equal the GPUs"] += len(fmts) * batches_all.size
                            continue
                        dp = dps[0]
                        for w, a, kv in fmts:
                            n_b = batches_all.size
                            try:
                                plan = I.Plan(tp=tp, pp=pp, dp=dp, ep=ep, batch=None, prompt_len=space.prompt_len,
                                              output_len=space.output_len, weights=w, activations=a, kv_cache=kv,
                                              gpus=g, gpus_per_node=space.gpus_per_node)
                                ev = I.Evaluator(spec, hw, plan)
                            except PlanError as e:
                                rej[_reason(str(e))] += n_b
                                continue
                            key = (hw.id, g, tp, pp, ep, dp, ev.formats)
                            if key in seen:  # a default format resolved to one listed explicitly
                                continue
                            seen.add(key)
                            ok = batches_all % dp == 0
                            rej["batch does not divide over dp"] += int((~ok).sum())
                            bs = batches_all[ok]
                            if not bs.size:
                                continue
                            try:
                                out = _metrics_batches(ev, bs)
                            except PlanError as e:
                                rej[_reason(str(e))] += int(bs.size)
                                continue
                            evaluated += int(bs.size)
                            if advance:
                                advance(int(bs.size))
                            wf, af, kf = ev.formats
                            for b in bs:
                                plans.append({"hardware": hw.id, "gpus": g, "tp": tp, "pp": pp, "dp": dp, "ep": ep,
                                              "batch": int(b), "prompt_len": space.prompt_len,
                                              "output_len": space.output_len, "weights": wf, "activations": af,
                                              "kv_cache": kf})
                            for k, v in out.items():
                                cols.setdefault(k, []).append(np.asarray(v))
    merged = {k: np.concatenate(v) for k, v in cols.items()}
    return plans, merged, rej, evaluated


def _reason(msg: str) -> str:
    """A rejection reason without the plan's numbers (so that counts aggregate)."""
    low = msg.lower()
    for key, text in (("heads do not divide", "attention heads do not divide by tp"),
                      ("kv heads", "KV heads and tp do not divide"),
                      ("layers do not divide", "layers do not divide into pp stages"),
                      ("experts do not divide", "experts do not divide by ep"),
                      ("must span whole tp", "ep must span whole TP groups within dp*tp"),
                      ("needs a mixture-of-experts", "ep > 1 needs a MoE model"),
                      ("not a supported gemm", "activations narrower than weights"),
                      ("fabric", "GPU count does not fit the fabric")):
        if key in low:
            return text
    if "has no" in low or "compute" in low:
        return "format without a hardware peak"
    return msg.split(";")[0][:80]


def plan_keys(plan: dict[str, Any]) -> dict[str, Any]:
    """The validation README's infer plan keys of a search row (feeds ``llmcost infer --plan``)."""
    return {k: v for k, v in plan.items() if k != "hardware"}


def bottleneck(model: str, hw: Hardware, plan: dict[str, Any]) -> str:
    """Operator kind and bound taking most of the decode step, from the single-plan path."""
    r = I.cost(model, hw, I.plan_from_dict(plan_keys(plan)))
    return I._dominant(r)


__all__ = ["InferSpace", "search_space", "plan_keys", "bottleneck", "Q"]
