"""Training memory per device: model state (weights, gradients, optimizer) and activations.

The closed forms are :func:`llmcost.training.formulas.model_state_bytes` and the
``act__*`` entries (Korthikanti et al. 2022 §4 Table 2 generalized; ZeRO §5; Megatron
distributed optimizer); this module computes their inputs: parameters per device for the
busiest pipeline stage ([MEG-mem] ``compute_weight_and_optimizer_memory``: layer parameters
/ (t·p), experts / (e·t), the embedding on the first stage and the output layer on the last),
the in-flight micro-batches of the schedule and the output-layer logits.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from llmcost.errors import PlanError
from llmcost.hardware import Hardware
from llmcost.model.spec import ModelSpec
from llmcost.training import _generated as G


@dataclass(frozen=True)
class DeviceParams:
    """Parameters on the busiest device: ``dense`` (TP-sharded or replicated) and ``expert``."""

    dense: float
    expert: float

    @property
    def total(self) -> float:
        return self.dense + self.expert


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


def params_per_device(
    spec: ModelSpec, stage_layers: list[list[int]], tp: int, ep: int, pp: int
) -> DeviceParams:
    """Parameters held by one device of the busiest stage (max over stages of dense + expert):
    layer parameters / t, experts / (e·t), the embedding on the first stage and the output layer
    on the last ([MEG-mem] ``compute_weight_and_optimizer_memory``)."""
    from llmcost.training.plan import model_layers

    layers = model_layers(spec)
    emb = spec.vocab_size * spec.d_embed + spec.learned_positions * spec.hidden_size
    head = spec.vocab_size * spec.d_embed
    best = DeviceParams(0.0, 0.0)
    for s, idxs in enumerate(stage_layers):
        dense = exp = 0.0
        for idx in idxs:
            d, e = _layer_params(spec, *layers[idx])
            dense += d / tp
            exp += e / (ep * tp)
        if s == 0:
            dense += emb / tp
        if s == pp - 1 and (not spec.tie_word_embeddings or pp > 1):
            dense += head / tp  # untied head, or the tied copy Megatron keeps on the last stage
        if dense + exp > best.total:
            best = DeviceParams(dense, exp)
    return best


def memory(
    spec: ModelSpec,
    c: dict[str, np.ndarray],
    k1: tuple[np.ndarray, np.ndarray],
    dense: np.ndarray,
    expert: np.ndarray,
    b_w: np.ndarray,
    b_g: np.ndarray,
    b_o: np.ndarray,
    b_a: np.ndarray,
    zero: np.ndarray,
    dpc: np.ndarray,
    exp_dp: np.ndarray,
    m: np.ndarray,
    n_dense0: np.ndarray,
    n_moe0: np.ndarray,
    seq: int,
) -> dict[str, np.ndarray]:
    """Bytes per device by component (weights, gradients, optimizer, activations, logits, buffers)
    for plan columns ``c`` (:data:`llmcost.training.step.COLS`); per-layer activations once per
    operator configuration ``k1`` (first rows, inverse).

    * model state: ZeRO-1/2/3 and the distributed optimizer shard the optimizer state, ZeRO-2/3
      the gradients, ZeRO-3 the weights over the ``d·c`` data x context ranks, experts over their
      expert-data-parallel ranks (Rajbhandari 2020 §5; [MEG-distopt]); with host offload the fp32
      master weights and Adam state live on the host (ZeRO-Offload §4).
    * activations of the first stage (``n_dense0`` / ``n_moe0`` layers) for its in-flight
      micro-batches: 1F1B and ZB-H1 ``min(m, p)`` (Narayanan 2021 §2.2.1; Qi et al. 2024 §2.1),
      interleaved ``× (1 + (p−1)/(p·v))`` ([MEG-mem]), GPipe all ``m`` (Huang et al. 2019); per
      layer the ``act__*`` entries of training_formulas (Korthikanti 2022 Table 2 generalized);
      full recomputation stores layer inputs plus one layer's full activations while it is
      recomputed.
    * logits: fp32 logits of one micro-batch over ``V/t`` on the last stage ([MEG-mem]).
    * buffers: ZeRO-3 / FSDP keep two gathered layers in flight (current + prefetch)."""
    from llmcost.training.plan import RECOMPUTE, SCHEDULES, attention_dropout, hidden_dropout

    tp, cp, mb, pp, v = (c[k].astype(float) for k in ("tp", "cp", "mb", "pp", "v"))
    z3 = zero == 3
    z_w = np.where(z3, dpc, 1)
    z_g = np.where(zero >= 2, dpc, 1)
    z_o = np.where((zero >= 1) | (c["zmode"] == 1), dpc, 1)
    e_dp = np.maximum(1, exp_dp)
    ez_w, ez_g, ez_o = (np.minimum(z, e_dp) for z in (z_w, z_g, z_o))
    weights = dense * b_w / z_w + expert * b_w / ez_w
    grads = dense * b_g / z_g + expert * b_g / ez_g
    optim = dense * b_o / z_o + expert * b_o / ez_o
    if c["offload"].any():
        optim = np.where(c["offload"] == 0, optim, 0.0)
    drop_a, drop_h = attention_dropout(spec), hidden_dropout(spec)
    moe = spec.moe
    dense_ffn = float(spec.intermediate_size)
    moe_ffn = dense_ffn
    if moe is not None:
        moe_ffn = float(
            moe.top_k * moe.expert_intermediate_size + moe.num_shared_experts * moe.shared_intermediate_size
        )
    f1, inv1 = k1
    cp1, mb1, tp1, ba1 = cp[f1], mb[f1], tp[f1], b_a[f1]
    tsp1 = np.where(c["sp"][f1] == 1, tp1, 1.0)

    def act(policy: str, ffn: float) -> np.ndarray:
        fn, names, _ = G.FUNCTIONS[f"act__{policy}"]
        args = {
            "cp": cp1,
            "d_ff_act": ffn,
            "kv_dim": spec.kv_dim,
            "d_model": spec.hidden_size,
            "q_dim": spec.q_dim,
            "drop_a": 1.0 if drop_a else 0.0,
            "drop_h": 1.0 if drop_h else 0.0,
            "micro_batch": mb1,
            "n_q": spec.num_heads,
            "phi_a": 6.0 if spec.gated_mlp else 4.0,
            "seq": seq,
            "tp": tp1,
            "tp_sp": tsp1,
        }
        return (fn(*(args[k] for k in names)) * ba1 / 2.0)[inv1]

    rc = c["rc"]
    flash = c["flash"] == 1

    def per_layer(policy: str) -> tuple[np.ndarray, np.ndarray]:  # (dense-FFN layer, MoE-FFN layer)
        if policy == "attn":  # the attention that runs: FlashAttention or materialized scores
            return (
                np.where(flash, act("flash", dense_ffn), act("materialized", dense_ffn)),
                np.where(flash, act("flash", moe_ffn), act("materialized", moe_ffn)),
            )
        return act(policy, dense_ffn), act(policy, moe_ffn)

    stored = np.zeros(m.shape)
    working = np.zeros(m.shape)
    for r, name in enumerate(RECOMPUTE):
        sel = rc == r
        if not sel.any():
            continue
        d, e = per_layer({"full": "full", "selective": "selective"}.get(name, "attn"))
        stored = np.where(sel, n_dense0 * d + n_moe0 * e, stored)
        if name == "full":  # one layer's full activations live while it is recomputed
            d, e = per_layer("attn")
            working = np.where(
                sel, np.maximum(np.where(n_dense0 > 0, d, 0.0), np.where(n_moe0 > 0, e, 0.0)), working
            )
    sched = c["sched"]
    base = np.minimum(m, pp)
    inflight = np.where(
        sched == SCHEDULES.index("gpipe"),
        m.astype(float),
        np.where(sched == SCHEDULES.index("interleaved"), base * (1 + (pp - 1) / (pp * v)), base),
    )
    acts = stored * inflight + working
    logits = 4.0 * seq / cp * mb * spec.vocab_size / tp
    buffers = np.where(z3, 2 * (dense + expert) / max(1, n_layers(spec)) * b_w, 0.0)
    return {
        "weights": weights,
        "gradients": grads,
        "optimizer": optim,
        "activations": acts,
        "logits": logits,
        "buffers": buffers,
    }


def n_layers(spec: ModelSpec) -> int:
    return spec.num_layers + spec.num_encoder_layers


def offload_time(
    hw: Hardware, offload: np.ndarray, gpn: np.ndarray, psi_opt: np.ndarray, b_w: np.ndarray, b_g: np.ndarray
) -> np.ndarray:
    """Exposed host offload per step (ZeRO-Offload, Ren et al. 2021 §4; no delayed update) for
    plans whose ``offload`` index (:data:`llmcost.training.plan.OFFLOAD`) is not 'none' (0
    elsewhere): gradients down and parameters up over the host link, ``(b_g + b_w)·Ψ/W_link``,
    plus the CPU Adam pass ``28·Ψ·n_node/(η_m·W_host)`` over the node's host memory shared by its
    devices (ZeRO-Offload, Ren et al. 2021 §4). NVMe (ZeRO-Infinity) adds the optimizer state read and write at the
    NVMe bandwidth of ``host_memory.nvme_bandwidth``."""
    from llmcost.units import parse

    host = hw.raw.get("host_memory") or {}
    if not host.get("link_bandwidth") or not host.get("bandwidth"):
        raise PlanError(
            f"{hw.id} has no host_memory link_bandwidth / bandwidth in the catalog; offload needs them"
        )
    link = parse(host["link_bandwidth"], "bandwidth", what=f"{hw.id} host_memory.link_bandwidth")
    hbw = parse(host["bandwidth"], "bandwidth", what=f"{hw.id} host_memory.bandwidth")
    node = np.maximum(1, np.minimum(gpn, hw.node_devices or 1))
    t = psi_opt * (b_g + b_w) / link + 28.0 * psi_opt * node / (hw.memory_efficiency * hbw)
    nvme = offload == 2
    if nvme.any():
        nv = host.get("nvme_bandwidth")
        if not nv:
            raise PlanError(
                f"{hw.id} has no host_memory.nvme_bandwidth in the catalog; NVMe offload needs it"
            )
        t = t + np.where(
            nvme,
            2 * 12.0 * psi_opt * node / parse(nv, "bandwidth", what=f"{hw.id} host_memory.nvme_bandwidth"),
            0.0,
        )
    return np.where(offload > 0, t, 0.0)
