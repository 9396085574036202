"""Cost of one test-time-scaling query (no sympy): FLOPs, bytes, Kinetics eFLOPs, latency, $ and J.

A query is a prompt of ``prompt_len`` tokens answered by a strategy (Kinetics, Sadhukhan et al.
2025 §3; Snell et al. 2024):

* ``best_of_n`` / ``majority``: ``N`` samples of ``gen_len`` tokens decoded as one batch of N;
  the prompt is prefilled once and its KV cache is shared: each decode step reads it once
  plus each sample's own tokens (cascade / prefix-shared attention). Best-of-N adds the
  verifier's scoring; majority voting costs nothing more.
* ``sequential``: N revision rounds of ``gen_len`` tokens, every round kept in context
  (one chain of N·gen_len tokens, batch 1).
* ``beam``: N live candidates = ``beam_width`` beams x N/beam_width expansions, steps of
  ``beam_step`` tokens; candidates share the prompt and their beam's history.

Per-token primitives (:mod:`llmcost.tts.primitives`: FLOPs per token, attention FLOPs per
(query, key) pair, KV bytes per position, weight bytes per step) are read off the operator
graph's generated inference functions, evaluated on one device (tp = 1) for the per-query
totals; :mod:`llmcost.tts.formulas` (generated :mod:`llmcost.tts._generated`) sums them over the
strategy and composes every figure of a query. Latency runs the same graph through
:class:`llmcost.inference.evaluator.Evaluator` on the given hardware and plan: prefill once,
then every decode step (sampled at :data:`STEP_SAMPLES` midpoints when the generation is longer)
with the shared prompt attended by a separate roofline operator.

Kinetics eFLOPs (Sadhukhan et al. 2025 §3; repo ``cost_model/utils.py``): ``C_comp + I·C_mem`` with
``C_comp`` the decode FLOPs (linear layers + attention, + block selection, + the verifier's
FLOPs) and ``C_mem`` the KV bytes read; weight reads and the generator's prefill are not
counted (Kinetics' large-batch amortisation); ``I``: :func:`llmcost.tts.plan.intensity`.

Sparse attention (Kinetics §5, ``cost_model/utils.py``): attention FLOPs and KV reads drop from
``L_in + t`` to ``min(B, L_in + t)`` positions, the prompt KV is no longer shared (each sample
selects its own positions), the cache stays resident, and block top-k adds one summary-key
score per block (FLOPs ``f_pair/2`` and bytes ``k_pos/2`` per block: a key without its value).

The plan, its parsing and the intensity are :mod:`llmcost.tts.plan` (re-exported here).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from llmcost import rules as R
from llmcost.economics.power import cap_note, draw_note, facility, mean_draw
from llmcost.errors import PlanError
from llmcost.hardware import Hardware
from llmcost.inference import _generated as IF
from llmcost.inference import serve as I
from llmcost.tts import _generated as T
from llmcost.tts.plan import (  # noqa: F401  (re-exported: llmcost.tts.query.X)
    CONTEXT_RULE,
    STRATEGIES,
    Sparse,
    TTSPlan,
    context_len,
    intensity,
    parse_sparse,
    plan_from_dict,
)
from llmcost.tts.primitives import (
    ATTENTION,
    FLOPS,
    HBM,
    GroupPrims,
    Prims,
    prefill_totals,
    primitives,
    quantity_sum,
)
from llmcost.units import GIB

METRICS = ("eflops_per_query", "flops_per_query", "bytes_per_query", "latency_s", "kv_cache_gib")
STEP_SAMPLES = 128
"""Decode steps evaluated per query: midpoints of equal bins when the generation is longer
(step time is piecewise linear in the context, so the midpoint sum is within 0.1%)."""


# ------------------------------------------------------------------------------ totals
def _gen(name: str, **vals: Any) -> Any:
    """Generated function ``name`` of :mod:`llmcost.tts._generated` on the values it takes."""
    fn, names, _ = T.FUNCTIONS[name]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return fn(*(vals[n] for n in names))


def _shared(plan: TTSPlan, g: GroupPrims) -> bool:
    """Prompt KV shared across samples: dense full-attention layers of a batched strategy."""
    return plan.strategy != "sequential" and plan.sparse is None and math.isinf(g.window)


def _cascade(plan: TTSPlan, g: GroupPrims) -> bool:
    """The shared prompt is attended by its own kernel (cascade attention) when several samples
    share it; one sample attends its whole context in one kernel (same bytes and FLOPs)."""
    return _shared(plan, g) and plan.samples > 1


@dataclass(frozen=True)
class Generation:
    """What a query's totals are evaluated at: ``samples`` x ``gen_len`` generated tokens (numbers,
    or arrays that broadcast), the weight bytes of one decode step and the eFLOPs intensity."""

    samples: Any
    gen_len: Any
    w_step: Any
    intensity: float


@dataclass
class GroupSums:
    """Σ over the attention layer groups of what the generation attends, reads and keeps."""

    attn_flops: Any = 0.0
    kv_read: Any = 0.0
    kv_res: Any = 0.0
    sel_flops: Any = 0.0
    sel_read: Any = 0.0


def _strategy_values(plan: TTSPlan, gen: Generation) -> dict[str, Any]:
    """Values of the strategy symbols of :mod:`llmcost.tts.formulas` (beams and beam steps
    bounded by the samples and the generation)."""
    N, L = gen.samples, gen.gen_len
    return {
        "n_samples": N,
        "l_in": float(plan.prompt_len),
        "l_out": L,
        "beam_width": np.minimum(plan.beam_width, N),
        "beam_step": np.minimum(float(plan.beam_step), L),
    }


def _attended(plan: TTSPlan, g: GroupPrims, base: dict[str, Any]) -> tuple[Any, Any, Any]:
    """(query-key pairs attended, KV positions read, KV positions resident) of one layer group."""
    seq = plan.strategy == "sequential"
    sp = plan.sparse
    v = dict(base, budget=min(g.window, float(sp.budget)) if sp else g.window)
    pairs = _gen("pairs__sequential" if seq else "pairs__parallel", **v)
    beam = plan.strategy == "beam"
    if seq:
        reads = _gen("reads__sequential", **v)
    elif _shared(plan, g):
        reads = _gen("reads__beam_shared" if beam else "reads__parallel_shared", **v)
    else:
        reads = _gen("reads__parallel", **v)
    # the cache holds the prompt once whatever the selection; windows bound what stays
    if seq:
        res = _gen("resident__sequential", **dict(v, budget=g.window))
    elif math.isinf(g.window):
        res = _gen("resident__beam_shared" if beam else "resident__parallel_shared", **v)
    else:
        res = _gen("resident__parallel", **dict(v, budget=g.window))
    return pairs, reads, res


def _selection(plan: TTSPlan, base: dict[str, Any]) -> tuple[Any, Any] | None:
    """(summary keys scored, summary keys read) of block top-k selection, per unit of ``f_pair/2``
    and ``k_pos/2``; None without block top-k."""
    sp = plan.sparse
    if sp is None or sp.block <= 1:
        return None
    vb = dict(base, block=float(sp.block))
    if plan.strategy == "sequential":  # one chain: every summary key scored is read
        scored = _gen("select_pairs__sequential", **vb)
        return scored, scored
    return _gen("select_pairs__parallel", **vb), _gen("select_reads__parallel", **vb)


def _group_sums(prims: Prims, plan: TTSPlan, base: dict[str, Any]) -> GroupSums:
    """Attended pairs, read and resident KV positions and the selection, each scaled by its
    group's per-pair / per-position figure and summed over the groups in order."""
    s = GroupSums()
    sel = _selection(plan, base)
    for g in prims.groups:
        pairs, reads, res = _attended(plan, g, base)
        s.attn_flops = s.attn_flops + g.f_pair * pairs
        s.kv_read = s.kv_read + g.k_pos * reads
        s.kv_res = s.kv_res + g.k_pos * res
        if sel is not None:
            s.sel_flops = s.sel_flops + g.f_pair / 2 * sel[0]
            s.sel_read = s.sel_read + g.k_pos / 2 * sel[1]
    return s


def query_totals(prims: Prims, plan: TTSPlan, gen: Generation) -> dict[str, Any]:
    """Per-query totals of the generator (arrays over N and L broadcast): FLOPs, bytes, eFLOPs."""
    seq = plan.strategy == "sequential"
    N, L = gen.samples, gen.gen_len
    s = _group_sums(prims, plan, _strategy_values(plan, gen))
    linear = _gen("linear_flops", f_tok=prims.f_tok, l_out=L, n_samples=N)
    comp = T.decode_flops(fl_linear=linear, fl_attn=s.attn_flops, fl_select=s.sel_flops)
    mem = T.kv_read_bytes(by_kv=s.kv_read, by_select=s.sel_read)
    weights = "weight_bytes__sequential" if seq else "weight_bytes__parallel"
    return {
        "linear_flops": linear,
        "attention_flops": T.attention_flops(fl_attn=s.attn_flops, fl_select=s.sel_flops),
        "decode_flops": comp,
        "kv_read_bytes": mem,
        "kv_resident_bytes": s.kv_res,
        "weight_bytes": _gen(weights, l_out=L, n_samples=N, w_step=gen.w_step),
        "activation_bytes": T.activation_bytes(a_tok=prims.a_tok, l_out=L, n_samples=N),
        "steps": _gen("steps__sequential" if seq else "steps__parallel", l_out=L, n_samples=N),
        "tokens": _gen("tokens", l_out=L, n_samples=N),
        "eflops": T.eflops(c_comp=comp, c_mem=mem, intensity=gen.intensity),
    }


# ------------------------------------------------------------------------------ latency
def _step_points(total: int) -> tuple[np.ndarray, float]:
    """Step indices (1-based, float) evaluated and the weight of each."""
    if total <= STEP_SAMPLES:
        return np.arange(1, total + 1, dtype=float), 1.0
    return (np.arange(STEP_SAMPLES) + 0.5) * total / STEP_SAMPLES + 0.5, total / STEP_SAMPLES


def _attn_roofline(ev: I.Evaluator, flops: Any, hbm: Any) -> Any:
    """Roofline time of an attention kernel of ``flops`` and ``hbm`` bytes on ``ev``'s device."""
    from llmcost.kernels.roofline import T_KERNEL, roofline

    return roofline(
        flops,
        hbm,
        ev.peak_attn,
        ev.hw.memory_bandwidth,
        eta_c=ev.eta_attn,
        eta_m=ev.hw.memory_efficiency,
        t_launch=T_KERNEL,
    ).time


@dataclass(frozen=True)
class Steps:
    """The decode steps evaluated: indices ``t``, the sequences decoded together, the prompt
    length, and per step the context of the sequence's own tokens and of the shared prefix it
    attends and reads."""

    t: np.ndarray
    batch: float
    prompt: float
    own: Any
    prefix_attended: Any
    prefix_read: Any


def _steps(plan: TTSPlan, t: np.ndarray) -> Steps:
    """Contexts of decode steps ``t`` (beam search: :func:`llmcost.tts.formulas.beam_own_ctx` and
    the prefix formulas; otherwise the whole generation is the sample's own, after the prompt)."""
    N, L, Li = plan.samples, plan.gen_len, float(plan.prompt_len)
    batch = 1.0 if plan.strategy == "sequential" else float(N)
    if plan.strategy != "beam":
        return Steps(t=t, batch=batch, prompt=Li, own=t, prefix_attended=Li, prefix_read=Li)
    v = {
        "step": t,
        "l_in": Li,
        "beam_step": float(min(plan.beam_step, L)),
        "beam_width": float(min(plan.beam_width, N)),
    }
    return Steps(
        t=t,
        batch=batch,
        prompt=Li,
        own=_gen("beam__own_ctx", **v),
        prefix_attended=_gen("beam__prefix_attended", **v),
        prefix_read=_gen("beam__prefix_read", **v),
    )


def _decode_groups(ctx: Context, plan: TTSPlan) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
    """Decode layer groups whose shared prompt has its own kernel (cascade), and the others
    (with sparse attention: their window bounded by the top-k budget)."""
    from llmcost.graph.ops import GroupInfo, layer_groups

    sp = plan.sparse
    by_name = {g.name: g for g in ctx.prims.groups}
    shared, own = [], []
    for g in layer_groups(ctx.spec, "decode"):
        if _cascade(plan, by_name[g.name]):
            shared.append(("decode", g))
        else:
            w = g.window if sp is None else min(g.window or sp.budget, sp.budget)
            own.append(("decode", GroupInfo(g.name, g.shape, g.count, w)))
    return shared, own


def _shared_terms(ev: I.Evaluator, shared: list[tuple[str, Any]], steps: Steps) -> list[Any]:
    """Step time of the cascade groups: their layers on the samples' own tokens, then per group
    the shared prompt (and beam history) attended by one kernel for the whole batch."""
    ph = ev.phase(shared, "io__decode__last", micro_batch=steps.batch, ctx=steps.own)
    terms = [ph.time]
    if steps.prompt > 0:
        for _, g in shared:
            work = {"kinds": ATTENTION, "micro_batch": 1.0}
            fl = quantity_sum(g.shape, ev.vals, math.inf, FLOPS, ctx=steps.prefix_attended, **work)
            hb = quantity_sum(g.shape, ev.vals, math.inf, HBM, ctx=steps.prefix_read, **work)
            terms.append(g.count * _attn_roofline(ev, steps.batch * fl, hb))
    return terms


def _own_term(ev: I.Evaluator, own: list[tuple[str, Any]], steps: Steps, cascade: bool) -> Any:
    """Step time of the other groups at their whole context (the io operators counted once: with
    cascade groups they are in :func:`_shared_terms`)."""
    ph = ev.phase(own, "io__decode__last", micro_batch=steps.batch, ctx=steps.prompt + steps.t)
    return sum(o.count * o.time for o in ph.ops if not (cascade and o.group == "io"))


def _selection_term(ctx: Context, plan: TTSPlan, steps: Steps) -> Any:
    """Block top-k selection of each step on one device, one attention-like roofline kernel
    (:func:`llmcost.tts.formulas.select_step_flops` / ``select_step_bytes``)."""
    v = {
        "step": steps.t,
        "l_in": steps.prompt,
        "n_seqs": steps.batch,
        "block": plan.sparse.block,
        "f_pair_dev": sum(g.f_pair_dev for g in ctx.prims.groups),
        "k_pos_dev": sum(g.k_pos_dev for g in ctx.prims.groups),
    }
    return _attn_roofline(ctx.ev, _gen("select_step_flops", **v), _gen("select_step_bytes", **v))


def decode_time(ctx: Context, plan: TTSPlan) -> tuple[float, float]:
    """(total decode time, mean step time) of the generation on the plan's devices."""
    seq = plan.strategy == "sequential"
    t, wgt = _step_points(plan.samples * plan.gen_len if seq else plan.gen_len)
    steps = _steps(plan, t)
    shared, own = _decode_groups(ctx, plan)
    terms = _shared_terms(ctx.ev, shared, steps) if shared else []
    if own:
        terms.append(_own_term(ctx.ev, own, steps, bool(shared)))
    if plan.sparse is not None and plan.sparse.block > 1:
        terms.append(_selection_term(ctx, plan, steps))
    time: Any = 0.0
    for term in terms:  # one running sum, term by term: the order fixes the floating-point result
        time = time + term
    arr = np.broadcast_to(np.asarray(time, dtype=float), t.shape)
    total = np.sum(arr)  # np.mean's own sum: the mean below is bit for bit np.mean
    return float(T.decode_time(step_weight=wgt, lat_steps=total)), float(
        IF.tpot(t_steps=total, n_steps=arr.size)
    )


# ------------------------------------------------------------------------------ result
@dataclass
class TTSResult:
    """Costs of one query (validation README tts metric names in :meth:`metrics`)."""

    model: str
    hardware: str
    plan: TTSPlan
    devices: int
    totals: dict[str, float]
    prefill: tuple[float, float]
    verifier: dict[str, float] | None
    intensity: float
    intensity_note: str
    latency: dict[str, float]
    memory: dict[str, float]
    price_per_hour: float | None
    tdp: float
    prims: Prims
    notes: list[str] = field(default_factory=list)
    draw: float | None = None
    """Mean draw per device over the query (:func:`query_draw`); None: the TDP."""

    def _verifier(self, key: str) -> float:
        return self.verifier[key] if self.verifier else 0.0

    @property
    def flops(self) -> float:
        """Prefill + generation + verifier FLOPs (:func:`llmcost.tts.formulas.query_flops`)."""
        c_comp = self.totals["decode_flops"]
        return T.query_flops(fl_prefill=self.prefill[0], c_comp=c_comp, fl_verifier=self._verifier("flops"))

    @property
    def bytes(self) -> float:
        """HBM bytes of the query (:func:`llmcost.tts.formulas.query_bytes`)."""
        t = self.totals
        return T.query_bytes(
            by_prefill=self.prefill[1],
            by_weights=t["weight_bytes"],
            by_act=t["activation_bytes"],
            c_mem=t["kv_read_bytes"],
            by_verifier=self._verifier("bytes"),
        )

    @property
    def eflops(self) -> float:
        """Kinetics eFLOPs of the query (:func:`llmcost.tts.formulas.query_eflops`)."""
        t = self.totals
        return T.query_eflops(
            c_comp=t["decode_flops"],
            c_mem=t["kv_read_bytes"],
            intensity=self.intensity,
            fl_verifier=self._verifier("flops"),
        )

    def metrics(self) -> dict[str, Any]:
        """Metric values keyed by the validation README names (plus $ and J)."""
        lat = self.latency["total"]
        price = self.price_per_hour
        usd = float(T.usd(devices=self.devices, latency=lat, usd_hour=price)) if price else None
        return {
            "eflops_per_query": self.eflops,
            "flops_per_query": self.flops,
            "bytes_per_query": self.bytes,
            "latency_s": lat,
            "kv_cache_gib": self.totals["kv_resident_bytes"] / GIB,
            "usd_per_query": usd,
            "joules_per_query": float(
                facility(
                    T.energy(
                        devices=self.devices, latency=lat, tdp_w=self.tdp if self.draw is None else self.draw
                    ),
                    self.plan.infer.pue,
                )
            ),
            "generated_tokens": self.totals["tokens"],
        }


def _evaluators(spec: Any, hw: Hardware, plan: TTSPlan) -> tuple[I.Evaluator, I.Evaluator]:
    """Evaluators of the query's serving plan on one device (tp = 1) and on the plan's devices."""
    if spec.is_encoder_decoder:
        raise PlanError(
            f"test-time scaling is modelled for decoder-only models; {spec.name} is encoder-decoder"
        )
    ip = replace(plan.infer, batch=1, prompt_len=max(1, plan.prompt_len), output_len=plan.gen_len)
    one = replace(ip, tp=1, ep=1, gpus=None)
    return I.Evaluator(spec, hw, one), I.Evaluator(spec, hw, ip)


def _forward(ev: I.Evaluator, batch: float, length: float) -> I.PhaseCost:
    """A prefill of ``batch`` sequences of ``length`` tokens on ``ev``'s devices."""
    from llmcost.graph.ops import layer_groups

    return ev.phase(
        [("forward", g) for g in layer_groups(ev.spec, "forward")],
        "io__forward__last",
        micro_batch=batch,
        seq=length,
        ctx=length,
    )


def _verifier(hw: Hardware, plan: TTSPlan) -> dict[str, float]:
    """Reward-model scoring as a prefill (an outcome reward model reads, never generates: prefill
    only) [derived]: each of the N samples' ``L_in + L_out`` tokens (beam: each candidate's chain,
    scored step by step with its KV kept, the same tokens); sequential: one pass over the
    ``L_in + N·L_out`` chain."""
    spec = I.spec_of(plan.verifier)
    ev1, ev = _evaluators(spec, hw, plan)
    N, L = plan.samples, plan.gen_len
    n_seq, length = (
        (1.0, plan.prompt_len + N * L) if plan.strategy == "sequential" else (float(N), plan.prompt_len + L)
    )
    fl, by = prefill_totals(spec, ev1.vals, n_seq, float(length))
    ph = _forward(ev, n_seq, float(length))
    return {"flops": fl, "bytes": by, "time": float(ph.time), "name": spec.name}  # type: ignore[dict-item]


@dataclass
class Context:
    """What one (model, hardware, serving plan) fixes: spec, evaluators, primitives."""

    spec: Any
    ev1: I.Evaluator
    ev: I.Evaluator
    prims: Prims


def prepare(model: str | dict[str, Any], hw: Hardware, plan: TTSPlan) -> Context:
    """Evaluators (tp = 1 and the plan's) and the graph primitives of ``model``."""
    spec = I.spec_of(model)
    if CONTEXT_RULE.broken(spec, plan):
        raise PlanError(CONTEXT_RULE.message(spec, plan))
    ev1, ev = _evaluators(spec, hw, plan)
    return Context(spec, ev1, ev, primitives(spec, ev1, ev))


def choose(ctx: Context, plan: TTSPlan, I_: float) -> tuple[TTSPlan, dict[str, float], str | None]:
    """Totals of ``plan``; with sparse attention that would cost more eFLOPs than dense (budget
    near the context, block-selection overhead, lost prompt sharing) the dense plan is used."""
    N, L = float(plan.samples), float(plan.gen_len)
    batch = 1.0 if plan.strategy == "sequential" else N
    gen = Generation(N, L, float(ctx.prims.w_step(ctx.spec, batch)), I_)
    tot = {k: float(v) for k, v in query_totals(ctx.prims, plan, gen).items()}
    if plan.sparse is None:
        return plan, tot, None
    dense = replace(plan, sparse=None)
    td = {k: float(v) for k, v in query_totals(ctx.prims, dense, gen).items()}
    if td["eflops"] <= tot["eflops"]:
        return (
            dense,
            td,
            f"sparse attention ({plan.sparse.describe()}) would cost more than dense here: dense used",
        )
    return plan, tot, None


def _memory(ctx: Context, pre: I.PhaseCost, kv_resident: float) -> dict[str, Any]:
    """Memory per device: weights, resident KV (the shared prompt counted once,
    :func:`llmcost.tts.formulas.kv_device`), workspace, reserved; PlanError when it does not fit."""
    mem = I.device_memory(ctx.ev, 1.0, pre)
    groups = ctx.prims.groups
    kv_dev = T.kv_device(
        kv_resident=kv_resident,
        k_pos_dev=sum(g.k_pos_dev for g in groups),
        k_pos_all=max(1e-30, sum(g.k_pos for g in groups)),
    )
    mem["kv_cache"] = kv_dev
    mem["total"] = IF.memory__total(
        m_weights=mem["weights"], m_kv=kv_dev, m_act=mem["activations"], m_reserved=mem["reserved"]
    )
    if mem["total"] > mem["usable"]:
        raise PlanError(
            f"does not fit: {mem['total'] / GIB:.1f} GiB per GPU needed (weights {mem['weights'] / GIB:.1f}, "
            f"KV {kv_dev / GIB:.1f}) of {mem['usable'] / GIB:.1f} GiB usable on {ctx.ev.hw.id}; "
            "raise --tp, quantize the KV cache, or use fewer samples / shorter generations"
        )
    return mem


def _latency(
    ctx: Context, plan: TTSPlan, pre: I.PhaseCost
) -> tuple[dict[str, float], dict[str, float] | None]:
    """Prefill, decode (and mean step), verifier and total latency; the verifier's costs."""
    t_pre = float(pre.time) if plan.prompt_len > 0 else 0.0
    t_dec, tpot = decode_time(ctx, plan)
    ver = _verifier(ctx.ev.hw, plan) if plan.verifier else None
    t_ver = ver["time"] if ver else 0.0
    total = T.latency_total(lat_prefill=t_pre, lat_decode=t_dec, lat_verifier=t_ver)
    return {"prefill": t_pre, "decode": t_dec, "tpot": tpot, "verifier": t_ver, "total": total}, ver


def query_draw(hw: Hardware, latency: dict[str, float]) -> float:
    """Mean draw per device over a query (:func:`llmcost.economics.power.mean_draw`): the prefill and
    the verifier's scoring (prefills) at the compute-bound draw, the generation at the memory-bound
    draw (decode of the N samples streams the weights and KV cache: memory-bound below the ridge)."""
    times = {"compute": latency["prefill"] + latency["verifier"], "memory": latency["decode"]}
    return float(mean_draw(times, hw))


def cost(model: str | dict[str, Any], hw: Hardware, plan: TTSPlan, ctx: Context | None = None) -> TTSResult:
    """Cost one query; PlanError when it does not divide or does not fit."""
    plan.check()
    ctx = ctx or prepare(model, hw, plan)
    spec = ctx.spec
    if CONTEXT_RULE.broken(spec, plan):
        raise PlanError(CONTEXT_RULE.message(spec, plan))
    I_, note = intensity(hw, plan.intensity, ctx.ev.math[0])
    used, totals, why = choose(ctx, plan, I_)
    notes = [n for n in (why, R.context_note(spec, context_len(plan))) if n]
    pre = _forward(ctx.ev, 1.0, float(max(1, used.prompt_len)))
    mem = _memory(ctx, pre, totals["kv_resident_bytes"])
    latency, ver = _latency(ctx, used, pre)
    if used.strategy == "majority" and ver:
        notes.append("majority with a verifier: verifier-weighted voting, scoring every sample")
    return TTSResult(
        model=spec.name,
        hardware=hw.id,
        plan=plan,
        devices=used.infer.devices,
        totals=totals,
        prefill=prefill_totals(spec, ctx.ev1.vals, 1.0, float(used.prompt_len)),
        verifier=ver,
        intensity=I_,
        intensity_note=note,
        latency=latency,
        memory=mem,
        price_per_hour=hw.price_per_hour,
        tdp=ctx.ev.hw.tdp,
        prims=ctx.prims,
        notes=notes + _power_notes(hw, ctx.ev.hw, plan),
        draw=query_draw(ctx.ev.hw, latency),
    )


def _power_notes(base: Hardware, hw: Hardware, plan: TTSPlan) -> list[str]:
    """The power cap's effect and what the energy is drawn at (``base``: the device uncapped)."""
    cap = plan.infer.power_cap
    pue = plan.infer.pue
    out = [n for n in (cap_note(base, cap),) if n]
    out.append(draw_note(hw) + ": prefill and verifier compute-bound, generation memory-bound")
    if pue != 1.0:
        out.append(f"energy is facility energy at PUE {pue:g}")
    return out
