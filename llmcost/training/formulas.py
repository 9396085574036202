"""Training cost formulas as sympy expressions: the source of truth for :mod:`.training`.

Each entry of :data:`FORMULAS` is one quantity (per device unless stated) with its source in
the docstring of the function that builds it. Categorical plan choices (recompute policy,
pipeline schedule, ZeRO stage) select among named entries; numeric choices enter as symbols.
``python -m llmcost.training.formulas`` prints them into ``_generated.py``
(numpy only, no sympy at run time); ``tests/test_training.py`` pins it.

Per-operator compute times (forward, backward, recompute of one micro-batch on one pipeline
stage) come from the operator graph (:mod:`llmcost.graph.ops`) through the roofline and enter
here as the symbols ``t_fwd``, ``t_bwd``, ``t_rc``; collective times come from
:mod:`llmcost.collectives.cost` as ``t_*`` symbols. Conventions (where the sources disagree):

* model FLOPs count matmuls only (GEMMs, attention QK^T and PV, the logit GEMM), **without**
  recomputation and, for causal attention, the (query, key) pairs the mask keeps (s²/2:
  Megatron-LM ``num_floating_point_operations`` since Megatron-Core 0.12, commit 8873b55 of
  2025-03, "only half of the attention matrix is non-zero"; MaxText since July 2025), never more
  than a kernel executes, so MFU and HFU stay at most 1. PaLM App. B (``12·L·H·Q·T``), Narayanan
  2021 §5.1, Korthikanti 2022 and Megatron-LM before 2025 count the **full s²**: that figure is
  kept beside (``*_full_attention``, :mod:`llmcost.training.compute`) and ``llmcost validate``
  compares a case in its source's convention.
* hardware FLOPs add what recomputation executes again (HFU, PaLM App. B; Korthikanti §6).
* peaks are dense peaks at the training precision (never 2:4 sparse).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import sympy as sp

from llmcost.graph.ops import S as _graph_sym
from llmcost.symbolic.compile import arguments, generated_header, write_generated
from llmcost.symbolic.symbols import define, sym

# --- symbols (Megatron-LM notation: Narayanan 2021, Korthikanti 2022) -------------------------------
_graph_sym("q_dim")  # graph symbols reused: q_dim, kv_dim, b_w (llmcost.graph.ops._define)
define(
    "d_ff_act",
    "1",
    "FFN width whose activations one token stores (dense f; MoE k·d_e + shared)",
    latex=r"f_{act}",
)
define(
    "phi_a",
    "1",
    "bytes/2 of FFN activations per FFN unit: 4 non-gated (fc1 out + act out), 6 gated",
    latex=r"\phi_a",
)
define("n_el", "1", "activation elements an elementwise operator reads per tensor pass", latex=r"n_{el}")
define(
    "s_blk", "B", "full activation of one TP block, the bytes its all-reduce moves per rank", latex=r"S_{blk}"
)
define("n_w", "1", "matmul weight elements one device casts per forward under autocast", latex=r"n_w")
define("assign", "1", "token-expert assignments one device computes per micro-batch (A)", latex="A")
define("t_loc", "1", "tokens one device routes into a MoE layer per micro-batch", latex=r"T_{loc}")
define(
    "s_x",
    "1",
    "1 when received tokens are sorted by local expert (ep > 1, several local experts)",
    latex="s_x",
)
define("r_q", "1", "reads of the 16-bit tensor an fp8 quantization makes (0 fused, 1, 2)", latex="r_q")
define(
    "copies", "1", "fp8 copies a quantization writes (row- and column-wise: 2 on Hopper)", latex=r"n_{copy}"
)
define(
    "bias_a",
    "1",
    "1 when an unfused activation adds the up projections' bias in its own kernel, else 0",
    latex=r"\beta_a",
)
define("k_x", "1", "extra kernels an unfused elementwise chain launches in the forward", latex="k_x")
define("w_bytes", "B", "bytes of an operator's weights among its HBM bytes", latex=r"\mathrm{bytes}_w")
define(
    "drop_h",
    "1",
    "1 when the model trains with hidden (residual-branch) dropout, else 0 (ModelSpec.hidden_dropout)",
    latex=r"\delta_h",
)
define(
    "drop_a",
    "1",
    "1 when the model trains with attention-probability dropout, else 0 (ModelSpec.attention_dropout)",
    latex=r"\delta_a",
)
define(
    "r_sm",
    "1",
    "share of the scores a materialized attention's softmax reads: 1/2 for causal self-attention "
    "(Megatron's fused upper-triangular kernel reads the kept triangle), else 1",
    latex=r"r_{sm}",
)
define(
    "tp_sp",
    "1",
    "degree that shards the non-TP regions: t with sequence parallelism, 1 without",
    latex="t_{sp}",
)
define("n_micro", "1", "micro-batches per step per pipeline (m)", latex="m", integer=True)
define("v_stages", "1", "virtual pipeline stages (model chunks) per device (v)", latex="v", integer=True)
define("layers_stage", "1", "transformer layers held by the busiest pipeline stage", latex="L_s")
define(
    "r_bub",
    "1",
    "per-micro-batch time of the average other pipeline stage over the busiest stage's (<= 1)",
    latex=r"r_{bub}",
)
define("psi", "1", "parameters held by one device before data-parallel sharding (Ψ)", latex=r"\Psi")
define(
    "psi_e",
    "1",
    "expert parameters held by one device before expert-data-parallel sharding (Ψ_e)",
    latex=r"\Psi_e",
)
define("d_edp", "1", "expert-data-parallel ranks: data x context ranks over ep (d·c/e)", latex="d_e")
define("b_g", "B", "bytes per gradient element", latex="b_g")
define(
    "b_o",
    "B",
    "bytes per parameter of optimizer state (fp32 master + Adam m, v [+ fp32 grad copy])",
    latex="b_o",
)
define("z_w", "1", "data-parallel shards of the weights (d with ZeRO-3, else 1)", latex="z_w")
define("z_g", "1", "data-parallel shards of the gradients (d with ZeRO-2/3, else 1)", latex="z_g")
define(
    "z_o",
    "1",
    "data-parallel shards of the optimizer state (d with ZeRO-1+/distributed optimizer)",
    latex="z_o",
)
define("layers_dense", "1", "dense-FFN layers of the first pipeline stage", latex="L_d")
define("layers_moe", "1", "MoE-FFN layers of the first pipeline stage", latex="L_e")
define(
    "fp8_saved",
    "1",
    "1 where each linear layer's input is kept for the backward in 8 bits (fp8 / fp4 under Transformer Engine), else 0",
    latex=r"\delta_8",
)
define(
    "r_h",
    "1",
    "hidden-width linear inputs a layer's recomputed modules stop storing (discarded norm outputs, a checkpointed MLP's FC1 input)",
    latex=r"r_h",
)
define(
    "r_up",
    "1",
    "1 where MLA's up-projected query, key and value are recomputed (mla_up_proj), else 0",
    latex=r"r_{up}",
)
define(
    "f_rc",
    "1",
    "FFN width whose block activations are recomputed (a checkpointed MLP, MoE block or shared experts)",
    latex=r"f_{rc}",
)
define(
    "f_act_rc", "1", "FFN width whose activation output alone is recomputed (moe_act)", latex=r"f_{act,rc}"
)
define("act_dense", "B", "activation bytes one dense-FFN layer stores for one micro-batch", latex="A_d")
define("act_moe", "B", "activation bytes one MoE-FFN layer stores for one micro-batch", latex="A_e")
define(
    "act_work",
    "B",
    "activation bytes live while a layer is recomputed (full recomputation; else 0)",
    latex="A_{rc}",
)
define("inflight", "1", "micro-batches whose activations one device holds at the peak", latex="n_{if}")
define(
    "inflight_last",
    "1",
    "micro-batches (in first-stage layer units) whose activations the last pipeline stage holds at its peak",
    latex=r"n_{if,L}",
)
define(
    "act_first", "B", "activations of the first pipeline stage at its peak (memory__activations)", latex="A_1"
)
define(
    "logits",
    "B",
    "logits of one micro-batch on the last stage at the loss's peak (memory__logits)",
    latex=r"M_{lg}",
)
define(
    "t_fwd",
    "s",
    "forward time of one micro-batch on one device (all its layers), roofline per operator",
    latex="t_f",
)
define("t_bwd", "s", "backward time of one micro-batch on one device", latex="t_b")
define("t_rc", "s", "recomputation time of one micro-batch on one device", latex="t_{rc}")
define(
    "t_comm_mb", "s", "exposed TP / CP / EP communication of one micro-batch on one device", latex=r"t_{comm}"
)
define("t_p2p", "s", "one pipeline send/recv of one micro-batch's boundary activations", latex=r"t_{p2p}")
define(
    "t_p2p_part",
    "s",
    "one pipeline send/recv of one micro-batch's boundary activations split over the TP ranks",
    latex=r"t_{p2p}^{tp}",
)
define(
    "t_pp_ag",
    "s",
    "TP all-gather rebuilding one micro-batch's boundary activation (DeepSpeed's PipelineEngine)",
    latex=r"t_{ag}^{pp}",
)
define(
    "s_comm",
    "1",
    "share of the SMs an overlapped NCCL collective holds (its thread blocks / SMs)",
    latex="s_c",
)
define(
    "m_comm",
    "s",
    "HBM time of an overlapped collective on one device: the bytes it reads and writes there over η_m·W_hbm (0 when the plan counts no HBM contention)",
    latex=r"m_{x}",
)
define(
    "m_comp",
    "s",
    "HBM time of the compute a collective overlaps: its operators' HBM bytes over η_m·W_hbm (0 when the plan counts no HBM contention)",
    latex=r"m_{c}",
)
define(
    "coll_bytes",
    "B",
    "bytes of a collective's buffer on one device (a reduce-scatter's or all-reduce's input, an all-gather's output)",
    latex="N",
)
define("ranks", "1", "ranks of a collective's group", latex="n")
define(
    "t_gemm",
    "s",
    "time of the GEMM whose output a TP collective reduces (forward: the row-parallel GEMM; backward: the column-parallel data-gradient GEMM)",
    latex=r"t_{g}",
)
define("m_gemm", "s", "HBM time of that GEMM: its bytes over η_m·W_hbm (0 when not counted)", latex=r"m_{g}")
define(
    "t_coll",
    "s",
    "the TP collective(s) after that GEMM, alone: the all-reduce, or with sequence parallelism the reduce-scatter",
    latex=r"t_{c}",
)
define("t_exposed", "s", "what of those collectives the plan leaves exposed after the GEMM", latex=r"t_{x}")
define(
    "m_g_in", "s", "HBM time of the column-parallel GEMM (t_gemm_in), 0 when not counted", latex=r"m_{g,in}"
)
define(
    "m_g_out", "s", "HBM time of the row-parallel GEMM (t_gemm_out), 0 when not counted", latex=r"m_{g,out}"
)
define("m_tp_ag", "s", "HBM time of the TP all-gather (ring), 0 when not counted", latex=r"m_{tp,ag}")
define("m_tp_rs", "s", "HBM time of the TP reduce-scatter (ring), 0 when not counted", latex=r"m_{tp,rs}")
define("m_tp_ar", "s", "HBM time of the TP all-reduce (ring), 0 when not counted", latex=r"m_{tp,ar}")
define(
    "m_tp_rsf",
    "s",
    "HBM time of the TP reduce-scatter fused into its producer GEMM (T3), 0 when not counted",
    latex=r"m_{tp,rsf}",
)
define("m_dp", "s", "HBM time of the data-parallel gradient reduction, 0 when not counted", latex=r"m_{dp}")
define(
    "m_ag",
    "s",
    "HBM time of the sharded optimizer's parameter all-gather, 0 when not counted",
    latex=r"m_{ag}",
)
define("m_z3_ag", "s", "HBM time of one ZeRO-3 layer gather, 0 when not counted", latex=r"m_{z3,ag}")
define("m_z3_rs", "s", "HBM time of one ZeRO-3 layer reduce-scatter, 0 when not counted", latex=r"m_{z3,rs}")
define(
    "m_fwd",
    "s",
    "HBM time of one micro-batch's forward on one device (its layers' operators), 0 when not counted",
    latex=r"m_f",
)
define("m_bwd", "s", "HBM time of one micro-batch's backward on one device, 0 when not counted", latex=r"m_b")
define(
    "m_rc",
    "s",
    "HBM time of one micro-batch's recomputation on one device, 0 when not counted",
    latex=r"m_{rc}",
)
define("b_ce", "B", "bytes per logit at the loss's peak (4 fused cross-entropy, 10 eager)", latex=r"b_{ce}")
define("t_pp_p2p", "s", "pipeline send/recv time left on the critical path over the step", latex=r"T_{p2p}")
define(
    "t_dp", "s", "data-parallel gradient reduction (all-reduce or reduce-scatter) per step", latex=r"T_{dp}"
)
define(
    "t_ag",
    "s",
    "data-parallel parameter all-gather per step (distributed optimizer / ZeRO-1/2)",
    latex=r"T_{ag}",
)
define("n_buckets", "1", "gradient buckets (the last one cannot overlap the backward)", latex=r"n_{bk}")
define(
    "n_red",
    "1",
    "gradient reductions per step: the micro-batches under ZeRO-2 (partitioned gradients are reduced after every backward), else 1",
    latex=r"n_{red}",
)
define(
    "t_z3_ag",
    "s",
    "ZeRO-3 / FSDP all-gather of one layer's parameters over the data-parallel group",
    latex=r"t_{z3,ag}",
)
define(
    "t_z3_rs",
    "s",
    "ZeRO-3 / FSDP reduce-scatter of one layer's gradients over the data-parallel group",
    latex=r"t_{z3,rs}",
)
define(
    "z3_rc",
    "1",
    "1 when full recomputation gathers the parameters a third time (before the recomputed forward)",
    latex=r"\rho_{rc}",
)
define(
    "psi_layer",
    "1",
    "parameters of one layer one device gathers over one data-parallel group, before sharding",
    latex=r"\Psi_\ell",
)
define(
    "z3_bucket",
    "1",
    "parameters per ZeRO-3 gather / reduce-scatter collective (plan zero3_bucket)",
    latex=r"B_{z3}",
)
define("n_z3", "1", "ZeRO-3 collectives per layer and pass (one per prefetch bucket)", latex=r"n_{z3}")
define(
    "layer_bytes", "B", "bytes of one layer's parameters (or gradients) moved by one group", latex=r"M_\ell"
)
define(
    "t_z3_one",
    "s",
    "one ZeRO-3 collective of M_l/n_z3 bytes over the data-parallel group",
    latex=r"t_{z3,1}",
)
define("n_fpass", "1", "forward passes per micro-batch: 1, or 2 with full recomputation", latex=r"n_{fp}")
define(
    "t_tp_ag",
    "s",
    "sequence-parallel TP all-gather of one block's input (one pass, one micro-batch)",
    latex=r"t_{tp,ag}",
)
define(
    "t_tp_rs",
    "s",
    "sequence-parallel TP reduce-scatter of one block's output (one pass, one micro-batch)",
    latex=r"t_{tp,rs}",
)
define(
    "t_tp_ar",
    "s",
    "TP all-reduce of one block's output without sequence parallelism (one pass, one micro-batch)",
    latex=r"t_{tp,ar}",
)
define(
    "t_ep_a2a",
    "s",
    "one expert-parallel all-to-all of a layer, dispatch or combine (one pass, one micro-batch)",
    latex=r"t_{ep,a2a}",
)
define(
    "t_hide",
    "s",
    "compute a paired micro-batch's all-to-all overlaps: its share of the layer's forward, backward and recompute",
    latex=r"t_{hide}",
)
define(
    "u_ep",
    "1",
    "share of micro-batches the schedule runs unpaired, their all-to-alls exposed (EP overlap)",
    latex=r"u_{ep}",
)
define(
    "t_gemm_in",
    "s",
    "forward time of the column-parallel GEMM that consumes a block's gathered input (QKV, FFN up)",
    latex=r"t_{g,in}",
)
define(
    "t_gemm_out",
    "s",
    "forward time of the row-parallel GEMM whose output is reduce-scattered (attention out, FFN down)",
    latex=r"t_{g,out}",
)
define(
    "t_cp_kv",
    "s",
    "one context-parallel ring step: send/recv of one K,V block to the next CP rank",
    latex=r"t_{cp,kv}",
)
define("t_attn_fwd", "s", "forward time of one layer's attention core (one micro-batch)", latex=r"t_{a,f}")
define("t_attn_bwd", "s", "backward time of one layer's attention core (one micro-batch)", latex=r"t_{a,b}")
define("rc_fwd", "1", "1 when the forward is recomputed (full recomputation), else 0", latex=r"\rho_{f}")
define(
    "host_link_bw",
    "B/s",
    "device-host link bandwidth per device (host_memory.link_bandwidth)",
    latex="W_{link}",
)
define("host_mem_bw", "B/s", "host memory bandwidth of a node (host_memory.bandwidth)", latex="W_{host}")
define("nvme_bw", "B/s", "NVMe bandwidth of a node (host_memory.nvme_bandwidth)", latex="W_{nvme}")
define("ranks_node", "1", "devices of one node sharing its host memory and NVMe", latex="n_{node}")
define(
    "act_host",
    "B",
    "activation bytes one micro-batch keeps on the host (offload_activations)",
    latex=r"A_{host}",
)
define("t_compute", "s", "the step's forward, backward and recomputation on one device", latex=r"T_{comp}")
define("psi_shard", "1", "parameters of one layer's ZeRO-3 shard on one device", latex=r"\Psi_{sh}")
define("tier_bw", "B/s", "bandwidth of the tier parameters are fetched from", latex="W_{tier}")
define(
    "tier_share",
    "1",
    "devices sharing that bandwidth (1 over a device's own host link; the node's for NVMe)",
    latex="n_{tier}",
)
define(
    "t_offload_host",
    "s",
    "host offload per step: link transfers and the CPU optimizer step (ZeRO-Offload)",
    latex=r"T_{host}",
)
define(
    "sync_interval",
    "1",
    "inner steps between outer synchronizations of DiLoCo workers (H; 1: ordinary data parallelism)",
    latex="H",
)
define("b_sync", "B", "bytes per parameter of DiLoCo's outer all-reduce (plan sync_bytes)", latex=r"b_{s}")
define(
    "t_outer",
    "s",
    "DiLoCo outer all-reduce of the parameter deltas over the data-parallel workers (once per H steps)",
    latex=r"T_{out}",
)
define(
    "sync_fragments",
    "1",
    "fragments DiLoCo's outer sync is split into (Streaming DiLoCo P; 1: the whole model at once)",
    latex="P",
)
define(
    "sync_overlap",
    "1",
    "inner steps a fragment's outer all-reduce overlaps (Streaming DiLoCo tau; 0: blocking)",
    latex=r"\tau",
)
define("t_frag", "s", "outer all-reduce of one fragment (1/P of the parameter deltas)", latex=r"T_{frag}")
define(
    "t_inner",
    "s",
    "one inner step without the outer sync (the compute a fragment's all-reduce overlaps)",
    latex=r"T_{in}",
)
define("t_opt", "s", "optimizer step (exposed)", latex=r"T_{opt}")
define("t_offload", "s", "exposed host offload transfer and CPU optimizer time per step", latex=r"T_{off}")
define("psi_opt", "1", "parameters one device updates (Ψ/z_o)", latex=r"\Psi_{opt}")
define(
    "b_mp",
    "B",
    "bytes per parameter a mixed-precision optimizer's own passes add to the step",
    latex="b_{mp}",
)
define("c_cp", "1", "1 where 16-bit main gradients are copied to fp32 before the step", latex="c_{cp}")
define("s_ls", "1", "1 with fp16 loss scaling (unscale and inf check before the step)", latex="s_{ls}")
define("flops_step", "FLOP", "FLOPs of one step over all devices", latex=r"C_{step}")
define("t_step", "s", "time of one training step", latex="T")
define("n_gpus", "1", "devices in the job (N)", latex="N", integer=True)
define("tokens_step", "token", "tokens per step (global batch × sequence length)", latex=r"B_{tok}")
define("train_tokens", "token", "tokens of the whole run (D)", latex="D")
define(
    "goodput",
    "1",
    "share of the run's wall time that trains (failures, restarts, checkpoints excluded)",
    latex="g",
)
define("power_w", "W", "mean draw per device (the TDP where the catalog has no draw)", latex="P")
define("price_h", "USD/h", "price per device-hour", latex=r"\$_{h}")

define(
    "h_fwd",
    "s",
    "HBM time of one micro-batch's forward on the busiest stage (its operators' bytes)",
    latex=r"h_f",
)
define("h_bwd", "s", "HBM time of one micro-batch's backward on the busiest stage", latex=r"h_b")
define("h_rc", "s", "HBM time of one micro-batch's recomputation on the busiest stage", latex=r"h_{rc}")
define("t_bub", "s", "pipeline bubble over the step", latex=r"T_{bub}")
define(
    "t_cact", "s", "compute-bound time on the step's critical path at the maximum SM clock", latex=r"T_{c}"
)
define(
    "kappa_clk",
    "1",
    "compute rate the board power limit sustains over the rate at the maximum clock",
    latex=r"\kappa",
)

define(
    "t_z3_copy",
    "s",
    "ZeRO-3 gathers copied into the parameters on the compute stream over the step",
    latex=r"T_{z3,cp}",
)

S = sym


# --- time ------------------------------------------------------------------------------------------
def _per_mb() -> sp.Expr:
    return S("t_fwd") + S("t_bwd") + S("t_rc") + S("t_comm_mb")


def bubble_1f1b() -> sp.Expr:
    """1F1B (PipeDream-Flush) and GPipe: bubble ``(p−1)(t_f + t_b)`` (Narayanan 2021 §2.2.1), the
    passes of the ``p − 1`` stages other than the busiest one, which the fill (the first
    micro-batch's forward) and the drain (the last one's backward) wait on; with unequal stages (the
    LM head and loss on the last, the embedding on the first) they run at the other stages' pace,
    ``r_bub`` of the busiest stage's per-micro-batch time [derived: the critical path is the other
    stages' fill and drain plus ``m`` passes of the busiest]."""
    return (S("pp") - 1) * _per_mb() * S("r_bub")


def bubble_interleaved() -> sp.Expr:
    """Interleaved 1F1B with v chunks per device: ``(p−1)(t_f + t_b)/v`` (Narayanan 2021 §2.2.2),
    at the other stages' pace ``r_bub`` (:func:`bubble_1f1b`)."""
    return (S("pp") - 1) * _per_mb() / S("v_stages") * S("r_bub")


def bubble_zero_bubble() -> sp.Expr:
    """ZB-H1 (Qi et al. 2024 §2.1): ``(p−1)(T_F + T_B − T_W)``, the backward split evenly into input
    gradient and weight gradient (T_B = T_W = t_b/2) ⇒ ``(p−1)(t_f + t_rc + comm/3)``: a third of
    1F1B's bubble when T_F = T_B = T_W (ZB README); at the other stages' pace ``r_bub``
    (:func:`bubble_1f1b`)."""
    return (S("pp") - 1) * (S("t_fwd") + S("t_rc") + S("t_comm_mb") / 3) * S("r_bub")


def throttle_compute_time() -> sp.Expr:
    """Compute-bound time on the critical path at the maximum clock, what a lower sustained clock
    stretches: per micro-batch each pass's time beyond its HBM time (a GEMM's time is nearly all
    compute, a memory-bound pass's nearly none), over the step's micro-batches and the bubble's like
    share, ``T_c = m·Σ_pass max(0, t − h)·(1 + T_bub/(m·(t_f + t_b + t_rc + t_comm)))``
    [derived: the bubble is the other stages' passes]."""
    c = sum(sp.Max(0, S(t) - S(h)) for t, h in (("t_fwd", "h_fwd"), ("t_bwd", "h_bwd"), ("t_rc", "h_rc")))
    return S("n_micro") * c * (1 + S("t_bub") / (S("n_micro") * _per_mb()))


def throttle_time() -> sp.Expr:
    """Time the board power limit adds to a step, ``(1/κ − 1)·T_c``: compute-bound work runs at the
    sustained rate ``κ`` (``throttle__rate`` of :mod:`llmcost.economics.formulas`, 1 on a device
    without ``throttle`` figures), memory-bound work and communication at their own speed (the power
    controller lowers the SM clock, not the memory clock) [derived]."""
    return (1 / S("kappa_clk") - 1) * S("t_cact")


def pipeline_time(bubble: Callable[[], sp.Expr]) -> sp.Expr:
    """Compute + exposed per-micro-batch communication over the step: ``m·(t_f + t_b + t_rc + t_comm)``
    plus the bubble, plus the pipeline send/recvs left on the critical path ``t_pp_p2p``
    (:func:`pp_p2p_serial` or :func:`pp_p2p_overlap`) [derived]."""
    return S("n_micro") * _per_mb() + bubble() + S("t_pp_p2p")


def pp_p2p_serial() -> sp.Expr:
    """Pipeline send/recvs on the critical path: one activation send forward and one gradient send
    backward per micro-batch and model chunk, and the fill / drain ones, ``2(m·v + p − 1)·t_p2p``
    (Narayanan 2021 §2.2, §4.1: blocking send/recv, as Megatron-LM before overlap_p2p_comm)."""
    return 2 * (S("n_micro") * S("v_stages") + S("pp") - 1) * S("t_p2p")


def pp_p2p_unpaired() -> sp.Expr:
    """Pipeline send/recvs as DeepSpeed's PipelineEngine issues them: each schedule step's send and
    receive are separate blocking calls (TrainSchedule: SendGrad then RecvActivation, RecvGrad then
    SendActivation; p2p.send with ``async_op`` False), so a micro-batch's sends and receives run one
    after the other. With TP > 1 the activation goes as each rank's TP partition (``t_p2p_part``;
    engine.py ``is_pipe_partitioned = is_model_parallel``: PartitionedTensor), rebuilt by a TP
    all-gather at the receiver before its forward and at the sender before its backward
    (``PartitionedTensor.full()``, ``t_pp_ag`` each), while the gradient goes whole from every TP rank
    (``t_p2p``; ``is_grad_partitioned = False`` in DeepSpeed v0.3-v0.5, partitioned too from v0.6.0,
    2022, which this form does not take), ``2(m·v + p − 1)·(t_p2p_part + t_p2p + t_pp_ag)``; with TP 1
    twice :func:`pp_p2p_serial` (deepspeed/runtime/pipe/engine.py ``_exec_send_activations``,
    ``_exec_forward_pass``, ``_exec_recv_grads``, v0.5.0) [derived: the serial count with unpaired
    calls]."""
    per_mb = S("t_p2p_part") + S("t_p2p") + S("t_pp_ag")
    return 2 * (S("n_micro") * S("v_stages") + S("pp") - 1) * per_mb


def pp_p2p_overlap() -> sp.Expr:
    """Pipeline send/recvs overlapped with compute (Megatron-Core ``overlap_p2p_comm``, on by
    default for the interleaved schedule since 2023-10: each chunk's send / receive is issued
    asynchronously and waited on only when the next chunk needs it): in the steady state a
    transfer hides under one chunk's forward ``t_f/v`` or backward ``(t_b + t_rc)/v`` and only its
    excess shows; the ``2(p − 1)`` fill and drain transfers stay exposed
    [derived: exposed = max(0, communication − overlapping compute)]."""
    m, v, t = S("n_micro"), S("v_stages"), S("t_p2p")
    steady = sp.Max(t - S("t_fwd") / v, 0) + sp.Max(t - (S("t_bwd") + S("t_rc")) / v, 0)
    return 2 * (S("pp") - 1) * t + m * v * steady


def _overlapped(
    t_comm: sp.Expr, t_compute: sp.Expr, m_comm: sp.Expr | None = None, m_comp: sp.Expr | None = None
) -> sp.Expr:
    """Time a collective ``t_comm`` adds to the compute ``t_compute`` it overlaps, from the two
    resources they share. SMs: NCCL's thread blocks hold ``s_comm`` of them while it runs ("NCCL
    CTAs won't share an SM with compute kernels"; a DGX with 8 NICs uses 16 SMs: NVIDIA/nccl #689,
    maintainer), so the compute loses that share of its rate for ``t_comm``: the pair takes
    ``max(t_comm, t_compute + s_comm·t_comm)``. HBM (with ``m_comm``, ``m_comp``, the two kernels'
    HBM times): the collective's reads and writes compete with the compute's for the same DRAM (Pati
    et al. 2024, T3, arXiv 2401.16677, §3.2: a concurrent reduce-scatter's traffic slows the GEMM;
    Agrawal et al. 2024, arXiv 2412.14335: concurrent kernels interfere through compute units,
    caches and HBM), so the pair takes at least ``m_comm + m_comp``. Added time:
    ``max(t_comm − t_compute, s_comm·t_comm, m_comm + m_comp − t_compute)`` [derived: each shared
    resource serves both kernels' demands in turn; a lower bound where traffic comes in bursts, which
    T3 §6.1.2 finds slows its GEMMs further unless the memory controller favours the compute].
    With ``m_comm = m_comp = 0`` (HBM contention not counted, plan ``hbm_contention`` false) the
    last term is negative and the SM form is what remains."""
    terms = [t_comm - t_compute, S("s_comm") * t_comm]
    if m_comm is not None and m_comp is not None:
        terms.append(m_comm + m_comp - t_compute)
    return sp.Max(*terms)


def overlap_contended() -> sp.Expr:
    """One collective overlapping one compute kernel, the time it adds (:func:`_overlapped`), with
    both contention terms: ``max(t_c − t_g, s_c·t_c, m_x + m_g − t_g)``."""
    return _overlapped(S("t_coll"), S("t_gemm"), S("m_comm"), S("m_gemm"))


def ring_rs_hbm() -> sp.Expr:
    """HBM bytes a ring reduce-scatter of an ``N``-byte buffer moves on each of its ``n`` devices,
    ``(3n − 1)/n·N``: of the ``n`` chunks of ``N/n``, each is read once from the input (the first
    sent as it is, the others reduced with what arrives, the last into the output), the ``n − 1``
    that arrive are written into the receive buffer by the previous rank and read back, and the
    result is written once (NVIDIA/nccl src/device/reduce_scatter.h ``runRing``: ``send``, ``n − 2``
    × ``recvReduceSend``, ``recvReduceCopy``; Simple protocol through the connection's buffer in the
    receiver's memory). T3 §6.2 counts the same reads: its fused reduce-scatter reads ``n − 2``
    chunks against the ring's ``2n − 1``, 2.5x fewer at TP 8 and 2.2x at TP 16, as it reports
    [derived]."""
    n = S("ranks")
    return (3 * n - 1) / n * S("coll_bytes")


def ring_ag_hbm() -> sp.Expr:
    """HBM bytes a ring all-gather with an ``N``-byte output moves on each of its ``n`` devices,
    ``(3n − 1)/n·N``: its own chunk read and written into the output, and each of the ``n − 1``
    chunks that arrive written into the receive buffer by the previous rank, read back and written
    into the output (NVIDIA/nccl src/device/all_gather.h ring: ``send`` / ``copySend``,
    ``recvCopySend``, ``recv``; Simple protocol through the connection's buffer) [derived]."""
    n = S("ranks")
    return (3 * n - 1) / n * S("coll_bytes")


def ring_ar_hbm() -> sp.Expr:
    """HBM bytes a ring all-reduce of an ``N``-byte buffer moves on each device: its reduce-scatter
    then its all-gather (NCCL's ring all-reduce, NVIDIA/nccl src/device/all_reduce.h ``runRing``),
    ``2(3n − 1)/n·N`` (:func:`ring_rs_hbm`, :func:`ring_ag_hbm`) [derived]."""
    return ring_rs_hbm() + ring_ag_hbm()


def fused_rs_hbm() -> sp.Expr:
    """HBM bytes T3's fused reduce-scatter adds on each device to the GEMM that produces its
    ``N``-byte buffer, ``(2n − 4)/n·N`` (Pati et al. 2024, T3, arXiv 2401.16677, §4, Fig. 7): the
    first stage's chunk is stored straight into the next rank's memory (one local GEMM write fewer),
    the DMA engine reads each of the ``n − 2`` locally reduced chunks it sends, and each of the
    ``n − 1`` chunks that arrive is one near-memory add-and-store (T3's op-and-store), no read-back
    [derived from T3's mechanism; its measured reads fall 2.5× at TP=8, 2.2× at TP=16 against the
    ring's (:func:`ring_rs_hbm`), as ``(2n − 1)/(n − 2)`` gives]."""
    n = S("ranks")
    return (2 * n - 4) / n * S("coll_bytes")


def _fused(t_rs: sp.Expr, t_g: sp.Expr, m_rs: sp.Expr, m_g: sp.Expr) -> sp.Expr:
    """Time a reduce-scatter fused into the GEMM that produces its buffer adds to that GEMM (T3:
    Pati et al. 2024, arXiv 2401.16677, §4.1, Fig. 7): the GEMM's output is produced in ``t``
    stages in the ring's order, each stage's chunk sent on as soon as it is produced and reduced
    where it lands, by DMA engines and near-memory adds, so no SM is taken (``s_comm`` plays no
    part). With ``t`` stages of ``t_g/t`` and ``t − 1`` ring steps of ``t_rs/(t − 1)``, the ring
    cannot start before the first stage, so the pair takes ``max(t_g, t_rs + t_g/t)`` and the HBM
    the two share at least ``m_g + m_rs`` (:func:`_overlapped`; ``m_rs`` of :func:`fused_rs_hbm`);
    added: ``max(0, t_rs − t_g·(t − 1)/t, m_rs + m_g − t_g)`` [derived: a two-stage pipeline of
    ``t`` items]. T3's "Ideal-GEMM-RS-Overlap" is ``max(t_g, t_rs)``."""
    t = S("tp")
    return sp.Max(0, t_rs - t_g * (t - 1) / t, m_rs + m_g - t_g)


def _hidden(t_comm: sp.Expr, t_g: sp.Expr, m_comm: sp.Expr, m_g: sp.Expr) -> sp.Expr:
    """Time a collective pipelined chunk by chunk with its adjacent GEMM adds to it (Transformer
    Engine userbuffers: :func:`tp_exposed_overlap`), ``max(0, t_comm − t_g, m_comm + m_g − t_g)``:
    its excess over the GEMM, or the HBM the two share (:func:`_overlapped`) [derived]."""
    return sp.Max(t_comm - t_g, 0, m_comm + m_g - t_g)


def tp_pair_fused() -> sp.Expr:
    """One TP sublayer under T3's fusion: what the reduce-scatter fused into its producer GEMM adds
    to it (:func:`_fused`), ``max(0, t_rs − t_g·(t − 1)/t, m_rs + m_g − t_g)``."""
    return _fused(S("t_tp_rs"), S("t_gemm"), S("m_tp_rsf"), S("m_gemm"))


def tp_pair_overlap() -> sp.Expr:
    """One TP sublayer under Transformer Engine's GEMM + reduce-scatter pipelining: what the
    reduce-scatter adds to its producer GEMM (:func:`_hidden`)."""
    return _hidden(S("t_tp_rs"), S("t_gemm"), S("m_tp_rs"), S("m_gemm"))


def sublayer_speedup() -> sp.Expr:
    """Speed-up of one TP sublayer, a GEMM and the collective(s) that reduce its output, over
    running them one after the other: ``(t_g + t_c)/(t_g + t_x)``, ``t_x`` what the plan leaves
    exposed (T3's metric: Pati et al. 2024, arXiv 2401.16677, §6.1, Fig. 16, speed-up of the
    output projection and FC-2 forward, FC-1 and input projection backward over its sequential baseline)."""
    return (S("t_gemm") + S("t_coll")) / (S("t_gemm") + S("t_exposed"))


def dp_exposed_overlap() -> sp.Expr:
    """Data-parallel reduction bucketed and overlapped with the last micro-batch's backward
    (PyTorch DDP buckets; Megatron --overlap-grad-reduce): the part longer than the backward, or
    the compute the collective's SMs (or its HBM traffic) take from it (:func:`_overlapped`), is
    exposed and the last bucket never hides, ``max(T_dp − t_b, s_comm·T_dp, m_dp + m_b − t_b,
    T_dp/n_bk)``; under ZeRO-2 every
    micro-batch's backward reduces its gradients so, ``n_red`` times (the ranks keep only their
    gradient partition: "for zero stage 2 (and 3), gradient reduction is required after every
    backward because of gradient partitioning", deepspeedai/DeepSpeed issue #2252; ZeRO-1 and
    Megatron's distributed optimizer accumulate the full gradient and reduce once). The parameter
    all-gather of a sharded optimizer overlaps the next forward likewise (--overlap-param-gather)
    [derived: exposed = max(0, communication − overlapping compute)]."""
    red = sp.Max(_overlapped(S("t_dp"), S("t_bwd"), S("m_dp"), S("m_bwd")), S("t_dp") / S("n_buckets"))
    ag = _overlapped(S("t_ag"), S("t_fwd"), S("m_ag"), S("m_fwd"))
    return S("n_red") * red + sp.Max(ag, S("t_ag") / S("n_buckets"))


def dp_exposed_serial() -> sp.Expr:
    """Data-parallel reduction after the backward, not overlapped (Megatron without
    --overlap-grad-reduce; Korthikanti 2022 §6.3 note); ``n_red`` of them under ZeRO-2
    (:func:`dp_exposed_overlap`)."""
    return S("n_red") * S("t_dp") + S("t_ag")


def _prefetched(t_comm: sp.Expr, t_compute: sp.Expr, m_comm: sp.Expr, m_comp: sp.Expr) -> sp.Expr:
    """Exposed time of a pass over ``L_s`` layers whose per-layer communication ``t_comm`` is
    prefetched under the previous layer's compute ``t_compute/L_s``: the first layer's
    communication cannot overlap, each later layer exposes what exceeds one layer of compute or
    the compute its SMs (or its HBM traffic ``m_comm`` against the layer's ``m_comp/L_s``) take
    (:func:`_overlapped`),
    ``t_comm + (L_s − 1)·max(t_comm − t_compute/L_s, s_comm·t_comm, m_comm + m_comp/L_s − t_compute/L_s)``:
    a compute-bound pass exposes
    one layer's communication and the SM share of the rest, a communication-bound one takes
    ``L_s·t_comm + t_compute/L_s`` in all [derived: exposed = max(0, communication − overlapping
    compute)]."""
    L = S("layers_stage")
    return t_comm + (L - 1) * _overlapped(t_comm, t_compute / L, m_comm, m_comp / L)


def zero3_exposed() -> sp.Expr:
    """ZeRO-3 / FSDP FULL_SHARD, overlapped layer by layer (not per step): per micro-batch, each
    layer's parameters are all-gathered before its forward and again before its backward (and
    before the recomputed forward with full recomputation), and its gradients reduce-scattered
    after its backward (Rajbhandari et al. 2020 §5.3, §7.2.2: 3 passes of Ψ, 1.5× the volume of
    DP / ZeRO-1/2). The gather of the next layer is prefetched under the current layer's compute
    (DeepSpeed ``stage3_prefetch_bucket_size`` / ``stage3_max_live_parameters``; PyTorch FSDP
    ``forward_prefetch`` / ``BackwardPrefetch.BACKWARD_PRE``), and in the backward the gather of
    the next layer and the reduce-scatter of the previous one share the comm stream under one
    layer's backward. Exposed per pass (:func:`_prefetched`): the first gather (and the last
    reduce-scatter) plus each layer's excess of communication over compute, ``L_s`` layers of
    average size ([derived]: FSDP prefetch overlaps a layer's gather with the previous layer's
    compute)."""
    ag, m_ag = S("t_z3_ag"), S("m_z3_ag")
    fwd = _prefetched(ag, S("t_fwd"), m_ag, S("m_fwd"))
    rc = S("z3_rc") * _prefetched(ag, S("t_rc"), m_ag, S("m_rc"))
    bwd = _prefetched(ag + S("t_z3_rs"), S("t_bwd"), m_ag + S("m_z3_rs"), S("m_bwd"))
    return S("n_micro") * (fwd + rc + bwd) + S("t_z3_copy")


def zero3_serial() -> sp.Expr:
    """ZeRO-3 whose collectives never overlap compute: per micro-batch and layer, the gather before
    the forward, the recomputed forward (full recomputation) and the backward, and the gradient
    reduce-scatter after it, each on the critical path,
    ``m·L_s·((2 + z3_rc)·t_ag + t_rs) + t_z3_copy``. DeepSpeed ZeRO-3 before v0.6.0 (2021): each
    submodule's fetch waits on every gather in flight and synchronizes the device
    (stage3.py ``_synchronize_communication``; ``_allgather_param`` synchronizes before each
    parameter's all-gather, partition_parameters.py, v0.3.13-v0.5.10), so the backward's
    reduce-scatters finish before the next fetch; the one gather that could run under a submodule's
    compute, the next parameter's prefetch, is issued only while the gathered parameters stay under
    ``stage3_max_live_parameters`` (1e9): never for a 530B layer's matrices (each above 1e9), for part
    of GPT-3 175B's (two MLP matrices, 1.2e9); serial overstates the exposure of smaller models.
    DeepSpeed PR #1453 (v0.6.0, 2022-01-20, "more fine grained synchronization for communication")
    ended it [derived: the sum of the serialized collectives]."""
    per_layer = (2 + S("z3_rc")) * S("t_z3_ag") + S("t_z3_rs")
    return S("n_micro") * S("layers_stage") * per_layer + S("t_z3_copy")


def zero3_copy_out() -> sp.Expr:
    """FSDP2's gather copy-out over the step, on the compute stream: after each all-gather,
    ``foreach_all_gather_copy_out`` waits on the gather's event in the current stream and copies the
    gathered buffer into every unsharded parameter (``torch.split_with_sizes_copy``; PyTorch
    torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py), reading and writing ``b_w`` bytes per
    parameter; two gathers per micro-batch (forward, and backward after resharding; a checkpointed
    forward reuses the backward's), ``2·m·2·b_w·Ψ/(η_m·W_hbm)`` [derived: the copy's bytes at the
    attained HBM bandwidth]. FSDP1's FlatParameter and DeepSpeed gather in place (0)."""
    return 2 * S("n_micro") * 2 * S("b_w") * S("psi") / (S("eta_m") * S("mem_bw"))


def zero3_collectives() -> sp.Expr:
    """ZeRO-3 collectives per layer and pass when parameters move in prefetch buckets,
    ``n_z3 = max(1, ceil(Ψ_ℓ / B_z3))``: DeepSpeed ZeRO-3 fetches parameters in buckets of at most
    ``stage3_prefetch_bucket_size`` elements ("maximum number of parameter elements to fetch ahead
    of use", DeepSpeed docs config-json and deepspeed/runtime/zero/config.py; code default 5e7, the
    docs table 5e8), each bucket one all-gather over all data-parallel ranks, gradients likewise one
    reduce-scatter per bucket. FSDP gathers one flat parameter per wrapped block: ``n_z3 = 1``
    (plan ``zero3_bucket`` unset). ``Ψ_ℓ > 0`` so the ceiling is at least 1 [derived: a layer
    split into equal buckets]."""
    return sp.Max(1, sp.ceiling(S("psi_layer") / S("z3_bucket")))


def zero3_collective_bytes() -> sp.Expr:
    """Bytes of one ZeRO-3 collective: the layer's ``M_ℓ`` split evenly over its ``n_z3``
    buckets, ``M_ℓ / n_z3`` [derived: :func:`zero3_collectives`]."""
    return S("layer_bytes") / S("n_z3")


def zero3_layer_comm() -> sp.Expr:
    """One layer's ZeRO-3 gather (or reduce-scatter) in one pass as ``n_z3`` collectives of
    ``M_ℓ/n_z3`` bytes, ``n_z3 · t(M_ℓ/n_z3)``: each collective pays its own latency, which for
    NCCL's ring all-gather / reduce-scatter (the only all-gather algorithm NCCL runs) is
    ``(p − 1)`` ring steps over all ``p`` data-parallel ranks (NCCL tuning.cc; Thakur et al. 2005
    ring), so a many-bucket layer on thousands of ranks becomes latency-bound; the prefetch overlap
    with compute is unchanged (:func:`zero3_exposed`). Evidence: DeepSpeed ZeRO-3 on GPT-3 175B
    fell from 144 to 88 to 44 TFLOP/s per A100 at 384 / 768 / 1536 GPUs, exposed communication
    growing with the rank count (Narayanan et al. 2021, arXiv 2104.04473, Table 2)."""
    return S("n_z3") * S("t_z3_one")


def tp_exposed_sp() -> sp.Expr:
    """TP with sequence parallelism, not overlapped: per block an all-gather of its input and a
    reduce-scatter of its output (the all-reduce's volume; Korthikanti 2022 §4.2.2) in every pass
    (forward, backward, recomputed forward), on the critical path. The weight gradient uses the
    gathered input the forward kept (PyTorch DTensor sequence parallelism saves the matmul's
    gathered input), so no re-gather; Megatron instead stores the shard and re-gathers under the
    data-gradient GEMM (:func:`tp_exposed_sp_async`), which can cost more than this form when the
    collectives are latency-bound. The activation memory counts the shard either way (Korthikanti
    2022 §4.2.2), an under-count for the DTensor form."""
    return (S("n_fpass") + 1) * (S("t_tp_ag") + S("t_tp_rs"))


def tp_exposed_allreduce() -> sp.Expr:
    """TP without sequence parallelism: one all-reduce per block in every pass (Megatron's f / g
    operators, Shoeybi et al. 2019 §3: forward after the row-parallel GEMM, backward before the
    column-parallel one), on the critical path."""
    return (S("n_fpass") + 1) * S("t_tp_ar")


def tp_exposed_sp_async() -> sp.Expr:
    """TP with sequence parallelism, backward collectives of the column-parallel GEMM issued
    asynchronously (Megatron-LM ``LinearWithGradAccumulationAndAsyncCommunication``, since 2022-04
    with ``--sequence-parallel``; NVIDIA/Megatron-LM megatron/core/tensor_parallel/layers.py): the
    forward's all-gather and reduce-scatter (and a recomputed forward's) stay on the critical path,
    the backward's gradient all-gather before the row-parallel GEMM too; the re-gather of the
    sequence-parallel input that the weight gradient needs runs under the data-gradient GEMM and the
    input gradient's reduce-scatter under the weight-gradient GEMM (each ``t_gemm_in``, the
    column-parallel GEMM's forward time), each adding what :func:`_overlapped` says."""
    ag, rs, gi, mg = S("t_tp_ag"), S("t_tp_rs"), S("t_gemm_in"), S("m_g_in")
    return (
        S("n_fpass") * (ag + rs)
        + ag
        + _overlapped(ag, gi, S("m_tp_ag"), mg)
        + _overlapped(rs, gi, S("m_tp_rs"), mg)
    )


def tp_exposed_allreduce_async() -> sp.Expr:
    """TP without sequence parallelism, the column-parallel GEMM's input-gradient all-reduce issued
    asynchronously under its weight-gradient GEMM (Megatron-LM ``--no-async-tensor-model-parallel-
    allreduce``, on by default since 2021-09-02, 3f65246: "asynchronous execution of
    tensor-model-parallel all-reduce with weight gradient computation of a column-linear layer";
    the row-parallel GEMM's backward has no collective, Shoeybi et al. 2019 §3 ``g``): forward passes
    expose their all-reduce, the backward adds what :func:`_overlapped` says."""
    return S("n_fpass") * S("t_tp_ar") + _overlapped(S("t_tp_ar"), S("t_gemm_in"), S("m_tp_ar"), S("m_g_in"))


def ep_exposed() -> sp.Expr:
    """Expert parallelism: each all-to-all of a MoE layer (token dispatch, combine) in every pass,
    on the critical path (GShard, Lepikhin et al. 2021; Megatron-Core MoE without overlap)."""
    return (S("n_fpass") + 1) * S("t_ep_a2a")


def ep_exposed_overlap() -> sp.Expr:
    """Expert parallelism with the all-to-all of one micro-batch hidden under another's compute
    (Megatron-Core ``--overlap-moe-expert-parallel-comm`` with ``--delay-wgrad-compute``, MCore
    v0.14, 2025-09: "overlaps All-to-All with computation by merging FWD-BWD passes of adjacent
    microbatches", megatron/core/transformer/moe/README.md; DeepSeek-V3 §3.2.1 DualPipe pairs them
    the same way): each all-to-all ``a = (n_fpass + 1)·t_ep_a2a`` of a paired micro-batch adds what
    :func:`_overlapped` leaves of it over the compute ``t_hide`` it is paired with (its share of the
    layer's forward, backward and recompute), its kernels costing ``s_comm`` of the compute under
    them (the SMs NCCL holds; DeepEP's measured GEMM-efficiency loss,
    :func:`llmcost.training.base.dedup_interference`); the
    micro-batches the schedule runs unpaired (``u_ep`` of them: the pipeline's warm-up forwards and
    cool-down backwards) expose all of it: ``u·a + (1 − u)·max(a − t_hide, s_comm·a)`` [derived]."""
    a, u = ep_exposed(), S("u_ep")
    return u * a + (1 - u) * _overlapped(a, S("t_hide"))


def tp_exposed_overlap() -> sp.Expr:
    """TP communication overlapped with the adjacent GEMMs (Megatron-Core ``--tp-comm-overlap``,
    Transformer Engine userbuffers; needs sequence parallelism): per block and micro-batch the
    sequence-parallel all-gather is pipelined with the column-parallel GEMM that consumes it and
    the reduce-scatter with the row-parallel GEMM that produces it (AG+GEMM, GEMM+RS; Wang et
    al. 2022 "Overlap communication with dependent computation via decomposition", ASPLOS 2023;
    NVIDIA TransformerEngine ``initialize_ub``), so each exposes ``max(0, comm − GEMM)``. In the
    backward the roles swap: the gradient all-gather overlaps the row-parallel GEMM's data
    gradient and the reduce-scatter the column-parallel GEMM's data gradient (each the forward
    GEMM's time); a recomputed forward repeats the forward pairs. The HBM the pairs share
    (:func:`_hidden`) counts where the plan asks (``hbm_contention``)."""
    ag, rs, gi, go = S("t_tp_ag"), S("t_tp_rs"), S("t_gemm_in"), S("t_gemm_out")
    m_ag, m_rs, mi, mo = S("m_tp_ag"), S("m_tp_rs"), S("m_g_in"), S("m_g_out")
    fwd = _hidden(ag, gi, m_ag, mi) + _hidden(rs, go, m_rs, mo)
    bwd = _hidden(ag, go, m_ag, mo) + _hidden(rs, gi, m_rs, mi)
    return S("n_fpass") * fwd + bwd


def tp_exposed_fused_rs() -> sp.Expr:
    """TP with each reduce-scatter fused into the GEMM that produces its buffer (T3: Pati et al.
    2024, "T3: Transparent Tracking & Triggering for Fine-grained Overlap of Compute & Collectives",
    ASPLOS 2024, arXiv 2401.16677, §4): forward, the row-parallel GEMM's output (attention output
    projection, FFN down); backward, the column-parallel data-gradient GEMM's (FFN up, QKV), each
    the forward GEMM's time. Without sequence parallelism the all-reduce runs as that
    reduce-scatter and an all-gather of the same buffer, with it the all-gather is the block's
    input gather; the all-gather stays on the critical path, as in T3 (its all-gather traffic is
    unchanged, §6.2), and the fused reduce-scatter adds what :func:`_fused` says; a recomputed
    forward repeats the forward's: ``n_fp·(t_ag + X(t_g,out)) + t_ag + X(t_g,in)``."""
    ag, rs, m_rs = S("t_tp_ag"), S("t_tp_rs"), S("m_tp_rsf")
    fwd = ag + _fused(rs, S("t_gemm_out"), m_rs, S("m_g_out"))
    return S("n_fpass") * fwd + ag + _fused(rs, S("t_gemm_in"), m_rs, S("m_g_in"))


def dp_exposed_diloco() -> sp.Expr:
    """DiLoCo / local SGD (Douillard et al. 2023, arXiv 2311.08105, Algorithm 1): each data-parallel
    replica (a worker) takes ``H`` inner AdamW steps on its own shard with no cross-worker
    communication, then the workers all-reduce their outer gradients (parameter deltas) once and
    apply the outer Nesterov step; the all-reduce blocks (plain DiLoCo does not overlap it with
    compute; Streaming DiLoCo, arXiv 2501.18512, does), so per step it adds ``T_out/H`` [derived:
    one blocking collective every H steps, amortized]. It replaces the per-step gradient reduction
    over the data-parallel ranks (:func:`dp_exposed_overlap`)."""
    return S("t_outer") / S("sync_interval")


def dp_exposed_streaming() -> sp.Expr:
    """Streaming DiLoCo (Douillard et al. 2025, arXiv 2501.18512): the parameters are split into
    ``P`` fragments (groups of layers, §2.1 "streaming partial updates"), each synchronized once per
    ``H`` inner steps at staggered offsets, so a fragment's outer all-reduce (``T_frag``, 1/P of the
    deltas) starts every ``H/P`` steps; it runs while the worker keeps computing for ``τ`` inner
    steps and its outer update is merged then (§2.2 "overlapping communication with computation").
    Only what the all-reduce takes beyond those ``τ`` inner steps (``T_in`` each) stalls the worker,
    ``P/H`` times per step: ``(P/H)·max(0, T_frag − τ·T_in)`` [derived: an overlapped transfer
    exposes its excess over the compute it overlaps]. ``P = 1, τ = 0`` is blocking DiLoCo
    (:func:`dp_exposed_diloco`, ``T_frag = T_out``)."""
    frag = S("t_frag") - S("sync_overlap") * S("t_inner")
    return S("sync_fragments") / S("sync_interval") * sp.Max(0, frag)


def diloco_fragment_bytes() -> sp.Expr:
    """Bytes of one Streaming DiLoCo fragment's outer all-reduce per device, ``(Ψ + Ψ_e)·b_s/P``:
    the fragments share the parameters evenly (Douillard et al. 2025, arXiv 2501.18512 §2.1: the
    fragments are equal groups of layers) [derived]."""
    return (S("psi") + S("psi_e")) * S("b_sync") / S("sync_fragments")


def diloco_outer_bytes() -> sp.Expr:
    """Bytes of DiLoCo's outer all-reduce per device: every parameter the device holds,
    ``(Ψ + Ψ_e)·b_s``, the worker's outer gradient ``θ^(t−H) − θ^(t)`` (Douillard et al. 2023,
    Algorithm 1, line 8) at ``b_s`` bytes per element: 4 (fp32, the precision of the parameters the
    outer step updates; the default), 2 (OpenDiLoCo, Jaghouar et al. 2024, arXiv 2407.07852: the
    pseudo-gradients all-reduced in FP16 "without any performance degradation") or fewer
    (Streaming DiLoCo, arXiv 2501.18512, quantizes outer gradients to 4 bits)."""
    return (S("psi") + S("psi_e")) * S("b_sync")


def diloco_comm_reduction() -> sp.Expr:
    """Data-parallel bytes per token of ordinary data parallelism (one gradient all-reduce of
    ``Ψ·b_g`` per step) over DiLoCo's (one all-reduce of ``Ψ·b_s`` per ``H`` steps) on the same
    plan, ``H·b_g/b_s``: the DiLoCo paper's "communicating 500 times less" at H = 500 with
    equal element widths (Douillard et al. 2023, abstract and §3) [derived]."""
    return S("sync_interval") * S("b_g") / S("b_sync")


def diloco_outer_state_bytes() -> sp.Expr:
    """DiLoCo's outer optimizer state per device, ``8·(Ψ + Ψ_e)``: the global parameters
    ``θ^(t−1)`` the outer gradient is taken against and the outer Nesterov momentum, both fp32
    (Douillard et al. 2023, Algorithm 1: the outer step ``OuterOpt(θ^(t−1), Δ^(t))`` with Nesterov
    momentum), kept on the device beside the inner AdamW state, not sharded (each worker holds a
    whole replica) [derived]."""
    return 8 * (S("psi") + S("psi_e"))


def optimizer_time() -> sp.Expr:
    """Adam(W) with fp32 master weights is a memory-bound elementwise pass:
    ``Ψ_opt·(24 + b_g + b_w + b_mp)/(η_m·W_hbm)`` [derived: read and write of the fp32 copy, m and v
    (24 B per parameter), the gradient and the weight], plus ``b_mp`` bytes per parameter where the
    mixed-precision wrapper runs its own passes around the step (:func:`optimizer_mp_bytes`; 0 for a
    fused master-weight step)."""
    return S("psi_opt") * (24 + S("b_g") + S("b_w") + S("b_mp")) / (S("eta_m") * S("mem_bw"))


def optimizer_mp_bytes() -> sp.Expr:
    """Bytes per parameter Megatron's mixed-precision optimizer moves beyond a fused master-weight Adam
    step (``Float16OptimizerWithFloat16Params.step``, NVIDIA/Megatron-LM megatron/optimizer/optimizer.py
    2021-2023 and megatron/core/optimizer/optimizer.py after; the distributed optimizer runs the same
    passes on its shard): the 16-bit main gradients copied to fp32 (``main_grad.float()``: read ``b_g``,
    write 4, where ``c_cp`` = 1), Adam reading the fp32 gradient (``4 − b_g`` more),
    with fp16 loss scaling (``s_ls``) the unscale and inf check
    (``torch._amp_foreach_non_finite_check_and_unscale_``: read and write 4), the global gradient norm of
    ``--clip-grad`` (``multi_tensor_l2norm``: read 4; the scaling when the norm exceeds the limit is not
    counted) and the fp32 master read again for its 16-bit copy (``_copy_main_params_to_model_params``,
    ``multi_tensor_scale``: 4; the write is ``b_w``), ``c_cp·(b_g + 4) + 4 − b_g + 8·s_ls + 8``:
    24 bytes for fp16 with 16-bit gradients (52 in all), 8 for bf16 with fp32 gradients (38), Megatron's
    default. ``c_cp`` follows the resolved ``grad_reduce_in_fp32`` (ZeRO-3's gradients are 16-bit in
    flight whatever it says)."""
    return S("c_cp") * (S("b_g") + 4) + 4 - S("b_g") + 8 * S("s_ls") + 8


def offload_host() -> sp.Expr:
    """ZeRO-Offload (Ren et al. 2021 §4; no delayed parameter update): the optimizer step runs on
    the host; gradients go down and parameters up over the host link, ``(b_g + b_w)·Ψ_opt/W_link``,
    and the CPU Adam pass moves 28 bytes per parameter over the node's host memory, shared by its
    devices, ``28·Ψ_opt·n_node/(η_m·W_host)``."""
    link = S("psi_opt") * (S("b_g") + S("b_w")) / S("host_link_bw")
    return link + 28 * S("psi_opt") * S("ranks_node") / (S("eta_m") * S("host_mem_bw"))


def offload_nvme() -> sp.Expr:
    """ZeRO-Infinity NVMe offload (Rajbhandari et al. 2021, "ZeRO-Infinity"): the host offload
    (:func:`offload_host`) plus the optimizer state (12 bytes per parameter) read and written at
    the node's NVMe bandwidth, ``24·Ψ_opt·n_node/W_nvme``."""
    return S("t_offload_host") + 2 * 12 * S("psi_opt") * S("ranks_node") / S("nvme_bw")


def offload_param_fetch() -> sp.Expr:
    """ZeRO-Infinity parameter offload (Rajbhandari et al. 2021 §5, "offload_param"): before each
    ZeRO-3 all-gather of a layer, every device fetches its shard of that layer from the tier,
    ``Ψ_sh·b_w·n_tier/W_tier`` (its own host link for host memory; the node's NVMe shared by the
    node's devices); it adds to the gather it precedes and is prefetched with it under the previous
    layer's compute (:func:`zero3_exposed`) [derived]."""
    return S("psi_shard") * S("b_w") * S("tier_share") / S("tier_bw")


def offload_activations() -> sp.Expr:
    """Activation offload (ZeRO-Infinity §5, activation checkpoints to CPU memory): every micro-batch's
    stored activations go to the host in its forward and come back for its backward,
    ``2·m·A_host / W_link`` over the device's host link, overlapped with the step's compute; the
    part longer than the compute is exposed [derived: exposed = max(0, transfer − overlapping compute)]."""
    return sp.Max(2 * S("n_micro") * S("act_host") / S("host_link_bw") - S("t_compute"), 0)


def cp_ring_exposed() -> sp.Expr:
    """Context-parallel ring attention (Megatron CP, load-balanced): the forward passes K,V over
    ``c−1`` ring steps, the backward K,V and dK,dV (twice the bytes), each step hidden behind the
    attention of the previous one (Megatron-LM docs/user-guide/features/context_parallel.md), so
    each pass exposes ``max(0, ring − attention)``; a recomputed forward (``ρ_f`` = 1) repeats the
    forward ring [derived: exposed = max(0, communication − overlapping compute)]."""
    ring = (S("cp") - 1) * S("t_cp_kv")
    fwd = sp.Max(ring - S("t_attn_fwd"), 0)
    return fwd + sp.Max(2 * ring - S("t_attn_bwd"), 0) + S("rc_fwd") * fwd


# --- mixed sequence lengths (llmcost.training.seqdist) ---------------------------------------------
define(
    "len_mean",
    "token",
    "mean tokens per sequence of a length distribution, E[l] (truncated at seq_len when padded)",
    latex=r"\bar{l}",
)
define(
    "pairs_doc",
    "1",
    "causal (query, key) pairs one sequence keeps under a document mask, in expectation (its seq_len pieces summed)",
    latex=r"\bar{P}_{doc}",
)
define(
    "pairs_pack",
    "1",
    "causal (query, key) pairs of one pack of seq_len tokens under one mask",
    latex=r"P_{pack}",
)
define(
    "len_pad",
    "token",
    "expected length a micro-batch is padded to: its longest sequence",
    latex=r"\bar{L}_{pad}",
)
define(
    "var_pairs",
    "1",
    "variance of a sequence's kept pairs net of their share of its tokens, Var(P − (E[P]/E[l])·l)",
    latex=r"V_P",
)
define(
    "z_dp",
    "1",
    "expected maximum of d standard normal draws (the slowest of d data-parallel ranks)",
    latex="z_d",
)
define(
    "cv_mb", "1", "coefficient of variation of one micro-batch's stage time across micro-batches", latex="c_v"
)


def doc_attention_share() -> sp.Expr:
    """Share of a packed sequence's causal (query, key) pairs a document mask keeps, which is what a
    variable-length attention kernel computes (FlashAttention ``flash_attn_varlen_func`` over
    ``cu_seqlens``; Transformer Engine THD): the cost is Σ s_i² over the packed sequences, not (Σ s_i)²
    (NVIDIA NeMo docs, "Sequence Packing", features/optimizations/sequence_packing.rst). A pack of
    ``s`` tokens holds ``s/E[l]`` sequences on average, each keeping ``P̄_doc`` pairs:
    ``ρ = s·P̄_doc/(E[l]·P_pack)`` [derived: renewal average over the packs]."""
    return S("seq") * S("pairs_doc") / (S("len_mean") * S("pairs_pack"))


def padding_overhead() -> sp.Expr:
    """Tokens computed per real token without packing: every micro-batch padded to its longest
    sequence, ``E[L_pad]/E[l]`` (Krell et al. 2021, arXiv 2107.02027 §1: up to 50% padding on
    Wikipedia); ``E[L_pad]`` the expected maximum of the micro-batch's lengths, ``P(L ≤ x) = F(x)^b``
    [derived]."""
    return S("len_pad") / S("len_mean")


def pack_pairs_cv() -> sp.Expr:
    """Coefficient of variation of the kept pairs of one pack of ``s`` tokens filled by sequences drawn
    independently: the pairs accumulated by a renewal process of lengths up to ``s`` tokens have mean
    ``(s/E[l])·E[P]`` and variance ``(s/E[l])·Var(P − (E[P]/E[l])·l)`` (the central limit theorem of
    cumulative processes, W. L. Smith 1955, "Regenerative stochastic processes", Proc. R. Soc. A 232):
    ``c = sqrt(V_P·E[l]/s)/P̄_doc`` [derived]."""
    return sp.sqrt(S("var_pairs") * S("len_mean") / S("seq")) / S("pairs_doc")


def straggler() -> sp.Expr:
    """Stretch of the per-micro-batch time by the slowest of ``d`` data-parallel ranks: each rank's
    ``m`` micro-batches sum to ``m·t`` with standard deviation ``sqrt(m)·c_v·t`` (independent
    micro-batches), and the step waits for the largest of ``d`` such sums, ``m·t + z_d·sqrt(m)·c_v·t``
    (normal approximation; ``z_d`` the expected maximum of ``d`` standard normals, Harter 1961,
    Biometrika 48): ``1 + z_d·c_v/sqrt(m)`` [derived]."""
    return 1 + S("z_dp") * S("cv_mb") / sp.sqrt(S("n_micro"))


# --- backward ---------------------------------------------------------------------------------------
def backward_flops() -> sp.Expr:
    """Backward FLOPs of an operator: 2× the forward, the input gradient and the weight gradient
    each one forward's worth (SB-transformers "Forward and reverse FLOPs"; Narayanan 2021 §5.1);
    a materialized score matrix likewise; norms and activations the same multiplier."""
    return 2 * S("flops")


def backward_flops_flash() -> sp.Expr:
    """Backward FLOPs of FlashAttention: 2.5× the forward (it recomputes S and P; Dao-AILab/
    flash-attention benchmarks/benchmark_flash_attention.py counts the backward as 2.5 forwards)."""
    return sp.Rational(5, 2) * S("flops")


def backward_bytes() -> sp.Expr:
    """Backward HBM bytes of an operator: 2× the forward (the input and the weight gradient each
    move the forward's tensors again; SB-transformers "Forward and reverse FLOPs"); norms and
    activations likewise."""
    return 2 * S("hbm_bytes")


def norm_backward_bytes() -> sp.Expr:
    """Backward HBM bytes of a fused LayerNorm / RMSNorm whose forward moved ``hbm_bytes``, ``w_bytes``
    of them its weights: one pass reads the saved input and the output gradient and writes the input
    gradient (3 activation tensors to the forward's 2), with the weight-gradient partial sums in the
    same pass (apex contrib ``fast_layer_norm`` ln_bwd, Megatron-LM's persistent LayerNorm;
    Transformer Engine ``layernorm_bwd`` / ``rmsnorm_bwd``); the weights are read and their gradient
    written (2×)."""
    w = S("w_bytes")
    return sp.Rational(3, 2) * (S("hbm_bytes") - w) + 2 * w


def act_backward_bytes() -> sp.Expr:
    """Backward HBM bytes of a fused MLP activation over ``n_up`` inputs whose forward moved
    ``hbm_bytes`` (read ``n_up`` inputs, write one): the backward reads the saved inputs and the
    output gradient and writes ``n_up`` input gradients, ``(2·n_up + 1)/(n_up + 1)`` of the forward
    (NVIDIA/Megatron-LM megatron/core/fusions/fused_bias_gelu.py ``bias_gelu_back(g, bias, y)``,
    fused_bias_swiglu.py ``swiglu_back(g, y)``)."""
    n = S("n_up")
    return (2 * n + 1) / (n + 1) * S("hbm_bytes")


def scores_forward_per() -> sp.Expr:
    """HBM bytes per score of a materialized attention's forward at 2-byte scores: the scores
    written, the softmax reading the share ``r_sm`` of them and writing all, the PV GEMM reading the
    probabilities (2 + 2·r_sm + 2 + 2), and with attention dropout (``drop_a`` = 1) its read, write
    and 1-byte mask (5) (Korthikanti 2022 §4.1, the ``5as²b`` term; FlashAttention §2.2 "Standard
    attention"). A causal mask lets the softmax read only the kept triangle (``r_sm`` = 1/2):
    Megatron-LM's ``scaled_upper_triang_masked_softmax`` (megatron/fused_kernels, from 2020-09, 51a2e6b)
    loads the elements up to the diagonal of each row and writes the whole row, zeros above it."""
    return 6 + 2 * S("r_sm") + 5 * S("drop_a")


def residual_forward_per() -> sp.Expr:
    """HBM bytes per hidden element of one residual block's fused bias-dropout-add forward: read the
    branch output and the residual, write the sum (``3·b_a``), and with hidden dropout (``drop_h`` = 1)
    its 1-byte mask (Megatron's fused bias-dropout-add; Korthikanti 2022 §4.1 tensors)."""
    return 3 * S("b_a") + S("drop_h")


def scores_backward_per() -> sp.Expr:
    """Backward HBM bytes per score of a materialized attention (the forward's
    ``8 (+5 with attention dropout)``, :mod:`llmcost.training.compute`): the PV GEMM's backward writes
    the probability gradient and its ``dV`` reads the probabilities (2 + 2), the dropout backward
    reads the gradient and the 1-byte mask and writes (5, with ``drop_a`` = 1), the softmax backward
    reads the probabilities and their gradient and writes the score gradient (6), which the ``dQ`` and
    ``dK`` GEMMs each read (4): ``14 + 5·d_a`` at 2-byte scores (Megatron-LM
    ``FusedScaleMaskSoftmax`` backward ``scaled_masked_softmax_backward(grads, softmax_results)``;
    FlashAttention §2.2 "Standard attention" backward). Under a causal mask the softmax backward reads
    the share ``r_sm`` = 1/2 of both (the upper-triangular kernel's backward loads the gradient and
    the output up to the diagonal and writes the whole row): ``10 + 4·r_sm + 5·d_a``."""
    return 10 + 4 * S("r_sm") + 5 * S("drop_a")


def residual_backward_per() -> sp.Expr:
    """Backward HBM bytes per hidden element of one residual block's dropout + add
    (the forward's ``3·b_a (+1 mask with hidden dropout)``): the add passes the gradient through to
    both branches unchanged, the dropout backward reads it and the mask and writes (``2·b_a + 1``,
    with ``drop_h`` = 1), and where the block's input forks the two gradients are summed (read 2,
    write 1: ``3·b_a``; autograd accumulation, pytorch/pytorch torch/csrc/autograd/input_buffer.cpp)."""
    return 3 * S("b_a") + S("drop_h") * (2 * S("b_a") + 1)


# --- unfused (eager) elementwise chains ---------------------------------------------------------
_FP32 = 4  # bytes of the fp32 intermediates of an eager RMSNorm (the op-math type of 16-bit input)


def norm_unfused_bytes() -> sp.Expr:
    """HBM bytes of an eager (unfused) RMSNorm forward over ``n_el`` activation elements, each kernel
    of :data:`llmcost.training.compute.RMSNORM_EAGER_KERNELS` reading and writing whole tensors: upcast (read ``b_a``, write 4),
    pow (read 4, write 4), mean (read 4; its ``T``-sized output, the ``add_`` and ``rsqrt`` are
    negligible), mul by the reciprocal RMS (read 4, write 4), downcast (read 4, write ``b_a``), mul by
    the weight (read ``b_a``, write ``b_a``): ``n_el·(4·b_a + 28)``, 9× the fused kernel's
    ``2·n_el·b_a`` at 16-bit activations (source: :data:`llmcost.training.compute.RMSNORM_EAGER_KERNELS`). Assumes 16-bit
    activations (at fp32 the casts are no-ops). ``nn.LayerNorm`` is one fused CUDA kernel in eager
    PyTorch (``native_layer_norm``), so this applies to RMSNorm only."""
    b = S("b_a")
    return S("n_el") * (b + _FP32 + 2 * _FP32 + _FP32 + 2 * _FP32 + _FP32 + b + 2 * b)


def act_unfused_bytes() -> sp.Expr:
    """HBM bytes of an unfused MLP activation over ``n_el`` output elements (``n_up`` up projections;
    ``bias_a`` 1 when the activation adds the up projections' bias). Gated (SwiGLU, ``n_up`` 2) in
    eager PyTorch: ``silu(gate)`` (read 1, write 1) then ``* up`` (read 2, write 1), 5 tensor passes
    instead of the fused kernel's 3 (pytorch/torchtitan torchtitan/models/llama/model.py
    FeedForward.forward ``w2(F.silu(w1(x)) * w3(x))``; Megatron-LM ``--no-bias-swiglu-fusion`` path
    ``F.silu(x[0]) * x[1]``). A plain activation (GeLU, ReLU) is one kernel either way (2 passes).
    Megatron's un-fused bias path adds the bias in its own kernel before the activation
    (megatron/model/transformer.py ParallelMLP: ``activation_func(intermediate + bias)`` when
    ``bias_gelu_fusion`` is off; the GEMM runs with ``skip_bias_add``): 2 more passes per up
    projection. Passes are tensors of ``n_el·b_a`` bytes."""
    n_up = S("n_up")
    return S("n_el") * S("b_a") * ((n_up + 1) + 2 * (n_up - 1) + 2 * n_up * S("bias_a"))


def act_unfused_kernels() -> sp.Expr:
    """Extra kernels of an unfused activation over the fused one (:func:`act_unfused_bytes`):
    the separate ``silu`` of a gated activation (``n_up − 1``) and the bias add (``bias_a``)."""
    return (S("n_up") - 1) + S("bias_a")


# --- rotary position embedding -------------------------------------------------------------------
def rope_width_std() -> sp.Expr:
    """Query and key elements per token one device rotates in an MHA/GQA layer: its query heads and
    the KV heads it holds, split up to ``n_kv`` ranks as the graph splits them
    (:mod:`llmcost.graph.ops`, ``kvh``): ``q_dim/t + kv_dim/min(t, n_kv)``."""
    t = S("tp")
    return S("q_dim") / t + S("kv_dim") / sp.Min(t, S("n_kv"))


def rope_width_mla() -> sp.Expr:
    """The same for MLA, whose rotary part is ``d_rope`` per query head and one shared ``d_rope``
    key (DeepSeek-V2 §2.1.3, decoupled RoPE): ``n_q/t·d_rope + d_rope``."""
    return S("n_q") / S("tp") * S("d_rope") + S("d_rope")


def rope_fused_bytes() -> sp.Expr:
    """HBM bytes of a fused rotary embedding over ``n_el`` query and key elements: read and write
    each once at ``b_a`` (Transformer Engine ``fused_apply_rotary_pos_emb``, the kernel behind
    Megatron-LM's default ``apply_rope_fusion``: NVIDIA/Megatron-LM megatron/training/arguments.py
    ``--no-rope-fusion``, on by default since 2024-01; a compiler fuses the eager chain likewise).
    Its backward rotates the gradients back: the same bytes (:func:`rope_backward_bytes`)."""
    return 2 * S("b_a") * S("n_el")


def rope_unfused_bytes() -> sp.Expr:
    """HBM bytes of an eager rotary embedding over ``n_el`` query and key elements, as torchtitan
    runs it (pytorch/torchtitan torchtitan/models/llama/model.py ``apply_rotary_emb``:
    ``view_as_complex(x.float())``, a complex multiply by the frequencies, ``view_as_real``,
    ``type_as(x)``): upcast (read ``b_a``, write 4), complex multiply (read 4, write 4), downcast (read
    4, write ``b_a``), three kernels per tensor, ``n_el·(2·b_a + 16)``; the views move nothing and
    the frequency table is small. The backward runs the same three steps on the gradients
    (:func:`rope_backward_bytes`)."""
    return S("n_el") * (2 * S("b_a") + 4 * _FP32)


def rope_backward_bytes() -> sp.Expr:
    """Backward HBM bytes of a rotary embedding: the inverse rotation of ``dq``, ``dk`` moves what
    the forward moved (``hbm_bytes``), not the 2× of a GEMM or a norm (:func:`backward_bytes`):
    it is linear in its input and has no weight [derived]."""
    return S("hbm_bytes")


AUTOCAST_MASTER_BYTES = 4
"""Bytes per element of the fp32 parameters ``torch.autocast`` casts from (and of the gradient it casts
back to)."""


def autocast_cast_bytes() -> sp.Expr:
    """HBM bytes of ``torch.autocast``'s weight casts over ``n_w`` fp32 matmul weight elements in one
    forward: read 4 bytes, write the ``b_w``-byte copy (pytorch/pytorch aten/src/ATen/autocast_mode.cpp
    ``cached_cast``: a leaf tensor that requires grad, a weight, is cast once per autocast region and the
    copy cached until the region exits, so each forward, and each recomputed forward, casts every weight
    again). The backward of each cast (``ToCopyBackward0``) writes the fp32 gradient from the ``b_w``-byte
    one: the same bytes. ``n_w·(4 + b_w)`` each way; the first micro-batch's fp32 gradient becomes ``.grad``
    without a copy, later micro-batches' accumulation is not counted."""
    return S("n_w") * (AUTOCAST_MASTER_BYTES + S("b_w"))


def tp_layout_copy_bytes() -> sp.Expr:
    """HBM bytes of the layout copies of one TP block's sequence-parallel collectives on batch-first
    activations, ``4·S`` for a block whose full activation is ``S`` bytes (``s_blk``, what its
    all-reduce would move): the all-gather's output is re-laid out from rank-major to the sequence
    dimension (``torch.cat(torch.chunk(out, t), dim=1)``) and the reduce-scatter's input the other way
    (``torch.cat(torch.chunk(x, t, dim=1))``), each reading and writing ``S`` (pytorch/pytorch
    torch/distributed/_functional_collectives.py ``all_gather_tensor`` / ``reduce_scatter_tensor``
    for ``gather_dim`` / ``scatter_dim`` != 0, what DTensor's ``Shard(1)`` redistribution calls)."""
    return 4 * S("s_blk")


# --- the loss in eager PyTorch --------------------------------------------------------------------
SOFTMAX_ROW_READS = 3
"""Reads of each logits row by PyTorch's ``log_softmax`` forward on the global-memory path: a max pass,
a sum-of-exponentials pass and the pass that writes the output (pytorch/pytorch
aten/src/ATen/native/cuda/SoftMax.cu ``cunn_SoftMaxForward``; the shared-memory kernel needs the row
within ``sharedMemPerBlock``, 48 KiB: 12k fp32 logits. A 128k vocabulary takes the three-pass path;
recent PyTorch may keep a row of a smaller vocabulary (32k) in registers and read it once, which is not
modelled: its loss is priced high by up to 8 bytes per logit). Measured on an H100 SXM (llmcost,
hardware/measured/h100-sxm.yaml, Llama 3.2 1B, 8192 tokens x 128256): 5.56 ms, 16.0 bytes per logit
at the measured copy rate, against 16 counted (3 reads + 1 write of 4 bytes)."""


def loss_eager_forward_bytes() -> sp.Expr:
    """HBM bytes of an eager ``F.cross_entropy(logits.float(), labels)`` forward over ``n_el`` logits
    (pytorch/torchtitan train.py loss_fn): the fp32 upcast (read ``b_a``, write 4), ``log_softmax``
    (:data:`SOFTMAX_ROW_READS` reads of 4 bytes and one write of 4), ``nll_loss`` (a gather of one
    logit per token: negligible): ``n_el·(b_a + 4 + 4·(r + 1))``, 22 bytes per logit at 16-bit logits
    against the 8 of a fused softmax cross-entropy (:func:`llmcost.training.compute.loss_ops`)."""
    return S("n_el") * (S("b_a") + _FP32 + _FP32 * (SOFTMAX_ROW_READS + 1))


def loss_eager_backward_bytes() -> sp.Expr:
    """Backward HBM bytes of the eager loss of :func:`loss_eager_forward_bytes`: ``nll_loss``'s backward
    zero-fills the fp32 gradient of the logits (write 4) and scatters ``-1/N`` at the targets;
    ``log_softmax``'s backward ``dx = dy - exp(y)·sum(dy)`` sums ``dy`` (read 4), then reads ``dy`` and
    ``y`` and writes ``dx`` (12; aten/src/ATen/native/cuda/SoftMax.cu ``cunn_SoftMaxBackward``); the
    downcast to the logits' dtype (read 4, write ``b_a``): ``n_el·(24 + b_a)``. Measured on an H100
    SXM (hardware/measured/h100-sxm.yaml): fill 1.59 ms, ``log_softmax`` backward 5.71 ms, downcast
    2.67 ms for 1.05e9 logits."""
    return S("n_el") * (_FP32 + 4 * _FP32 + _FP32 + S("b_a"))


# --- MoE token routing -------------------------------------------------------------------------
def moe_permute_bytes() -> sp.Expr:
    """HBM bytes of the token permutations of one MoE layer's forward (Megatron-Core
    ``MoEAlltoAllTokenDispatcher``, megatron/core/transformer/moe/token_dispatcher.py, with the
    fused TE ``moe_permute`` / ``moe_unpermute`` kernels of ``--moe-permute-fusion``): permute the
    ``t_loc`` local tokens into ``A`` expert-ordered rows (read a row per output row, write it:
    ``2·A``), after the dispatch all-to-all sort the received rows by local expert and back before
    the combine (``sort_chunks_by_idxs``, only with more than one local expert: ``s_x`` = 1, read
    and write each: ``4·A``), and unpermute (read the ``A`` rows, write the ``t_loc`` probability-
    weighted sums): ``h·b_a·(3·A + t_loc + 4·s_x·A)``. The backward permutes the gradients the same
    way (:func:`rope_backward_bytes`: same bytes)."""
    A = S("assign")
    return S("d_model") * S("b_a") * (3 * A + S("t_loc") + 4 * S("s_x") * A)


# --- fp8 quantization ----------------------------------------------------------------------------
def fp8_quantize_bytes() -> sp.Expr:
    """HBM bytes to quantize ``n_el`` elements of the ``b_a``-byte input of fp8 GEMMs, written as
    ``copies`` fp8 tensors: row-wise for one GEMM and column-wise (transposed) for the other, since
    Hopper's fp8 tensor cores read only the TN layout (Transformer Engine docs, low-precision
    training "performance considerations": input, weight and output gradient each need both usages;
    ``nvte_cast_transpose`` writes both in one kernel). ``r_q`` reads of the 16-bit tensor: 0 where
    the producing kernel quantizes its own output (TE LayerNormLinear / LayerNormMLP fuse the cast
    into the norm and the activation, delayed scaling), 1 for a standalone cast with the scale known
    (delayed scaling, or the amax fused into the previous op: torchao dynamic scaling compiled), 2
    for current scaling computed in its own pass ("reading the tensor twice: first read: compute
    amax ... second read: apply the scaling factor and cast", TE fp8_current_scaling docs; torchao
    ``roofline_utils`` counts the same bytes): ``n_el·(r_q·b_a + copies)``."""
    return S("n_el") * (S("r_q") * S("b_a") + S("copies"))


def backward_extra_kernels() -> sp.Expr:
    """Extra kernel launches of the backward of an unfused chain of ``k_x`` extra forward kernels:
    2× (the same multiplier as :func:`backward_bytes`: autograd runs one backward node per forward
    op, and a binary op (``mul``) computes two gradients, ``grad·other`` and ``grad·self``;
    pytorch/pytorch tools/autograd/derivatives.yaml ``mul``, ``pow``, ``mean``, ``rsqrt``)."""
    return 2 * S("k_x")


def fwd_bwd_flops() -> sp.Expr:
    """Model FLOPs of forward + backward (:func:`backward_flops`): ``3×`` the forward (PaLM App. B;
    Narayanan 2021 §5.1: ``72BsLh²`` = 3 × the forward's ``24BsLh²``)."""
    return S("flops") + backward_flops()


# --- FLOPs and rates -------------------------------------------------------------------------------
def mfu() -> sp.Expr:
    """Model FLOPs utilisation (PaLM App. B): step FLOPs over (T·N·F), at most 1.

    The step FLOPs count causal attention by the pairs its mask keeps (module docstring;
    Megatron-Core >= 0.12), never more than the kernels execute."""
    return S("flops_step") / (S("t_step") * S("n_gpus") * S("peak_flops"))


def tflops_per_gpu() -> sp.Expr:
    """Achieved FLOP/s per device: FLOPs per step / (T·N) (Narayanan 2021 §5.1)."""
    return S("flops_step") / (S("t_step") * S("n_gpus"))


def tokens_per_s() -> sp.Expr:
    """Throughput: tokens per step / T."""
    return S("tokens_step") / S("t_step")


def time_to_train() -> sp.Expr:
    """Run length in wall time: ``(D/B_tok)·T/g``, the steps' time over the goodput ``g``, the
    share of wall time that trains (Llama Team 2024, arXiv 2407.21783, §3.3.4: 466 job
    interruptions in a 54-day snapshot of Llama 3 405B pre-training on 16k H100, "higher than
    90% effective training time") [derived]."""
    return S("train_tokens") / S("tokens_step") * S("t_step") / S("goodput")


def gpu_hours() -> sp.Expr:
    """Device-hours of the run: ``N·(D/B_tok)·T/(3600·g)``, wall time over the goodput."""
    return S("n_gpus") * time_to_train() / 3600


def energy_j() -> sp.Expr:
    """Energy: ``N·P·time`` over the wall time, ``P`` the mean draw per device over a step by kind of
    work (compute-bound, memory-bound, idle: :func:`llmcost.economics.formulas.mean_draw`; the TDP,
    an upper bound, where the catalog has no draw) [derived]."""
    return S("n_gpus") * S("power_w") * time_to_train()


def total_flops() -> sp.Expr:
    """Model FLOPs of the run: FLOPs per token of a step × the run's tokens, ``(C_step/B_tok)·D``
    [derived]. An unevaluated product, so the generated numpy divides first (the operation order
    llmcost has always used)."""
    return sp.Mul(S("flops_step") / S("tokens_step"), S("train_tokens"), evaluate=False)


def cost_usd() -> sp.Expr:
    """Rental cost: device-hours × price per device-hour [derived]."""
    return gpu_hours() * S("price_h")


# --- memory ----------------------------------------------------------------------------------------
def _state(b: sp.Expr, z: sp.Expr) -> sp.Expr:
    """Bytes of one model-state component: ``Ψ·b/z + Ψ_e·b/min(z, d_e)`` (experts are sharded over
    at most their expert-data-parallel ranks)."""
    return S("psi") * b / z + S("psi_e") * b / sp.Min(z, sp.Max(1, S("d_edp")))


def weights_bytes() -> sp.Expr:
    """Weights per device, ``Ψ·b_w/z_w + Ψ_e·b_w/min(z_w, d_e)``: ZeRO-3 shards them over the
    ``d·c`` data x context ranks (z_w = d·c, else 1). With :func:`gradient_bytes` and
    :func:`optimizer_bytes`, ZeRO stages 0-3 with 16-bit gradients (Rajbhandari et al. 2020 §5,
    Fig. 1: 16Ψ, 4Ψ + 12Ψ/d, 2Ψ + 14Ψ/d, 16Ψ/d) and the Megatron distributed optimizer
    ([MEG-distopt]: bf16 params + fp32 grads 6 + 12/d; fp16 4 + 16/d); with gradients kept in fp32
    (plan ``grad_reduce_in_fp32``, the bf16 default) ZeRO-1 is 6Ψ + 12Ψ/d, ZeRO-2 2Ψ + 16Ψ/d."""
    return _state(S("b_w"), S("z_w"))


def gradient_bytes() -> sp.Expr:
    """Gradients per device, ``Ψ·b_g/z_g + Ψ_e·b_g/min(z_g, d_e)``: ZeRO-2/3 shard them (z_g = d·c)
    (Rajbhandari et al. 2020 §5)."""
    return _state(S("b_g"), S("z_g"))


def optimizer_bytes() -> sp.Expr:
    """Optimizer state per device, ``Ψ·b_o/z_o + Ψ_e·b_o/min(z_o, d_e)``: ZeRO-1/2/3 and the
    Megatron distributed optimizer shard it (z_o = d·c) (Rajbhandari et al. 2020 §5;
    [MEG-distopt])."""
    return _state(S("b_o"), S("z_o"))


def inflight_1f1b() -> sp.Expr:
    """In-flight micro-batches of the first stage with 1F1B and ZB-H1: ``min(m, p)`` (Narayanan
    2021 §2.2.1; Qi et al. 2024 §2.1)."""
    return sp.Min(S("n_micro"), S("pp"))


def inflight_interleaved() -> sp.Expr:
    """Interleaved 1F1B: ``min(m, p)·(1 + (p−1)/(p·v))`` ([MEG-mem] Megatron-LM
    theoretical_memory_usage.py)."""
    return inflight_1f1b() * (1 + (S("pp") - 1) / (S("pp") * S("v_stages")))


def inflight_gpipe() -> sp.Expr:
    """GPipe: all ``m`` micro-batches are in flight before the first backward (Huang et al. 2019)."""
    return S("n_micro")


def inflight_last_1f1b() -> sp.Expr:
    """In-flight micro-batches of the last pipeline stage with 1F1B and ZB-H1: one, its forward
    followed at once by its backward (Megatron-Core schedules.py ``get_pp_rank_microbatches``: rank
    ``p−1`` runs ``p − r − 1`` = 0 warm-up forwards)."""
    return sp.Min(S("n_micro"), 1)


def inflight_last_interleaved() -> sp.Expr:
    """Interleaved 1F1B on the last rank: ``(v−1)·p`` warm-up (micro-batch, chunk) forwards (Megatron-Core
    schedules.py: ``(p − r − 1)·2 + (v − 1)·p`` at rank ``r = p − 1``) and one more in the steady state,
    each a chunk of ``1/v`` of the stage's layers: ``((v−1)·p + 1)/v`` stage-micro-batches."""
    v = S("v_stages")
    return ((v - 1) * S("pp") + 1) / v


def pipeline_logits() -> sp.Expr:
    """What one micro-batch's logits add to the device with the most memory: at ``p`` = 1 all of them
    (the same device holds every layer); with a pipeline the logits live on the last stage, which
    holds ``n_if,L`` of the first stage's ``n_if`` micro-batches of activations, so they count only by
    what the last stage's total exceeds the first's, ``max(0, M_lg + A_1·n_if,L/n_if − A_1)``
    (Megatron-LM theoretical_memory_usage.py counts the output layer and loss only at
    ``pipeline_model_parallel_size == 1``; torchtitan's benchmark: "Different PP ranks can have different
    peak memory usages") [derived: the last stage's layers taken as the first's]."""
    multi = sp.Min(S("pp") - 1, 1)
    last = S("logits") + S("act_first") * S("inflight_last") / S("inflight")
    return (1 - multi) * S("logits") + multi * sp.Max(0, last - S("act_first"))


def activation_bytes() -> sp.Expr:
    """Activations of the first pipeline stage at the peak: its in-flight micro-batches times its
    layers' stored activations, plus one layer's full activations while it is recomputed (full
    recomputation), ``n_if·(L_d·A_d + L_e·A_e) + A_rc`` (Korthikanti 2022 §4-5; Narayanan 2021
    §2.2.1)."""
    stored = S("layers_dense") * S("act_dense") + S("layers_moe") * S("act_moe")
    return S("inflight") * stored + S("act_work")


def logits_bytes() -> sp.Expr:
    """Logits of one micro-batch over the device's vocabulary shard on the last stage at their
    peak, ``b_ce·(s/c)·b·V/t``: ``b_ce`` 4 with a fused vocabulary-parallel cross-entropy (fp32
    logits: [MEG-mem] theoretical_memory_usage.py, output layer), 10 with the eager one (plan
    ``fused_ce`` false): the bf16 logits, their fp32 upcast and log_softmax's fp32 output coexist
    (pytorch/torchtitan train.py ``loss_fn``: ``cross_entropy(pred.flatten(0, 1).float(), ...)``;
    ``F.cross_entropy`` = ``log_softmax`` + ``nll_loss``, log_softmax saving its output)."""
    return S("b_ce") * S("seq") / S("cp") * S("micro_batch") * S("vocab") / S("tp")


def zero3_buffer_bytes() -> sp.Expr:
    """ZeRO-3 / FSDP gathered-parameter buffers: two layers in flight, the current one and the
    prefetched next, ``2·(Ψ + Ψ_e)·b_w/L`` [derived: DeepSpeed ``stage3_prefetch_bucket_size``,
    PyTorch FSDP ``forward_prefetch`` gather one layer ahead]."""
    return 2 * (S("psi") + S("psi_e")) / S("n_layers") * S("b_w")


def _at_b_a(e: sp.Expr) -> sp.Expr:
    """Activation bytes at ``b_a`` bytes per element: Korthikanti's counts (2-byte activations,
    1-byte masks) scaled by ``b_a/2``."""
    return S("b_a") / 2 * e


def _act_common() -> sp.Expr:
    s, b, h, t = S("seq") / S("cp"), S("micro_batch"), S("d_model"), S("tp")
    return (
        s * b * h * (8 + 2 * S("drop_h")) / S("tp_sp")
        + (2 * s * b * (2 * S("q_dim") + 2 * S("kv_dim")) + S("phi_a") * s * b * S("d_ff_act")) / t
    )


def _fp8_saved_inputs() -> sp.Expr:
    """Bytes an fp8 plan does not store because Transformer Engine keeps each linear layer's input for
    the weight-gradient GEMM as its fp8 cast (TE ``Linear`` / ``LayerNormLinear`` forward:
    ``saved_inputmat = inputmat``, the quantized tensor, where fp8 and the wgrad GEMM runs in fp8,
    NVIDIA/TransformerEngine transformer_engine/pytorch/module/linear.py), one byte instead of
    ``b_a``: the QKV and FC1 inputs (``h`` each, sequence-parallel shards), the output projection's
    (``q_dim``) and FC2's (the FFN width ``f``):
    ``δ_8·(b_a − 1)·sb·(2h/t_sp + (q_dim + f)/t)`` [derived: Korthikanti's per-tensor count]. torchao's
    float8 keeps the high-precision input (``matmul_with_hp_or_float8_args.forward``:
    ``ctx.save_for_backward(input_hp, weight_hp_t)``), so ``δ_8`` is 0 there (plan ``fp8_hp_inputs``)."""
    s, b, t = S("seq") / S("cp"), S("micro_batch"), S("tp")
    per_tok = 2 * S("d_model") / S("tp_sp") + (S("q_dim") + S("d_ff_act")) / t
    return S("fp8_saved") * (S("b_a") - 1) * s * b * per_tok


def act_layer_materialized() -> sp.Expr:
    """Activation bytes of one layer for one micro-batch, attention scores stored (no recompute).

    Korthikanti et al. 2022 §4, Table 2 (``sbh(34 + 5as/h)`` for MHA, f = 4h, GeLU) generalized to
    GQA (n_kv), any FFN width and gated MLPs [derived: the same per-tensor accounting]:
    ``sbh(8 + 2δ_h)/t_sp + [4sb(q_dim + kv_dim) + φ_a·sb·f]/t + (2 + 3δ_a)·n_q·s²·b/t``: the two
    1-byte masks of the attention-output and MLP-output dropouts (δ_h) and the attention-probability
    dropout's mask + output (δ_a), as Korthikanti counts them; context parallel divides the
    sequence (MEG-CP); less the linear inputs an fp8 plan keeps in 8 bits (:func:`_fp8_saved_inputs`)."""
    s = S("seq") / S("cp")
    scores = (2 + 3 * S("drop_a")) * S("n_q") * s * S("seq") * S("micro_batch") / S("tp")
    return _at_b_a(_act_common() + scores) - _fp8_saved_inputs()


def act_layer_flash() -> sp.Expr:
    """One layer with FlashAttention: the s² term is replaced by the fp32 log-sum-exp
    ``4·n_q·s·b/t`` (Dao 2022 §3.1: O(N) extra memory)."""
    s = S("seq") / S("cp")
    return _at_b_a(_act_common() + 4 * S("n_q") * s * S("micro_batch") / S("tp")) - _fp8_saved_inputs()


def act_layer_selective() -> sp.Expr:
    """Selective recomputation: the attention core (QK^T, softmax, dropout, ·V) is recomputed so
    its s² activations are not stored: ``sbh(10 + 24/t)`` / ``34sbh/t`` with SP for GPT
    (Korthikanti 2022 §5, Table 2); fp8 plans under Transformer Engine keep the linear inputs in 8
    bits (:func:`_fp8_saved_inputs`, as the two policies above)."""
    return _at_b_a(_act_common()) - _fp8_saved_inputs()


def act_layer_op() -> sp.Expr:
    """Per-op selective checkpointing as torchtitan runs it ("Saves output of all compute ops,
    except every second mm": pytorch/torchtitan parallelize_llama.py ``_apply_ac_to_transformer_block``,
    op-SAC save list mm / SDPA / reduce-scatter / max): a Llama block's matmuls run wq, wk, wv, wo,
    w1, w3, w2, so it keeps the outputs of wq, wv, w1 and w2 (a GELU MLP's fc1 only), the attention
    output with its fp32 log-sum-exp, and the block input:
    ``b_a·sb·[h/t_sp + (2·q_dim + kv_dim + f)/t + g·h] + 4·n_q·sb/t`` (``f`` the FFN width; the w2
    output is a full-width partial sum on each TP rank; KV heads taken as split over all ``t``
    ranks), ``g`` 1 for a gated MLP (φ_a 6) and 0 otherwise [derived: the policy over the block's
    op order]. Dense MHA/GQA blocks only (a plan rule rejects ``op`` for MLA and MoE models)."""
    s, b, t = S("seq") / S("cp"), S("micro_batch"), S("tp")
    gated = (S("phi_a") - 4) / 2
    per_tok = (
        S("d_model") / S("tp_sp") + (2 * S("q_dim") + S("kv_dim") + S("d_ff_act")) / t + gated * S("d_model")
    )
    return S("b_a") * s * b * per_tok + 4 * S("n_q") * s * b / t


def act_layer_modules() -> sp.Expr:
    """Bytes one layer stops storing under Megatron-Core's fine-grained recomputation
    (``recompute_modules``, :mod:`llmcost.training.recompute`), out of the per-tensor count of
    :func:`act_layer_selective`: ``r_h`` hidden-width linear inputs (a discarded norm output, a
    checkpointed MLP's FC1 input) at their stored width ``b_in = b_a − δ_8·(b_a − 1)`` (with fp8 and a
    recomputed module Megatron-Core makes the consumer save its 16-bit input, discarded with it:
    ``set_save_original_input``, transformer_layer.py / moe/experts.py); with ``mla_up_proj`` MLA's
    query, key and value (``r_up``, ``b_a·(q_dim + 2·kv_dim)/t``); a checkpointed FFN block's activations
    of width ``f_rc`` (``(φ_a·b_a/2 − δ_8·(b_a − 1))·f_rc/t``: its up-projection outputs and activation
    output as stored); and the activation output alone of width ``f_act_rc`` (``moe_act``, ``b_in/t``),
    per token of ``s·b/c`` [derived: the stored tensors the modules discard, Korthikanti's count]."""
    s, b, t = S("seq") / S("cp"), S("micro_batch"), S("tp")
    b_in = S("b_a") - S("fp8_saved") * (S("b_a") - 1)
    ffn = (S("phi_a") * S("b_a") / 2 - S("fp8_saved") * (S("b_a") - 1)) * S("f_rc")
    per_tok = (
        S("r_h") * b_in * S("d_model") / S("tp_sp")
        + (S("r_up") * S("b_a") * (S("q_dim") + 2 * S("kv_dim")) + ffn + b_in * S("f_act_rc")) / t
    )
    return s * b * per_tok


def act_layer_full() -> sp.Expr:
    """Full recomputation stores only each layer's input, ``2sbh/t_sp`` (Korthikanti 2022 Table 2)."""
    return _at_b_a(2 * S("seq") / S("cp") * S("micro_batch") * S("d_model") / S("tp_sp"))


FORMULAS: dict[str, Callable[[], sp.Expr]] = {
    "bubble__1f1b": bubble_1f1b,
    "bubble__gpipe": bubble_1f1b,
    "bubble__interleaved": bubble_interleaved,
    "bubble__zero_bubble": bubble_zero_bubble,
    "pp__p2p_serial": pp_p2p_serial,
    "pp__p2p_unpaired": pp_p2p_unpaired,
    "pp__p2p_overlap": pp_p2p_overlap,
    "pipeline__1f1b": lambda: pipeline_time(bubble_1f1b),
    "pipeline__gpipe": lambda: pipeline_time(bubble_1f1b),
    "pipeline__interleaved": lambda: pipeline_time(bubble_interleaved),
    "pipeline__zero_bubble": lambda: pipeline_time(bubble_zero_bubble),
    "dp__overlap": dp_exposed_overlap,
    "dp__serial": dp_exposed_serial,
    "dp__diloco": dp_exposed_diloco,
    "dp__streaming": dp_exposed_streaming,
    "diloco__fragment_bytes": diloco_fragment_bytes,
    "diloco__outer_bytes": diloco_outer_bytes,
    "diloco__comm_reduction": diloco_comm_reduction,
    "memory__outer_state": diloco_outer_state_bytes,
    "zero3": zero3_exposed,
    "zero3__copy_out": zero3_copy_out,
    "zero3__serial": zero3_serial,
    "throttle": throttle_time,
    "throttle__compute_time": throttle_compute_time,
    "zero3__collectives": zero3_collectives,
    "zero3__collective_bytes": zero3_collective_bytes,
    "zero3__layer_comm": zero3_layer_comm,
    "tp__sp": tp_exposed_sp,
    "tp__all_reduce": tp_exposed_allreduce,
    "tp__overlap": tp_exposed_overlap,
    "tp__sp_async": tp_exposed_sp_async,
    "tp__fused_rs": tp_exposed_fused_rs,
    "tp__pair_fused": tp_pair_fused,
    "tp__pair_overlap": tp_pair_overlap,
    "overlap__contended": overlap_contended,
    "sublayer__speedup": sublayer_speedup,
    "comm__hbm_ring_rs": ring_rs_hbm,
    "comm__hbm_ring_ag": ring_ag_hbm,
    "comm__hbm_ring_ar": ring_ar_hbm,
    "comm__hbm_fused_rs": fused_rs_hbm,
    "tp__all_reduce_async": tp_exposed_allreduce_async,
    "ep__all_to_all": ep_exposed,
    "ep__overlap": ep_exposed_overlap,
    "cp__ring": cp_ring_exposed,
    "bwd__flops": backward_flops,
    "bwd__flops_flash": backward_flops_flash,
    "bwd__bytes": backward_bytes,
    "bwd__extra_kernels": backward_extra_kernels,
    "bwd__norm_bytes": norm_backward_bytes,
    "bwd__act_bytes": act_backward_bytes,
    "fwd__scores_per": scores_forward_per,
    "fwd__residual_per": residual_forward_per,
    "bwd__scores_per": scores_backward_per,
    "bwd__residual_per": residual_backward_per,
    "norm__unfused_bytes": norm_unfused_bytes,
    "act__unfused_bytes": act_unfused_bytes,
    "act__unfused_kernels": act_unfused_kernels,
    "rope__width_std": rope_width_std,
    "rope__width_mla": rope_width_mla,
    "rope__fused_bytes": rope_fused_bytes,
    "rope__unfused_bytes": rope_unfused_bytes,
    "rope__backward_bytes": rope_backward_bytes,
    "autocast__cast_bytes": autocast_cast_bytes,
    "tp__layout_copy_bytes": tp_layout_copy_bytes,
    "fp8__quantize_bytes": fp8_quantize_bytes,
    "moe__permute_bytes": moe_permute_bytes,
    "loss__eager_fwd_bytes": loss_eager_forward_bytes,
    "loss__eager_bwd_bytes": loss_eager_backward_bytes,
    "seqdist__doc_share": doc_attention_share,
    "seqdist__padding_overhead": padding_overhead,
    "seqdist__pack_cv": pack_pairs_cv,
    "seqdist__straggler": straggler,
    "flops__fwd_bwd": fwd_bwd_flops,
    "optimizer": optimizer_time,
    "optimizer__mp_bytes": optimizer_mp_bytes,
    "offload__cpu": offload_host,
    "offload__nvme": offload_nvme,
    "offload__param_fetch": offload_param_fetch,
    "offload__activations": offload_activations,
    "mfu": mfu,
    "tflops_per_gpu": tflops_per_gpu,
    "tokens_per_s": tokens_per_s,
    "time_to_train": time_to_train,
    "gpu_hours": gpu_hours,
    "total_flops": total_flops,
    "energy_j": energy_j,
    "cost_usd": cost_usd,
    "memory__weights": weights_bytes,
    "memory__gradients": gradient_bytes,
    "memory__optimizer": optimizer_bytes,
    "memory__activations": activation_bytes,
    "memory__logits": logits_bytes,
    "memory__pipeline_logits": pipeline_logits,
    "inflight_last__1f1b": inflight_last_1f1b,
    "inflight_last__zero_bubble": inflight_last_1f1b,
    "inflight_last__interleaved": inflight_last_interleaved,
    "inflight_last__gpipe": inflight_gpipe,
    "memory__buffers": zero3_buffer_bytes,
    "inflight__1f1b": inflight_1f1b,
    "inflight__gpipe": inflight_gpipe,
    "inflight__interleaved": inflight_interleaved,
    "inflight__zero_bubble": inflight_1f1b,
    "act__materialized": act_layer_materialized,
    "act__flash": act_layer_flash,
    "act__selective": act_layer_selective,
    "act__full": act_layer_full,
    "act__op": act_layer_op,
    "act__modules": act_layer_modules,
}


def expression(name: str) -> sp.Expr:
    """The sympy expression of quantity ``name`` (a key of :data:`FORMULAS`)."""
    return FORMULAS[name]()


def step_expression(schedule: str, dp_mode: str, zero3: bool, zero3_serial: bool = False) -> sp.Expr:
    """Whole step time: pipeline + exposed DP + ZeRO-3 (prefetched, or serial: plan
    ``zero3_serial``) + optimizer + offload + what the power limit adds (for ``--explain``)."""
    e = expression(f"pipeline__{schedule}") + expression(f"dp__{dp_mode}") + S("t_opt") + S("t_offload")
    e += expression("throttle")
    if zero3:
        e += expression("zero3__serial" if zero3_serial else "zero3")
    return e


GENERATED = Path(__file__).with_name("_generated.py")
HEADER = generated_header(
    "llmcost.training.formulas",
    "tests/test_training.py",
    "One numpy function per training quantity; FUNCTIONS maps its name to\n(function, argument names, expression hash).",
)


def generated_source() -> str:
    """Source of the runtime module: one function per entry of :data:`FORMULAS`."""
    from llmcost.symbolic.compile import formulas_source

    return formulas_source(FORMULAS, arguments, header=HEADER)


if __name__ == "__main__":
    write_generated(GENERATED, generated_source())
