"""Generated from llmcost/training/formulas.py by
``python -m llmcost.training.formulas``: do not edit (tests/test_training.py pins it).

One numpy function per training quantity; FUNCTIONS maps its name to
(function, argument names, expression hash).
"""
# ruff: noqa

import numpy


def bubble__1f1b(pp, r_bub, t_bwd, t_comm_mb, t_fwd, t_rc):
    """1F1B (PipeDream-Flush) and GPipe: bubble ``(p−1)(t_f + t_b)`` (Narayanan 2021 §2.2.1), the"""
    return r_bub*(pp - 1)*(t_bwd + t_comm_mb + t_fwd + t_rc)


def bubble__gpipe(pp, r_bub, t_bwd, t_comm_mb, t_fwd, t_rc):
    """1F1B (PipeDream-Flush) and GPipe: bubble ``(p−1)(t_f + t_b)`` (Narayanan 2021 §2.2.1), the"""
    return r_bub*(pp - 1)*(t_bwd + t_comm_mb + t_fwd + t_rc)


def bubble__interleaved(pp, r_bub, t_bwd, t_comm_mb, t_fwd, t_rc, v_stages):
    """Interleaved 1F1B with v chunks per device: ``(p−1)(t_f + t_b)/v`` (Narayanan 2021 §2.2.2),"""
    return r_bub*(pp - 1)*(t_bwd + t_comm_mb + t_fwd + t_rc)/v_stages


def bubble__zero_bubble(pp, r_bub, t_comm_mb, t_fwd, t_rc):
    """ZB-H1 (Qi et al. 2024 §2.1): ``(p−1)(T_F + T_B − T_W)``, the backward split evenly into input"""
    return r_bub*(pp - 1)*((1/3)*t_comm_mb + t_fwd + t_rc)


def pp__p2p_serial(n_micro, pp, t_p2p, v_stages):
    """Pipeline send/recvs on the critical path: one activation send forward and one gradient send"""
    return t_p2p*(2*n_micro*v_stages + 2*pp - 2)


def pp__p2p_unpaired(n_micro, pp, t_p2p, t_p2p_part, t_pp_ag, v_stages):
    """Pipeline send/recvs as DeepSpeed's PipelineEngine issues them: each schedule step's send and"""
    return (t_p2p + t_p2p_part + t_pp_ag)*(2*n_micro*v_stages + 2*pp - 2)


def pp__p2p_overlap(n_micro, pp, t_bwd, t_fwd, t_p2p, t_rc, v_stages):
    """Pipeline send/recvs overlapped with compute (Megatron-Core ``overlap_p2p_comm``, on by"""
    return n_micro*v_stages*(numpy.maximum(0, t_p2p - (t_bwd + t_rc)/v_stages) + numpy.maximum(0, -t_fwd/v_stages + t_p2p)) + t_p2p*(2*pp - 2)


def pipeline__1f1b(n_micro, pp, r_bub, t_bwd, t_comm_mb, t_fwd, t_pp_p2p, t_rc):
    return n_micro*(t_bwd + t_comm_mb + t_fwd + t_rc) + r_bub*(pp - 1)*(t_bwd + t_comm_mb + t_fwd + t_rc) + t_pp_p2p


def pipeline__gpipe(n_micro, pp, r_bub, t_bwd, t_comm_mb, t_fwd, t_pp_p2p, t_rc):
    return n_micro*(t_bwd + t_comm_mb + t_fwd + t_rc) + r_bub*(pp - 1)*(t_bwd + t_comm_mb + t_fwd + t_rc) + t_pp_p2p


def pipeline__interleaved(n_micro, pp, r_bub, t_bwd, t_comm_mb, t_fwd, t_pp_p2p, t_rc, v_stages):
    return n_micro*(t_bwd + t_comm_mb + t_fwd + t_rc) + r_bub*(pp - 1)*(t_bwd + t_comm_mb + t_fwd + t_rc)/v_stages + t_pp_p2p


def pipeline__zero_bubble(n_micro, pp, r_bub, t_bwd, t_comm_mb, t_fwd, t_pp_p2p, t_rc):
    return n_micro*(t_bwd + t_comm_mb + t_fwd + t_rc) + r_bub*(pp - 1)*((1/3)*t_comm_mb + t_fwd + t_rc) + t_pp_p2p


def dp__overlap(m_ag, m_bwd, m_dp, m_fwd, n_buckets, n_red, s_comm, t_ag, t_bwd, t_dp, t_fwd):
    """Data-parallel reduction bucketed and overlapped with the last micro-batch's backward"""
    return n_red*numpy.maximum(numpy.maximum(numpy.maximum(t_dp/n_buckets, s_comm*t_dp), -t_bwd + t_dp), m_bwd + m_dp - t_bwd) + numpy.maximum(numpy.maximum(numpy.maximum(t_ag/n_buckets, s_comm*t_ag), t_ag - t_fwd), m_ag + m_fwd - t_fwd)


def dp__serial(n_red, t_ag, t_dp):
    """Data-parallel reduction after the backward, not overlapped (Megatron without"""
    return n_red*t_dp + t_ag


def dp__diloco(sync_interval, t_outer):
    """DiLoCo / local SGD (Douillard et al. 2023, arXiv 2311.08105, Algorithm 1): each data-parallel"""
    return t_outer/sync_interval


def dp__streaming(sync_fragments, sync_interval, sync_overlap, t_frag, t_inner):
    """Streaming DiLoCo (Douillard et al. 2025, arXiv 2501.18512): the parameters are split into"""
    return sync_fragments*numpy.maximum(0, -sync_overlap*t_inner + t_frag)/sync_interval


def diloco__fragment_bytes(b_sync, psi, psi_e, sync_fragments):
    """Bytes of one Streaming DiLoCo fragment's outer all-reduce per device, ``(Ψ + Ψ_e)·b_s/P``:"""
    return b_sync*(psi + psi_e)/sync_fragments


def diloco__outer_bytes(b_sync, psi, psi_e):
    """Bytes of DiLoCo's outer all-reduce per device: every parameter the device holds,"""
    return b_sync*(psi + psi_e)


def diloco__comm_reduction(b_g, b_sync, sync_interval):
    """Data-parallel bytes per token of ordinary data parallelism (one gradient all-reduce of"""
    return b_g*sync_interval/b_sync


def memory__outer_state(psi, psi_e):
    """DiLoCo's outer optimizer state per device, ``8·(Ψ + Ψ_e)``: the global parameters"""
    return 8*psi + 8*psi_e


def zero3(layers_stage, m_bwd, m_fwd, m_rc, m_z3_ag, m_z3_rs, n_micro, s_comm, t_bwd, t_fwd, t_rc, t_z3_ag, t_z3_copy, t_z3_rs, z3_rc):
    """ZeRO-3 / FSDP FULL_SHARD, overlapped layer by layer (not per step): per micro-batch, each"""
    return n_micro*(2*t_z3_ag + t_z3_rs + z3_rc*(t_z3_ag + (layers_stage - 1)*numpy.maximum(numpy.maximum(s_comm*t_z3_ag, t_z3_ag - t_rc/layers_stage), m_z3_ag + m_rc/layers_stage - t_rc/layers_stage)) + (layers_stage - 1)*numpy.maximum(numpy.maximum(s_comm*t_z3_ag, t_z3_ag - t_fwd/layers_stage), m_z3_ag + m_fwd/layers_stage - t_fwd/layers_stage) + (layers_stage - 1)*numpy.maximum(numpy.maximum(s_comm*(t_z3_ag + t_z3_rs), t_z3_ag + t_z3_rs - t_bwd/layers_stage), m_z3_ag + m_z3_rs + m_bwd/layers_stage - t_bwd/layers_stage)) + t_z3_copy


def zero3__copy_out(b_w, eta_m, mem_bw, n_micro, psi):
    """FSDP2's gather copy-out over the step, on the compute stream: after each all-gather,"""
    return 4*b_w*n_micro*psi/(eta_m*mem_bw)


def zero3__serial(layers_stage, n_micro, t_z3_ag, t_z3_copy, t_z3_rs, z3_rc):
    """ZeRO-3 whose collectives never overlap compute: per micro-batch and layer, the gather before"""
    return layers_stage*n_micro*(t_z3_ag*(z3_rc + 2) + t_z3_rs) + t_z3_copy


def throttle(kappa_clk, t_cact):
    """Time the board power limit adds to a step, ``(1/κ − 1)·T_c``: compute-bound work runs at the"""
    return t_cact*(-1 + kappa_clk**(-1.0))


def throttle__compute_time(h_bwd, h_fwd, h_rc, n_micro, t_bub, t_bwd, t_comm_mb, t_fwd, t_rc):
    """Compute-bound time on the critical path at the maximum clock, what a lower sustained clock"""
    return n_micro*(1 + t_bub/(n_micro*(t_bwd + t_comm_mb + t_fwd + t_rc)))*(numpy.maximum(0, -h_bwd + t_bwd) + numpy.maximum(0, -h_fwd + t_fwd) + numpy.maximum(0, -h_rc + t_rc))


def zero3__collectives(psi_layer, z3_bucket):
    """ZeRO-3 collectives per layer and pass when parameters move in prefetch buckets,"""
    return numpy.ceil(psi_layer/z3_bucket)


def zero3__collective_bytes(layer_bytes, n_z3):
    """Bytes of one ZeRO-3 collective: the layer's ``M_ℓ`` split evenly over its ``n_z3``"""
    return layer_bytes/n_z3


def zero3__layer_comm(n_z3, t_z3_one):
    """One layer's ZeRO-3 gather (or reduce-scatter) in one pass as ``n_z3`` collectives of"""
    return n_z3*t_z3_one


def tp__sp(n_fpass, t_tp_ag, t_tp_rs):
    """TP with sequence parallelism, not overlapped: per block an all-gather of its input and a"""
    return (n_fpass + 1)*(t_tp_ag + t_tp_rs)


def tp__all_reduce(n_fpass, t_tp_ar):
    """TP without sequence parallelism: one all-reduce per block in every pass (Megatron's f / g"""
    return t_tp_ar*(n_fpass + 1)


def tp__overlap(m_g_in, m_g_out, m_tp_ag, m_tp_rs, n_fpass, t_gemm_in, t_gemm_out, t_tp_ag, t_tp_rs):
    """TP communication overlapped with the adjacent GEMMs (Megatron-Core ``--tp-comm-overlap``,"""
    return n_fpass*(numpy.maximum(numpy.maximum(0, -t_gemm_in + t_tp_ag), m_g_in + m_tp_ag - t_gemm_in) + numpy.maximum(numpy.maximum(0, -t_gemm_out + t_tp_rs), m_g_out + m_tp_rs - t_gemm_out)) + numpy.maximum(numpy.maximum(0, -t_gemm_in + t_tp_rs), m_g_in + m_tp_rs - t_gemm_in) + numpy.maximum(numpy.maximum(0, -t_gemm_out + t_tp_ag), m_g_out + m_tp_ag - t_gemm_out)


def tp__sp_async(m_g_in, m_tp_ag, m_tp_rs, n_fpass, s_comm, t_gemm_in, t_tp_ag, t_tp_rs):
    """TP with sequence parallelism, backward collectives of the column-parallel GEMM issued"""
    return n_fpass*(t_tp_ag + t_tp_rs) + t_tp_ag + numpy.maximum(numpy.maximum(s_comm*t_tp_ag, -t_gemm_in + t_tp_ag), m_g_in + m_tp_ag - t_gemm_in) + numpy.maximum(numpy.maximum(s_comm*t_tp_rs, -t_gemm_in + t_tp_rs), m_g_in + m_tp_rs - t_gemm_in)


def tp__fused_rs(m_g_in, m_g_out, m_tp_rsf, n_fpass, t_gemm_in, t_gemm_out, t_tp_ag, t_tp_rs, tp):
    """TP with each reduce-scatter fused into the GEMM that produces its buffer (T3: Pati et al."""
    return n_fpass*(t_tp_ag + numpy.maximum(numpy.maximum(0, -t_gemm_out*(tp - 1)/tp + t_tp_rs), m_g_out + m_tp_rsf - t_gemm_out)) + t_tp_ag + numpy.maximum(numpy.maximum(0, -t_gemm_in*(tp - 1)/tp + t_tp_rs), m_g_in + m_tp_rsf - t_gemm_in)


def tp__pair_fused(m_gemm, m_tp_rsf, t_gemm, t_tp_rs, tp):
    """One TP sublayer under T3's fusion: what the reduce-scatter fused into its producer GEMM adds"""
    return numpy.maximum(numpy.maximum(0, -t_gemm*(tp - 1)/tp + t_tp_rs), m_gemm + m_tp_rsf - t_gemm)


def tp__pair_overlap(m_gemm, m_tp_rs, t_gemm, t_tp_rs):
    """One TP sublayer under Transformer Engine's GEMM + reduce-scatter pipelining: what the"""
    return numpy.maximum(numpy.maximum(0, -t_gemm + t_tp_rs), m_gemm + m_tp_rs - t_gemm)


def overlap__contended(m_comm, m_gemm, s_comm, t_coll, t_gemm):
    """One collective overlapping one compute kernel, the time it adds (:func:`_overlapped`), with"""
    return numpy.maximum(numpy.maximum(s_comm*t_coll, t_coll - t_gemm), m_comm + m_gemm - t_gemm)


def sublayer__speedup(t_coll, t_exposed, t_gemm):
    """Speed-up of one TP sublayer, a GEMM and the collective(s) that reduce its output, over"""
    return (t_coll + t_gemm)/(t_exposed + t_gemm)


def comm__hbm_ring_rs(coll_bytes, ranks):
    """HBM bytes a ring reduce-scatter of an ``N``-byte buffer moves on each of its ``n`` devices,"""
    return coll_bytes*(3*ranks - 1)/ranks


def comm__hbm_ring_ag(coll_bytes, ranks):
    """HBM bytes a ring all-gather with an ``N``-byte output moves on each of its ``n`` devices,"""
    return coll_bytes*(3*ranks - 1)/ranks


def comm__hbm_ring_ar(coll_bytes, ranks):
    """HBM bytes a ring all-reduce of an ``N``-byte buffer moves on each device: its reduce-scatter"""
    return 2*coll_bytes*(3*ranks - 1)/ranks


def comm__hbm_fused_rs(coll_bytes, ranks):
    """HBM bytes T3's fused reduce-scatter adds on each device to the GEMM that produces its"""
    return coll_bytes*(2*ranks - 4)/ranks


def tp__all_reduce_async(m_g_in, m_tp_ar, n_fpass, s_comm, t_gemm_in, t_tp_ar):
    """TP without sequence parallelism, the column-parallel GEMM's input-gradient all-reduce issued"""
    return n_fpass*t_tp_ar + numpy.maximum(numpy.maximum(s_comm*t_tp_ar, -t_gemm_in + t_tp_ar), m_g_in + m_tp_ar - t_gemm_in)


def ep__all_to_all(n_fpass, t_ep_a2a):
    """Expert parallelism: each all-to-all of a MoE layer (token dispatch, combine) in every pass,"""
    return t_ep_a2a*(n_fpass + 1)


def ep__overlap(n_fpass, s_comm, t_ep_a2a, t_hide, u_ep):
    """Expert parallelism with the all-to-all of one micro-batch hidden under another's compute"""
    return t_ep_a2a*u_ep*(n_fpass + 1) + (1 - u_ep)*numpy.maximum(s_comm*t_ep_a2a*(n_fpass + 1), t_ep_a2a*(n_fpass + 1) - t_hide)


def cp__ring(cp, rc_fwd, t_attn_bwd, t_attn_fwd, t_cp_kv):
    """Context-parallel ring attention (Megatron CP, load-balanced): the forward passes K,V over"""
    return rc_fwd*numpy.maximum(0, -t_attn_fwd + t_cp_kv*(cp - 1)) + numpy.maximum(0, -t_attn_bwd + 2*t_cp_kv*(cp - 1)) + numpy.maximum(0, -t_attn_fwd + t_cp_kv*(cp - 1))


def bwd__flops(flops):
    """Backward FLOPs of an operator: 2× the forward, the input gradient and the weight gradient"""
    return 2*flops


def bwd__flops_flash(flops):
    """Backward FLOPs of FlashAttention: 2.5× the forward (it recomputes S and P; Dao-AILab/"""
    return (5/2)*flops


def bwd__bytes(hbm_bytes):
    """Backward HBM bytes of an operator: 2× the forward (the input and the weight gradient each"""
    return 2*hbm_bytes


def bwd__extra_kernels(k_x):
    """Extra kernel launches of the backward of an unfused chain of ``k_x`` extra forward kernels:"""
    return 2*k_x


def bwd__norm_bytes(hbm_bytes, w_bytes):
    """Backward HBM bytes of a fused LayerNorm / RMSNorm whose forward moved ``hbm_bytes``, ``w_bytes``"""
    return (3/2)*hbm_bytes + (1/2)*w_bytes


def bwd__act_bytes(hbm_bytes, n_up):
    """Backward HBM bytes of a fused MLP activation over ``n_up`` inputs whose forward moved"""
    return hbm_bytes*(2*n_up + 1)/(n_up + 1)


def fwd__scores_per(drop_a, r_sm):
    """HBM bytes per score of a materialized attention's forward at 2-byte scores: the scores"""
    return 5*drop_a + 2*r_sm + 6


def fwd__residual_per(b_a, drop_h):
    """HBM bytes per hidden element of one residual block's fused bias-dropout-add forward: read the"""
    return 3*b_a + drop_h


def bwd__scores_per(drop_a, r_sm):
    """Backward HBM bytes per score of a materialized attention (the forward's"""
    return 5*drop_a + 4*r_sm + 10


def bwd__residual_per(b_a, drop_h):
    """Backward HBM bytes per hidden element of one residual block's dropout + add"""
    return 3*b_a + drop_h*(2*b_a + 1)


def norm__unfused_bytes(b_a, n_el):
    """HBM bytes of an eager (unfused) RMSNorm forward over ``n_el`` activation elements, each kernel"""
    return n_el*(4*b_a + 28)


def act__unfused_bytes(b_a, bias_a, n_el, n_up):
    """HBM bytes of an unfused MLP activation over ``n_el`` output elements (``n_up`` up projections;"""
    return b_a*n_el*(2*bias_a*n_up + 3*n_up - 1)


def act__unfused_kernels(bias_a, n_up):
    """Extra kernels of an unfused activation over the fused one (:func:`act_unfused_bytes`):"""
    return bias_a + n_up - 1


def rope__width_std(kv_dim, n_kv, q_dim, tp):
    """Query and key elements per token one device rotates in an MHA/GQA layer: its query heads and"""
    return kv_dim/numpy.minimum(n_kv, tp) + q_dim/tp


def rope__width_mla(d_rope, n_q, tp):
    """The same for MLA, whose rotary part is ``d_rope`` per query head and one shared ``d_rope``"""
    return d_rope*n_q/tp + d_rope


def rope__fused_bytes(b_a, n_el):
    """HBM bytes of a fused rotary embedding over ``n_el`` query and key elements: read and write"""
    return 2*b_a*n_el


def rope__unfused_bytes(b_a, n_el):
    """HBM bytes of an eager rotary embedding over ``n_el`` query and key elements, as torchtitan"""
    return n_el*(2*b_a + 16)


def rope__backward_bytes(hbm_bytes):
    """Backward HBM bytes of a rotary embedding: the inverse rotation of ``dq``, ``dk`` moves what"""
    return hbm_bytes


def autocast__cast_bytes(b_w, n_w):
    """HBM bytes of ``torch.autocast``'s weight casts over ``n_w`` fp32 matmul weight elements in one"""
    return n_w*(b_w + 4)


def tp__layout_copy_bytes(s_blk):
    """HBM bytes of the layout copies of one TP block's sequence-parallel collectives on batch-first"""
    return 4*s_blk


def fp8__quantize_bytes(b_a, copies, n_el, r_q):
    """HBM bytes to quantize ``n_el`` elements of the ``b_a``-byte input of fp8 GEMMs, written as"""
    return n_el*(b_a*r_q + copies)


def moe__permute_bytes(assign, b_a, d_model, s_x, t_loc):
    """HBM bytes of the token permutations of one MoE layer's forward (Megatron-Core"""
    return b_a*d_model*(4*assign*s_x + 3*assign + t_loc)


def loss__eager_fwd_bytes(b_a, n_el):
    """HBM bytes of an eager ``F.cross_entropy(logits.float(), labels)`` forward over ``n_el`` logits"""
    return n_el*(b_a + 20)


def loss__eager_bwd_bytes(b_a, n_el):
    """Backward HBM bytes of the eager loss of :func:`loss_eager_forward_bytes`: ``nll_loss``'s backward"""
    return n_el*(b_a + 24)


def seqdist__doc_share(len_mean, pairs_doc, pairs_pack, seq):
    """Share of a packed sequence's causal (query, key) pairs a document mask keeps, which is what a"""
    return pairs_doc*seq/(len_mean*pairs_pack)


def seqdist__padding_overhead(len_mean, len_pad):
    """Tokens computed per real token without packing: every micro-batch padded to its longest"""
    return len_pad/len_mean


def seqdist__pack_cv(len_mean, pairs_doc, seq, var_pairs):
    """Coefficient of variation of the kept pairs of one pack of ``s`` tokens filled by sequences drawn"""
    return numpy.sqrt(len_mean)*numpy.sqrt(var_pairs)/(pairs_doc*numpy.sqrt(seq))


def seqdist__straggler(cv_mb, n_micro, z_dp):
    """Stretch of the per-micro-batch time by the slowest of ``d`` data-parallel ranks: each rank's"""
    return cv_mb*z_dp/numpy.sqrt(n_micro) + 1


def flops__fwd_bwd(flops):
    """Model FLOPs of forward + backward (:func:`backward_flops`): ``3×`` the forward (PaLM App. B;"""
    return 3*flops


def optimizer(b_g, b_mp, b_w, eta_m, mem_bw, psi_opt):
    """Adam(W) with fp32 master weights is a memory-bound elementwise pass:"""
    return psi_opt*(b_g + b_mp + b_w + 24)/(eta_m*mem_bw)


def optimizer__mp_bytes(b_g, c_cp, s_ls):
    """Bytes per parameter Megatron's mixed-precision optimizer moves beyond a fused master-weight Adam"""
    return -b_g + c_cp*(b_g + 4) + 8*s_ls + 12


def offload__cpu(b_g, b_w, eta_m, host_link_bw, host_mem_bw, psi_opt, ranks_node):
    """ZeRO-Offload (Ren et al. 2021 §4; no delayed parameter update): the optimizer step runs on"""
    return psi_opt*(b_g + b_w)/host_link_bw + 28*psi_opt*ranks_node/(eta_m*host_mem_bw)


def offload__nvme(nvme_bw, psi_opt, ranks_node, t_offload_host):
    """ZeRO-Infinity NVMe offload (Rajbhandari et al. 2021, 'ZeRO-Infinity'): the host offload"""
    return t_offload_host + 24*psi_opt*ranks_node/nvme_bw


def offload__param_fetch(b_w, psi_shard, tier_bw, tier_share):
    """ZeRO-Infinity parameter offload (Rajbhandari et al. 2021 §5, 'offload_param'): before each"""
    return b_w*psi_shard*tier_share/tier_bw


def offload__activations(act_host, host_link_bw, n_micro, t_compute):
    """Activation offload (ZeRO-Infinity §5, activation checkpoints to CPU memory): every micro-batch's"""
    return numpy.maximum(0, 2*act_host*n_micro/host_link_bw - t_compute)


def mfu(flops_step, n_gpus, peak_flops, t_step):
    """Model FLOPs utilisation (PaLM App. B): step FLOPs over (T·N·F), at most 1."""
    return flops_step/(n_gpus*peak_flops*t_step)


def tflops_per_gpu(flops_step, n_gpus, t_step):
    """Achieved FLOP/s per device: FLOPs per step / (T·N) (Narayanan 2021 §5.1)."""
    return flops_step/(n_gpus*t_step)


def tokens_per_s(t_step, tokens_step):
    """Throughput: tokens per step / T."""
    return tokens_step/t_step


def time_to_train(goodput, t_step, tokens_step, train_tokens):
    """Run length in wall time: ``(D/B_tok)·T/g``, the steps' time over the goodput ``g``, the"""
    return t_step*train_tokens/(goodput*tokens_step)


def gpu_hours(goodput, n_gpus, t_step, tokens_step, train_tokens):
    """Device-hours of the run: ``N·(D/B_tok)·T/(3600·g)``, wall time over the goodput."""
    return (1/3600)*n_gpus*t_step*train_tokens/(goodput*tokens_step)


def total_flops(flops_step, tokens_step, train_tokens):
    """Model FLOPs of the run: FLOPs per token of a step × the run's tokens, ``(C_step/B_tok)·D``"""
    return train_tokens*(flops_step/tokens_step)


def energy_j(goodput, n_gpus, power_w, t_step, tokens_step, train_tokens):
    """Energy: ``N·P·time`` over the wall time, ``P`` the mean draw per device over a step by kind of"""
    return n_gpus*power_w*t_step*train_tokens/(goodput*tokens_step)


def cost_usd(goodput, n_gpus, price_h, t_step, tokens_step, train_tokens):
    """Rental cost: device-hours × price per device-hour [derived]."""
    return (1/3600)*n_gpus*price_h*t_step*train_tokens/(goodput*tokens_step)


def memory__weights(b_w, d_edp, psi, psi_e, z_w):
    """Weights per device, ``Ψ·b_w/z_w + Ψ_e·b_w/min(z_w, d_e)``: ZeRO-3 shards them over the"""
    return b_w*psi/z_w + b_w*psi_e/numpy.minimum(z_w, numpy.maximum(1, d_edp))


def memory__gradients(b_g, d_edp, psi, psi_e, z_g):
    """Gradients per device, ``Ψ·b_g/z_g + Ψ_e·b_g/min(z_g, d_e)``: ZeRO-2/3 shard them (z_g = d·c)"""
    return b_g*psi/z_g + b_g*psi_e/numpy.minimum(z_g, numpy.maximum(1, d_edp))


def memory__optimizer(b_o, d_edp, psi, psi_e, z_o):
    """Optimizer state per device, ``Ψ·b_o/z_o + Ψ_e·b_o/min(z_o, d_e)``: ZeRO-1/2/3 and the"""
    return b_o*psi/z_o + b_o*psi_e/numpy.minimum(z_o, numpy.maximum(1, d_edp))


def memory__activations(act_dense, act_moe, act_work, inflight, layers_dense, layers_moe):
    """Activations of the first pipeline stage at the peak: its in-flight micro-batches times its"""
    return act_work + inflight*(act_dense*layers_dense + act_moe*layers_moe)


def memory__logits(b_ce, cp, micro_batch, seq, tp, vocab):
    """Logits of one micro-batch over the device's vocabulary shard on the last stage at their"""
    return b_ce*micro_batch*seq*vocab/(cp*tp)


def memory__pipeline_logits(act_first, inflight, inflight_last, logits, pp):
    """What one micro-batch's logits add to the device with the most memory: at ``p`` = 1 all of them"""
    return logits*(1 - numpy.minimum(1, pp - 1)) + numpy.maximum(0, -act_first + act_first*inflight_last/inflight + logits)*numpy.minimum(1, pp - 1)


def inflight_last__1f1b(n_micro):
    """In-flight micro-batches of the last pipeline stage with 1F1B and ZB-H1: one, its forward"""
    return numpy.minimum(1, n_micro)


def inflight_last__zero_bubble(n_micro):
    """In-flight micro-batches of the last pipeline stage with 1F1B and ZB-H1: one, its forward"""
    return numpy.minimum(1, n_micro)


def inflight_last__interleaved(pp, v_stages):
    """Interleaved 1F1B on the last rank: ``(v−1)·p`` warm-up (micro-batch, chunk) forwards (Megatron-Core"""
    return (pp*(v_stages - 1) + 1)/v_stages


def inflight_last__gpipe(n_micro):
    """GPipe: all ``m`` micro-batches are in flight before the first backward (Huang et al. 2019)."""
    return n_micro


def memory__buffers(b_w, n_layers, psi, psi_e):
    """ZeRO-3 / FSDP gathered-parameter buffers: two layers in flight, the current one and the"""
    return b_w*(2*psi + 2*psi_e)/n_layers


def inflight__1f1b(n_micro, pp):
    """In-flight micro-batches of the first stage with 1F1B and ZB-H1: ``min(m, p)`` (Narayanan"""
    return numpy.minimum(n_micro, pp)


def inflight__gpipe(n_micro):
    """GPipe: all ``m`` micro-batches are in flight before the first backward (Huang et al. 2019)."""
    return n_micro


def inflight__interleaved(n_micro, pp, v_stages):
    """Interleaved 1F1B: ``min(m, p)·(1 + (p−1)/(p·v))`` ([MEG-mem] Megatron-LM"""
    return (1 + (pp - 1)/(pp*v_stages))*numpy.minimum(n_micro, pp)


def inflight__zero_bubble(n_micro, pp):
    """In-flight micro-batches of the first stage with 1F1B and ZB-H1: ``min(m, p)`` (Narayanan"""
    return numpy.minimum(n_micro, pp)


def act__materialized(b_a, cp, d_ff_act, d_model, drop_a, drop_h, fp8_saved, kv_dim, micro_batch, n_q, phi_a, q_dim, seq, tp, tp_sp):
    """Activation bytes of one layer for one micro-batch, attention scores stored (no recompute)."""
    return (1/2)*b_a*((d_ff_act*micro_batch*phi_a*seq/cp + 2*micro_batch*seq*(2*kv_dim + 2*q_dim)/cp)/tp + d_model*micro_batch*seq*(2*drop_h + 8)/(cp*tp_sp) + micro_batch*n_q*seq**2*(3*drop_a + 2)/(cp*tp)) - fp8_saved*micro_batch*seq*(b_a - 1)*(2*d_model/tp_sp + (d_ff_act + q_dim)/tp)/cp


def act__flash(b_a, cp, d_ff_act, d_model, drop_h, fp8_saved, kv_dim, micro_batch, n_q, phi_a, q_dim, seq, tp, tp_sp):
    """One layer with FlashAttention: the s² term is replaced by the fp32 log-sum-exp"""
    return (1/2)*b_a*((d_ff_act*micro_batch*phi_a*seq/cp + 2*micro_batch*seq*(2*kv_dim + 2*q_dim)/cp)/tp + d_model*micro_batch*seq*(2*drop_h + 8)/(cp*tp_sp) + 4*micro_batch*n_q*seq/(cp*tp)) - fp8_saved*micro_batch*seq*(b_a - 1)*(2*d_model/tp_sp + (d_ff_act + q_dim)/tp)/cp


def act__selective(b_a, cp, d_ff_act, d_model, drop_h, fp8_saved, kv_dim, micro_batch, phi_a, q_dim, seq, tp, tp_sp):
    """Selective recomputation: the attention core (QK^T, softmax, dropout, ·V) is recomputed so"""
    return (1/2)*b_a*((d_ff_act*micro_batch*phi_a*seq/cp + 2*micro_batch*seq*(2*kv_dim + 2*q_dim)/cp)/tp + d_model*micro_batch*seq*(2*drop_h + 8)/(cp*tp_sp)) - fp8_saved*micro_batch*seq*(b_a - 1)*(2*d_model/tp_sp + (d_ff_act + q_dim)/tp)/cp


def act__full(b_a, cp, d_model, micro_batch, seq, tp_sp):
    """Full recomputation stores only each layer's input, ``2sbh/t_sp`` (Korthikanti 2022 Table 2)."""
    return b_a*d_model*micro_batch*seq/(cp*tp_sp)


def act__op(b_a, cp, d_ff_act, d_model, kv_dim, micro_batch, n_q, phi_a, q_dim, seq, tp, tp_sp):
    """Per-op selective checkpointing as torchtitan runs it ('Saves output of all compute ops,"""
    return b_a*micro_batch*seq*(d_model*((1/2)*phi_a - 2) + d_model/tp_sp + (d_ff_act + kv_dim + 2*q_dim)/tp)/cp + 4*micro_batch*n_q*seq/(cp*tp)


def act__modules(b_a, cp, d_model, f_act_rc, f_rc, fp8_saved, kv_dim, micro_batch, phi_a, q_dim, r_h, r_up, seq, tp, tp_sp):
    """Bytes one layer stops storing under Megatron-Core's fine-grained recomputation"""
    return micro_batch*seq*(d_model*r_h*(b_a - fp8_saved*(b_a - 1))/tp_sp + (b_a*r_up*(2*kv_dim + q_dim) + f_act_rc*(b_a - fp8_saved*(b_a - 1)) + f_rc*((1/2)*b_a*phi_a - fp8_saved*(b_a - 1)))/tp)/cp


FUNCTIONS = {
    'bubble__1f1b': (bubble__1f1b, ('pp', 'r_bub', 't_bwd', 't_comm_mb', 't_fwd', 't_rc'), 'f14a9190bc9fd953'),
    'bubble__gpipe': (bubble__gpipe, ('pp', 'r_bub', 't_bwd', 't_comm_mb', 't_fwd', 't_rc'), 'f14a9190bc9fd953'),
    'bubble__interleaved': (bubble__interleaved, ('pp', 'r_bub', 't_bwd', 't_comm_mb', 't_fwd', 't_rc', 'v_stages'), '99df5562cd0bf8a1'),
    'bubble__zero_bubble': (bubble__zero_bubble, ('pp', 'r_bub', 't_comm_mb', 't_fwd', 't_rc'), '0b23a534b493ad52'),
    'pp__p2p_serial': (pp__p2p_serial, ('n_micro', 'pp', 't_p2p', 'v_stages'), 'bfed102633bf961d'),
    'pp__p2p_unpaired': (pp__p2p_unpaired, ('n_micro', 'pp', 't_p2p', 't_p2p_part', 't_pp_ag', 'v_stages'), 'f6f5e2c03585164b'),
    'pp__p2p_overlap': (pp__p2p_overlap, ('n_micro', 'pp', 't_bwd', 't_fwd', 't_p2p', 't_rc', 'v_stages'), 'bca4026ef3897f92'),
    'pipeline__1f1b': (pipeline__1f1b, ('n_micro', 'pp', 'r_bub', 't_bwd', 't_comm_mb', 't_fwd', 't_pp_p2p', 't_rc'), '14b6723a1c278d9c'),
    'pipeline__gpipe': (pipeline__gpipe, ('n_micro', 'pp', 'r_bub', 't_bwd', 't_comm_mb', 't_fwd', 't_pp_p2p', 't_rc'), '14b6723a1c278d9c'),
    'pipeline__interleaved': (pipeline__interleaved, ('n_micro', 'pp', 'r_bub', 't_bwd', 't_comm_mb', 't_fwd', 't_pp_p2p', 't_rc', 'v_stages'), '9d275304fd3989b8'),
    'pipeline__zero_bubble': (pipeline__zero_bubble, ('n_micro', 'pp', 'r_bub', 't_bwd', 't_comm_mb', 't_fwd', 't_pp_p2p', 't_rc'), 'cb3f8bfded8c064e'),
    'dp__overlap': (dp__overlap, ('m_ag', 'm_bwd', 'm_dp', 'm_fwd', 'n_buckets', 'n_red', 's_comm', 't_ag', 't_bwd', 't_dp', 't_fwd'), '554b80e160a88df4'),
    'dp__serial': (dp__serial, ('n_red', 't_ag', 't_dp'), '81a71cc14b80a178'),
    'dp__diloco': (dp__diloco, ('sync_interval', 't_outer'), 'c33a64b0c0ec9643'),
    'dp__streaming': (dp__streaming, ('sync_fragments', 'sync_interval', 'sync_overlap', 't_frag', 't_inner'), '933639de1bfb9857'),
    'diloco__fragment_bytes': (diloco__fragment_bytes, ('b_sync', 'psi', 'psi_e', 'sync_fragments'), '4a55eab0a42152ab'),
    'diloco__outer_bytes': (diloco__outer_bytes, ('b_sync', 'psi', 'psi_e'), '405caf34df043e6a'),
    'diloco__comm_reduction': (diloco__comm_reduction, ('b_g', 'b_sync', 'sync_interval'), '07c7af897538de02'),
    'memory__outer_state': (memory__outer_state, ('psi', 'psi_e'), '54de3ee6ae0126db'),
    'zero3': (zero3, ('layers_stage', 'm_bwd', 'm_fwd', 'm_rc', 'm_z3_ag', 'm_z3_rs', 'n_micro', 's_comm', 't_bwd', 't_fwd', 't_rc', 't_z3_ag', 't_z3_copy', 't_z3_rs', 'z3_rc'), '3eede99a035efec3'),
    'zero3__copy_out': (zero3__copy_out, ('b_w', 'eta_m', 'mem_bw', 'n_micro', 'psi'), '0795ac3c5b602fdb'),
    'zero3__serial': (zero3__serial, ('layers_stage', 'n_micro', 't_z3_ag', 't_z3_copy', 't_z3_rs', 'z3_rc'), '24cb9c4a7f732334'),
    'throttle': (throttle, ('kappa_clk', 't_cact'), '0a8236ecfe50dd5f'),
    'throttle__compute_time': (throttle__compute_time, ('h_bwd', 'h_fwd', 'h_rc', 'n_micro', 't_bub', 't_bwd', 't_comm_mb', 't_fwd', 't_rc'), 'b35c399f5edb4067'),
    'zero3__collectives': (zero3__collectives, ('psi_layer', 'z3_bucket'), '626be9114bd57629'),
    'zero3__collective_bytes': (zero3__collective_bytes, ('layer_bytes', 'n_z3'), 'cdecf2bb964551bc'),
    'zero3__layer_comm': (zero3__layer_comm, ('n_z3', 't_z3_one'), 'c523583b06582006'),
    'tp__sp': (tp__sp, ('n_fpass', 't_tp_ag', 't_tp_rs'), '691f9858740691a9'),
    'tp__all_reduce': (tp__all_reduce, ('n_fpass', 't_tp_ar'), 'ad3fb9e9b5127683'),
    'tp__overlap': (tp__overlap, ('m_g_in', 'm_g_out', 'm_tp_ag', 'm_tp_rs', 'n_fpass', 't_gemm_in', 't_gemm_out', 't_tp_ag', 't_tp_rs'), 'f6523f89f5351186'),
    'tp__sp_async': (tp__sp_async, ('m_g_in', 'm_tp_ag', 'm_tp_rs', 'n_fpass', 's_comm', 't_gemm_in', 't_tp_ag', 't_tp_rs'), 'da1c9bfac1e342a9'),
    'tp__fused_rs': (tp__fused_rs, ('m_g_in', 'm_g_out', 'm_tp_rsf', 'n_fpass', 't_gemm_in', 't_gemm_out', 't_tp_ag', 't_tp_rs', 'tp'), 'b5d69563ad7be7c0'),
    'tp__pair_fused': (tp__pair_fused, ('m_gemm', 'm_tp_rsf', 't_gemm', 't_tp_rs', 'tp'), '6bc552187d4bd647'),
    'tp__pair_overlap': (tp__pair_overlap, ('m_gemm', 'm_tp_rs', 't_gemm', 't_tp_rs'), '7185db3be046df64'),
    'overlap__contended': (overlap__contended, ('m_comm', 'm_gemm', 's_comm', 't_coll', 't_gemm'), '5494a818aa725c12'),
    'sublayer__speedup': (sublayer__speedup, ('t_coll', 't_exposed', 't_gemm'), 'b6fe91ee602830a2'),
    'comm__hbm_ring_rs': (comm__hbm_ring_rs, ('coll_bytes', 'ranks'), 'd861e19bca30be20'),
    'comm__hbm_ring_ag': (comm__hbm_ring_ag, ('coll_bytes', 'ranks'), 'd861e19bca30be20'),
    'comm__hbm_ring_ar': (comm__hbm_ring_ar, ('coll_bytes', 'ranks'), '4111969340598d15'),
    'comm__hbm_fused_rs': (comm__hbm_fused_rs, ('coll_bytes', 'ranks'), '1043b4b74c9c39b9'),
    'tp__all_reduce_async': (tp__all_reduce_async, ('m_g_in', 'm_tp_ar', 'n_fpass', 's_comm', 't_gemm_in', 't_tp_ar'), '708002185552fd73'),
    'ep__all_to_all': (ep__all_to_all, ('n_fpass', 't_ep_a2a'), '2c31013f7752d8cc'),
    'ep__overlap': (ep__overlap, ('n_fpass', 's_comm', 't_ep_a2a', 't_hide', 'u_ep'), 'da43a5b6d8b3da0e'),
    'cp__ring': (cp__ring, ('cp', 'rc_fwd', 't_attn_bwd', 't_attn_fwd', 't_cp_kv'), 'c15c539e994d3f07'),
    'bwd__flops': (bwd__flops, ('flops',), '6f762d70e3ef5b7a'),
    'bwd__flops_flash': (bwd__flops_flash, ('flops',), 'def032f469fb6856'),
    'bwd__bytes': (bwd__bytes, ('hbm_bytes',), '3d2b81e041d4cfd5'),
    'bwd__extra_kernels': (bwd__extra_kernels, ('k_x',), 'c4cd83afb4873f52'),
    'bwd__norm_bytes': (bwd__norm_bytes, ('hbm_bytes', 'w_bytes'), 'cb315ae883d5818f'),
    'bwd__act_bytes': (bwd__act_bytes, ('hbm_bytes', 'n_up'), 'edd5e30e698c3dcb'),
    'fwd__scores_per': (fwd__scores_per, ('drop_a', 'r_sm'), '06c213ff7bfba965'),
    'fwd__residual_per': (fwd__residual_per, ('b_a', 'drop_h'), 'f063931aa48ea476'),
    'bwd__scores_per': (bwd__scores_per, ('drop_a', 'r_sm'), 'd898cf85f5c9505b'),
    'bwd__residual_per': (bwd__residual_per, ('b_a', 'drop_h'), '559f956c5e5763f8'),
    'norm__unfused_bytes': (norm__unfused_bytes, ('b_a', 'n_el'), 'cfe19c2bdb0b91f4'),
    'act__unfused_bytes': (act__unfused_bytes, ('b_a', 'bias_a', 'n_el', 'n_up'), 'df32c5a525ee622f'),
    'act__unfused_kernels': (act__unfused_kernels, ('bias_a', 'n_up'), '10220aaf481782b7'),
    'rope__width_std': (rope__width_std, ('kv_dim', 'n_kv', 'q_dim', 'tp'), '6312ff5bbfe3943a'),
    'rope__width_mla': (rope__width_mla, ('d_rope', 'n_q', 'tp'), '4f25474f1df8ed08'),
    'rope__fused_bytes': (rope__fused_bytes, ('b_a', 'n_el'), '0a3296423b109f83'),
    'rope__unfused_bytes': (rope__unfused_bytes, ('b_a', 'n_el'), '684fcd38b9ddab50'),
    'rope__backward_bytes': (rope__backward_bytes, ('hbm_bytes',), '8c0e70c3ff34013b'),
    'autocast__cast_bytes': (autocast__cast_bytes, ('b_w', 'n_w'), '35613466d0e21792'),
    'tp__layout_copy_bytes': (tp__layout_copy_bytes, ('s_blk',), 'f8d92d6b69878aef'),
    'fp8__quantize_bytes': (fp8__quantize_bytes, ('b_a', 'copies', 'n_el', 'r_q'), 'd9ed43686c69cc71'),
    'moe__permute_bytes': (moe__permute_bytes, ('assign', 'b_a', 'd_model', 's_x', 't_loc'), 'df5ab095137c08c3'),
    'loss__eager_fwd_bytes': (loss__eager_fwd_bytes, ('b_a', 'n_el'), '8ef6e1c6fbd2b55e'),
    'loss__eager_bwd_bytes': (loss__eager_bwd_bytes, ('b_a', 'n_el'), '5f3f648ffb897574'),
    'seqdist__doc_share': (seqdist__doc_share, ('len_mean', 'pairs_doc', 'pairs_pack', 'seq'), '82562de99f0f9231'),
    'seqdist__padding_overhead': (seqdist__padding_overhead, ('len_mean', 'len_pad'), 'e3983e68e75b9bc7'),
    'seqdist__pack_cv': (seqdist__pack_cv, ('len_mean', 'pairs_doc', 'seq', 'var_pairs'), '8f1d1c1f32dbcf59'),
    'seqdist__straggler': (seqdist__straggler, ('cv_mb', 'n_micro', 'z_dp'), '8a4d577cd2010d39'),
    'flops__fwd_bwd': (flops__fwd_bwd, ('flops',), 'c603e396f908f41e'),
    'optimizer': (optimizer, ('b_g', 'b_mp', 'b_w', 'eta_m', 'mem_bw', 'psi_opt'), '146e1739bc24abdd'),
    'optimizer__mp_bytes': (optimizer__mp_bytes, ('b_g', 'c_cp', 's_ls'), 'dc6fd81ef6e5a177'),
    'offload__cpu': (offload__cpu, ('b_g', 'b_w', 'eta_m', 'host_link_bw', 'host_mem_bw', 'psi_opt', 'ranks_node'), 'f1565ff59796e139'),
    'offload__nvme': (offload__nvme, ('nvme_bw', 'psi_opt', 'ranks_node', 't_offload_host'), 'a6673b47b5563969'),
    'offload__param_fetch': (offload__param_fetch, ('b_w', 'psi_shard', 'tier_bw', 'tier_share'), '15ca6622a5dfbe7b'),
    'offload__activations': (offload__activations, ('act_host', 'host_link_bw', 'n_micro', 't_compute'), '48ac49ba04a1c8ca'),
    'mfu': (mfu, ('flops_step', 'n_gpus', 'peak_flops', 't_step'), 'ef552f7f28946d1a'),
    'tflops_per_gpu': (tflops_per_gpu, ('flops_step', 'n_gpus', 't_step'), '6841dc47f0349102'),
    'tokens_per_s': (tokens_per_s, ('t_step', 'tokens_step'), '189d8f5a43d1360d'),
    'time_to_train': (time_to_train, ('goodput', 't_step', 'tokens_step', 'train_tokens'), '09efc95d2b47a7ac'),
    'gpu_hours': (gpu_hours, ('goodput', 'n_gpus', 't_step', 'tokens_step', 'train_tokens'), 'c64c5c80ba5bc6af'),
    'total_flops': (total_flops, ('flops_step', 'tokens_step', 'train_tokens'), 'c7bc7098cb413423'),
    'energy_j': (energy_j, ('goodput', 'n_gpus', 'power_w', 't_step', 'tokens_step', 'train_tokens'), 'dc74cb4355194c60'),
    'cost_usd': (cost_usd, ('goodput', 'n_gpus', 'price_h', 't_step', 'tokens_step', 'train_tokens'), '444b6356821f0cfa'),
    'memory__weights': (memory__weights, ('b_w', 'd_edp', 'psi', 'psi_e', 'z_w'), '15a965b167072a48'),
    'memory__gradients': (memory__gradients, ('b_g', 'd_edp', 'psi', 'psi_e', 'z_g'), '5f30eab0aee2fc83'),
    'memory__optimizer': (memory__optimizer, ('b_o', 'd_edp', 'psi', 'psi_e', 'z_o'), 'fae3a0856cd17d17'),
    'memory__activations': (memory__activations, ('act_dense', 'act_moe', 'act_work', 'inflight', 'layers_dense', 'layers_moe'), '652c1c3c145a07b8'),
    'memory__logits': (memory__logits, ('b_ce', 'cp', 'micro_batch', 'seq', 'tp', 'vocab'), '93062da83092130e'),
    'memory__pipeline_logits': (memory__pipeline_logits, ('act_first', 'inflight', 'inflight_last', 'logits', 'pp'), 'c543a3db41c143be'),
    'inflight_last__1f1b': (inflight_last__1f1b, ('n_micro',), '8a72d25f39baf43c'),
    'inflight_last__zero_bubble': (inflight_last__zero_bubble, ('n_micro',), '8a72d25f39baf43c'),
    'inflight_last__interleaved': (inflight_last__interleaved, ('pp', 'v_stages'), '58f1e03f11383fc7'),
    'inflight_last__gpipe': (inflight_last__gpipe, ('n_micro',), '037a01fed1d1127f'),
    'memory__buffers': (memory__buffers, ('b_w', 'n_layers', 'psi', 'psi_e'), 'a7f279a8aaf1eabe'),
    'inflight__1f1b': (inflight__1f1b, ('n_micro', 'pp'), '661bd080d338c84b'),
    'inflight__gpipe': (inflight__gpipe, ('n_micro',), '037a01fed1d1127f'),
    'inflight__interleaved': (inflight__interleaved, ('n_micro', 'pp', 'v_stages'), '02086eb40e104fee'),
    'inflight__zero_bubble': (inflight__zero_bubble, ('n_micro', 'pp'), '661bd080d338c84b'),
    'act__materialized': (act__materialized, ('b_a', 'cp', 'd_ff_act', 'd_model', 'drop_a', 'drop_h', 'fp8_saved', 'kv_dim', 'micro_batch', 'n_q', 'phi_a', 'q_dim', 'seq', 'tp', 'tp_sp'), '6629811c0dd2c2c1'),
    'act__flash': (act__flash, ('b_a', 'cp', 'd_ff_act', 'd_model', 'drop_h', 'fp8_saved', 'kv_dim', 'micro_batch', 'n_q', 'phi_a', 'q_dim', 'seq', 'tp', 'tp_sp'), 'ed29aa4f6b357ddd'),
    'act__selective': (act__selective, ('b_a', 'cp', 'd_ff_act', 'd_model', 'drop_h', 'fp8_saved', 'kv_dim', 'micro_batch', 'phi_a', 'q_dim', 'seq', 'tp', 'tp_sp'), 'd70c5b1daab06c04'),
    'act__full': (act__full, ('b_a', 'cp', 'd_model', 'micro_batch', 'seq', 'tp_sp'), 'c66ece9646b6a549'),
    'act__op': (act__op, ('b_a', 'cp', 'd_ff_act', 'd_model', 'kv_dim', 'micro_batch', 'n_q', 'phi_a', 'q_dim', 'seq', 'tp', 'tp_sp'), '7fcf4388c8025a52'),
    'act__modules': (act__modules, ('b_a', 'cp', 'd_model', 'f_act_rc', 'f_rc', 'fp8_saved', 'kv_dim', 'micro_batch', 'phi_a', 'q_dim', 'r_h', 'r_up', 'seq', 'tp', 'tp_sp'), '7f25e69fbd515fd6'),
}
