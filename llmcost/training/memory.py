"""Training memory per device: model state (weights, gradients, optimizer) and activations.

The closed forms are the ``memory__*``, ``inflight__*`` and ``act__*`` entries of
:mod:`llmcost.training.formulas` (Korthikanti et al. 2022 §4 Table 2 generalized; ZeRO §5;
Megatron distributed optimizer); this module computes their inputs: parameters per device for the
busiest pipeline stage ([MEG-mem] ``compute_weight_and_optimizer_memory``: layer parameters
/ (t·p), experts / (e·t), the embedding on the first stage and the output layer on the last),
the ZeRO shard counts, and the layers and per-layer activation inputs of the first stage.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from llmcost.model.spec import ModelSpec
from llmcost.training import _generated as G
from llmcost.training.base import (
    PRECISIONS,
    QUANTIZED,
    RECOMPUTE,
    SCHEDULES,
    attention_dropout,
    hidden_dropout,
    model_layers,
    mtp_indices,
    n_layers,
    offload_params,
    stage_layers,
)
from llmcost.training.columns import Plans
from llmcost.training.recompute import MODULE_BITS


@dataclass(frozen=True)
class DeviceParams:
    """Parameters on the busiest device: ``dense`` (TP-sharded or replicated) and ``expert``."""

    dense: float
    expert: float

    @property
    def total(self) -> float:
        return self.dense + self.expert


ACT_POLICIES = ("flash", "materialized", "selective", "full", "op")
"""What a layer stores for the backward, each an ``act__<policy>`` formula: FlashAttention or
materialized scores (no recomputation), selective or full recomputation."""


class StageParams(NamedTuple):
    """Per plan row: parameters on one device of the busiest stage, ``dense`` and ``expert`` (each
    already divided by t), and the dense-FFN / MoE-FFN layers of the first stage, ``n_dense0`` /
    ``n_moe0`` (it holds the most in-flight activations)."""

    dense: np.ndarray
    expert: np.ndarray
    n_dense0: np.ndarray
    n_moe0: np.ndarray


CE_FUSED_BYTES = 4.0
"""Bytes per logit with a fused vocabulary-parallel cross-entropy (fp32 logits; ``memory__logits``)."""
CE_EAGER_BYTES = 10.0
"""Bytes per logit with the eager cross-entropy: bf16 logits, fp32 upcast, log_softmax output."""


def _layer_params(spec: ModelSpec, stack: str, i: int) -> tuple[float, float]:
    """(non-expert, expert) parameters of one layer."""
    from llmcost.model import params as P

    dense = P.attention_params(spec) + P.norm_params(spec) * (spec.norms_per_layer if stack == "dec" else 2)
    if stack == "dec" and spec.is_encoder_decoder:
        dense += P.cross_attention_params(spec) + P.norm_params(spec)
    is_moe = (i in spec.moe_layers) if stack == "dec" else (i in spec.encoder_moe_layers)
    if is_moe and spec.moe is not None:
        dense += P.router_params(spec) + P.shared_expert_params(spec)
        return float(dense), float(spec.moe.num_experts * P.expert_params(spec))
    return float(dense + P.mlp_params(spec, spec.intermediate_size)), 0.0


@lru_cache(maxsize=4096)
def params_per_device(spec: ModelSpec, pp: int, v: int, ep: int) -> DeviceParams:
    """Parameters held by one device of the busiest stage of ``pp`` stages with ``v`` chunks each
    (:func:`llmcost.training.base.split_layers`), before the division by t (max over stages of
    dense + expert): layer parameters, experts / e, the embedding on the first stage and the output
    layer on the last ([MEG-mem] ``compute_weight_and_optimizer_memory``). Cached: a search asks
    for each (pp, v, ep) once per chunk."""
    layers = model_layers(spec)
    per_layer = [_layer_params(spec, *layer) for layer in layers]
    emb = spec.vocab_size * spec.d_embed + spec.learned_positions * spec.hidden_size
    head = spec.vocab_size * spec.d_embed
    mtp = set(mtp_indices(spec))
    best = DeviceParams(0.0, 0.0)
    for s, idxs in enumerate(stage_layers(spec, pp, v)):
        dense = exp = 0.0
        for idx in idxs:
            d, e = per_layer[idx]
            dense += d + (2 * spec.hidden_size**2 if idx in mtp else 0)  # an MTP module's eh_proj
            exp += e / ep
        if s == 0:
            dense += emb
        if s == pp - 1 and (not spec.tie_word_embeddings or pp > 1):
            dense += head  # untied head, or the tied copy Megatron keeps on the last stage
        if dense + exp > best.total:
            best = DeviceParams(dense, exp)
    return best


def memory(
    spec: ModelSpec, p: Plans, sp: StageParams, k1: tuple[np.ndarray, np.ndarray]
) -> dict[str, np.ndarray]:
    """Bytes per device by component (weights, gradients, optimizer, activations, logits, buffers)
    of the plan rows ``p``; per-layer activations once per operator configuration ``k1`` (first
    rows, inverse).

    * model state (:func:`model_state`);
    * activations of the first stage (:func:`activations`);
    * logits: ``memory__logits``, the logits of one micro-batch over ``V/t`` on the last stage at the
      loss's peak (fused or eager cross-entropy, plan ``fused_ce``); with a pipeline what they add over
      the first stage's peak (``memory__pipeline_logits``: the last stage holds fewer micro-batches);
    * buffers: ``memory__buffers``, ZeRO-3 / FSDP keep two gathered layers in flight."""
    c = p.c
    tp, cp, mb = (c[k].astype(float) for k in ("tp", "cp", "mb"))
    weights, grads, optim, host = model_state(p, sp)
    acts, act_host = offloaded_activations(p, sp, activations(spec, p, sp, k1))
    b_ce = np.where(c["fce"] == 1, CE_FUSED_BYTES, CE_EAGER_BYTES)
    logits = G.memory__pipeline_logits(
        acts,
        inflight(p),
        inflight(p, "inflight_last"),
        G.memory__logits(b_ce, cp, mb, p.seq, tp, spec.vocab_size),
        p.pp,
    )
    buffers = np.where(
        p.zero == 3, G.memory__buffers(p.b_w, max(1, n_layers(spec)), sp.dense, sp.expert), 0.0
    )
    return {
        "weights": weights,
        "gradients": grads,
        "optimizer": optim,
        "activations": acts,
        "activations_host": act_host,
        "logits": logits,
        "buffers": buffers,
        "host": host
        + act_host,  # offloaded to the host tier (not device memory: :data:`llmcost.training.step.MEMORY`)
    }


def model_state(p: Plans, sp: StageParams) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(weights, gradients, optimizer state, offloaded state) bytes per device: ``memory__weights``,
    ``memory__gradients``, ``memory__optimizer``. ZeRO-1/2/3 and the distributed optimizer shard
    the optimizer state, ZeRO-2/3 the gradients, ZeRO-3 the weights over the ``d·c`` data x
    context ranks, experts over their expert-data-parallel ranks (Rajbhandari 2020 §5;
    [MEG-distopt]); with offload the fp16 gradients (streamed down as the backward produces them)
    and the fp32 master weights and Adam state live on the host (ZeRO-Offload, Ren et al. 2021 §4.1:
    "g16" and the optimizer states on the CPU, p16 on the GPU) or its NVMe (ZeRO-Infinity), the
    fourth figure. DiLoCo (plan ``sync_interval`` > 1) adds its outer state to the optimizer's
    (``memory__outer_state``)."""
    c, zero, dpc, dense, expert = p.c, p.zero, p.dpc, sp.dense, sp.expert
    z_w = np.where(zero == 3, dpc, 1)
    z_g = np.where(zero >= 2, dpc, 1)
    z_o = np.where((zero >= 1) | (c["zmode"] == 1), dpc, 1)
    weights = G.memory__weights(p.b_w, p.exp_dp, dense, expert, z_w)
    grads = G.memory__gradients(p.b_g, p.exp_dp, dense, expert, z_g)
    optim = G.memory__optimizer(p.b_o, p.exp_dp, dense, expert, z_o)
    diloco = c["sync"] > 1  # DiLoCo's outer state: global parameters and Nesterov momentum, fp32
    if diloco.any():
        optim = np.where(diloco, optim + G.memory__outer_state(dense, expert), optim)
    off = c["offload"] > 0  # the offload tier holds the gradients and optimizer state instead
    params = offload_params(c["offload"])  # and with '+params' the parameter shards (ZeRO-3)
    host = np.where(off, optim + grads, 0.0) + np.where(params, weights, 0.0)
    if off.any():
        optim = np.where(off, 0.0, optim)
        grads = np.where(off, 0.0, grads)
        weights = np.where(params, 0.0, weights)
    return weights, grads, optim, host


def activations(spec: ModelSpec, p: Plans, sp: StageParams, k1: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Activation bytes of the first stage (``memory__activations``: ``n_dense0`` / ``n_moe0``
    layers) for its in-flight micro-batches (:func:`inflight`); per layer the ``act__*`` entries of
    the training formulas (Korthikanti 2022 Table 2 generalized); full recomputation stores layer
    inputs plus one layer's full activations while it is recomputed."""
    act = _layer_act(spec, p, k1)
    a_dense = np.zeros(p.m.shape)
    a_moe = np.zeros(p.m.shape)
    working = np.zeros(p.m.shape)
    for r, name in enumerate(RECOMPUTE):
        sel = p.c["rc"] == r
        if not sel.any():
            continue
        if name == "selective":
            d, e = _with_modules(spec, p, k1, act)
        else:
            d, e = act({"full": "full", "op": "op"}.get(name, "attn"))
        a_dense, a_moe = np.where(sel, d, a_dense), np.where(sel, e, a_moe)
        if name == "full":  # one layer's full activations live while it is recomputed
            d, e = act("attn")
            working = np.where(
                sel, np.maximum(np.where(sp.n_dense0 > 0, d, 0.0), np.where(sp.n_moe0 > 0, e, 0.0)), working
            )
    return G.memory__activations(a_dense, a_moe, working, inflight(p), sp.n_dense0, sp.n_moe0)


def _with_modules(
    spec: ModelSpec,
    p: Plans,
    k1: tuple[np.ndarray, np.ndarray],
    act: Callable[[str], tuple[np.ndarray, np.ndarray]],
) -> tuple[np.ndarray, np.ndarray]:
    """Per plan row, a (dense-FFN, MoE-FFN) layer's activation bytes under selective recomputation of
    the modules ``rcm`` names (:mod:`llmcost.training.recompute`): the attention that runs, or without
    it with ``core_attn``, less what the other modules stop storing (``act__modules``)."""
    rcm = p.c["rcm"]
    attn = (rcm & MODULE_BITS["core_attn"]) > 0
    d0, e0 = (np.where(attn, x, y) for x, y in zip(act("selective"), act("attn"), strict=True))
    if not (rcm & ~MODULE_BITS["core_attn"]).any():
        return d0, e0
    removed = _removed_by_modules(spec, p, k1)
    return d0 - removed[0], e0 - removed[1]


def _removed_by_modules(
    spec: ModelSpec, p: Plans, k1: tuple[np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Per plan row, the bytes a (dense-FFN, MoE-FFN) layer stops storing under the recompute modules
    of its ``rcm`` (``act__modules``; which module acts on which layer: :data:`MODULE_OPS`)."""
    f1, inv1 = k1
    rcm = p.c["rcm"][f1]
    on = {m: ((rcm & b) > 0).astype(float) for m, b in MODULE_BITS.items()}
    mla = 1.0 if spec.mla is not None else 0.0
    dense_ffn, moe_ffn = _ffn_widths(spec)
    moe = spec.moe
    shared = float(moe.num_shared_experts * moe.shared_intermediate_size) if moe is not None else 0.0
    routed = moe_ffn - shared
    args = dict(_act_args(spec, p, f1), r_up=on["mla_up_proj"] * mla)
    fn, names, _ = G.FUNCTIONS["act__modules"]
    ln = on["layernorm"]
    dense = dict(args, r_h=ln * mla + on["mlp"], f_rc=on["mlp"] * dense_ffn, f_act_rc=0.0)
    block = np.maximum(on["moe"] * moe_ffn, on["shared_experts"] * shared)
    moe_l = dict(args, r_h=ln * (mla + 1.0), f_rc=block, f_act_rc=on["moe_act"] * (1 - on["moe"]) * routed)
    return tuple(fn(*(np.broadcast_to(a[k], f1.shape) for k in names))[inv1] for a in (dense, moe_l))  # type: ignore[return-value]


def offloaded_activations(p: Plans, sp: StageParams, acts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(device, host) activation bytes where the plan offloads them: ``N`` of the first stage's ``L``
    layers' on the host, the device keeping ``L − N`` and one more in flight (Transformer Engine's
    double-buffered offload handler). ``N`` is plan ``offload_layers`` (Megatron-Core, pp 1), or with
    ``offload_activations`` all but one, so two layers' worth of each in-flight micro-batch stay (the
    one being written or read and the next); unchanged elsewhere."""
    layers = np.maximum(sp.n_dense0 + sp.n_moe0, 1).astype(float)
    n_off = np.where(p.c["aoff"] == 1, layers - 1.0, p.c["aofl"].astype(float))
    if not (n_off > 0).any():
        return acts, np.zeros(p.n)
    keep = np.where(n_off > 0, layers - n_off + 1.0, layers)
    device = acts * np.minimum(1.0, keep / layers)
    return device, acts - device


def inflight(p: Plans, stage: str = "inflight") -> np.ndarray:
    """Micro-batches whose activations the first stage holds at the peak: ``inflight__<schedule>``
    (1F1B and ZB-H1 ``min(m, p)``, interleaved ``× (1 + (p−1)/(p·v))``, GPipe all ``m``); with
    ``stage`` ``inflight_last`` the last stage's (``inflight_last__<schedule>``)."""
    pp, v = (p.c[k].astype(float) for k in ("pp", "v"))
    out = np.zeros(p.m.shape)
    for si, name in enumerate(SCHEDULES):
        sel = p.c["sched"] == si
        if not sel.any():
            continue
        a = {"n_micro": p.m[sel], "pp": pp[sel], "v_stages": v[sel]}
        fn, names, _ = G.FUNCTIONS[f"{stage}__{name}"]
        out[sel] = fn(*(a[k] for k in names))
    return out


def _ffn_widths(spec: ModelSpec) -> tuple[float, float]:
    """FFN width whose activations one token stores: (dense layer, MoE layer: k·d_e + shared)."""
    moe = spec.moe
    dense_ffn = float(spec.intermediate_size)
    if moe is None:
        return dense_ffn, dense_ffn
    return dense_ffn, float(
        moe.top_k * moe.expert_intermediate_size + moe.num_shared_experts * moe.shared_intermediate_size
    )


_EIGHT_BIT = np.array([p in QUANTIZED for p in PRECISIONS])
"""Per precision index: whether its GEMM inputs are 8 bits or fewer (fp4 priced at 8: an upper bound)."""


def _fp8_saved(c: dict[str, np.ndarray]) -> np.ndarray:
    """Per plan row, 1 where the linear layers' inputs are kept for the backward in 8 bits: an fp8 /
    fp4 plan under Transformer Engine (``act__flash``'s ``fp8_saved``), 0 in 16-bit training or with
    ``fp8_hp_inputs`` (torchao's float8 keeps the high-precision input)."""
    return (_EIGHT_BIT[c["prec"]] & (c["f8h"] == 0)).astype(float)


def _act_args(spec: ModelSpec, p: Plans, f1: np.ndarray) -> dict[str, Any]:
    """The ``act__*`` formulas' inputs of rows ``f1`` (one per operator configuration)."""
    c = p.c
    tp, cp, mb = (c[k][f1].astype(float) for k in ("tp", "cp", "mb"))
    return {
        "b_a": p.b_a[f1],
        "cp": cp,
        "kv_dim": spec.kv_dim,
        "d_model": spec.hidden_size,
        "q_dim": spec.q_dim,
        "drop_a": 1.0 if attention_dropout(spec) else 0.0,
        "drop_h": 1.0 if hidden_dropout(spec) else 0.0,
        "micro_batch": mb,
        "n_q": spec.num_heads,
        "phi_a": 6.0 if spec.gated_mlp else 4.0,
        "seq": p.seq,
        "tp": tp,
        "tp_sp": np.where(c["sp"][f1] == 1, tp, 1.0),
        "fp8_saved": _fp8_saved(c)[f1],
    }


def _layer_act(
    spec: ModelSpec, p: Plans, k1: tuple[np.ndarray, np.ndarray]
) -> Callable[[str], tuple[np.ndarray, np.ndarray]]:
    """Per plan row, the activation bytes of one (dense-FFN, MoE-FFN) layer under a policy
    ('attn': the attention that runs, FlashAttention or materialized scores; 'selective'; 'full': the
    layer input, split over the TP ranks by sequence parallelism or ``distribute_saved_activations``),
    evaluated once per operator configuration ``k1``."""
    c = p.c
    tp = c["tp"].astype(float)
    f1, inv1 = k1
    args = _act_args(spec, p, f1)
    split = np.where((c["sp"][f1] == 1) | (c["dsa"][f1] == 1), tp[f1], 1.0)  # stored inputs over the TP ranks

    def one(policy: str, ffn: float) -> np.ndarray:
        fn, names, _ = G.FUNCTIONS[f"act__{policy}"]  # policy in ACT_POLICIES
        a = dict(args, d_ff_act=ffn, **({"tp_sp": split} if policy == "full" else {}))
        return fn(*(a[k] for k in names))[inv1]

    flash = c["flash"] == 1
    widths = _ffn_widths(spec)

    def act(policy: str) -> tuple[np.ndarray, np.ndarray]:
        if policy == "attn":  # the attention that runs: FlashAttention or materialized scores
            d, e = (np.where(flash, one("flash", w), one("materialized", w)) for w in widths)
            return d, e
        d, e = (one(policy, w) for w in widths)
        return d, e

    return act
