"""Inference cost of one plan: TTFT, TPOT, throughput, memory, money and energy (no sympy).

Workload (``schedule: static``, as TensorRT-LLM's gptSessionBenchmark): a batch
of ``batch`` sequences (whole system; ``batch/dp`` per replica) runs prefill of
``prompt_len`` tokens, then ``output_len − 1`` decode steps whose context grows from
``prompt_len + 1``; every decode step is costed at its own context (the compiled decode
function is evaluated on the array of contexts at once). ``schedule: continuous``: the steady
state of in-flight batching at a concurrency of ``batch`` requests (:func:`serve_continuous`).
With ``speculative`` each decode step verifies the drafted tokens and runs the draft passes, and
emits the accepted tokens (:func:`draft_evaluator`; :mod:`llmcost.inference.formulas`
``decode_step``, ``accepted_tokens``, ``decode_time``).

* operator time: :func:`llmcost.kernels.roofline.roofline` on the graph's FLOPs and bytes, at the
  peak of the operator's math precision (:mod:`llmcost.precision`), with the catalog's
  compute and memory efficiencies (GEMMs ``efficiency.compute_<math dtype>`` when the entry has
  one, else ``efficiency.compute``; attention ``efficiency.attention`` when the hardware entry
  has one, else the GEMM figure; :class:`llmcost.hardware.Hardware`) and a per-kernel overhead
  :data:`llmcost.kernels.roofline.T_KERNEL` (added); weight dequantization (weight-only formats)
  is charged at the vector peak.
* collectives: :mod:`llmcost.collectives.cost` (fastest modelled algorithm) with groups placed
  on the fabric tiers: TP innermost, then CP, DP (EP spans DP x TP ranks), PP outermost.
* TP: two all-reduces per layer; EP: dispatch + combine all-to-all per MoE layer; CP prefill:
  ring pass-KV or pass-Q (the one with less exposed time; the ring overlaps attention),
  decode merges partial outputs; PP: ``m = min(b, pp)`` micro-batches,
  ``TTFT = (m + p − 1)/p · T_fwd(b/m) + (p − 1)·T_hop`` and ``TPOT = T_dec(b/m) + (p − 1)·T_hop``
  (GPipe fill, Huang et al. 2019).
* memory per device: weights (layers / pp, plus embedding or head), KV cache at
  ``prompt_len + output_len``, activation workspace (the largest operator input + output of
  one prefill layer, one layer live at a time, plus fp32 logits), reserved runtime memory
  :data:`RESERVED_FRACTION` of usable memory.
* money and energy: ``$ / 1M output tokens = gpus·price·e2e / 3600 / (batch·output_len)·1e6``
  (:func:`llmcost.economics.formulas.usd_per_million_tokens`);
  ``J / output token = gpus·P·e2e / (batch·output_len)``, ``P`` the TDP (an upper bound on the draw) or the
  mean draw by kind of work where the catalog gives draws (:func:`draw_of`) [derived].

Every figure above is a generated function of a sympy expression
(:mod:`llmcost.inference.formulas`, generated :mod:`llmcost.inference._generated`). This module
composes the phases with them; the plan, its formats and rules are
:mod:`llmcost.inference.plan`, the per-operator pricing :mod:`llmcost.inference.evaluator`
(both re-exported here) and the validation glue :mod:`llmcost.validation.inference`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from llmcost import rules as R
from llmcost.economics import _generated as E
from llmcost.economics.power import facility
from llmcost.errors import PlanError
from llmcost.hardware import Hardware
from llmcost.inference import _generated as F
from llmcost.inference.evaluator import (  # noqa: F401  (re-exported: llmcost.inference.serve.X)
    Evaluator,
    OpCost,
    PhaseCost,
)
from llmcost.inference.metrics import METRICS  # noqa: F401  (re-exported: llmcost.inference.serve.METRICS)
from llmcost.inference.plan import (  # noqa: F401  (re-exported: llmcost.inference.serve.X)
    BATCH_RULE,
    EP_IMBALANCE_EPLB,
    PLAN_KEYS,
    RULES,
    Formats,
    Plan,
    Speculation,
    accepted_per_step,
    check_plan,
    first_broken,
    formats_on,
    per_replica,
    plan_from_dict,
    plan_row,
    plan_rows,
    resolve_formats,
)
from llmcost.model.config import spec_of  # noqa: F401  (re-exported: llmcost.inference.serve.spec_of)
from llmcost.units import GIB

RESERVED_FRACTION = 0.10
"""Reserved runtime memory (CUDA context, NCCL buffers, allocator slack) as a fraction of usable
memory: vLLM ``gpu_memory_utilization`` default 0.9 (vllm/config.py) and TensorRT-LLM
``kv_cache_free_gpu_mem_fraction`` default 0.9."""


# ------------------------------------------------------------------------------ model


# ------------------------------------------------------------------------------ composition
@dataclass
class InferenceResult:
    """Metrics of one plan (validation README metric names in :meth:`metrics`)."""

    model: str
    hardware: str
    plan: Plan
    batch: int
    gpus: int
    ttft: float
    tpot: float
    e2e: float
    memory: dict[str, float]
    max_batch: int
    prefill: PhaseCost
    decode: PhaseCost
    math: tuple[str, str]
    formats: tuple[str, str, str]
    price_per_hour: float | None
    tdp: float
    notes: list[str] = field(default_factory=list)
    draw: Any = (
        None  # mean draw per device (W; one per plan in a search) from the catalog power figures; None: TDP
    )
    draft: PhaseCost | None = None  # one draft pass per decode step's context (speculative decoding)
    model_switch_s: float | None = None  # weights per device over the host link (None: no catalog link)

    @property
    def output_tokens(self) -> int:
        return self.batch * self.plan.output_len

    def metrics(self) -> dict[str, Any]:
        """Metric values keyed by the validation README names (plus extras)."""
        if self.plan.disaggregated and self.plan.output_len > 1:
            # decode pool of a disaggregated deployment: prefill runs on the prefill pool, so this
            # pool's output rate is its decode rate
            out_tps = F.output_rate__decode_pool(batch=self.batch, tpot=self.tpot)
        else:
            out_tps = F.output_rate(batch=self.batch, output_len=self.plan.output_len, e2e=self.e2e)
        per_tok_s = F.seconds_per_token(out_rate=out_tps)
        price = self.price_per_hour
        return {
            "ttft_s": self.ttft,
            "tpot_s": self.tpot,
            "e2e_latency_s": self.e2e,
            "output_tokens_per_s": out_tps,
            "output_tokens_per_s_per_gpu": F.output_rate_per_device(out_rate=out_tps, devices=self.gpus),
            "input_tokens_per_s_per_gpu": (
                F.input_rate_per_device__continuous(
                    batch=self.batch, prompt_len=self.plan.prompt_len, e2e=self.e2e, devices=self.gpus
                )
                if self.plan.schedule == "continuous"
                else F.input_rate_per_device(
                    batch=self.batch, prompt_len=self.plan.prompt_len, ttft=self.ttft, devices=self.gpus
                )
            ),
            "memory_gib_per_gpu": self.memory["total"] / GIB,
            "max_batch": self.max_batch,
            "usd_per_million_output_tokens": (
                E.usd_per_million_tokens(devices=self.gpus, seconds=per_tok_s, tokens=1.0, usd_hour=price)
                if price
                else None
            ),
            "joules_per_output_token": facility(
                F.joules_per_token(
                    devices=self.gpus, tdp_w=self.tdp if self.draw is None else self.draw, s_per_tok=per_tok_s
                ),
                self.plan.pue,
            ),
            "output_tokens_per_s_per_user": F.user_rate(tpot=self.tpot),
            **({} if self.model_switch_s is None else {"model_switch_s": self.model_switch_s}),
        }


def _phase_groups(ev: Evaluator, phase: str) -> list[tuple[str, Any]]:
    from llmcost.graph.ops import layer_groups

    return [(phase, g) for g in layer_groups(ev.spec, phase)]


def _prefill(ev: Evaluator, b: float, P: int, *, timed: bool = True) -> PhaseCost:
    """Prefill of ``b`` sequences of ``P`` tokens (encoder pass + first decoder step for enc-dec)."""
    if ev.spec.is_encoder_decoder:
        enc = ev.phase(
            _phase_groups(ev, "encoder"), "io__encoder__all", timed=timed, micro_batch=b, seq=P, ctx=P
        )
        dec = ev.phase(
            _phase_groups(ev, "forward"),
            "io__forward__last",
            timed=timed,
            micro_batch=b,
            seq=1,
            ctx=1,
            seq_enc=P,
        )
        return PhaseCost(
            enc.ops + dec.ops, dec.kv_bytes, enc.weight_bytes + dec.weight_bytes, dec.tbo, dec.sm_share
        )
    return ev.phase(
        _phase_groups(ev, "forward"), "io__forward__last", timed=timed, micro_batch=b, seq=P, ctx=P
    )


def _decode(
    ev: Evaluator, b: float, ctx: Any, P: int, *, timed: bool = True, n_dec: float = 1.0
) -> PhaseCost:
    """One decode step of ``b`` sequences at context ``ctx``, ``n_dec`` query tokens per sequence
    (``k + 1`` when it verifies ``k`` drafted tokens)."""
    enc = ev.spec.is_encoder_decoder
    return ev.phase(
        _phase_groups(ev, "decode"),
        "io__decode__last",
        timed=timed,
        micro_batch=b,
        ctx=ctx,
        seq=1,
        seq_enc=P if enc else 1,
        n_dec=n_dec,
    )


def draft_evaluator(ev: Evaluator) -> Evaluator | None:
    """The evaluator of the plan's draft module (MTP / EAGLE: in ``speculative.weights`` when given,
    with the plan's KV-cache format), None when nothing drafts on the device (no speculation, or
    prompt-lookup drafts)."""
    from dataclasses import replace

    s = ev.plan.speculative
    if s is None or s.method == "ngram":
        return None
    if s.weights is None:
        return ev
    plan = replace(ev.plan, weights=s.weights, activations=None, kv_cache=ev.formats[2], op_precision=())
    return Evaluator(ev.spec, ev.hw, plan)


def _draft_group(ev: Evaluator) -> list[tuple[str, Any]]:
    """The draft module's one decoder layer: for ``mtp`` a layer of the model's last decode shape (an
    MTP module's block is "structure identical to the main model hidden layers", DeepSeek-V3
    README_WEIGHTS.md: an MoE layer for DeepSeek-V3), for ``eagle`` a dense layer with the model's
    attention and its ``intermediate_size`` (EAGLE's head is one LLaMA-style decoder layer, Li et al.
    2024 §3, for MoE targets too); full attention."""
    from llmcost.graph.ops import GroupInfo, layer_groups

    groups = layer_groups(ev.spec, "decode")
    if ev.plan.speculative is not None and ev.plan.speculative.method == "mtp":
        return [("decode", GroupInfo("draft", groups[-1].shape, 1, None))]
    phase, attn, _ = groups[0].shape.split("__")  # EAGLE heads are dense layers, MoE targets included
    return [("decode", GroupInfo("draft", f"{phase}__{attn}__dense", 1, None))]


def _draft(dev: Evaluator, b: Any, ctx: Any, *, timed: bool = True) -> PhaseCost:
    """One draft pass of ``b`` sequences at context ``ctx``: the draft module's layer and its
    embedding, projection, norms and LM head (``io__draft__last``), one token per sequence."""
    return dev.phase(_draft_group(dev), "io__draft__last", timed=timed, micro_batch=b, ctx=ctx, seq=1)


def workspace_prefill(ev: Evaluator, mbs: Any, P: int) -> PhaseCost:
    """The pass whose activation workspace a device holds: the prefill of ``mbs`` sequences of ``P``
    tokens; with ``prefill_chunk`` one chunk of it, ``min(mbs, chunk/P)`` sequences; on the decode pool
    of a disaggregated deployment (it never prefills) one token per sequence (quantities only)."""
    p = ev.plan
    if p.disaggregated and p.output_len > 1:
        return _prefill(ev, mbs, 1, timed=False)
    b = mbs if p.prefill_chunk is None else np.minimum(mbs, p.prefill_chunk / P)
    return _prefill(ev, b, P, timed=False)


def device_memory(ev: Evaluator, b_rep: Any, pre: PhaseCost, kv_ctx: float | None = None) -> dict[str, Any]:
    """Per-device memory by component (bytes) at ``b_rep`` sequences per replica (a number, or an
    array of them: one value per element, the plans of ``ev`` when it holds several), the KV cache at
    the request's final context, or at ``kv_ctx`` (continuous batching: the mean context of the
    requests in service)."""
    p = ev.plan
    final = p.prompt_len + p.output_len if kv_ctx is None else kv_ctx
    ctx = 1 + p.output_len if ev.spec.is_encoder_decoder else final
    kv_phase = _decode(ev, b_rep, float(ctx), p.prompt_len, timed=False)
    ops = list(kv_phase.ops)
    if ev.spec.is_encoder_decoder:
        enc = ev.phase(
            _phase_groups(ev, "encoder"), "io__encoder__all", timed=False, micro_batch=1.0, seq=1.0, ctx=1.0
        )
        ops += [o for o in enc.ops if o.group != "io"]
    layer_w = _layer_weights(ev, ops)
    if p.weights_tier != "hbm":  # streamed: each stage holds the layer running and the next (double buffer)
        n = ev.spec.num_layers + (ev.spec.num_encoder_layers if ev.spec.is_encoder_decoder else 0)
        layer_w = 2 * p.pp * layer_w / max(1, n)
    io_w = {o.name: ev.resident(o.weight_bytes) for o in ops if o.group == "io"}
    emb, lm = io_w.get("embedding", 0.0), io_w.get("lm_head", 0.0)
    # pp > 1: embedding on the first stage, head on the last: the fuller stage counts
    head = ev.pick(p.pp > 1, np.maximum(emb, lm), emb + lm)
    dev = draft_evaluator(ev)
    draft = None if dev is None else _draft(dev, b_rep, float(ctx), timed=False)
    weights = F.memory__weights(
        m_layers=layer_w,
        pp=p.pp,
        m_io=head,
        m_norm=io_w.get("final_norm", 0.0),
        m_draft=0.0 if draft is None else draft.weight_bytes,
    )
    kv_all = np.asarray(kv_phase.kv_bytes, dtype=float)
    if p.kv_tier != "hbm":  # on the host: each stage holds the layer read and the next (double buffer)
        kv_all = 2 * p.pp * kv_all / max(1, ev.spec.num_layers)
    kv = F.memory__kv_cache(
        m_kv_all=kv_all,
        pp=p.pp,
        m_kv_draft=0.0 if draft is None else np.asarray(draft.kv_bytes, dtype=float),
    )
    work = pre.workspace()
    usable = ev.hw.memory_usable
    reserved = F.memory__reserved(f_reserved=RESERVED_FRACTION, usable=usable)
    return {
        "weights": weights,
        "kv_cache": kv,
        "activations": work,
        "reserved": reserved,
        "total": F.memory__total(m_weights=weights, m_kv=kv, m_act=work, m_reserved=reserved),
        "usable": usable,
    }


def _micro(b_rep: Any, pp: int) -> Any:
    """Pipeline micro-batches ``m = min(b, pp)`` (at least 1), on numbers or arrays
    (:func:`llmcost.inference.formulas.micro_batches`)."""
    return F.micro_batches(b_rep=b_rep, pp=pp)


def _contexts(ev: Evaluator) -> np.ndarray:
    """Context of each decode step: ``prompt_len + 1 ... prompt_len + output_len − 1`` (one step
    at ``prompt_len + 1`` when one token is generated; decoder positions for enc-dec)."""
    p = ev.plan
    if p.output_len > 1:
        ctx = p.prompt_len + np.arange(1, p.output_len, dtype=float)
    else:
        ctx = np.array([p.prompt_len + 1.0])
    if ev.spec.is_encoder_decoder:
        ctx = ctx - p.prompt_len + 1
    return ctx


def _decode_steps(ev: Evaluator, mbs: Any) -> PhaseCost:
    """Every decode step of a micro-batch of ``mbs`` sequences (arrays: decode step x plan), each
    verifying the plan's drafted tokens with its own (``n_dec = k + 1``) when it speculates."""
    ctx = _contexts(ev)
    return _decode(ev, mbs, ctx[:, None] if np.ndim(mbs) else ctx, ev.plan.prompt_len, n_dec=_n_dec(ev))


def _n_draft(ev: Evaluator) -> int:
    """Tokens drafted per sequence per decode step: the plan's ``speculative.tokens``, else 0."""
    s = ev.plan.speculative
    return 0 if s is None else s.tokens


def _n_dec(ev: Evaluator) -> float:
    """Query tokens per sequence of a decode step: ``k + 1`` with ``k`` drafted tokens, else 1."""
    s = ev.plan.speculative
    return 1.0 if s is None else s.tokens + 1.0


def _engine(ev: Evaluator, t_gpu: Any, kernels: Any, b_rep: Any, *, prefill: bool) -> Any:
    """An engine step of GPU time ``t_gpu`` issuing ``kernels`` operators, as the plan's serving engine
    runs it (:func:`llmcost.inference.formulas.engine_step`): its host time per step and per running
    sequence (``b_rep``), synchronous or overlapped, and eager when the plan's ``graphs`` leave the
    step uncaptured (``none``; ``decode`` for a step carrying prefill tokens)."""
    from llmcost.inference.stack import EAGER_OP_S

    p = ev.plan
    eager = p.graphs == "none" or (prefill and p.graphs == "decode")
    return F.engine_step(
        t_gpu=t_gpu,
        n_kernels=kernels,
        b_rep=b_rep,
        h_step=p.host_step_s,
        h_seq=p.host_seq_s,
        overlap=float(p.overlap_scheduler),
        eager=float(eager),
        t_issue=EAGER_OP_S,
    )


def bottleneck_phase(ev: Evaluator, b_rep: Any) -> PhaseCost:
    """The phase :func:`dominant` names a plan's bottleneck from, as :func:`serve` evaluates it:
    the decode steps, or the prefill when one token is generated."""
    p = ev.plan
    mbs = F.micro_batch(b_rep=b_rep, pp=p.pp)
    return _decode_steps(ev, mbs) if p.output_len > 1 else _prefill(ev, mbs, p.prompt_len)


def serve(ev: Evaluator, b_rep: Any) -> dict[str, Any]:
    """TTFT, TPOT, end-to-end latency, memory by component and the two phases of ``ev``'s plan at
    ``b_rep`` sequences per replica: a number (:func:`cost`), or a 1-D array, one batch per plan
    when ``ev`` holds several plans (``llmcost search infer``): the one composition of both.

    PP: ``m = min(b, pp)`` micro-batches, ``TTFT = (m + p − 1)/p · T_fwd(b/m) + (p − 1)·T_p2p`` and
    ``TPOT = T_dec(b/m) + (p − 1)·T_p2p`` (GPipe fill, Huang et al. 2019); every
    decode step at its own context, ``prompt_len + 1 ... prompt_len + output_len − 1`` (static
    batching, TensorRT-LLM gptSessionBenchmark). With an array the decode steps run on the first
    axis and the plans on the last; each plan's steps are then summed in the same order as alone."""
    p = ev.plan
    if p.schedule == "continuous":
        return serve_continuous(ev, b_rep)
    m = F.micro_batches(b_rep=b_rep, pp=p.pp)
    mbs = F.micro_batch(b_rep=b_rep, pp=p.pp)
    pre = _prefill(ev, mbs, p.prompt_len)
    chunked = p.prefill_chunk is not None or (p.disaggregated and p.output_len > 1)
    mem = device_memory(ev, b_rep, workspace_prefill(ev, mbs, p.prompt_len) if chunked else pre)
    t_pre = _engine(ev, np.asarray(pre.time, dtype=float), pre.kernels, mbs, prefill=True)
    ttft = F.ttft(n_mb=m, pp=p.pp, t_prefill=t_pre, t_hop=_hop(ev, mbs, p.prompt_len, p.cp))
    ctx = _contexts(ev)
    dec = _decode_steps(ev, mbs)
    t_dec = np.asarray(dec.time, dtype=float)
    spec = p.speculative
    dev = draft_evaluator(ev)
    draft = None if dev is None else _draft(dev, mbs, ctx[:, None] if np.ndim(mbs) else ctx)
    steps = F.decode_step(
        t_decode=t_dec,
        pp=p.pp,
        t_hop=_hop(ev, mbs, _n_dec(ev), 1),
        n_draft=_n_draft(ev),
        t_draft=0.0 if draft is None else np.asarray(draft.time, dtype=float),
    )
    kernels = dec.kernels + (0 if draft is None else _n_draft(ev) * draft.kernels)
    steps = _engine(ev, steps, kernels, mbs, prefill=False)  # one engine step per micro-batch
    steps = np.broadcast_to(steps, ctx.shape + np.shape(mbs))
    if np.ndim(mbs) > 0:  # plan x decode step, each plan's steps contiguous: summed as one plan's alone
        steps = np.ascontiguousarray(steps.T)
    n_acc = accepted_per_step(spec)
    t_steps = F.decode_time(t_iters=np.sum(steps, axis=-1), n_acc=n_acc, n_steps=steps.shape[-1])
    tpot = F.tpot(t_steps=t_steps, n_steps=steps.shape[-1])
    e2e = F.e2e(ttft=ttft, t_steps=t_steps if p.output_len > 1 else 0.0)
    return {
        "ttft": ttft,
        "tpot": tpot,
        "e2e": e2e,
        "memory": mem,
        "prefill": pre,
        "decode": dec,
        "draft": draft,
    }


_EXPERT_OPS = ("experts_up", "experts_act", "experts_down")
"""The routed experts' operators: they run on the tokens every rank of the EP group routes to them."""


def _mixed_step(ev: Evaluator, decoding: Any, rate: Any, ctx: float, P: int, moe: Any = 1.0) -> PhaseCost:
    """One step of continuous batching with its decode and prefill tokens batched together
    (:func:`llmcost.inference.formulas.cb_step`): every layer's GEMMs, norms, MoE and collectives on
    the ``decoding·n_dec + r·n_in`` tokens of the step (the forward layer shapes at one token per row:
    their GEMM rows are the tokens, whichever phase they come from), the decode attention of the
    ``decoding`` sequences at context ``ctx`` (with MLA's absorbed projections) and the prefill attention
    of the ``r`` admitted prompts, each its own kernel, and the head on the step's logit rows. The routed
    experts take the prompts' tokens at ``moe`` times ``r`` (the share of the lockstep attention-DP ranks
    prefilling in the step, :func:`llmcost.inference.formulas.cb_prefilling_ranks`; 1 without them)."""
    from dataclasses import replace

    n_dec = _n_dec(ev)
    tokens = decoding * n_dec + rate * P
    share = rate * P / tokens  # the prompt tokens' share of the GEMM rows (evaluator._blend)
    dense = ev.phase(
        _phase_groups(ev, "forward"),
        "io__decode__last",
        micro_batch=tokens,
        seq=1,
        ctx=1.0,
        shape_share=share,
    )
    head = ev.phase([], "io__decode__last", micro_batch=decoding * n_dec + rate, seq=1, ctx=1.0)
    dec = _decode(ev, decoding, ctx, P, n_dec=n_dec)
    pre = _prefill(ev, rate, P)
    live = np.asarray(decoding) > 0
    absorbed = ("q_absorb", "v_absorb")  # MLA decode only: the prefill path up-projects instead

    def own(o: OpCost) -> OpCost:  # a decode-only operator: absent when nothing decodes
        return o if bool(np.all(live)) else replace(o, time=np.where(live, o.time, 0.0))

    ops = [o for o in dense.ops if o.group != "io" and o.kind != "attention" and o.name != "kv_b_proj"]
    if not (np.ndim(moe) == 0 and moe == 1.0):  # the experts see the other ranks' prompts at their share
        routed = decoding * n_dec + rate * moe * P
        experts = ev.phase(
            _phase_groups(ev, "forward"),
            "io__decode__last",
            micro_batch=routed,
            seq=1,
            ctx=1.0,
            shape_share=rate * moe * P / routed,
        )
        mine = {(o.group, o.name): o for o in experts.ops if o.name in _EXPERT_OPS}
        ops = [mine.get((o.group, o.name), o) for o in ops]
    ops += [o for o in pre.ops if o.group != "io" and o.name == "kv_b_proj"]
    ops += [own(o) for o in dec.ops if o.group != "io" and (o.kind == "attention" or o.name in absorbed)]
    ops += [o for o in pre.ops if o.group != "io" and o.kind == "attention"]
    ops += [o for o in head.ops if o.group == "io"]
    return PhaseCost(ops, dec.kv_bytes, dense.weight_bytes, dense.tbo, dense.sm_share)


def serve_continuous(ev: Evaluator, b_rep: Any) -> dict[str, Any]:
    """Continuous (in-flight) batching at a concurrency of ``b_rep`` requests per replica, in its
    steady state (plan ``schedule: continuous``; :mod:`llmcost.inference.formulas`, continuous
    batching): a decoding request's step decodes itself and the others in their decode phase
    (:func:`~llmcost.inference.formulas.cb_seen_decoding`) at the mean context ``n_in + n_out/2``; a
    share of the steps also carries prefill chunks of the requests being admitted
    (:func:`_mixed_step`), the rest decode only. TPOT is a request's mean decode step over the tokens
    it emits per step, TTFT the prefill-carrying steps of its own chunks beside the others' decodes.
    On the decode pool of a disaggregated deployment nothing is prefilled. ``b_rep`` a number, or an
    array of them (one per plan of ``ev``)."""
    p = ev.plan
    P, out = p.prompt_len, p.output_len
    kw = _continuous_counts(ev, b_rep)
    ctx = float(F.cb_context(prompt_len=P, output_len=out))
    k = _n_draft(ev)
    # the decode step a decoding request sees: itself and the others in their decode phase; with one
    # output token nothing decodes, and TPOT is the step its batch would decode in (the static convention)
    seen = F.cb_seen_decoding(**kw) if out > 1 else b_rep
    others = F.cb_others_decoding(**kw)  # decoding beside a request's own prefill chunk
    dec = _decode(ev, seen, ctx, P, n_dec=_n_dec(ev))
    dev = draft_evaluator(ev)
    draft = None if dev is None else _draft(dev, seen, ctx)
    t_draft = 0.0 if draft is None else np.asarray(draft.time, dtype=float)
    t_dec = np.asarray(dec.time, dtype=float)
    seqs = F.cb_prompts_per_step(**kw)  # prompts prefilled per carrying step
    if kw["n_chunks"]:
        sync = {"share": F.cb_prefill_share(**kw), "n_sync": _lockstep(p)}
        with np.errstate(divide="ignore", invalid="ignore"):  # numpy.select evaluates every branch
            ranks = np.where(sync["share"] > 0, F.cb_prefilling_ranks(**sync), 1.0 / sync["n_sync"])
        # the others' chunks beside its decode; its own chunk beside the others' decodes
        moe = ev.spec.moe is not None  # only routed experts see the other ranks' prompts
        mixed = _mixed_step(
            ev, seen, seqs, ctx, P, (ranks if np.ndim(ranks) else float(ranks)) if moe else 1.0
        )
        first = _mixed_step(ev, others, seqs, ctx, P, F.cb_own_prefilling_ranks(**sync) if moe else 1.0)
        first_draft: Any = 0.0 if dev is None else _draft_where(dev, others, ctx)
    else:
        mixed = first = dec
        first_draft = t_draft
    chunked = bool(np.any(kw["n_chunks"]))
    t_step = F.cb_step(
        share=F.cb_synced_share(share=F.cb_prefill_share(**kw), n_sync=_lockstep(p)) if out > 1 else 0.0,
        t_mixed=_engine(ev, np.asarray(mixed.time, dtype=float), mixed.kernels, b_rep, prefill=chunked),
        t_decode=_engine(ev, t_dec, dec.kernels, b_rep, prefill=False),
        n_draft=k,
        t_draft=t_draft,
    )
    t_first = _engine(ev, np.asarray(first.time, dtype=float), first.kernels, b_rep, prefill=chunked)
    ttft = F.cb_ttft(n_chunks=kw["n_chunks"], t_mixed=t_first, n_draft=k, t_draft=first_draft)
    tpot = F.cb_tpot(t_cbstep=t_step, n_acc=kw["n_acc"])
    return {
        "ttft": ttft,
        "tpot": tpot,
        "e2e": F.cb_e2e(ttft=ttft, tpot=tpot, output_len=out),
        "memory": continuous_memory(ev, b_rep),
        "prefill": first,
        "decode": dec,
        "draft": draft,
    }


def _lockstep(p: Plan) -> Any:
    """Replicas whose prefill chunks land in different steps of one lockstep: the attention-DP ranks of
    one expert-parallel group, ``ep / tp`` where ``ep > tp`` (:func:`llmcost.inference.formulas.cb_synced_share`);
    1 without attention-DP, or when the engine aligns their prefills (``aligned_prefill``)."""
    if p.aligned_prefill:
        return 1
    return np.where(np.asarray(p.ep) > np.asarray(p.tp), np.asarray(p.ep) // np.asarray(p.tp), 1)


def _draft_where(dev: Evaluator, b: Any, ctx: float) -> Any:
    """One draft pass's time at ``b`` sequences, 0 where none decode."""
    return np.where(np.asarray(b) > 0, np.asarray(_draft(dev, b, ctx).time, dtype=float), 0.0)


def _continuous_counts(ev: Evaluator, b_rep: Any) -> dict[str, Any]:
    """The arguments of the continuous-batching counts: concurrency, output length, tokens per step
    and prefill chunks per request (0 on a disaggregated decode pool, which never prefills)."""
    p = ev.plan
    decode_pool = p.disaggregated and p.output_len > 1
    chunks = (
        0.0
        if decode_pool
        else float(F.cb_chunks(prompt_len=p.prompt_len, chunk=p.prefill_chunk or p.prompt_len))
    )
    return {
        "conc": b_rep,
        "output_len": p.output_len,
        # a step cannot emit more tokens than the request has left (as the static path's decode_time)
        "n_acc": min(accepted_per_step(p.speculative), max(p.output_len - 1, 1)),
        "n_chunks": chunks,
    }


def continuous_memory(ev: Evaluator, b_rep: Any) -> dict[str, Any]:
    """Memory per device under continuous batching at ``b_rep`` requests per replica: the KV cache at
    their mean context ``n_in + n_out/2`` (:func:`llmcost.inference.formulas.cb_context`), the
    activation workspace of a prefill-carrying step's prompt tokens."""
    p = ev.plan
    kw = _continuous_counts(ev, b_rep)
    seqs = F.cb_prompts_per_step(**kw)
    # the step's prompt tokens (its chunks); a decode pool holds one token per sequence
    if kw["n_chunks"]:
        pre = _prefill(ev, seqs, p.prompt_len, timed=False)
    else:
        pre = workspace_prefill(ev, seqs, p.prompt_len)
    ctx = float(F.cb_context(prompt_len=p.prompt_len, output_len=p.output_len))
    return device_memory(ev, b_rep, pre, kv_ctx=ctx)


def _hop(ev: Evaluator, mbs: Any, seq: float, cp: int) -> Any:
    """Time of one pipeline send/recv of a micro-batch of ``mbs`` sequences of ``seq`` tokens over
    ``cp`` ranks (:func:`llmcost.inference.formulas.hop_bytes`); 0 with pp = 1 (no pipeline
    degree: :meth:`Evaluator.collective_time`)."""
    size = F.hop_bytes(micro_batch=mbs, seq=seq, cp=cp, d_model=ev.spec.hidden_size, b_r=ev.vals["b_r"])
    return np.asarray(ev.collective_time("send_recv", "pp", size), dtype=float)


def largest_batch(ev: Evaluator) -> int:
    """Largest system batch (a multiple of dp) whose memory fits.

    Memory grows monotonically with the batch but is only piecewise affine (below ``pp``
    the micro-batch count changes with the batch), so the per-replica batch is found by
    doubling and then bisecting on the memory function itself.
    """
    p = ev.plan
    usable = ev.hw.memory_usable

    def fits(b_rep: int) -> bool:
        if p.schedule == "continuous":
            return float(continuous_memory(ev, float(b_rep))["total"]) <= usable
        pre = workspace_prefill(ev, F.micro_batch(b_rep=b_rep, pp=p.pp), p.prompt_len)  # workspace
        return float(device_memory(ev, float(b_rep), pre)["total"]) <= usable

    if not fits(1):
        return 0
    lo, hi = 1, 2
    while fits(hi):
        lo, hi = hi, hi * 2
        if hi > 2**30:
            return 10**9
    while hi - lo > 1:  # fits(lo) and not fits(hi)
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo * p.dp


def cost(model: str | dict[str, Any], hw: Hardware, plan: Plan, check_memory: bool = True) -> InferenceResult:
    """Cost ``plan`` for ``model`` on ``hw``; PlanError when it does not divide or (``check_memory``)
    does not fit. Validation scores a published run the memory model says does not fit
    (``check_memory=False``) and flags it, as it does for training."""
    spec = spec_of(model)
    ev = Evaluator(spec, hw, plan)
    p = plan
    notes: list[str] = [n for n in (R.context_note(spec, p.prompt_len + p.output_len),) if n]
    max_b = largest_batch(ev)
    batch = p.batch
    if batch is None:
        if max_b < p.dp and check_memory:
            raise PlanError(f"{spec.name} does not fit on {p.devices} x {hw.id} even at batch {p.dp}")
        batch = max(max_b, p.dp)
        notes.append(
            f"batch not given: using the largest that fits, {batch}"
            if max_b >= p.dp
            else f"batch not given and none fits: using one sequence per replica, {batch}"
        )
    r = serve(ev, per_replica(batch, p.dp))
    if batch % p.dp:
        notes.append(
            f"batch {batch} over {p.dp} dp replicas: {batch % p.dp} run {per_replica(batch, p.dp)} sequences, "
            f"the rest {batch // p.dp}; the busiest sets TTFT, TPOT and memory"
        )
    mem = {k: float(v) for k, v in r["memory"].items()}
    if check_memory:
        _check_fits(mem, hw, max_b)
    over = _tier_over(ev)
    if over and check_memory:
        raise PlanError(over)
    notes += [over] if over else []
    return InferenceResult(
        model=spec.name,
        hardware=hw.id,
        plan=p,
        batch=batch,
        gpus=p.devices,
        ttft=float(r["ttft"]),
        tpot=float(r["tpot"]),
        e2e=float(r["e2e"]),
        memory=mem,
        max_batch=max_b,
        prefill=r["prefill"],
        decode=r["decode"],
        math=ev.math,
        formats=ev.formats,
        price_per_hour=hw.price_per_hour,
        tdp=ev.hw.tdp,
        notes=notes + _plan_notes(spec, hw, p) + _power_notes(hw, ev.hw, p),
        draw=draw_of(ev.hw, p, (r["prefill"], r["decode"])),
        draft=r["draft"],
        model_switch_s=_switch_time(hw, mem["weights"]),
    )


def draw_of(hw: Hardware, p: Plan, phases: tuple[PhaseCost, ...]) -> Any:
    """Mean draw per device over the op time of one prefill and the decode steps, by roofline
    bound (:func:`llmcost.economics.power.mean_draw`); None when the device has no power figures
    (energy at TDP, as before)."""
    from llmcost.economics.power import mean_draw

    if not hw.power:
        return None
    plans = np.shape(p.batch)  # () for one plan; (n,) on the last axis for a search's plans
    times: dict[str, Any] = {}
    for ph in phases:
        for o in ph.ops:
            t, b = np.broadcast_arrays(o.count * np.asarray(o.time, dtype=float), np.asarray(o.bound))
            for bound in np.unique(b):
                m = np.where(b == bound, t, 0.0)
                s = m.sum() if not plans else m.reshape(-1, m.shape[-1]).sum(axis=0) if m.ndim else m
                times[str(bound)] = times.get(str(bound), 0.0) + s
    return mean_draw(times, hw)


def _power_notes(base: Hardware, hw: Hardware, p: Plan) -> list[str]:
    """What the energy figure is: TDP bound, or draws by kind of work (and what is missing); what the
    plan's power cap did (``base``: the device uncapped, ``hw`` as costed)."""
    from llmcost.economics.power import cap_note

    out = [n for n in (cap_note(base, p.power_cap),) if n]
    if hw.power:
        given = ", ".join(f"{k} {v:g} W" for k, v in hw.power.items() if k != "static_w")
        out.append(f"energy from time x draw by roofline bound ({given}; the rest at TDP {hw.tdp:g} W)")
    if p.pue != 1.0:
        out.append(f"energy is facility energy at PUE {p.pue:g}")
    return out


def _switch_time(hw: Hardware, weights: float) -> float | None:
    """Seconds to bring the plan's weights per device in from the host tier, as a composition of
    experts swaps models held in host DDR into device memory (SN40L, Prabhakar et al. 2024 §3: the
    DDR-to-HBM copy): the weight bytes over ``host_memory.link_bandwidth``; None without that figure."""
    try:
        link, _, _ = hw.host_bandwidths(need_nvme=False)
    except PlanError:
        return None
    return float(weights) / link


def _layer_weights(ev: Evaluator, ops: list[OpCost]) -> Any:
    """Weight bytes of every decoder (and encoder) layer on one device, the embedding and head apart."""
    return sum(o.count * ev.resident(o.weight_bytes) for o in ops if o.group != "io")


def _tier_over(ev: Evaluator) -> str:
    """Why the weights a plan streams do not fit the tier they stream from on a node (its devices share
    it: ``host_memory.capacity`` or ``nvme_capacity``), or '' (also where the catalog does not say)."""
    p = ev.plan
    node = ev.hw.node_share(p.devices)
    need = {"cpu": 0.0, "nvme": 0.0}
    if p.weights_tier != "hbm":
        ops = _decode(ev, 1.0, float(p.prompt_len + 1), p.prompt_len, timed=False).ops
        w = _layer_weights(ev, ops) / p.pp
        need["cpu" if p.weights_tier == "host" else "nvme"] += w * node
    if p.kv_tier != "hbm":
        b = per_replica(p.batch or 1, p.dp)
        kv = _decode(ev, float(b), float(p.prompt_len + p.output_len), p.prompt_len, timed=False).kv_bytes
        need["cpu"] += float(np.max(kv)) / p.pp * node
    for tier, bytes_ in need.items():
        cap = ev.hw.host_capacity(tier)
        if bytes_ and cap is not None and bytes_ > cap:
            where = "host memory" if tier == "cpu" else "NVMe"
            return (
                f"does not fit: what the plan keeps on the {where} needs {bytes_ / 1e9:,.0f} GB per node ({node} "
                f"devices), {ev.hw.id}'s node has {cap / 1e9:,.0f} GB; quantize, shorten the context or use more nodes"
            )
    return ""


def _check_fits(mem: dict[str, float], hw: Hardware, max_b: int) -> None:
    """PlanError naming the memory components when they exceed the usable memory."""
    if mem["total"] <= mem["usable"]:
        return
    gib = GIB
    raise PlanError(
        f"does not fit: {mem['total'] / gib:.1f} GiB per GPU needed (weights {mem['weights'] / gib:.1f}, "
        f"KV {mem['kv_cache'] / gib:.1f}, activations {mem['activations'] / gib:.1f}, reserved "
        f"{mem['reserved'] / gib:.1f}) of {mem['usable'] / gib:.1f} GiB usable on {hw.id}; largest batch that "
        f"fits: {max_b}" + ("" if max_b else "; add GPUs (tp/pp) or quantize weights/KV")
    )


def _plan_notes(spec: Any, hw: Hardware, p: Plan) -> list[str]:
    """Notes on what the figures of a costed plan assume (disaggregation, catalog assumptions,
    experts not dividing over ep)."""
    notes = []
    if p.disaggregated:
        notes.append(
            "disaggregated: metrics are for this pool alone (KV transfer not costed)"
            + ("; decode pool: output tokens/s = batch / TPOT" if p.output_len > 1 else "")
        )
    notes += [n for n in (hw.assumed_note(), _speculation_note(p), _schedule_note(p), _host_note(p)) if n]
    if p.two_batch_overlap:
        notes.append(
            "two-batch overlap: each phase as two half micro-batches, one's expert-parallel dispatch / combine "
            "under the other's compute (the exchange kernels' SMs taken from it)"
            if spec.moe is not None and p.ep > 1
            else "two_batch_overlap has no effect here: it hides expert-parallel exchanges (an MoE model with ep > 1)"
        )
    if p.kv_tier != "hbm":
        notes.append(
            "KV cache on the host: every attention reads its layer's cache over the host link (prefetched under "
            "the previous layer), two layers resident; the prefill's writes to it are not priced"
        )
    if p.weights_tier != "hbm":
        notes.append(
            f"weights streamed from {p.weights_tier} layer by layer (two layers resident per stage), each layer's "
            "transfer prefetched under the previous layer's compute: a step lasts at least its weights over the link"
        )
    if spec.moe is not None and p.ep > 1 and p.ep_imbalance is None:
        notes.append(
            f"expert parallelism: the busiest rank takes {EP_IMBALANCE_EPLB}x the mean routed tokens "
            "(TensorRT-LLM's measured figure with EPLB; plan key ep_imbalance to state yours)"
        )
    if spec.moe is not None and p.ep > 1 and spec.moe.num_experts % p.ep:
        E = spec.moe.num_experts
        notes.append(
            f"ep {p.ep} does not divide {E} experts: the busiest rank holds ceil({E}/{p.ep}) = "
            f"{-(-E // p.ep)} expert slots (redundant experts fill the slack, EPLB; assignments balanced)"
        )
    return notes


def _host_note(p: Plan) -> str:
    """What the serving engine's host time adds (:func:`_engine`), or '' when nothing."""
    if not (p.host_step_s or p.host_seq_s or p.graphs != "all"):
        return p.stack or ""
    how = "overlapped with the GPU step" if p.overlap_scheduler else "added to every engine step"
    eager = {
        "all": "every step graphed",
        "decode": "steps with prefill tokens eager",
        "none": "every step eager",
    }
    head = f"{p.stack}: " if p.stack else ""
    return (
        f"{head}host time {p.host_step_s * 1e3:g} ms per step + {p.host_seq_s * 1e3:g} ms per running sequence, "
        f"{how}; CUDA graphs: {eager[p.graphs]}"
    )


def _schedule_note(p: Plan) -> str:
    """What continuous batching's figures assume, or ''."""
    if p.schedule != "continuous":
        return ""
    return (
        f"continuous batching: steady state at {p.batch} requests in service (no queue); the decoding "
        "requests at the mean context prompt_len + output_len/2; prefill chunks ride in a share of the "
        "steps with the decode tokens (GEMMs on their sum, weights read once)" + _lockstep_note(p)
    )


def _lockstep_note(p: Plan) -> str:
    """What attention-DP ranks in lockstep do to continuous batching's steps, or ''."""
    n = int(np.max(_lockstep(p))) if not p.aligned_prefill else 1
    if n == 1 and not (p.aligned_prefill and p.ep > p.tp):
        return ""
    if p.aligned_prefill:
        return "; the attention-DP ranks prefill in the same steps (aligned_prefill)"
    return (
        f"; {n} attention-DP ranks run each step in lockstep (the MoE exchange), each admitting prompts on its "
        "own: a step carries prefill when any rank's does (plan key aligned_prefill: true for a scheduler that aligns them)"
    )


def _speculation_note(p: Plan) -> str:
    """What a speculative plan's decode figures assume, or ''."""
    s = p.speculative
    if s is None:
        return ""
    from llmcost.inference.plan import MTP_ACCEPTANCE

    n = accepted_per_step(s)
    if s.acceptance_length is not None:
        how = "stated"
    elif s.acceptance_rate is not None:
        how = f"acceptance rate {s.acceptance_rate:g}, Leviathan et al. 2023 eq. 1"
    else:
        how = (
            f"acceptance rate {MTP_ACCEPTANCE:g}, DeepSeek-V3 §5.4.3; state acceptance_length where measured"
        )
    draft = (
        "drafts from prompt lookup (no draft model)"
        if s.method == "ngram"
        else f"{s.tokens} sequential {s.method} draft passes per step"
        + (f" in {s.weights}" if s.weights is not None else "")
    )
    return (
        f"speculative {s.method}: each decode step verifies {s.tokens + 1} tokens per sequence and emits "
        f"{n:.2f} on average ({how}); {draft}; the draft module's pass over the prompt is not costed"
    )


def dominant(ph: PhaseCost) -> str:
    """Kind (and bound) of the operators taking most of the phase's time."""
    by: dict[str, float] = {}
    for o in ph.ops:
        key = "network" if o.kind == "collective" else f"{o.kind}:{np.atleast_1d(o.bound)[0]}"
        by[key] = by.get(key, 0.0) + o.count * float(np.mean(o.time))
    return max(by, key=by.__getitem__) if by else ""
