"""Generated from llmcost/tts/formulas.py by
``python -m llmcost.tts.formulas``: do not edit (tests/test_tts.py pins it).

One numpy function per test-time-scaling quantity; FUNCTIONS maps its name to
(function, argument names, expression hash).
"""
# ruff: noqa

import numpy


def pairs__parallel(budget, l_in, l_out, n_samples):
    """(query, key) pairs of N independent samples (Best-of-N, majority, beam candidates):"""
    return n_samples*(l_out*numpy.minimum(budget, l_in + l_out) - 1/2*(numpy.minimum(l_out, numpy.maximum(0, -l_in + numpy.minimum(budget, l_in + l_out))) - 1)*numpy.minimum(l_out, numpy.maximum(0, -l_in + numpy.minimum(budget, l_in + l_out))))


def pairs__sequential(budget, l_in, l_out, n_samples):
    """Sequential revisions: N rounds of L_out tokens, every earlier round kept in context"""
    return l_out*n_samples*numpy.minimum(budget, l_in + l_out*n_samples) - 1/2*(numpy.minimum(l_out*n_samples, numpy.maximum(0, -l_in + numpy.minimum(budget, l_in + l_out*n_samples))) - 1)*numpy.minimum(l_out*n_samples, numpy.maximum(0, -l_in + numpy.minimum(budget, l_in + l_out*n_samples)))


def reads__parallel_shared(l_in, l_out, n_samples):
    """KV positions read by N samples decoding in one batch whose prompt KV is shared (dense"""
    return l_in*l_out + (1/2)*l_out*n_samples*(l_out + 1)


def reads__beam_shared(beam_step, beam_width, l_in, l_out, n_samples):
    """Beam search, b beams x N/b expansions, steps of ℓ tokens, J = L_out/ℓ steps: per token"""
    return (1/2)*beam_step*beam_width*l_out*(-1 + l_out/beam_step) + l_in*l_out + (1/2)*l_out*n_samples*(beam_step + 1)


def reads__parallel(budget, l_in, l_out, n_samples):
    """KV positions read without prefix sharing (top-k sparse or sliding-window layers: each"""
    return n_samples*(l_out*numpy.minimum(budget, l_in + l_out) - 1/2*(numpy.minimum(l_out, numpy.maximum(0, -l_in + numpy.minimum(budget, l_in + l_out))) - 1)*numpy.minimum(l_out, numpy.maximum(0, -l_in + numpy.minimum(budget, l_in + l_out))))


def reads__sequential(budget, l_in, l_out, n_samples):
    """Sequential revisions: N rounds of L_out tokens, every earlier round kept in context"""
    return l_out*n_samples*numpy.minimum(budget, l_in + l_out*n_samples) - 1/2*(numpy.minimum(l_out*n_samples, numpy.maximum(0, -l_in + numpy.minimum(budget, l_in + l_out*n_samples))) - 1)*numpy.minimum(l_out*n_samples, numpy.maximum(0, -l_in + numpy.minimum(budget, l_in + l_out*n_samples)))


def resident__parallel_shared(l_in, l_out, n_samples):
    """KV positions resident at the end of a shared-prompt batch: ``L_in + N·L_out`` (prompt KV shared, Kinetics §3)."""
    return l_in + l_out*n_samples


def resident__parallel(budget, l_in, l_out, n_samples):
    """KV positions resident without sharing: ``N·min(B, L_in + L_out)`` (window layers keep"""
    return n_samples*numpy.minimum(budget, l_in + l_out)


def resident__sequential(budget, l_in, l_out, n_samples):
    """KV positions resident at the end of N revision rounds: ``min(B, L_in + N·L_out)``."""
    return numpy.minimum(budget, l_in + l_out*n_samples)


def resident__beam_shared(beam_step, beam_width, l_in, l_out, n_samples):
    """KV positions resident at the last beam step: prompt, b histories, N current steps."""
    return beam_step*n_samples + beam_width*(-beam_step + l_out) + l_in


def select_pairs__parallel(block, l_in, l_out, n_samples):
    """Block top-k selection, compute: each query scores one summary key per block of its"""
    return n_samples*(l_in*l_out + (1/2)*l_out*(l_out + 1))/block


def select_reads__parallel(block, l_in, l_out, n_samples):
    """Block top-k selection, memory: block summaries read per step, the prompt's shared,"""
    return (l_in*l_out + (1/2)*l_out*n_samples*(l_out + 1))/block


def select_pairs__sequential(block, l_in, l_out, n_samples):
    """Block top-k selection for one chain of N·L_out tokens: ``Σ_t (L_in + t)/β_b``."""
    return (l_in*l_out*n_samples + (1/2)*l_out*n_samples*(l_out*n_samples + 1))/block


def tokens(l_out, n_samples):
    """Generated tokens of a query: ``N·L_out`` (every strategy)."""
    return l_out*n_samples


def steps__parallel(l_out):
    """Decode steps of a batched strategy (all samples advance together): ``L_out``."""
    return l_out


def steps__sequential(l_out, n_samples):
    """Decode steps of N sequential rounds: ``N·L_out``."""
    return l_out*n_samples


def linear_flops(f_tok, l_out, n_samples):
    """Linear-layer FLOPs of the generation: ``f_tok·N·L_out`` (Kinetics ``2·N·P·L_out`` with"""
    return f_tok*l_out*n_samples


def eflops(c_comp, c_mem, intensity):
    """Kinetics eFLOPs: ``C_comp + I·C_mem`` with ``I`` the FLOPs-per-byte of the hardware"""
    return c_comp + c_mem*intensity


def decode_flops(fl_attn, fl_linear, fl_select):
    """Kinetics ``C_comp`` of the generation: linear layers + attention + block selection,"""
    return fl_select + (fl_attn + fl_linear)


def attention_flops(fl_attn, fl_select):
    """Attention FLOPs of the generation including block selection: ``C_att + C_sel`` (Kinetics §5)."""
    return fl_attn + fl_select


def kv_read_bytes(by_kv, by_select):
    """Kinetics ``C_mem``: KV bytes read plus block summaries read, ``M_kv + M_sel`` (Kinetics §3"""
    return by_kv + by_select


def weight_bytes__parallel(l_out, w_step):
    """Weight bytes of a batched generation: ``L_out·w_step`` (one weight read per decode step,"""
    return l_out*w_step


def weight_bytes__sequential(l_out, n_samples, w_step):
    """Weight bytes of N sequential rounds: ``(N·L_out)·w_step`` (one read per decode step) [derived]."""
    return w_step*(l_out*n_samples)


def activation_bytes(a_tok, l_out, n_samples):
    """Activation bytes of the generation: ``(N·L_out)·a_tok`` (a_tok per generated token, graph) [derived]."""
    return a_tok*(l_out*n_samples)


def query_flops(c_comp, fl_prefill, fl_verifier):
    """FLOPs of a query: prefill + generation + verifier, ``C_pre + C_comp + C_ver`` [derived]."""
    return fl_verifier + (c_comp + fl_prefill)


def query_bytes(by_act, by_prefill, by_verifier, by_weights, c_mem):
    """HBM bytes of a query: prefill, decode weight reads, activations, KV reads, verifier,"""
    return by_verifier + (c_mem + (by_act + (by_prefill + by_weights)))


def query_eflops(c_comp, c_mem, fl_verifier, intensity):
    """Kinetics eFLOPs of a query: the generator's ``C_comp + I·C_mem`` plus the verifier's FLOPs"""
    return fl_verifier + (c_comp + c_mem*intensity)


def kv_device(k_pos_all, k_pos_dev, kv_resident):
    """KV-cache bytes resident per device: the whole-model resident bytes scaled by the device's"""
    return (k_pos_dev*kv_resident)/k_pos_all


def latency_total(lat_decode, lat_prefill, lat_verifier):
    """Query latency: prompt prefill, then the generation's decode steps, then the verifier's"""
    return lat_verifier + (lat_decode + lat_prefill)


def decode_time(lat_steps, step_weight):
    """Decode time from the steps evaluated: ``w_t·Σ T_step`` (every step when there are at most"""
    return lat_steps*step_weight


def beam__own_ctx(beam_step, step):
    """Beam search, decode step t: tokens of the candidate's current beam step it attends,"""
    return -beam_step*(numpy.ceil(step/beam_step) - 1) + step


def beam__prefix_attended(beam_step, l_in, step):
    """Beam search, decode step t: shared positions one candidate attends, its prompt and beam"""
    return beam_step*(numpy.ceil(step/beam_step) - 1) + l_in


def beam__prefix_read(beam_step, beam_width, l_in, step):
    """Beam search, decode step t: shared positions read once per step, the prompt and the b"""
    return beam_step*(beam_width*(numpy.ceil(step/beam_step) - 1)) + l_in


def select_step_flops(block, f_pair_dev, l_in, n_seqs, step):
    """Block top-k selection FLOPs of decode step t on one device: each of n_seq sequences scores"""
    return ((l_in + step)*(n_seqs*((1/2)*f_pair_dev)))/block


def select_step_bytes(block, k_pos_dev, l_in, n_seqs, step):
    """Block top-k selection bytes of decode step t on one device: the block summaries, the"""
    return ((l_in + n_seqs*step)*((1/2)*k_pos_dev))/block


def usd(devices, latency, usd_hour):
    """Rental cost of the query: ``n_dev·$_h·T/3600`` (:func:`llmcost.economics.formulas.usd`)."""
    return (1/3600)*devices*latency*usd_hour


def energy(devices, latency, tdp_w):
    """Energy of the query: ``n_dev·P·T`` joules, ``P`` the draw per device: the TDP (an upper bound) or,"""
    return devices*latency*tdp_w


def pass_at_n(f_max, n_samples, p_success):
    """TTSPM parallel / sequential scaling: ``F(N) = F_max·(1 − (1 − p)^N)`` (Wang et al. 2025"""
    return f_max*(1 - (1 - p_success)**n_samples)


def saturation(epsilon, f_max, p_success):
    """TTSPM saturation point: the smallest N with ``ΔF(N) < ε``,"""
    return numpy.maximum(0, numpy.ceil(numpy.log(epsilon/(f_max*p_success))/numpy.log(1 - p_success)))


FUNCTIONS = {
    'pairs__parallel': (pairs__parallel, ('budget', 'l_in', 'l_out', 'n_samples'), 'b9ddba86fc9fa6b2'),
    'pairs__sequential': (pairs__sequential, ('budget', 'l_in', 'l_out', 'n_samples'), '0a24b50d18b2af8d'),
    'reads__parallel_shared': (reads__parallel_shared, ('l_in', 'l_out', 'n_samples'), 'fee706932ded801d'),
    'reads__beam_shared': (reads__beam_shared, ('beam_step', 'beam_width', 'l_in', 'l_out', 'n_samples'), '217ef6a93903c00e'),
    'reads__parallel': (reads__parallel, ('budget', 'l_in', 'l_out', 'n_samples'), 'b9ddba86fc9fa6b2'),
    'reads__sequential': (reads__sequential, ('budget', 'l_in', 'l_out', 'n_samples'), '0a24b50d18b2af8d'),
    'resident__parallel_shared': (resident__parallel_shared, ('l_in', 'l_out', 'n_samples'), '0a61b2713e769ad1'),
    'resident__parallel': (resident__parallel, ('budget', 'l_in', 'l_out', 'n_samples'), '082d13307752b5a0'),
    'resident__sequential': (resident__sequential, ('budget', 'l_in', 'l_out', 'n_samples'), 'df05e7530ecd965f'),
    'resident__beam_shared': (resident__beam_shared, ('beam_step', 'beam_width', 'l_in', 'l_out', 'n_samples'), '6f7c5b1e869162fb'),
    'select_pairs__parallel': (select_pairs__parallel, ('block', 'l_in', 'l_out', 'n_samples'), 'e9687f67070c7dee'),
    'select_reads__parallel': (select_reads__parallel, ('block', 'l_in', 'l_out', 'n_samples'), '278007386701b1df'),
    'select_pairs__sequential': (select_pairs__sequential, ('block', 'l_in', 'l_out', 'n_samples'), '4a3bac07944c41c0'),
    'tokens': (tokens, ('l_out', 'n_samples'), '20a0efbebb686df1'),
    'steps__parallel': (steps__parallel, ('l_out',), 'f46a53ca9e831711'),
    'steps__sequential': (steps__sequential, ('l_out', 'n_samples'), '20a0efbebb686df1'),
    'linear_flops': (linear_flops, ('f_tok', 'l_out', 'n_samples'), '973ca7b4c9856dda'),
    'eflops': (eflops, ('c_comp', 'c_mem', 'intensity'), '8f1cde1c604642fa'),
    'decode_flops': (decode_flops, ('fl_attn', 'fl_linear', 'fl_select'), 'e455fa658bbbc9db'),
    'attention_flops': (attention_flops, ('fl_attn', 'fl_select'), '5ccfaf03d7c810d7'),
    'kv_read_bytes': (kv_read_bytes, ('by_kv', 'by_select'), 'cac4f471cc320c9a'),
    'weight_bytes__parallel': (weight_bytes__parallel, ('l_out', 'w_step'), 'c2c1161577428a05'),
    'weight_bytes__sequential': (weight_bytes__sequential, ('l_out', 'n_samples', 'w_step'), '713ae32605ae42fa'),
    'activation_bytes': (activation_bytes, ('a_tok', 'l_out', 'n_samples'), 'dd9a8cedcfc8cb4d'),
    'query_flops': (query_flops, ('c_comp', 'fl_prefill', 'fl_verifier'), '179342971a36b6e4'),
    'query_bytes': (query_bytes, ('by_act', 'by_prefill', 'by_verifier', 'by_weights', 'c_mem'), '4f0f2610fa6d1964'),
    'query_eflops': (query_eflops, ('c_comp', 'c_mem', 'fl_verifier', 'intensity'), '4b5c0ec7fb3be6f1'),
    'kv_device': (kv_device, ('k_pos_all', 'k_pos_dev', 'kv_resident'), '8309fa1243e172cf'),
    'latency_total': (latency_total, ('lat_decode', 'lat_prefill', 'lat_verifier'), 'd56984e07fe2728c'),
    'decode_time': (decode_time, ('lat_steps', 'step_weight'), '92f1d4aed34397ac'),
    'beam__own_ctx': (beam__own_ctx, ('beam_step', 'step'), '5983d85b05b4d0fd'),
    'beam__prefix_attended': (beam__prefix_attended, ('beam_step', 'l_in', 'step'), '179c8290ab5f82a8'),
    'beam__prefix_read': (beam__prefix_read, ('beam_step', 'beam_width', 'l_in', 'step'), '9f12d80dbd098f77'),
    'select_step_flops': (select_step_flops, ('block', 'f_pair_dev', 'l_in', 'n_seqs', 'step'), 'c9107777d3b90c63'),
    'select_step_bytes': (select_step_bytes, ('block', 'k_pos_dev', 'l_in', 'n_seqs', 'step'), '70281c4738524126'),
    'usd': (usd, ('devices', 'latency', 'usd_hour'), '0778d730601e144f'),
    'energy': (energy, ('devices', 'latency', 'tdp_w'), '4efc5fc64135042f'),
    'pass_at_n': (pass_at_n, ('f_max', 'n_samples', 'p_success'), '990269934f5b7bf0'),
    'saturation': (saturation, ('epsilon', 'f_max', 'p_success'), '45b305eed71c51e6'),
}
