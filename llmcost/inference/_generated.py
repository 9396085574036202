"""Generated from llmcost/inference/formulas.py by
``python -m llmcost.inference.formulas``: do not edit (tests/test_inference.py pins it).

One numpy function per serving composition figure; FUNCTIONS maps its name to
(function, argument names, expression hash).
"""
# ruff: noqa

import numpy


def micro_batches(b_rep, pp):
    """Pipeline micro-batches of a replica's batch: ``m = max(1, min(b, p))`` (GPipe, Huang et"""
    return numpy.maximum(1, numpy.minimum(b_rep, pp))


def micro_batch(b_rep, pp):
    """Sequences per micro-batch: ``b/m`` (GPipe, Huang et al. 2019)."""
    return b_rep/numpy.maximum(1, numpy.minimum(b_rep, pp))


def hop_bytes(b_r, cp, d_model, micro_batch, seq):
    """Bytes one pipeline stage sends the next per micro-batch: its boundary activations,"""
    return b_r*(d_model*(micro_batch*seq/cp))


def ttft(n_mb, pp, t_hop, t_prefill):
    """Time to first token: ``TTFT = (m + p − 1)/p · T_fwd(b/m) + (p − 1)·T_hop`` (GPipe fill,"""
    return t_hop*(pp - 1) + t_prefill*((n_mb + pp - 1)/pp)


def decode_step(n_draft, pp, t_decode, t_draft, t_hop):
    """One decode step: ``T_dec(b/m, ctx) + (p − 1)·T_hop + k·T_draft`` (the micro-batches' tokens"""
    return n_draft*t_draft + (t_decode + t_hop*(pp - 1))


def engine_step(b_rep, eager, h_seq, h_step, n_kernels, overlap, t_gpu, t_issue):
    """One engine step as the serving engine runs it: ``(1 − o)·H + max(T_gpu, o·H + e·n_k·t_op)``."""
    return (1 - overlap)*(b_rep*h_seq + h_step) + numpy.maximum(t_gpu, eager*n_kernels*t_issue + overlap*(b_rep*h_seq + h_step))


def tbo_step(s_comm, t_comm, t_comp):
    """A phase run as two overlapped half micro-batches: ``2·max(T_comm, T_comp + s_c·T_comm)``,"""
    return 2*numpy.maximum(t_comm, s_comm*t_comm + t_comp)


def cb_synced_share(n_sync, share):
    """Share of the engine steps carrying prefill chunks on ``n_sync`` replicas that run each step in"""
    return numpy.select([numpy.equal(n_sync, 1),True], [share,1 - (1 - share)**n_sync], default=numpy.nan)


def cb_prefilling_ranks(n_sync, share):
    """Share of ``n_sync`` lockstep ranks prefilling in a step that carries prefill, each rank"""
    return numpy.select([numpy.equal(n_sync, 1),True], [1,share/(1 - (1 - share)**n_sync)], default=numpy.nan)


def cb_own_prefilling_ranks(n_sync, share):
    """Share of ``n_sync`` lockstep ranks prefilling in the step that prefills a given rank's chunk: that"""
    return numpy.select([numpy.equal(n_sync, 1),True], [1,(share*(n_sync - 1) + 1)/n_sync], default=numpy.nan)


def accepted_tokens(alpha, n_draft):
    """Expected tokens a speculative decode step emits per sequence, ``(1 − α^(k+1)) / (1 − α)``"""
    return numpy.select([numpy.equal(alpha, 1),True], [n_draft + 1,(1 - alpha**(n_draft + 1))/(1 - alpha)], default=numpy.nan)


def decode_time(n_acc, n_steps, t_iters):
    """Decode time of a request: ``Σ T_step / n̄_acc``: the step time at each output position's"""
    return t_iters/numpy.minimum(n_acc, n_steps)


def tpot(n_steps, t_steps):
    """Time per output token: the decode time over the ``n_steps`` output positions (the mean decode"""
    return t_steps/n_steps


def cb_chunks(chunk, prompt_len):
    """Engine steps a request's prefill is spread over: ``⌈n_in / n_chunk⌉`` with a prefill chunk of"""
    return numpy.ceil(prompt_len/chunk)


def cb_others_decoding(conc, n_acc, n_chunks, output_len):
    """Other requests decoding in the steps that prefill one request's chunks: ``C_dec·(C − 1)/C``"""
    return (conc - 1)*(output_len - 1)/(n_acc*(n_chunks + (output_len - 1)/n_acc))


def cb_seen_decoding(conc, n_acc, n_chunks, output_len):
    """Sequences in the decode step a decoding request sees: itself and the others decoding,"""
    return 1 + (conc - 1)*(output_len - 1)/(n_acc*(n_chunks + (output_len - 1)/n_acc))


def cb_prompts_per_step(conc, n_acc, n_chunks, output_len):
    """Prompts (of ``n_in`` tokens) a prefill-carrying step prefills: its chunks over the chunks a"""
    return numpy.maximum(1, conc*n_chunks/(n_chunks + (output_len - 1)/n_acc))/numpy.maximum(1, n_chunks)


def cb_prefill_share(conc, n_acc, n_chunks, output_len):
    """Share of a request's decode steps that carry other requests' prefill chunks:"""
    return numpy.minimum(1, n_acc*n_chunks*(conc - 1)/numpy.maximum(1, output_len - 1))


def cb_context(output_len, prompt_len):
    """Mean cached context of a decoding sequence in the steady state: ``n_in + n_out/2`` (the"""
    return (1/2)*output_len + prompt_len


def cb_step(n_draft, share, t_decode, t_draft, t_mixed):
    """A request's mean decode step under continuous batching: ``f·T_mix + (1 − f)·T_dec + k·T_draft``"""
    return n_draft*t_draft + (share*t_mixed + t_decode*(1 - share))


def cb_tpot(n_acc, t_cbstep):
    """Time per output token under continuous batching: ``T_step / n̄_acc`` [derived]."""
    return t_cbstep/n_acc


def cb_ttft(n_chunks, n_draft, t_draft, t_mixed):
    """Time to first token under continuous batching at a fixed concurrency (no queue): the ``n_ch``"""
    return n_chunks*(n_draft*t_draft + t_mixed)


def cb_e2e(output_len, tpot, ttft):
    """End-to-end latency of a request under continuous batching: ``TTFT + (n_out − 1)·TPOT`` (its"""
    return tpot*(output_len - 1) + ttft


def input_rate_per_device__continuous(batch, devices, e2e, prompt_len):
    """Prompt tokens per second per device under continuous batching: ``(B·n_in / E2E) / n_dev``"""
    return (batch*prompt_len/e2e)/devices


def disagg__batch_time(n_mb, pp, t_prefill):
    """Seconds per prefill batch of a static prefill pool in steady state: ``m·T_fwd / p`` — a new"""
    return n_mb*t_prefill/pp


def disagg__prefill_rate(batch, t_batch, t_kv):
    """Requests per second a disaggregated prefill pool sustains: ``B / max(T_batch, T_kv)`` — a batch"""
    return batch/numpy.maximum(t_batch, t_kv)


def disagg__decode_rate(kv_req, out_rate, output_len, recv_bw):
    """Requests per second a disaggregated decode pool sustains: its output tokens per second over the"""
    return numpy.minimum(recv_bw/kv_req, out_rate/(output_len - 1))


def disagg__ttft(t_kv, ttft_prefill):
    """Time to first token of a disaggregated deployment: the prefill pool's TTFT plus the write of"""
    return t_kv + ttft_prefill


def disagg__rate(n_decode, n_prefill, rate_decode, rate_prefill):
    """Requests per second of a disaggregated deployment of ``n_p`` prefill and ``n_d`` decode"""
    return numpy.minimum(n_decode*rate_decode, n_prefill*rate_prefill)


def e2e(t_steps, ttft):
    """End-to-end latency: ``E2E = TTFT + T_decode``, the decode time of the request's output_len − 1"""
    return t_steps + ttft


def memory__weights(m_draft, m_io, m_layers, m_norm, pp):
    """Weight bytes per device: ``W_L/p + W_io + W_norm + W_dr`` — the layers split over p stages;"""
    return m_draft + m_norm + (m_io + m_layers/pp)


def memory__kv_cache(m_kv_all, m_kv_draft, pp):
    """KV-cache bytes per device: ``KV_L/p + KV_dr``, the stage's layers at the request's final"""
    return m_kv_all/pp + m_kv_draft


def memory__reserved(f_reserved, usable):
    """Reserved runtime memory (CUDA context, NCCL buffers, allocator slack): ``f_r·M_usable``"""
    return f_reserved*usable


def memory__total(m_act, m_kv, m_reserved, m_weights):
    """Memory per device: ``M_w + M_kv + M_a + M_r`` (weights, KV cache, activation workspace,"""
    return m_reserved + (m_act + (m_kv + m_weights))


def output_rate(batch, e2e, output_len):
    """Output tokens per second of the deployment: ``B·n_out / E2E`` (static batching: the"""
    return batch*output_len/e2e


def output_rate__decode_pool(batch, tpot):
    """Output tokens per second of the decode pool of a disaggregated deployment: ``B / TPOT``"""
    return batch/tpot


def seconds_per_token(out_rate):
    """Deployment time per output token: ``1 / R_out`` [derived]."""
    return 1/out_rate


def output_rate_per_device(devices, out_rate):
    """Output tokens per second per device: ``R_out / n_dev`` [derived]."""
    return out_rate/devices


def input_rate_per_device(batch, devices, prompt_len, ttft):
    """Prompt tokens per second per device: ``(B·n_in / TTFT) / n_dev`` (the prefill rate) [derived]."""
    return (batch*prompt_len/ttft)/devices


def user_rate(tpot):
    """Output tokens per second one user sees: ``1 / TPOT`` [derived]."""
    return 1/tpot


def joules_per_token(devices, s_per_tok, tdp_w):
    """Energy per output token: ``(n_dev·P)·τ`` with ``τ = 1/R_out``, ``P`` the draw per device: the"""
    return s_per_tok*(devices*tdp_w)


FUNCTIONS = {
    'micro_batches': (micro_batches, ('b_rep', 'pp'), '9e1720b074e10cae'),
    'micro_batch': (micro_batch, ('b_rep', 'pp'), 'f20cc7338732585e'),
    'hop_bytes': (hop_bytes, ('b_r', 'cp', 'd_model', 'micro_batch', 'seq'), '7ab5c4d6fcc1fbee'),
    'ttft': (ttft, ('n_mb', 'pp', 't_hop', 't_prefill'), '9e3067888d873880'),
    'decode_step': (decode_step, ('n_draft', 'pp', 't_decode', 't_draft', 't_hop'), 'f059a9f8e9d2107f'),
    'engine_step': (engine_step, ('b_rep', 'eager', 'h_seq', 'h_step', 'n_kernels', 'overlap', 't_gpu', 't_issue'), 'c72d8903b1e682b6'),
    'tbo_step': (tbo_step, ('s_comm', 't_comm', 't_comp'), '458cb264644fb4e8'),
    'cb_synced_share': (cb_synced_share, ('n_sync', 'share'), 'c2cade1c75f2d486'),
    'cb_prefilling_ranks': (cb_prefilling_ranks, ('n_sync', 'share'), '6ee0ff6c9b53874d'),
    'cb_own_prefilling_ranks': (cb_own_prefilling_ranks, ('n_sync', 'share'), '3b0516a5dec5e886'),
    'accepted_tokens': (accepted_tokens, ('alpha', 'n_draft'), 'b5527753e7d898e0'),
    'decode_time': (decode_time, ('n_acc', 'n_steps', 't_iters'), '24cacf223ae7fdae'),
    'tpot': (tpot, ('n_steps', 't_steps'), '064a6800e2575d28'),
    'cb_chunks': (cb_chunks, ('chunk', 'prompt_len'), 'b5dfb7b37aec70ca'),
    'cb_others_decoding': (cb_others_decoding, ('conc', 'n_acc', 'n_chunks', 'output_len'), '8de430580c045b2a'),
    'cb_seen_decoding': (cb_seen_decoding, ('conc', 'n_acc', 'n_chunks', 'output_len'), '2e72d5997509d5c2'),
    'cb_prompts_per_step': (cb_prompts_per_step, ('conc', 'n_acc', 'n_chunks', 'output_len'), '1ef43654a0197a35'),
    'cb_prefill_share': (cb_prefill_share, ('conc', 'n_acc', 'n_chunks', 'output_len'), '133213b9e03631ca'),
    'cb_context': (cb_context, ('output_len', 'prompt_len'), '668bfad38c9ccb07'),
    'cb_step': (cb_step, ('n_draft', 'share', 't_decode', 't_draft', 't_mixed'), '785bce449d9515a0'),
    'cb_tpot': (cb_tpot, ('n_acc', 't_cbstep'), '5bdc90478bb787e9'),
    'cb_ttft': (cb_ttft, ('n_chunks', 'n_draft', 't_draft', 't_mixed'), '1494c63a59ecdfe0'),
    'cb_e2e': (cb_e2e, ('output_len', 'tpot', 'ttft'), '204656de04adb8e4'),
    'input_rate_per_device__continuous': (input_rate_per_device__continuous, ('batch', 'devices', 'e2e', 'prompt_len'), 'ee8cb6a18ce2f4b3'),
    'disagg__batch_time': (disagg__batch_time, ('n_mb', 'pp', 't_prefill'), 'e55f58f34589019b'),
    'disagg__prefill_rate': (disagg__prefill_rate, ('batch', 't_batch', 't_kv'), '5c0089504241c12d'),
    'disagg__decode_rate': (disagg__decode_rate, ('kv_req', 'out_rate', 'output_len', 'recv_bw'), '583198c3726242e9'),
    'disagg__ttft': (disagg__ttft, ('t_kv', 'ttft_prefill'), '2ea6d329d2744247'),
    'disagg__rate': (disagg__rate, ('n_decode', 'n_prefill', 'rate_decode', 'rate_prefill'), '76b056282a0f1c69'),
    'e2e': (e2e, ('t_steps', 'ttft'), '4da17b70cd26e6df'),
    'memory__weights': (memory__weights, ('m_draft', 'm_io', 'm_layers', 'm_norm', 'pp'), '00e970bed6626ffc'),
    'memory__kv_cache': (memory__kv_cache, ('m_kv_all', 'm_kv_draft', 'pp'), '9e287e2aff3a4097'),
    'memory__reserved': (memory__reserved, ('f_reserved', 'usable'), '3b352de66f02e0d1'),
    'memory__total': (memory__total, ('m_act', 'm_kv', 'm_reserved', 'm_weights'), 'a3cf7d9ac2e8a06b'),
    'output_rate': (output_rate, ('batch', 'e2e', 'output_len'), 'c85e2e28f5b8f65b'),
    'output_rate__decode_pool': (output_rate__decode_pool, ('batch', 'tpot'), '6675c1a12cc6d797'),
    'seconds_per_token': (seconds_per_token, ('out_rate',), '264b419e072db053'),
    'output_rate_per_device': (output_rate_per_device, ('devices', 'out_rate'), 'f3abcd737b3f5aff'),
    'input_rate_per_device': (input_rate_per_device, ('batch', 'devices', 'prompt_len', 'ttft'), '0b05fb72e7763e06'),
    'user_rate': (user_rate, ('tpot',), '99c0ac7aed082400'),
    'joules_per_token': (joules_per_token, ('devices', 's_per_tok', 'tdp_w'), 'ee77278a832e45b2'),
}
