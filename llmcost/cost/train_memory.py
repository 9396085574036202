"""Training memory per device: model state (weights, gradients, optimizer) and activations.

The closed forms are :func:`llmcost.cost.training_formulas.model_state_bytes` and the
``act__*`` entries (Korthikanti et al. 2022 §4 Table 2 generalized; ZeRO §5; Megatron
distributed optimizer); this module computes their inputs: parameters per device for the
busiest pipeline stage ([MEG-mem] ``compute_weight_and_optimizer_memory``: layer parameters
/ (t·p), experts / (e·t), the embedding on the first stage and the output layer on the last),
the in-flight micro-batches of the schedule and the output-layer logits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from llmcost.cost import _training_generated as G
from llmcost.errors import PlanError
from llmcost.hardware import Hardware
from llmcost.modelspec import ModelSpec

if TYPE_CHECKING:
    from llmcost.cost.training import Layout


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
    from llmcost import params as P

    dense = P.attention_params(spec) + P.norm_params(spec) * (spec.norms_per_layer if stack == "dec" else 2)
    if stack == "dec" and spec.is_encoder_decoder:
        dense += P.cross_attention_params(spec) + P.norm_params(spec)
    is_moe = (i in spec.moe_layers) if stack == "dec" else (i in spec.encoder_moe_layers)
    if is_moe and spec.moe is not None:
        dense += P.router_params(spec) + P.shared_expert_params(spec)
        return float(dense), float(spec.moe.num_experts * P.expert_params(spec))
    return float(dense + P.mlp_params(spec, spec.intermediate_size)), 0.0


def params_per_device(spec: ModelSpec, lay: Layout) -> DeviceParams:
    """Parameters held by one device of the busiest stage (max over stages of dense + expert)."""
    layers = [("enc", i) for i in range(spec.num_encoder_layers)] + [("dec", i) for i in range(spec.num_layers)]
    emb = spec.vocab_size * spec.d_embed + spec.learned_positions * spec.hidden_size
    head = spec.vocab_size * spec.d_embed
    best = DeviceParams(0.0, 0.0)
    for s, idxs in enumerate(lay.stage_layers):
        dense = exp = 0.0
        for idx in idxs:
            d, e = _layer_params(spec, *layers[idx])
            dense += d / lay.tp
            exp += e / (lay.ep * lay.tp)
        if s == 0:
            dense += emb / lay.tp
        if s == lay.pp - 1 and (not spec.tie_word_embeddings or lay.pp > 1):
            dense += head / lay.tp  # untied head, or the tied copy Megatron keeps on the last stage
        if dense + exp > best.total:
            best = DeviceParams(dense, exp)
    return best


def inflight(lay: Layout) -> float:
    """Micro-batches whose activations the first stage holds at its peak.

    1F1B and ZB-H1: ``min(m, p)`` (Narayanan 2021 §2.2.1; Qi et al. 2024 §2.1); interleaved:
    ``× (1 + (p−1)/(p·v))`` ([MEG-mem]); GPipe: all ``m`` (formulas.md §3.5 "Pipeline schedules").
    """
    p, m, v = lay.pp, lay.m, lay.v
    if lay.plan.schedule == "gpipe":
        return float(m)
    base = float(min(m, p))
    if lay.plan.schedule == "interleaved":
        return base * (1 + (p - 1) / (p * v))
    return base


def act_layer(spec: ModelSpec, lay: Layout, b_a: float, dropout: bool, policy: str, ffn: float) -> float:
    """Activation bytes of one layer for one micro-batch (``act__*`` of training_formulas)."""
    fn = getattr(G, f"act__{policy}")
    args = {
        "cp": lay.cp, "d_ff_act": ffn, "kv_dim": spec.kv_dim, "d_model": spec.hidden_size, "q_dim": spec.q_dim,
        "dropout": 1.0 if dropout else 0.0, "micro_batch": lay.plan.micro_batch, "n_q": spec.num_heads,
        "phi_a": 6.0 if spec.gated_mlp else 4.0, "seq": lay.seq, "tp": lay.tp, "tp_sp": lay.tp if lay.sp else 1,
    }
    names = fn.__code__.co_varnames[: fn.__code__.co_argcount]
    return float(fn(*(args[n] for n in names))) * b_a / 2.0


def memory(spec: ModelSpec, lay: Layout, pd: DeviceParams, b_w: float, b_g: float, b_o: float, b_a: float,
           dropout: bool) -> dict[str, float]:
    """Bytes per device by component: weights, gradients, optimizer, activations, logits, buffers."""
    plan = lay.plan
    dpc = lay.dp * lay.cp
    z3 = plan.zero == 3
    z_w = dpc if z3 else 1
    z_g = dpc if plan.zero >= 2 else 1
    z_o = dpc if (plan.zero >= 1 or plan.distributed_optimizer) else 1
    exp_dp = max(1, dpc // lay.ep)
    ez_w, ez_g, ez_o = (min(z, exp_dp) for z in (z_w, z_g, z_o))
    weights = pd.dense * b_w / z_w + pd.expert * b_w / ez_w
    grads = pd.dense * b_g / z_g + pd.expert * b_g / ez_g
    optim = pd.dense * b_o / z_o + pd.expert * b_o / ez_o
    if plan.offload != "none":
        optim = 0.0  # fp32 master weights and Adam state live on the host (ZeRO-Offload §4)
    # activations of the busiest (first) stage
    moe = spec.moe
    dense_ffn = float(spec.intermediate_size)
    moe_ffn = dense_ffn
    if moe is not None:
        moe_ffn = float(moe.top_k * moe.expert_intermediate_size
                        + moe.num_shared_experts * moe.shared_intermediate_size)
    layers = [("enc", i) for i in range(spec.num_encoder_layers)] + [("dec", i) for i in range(spec.num_layers)]

    def ffn_of(idx: int) -> float:
        stack, i = layers[idx]
        is_moe = (i in spec.moe_layers) if stack == "dec" else (i in spec.encoder_moe_layers)
        return moe_ffn if is_moe else dense_ffn

    if plan.recompute == "full":
        stored = sum(act_layer(spec, lay, b_a, dropout, "full", ffn_of(i)) for i in lay.stage_layers[0])
        working = max(act_layer(spec, lay, b_a, dropout, "flash" if lay.flash else "materialized", ffn_of(i))
                      for i in lay.stage_layers[0])
    else:
        pol = "selective" if plan.recompute == "selective" else ("flash" if lay.flash else "materialized")
        stored = sum(act_layer(spec, lay, b_a, dropout, pol, ffn_of(i)) for i in lay.stage_layers[0])
        working = 0.0
    acts = stored * inflight(lay) + working
    # output layer on the last stage: fp32 logits of one micro-batch over V/t ([MEG-mem])
    logits = 4.0 * lay.seq / lay.cp * plan.micro_batch * spec.vocab_size / lay.tp
    buffers = 0.0
    if z3:  # two gathered layers in flight (current + prefetch), ZeRO-3 / FSDP
        buffers = 2 * pd.total / max(1, n_layers(spec)) * b_w
    return {"weights": weights, "gradients": grads, "optimizer": optim, "activations": acts,
            "logits": logits, "buffers": buffers}


def n_layers(spec: ModelSpec) -> int:
    return spec.num_layers + spec.num_encoder_layers


def offload_time(hw: Hardware, lay: Layout, psi_opt: float, b_w: float, b_g: float) -> float:
    """Exposed host offload per step (ZeRO-Offload, Ren et al. 2021 §4; no delayed update):
    gradients down and parameters up over the host link, ``(b_g + b_w)·Ψ/W_link``, plus the CPU
    Adam pass ``28·Ψ·n_node/(η_m·W_host)`` over the node's host memory shared by its devices
    (formulas.md §3.9). NVMe (ZeRO-Infinity) adds the optimizer state read and write at the
    NVMe bandwidth of ``host_memory.nvme_bandwidth``."""
    from llmcost.units import parse

    host = hw.raw.get("host_memory") or {}
    if not host.get("link_bandwidth") or not host.get("bandwidth"):
        raise PlanError(f"{hw.id} has no host_memory link_bandwidth / bandwidth in the catalog; offload needs them")
    link = parse(host["link_bandwidth"], "bandwidth", what=f"{hw.id} host_memory.link_bandwidth")
    hbw = parse(host["bandwidth"], "bandwidth", what=f"{hw.id} host_memory.bandwidth")
    node = max(1, min(lay.gpn, hw.node_devices or 1))
    t = psi_opt * (b_g + b_w) / link + 28.0 * psi_opt * node / (hw.memory_efficiency * hbw)
    if lay.plan.offload == "nvme":
        nv = host.get("nvme_bandwidth")
        if not nv:
            raise PlanError(f"{hw.id} has no host_memory.nvme_bandwidth in the catalog; NVMe offload needs it")
        t += 2 * 12.0 * psi_opt * node / parse(nv, "bandwidth", what=f"{hw.id} host_memory.nvme_bandwidth")
    return float(t)
