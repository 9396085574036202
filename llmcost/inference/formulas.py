"""Inference composition formulas (sympy): how operator and phase times, memory components and
rates compose into the serving figures of :mod:`llmcost.inference.serve` (and, for memory, of
:mod:`llmcost.tts.query`).

The phase times themselves (``T_fwd``, ``T_dec``: Σ count·T_op over the operator graph) come from
:mod:`llmcost.inference.evaluator`; the collective times from :mod:`llmcost.collectives.cost`.
What is here is the arithmetic on top of them:

* pipeline (GPipe fill, Huang et al. 2019): micro-batches ``m = max(1, min(b, p))`` of ``b/m``
  sequences; ``TTFT = (m + p − 1)/p · T_fwd(b/m) + (p − 1)·T_hop``, each decode step
  ``T_dec(b/m, ctx) + (p − 1)·T_hop``, ``TPOT`` their mean and ``E2E = TTFT + Σ steps``
  (static batching, TensorRT-LLM gptSessionBenchmark);
* memory per device: weights, KV cache, activation workspace and reserved runtime memory;
* rates, energy per token (money per token: :func:`llmcost.economics.formulas.usd_per_million_tokens`).

Parenthesised groups (``UnevaluatedExpr``) fix the evaluation order of the generated code, so
that it performs the same floating-point operations in the same order as the arithmetic it
replaced (bit-identical figures); they do not change the value of the expression.

``python -m llmcost.inference.formulas`` regenerates :mod:`llmcost.inference._generated` (numpy
only); tests/test_inference.py pins it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import sympy as sp
from sympy import UnevaluatedExpr as Ordered

from llmcost.economics import formulas as _economics  # noqa: F401  (defines devices, tdp_w)
from llmcost.graph.ops import S as graph_symbol  # defines the graph's symbols (b_r) on first use
from llmcost.symbolic.compile import arguments, generated_header, write_generated
from llmcost.symbolic.symbols import define, sym

define("b_rep", "sequence", "sequences per replica: the serving batch over dp (b)", latex="b")
define("n_mb", "1", "pipeline micro-batches of a replica's batch (m)", latex="m")
define("t_prefill", "s", "prefill of one micro-batch through every layer (T_fwd)", latex=r"T_{fwd}")
define("t_decode", "s", "one decode step of one micro-batch through every layer (T_dec)", latex=r"T_{dec}")
define(
    "t_hop", "s", "one pipeline send/recv of a micro-batch's boundary activations (T_hop)", latex=r"T_{hop}"
)
define(
    "t_steps",
    "s",
    "decode time of the request's output_len − 1 tokens: the step times summed over them, over the tokens a step emits",
    latex=r"\Sigma T_{step}",
)
define("n_steps", "1", "decode steps evaluated (output_len − 1, at least 1)", latex="n_{steps}")
define("n_draft", "token", "tokens drafted per sequence per decode step (speculative decoding, k)", latex="k")
define(
    "t_draft",
    "s",
    "one draft pass of the draft module (MTP / EAGLE), one token per sequence",
    latex=r"T_{draft}",
)
define("alpha", "1", "acceptance rate of one drafted token (speculative decoding)", latex=r"\alpha")
define(
    "n_acc", "token", "tokens a decode step emits per sequence (accepted drafts + 1)", latex=r"\bar{n}_{acc}"
)
define(
    "t_iters", "s", "decode step times summed over the output positions evaluated", latex=r"\Sigma T_{iter}"
)
define(
    "share", "1", "share of a request's decode steps carrying prefill chunks (continuous batching)", latex="f"
)
define(
    "n_sync",
    "1",
    "serving replicas that run each step in lockstep (attention-DP ranks of one EP group)",
    latex=r"n_{sync}",
)
define("conc", "request", "requests in service per replica at once (continuous batching, C)", latex="C")
define(
    "chunk",
    "token",
    "prefill tokens of one request per engine step (prefill_chunk; n_in unchunked)",
    latex=r"n_{chunk}",
)
define("n_chunks", "1", "engine steps a request's prefill is spread over (chunked prefill)", latex=r"n_{ch}")
define(
    "t_cbstep",
    "s",
    "one engine step of continuous batching (decode tokens, prefill share, drafts)",
    latex=r"T_{step}",
)
define(
    "t_mixed",
    "s",
    "one mixed step: decode and admitted prefill tokens through every layer together",
    latex=r"T_{mix}",
)
define("t_kv", "s", "RDMA write of one prefill batch's KV cache shard per GPU", latex=r"T_{kv}")
define("t_batch", "s", "seconds per prefill batch of a prefill pool in steady state", latex=r"T_{batch}")
define("recv_bw", "B/s", "KV bytes one decode GPU receives per second", latex=r"B_{recv}")
define("kv_req", "B", "one request's prompt KV-cache bytes landing on one decode GPU", latex=r"KV_{req}")
define("ttft_prefill", "s", "the prefill pool's time to first token", latex=r"TTFT_p")
define("n_prefill", "1", "prefill-pool instances of a disaggregated deployment", latex="n_p")
define("n_decode", "1", "decode-pool instances of a disaggregated deployment", latex="n_d")
define("rate_prefill", "request/s", "requests per second one prefill instance sustains", latex="R_p")
define("rate_decode", "request/s", "requests per second one decode instance sustains", latex="R_d")
define("t_gpu", "s", "the GPU time of one engine step: its kernels summed", latex=r"T_{gpu}")
define("h_step", "s", "host time of one engine step (scheduler, inputs, sampled-token copy)", latex=r"h_0")
define("h_seq", "s", "host time per running sequence per engine step (output processing)", latex=r"h_s")
define(
    "overlap",
    "1",
    "1 when the engine prepares step n + 1 under step n (overlap scheduler), else 0",
    latex="o",
)
define("eager", "1", "1 when the step issues its kernels eagerly (no CUDA graph), else 0", latex="e")
define("n_kernels", "1", "operators the step issues", latex=r"n_k")
define("t_issue", "s", "host time to issue one operator eagerly", latex=r"t_{op}")
define(
    "s_comm",
    "1",
    "share of the SMs an overlapped NCCL collective holds (its thread blocks / SMs)",
    latex="s_c",
)
define("t_comp", "s", "one half micro-batch's operators but its expert-parallel exchanges", latex=r"T_{comp}")
define("t_comm", "s", "one half micro-batch's expert-parallel dispatch and combine", latex=r"T_{comm}")
define("ttft", "s", "time to first token", latex="TTFT")
define("tpot", "s", "time per output token (mean decode step)", latex="TPOT")
define("e2e", "s", "end-to-end latency of the request", latex="E2E")
define(
    "m_layers", "B", "resident weight bytes of all decoder (and encoder) layers on one device", latex="W_L"
)
define("m_io", "B", "embedding / LM-head weight bytes of the fuller pipeline stage", latex=r"W_{io}")
define("m_norm", "B", "final-norm weight bytes", latex=r"W_{norm}")
define("m_kv_all", "B", "KV-cache bytes of every layer on one device at the final context", latex=r"KV_L")
define(
    "m_draft",
    "B",
    "resident weight bytes of the draft module (MTP / EAGLE layer and projection)",
    latex=r"W_{dr}",
)
define("m_kv_draft", "B", "KV-cache bytes of the draft module's layer at the final context", latex=r"KV_{dr}")
define("m_weights", "B", "weight bytes per device", latex=r"M_w")
define("m_kv", "B", "KV-cache bytes per device", latex=r"M_{kv}")
define("m_act", "B", "activation workspace per device (largest operator input + output)", latex=r"M_a")
define("m_reserved", "B", "reserved runtime memory per device", latex=r"M_r")
define("usable", "B", "usable device memory (catalog)", latex=r"M_{usable}")
define("f_reserved", "1", "reserved runtime memory as a fraction of usable memory", latex=r"f_r")
define("batch", "sequence", "sequences in the batch, whole system (B)", latex="B")
define("prompt_len", "token", "prompt tokens per sequence", latex=r"n_{in}")
define("output_len", "token", "generated tokens per sequence", latex=r"n_{out}")
define("out_rate", "token/s", "output tokens per second of the deployment", latex=r"R_{out}")
define("s_per_tok", "s/token", "device time per output token: 1/R_out", latex=r"\tau")

S = sym


# ------------------------------------------------------------------------------ engine step
def host_time() -> sp.Expr:
    """Host time of one engine step: ``H = h_0 + h_s·b`` (a fixed part, scheduling and input
    preparation, and a part per running sequence, its output processing; vLLM RFCs #6854 / #6913)."""
    return S("h_step") + S("h_seq") * S("b_rep")


def engine_step() -> sp.Expr:
    """One engine step as the serving engine runs it: ``(1 − o)·H + max(T_gpu, o·H + e·n_k·t_op)``.
    A synchronous engine does its host work ``H`` (:func:`host_time`) between GPU steps (o = 0); an
    overlap scheduler does it while the GPU runs the previous step (o = 1: SGLang v0.4's zero-overhead
    scheduler, vLLM async scheduling), so only host time beyond the GPU step shows. An eager step
    (e = 1, no CUDA graph) issues its ``n_k`` operators one by one at ``t_op`` each; the launch queue
    lets the host run ahead, so the step takes the longer of issuing and running them (the GPU waits
    when issuing is slower: batch-1 decode of small models) [derived]. With H = 0 and a graph, T_gpu."""
    o = S("overlap")
    issue = o * host_time() + S("eager") * S("n_kernels") * S("t_issue")
    return (1 - o) * host_time() + sp.Max(S("t_gpu"), issue)


def tbo_step() -> sp.Expr:
    """A phase run as two overlapped half micro-batches: ``2·max(T_comm, T_comp + s_c·T_comm)``,
    ``T_comp`` every operator of one half but its expert-parallel exchanges, ``T_comm`` those exchanges:
    one half's dispatch / combine runs while the other computes, so each resource is busy for both
    halves in turn and the busier one sets the pace (DeepSeek-V3 report §3.2.2, dual micro-batch
    overlap; SGLang blog 2025-05-05 'Large-scale EP', two-batch overlap); the exchange kernels hold a
    share ``s_c`` of the SMs meanwhile (the catalog's ``gemm.collective_sms``, as the training model's
    overlapped collectives). The halves each read the weights: a memory-bound decode pays that twice
    [derived]."""
    return 2 * sp.Max(S("t_comm"), S("t_comp") + S("s_comm") * S("t_comm"))


# ------------------------------------------------------------------------------ pipeline
def micro_batches() -> sp.Expr:
    """Pipeline micro-batches of a replica's batch: ``m = max(1, min(b, p))`` (GPipe, Huang et
    al. 2019: as many micro-batches as stages when the batch allows, at least one)."""
    return sp.Max(1, sp.Min(S("b_rep"), S("pp")))


def micro_batch() -> sp.Expr:
    """Sequences per micro-batch: ``b/m`` (GPipe, Huang et al. 2019)."""
    return S("b_rep") / micro_batches()


def hop_bytes() -> sp.Expr:
    """Bytes one pipeline stage sends the next per micro-batch: its boundary activations,
    ``(b_mb·s/c)·h·b_r`` (tokens of the micro-batch on one CP rank x hidden size x bytes of the
    residual stream: the ``b·s·h`` stage output of Narayanan et al. 2021 §4.1); a decode step
    sends its query tokens per sequence (``s = n_dec``: 1, or k + 1 when it verifies k drafts; ``c = 1``)."""
    tokens = Ordered(S("micro_batch") * S("seq") / S("cp"))
    return Ordered(tokens * S("d_model")) * graph_symbol("b_r")


def ttft() -> sp.Expr:
    """Time to first token: ``TTFT = (m + p − 1)/p · T_fwd(b/m) + (p − 1)·T_hop`` (GPipe fill,
    Huang et al. 2019: the last of m micro-batches leaves stage p after m + p − 1 stage times
    of T_fwd/p, crossing p − 1 stage boundaries)."""
    m, p = S("n_mb"), S("pp")
    return Ordered((m + p - 1) / p) * S("t_prefill") + (p - 1) * S("t_hop")


def decode_step() -> sp.Expr:
    """One decode step: ``T_dec(b/m, ctx) + (p − 1)·T_hop + k·T_draft`` (the micro-batches' tokens
    move through the p stages in turn, each step one micro-batch's decode plus p − 1 hops; GPipe,
    Huang et al. 2019 [derived]); with speculative decoding ``T_dec`` verifies ``k + 1`` tokens per
    sequence and the draft module runs ``k`` sequential passes (Leviathan et al. 2023 §3: the
    drafts are autoregressive, the verification one parallel pass; 0 passes for prompt-lookup
    drafts)."""
    return Ordered(S("t_decode") + (S("pp") - 1) * S("t_hop")) + S("n_draft") * S("t_draft")


def accepted_tokens() -> sp.Expr:
    """Expected tokens a speculative decode step emits per sequence, ``(1 − α^(k+1)) / (1 − α)``
    (Leviathan et al. 2023, eq. 1: the accepted prefix of k drafts, each accepted with probability
    α given the previous ones, plus the verifier's own token); ``k + 1`` at α = 1."""
    a, k = S("alpha"), S("n_draft")
    return sp.Piecewise((k + 1, sp.Eq(a, 1)), ((1 - a ** (k + 1)) / (1 - a), True))


def decode_time() -> sp.Expr:
    """Decode time of a request: ``Σ T_step / n̄_acc``: the step time at each output position's
    context summed over the positions, over the tokens one step emits (1 without speculation, so the
    steps themselves; with it ``n_out − 1`` tokens take ``(n_out − 1)/n̄_acc`` steps, at least one:
    ``n̄_acc`` capped at the ``n_steps`` positions) [derived]."""
    return S("t_iters") / sp.Min(S("n_acc"), S("n_steps"))


def tpot() -> sp.Expr:
    """Time per output token: the decode time over the ``n_steps`` output positions (the mean decode
    step, or with speculative decoding the mean step over the tokens it emits, :func:`decode_time`),
    every step at its own context ``prompt_len + 1 ... prompt_len + output_len − 1`` (static
    batching, TensorRT-LLM gptSessionBenchmark)."""
    return S("t_steps") / S("n_steps")


def e2e() -> sp.Expr:
    """End-to-end latency: ``E2E = TTFT + T_decode``, the decode time of the request's output_len − 1
    tokens (:func:`decode_time`; static batching, TensorRT-LLM gptSessionBenchmark; 0 for one output
    token)."""
    return S("ttft") + S("t_steps")


# ------------------------------------------------------------------------------ continuous batching
def cb_chunks() -> sp.Expr:
    """Engine steps a request's prefill is spread over: ``⌈n_in / n_chunk⌉`` with a prefill chunk of
    ``n_chunk`` tokens (vLLM ``max_num_batched_tokens``, SGLang ``--chunked-prefill-size``; the
    decode tokens sharing the step's token budget are not subtracted) [derived]."""
    return sp.ceiling(S("prompt_len") / S("chunk"))


def cb_slot_steps() -> sp.Expr:
    """Engine steps a request holds its slot in continuous batching: ``S = n_ch + (n_out − 1)/n̄_acc``,
    its prefill chunks, then its decode steps (Orca, Yu et al. 2022: a request joins the running
    batch when it is scheduled and leaves when it finishes; Sarathi-Serve, Agrawal et al. 2024:
    prefills chunked into the decode steps) [derived]."""
    return S("n_chunks") + (S("output_len") - 1) / S("n_acc")


def cb_decoding() -> sp.Expr:
    """Requests in their decode phase in a step at concurrency C: ``C·((n_out − 1)/n̄_acc) / S``
    (Little's law: of the S steps a slot is held, that many are decode steps) [derived]."""
    return S("conc") * ((S("output_len") - 1) / S("n_acc")) / cb_slot_steps()


def cb_others_decoding() -> sp.Expr:
    """Other requests decoding in the steps that prefill one request's chunks: ``C_dec·(C − 1)/C``
    (with C = 1 its prefill runs alone) [derived]."""
    return cb_decoding() * (S("conc") - 1) / S("conc")


def cb_seen_decoding() -> sp.Expr:
    """Sequences in the decode step a decoding request sees: itself and the others decoding,
    ``1 + C_dec·(C − 1)/C`` (with C = 1 it decodes alone) [derived]."""
    return 1 + cb_others_decoding()


def cb_chunks_per_step() -> sp.Expr:
    """Prefill chunks a prefill-carrying step holds: ``max(1, C·n_ch / S)`` — C requests each bring
    n_ch chunks per S steps; below one per step they come one at a time [derived]."""
    return sp.Max(1, S("conc") * S("n_chunks") / cb_slot_steps())


def cb_prompts_per_step() -> sp.Expr:
    """Prompts (of ``n_in`` tokens) a prefill-carrying step prefills: its chunks over the chunks a
    prompt has, ``max(1, C·n_ch/S) / max(n_ch, 1)`` [derived]."""
    return cb_chunks_per_step() / sp.Max(S("n_chunks"), 1)


def disagg_rate() -> sp.Expr:
    """Requests per second of a disaggregated deployment of ``n_p`` prefill and ``n_d`` decode
    instances: the slower pool's, ``min(n_p·R_p, n_d·R_d)`` (DistServe, Zhong et al. 2024 §4) [derived]."""
    return sp.Min(S("n_prefill") * S("rate_prefill"), S("n_decode") * S("rate_decode"))


def cb_prefill_share() -> sp.Expr:
    """Share of a request's decode steps that carry other requests' prefill chunks:
    ``min(1, (C − 1)·n_ch / ((n_out − 1)/n̄_acc))`` (the other C − 1 slots each turn over once per
    cycle, n_ch chunks each; its own prefill is its TTFT) [derived]."""
    return sp.Min(1, (S("conc") - 1) * S("n_chunks") * S("n_acc") / sp.Max(S("output_len") - 1, 1))


def cb_synced_share() -> sp.Expr:
    """Share of the engine steps carrying prefill chunks on ``n_sync`` replicas that run each step in
    lockstep, each carrying them in a share ``f`` of its steps independently: ``1 − (1 − f)^n_sync``
    (``f`` itself for one). Attention-DP ranks of one expert-parallel group exchange tokens in every MoE
    layer (DeepSeek-V3 report §3.4; DeepEP), so a step lasts as long as its slowest rank, the one
    prefilling; TensorRT-LLM's PyTorch backend also runs such a step eagerly on every rank
    (tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py maybe_get_cuda_graph: no graph unless every
    attention-DP rank is generation-only) [derived]."""
    f, n = S("share"), S("n_sync")
    return sp.Piecewise((f, sp.Eq(n, 1)), (1 - (1 - f) ** n, True))


def cb_prefilling_ranks() -> sp.Expr:
    """Share of ``n_sync`` lockstep ranks prefilling in a step that carries prefill, each rank
    independently in a share ``f`` of the steps: ``f / (1 − (1 − f)^n_sync)`` (1 for one rank; its limit
    ``1/n_sync`` where no step prefills, f = 0, which the caller takes). The routed experts of such a
    step take that share of the prompts' tokens of all ranks; the dispatch / combine are not rescaled:
    the prefilling rank's own sends set their time [derived]."""
    f, n = S("share"), S("n_sync")
    return sp.Piecewise((1, sp.Eq(n, 1)), (f / (1 - (1 - f) ** n), True))


def cb_own_prefilling_ranks() -> sp.Expr:
    """Share of ``n_sync`` lockstep ranks prefilling in the step that prefills a given rank's chunk: that
    rank, and each of the others in a share ``f`` of the steps, ``(1 + (n_sync − 1)·f) / n_sync`` [derived]."""
    f, n = S("share"), S("n_sync")
    return sp.Piecewise((1, sp.Eq(n, 1)), ((1 + (n - 1) * f) / n, True))


def cb_context() -> sp.Expr:
    """Mean cached context of a decoding sequence in the steady state: ``n_in + n_out/2`` (the
    decoding requests are spread evenly over their output positions) [derived]."""
    return S("prompt_len") + S("output_len") / 2


def cb_step() -> sp.Expr:
    """A request's mean decode step under continuous batching: ``f·T_mix + (1 − f)·T_dec + k·T_draft``
    with ``f`` the share of steps carrying prefill chunks (:func:`cb_prefill_share`). ``T_dec``
    decodes the requests a decoding request sees (itself and the others, :func:`cb_seen_decoding`)
    at the mean context; ``T_mix`` adds the step's prefill
    chunks, run through every layer with the decode tokens (each GEMM, norm and collective once on
    the sum of the tokens, the weights read once: Sarathi-Serve, Agrawal et al. 2024 §4,
    "piggybacking" prefills on decodes; the decode and prefill attention each its own kernel); then
    the draft passes [derived]."""
    f = S("share")
    return Ordered(f * S("t_mixed") + (1 - f) * S("t_decode")) + S("n_draft") * S("t_draft")


def cb_tpot() -> sp.Expr:
    """Time per output token under continuous batching: ``T_step / n̄_acc`` [derived]."""
    return S("t_cbstep") / S("n_acc")


def cb_ttft() -> sp.Expr:
    """Time to first token under continuous batching at a fixed concurrency (no queue): the ``n_ch``
    prefill-carrying steps its chunks run in, ``n_ch·(T_mix + k·T_draft)``, ``T_mix`` here with the
    other requests' decodes (:func:`cb_others_decoding`) [derived]."""
    return S("n_chunks") * (S("t_mixed") + S("n_draft") * S("t_draft"))


def cb_e2e() -> sp.Expr:
    """End-to-end latency of a request under continuous batching: ``TTFT + (n_out − 1)·TPOT`` (its
    prefill steps, then its decode steps) [derived]."""
    return S("ttft") + (S("output_len") - 1) * S("tpot")


def input_rate_continuous() -> sp.Expr:
    """Prompt tokens per second per device under continuous batching: ``(B·n_in / E2E) / n_dev``
    (B requests in service, each taking E2E; Little's law) [derived]."""
    return Ordered(S("batch") * S("prompt_len") / S("e2e")) / S("devices")


# ------------------------------------------------------------------------------ disaggregation
def disagg_batch_time() -> sp.Expr:
    """Seconds per prefill batch of a static prefill pool in steady state: ``m·T_fwd / p`` — a new
    batch enters the pipeline when the busiest stage has passed the last one's m micro-batches
    (GPipe, Huang et al. 2019); ``T_fwd`` (its TTFT) with one stage [derived]."""
    return S("n_mb") * S("t_prefill") / S("pp")


def disagg_prefill_rate() -> sp.Expr:
    """Requests per second a disaggregated prefill pool sustains: ``B / max(T_batch, T_kv)`` — a batch
    per prefill batch time, or per KV write when the write (every GPU its shard over its own NIC,
    overlapping the next batch's prefill) takes longer (DistServe, Zhong et al. 2024 §3; Mooncake,
    Qin et al. 2024 §5) [derived]."""
    return S("batch") / sp.Max(S("t_batch"), S("t_kv"))


def disagg_decode_rate() -> sp.Expr:
    """Requests per second a disaggregated decode pool sustains: its output tokens per second over the
    ``n_out − 1`` tokens it generates per request (the first comes from the prefill pool), at most
    what its GPUs can receive, ``B_recv / KV_req`` (one request's prompt KV shard per decode GPU over
    what that GPU's NICs take in) [derived]."""
    return sp.Min(S("out_rate") / (S("output_len") - 1), S("recv_bw") / S("kv_req"))


def disagg_ttft() -> sp.Expr:
    """Time to first token of a disaggregated deployment: the prefill pool's TTFT plus the write of
    the batch's KV cache to the decode pool, ``TTFT_p + T_kv`` (not overlapped with the request's own
    prefill; layer-wise streaming as Mooncake's would hide part of it) [derived]."""
    return S("ttft_prefill") + S("t_kv")


# ------------------------------------------------------------------------------ memory
def memory_weights() -> sp.Expr:
    """Weight bytes per device: ``W_L/p + W_io + W_norm + W_dr`` — the layers split over p stages;
    the embedding on the first stage and the LM head on the last (with p > 1 the fuller of the two,
    else both), the final norm (Megatron-LM theoretical_memory_usage.py
    ``compute_weight_and_optimizer_memory``: embedding on the first stage, output layer on the
    last); a speculative draft module's own weights (its layer and projection; it shares the
    embedding and the head) where the plan drafts with one [derived]."""
    return Ordered(S("m_layers") / S("pp") + S("m_io")) + S("m_norm") + S("m_draft")


def memory_kv_cache() -> sp.Expr:
    """KV-cache bytes per device: ``KV_L/p + KV_dr``, the stage's layers at the request's final
    context ``prompt_len + output_len`` (its largest, reached at the last step), plus the draft
    module's layer cache where the plan drafts with one (MTP / EAGLE keep their own) [derived]."""
    return S("m_kv_all") / S("pp") + S("m_kv_draft")


def memory_reserved() -> sp.Expr:
    """Reserved runtime memory (CUDA context, NCCL buffers, allocator slack): ``f_r·M_usable``
    (vLLM ``gpu_memory_utilization`` 0.9, TensorRT-LLM ``kv_cache_free_gpu_mem_fraction`` 0.9)."""
    return S("f_reserved") * S("usable")


def memory_total() -> sp.Expr:
    """Memory per device: ``M_w + M_kv + M_a + M_r`` (weights, KV cache, activation workspace,
    reserved) [derived: the components are disjoint]."""
    return Ordered(Ordered(S("m_weights") + S("m_kv")) + S("m_act")) + S("m_reserved")


# ------------------------------------------------------------------------------ rates, energy
def output_rate() -> sp.Expr:
    """Output tokens per second of the deployment: ``B·n_out / E2E`` (static batching: the
    batch's tokens over the request time; TensorRT-LLM gptSessionBenchmark)."""
    return S("batch") * S("output_len") / S("e2e")


def output_rate_decode_pool() -> sp.Expr:
    """Output tokens per second of the decode pool of a disaggregated deployment: ``B / TPOT``
    (prefill runs on the prefill pool; DistServe, Zhong et al. 2024 §2)."""
    return S("batch") / S("tpot")


def seconds_per_token() -> sp.Expr:
    """Deployment time per output token: ``1 / R_out`` [derived]."""
    return Ordered(1) / S("out_rate")


def output_rate_per_device() -> sp.Expr:
    """Output tokens per second per device: ``R_out / n_dev`` [derived]."""
    return S("out_rate") / S("devices")


def input_rate_per_device() -> sp.Expr:
    """Prompt tokens per second per device: ``(B·n_in / TTFT) / n_dev`` (the prefill rate) [derived]."""
    return Ordered(S("batch") * S("prompt_len") / S("ttft")) / S("devices")


def user_rate() -> sp.Expr:
    """Output tokens per second one user sees: ``1 / TPOT`` [derived]."""
    return Ordered(1) / S("tpot")


def joules_per_token() -> sp.Expr:
    """Energy per output token: ``(n_dev·P)·τ`` with ``τ = 1/R_out``, ``P`` the draw per device: the
    TDP (an upper bound) or, where the catalog gives draws by kind of work, their mean over the
    time (:func:`llmcost.economics.formulas.mean_draw`) [derived]."""
    return Ordered(S("devices") * S("tdp_w")) * S("s_per_tok")


FORMULAS: dict[str, Callable[[], sp.Expr]] = {
    "micro_batches": micro_batches,
    "micro_batch": micro_batch,
    "hop_bytes": hop_bytes,
    "ttft": ttft,
    "decode_step": decode_step,
    "engine_step": engine_step,
    "tbo_step": tbo_step,
    "cb_synced_share": cb_synced_share,
    "cb_prefilling_ranks": cb_prefilling_ranks,
    "cb_own_prefilling_ranks": cb_own_prefilling_ranks,
    "accepted_tokens": accepted_tokens,
    "decode_time": decode_time,
    "tpot": tpot,
    "cb_chunks": cb_chunks,
    "cb_others_decoding": cb_others_decoding,
    "cb_seen_decoding": cb_seen_decoding,
    "cb_prompts_per_step": cb_prompts_per_step,
    "cb_prefill_share": cb_prefill_share,
    "cb_context": cb_context,
    "cb_step": cb_step,
    "cb_tpot": cb_tpot,
    "cb_ttft": cb_ttft,
    "cb_e2e": cb_e2e,
    "input_rate_per_device__continuous": input_rate_continuous,
    "disagg__batch_time": disagg_batch_time,
    "disagg__prefill_rate": disagg_prefill_rate,
    "disagg__decode_rate": disagg_decode_rate,
    "disagg__ttft": disagg_ttft,
    "disagg__rate": disagg_rate,
    "e2e": e2e,
    "memory__weights": memory_weights,
    "memory__kv_cache": memory_kv_cache,
    "memory__reserved": memory_reserved,
    "memory__total": memory_total,
    "output_rate": output_rate,
    "output_rate__decode_pool": output_rate_decode_pool,
    "seconds_per_token": seconds_per_token,
    "output_rate_per_device": output_rate_per_device,
    "input_rate_per_device": input_rate_per_device,
    "user_rate": user_rate,
    "joules_per_token": joules_per_token,
}


def expression(name: str) -> sp.Expr:
    """The sympy expression of ``name`` (a key of :data:`FORMULAS`)."""
    return FORMULAS[name]()


GENERATED = Path(__file__).with_name("_generated.py")
HEADER = generated_header(
    "llmcost.inference.formulas",
    "tests/test_inference.py",
    "One numpy function per serving composition figure; FUNCTIONS maps its name to\n(function, argument names, expression hash).",
)


def generated_source() -> str:
    """Source of the runtime module: one function per entry of :data:`FORMULAS`."""
    from llmcost.symbolic.compile import formulas_source

    return formulas_source(FORMULAS, arguments, header=HEADER)


if __name__ == "__main__":
    write_generated(GENERATED, generated_source())
