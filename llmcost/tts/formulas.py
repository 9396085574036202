"""Test-time-scaling cost and accuracy formulas (sympy): the source of truth for
:mod:`llmcost.tts.query` and :mod:`llmcost.tts.accuracy`.

A query is a prompt of ``L_in`` tokens answered with ``N`` samples of ``L_out`` generated
tokens (Sadhukhan et al. 2025, Kinetics §3). The per-token primitives come from the operator graph
(:mod:`llmcost.graph.ops`, read off the generated inference functions by
:mod:`llmcost.tts.primitives`), so no per-operator formula is repeated here:

* ``f_tok``  FLOPs of one generated token without attention over the context (GEMMs, LM
  head, norms, activations, router/experts),
* ``f_pair`` attention FLOPs per (query token, cached key) pair, all layers of a group
  (``4·n_q·d_h·L`` for MHA/GQA: QK^T and PV over query heads, not KV heads),
* ``k_pos``  KV-cache bytes per cached position, all layers of a group
  (``2·n_kv·d_h·L·b_kv``: K and V of the KV heads, bytes not bits),
* ``w_step`` weight bytes one decode step reads (one read serves the whole batch of samples),
* ``a_tok``  activation bytes (and the new token's KV write) per generated token.

What is new here is how a strategy sums them over its generation (:data:`FORMULAS`): which
(query, key) pairs are attended, which KV positions are read per step when the prompt's KV is
shared by the samples (read once per step, Kinetics §3 / ``cost_model/utils.py::dense_cost``),
what top-k sparse attention keeps (Kinetics §5, ``block_sparse_cost``), and the Kinetics
eFLOPs (``C_comp + I·C_mem``). Accuracy: pass@N and the TTSPM saturation point (Wang et al.
2025, "Scaling over Scaling", §3).

``python -m llmcost.tts.formulas`` regenerates :mod:`llmcost.tts._generated` (numpy only);
tests/test_tts.py pins it and the golden expressions.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import sympy as sp
from sympy import UnevaluatedExpr as Ordered

from llmcost.economics import formulas as E
from llmcost.symbolic.compile import arguments, generated_header, write_generated
from llmcost.symbolic.symbols import define, sym

define(
    "n_samples", "1", "samples per query: parallel samples, revision rounds or beam candidates (N)", latex="N"
)
define("l_in", "token", "prompt tokens of the query (L_in)", latex=r"L_{in}")
define("l_out", "token", "generated tokens per sample / per round (L_out)", latex=r"L_{out}")
define(
    "budget",
    "token",
    "KV positions a query attends per step: top-k budget or window (∞ when dense)",
    latex=r"B_k",
)
define("beam_width", "1", "beams kept after each step of beam search (b)", latex="b")
define("beam_step", "token", "tokens generated per beam-search step (ℓ)", latex=r"\ell")
define("block", "token", "block size of block top-k sparse attention (β_b)", latex=r"\beta_b")
define(
    "f_tok", "FLOP", "FLOPs per generated token without attention over the context (graph)", latex="f_{tok}"
)
define(
    "f_pair", "FLOP", "attention FLOPs per (query, key) pair, all layers of a group (graph)", latex="f_{pair}"
)
define("k_pos", "B", "KV-cache bytes per cached position, all layers of a group (graph)", latex="k_{pos}")
define("w_step", "B", "weight bytes read per decode step (graph; shared by the batch)", latex="w_{step}")
define("a_tok", "B", "activation bytes and new-token KV write per generated token (graph)", latex="a_{tok}")
define(
    "intensity", "FLOP/B", "FLOPs charged per byte moved: Kinetics E_flops (peak FLOP/s ÷ HBM B/s)", latex="I"
)
define("c_comp", "FLOP", "compute cost of a query (FLOPs)", latex=r"C_{comp}")
define("c_mem", "B", "memory cost of a query (KV bytes read)", latex=r"C_{mem}")
define("p_success", "1", "per-sample (per-round) success probability (p)", latex="p")
define("f_max", "1", "accuracy ceiling of the TTSPM model (F_max)", latex=r"F_{max}")
define(
    "epsilon",
    "1",
    "accuracy gain per extra sample below which scaling has saturated (ε)",
    latex=r"\varepsilon",
)
define("latency", "s", "wall time of the query", latex="T")
for _name, _unit, _doc, _latex in (
    ("fl_linear", "FLOP", "linear-layer FLOPs of the generation (f_tok·N·L_out)", r"C_{lin}"),
    ("fl_attn", "FLOP", "attention FLOPs over the context, summed over layer groups", r"C_{att}"),
    (
        "fl_select",
        "FLOP",
        "block top-k selection FLOPs, summed over groups (0 unless block top-k)",
        r"C_{sel}",
    ),
    ("by_kv", "B", "KV-cache bytes read by the generation, summed over layer groups", r"M_{kv}"),
    (
        "by_select",
        "B",
        "block-summary bytes read by block top-k selection (0 unless block top-k)",
        r"M_{sel}",
    ),
    ("fl_prefill", "FLOP", "FLOPs of the generator's prompt prefill (batch 1, one device)", r"C_{pre}"),
    ("by_prefill", "B", "HBM bytes of the generator's prompt prefill (batch 1, one device)", r"M_{pre}"),
    ("by_weights", "B", "weight bytes read by the decode steps", r"M_w"),
    ("by_act", "B", "activation bytes (and new-token KV writes) of the generation", r"M_a"),
    ("fl_verifier", "FLOP", "FLOPs of the verifier's scoring (0 without one)", r"C_{ver}"),
    ("by_verifier", "B", "HBM bytes of the verifier's scoring (0 without one)", r"M_{ver}"),
    ("kv_resident", "B", "KV-cache bytes resident at the query's end, whole model (tp 1)", r"KV_{res}"),
    ("k_pos_dev", "B", "KV-cache bytes per cached position on one device, summed over groups", r"k_{dev}"),
    ("k_pos_all", "B", "KV-cache bytes per cached position, whole model, summed over groups", r"k_{all}"),
    ("lat_prefill", "s", "prefill time of the query's prompt", r"T_{pre}"),
    ("lat_decode", "s", "decode time of the whole generation", r"T_{dec}"),
    ("lat_verifier", "s", "verifier scoring time (0 without one)", r"T_{ver}"),
    ("lat_steps", "s", "decode step times summed over the steps evaluated", r"\Sigma T_{step}"),
    ("step_weight", "1", "decode steps each evaluated step stands for (1, or steps / STEP_SAMPLES)", r"w_t"),
    ("step", "token", "decode step index t, 1-based (a bin midpoint when sampled)", "t"),
    ("n_seqs", "sequence", "sequences decoded together (1 for sequential, N otherwise)", r"n_{seq}"),
    (
        "f_pair_dev",
        "FLOP",
        "attention FLOPs per (query, key) pair on one device, summed over groups",
        r"f_{dev}",
    ),
):
    define(_name, _unit, _doc, latex=_latex)

S = sym
N, LI, LO, B = S("n_samples"), S("l_in"), S("l_out"), S("budget")


# ------------------------------------------------------------------------- attended positions
def keys_attended(l_in: sp.Expr, l_out: sp.Expr, budget: sp.Expr) -> sp.Expr:
    """Σ_{t=1..L_out} min(B, L_in + t): (query, key) pairs of one sequence generating ``L_out``
    tokens after ``L_in``, each step attending at most ``B`` positions (exact discrete count).

    With ``B' = min(B, L_in + L_out)`` and ``m = min(L_out, max(0, B' − L_in))``:
    ``B'·L_out − m(m−1)/2``; dense (B = ∞) gives ``L_in·L_out + L_out(L_out+1)/2`` (Kinetics
    ``dense_cost`` ``(2L_in + L_out)·L_out/2`` up to the discrete ``L_out/2``); B ≤ L_in gives
    ``B·L_out``. Kinetics ``block_sparse_cost`` ``B·L_out − ½max(0, B − L_in)²`` is the
    continuous form; its ``zero_overhead_sparse_cost`` ``+½(…)²`` has the wrong sign
    (Infini-AI-Lab/Kinetics cost_model/utils.py: the two functions differ in sign only)."""
    bb = sp.Min(budget, l_in + l_out)
    m = sp.Min(l_out, sp.Max(0, bb - l_in))
    return bb * l_out - m * (m - 1) / 2


def pairs_parallel() -> sp.Expr:
    """(query, key) pairs of N independent samples (Best-of-N, majority, beam candidates):
    ``N·Σ_t min(B, L_in + t)`` (Kinetics §3) [derived]."""
    return N * keys_attended(LI, LO, B)


def pairs_sequential() -> sp.Expr:
    """Sequential revisions: N rounds of L_out tokens, every earlier round kept in context
    (Snell et al. 2024), = one chain of N·L_out tokens: ``Σ_{t=1..N·L_out} min(B, L_in + t)``
    (round i decodes L_out tokens after L_in + (i−1)·L_out) [derived]."""
    return keys_attended(LI, N * LO, B)


def reads_parallel_shared() -> sp.Expr:
    """KV positions read by N samples decoding in one batch whose prompt KV is shared (dense
    attention): per step the prompt once plus each sample's own tokens,
    ``Σ_t (L_in + N·t) = L_in·L_out + N·L_out(L_out+1)/2`` (Kinetics ``dense_cost`` memory
    ``2·(2L_in + N·L_out)·L_out·n_kv·d_h·L`` bytes at bf16; Sadhukhan et al. 2025 §3)."""
    return LI * LO + N * LO * (LO + 1) / 2


def reads_beam_shared() -> sp.Expr:
    """Beam search, b beams x N/b expansions, steps of ℓ tokens, J = L_out/ℓ steps: per token
    the prompt once, the b surviving histories ((j−1)·ℓ each, shared by their children) and
    each candidate's current-step tokens: ``L_in·L_out + b·ℓ·L_out·(J−1)/2 + N·L_out(ℓ+1)/2``
    (PRM beam search, Snell et al. 2024 §5; prefix/KV sharing across siblings; the b histories are not
    de-duplicated among themselves, an upper bound) [derived]."""
    b, ell = S("beam_width"), S("beam_step")
    J = LO / ell
    return LI * LO + b * ell * LO * (J - 1) / 2 + N * LO * (ell + 1) / 2


def reads_parallel() -> sp.Expr:
    """KV positions read without prefix sharing (top-k sparse or sliding-window layers: each
    sample selects its own positions; Kinetics ``block_sparse_cost`` assumes no sharing):
    every attended position is read, = :func:`pairs_parallel`."""
    return pairs_parallel()


def resident_parallel_shared() -> sp.Expr:
    """KV positions resident at the end of a shared-prompt batch: ``L_in + N·L_out`` (prompt KV shared, Kinetics §3)."""
    return LI + N * LO


def resident_parallel() -> sp.Expr:
    """KV positions resident without sharing: ``N·min(B, L_in + L_out)`` (window layers keep
    B; top-k keeps the whole cache resident, so its budget is ∞ here)."""
    return N * sp.Min(B, LI + LO)


def resident_sequential() -> sp.Expr:
    """KV positions resident at the end of N revision rounds: ``min(B, L_in + N·L_out)``."""
    return sp.Min(B, LI + N * LO)


def resident_beam_shared() -> sp.Expr:
    """KV positions resident at the last beam step: prompt, b histories, N current steps."""
    b, ell = S("beam_width"), S("beam_step")
    return LI + b * (LO - ell) + N * ell


# ------------------------------------------------------------------------- block top-k overhead
def select_pairs_parallel() -> sp.Expr:
    """Block top-k selection, compute: each query scores one summary key per block of its
    context, ``N·Σ_t (L_in + t)/β_b`` (Kinetics ``block_sparse_cost`` search_compute
    ``(2L_in + L_out)//β·L_out·n_q·d_h`` per trial; floor division dropped)."""
    return N * (LI * LO + LO * (LO + 1) / 2) / S("block")


def select_reads_parallel() -> sp.Expr:
    """Block top-k selection, memory: block summaries read per step, the prompt's shared,
    ``Σ_t (L_in + N·t)/β_b`` (Kinetics search_memory ``(2L_in + N·L_out)//β·L_out``)."""
    return reads_parallel_shared() / S("block")


def select_pairs_sequential() -> sp.Expr:
    """Block top-k selection for one chain of N·L_out tokens: ``Σ_t (L_in + t)/β_b``."""
    n_out = N * LO
    return (LI * n_out + n_out * (n_out + 1) / 2) / S("block")


# ------------------------------------------------------------------------- totals
def tokens() -> sp.Expr:
    """Generated tokens of a query: ``N·L_out`` (every strategy)."""
    return N * LO


def steps_parallel() -> sp.Expr:
    """Decode steps of a batched strategy (all samples advance together): ``L_out``."""
    return LO


def steps_sequential() -> sp.Expr:
    """Decode steps of N sequential rounds: ``N·L_out``."""
    return N * LO


def linear_flops() -> sp.Expr:
    """Linear-layer FLOPs of the generation: ``f_tok·N·L_out`` (Kinetics ``2·N·P·L_out`` with
    ``f_tok`` from the graph: 2 FLOPs per matmul weight, the LM head counted once)."""
    return S("f_tok") * tokens()


def eflops() -> sp.Expr:
    """Kinetics eFLOPs: ``C_comp + I·C_mem`` with ``I`` the FLOPs-per-byte of the hardware
    (Kinetics §3; repo ``cost_model/utils.py``, ``E_flops = 562.5`` = B200 4.5 PFLOP/s FP8 dense
    ÷ 8 TB/s, ``cost_model/best_of_N/cost_model_ntrial.py``). Additive by design: linear layers are compute-bound and
    attention memory-bound in TTS."""
    return S("c_comp") + S("intensity") * S("c_mem")


def eflops_dense_parallel() -> sp.Expr:
    """Kinetics Best-of-N / long-CoT eFLOPs for one dense attention group, shared prompt KV:
    ``f_tok·N·L_out + f_pair·N·ΣK + I·k_pos·(L_in·L_out + N·L_out(L_out+1)/2)`` (Kinetics
    §3, ``cost_model/utils.py::dense_cost``). Printed by ``--explain``; the runtime sums the same terms over groups."""
    return eflops().subs(
        {
            S("c_comp"): linear_flops() + S("f_pair") * pairs_parallel(),
            S("c_mem"): S("k_pos") * reads_parallel_shared(),
        }
    )


# ------------------------------------------------------------------------- query composition
def decode_flops() -> sp.Expr:
    """Kinetics ``C_comp`` of the generation: linear layers + attention + block selection,
    ``C_lin + C_att + C_sel`` (Kinetics §3 ``dense_cost``; §5 ``block_sparse_cost`` adds the
    selection's search_compute)."""
    return Ordered(S("fl_linear") + S("fl_attn")) + S("fl_select")


def attention_flops() -> sp.Expr:
    """Attention FLOPs of the generation including block selection: ``C_att + C_sel`` (Kinetics §5)."""
    return S("fl_attn") + S("fl_select")


def kv_read_bytes() -> sp.Expr:
    """Kinetics ``C_mem``: KV bytes read plus block summaries read, ``M_kv + M_sel`` (Kinetics §3
    ``dense_cost`` memory; §5 search_memory)."""
    return S("by_kv") + S("by_select")


def weight_bytes_parallel() -> sp.Expr:
    """Weight bytes of a batched generation: ``L_out·w_step`` (one weight read per decode step,
    shared by the N samples; Kinetics leaves it out of eFLOPs by its large-batch amortisation) [derived]."""
    return steps_parallel() * S("w_step")


def weight_bytes_sequential() -> sp.Expr:
    """Weight bytes of N sequential rounds: ``(N·L_out)·w_step`` (one read per decode step) [derived]."""
    return Ordered(steps_sequential()) * S("w_step")


def activation_bytes() -> sp.Expr:
    """Activation bytes of the generation: ``(N·L_out)·a_tok`` (a_tok per generated token, graph) [derived]."""
    return Ordered(tokens()) * S("a_tok")


def query_flops() -> sp.Expr:
    """FLOPs of a query: prefill + generation + verifier, ``C_pre + C_comp + C_ver`` [derived]."""
    return Ordered(S("fl_prefill") + S("c_comp")) + S("fl_verifier")


def query_bytes() -> sp.Expr:
    """HBM bytes of a query: prefill, decode weight reads, activations, KV reads, verifier,
    ``M_pre + M_w + M_a + C_mem + M_ver`` [derived]."""
    return Ordered(Ordered(Ordered(S("by_prefill") + S("by_weights")) + S("by_act")) + S("c_mem")) + S(
        "by_verifier"
    )


def query_eflops() -> sp.Expr:
    """Kinetics eFLOPs of a query: the generator's ``C_comp + I·C_mem`` plus the verifier's FLOPs
    (a prefill: compute-bound, counted as FLOPs; Kinetics §3)."""
    return Ordered(eflops()) + S("fl_verifier")


def kv_device() -> sp.Expr:
    """KV-cache bytes resident per device: the whole-model resident bytes scaled by the device's
    share of the per-position bytes, ``KV_res·k_dev / k_all`` (tp splits the KV heads) [derived]."""
    return Ordered(S("kv_resident") * S("k_pos_dev")) / S("k_pos_all")


# ------------------------------------------------------------------------- latency
def latency_total() -> sp.Expr:
    """Query latency: prompt prefill, then the generation's decode steps, then the verifier's
    scoring, ``T_pre + T_dec + T_ver`` (sequential phases) [derived]."""
    return Ordered(S("lat_prefill") + S("lat_decode")) + S("lat_verifier")


def decode_time() -> sp.Expr:
    """Decode time from the steps evaluated: ``w_t·Σ T_step`` (every step when there are at most
    STEP_SAMPLES, else bin midpoints each standing for ``w_t`` steps: midpoint rule) [derived]."""
    return S("step_weight") * S("lat_steps")


def _beam_round() -> sp.Expr:
    """Completed beam steps before decode step t: ``⌈t/ℓ⌉ − 1``."""
    return sp.ceiling(S("step") / S("beam_step")) - 1


def beam_own_ctx() -> sp.Expr:
    """Beam search, decode step t: tokens of the candidate's current beam step it attends,
    ``t − (⌈t/ℓ⌉ − 1)·ℓ`` (PRM beam search, Snell et al. 2024 §5) [derived]."""
    return S("step") - _beam_round() * S("beam_step")


def beam_prefix_attended() -> sp.Expr:
    """Beam search, decode step t: shared positions one candidate attends, its prompt and beam
    history, ``L_in + (⌈t/ℓ⌉ − 1)·ℓ`` [derived]."""
    return LI + _beam_round() * S("beam_step")


def beam_prefix_read() -> sp.Expr:
    """Beam search, decode step t: shared positions read once per step, the prompt and the b
    beams' histories, ``L_in + (b·(⌈t/ℓ⌉ − 1))·ℓ`` (cf. :func:`reads_beam_shared`) [derived]."""
    return LI + Ordered(S("beam_width") * _beam_round()) * S("beam_step")


def select_step_flops() -> sp.Expr:
    """Block top-k selection FLOPs of decode step t on one device: each of n_seq sequences scores
    one summary key per block of its context, ``((n_seq·f_dev/2)·(L_in + t))/β_b`` (a key
    without its value: half the pair FLOPs; Kinetics §5 search_compute)."""
    f_sel = Ordered(S("f_pair_dev") / 2)
    return Ordered(Ordered(S("n_seqs") * f_sel) * (LI + S("step"))) / S("block")


def select_step_bytes() -> sp.Expr:
    """Block top-k selection bytes of decode step t on one device: the block summaries, the
    prompt's shared, ``((k_dev/2)·(L_in + n_seq·t))/β_b`` (keys without values; Kinetics §5
    search_memory)."""
    k_sel = Ordered(S("k_pos_dev") / 2)
    return Ordered(k_sel * (LI + S("n_seqs") * S("step"))) / S("block")


def usd() -> sp.Expr:
    """Rental cost of the query: ``n_dev·$_h·T/3600`` (:func:`llmcost.economics.formulas.usd`)."""
    return E.usd().subs(S("seconds"), S("latency"))


def energy() -> sp.Expr:
    """Energy of the query: ``n_dev·P·T`` joules, ``P`` the draw per device: the TDP (an upper bound) or,
    where the catalog gives draws by kind of work, their mean over the query's prefill, generation
    and scoring (:func:`llmcost.economics.formulas.mean_draw`) [derived]."""
    return S("devices") * S("tdp_w") * S("latency")


# ------------------------------------------------------------------------- accuracy (TTSPM)
def pass_at_n() -> sp.Expr:
    """TTSPM parallel / sequential scaling: ``F(N) = F_max·(1 − (1 − p)^N)`` (Wang et al. 2025
    §3: Hit@N with K ~ Binomial(N, p); sequential rethinking as geometric first success;
    Wang et al. 2025 §3). With F_max = 1 it is pass@N / coverage (Chen et al. 2021)."""
    p = S("p_success")
    return S("f_max") * (1 - (1 - p) ** N)


def marginal_gain() -> sp.Expr:
    """Accuracy bought by sample N+1: ``ΔF(N) = F_max·p·(1 − p)^N`` (Wang et al. 2025 §3)."""
    p = S("p_success")
    return S("f_max") * p * (1 - p) ** N


def saturation() -> sp.Expr:
    """TTSPM saturation point: the smallest N with ``ΔF(N) < ε``,
    ``N* = max(0, ⌈ln(ε/(F_max·p)) / ln(1 − p)⌉)`` ([derived] from Wang et al. 2025 §3;
    0 when the first sample already gains less than ε)."""
    p, eps = S("p_success"), S("epsilon")
    return sp.Max(0, sp.ceiling(sp.log(eps / (S("f_max") * p)) / sp.log(1 - p)))


FORMULAS: dict[str, Callable[[], sp.Expr]] = {
    "pairs__parallel": pairs_parallel,
    "pairs__sequential": pairs_sequential,
    "reads__parallel_shared": reads_parallel_shared,
    "reads__beam_shared": reads_beam_shared,
    "reads__parallel": reads_parallel,
    "reads__sequential": pairs_sequential,
    "resident__parallel_shared": resident_parallel_shared,
    "resident__parallel": resident_parallel,
    "resident__sequential": resident_sequential,
    "resident__beam_shared": resident_beam_shared,
    "select_pairs__parallel": select_pairs_parallel,
    "select_reads__parallel": select_reads_parallel,
    "select_pairs__sequential": select_pairs_sequential,
    "tokens": tokens,
    "steps__parallel": steps_parallel,
    "steps__sequential": steps_sequential,
    "linear_flops": linear_flops,
    "eflops": eflops,
    "eflops__dense_parallel": eflops_dense_parallel,
    "decode_flops": decode_flops,
    "attention_flops": attention_flops,
    "kv_read_bytes": kv_read_bytes,
    "weight_bytes__parallel": weight_bytes_parallel,
    "weight_bytes__sequential": weight_bytes_sequential,
    "activation_bytes": activation_bytes,
    "query_flops": query_flops,
    "query_bytes": query_bytes,
    "query_eflops": query_eflops,
    "kv_device": kv_device,
    "latency_total": latency_total,
    "decode_time": decode_time,
    "beam__own_ctx": beam_own_ctx,
    "beam__prefix_attended": beam_prefix_attended,
    "beam__prefix_read": beam_prefix_read,
    "select_step_flops": select_step_flops,
    "select_step_bytes": select_step_bytes,
    "usd": usd,
    "energy": energy,
    "pass_at_n": pass_at_n,
    "marginal_gain": marginal_gain,
    "saturation": saturation,
}


EXPLAIN_ONLY = ("eflops__dense_parallel", "marginal_gain")
"""Formulas printed (``llmcost tts --explain``, the golden file) but never evaluated at runtime:
not generated."""


def expression(name: str) -> sp.Expr:
    """The sympy expression of ``name`` (a key of :data:`FORMULAS`)."""
    return FORMULAS[name]()


GENERATED = Path(__file__).with_name("_generated.py")
HEADER = generated_header(
    "llmcost.tts.formulas",
    "tests/test_tts.py",
    "One numpy function per test-time-scaling quantity; FUNCTIONS maps its name to\n(function, argument names, expression hash).",
)


def generated_source() -> str:
    """Source of the runtime module: one function per entry of :data:`FORMULAS` but
    :data:`EXPLAIN_ONLY`."""
    from llmcost.symbolic.compile import formulas_source

    runtime = {k: fn for k, fn in FORMULAS.items() if k not in EXPLAIN_ONLY}
    return formulas_source(runtime, arguments, header=HEADER)


if __name__ == "__main__":
    write_generated(GENERATED, generated_source())
