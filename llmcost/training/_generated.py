"""Generated from llmcost/training/formulas.py by
``python -m llmcost.training.formulas``: do not edit (tests/test_training.py pins it).

One numpy function per training quantity; FUNCTIONS maps its name to
(function, argument names, expression hash).
"""
# ruff: noqa

import numpy


def bubble__1f1b(pp, t_bwd, t_comm_mb, t_fwd, t_rc):
    """1F1B (PipeDream-Flush) and GPipe: bubble ``(p−1)(t_f + t_b)`` (Narayanan 2021 §2.2.1)."""
    return (pp - 1)*(t_bwd + t_comm_mb + t_fwd + t_rc)


def bubble__gpipe(pp, t_bwd, t_comm_mb, t_fwd, t_rc):
    """1F1B (PipeDream-Flush) and GPipe: bubble ``(p−1)(t_f + t_b)`` (Narayanan 2021 §2.2.1)."""
    return (pp - 1)*(t_bwd + t_comm_mb + t_fwd + t_rc)


def bubble__interleaved(pp, t_bwd, t_comm_mb, t_fwd, t_rc, v_stages):
    """Interleaved 1F1B with v chunks per device: ``(p−1)(t_f + t_b)/v`` (Narayanan 2021 §2.2.2)."""
    return (pp - 1)*(t_bwd + t_comm_mb + t_fwd + t_rc)/v_stages


def bubble__zero_bubble(pp, t_comm_mb, t_fwd, t_rc):
    """ZB-H1 (Qi et al. 2024 §2.1): ``(p−1)(T_F + T_B − T_W)``, the backward split evenly into input"""
    return (pp - 1)*((1/3)*t_comm_mb + t_fwd + t_rc)


def pipeline__1f1b(n_micro, pp, t_bwd, t_comm_mb, t_fwd, t_p2p, t_rc, v_stages):
    return n_micro*(t_bwd + t_comm_mb + t_fwd + t_rc) + t_p2p*(2*n_micro*v_stages + 2*pp - 2) + (pp - 1)*(t_bwd + t_comm_mb + t_fwd + t_rc)


def pipeline__gpipe(n_micro, pp, t_bwd, t_comm_mb, t_fwd, t_p2p, t_rc, v_stages):
    return n_micro*(t_bwd + t_comm_mb + t_fwd + t_rc) + t_p2p*(2*n_micro*v_stages + 2*pp - 2) + (pp - 1)*(t_bwd + t_comm_mb + t_fwd + t_rc)


def pipeline__interleaved(n_micro, pp, t_bwd, t_comm_mb, t_fwd, t_p2p, t_rc, v_stages):
    return n_micro*(t_bwd + t_comm_mb + t_fwd + t_rc) + t_p2p*(2*n_micro*v_stages + 2*pp - 2) + (pp - 1)*(t_bwd + t_comm_mb + t_fwd + t_rc)/v_stages


def pipeline__zero_bubble(n_micro, pp, t_bwd, t_comm_mb, t_fwd, t_p2p, t_rc, v_stages):
    return n_micro*(t_bwd + t_comm_mb + t_fwd + t_rc) + t_p2p*(2*n_micro*v_stages + 2*pp - 2) + (pp - 1)*((1/3)*t_comm_mb + t_fwd + t_rc)


def dp__overlap(n_buckets, t_ag, t_bwd, t_dp, t_fwd):
    """Data-parallel reduction bucketed and overlapped with the last micro-batch's backward"""
    return numpy.maximum(t_ag/n_buckets, t_ag - t_fwd) + numpy.maximum(t_dp/n_buckets, -t_bwd + t_dp)


def dp__serial(t_ag, t_dp):
    """Data-parallel reduction after the backward, not overlapped (Megatron without"""
    return t_ag + t_dp


def zero3(layers_stage, n_micro, t_bwd, t_fwd, t_rc, t_z3_ag, t_z3_rs, z3_rc):
    """ZeRO-3 / FSDP FULL_SHARD, overlapped layer by layer (not per step): per micro-batch, each"""
    return n_micro*(2*t_z3_ag + t_z3_rs + z3_rc*(t_z3_ag + (layers_stage - 1)*numpy.maximum(0, t_z3_ag - t_rc/layers_stage)) + (layers_stage - 1)*numpy.maximum(0, t_z3_ag - t_fwd/layers_stage) + (layers_stage - 1)*numpy.maximum(0, t_z3_ag + t_z3_rs - t_bwd/layers_stage))


def tp__overlap(n_fpass, t_gemm_in, t_gemm_out, t_tp_ag, t_tp_rs):
    """TP communication overlapped with the adjacent GEMMs (Megatron-Core ``--tp-comm-overlap``,"""
    return n_fpass*(numpy.maximum(0, -t_gemm_in + t_tp_ag) + numpy.maximum(0, -t_gemm_out + t_tp_rs)) + numpy.maximum(0, -t_gemm_in + t_tp_rs) + numpy.maximum(0, -t_gemm_out + t_tp_ag)


def optimizer(eta_m, mem_bw, opt_bytes, psi_opt):
    """Adam(W) with fp32 master weights is a memory-bound elementwise pass:"""
    return opt_bytes*psi_opt/(eta_m*mem_bw)


def mfu(flops_step, n_gpus, peak_flops, t_step):
    """Model FLOPs utilisation (PaLM App. B): step FLOPs over (T·N·F)."""
    return flops_step/(n_gpus*peak_flops*t_step)


def tflops_per_gpu(flops_step, n_gpus, t_step):
    """Achieved FLOP/s per device: FLOPs per step / (T·N) (Narayanan 2021 §5.1)."""
    return flops_step/(n_gpus*t_step)


def tokens_per_s(t_step, tokens_step):
    """Throughput: tokens per step / T."""
    return tokens_step/t_step


def time_to_train(t_step, tokens_step, train_tokens):
    """Run length: ``(D/B_tok)·T`` [derived]."""
    return t_step*train_tokens/tokens_step


def gpu_hours(n_gpus, t_step, tokens_step, train_tokens):
    """Device-hours of the run: ``N·(D/B_tok)·T/3600``."""
    return (1/3600)*n_gpus*t_step*train_tokens/tokens_step


def energy_j(n_gpus, power_w, t_step, tokens_step, train_tokens):
    """Energy: ``N·P·time`` with P = TDP, an upper bound on the draw [derived]."""
    return n_gpus*power_w*t_step*train_tokens/tokens_step


def cost_usd(n_gpus, price_h, t_step, tokens_step, train_tokens):
    """Rental cost: device-hours × price per device-hour [derived]."""
    return (1/3600)*n_gpus*price_h*t_step*train_tokens/tokens_step


def model_state(b_g, b_o, b_w, psi, z_g, z_o, z_w):
    """Weights, gradients and optimizer state per device: ``Ψ·(b_w/z_w + b_g/z_g + b_o/z_o)``."""
    return psi*(b_g/z_g + b_o/z_o + b_w/z_w)


def act__materialized(cp, d_ff_act, d_model, drop_a, drop_h, kv_dim, micro_batch, n_q, phi_a, q_dim, seq, tp, tp_sp):
    """Activation bytes of one layer for one micro-batch, attention scores stored (no recompute)."""
    return (d_ff_act*micro_batch*phi_a*seq/cp + 2*micro_batch*seq*(2*kv_dim + 2*q_dim)/cp)/tp + d_model*micro_batch*seq*(2*drop_h + 8)/(cp*tp_sp) + micro_batch*n_q*seq**2*(3*drop_a + 2)/(cp*tp)


def act__flash(cp, d_ff_act, d_model, drop_h, kv_dim, micro_batch, n_q, phi_a, q_dim, seq, tp, tp_sp):
    """One layer with FlashAttention: the s² term is replaced by the fp32 log-sum-exp"""
    return (d_ff_act*micro_batch*phi_a*seq/cp + 2*micro_batch*seq*(2*kv_dim + 2*q_dim)/cp)/tp + d_model*micro_batch*seq*(2*drop_h + 8)/(cp*tp_sp) + 4*micro_batch*n_q*seq/(cp*tp)


def act__selective(cp, d_ff_act, d_model, drop_h, kv_dim, micro_batch, phi_a, q_dim, seq, tp, tp_sp):
    """Selective recomputation: the attention core (QK^T, softmax, dropout, ·V) is recomputed so"""
    return (d_ff_act*micro_batch*phi_a*seq/cp + 2*micro_batch*seq*(2*kv_dim + 2*q_dim)/cp)/tp + d_model*micro_batch*seq*(2*drop_h + 8)/(cp*tp_sp)


def act__full(cp, d_model, micro_batch, seq, tp_sp):
    """Full recomputation stores only each layer's input, ``2sbh/t_sp`` (Korthikanti 2022 Table 2)."""
    return 2*d_model*micro_batch*seq/(cp*tp_sp)


FUNCTIONS = {
    'bubble__1f1b': (bubble__1f1b, ('pp', 't_bwd', 't_comm_mb', 't_fwd', 't_rc'), '5e81114547b65db1'),
    'bubble__gpipe': (bubble__gpipe, ('pp', 't_bwd', 't_comm_mb', 't_fwd', 't_rc'), '5e81114547b65db1'),
    'bubble__interleaved': (bubble__interleaved, ('pp', 't_bwd', 't_comm_mb', 't_fwd', 't_rc', 'v_stages'), '97cf447d31522627'),
    'bubble__zero_bubble': (bubble__zero_bubble, ('pp', 't_comm_mb', 't_fwd', 't_rc'), 'ebe8e85beb053b2e'),
    'pipeline__1f1b': (pipeline__1f1b, ('n_micro', 'pp', 't_bwd', 't_comm_mb', 't_fwd', 't_p2p', 't_rc', 'v_stages'), 'a2bf3e631e49b735'),
    'pipeline__gpipe': (pipeline__gpipe, ('n_micro', 'pp', 't_bwd', 't_comm_mb', 't_fwd', 't_p2p', 't_rc', 'v_stages'), 'a2bf3e631e49b735'),
    'pipeline__interleaved': (pipeline__interleaved, ('n_micro', 'pp', 't_bwd', 't_comm_mb', 't_fwd', 't_p2p', 't_rc', 'v_stages'), 'd2ee4e24044b9d99'),
    'pipeline__zero_bubble': (pipeline__zero_bubble, ('n_micro', 'pp', 't_bwd', 't_comm_mb', 't_fwd', 't_p2p', 't_rc', 'v_stages'), '90c4d260a3c78b47'),
    'dp__overlap': (dp__overlap, ('n_buckets', 't_ag', 't_bwd', 't_dp', 't_fwd'), '6c2ffedbaa7880e9'),
    'dp__serial': (dp__serial, ('t_ag', 't_dp'), '4ae7d94d64d1bd2f'),
    'zero3': (zero3, ('layers_stage', 'n_micro', 't_bwd', 't_fwd', 't_rc', 't_z3_ag', 't_z3_rs', 'z3_rc'), 'ea3417ee4e405c05'),
    'tp__overlap': (tp__overlap, ('n_fpass', 't_gemm_in', 't_gemm_out', 't_tp_ag', 't_tp_rs'), '466407088ed9e45c'),
    'optimizer': (optimizer, ('eta_m', 'mem_bw', 'opt_bytes', 'psi_opt'), 'a273dc432f5ec5f8'),
    'mfu': (mfu, ('flops_step', 'n_gpus', 'peak_flops', 't_step'), 'ef552f7f28946d1a'),
    'tflops_per_gpu': (tflops_per_gpu, ('flops_step', 'n_gpus', 't_step'), '6841dc47f0349102'),
    'tokens_per_s': (tokens_per_s, ('t_step', 'tokens_step'), '189d8f5a43d1360d'),
    'time_to_train': (time_to_train, ('t_step', 'tokens_step', 'train_tokens'), '790d1a2575cb6fb4'),
    'gpu_hours': (gpu_hours, ('n_gpus', 't_step', 'tokens_step', 'train_tokens'), 'fef6f2bc32e07094'),
    'energy_j': (energy_j, ('n_gpus', 'power_w', 't_step', 'tokens_step', 'train_tokens'), '1a755838bdfe8d36'),
    'cost_usd': (cost_usd, ('n_gpus', 'price_h', 't_step', 'tokens_step', 'train_tokens'), '46d1708de79f3268'),
    'model_state': (model_state, ('b_g', 'b_o', 'b_w', 'psi', 'z_g', 'z_o', 'z_w'), '86ad2c8ef150315d'),
    'act__materialized': (act__materialized, ('cp', 'd_ff_act', 'd_model', 'drop_a', 'drop_h', 'kv_dim', 'micro_batch', 'n_q', 'phi_a', 'q_dim', 'seq', 'tp', 'tp_sp'), '0ad7e060c8a4ddbc'),
    'act__flash': (act__flash, ('cp', 'd_ff_act', 'd_model', 'drop_h', 'kv_dim', 'micro_batch', 'n_q', 'phi_a', 'q_dim', 'seq', 'tp', 'tp_sp'), '224e665ef75a08a0'),
    'act__selective': (act__selective, ('cp', 'd_ff_act', 'd_model', 'drop_h', 'kv_dim', 'micro_batch', 'phi_a', 'q_dim', 'seq', 'tp', 'tp_sp'), '2ad11b605afd8089'),
    'act__full': (act__full, ('cp', 'd_model', 'micro_batch', 'seq', 'tp_sp'), 'e7c82c0ede27c348'),
}
