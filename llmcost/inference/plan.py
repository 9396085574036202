"""Inference plans: the :class:`Plan` and its keys, format defaults and their numbers on a
hardware (:class:`Formats`), and the plan validity :data:`RULES` (no sympy).

:func:`check_plan` raises the first rule a plan breaks; ``llmcost search infer`` applies the same
predicates as masks over its plans (a plan whose fields are arrays, :func:`plan_row` /
:func:`plan_rows`). Costing lives in :mod:`llmcost.inference.serve`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from llmcost import checks
from llmcost import precision as Q
from llmcost import rules as R
from llmcost.errors import PlanError, UserError
from llmcost.graph.ops import EP_IMBALANCE, checked_ep_imbalance
from llmcost.hardware import Hardware
from llmcost.rules import Rule

PLAN_KEYS = (
    "pue",
    "power_cap",
    "tp",
    "pp",
    "ep",
    "dp",
    "cp",
    "batch",
    "prompt_len",
    "output_len",
    "weights",
    "activations",
    "kv_cache",
    "disaggregated",
    "op_precision",
    "decode_attention",
    "prefill_chunk",
    "ep_imbalance",
    "speculative",
    "schedule",
    "aligned_prefill",
    "two_batch_overlap",
    "weights_tier",
    "kv_tier",
    "host_step_s",
    "host_seq_s",
    "overlap_scheduler",
    "graphs",
    "stack",
    "gpus",
    "gpus_per_node",
)


SPEC_METHODS = ("mtp", "eagle", "ngram")
"""Values of ``speculative.method`` (:class:`Speculation`)."""

MTP_ACCEPTANCE = 0.85
"""Default per-token acceptance rate of ``speculative: {method: mtp}``: DeepSeek-V3 technical report
§5.4.3, "the acceptance rate of the second token prediction ranges between 85% and 90%" (the low
end). Drafts further ahead are accepted less often than a geometric series of it says when one MTP
module is reused autoregressively (TensorRT-LLM blog 1: 2.82 tokens per step with 3 drafts, where
0.85 gives 3.18): state ``acceptance_length`` where it is measured."""


@dataclass(frozen=True)
class Speculation:
    """Speculative decoding (plan key ``speculative``): each decode step drafts ``tokens`` tokens per
    sequence and verifies them in one pass of the target model, keeping the accepted ones and one
    of its own (Leviathan et al. 2023, "Fast Inference from Transformers via Speculative Decoding").

    ``method``: ``mtp`` (the model's multi-token-prediction module, DeepSeek-V3 §2.2, reused for
    every draft as TensorRT-LLM's and SGLang's MTP do), ``eagle`` (an EAGLE head: one decoder layer of
    the target's shape, an FC layer over (feature, token) and the target's LM head, Li et al. 2024),
    ``ngram`` (prompt lookup: drafts copied from the context, no draft model; vLLM ``ngram``).
    Accepted tokens per step: ``acceptance_length`` (mean tokens a step emits, including the
    verifier's own, as engines report it: 1 .. tokens + 1) or from ``acceptance_rate`` α per draft
    token, ``(1 − α^(k+1)) / (1 − α)`` (Leviathan et al. 2023 eq. 1); mtp defaults to
    :data:`MTP_ACCEPTANCE`. ``weights``: the draft module's weight format (None: the plan's)."""

    method: str
    tokens: int
    acceptance_rate: float | None = None
    acceptance_length: float | None = None
    weights: str | None = None


@dataclass(frozen=True)
class Plan:
    """An inference plan (validation README 'plan keys (infer)')."""

    tp: int = 1
    pp: int = 1
    dp: int = 1
    cp: int = 1
    ep: int = 1
    batch: int | None = 1  # None: the largest batch that fits
    prompt_len: int = 1024
    output_len: int = 128
    weights: str = "bf16"
    activations: str | None = None  # default: bf16 unless weights are 16-bit (then the same)
    kv_cache: str | None = None  # default: the activation format (bf16 for integer activations)
    disaggregated: bool = False
    op_precision: tuple[tuple[str, str, str], ...] = ()
    """(group, weights, activations) for operator groups whose GEMMs run in another format than the
    plan's (:data:`OP_GROUPS`; production stacks mix them: FP8 FFN with BF16 attention projections)."""
    decode_attention: str = "grouped"
    """How the decode attention kernel reads the KV cache: ``grouped`` (each K/V element once per
    step, the query heads of a group sharing it: FlashAttention / FlashInfer decode, TensorRT-LLM
    XQA) or ``per_head`` (once per query head, as TensorRT-LLM's masked multi-head attention kernel
    before XQA, v0.8, 2024: NVIDIA/TensorRT-LLM docs/source/blogs/XQA-kernel.md)."""
    ep_imbalance: float | None = None
    """Routed token-expert assignments on the busiest expert-parallel rank over the mean (max / mean;
    it sets the experts' GEMMs and the dispatch / combine all-to-all of every MoE layer). None: 1.11
    with ep > 1, what TensorRT-LLM measured with its expert-parallel load balancer (EPLB, redundant
    experts) on DeepSeek-R1 at EP 32-36 (NVIDIA/TensorRT-LLM blog 4 "Scaling Expert Parallelism",
    Table 1: imbalance ratio 0.109-0.115; 1.564, i.e. 2.56, without it on the same dataset); 1 without EP."""
    prefill_chunk: int | None = None
    """Tokens per prefill step when the engine chunks the prefill (vLLM ``max_num_batched_tokens``,
    SGLang ``--chunked-prefill-size``, TensorRT-LLM ``max_num_tokens``): the activation workspace holds
    one chunk instead of the whole batch's prompts. None: one pass over the batch. With ``schedule:
    static`` the prefill time is priced as one pass either way (a chunk re-reads the weights: small
    where the prefill is compute-bound); with ``schedule: continuous`` it is the tokens of one
    request's prompt per engine step, its prefill spread over ``⌈prompt_len / prefill_chunk⌉`` steps,
    each with the decode tokens (not a cap on the step's tokens: at a high concurrency a step can
    hold several requests' chunks)."""
    speculative: Speculation | None = None
    """Speculative decoding (:class:`Speculation`); None: one token per sequence per decode step."""
    schedule: str = "static"
    """``static``: the batch is prefilled, then decoded together to the end (TensorRT-LLM
    gptSessionBenchmark); ``continuous``: continuous (in-flight) batching at a fixed concurrency of
    ``batch`` requests, a finished request replaced at once by a new one (vLLM, SGLang, TensorRT-LLM
    in-flight batching; Orca, Yu et al. 2022), priced in its steady state
    (:func:`llmcost.inference.serve.serve_continuous`)."""
    aligned_prefill: bool = False
    """With ``schedule: continuous`` and attention-DP ranks in lockstep (ep > tp): whether the engine puts
    the ranks' prefill chunks in the same steps (TensorRT-LLM's attention-DP balance scheduler,
    NVIDIA/TensorRT-LLM PR #6061, 2025-07). False: each rank admits on its own, and a step carries
    prefill whenever any rank's does (:func:`llmcost.inference.formulas.cb_synced_share`)."""
    two_batch_overlap: bool = False
    """Two-batch overlap (SGLang ``--enable-two-batch-overlap``; DeepSeek-V3 report §3.2.2): each step
    runs as two half micro-batches, one's expert-parallel dispatch / combine under the other's
    compute (:func:`llmcost.inference.formulas.tbo_step`); with ep > 1 on an MoE model."""
    weights_tier: str = "hbm"
    """Where the decoder layers' weights live: ``hbm`` (resident), ``host`` or ``nvme`` (streamed to the
    device layer by layer as it runs, two layers resident: FlexGen, TPI-LLM)."""
    kv_tier: str = "hbm"
    """Where the KV cache lives: ``hbm``, or ``host`` (read over the host link by every attention, two
    layers' worth resident: FlexGen's KV-cache offload)."""
    host_step_s: float = 0.0
    """Host (CPU) time of one engine step (s): scheduling, input preparation, the sampled-token copy
    (:func:`llmcost.inference.formulas.engine_step`; a serving ``stack`` sets it, :mod:`llmcost.inference.stack`)."""
    host_seq_s: float = 0.0
    """Host time per running sequence per engine step (s): output processing, detokenization, stop checks."""
    overlap_scheduler: bool = False
    """Whether the engine prepares step n + 1 while the GPU runs step n (SGLang's overlap scheduler,
    vLLM async scheduling): only host time longer than the GPU step shows."""
    graphs: str = "all"
    """Which engine steps run as CUDA graphs: ``all``, ``decode`` (steps with prefill tokens eager),
    ``none`` (:data:`llmcost.inference.stack.GRAPHS`)."""
    stack: str | None = None
    """The serving profile the host keys came from, as a note (``stack`` plan key; None: none)."""
    gpus: int | None = None
    gpus_per_node: int | None = None
    pue: float = 1.0  # facility power usage effectiveness; 1.0: device energy only
    power_cap: float | None = None
    """Board power limit per device (W): the plan is costed on the device as
    :func:`llmcost.economics.power.capped` returns it. None: the default limit."""

    @property
    def devices(self) -> int:
        return self.tp * self.pp * self.dp * self.cp

    def formats(self) -> tuple[str, str, str]:
        """(weights, activations, kv_cache) with defaults applied."""
        return resolve_formats(self.weights, self.activations, self.kv_cache)


def resolve_formats(weights: str, activations: str | None, kv_cache: str | None) -> tuple[str, str, str]:
    """(weights, activations, kv_cache) with the plan defaults applied: activations bf16 unless the
    weights are 16-bit (then the same); the KV cache in the activation format (bf16 for integer
    activations)."""
    w = Q.normalize(weights, "weights")
    a = Q.normalize(activations, "activations") if activations else (w if w in ("bf16", "fp16") else "bf16")
    kv = Q.normalize(kv_cache, "kv_cache") if kv_cache else (a if a in ("bf16", "fp16", "fp8") else "bf16")
    return w, a, kv


EP_IMBALANCE_EPLB = EP_IMBALANCE
"""Default busiest-rank load over the mean with ep > 1 (:attr:`Plan.ep_imbalance`):
:data:`llmcost.graph.ops.EP_IMBALANCE`, TensorRT-LLM's measured figure with EPLB."""

SCHEDULES = ("static", "continuous")
"""Values of plan key ``schedule`` (:attr:`Plan.schedule`)."""

DECODE_ATTENTION = ("grouped", "per_head")
"""Values of plan key ``decode_attention`` (:class:`Plan`)."""

OP_GROUPS: dict[str, tuple[str, ...]] = {
    "attention": (
        "qkv_proj",
        "q_proj",
        "q_a_proj",
        "q_b_proj",
        "kv_a_proj",
        "kv_b_proj",
        "q_absorb",
        "v_absorb",
        "o_proj",
        "cross_q_proj",
        "cross_kv_proj",
        "cross_o_proj",
    ),
    "ffn": ("up_proj", "down_proj", "shared_up", "shared_down"),
    "experts": ("experts_up", "experts_down"),
    "lm_head": ("lm_head",),
}
"""Operator groups ``op_precision`` names, and the graph's matmuls in each (llmcost.graph.ops):
attention projections (MLA's included), the dense MLP and shared experts, routed experts, the LM
head. The router and the attention core keep the plan's formats."""


def op_precision_of(v: Any) -> tuple[tuple[str, str, str], ...]:
    """Plan key ``op_precision``: a mapping ``{group: FORMAT}`` (weights in that format, activations
    as a plan's default for them: :func:`resolve_formats`) or ``{group: {weights: W, activations: A}}``,
    as (group, weights, activations) tuples."""
    if v is None or v == () or v == {}:
        return ()
    if isinstance(v, tuple) and all(isinstance(x, tuple) and len(x) == 3 for x in v):
        v = {g: {"weights": w, "activations": a} for g, w, a in v}
    if not isinstance(v, dict):
        raise UserError(
            "plan key 'op_precision': expected a mapping such as {attention: bf16, ffn: fp8}, "
            f"got {type(v).__name__}"
        )
    out = []
    for g, f in v.items():
        if g not in OP_GROUPS:
            from llmcost.errors import did_you_mean

            raise UserError(
                f"op_precision: unknown operator group {g!r}: use one of {', '.join(OP_GROUPS)}"
                f"{did_you_mean(str(g), tuple(OP_GROUPS))}"
            )
        if isinstance(f, dict):
            bad = [k for k in f if k not in ("weights", "activations")]
            if bad or "weights" not in f:
                raise UserError(
                    f"op_precision.{g}: expected {{weights: W, activations: A}} or one format name"
                )
            w = Q.normalize(str(f["weights"]), f"op_precision.{g}.weights")
            given = f.get("activations")
            a = Q.normalize(str(given), f"op_precision.{g}.activations") if given else None
        else:
            w, a = Q.normalize(str(f), f"op_precision.{g}"), None
        w, a, _ = resolve_formats(w, a, None)  # one format means what `weights: FORMAT` alone means
        out.append((str(g), w, a))
    return tuple(sorted(out))


def speculation_of(v: Any) -> Speculation | None:
    """Plan key ``speculative``: ``{method, tokens, acceptance_rate | acceptance_length, weights}``
    (:class:`Speculation`), or None."""
    if v is None or isinstance(v, Speculation):
        return v
    if not isinstance(v, dict):
        raise UserError(
            "plan key 'speculative': expected a mapping such as {method: mtp, tokens: 3, "
            f"acceptance_length: 2.8}}, got {type(v).__name__}"
        )
    keys = ("method", "tokens", "acceptance_rate", "acceptance_length", "weights")
    bad = [k for k in v if k not in keys]
    if bad:
        from llmcost.errors import did_you_mean

        raise UserError(
            f"speculative: unknown key {bad[0]!r}: use {', '.join(keys)}{did_you_mean(str(bad[0]), keys)}"
        )
    method = str(v.get("method", "")).strip().lower()
    if method not in SPEC_METHODS:
        from llmcost.errors import did_you_mean

        raise UserError(
            f"speculative.method {v.get('method')!r}: use one of {', '.join(SPEC_METHODS)}"
            f"{did_you_mean(method, SPEC_METHODS)}"
        )
    if v.get("tokens") is None:
        raise UserError("speculative.tokens: give the drafted tokens per step (e.g. 3)")
    k = checks.finite_int(v["tokens"], "speculative.tokens", 1)
    if k > 64:
        raise UserError(f"speculative.tokens {k}: at most 64 drafted tokens per step")
    rate, length = v.get("acceptance_rate"), v.get("acceptance_length")
    if rate is not None and length is not None:
        raise UserError("speculative: give acceptance_rate or acceptance_length, not both")
    if rate is not None:
        rate = _number(rate, "speculative.acceptance_rate", 0.0, 1.0)
    if length is not None:
        length = _number(length, "speculative.acceptance_length", 1.0, k + 1.0)
    if rate is None and length is None and method != "mtp":
        raise UserError(
            f"speculative: {method} needs acceptance_rate (per drafted token, 0..1) or acceptance_length "
            f"(tokens per step, 1..{k + 1}): it depends on the draft and the data"
        )
    if method == "ngram" and v.get("weights") is not None:
        raise UserError("speculative.weights: ngram drafts by prompt lookup, with no draft module to hold")
    w = Q.normalize(str(v["weights"]), "speculative.weights") if v.get("weights") is not None else None
    return Speculation(method, k, rate, length, w)


def schedule_of(v: Any) -> str:
    """Plan key ``schedule`` (:data:`SCHEDULES`; None: ``static``)."""
    if v is None:
        return "static"
    if not isinstance(v, str):
        raise UserError(f"schedule: one of {', '.join(SCHEDULES)}, got {type(v).__name__}")
    s = v.strip().lower()
    if s not in SCHEDULES:
        from llmcost.errors import did_you_mean

        raise UserError(f"schedule {v!r}: use one of {', '.join(SCHEDULES)}{did_you_mean(s, SCHEDULES)}")
    return s


def speculation_dict(s: Speculation) -> dict[str, Any]:
    """Plan key ``speculative`` of ``s``: its given fields (:func:`speculation_of` reads it back)."""
    from dataclasses import asdict

    return {k: v for k, v in asdict(s).items() if v is not None}


def _number(v: Any, key: str, lo: float, hi: float) -> float:
    """A finite number in ``[lo, hi]`` or a UserError naming ``key`` and the range."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
        raise UserError(f"{key}: a number from {lo:g} to {hi:g}, got {v!r}")
    return float(v)


def accepted_per_step(s: Speculation | None) -> float:
    """Mean tokens a decode step emits per sequence: 1 without speculation; the stated
    ``acceptance_length``; else ``(1 − α^(k+1)) / (1 − α)`` at the acceptance rate α
    (:func:`llmcost.inference.formulas.accepted_tokens`, compiled)."""
    if s is None:
        return 1.0
    if s.acceptance_length is not None:
        return s.acceptance_length
    from llmcost.inference import _generated as F

    rate = MTP_ACCEPTANCE if s.acceptance_rate is None else s.acceptance_rate
    with np.errstate(divide="ignore", invalid="ignore"):  # numpy.select evaluates both branches at α = 1
        return float(F.accepted_tokens(alpha=np.float64(rate), n_draft=s.tokens))


def per_replica(batch: Any, dp: Any) -> Any:
    """Sequences on the busiest of ``dp`` replicas, ``ceil(batch / dp)``: a batch that does not divide
    evenly runs replicas of ``ceil`` and ``floor`` sequences, and the busiest one sets TTFT, TPOT,
    the end-to-end time and the memory per GPU (numbers or arrays)."""
    return -(-batch // dp)


def _int(v: Any, key: str, minimum: int = 1) -> int:
    return checks.finite_int(v, f"plan key '{key}'", minimum)


def host_of(d: dict[str, Any]) -> dict[str, Any]:
    """The host-time plan keys of ``d`` that are given (:class:`Plan`'s ``host_step_s``, ``host_seq_s``,
    ``overlap_scheduler``, ``graphs``), checked."""
    from llmcost.inference.stack import GRAPHS

    kw: dict[str, Any] = {}
    for k in ("host_step_s", "host_seq_s"):
        if d.get(k) is not None:
            v = d[k]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v < 10:
                raise UserError(f"plan key '{k}': seconds, at least 0 and under 10 (e.g. 0.004), got {v!r}")
            kw[k] = float(v)
    for k in ("overlap_scheduler", "aligned_prefill", "two_batch_overlap"):
        if d.get(k) is not None and not isinstance(d[k], bool):
            raise UserError(f"plan key '{k}': true or false, got {d[k]!r}")
    for k in ("aligned_prefill", "two_batch_overlap"):
        if d.get(k) is not None:
            kw[k] = d[k]
    if d.get("overlap_scheduler") is not None:
        kw["overlap_scheduler"] = d["overlap_scheduler"]
    if d.get("weights_tier") is not None:
        from llmcost.inference.stack import TIERS

        w = str(d["weights_tier"]).strip().lower()
        if w not in TIERS:
            raise UserError(f"plan key 'weights_tier': one of {', '.join(TIERS)}, got {d['weights_tier']!r}")
        kw["weights_tier"] = w
    if d.get("kv_tier") is not None:
        k = str(d["kv_tier"]).strip().lower()
        if k not in ("hbm", "host"):
            raise UserError(f"plan key 'kv_tier': hbm or host, got {d['kv_tier']!r}")
        kw["kv_tier"] = k
    if d.get("graphs") is not None:
        g = str(d["graphs"]).strip().lower()
        if g not in GRAPHS:
            raise UserError(f"plan key 'graphs': one of {', '.join(GRAPHS)}, got {d['graphs']!r}")
        kw["graphs"] = g
    return kw


def plan_from_dict(d: dict[str, Any], cluster: dict[str, Any] | None = None) -> Plan:
    """A :class:`Plan` from README plan keys (+ ``cluster: {gpus, gpus_per_node}``)."""
    if not isinstance(d, dict):
        raise UserError("plan: expected a mapping of plan keys")
    unknown = [k for k in d if k not in PLAN_KEYS]
    if unknown:
        from llmcost.errors import did_you_mean

        raise UserError(
            f"plan key '{unknown[0]}' is not an infer plan key{did_you_mean(unknown[0], PLAN_KEYS)}"
        )
    if d.get("stack") is not None:
        from llmcost.inference.stack import apply

        d, note = apply(d["stack"], d)
    kw: dict[str, Any] = host_of(d)
    if d.get("stack") is not None:
        kw["stack"] = note
    from llmcost.economics.power import cap_of, pue_of

    kw["pue"] = pue_of(d.get("pue"))
    kw["power_cap"] = cap_of(d.get("power_cap"))
    for k in ("tp", "pp", "dp", "cp", "ep", "prompt_len", "output_len", "gpus", "gpus_per_node"):
        if d.get(k) is not None:
            kw[k] = _int(d[k], k)
    kw["batch"] = _int(d["batch"], "batch") if d.get("batch") is not None else None
    for k in ("weights", "activations", "kv_cache"):
        if d.get(k) is not None:
            kw[k] = Q.normalize(str(d[k]), k)
    kw["disaggregated"] = bool(d.get("disaggregated", False))
    kw["op_precision"] = op_precision_of(d.get("op_precision"))
    if d.get("ep_imbalance") is not None:
        kw["ep_imbalance"] = checked_ep_imbalance(d["ep_imbalance"])
    kw["speculative"] = speculation_of(d.get("speculative"))
    kw["schedule"] = schedule_of(d.get("schedule"))
    if d.get("prefill_chunk") is not None:
        kw["prefill_chunk"] = _int(d["prefill_chunk"], "prefill_chunk")
    if d.get("decode_attention") is not None:
        v = str(d["decode_attention"]).strip().lower()
        if v not in DECODE_ATTENTION:
            raise UserError(
                f"decode_attention '{d['decode_attention']}': use one of {', '.join(DECODE_ATTENTION)}"
            )
        kw["decode_attention"] = v
    cl = cluster or {}
    for k in ("gpus", "gpus_per_node"):
        if cl.get(k) is not None and k not in kw:
            kw[k] = _int(cl[k], f"cluster.{k}")
    return Plan(**kw)


def _layers(spec: Any) -> list[int]:
    return [spec.num_layers] + ([spec.num_encoder_layers] if spec.is_encoder_decoder else [])


def _experts(spec: Any) -> int:
    return spec.moe.num_experts if spec.moe is not None else 0


RULES: tuple[Rule, ...] = (
    Rule(
        "GPU count is not tp*pp*dp*cp",
        lambda s, p: False if p.gpus is None else p.gpus != p.devices,
        lambda s, p: (
            f"{p.gpus} GPUs but tp*pp*dp*cp = {p.tp}*{p.pp}*{p.dp}*{p.cp} = {p.devices}; "
            "make the product equal the GPU count"
        ),
        ("gpus", "tp", "pp", "dp", "cp"),
    ),
    R.HEADS,
    R.KV_HEADS,
    Rule(
        "layers do not divide into pp stages",
        lambda s, p: np.any([n % p.pp != 0 for n in _layers(s)], axis=0),
        lambda s, p: next(
            f"{n} layers do not divide into pp {p.pp} stages; use a pp dividing {n}"
            for n in _layers(s)
            if n % p.pp
        ),
        ("pp",),
    ),
    R.EP_NEEDS_MOE,
    Rule(
        "ep exceeds the experts",
        lambda s, p: (s.moe is not None) & (p.ep > _experts(s)),
        lambda s, p: (
            f"ep {p.ep} exceeds the {_experts(s)} experts (each rank holds at least one "
            f"expert); use ep <= {_experts(s)}"
        ),
        ("ep",),
    ),
    Rule(
        "ep must span whole TP groups within dp*tp",
        lambda s, p: (p.ep > 1) & (((p.dp * p.tp) % p.ep != 0) | (p.ep % p.tp != 0)),
        lambda s, p: (
            f"ep {p.ep} must span whole TP groups within dp*tp = {p.dp * p.tp} ranks "
            f"(ep a multiple of tp {p.tp} dividing {p.dp * p.tp})"
        ),
        ("ep", "dp", "tp"),
    ),
    Rule(
        "cp with an encoder-decoder model",
        lambda s, p: (p.cp > 1) & s.is_encoder_decoder,
        lambda s, p: "context parallelism is not modelled for encoder-decoder models; use cp 1",
        ("cp",),
    ),
    Rule(
        "batch leaves dp replicas idle",
        lambda s, p: False if p.batch is None else p.batch < p.dp,
        lambda s, p: (
            f"batch {p.batch} leaves some of the {p.dp} dp replicas idle; use a batch of at least {p.dp}"
        ),
        ("batch", "dp"),
    ),
    Rule(
        "prompt_len or output_len below 1",
        lambda s, p: (p.output_len < 1) | (p.prompt_len < 1),
        lambda s, p: "prompt_len and output_len must be at least 1",
        ("prompt_len", "output_len"),
    ),
    Rule(
        "GPUs do not fill whole nodes",
        lambda s, p: (
            False if p.gpus_per_node is None else p.devices % np.minimum(p.gpus_per_node, p.devices) != 0
        ),
        lambda s, p: (
            f"{p.devices} GPUs do not divide into nodes of {p.gpus_per_node}; use a gpus_per_node "
            f"dividing {p.devices}"
        ),
        ("gpus_per_node", "tp", "pp", "dp", "cp"),
    ),
    R.context_rule(
        lambda p: p.prompt_len + p.output_len, "prompt_len + output_len", ("prompt_len", "output_len")
    ),
    Rule(
        "continuous batching with pipeline parallelism",
        lambda s, p: (p.schedule == "continuous") & (p.pp > 1),
        lambda s, p: (
            f"schedule continuous is modelled without pipeline parallelism (pp {p.pp}); use pp 1, or "
            "schedule static"
        ),
        ("schedule", "pp"),
    ),
    Rule(
        "continuous batching with an encoder-decoder model",
        lambda s, p: (p.schedule == "continuous") & s.is_encoder_decoder,
        lambda s, p: "schedule continuous is modelled for decoder-only models; use schedule static",
        ("schedule",),
    ),
    Rule(
        "continuous batching with context parallelism",
        lambda s, p: (p.schedule == "continuous") & (p.cp > 1),
        lambda s, p: (
            f"schedule continuous is modelled without context parallelism (cp {p.cp}); use cp 1, or "
            "schedule static"
        ),
        ("schedule", "cp"),
    ),
    Rule(
        "speculative mtp without MTP layers",
        lambda s, p: p.speculative is not None and p.speculative.method == "mtp" and not s.num_mtp_layers,
        lambda s, p: (
            f"speculative mtp: {s.name} has no multi-token-prediction layers (num_nextn_predict_layers "
            "is 0); use eagle or ngram with a stated acceptance"
        ),
        ("speculative",),
    ),
    Rule(
        "speculative decoding with an encoder-decoder model",
        lambda s, p: p.speculative is not None and s.is_encoder_decoder,
        lambda s, p: "speculative decoding is modelled for decoder-only models; drop speculative",
        ("speculative",),
    ),
    Rule(
        "decode_attention per_head without standard attention",
        lambda s, p: p.decode_attention == "per_head" and (s.mla is not None or s.is_encoder_decoder),
        lambda s, p: (
            "decode_attention per_head is modelled for MHA/GQA self-attention; "
            f"{s.name} uses {'MLA' if s.mla is not None else 'cross-attention'}: use grouped"
        ),
        ("decode_attention",),
    ),
)
"""The inference plan validity rules, each written once: :func:`check_plan` raises the first a
plan breaks; ``llmcost search infer`` applies the same predicates as masks over its plans."""
BATCH_RULE = next(i for i, r in enumerate(RULES) if r.reason == "batch leaves dp replicas idle")


def first_broken(spec: Any, plan: Plan) -> Any:
    """Index in :data:`RULES` of the first rule ``plan`` breaks, -1 when none: an int, or an int
    array over the plans when the plan's fields are arrays."""
    return R.first_broken(RULES, spec, plan)


def check_plan(spec: Any, hw: Hardware, plan: Plan) -> None:
    """PlanError when the plan does not divide the model or the cluster (the first of :data:`RULES`
    it breaks; a plan with array fields: the first plan breaking it)."""
    checks.gpus_per_node(hw, plan.gpus_per_node, "gpus_per_node")
    for rule in RULES:
        broken = np.asarray(rule.broken(spec, plan))
        if broken.any():
            one = plan if broken.ndim == 0 else plan_row(plan, int(np.flatnonzero(broken)[0]))
            raise PlanError(rule.message(spec, one))


def plan_row(plan: Plan, i: int) -> Plan:
    """Plan ``i`` of a plan whose fields are arrays over plans (scalar fields are shared)."""
    from dataclasses import fields, replace

    kw = {}
    for f in fields(plan):
        v = getattr(plan, f.name)
        if isinstance(v, np.ndarray) and v.ndim:
            kw[f.name] = np.broadcast_to(v, (plan_rows(plan) or 1,))[i].item()
    return replace(plan, **kw)


def plan_rows(plan: Plan) -> int | None:
    """Number of plans in a plan whose fields are 1-D arrays over plans; None for one plan."""
    n = {len(v) for v in vars(plan).values() if isinstance(v, np.ndarray) and v.ndim}
    if len(n) > 1:
        raise ValueError(f"plan fields of different lengths {sorted(n)}")
    return n.pop() if n else None


@dataclass(frozen=True)
class Formats:
    """What a (weights, activations, KV cache) format triple fixes on one hardware."""

    names: tuple[str, str, str]  # defaults applied
    math: tuple[str, str]  # GEMM and attention math precision
    peak_mm: float
    peak_attn: float
    eta_mm: float
    eta_attn: float
    b_w: float
    b_a: float
    b_kv: float
    b_r: float  # residual stream / communication bytes: at least 2 (bf16)
    c_dq: float  # dequantization element-ops per weight element (weight-only formats)


def formats_on(hw: Hardware, weights: str, activations: str | None, kv_cache: str | None) -> Formats:
    """The numbers of a format triple on ``hw`` (:mod:`llmcost.precision`); PlanError when the pair
    is not a supported GEMM or the hardware has no peak for the math precision."""
    w, a, kv = resolve_formats(weights, activations, kv_cache)
    gm = Q.gemm_math(w, a)
    att = Q.attention_math(kv, a)
    peak_mm = Q.require(hw.peak, gm.math, hw.id, f"{w} weights x {a} activations")
    peak_attn = Q.require(hw.peak, att, hw.id, f"attention with a {kv} KV cache")
    ba = Q.BYTES[a]
    return Formats(
        names=(w, a, kv),
        math=(gm.math, att),
        peak_mm=peak_mm,
        peak_attn=peak_attn,
        eta_mm=hw.gemm_efficiency(gm.math),  # efficiency.compute_<dtype> (fp8 GEMMs...), else compute
        eta_attn=hw.attention_efficiency(att),  # efficiency.attention, else the GEMM figure
        b_w=Q.BYTES[w],
        b_a=ba,
        b_kv=Q.BYTES[kv],
        b_r=max(ba, 2.0),
        c_dq=Q.C_DQ if gm.weight_only else 0.0,
    )
