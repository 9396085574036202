"""Cost of one test-time-scaling query (no sympy): FLOPs, bytes, Kinetics eFLOPs, latency, $ and J.

A query is a prompt of ``prompt_len`` tokens answered by a strategy (Kinetics, Sadhukhan et al. 2025 §3; Snell et al. 2024):

* ``best_of_n`` / ``majority``: ``N`` samples of ``gen_len`` tokens decoded as one batch of N;
  the prompt is prefilled once and its KV cache is shared: each decode step reads it once
  plus each sample's own tokens (cascade / prefix-shared attention). Best-of-N adds the
  verifier's scoring; majority voting costs nothing more.
* ``sequential``: N revision rounds of ``gen_len`` tokens, every round kept in context
  (one chain of N·gen_len tokens, batch 1).
* ``beam``: N live candidates = ``beam_width`` beams x N/beam_width expansions, steps of
  ``beam_step`` tokens; candidates share the prompt and their beam's history.

Per-token primitives (FLOPs per token, attention FLOPs per (query, key) pair, KV bytes per
position, weight bytes per step) are read off the operator graph's generated inference
functions (:mod:`llmcost.graph.ops`), evaluated on one device (tp = 1) for the per-query totals;
:mod:`.tts_formulas` (generated :mod:`._tts_generated`) sums them over the strategy. Latency
runs the same graph through :class:`llmcost.inference.serve.Evaluator` on the given hardware
and plan: prefill once, then every decode step (sampled at :data:`STEP_SAMPLES` midpoints when
the generation is longer) with the shared prompt attended by a separate roofline operator.

Kinetics eFLOPs (Sadhukhan et al. 2025 §3; repo ``cost_model/utils.py``): ``C_comp + I·C_mem`` with
``C_comp`` the decode FLOPs (linear layers + attention, + block selection, + the verifier's
FLOPs) and ``C_mem`` the KV bytes read; weight reads and the generator's prefill are not
counted (Kinetics' large-batch amortisation). ``I`` (:func:`intensity`): ``kinetics`` = the
device's dense FP8 peak ÷ HBM bandwidth (bf16 when it has no FP8) — on ``b200`` 4.5e15 / 8e12
= 562.5, Kinetics' ``E_flops``; ``plan`` = the peak at the plan's GEMM precision ÷ HBM
bandwidth (the ridge point of the latency model); or a number.

Sparse attention (Kinetics §5, ``cost_model/utils.py``): top-k keeps ``B = local + block·topk``
KV positions per query per step (``block = 1``: token top-k with zero selection overhead);
attention FLOPs and KV reads drop from ``L_in + t`` to ``min(B, L_in + t)`` positions, the
prompt KV is no longer shared (each sample selects its own positions), the cache stays
resident, and block top-k adds one summary-key score per block (FLOPs ``f_pair/2`` and bytes
``k_pos/2`` per block: a key without its value).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from llmcost import checks
from llmcost import rules as R
from llmcost.errors import PlanError, UserError
from llmcost.hardware import Hardware
from llmcost.inference import serve as I
from llmcost.inference.evaluator import shape_function
from llmcost.units import GIB

STRATEGIES = ("best_of_n", "majority", "sequential", "beam")
METRICS = ("eflops_per_query", "flops_per_query", "bytes_per_query", "latency_s", "kv_cache_gib")
STEP_SAMPLES = 128
"""Decode steps evaluated per query: midpoints of equal bins when the generation is longer
(step time is piecewise linear in the context, so the midpoint sum is within 0.1%)."""


@dataclass(frozen=True)
class Sparse:
    """Kinetics top-k sparse attention: ``local`` recent positions + ``topk`` blocks of ``block``."""

    topk: int
    block: int = 1
    local: int = 0

    @property
    def budget(self) -> int:
        return self.local + self.block * self.topk

    def describe(self) -> str:
        kind = "token top-k" if self.block == 1 else f"block top-k (block {self.block})"
        return f"{kind}, budget {self.budget} positions (local {self.local} + {self.block} x {self.topk})"


def parse_sparse(value: str | dict[str, Any] | None) -> Sparse | None:
    """``topk=K[,block=B][,local=W]`` (or the same mapping) -> :class:`Sparse`."""
    if value is None or value == "" or value == {}:
        return None
    if isinstance(value, str):
        items: dict[str, Any] = {}
        for part in value.split(","):
            k, sep, v = part.partition("=")
            if not sep:
                raise UserError(f"--sparse-attention: expected key=value items like topk=256, got '{part}'")
            items[k.strip()] = v.strip()
    elif isinstance(value, dict):
        items = dict(value)
    else:
        raise UserError("sparse_attention: expected a mapping {topk, block, local}")
    aliases = {"block_size": "block", "block_topk": "topk", "budget": "topk"}
    kw: dict[str, int] = {}
    for k, v in items.items():
        key = aliases.get(str(k), str(k))
        if key not in ("topk", "block", "local"):
            raise UserError(f"sparse attention key '{k}': use topk, block and local")
        try:
            n = int(v)
        except (TypeError, ValueError, OverflowError):
            raise UserError(f"sparse attention {k}: expected an integer, got {v!r}") from None
        if n < (0 if key == "local" else 1):
            raise UserError(f"sparse attention {k}: must be positive, got {n}")
        kw[key] = n
    if "topk" not in kw:
        raise UserError("sparse attention needs topk=K (positions, or blocks with block=B)")
    return Sparse(**kw)


@dataclass(frozen=True)
class TTSPlan:
    """A test-time-scaling query: strategy, samples, lengths, verifier, sparsity, serving plan."""

    strategy: str = "best_of_n"
    samples: int = 1
    prompt_len: int = 100
    gen_len: int = 1024
    beam_width: int = 4
    beam_step: int = 256
    verifier: str | dict[str, Any] | None = None
    sparse: Sparse | None = None
    intensity: str | float = "kinetics"
    infer: I.Plan = field(default_factory=I.Plan)

    def check(self) -> None:
        if self.strategy not in STRATEGIES:
            from llmcost.errors import did_you_mean

            raise UserError(
                f"strategy '{self.strategy}' is not a strategy{did_you_mean(self.strategy, STRATEGIES)}"
            )
        for key in ("samples", "gen_len", "beam_width", "beam_step"):
            v = getattr(self, key)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise UserError(f"{key.replace('_', '-')}: expected an integer >= 1, got {v!r}")
        if not isinstance(self.prompt_len, int) or self.prompt_len < 0:
            raise UserError(f"prompt-len: expected an integer >= 0, got {self.prompt_len!r}")
        p = self.infer
        if p.pp > 1 or p.dp > 1 or p.cp > 1:
            raise PlanError(
                "tts models one query on tp (x ep) devices; pipeline, data and context parallelism "
                "are not modelled (use --tp)"
            )


def context_len(plan: TTSPlan) -> int:
    """Tokens of one query's longest context: the prompt and one generation (sequential: all
    ``samples`` rounds in one context)."""
    n = plan.samples if plan.strategy == "sequential" else 1
    return plan.prompt_len + n * plan.gen_len


CONTEXT_RULE = R.context_rule(context_len, "context (prompt + generated tokens)", ("prompt_len", "gen_len"))
"""The context-length rule of training and inference (:func:`llmcost.rules.context_rule`) on
a query's context: :func:`cost` raises it, ``search tts`` rejects the plans breaking it."""


def plan_from_dict(tts: dict[str, Any], plan: dict[str, Any] | None = None) -> TTSPlan:
    """A :class:`TTSPlan` from the validation README ``tts`` keys (+ optional infer plan keys)."""
    if not isinstance(tts, dict):
        raise UserError("tts: expected a mapping {strategy, samples, prompt_len, gen_len, sparse_attention}")
    known = (
        "strategy",
        "samples",
        "prompt_len",
        "gen_len",
        "sparse_attention",
        "verifier",
        "beam_width",
        "beam_step",
        "intensity",
    )
    for k in tts:
        if k not in known:
            from llmcost.errors import did_you_mean

            raise UserError(f"tts key '{k}' is not a tts key{did_you_mean(str(k), known)}")
    kw: dict[str, Any] = {
        k: tts[k]
        for k in (
            "strategy",
            "samples",
            "prompt_len",
            "gen_len",
            "verifier",
            "beam_width",
            "beam_step",
            "intensity",
        )
        if tts.get(k) is not None
    }
    kw["sparse"] = parse_sparse(tts.get("sparse_attention"))
    base = {k: v for k, v in (plan or {}).items() if k not in ("batch", "prompt_len", "output_len")}
    kw["infer"] = I.plan_from_dict(base)
    out = TTSPlan(**kw)
    out.check()
    return out


def intensity(hw: Hardware, mode: str | float, gemm_math: str = "bf16") -> tuple[float, str]:
    """FLOPs charged per byte for eFLOPs, and how it was chosen (module docstring)."""
    if isinstance(mode, (int, float)) and not isinstance(mode, bool):
        return checks.positive_finite(mode, "intensity (FLOPs per byte)"), "given"
    text = str(mode)
    try:
        number = float(text)
    except ValueError:  # a named mode, below
        number = None
    if number is not None:
        return intensity(hw, number)[0], "given"
    if text == "kinetics":
        dtype = "fp8" if "fp8" in hw.peak else "bf16"
    elif text == "plan":
        dtype = gemm_math
    else:
        raise UserError(f"intensity '{text}': use kinetics, plan or a number of FLOPs per byte")
    peak = hw.peak_flops(dtype)
    return peak / hw.memory_bandwidth, f"{dtype} dense peak / HBM bandwidth ({text})"


# ------------------------------------------------------------------------------ primitives
@dataclass(frozen=True)
class GroupPrims:
    """One attention layer group: its count, window, and per-position figures (all its layers)."""

    name: str
    shape: str
    count: int
    window: float
    f_pair: float  # attention FLOPs per (query, key) pair, whole model (tp = 1)
    k_pos: float  # KV bytes per position, whole model
    f_pair_dev: float  # the same per device at the plan's tp
    k_pos_dev: float


def _run(
    shape: str, vals: dict[str, Any], window: float, **workload: Any
) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    fn, names, layout = shape_function(shape)
    v = dict(vals, window=window, **workload)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return fn(*(v[n] for n in names)), layout


def _sum(
    shape: str,
    vals: dict[str, Any],
    window: float,
    q: int,
    kinds: tuple[str, ...] | None = None,
    **workload: Any,
) -> Any:
    """Σ over the operators of one layer/io shape of quantity index ``q`` (0 flops, 1 hbm bytes)."""
    out, layout = _run(shape, vals, window, **workload)
    return sum(
        out[5 * i + q]
        for i, op in enumerate(layout)
        if op[1] != "collective" and (kinds is None or op[1] in kinds)
    )


@dataclass
class Prims:
    """Per-token primitives of a model read off the graph (tp = 1 unless ``_dev``)."""

    groups: list[GroupPrims]
    f_tok: float
    a_tok: float
    vals1: dict[str, Any]

    def w_step(self, spec: Any, batch: Any) -> Any:
        """Weight bytes one decode step of ``batch`` sequences reads (MoE: touched experts)."""
        from llmcost.graph.ops import layer_groups

        total: Any = 0.0
        zero = dict(self.vals1, b_w=0.0)
        for g in layer_groups(spec, "decode"):
            w = _window(g.window)
            total = total + g.count * (
                _sum(g.shape, self.vals1, w, 1, micro_batch=batch, ctx=0.0)
                - _sum(g.shape, zero, w, 1, micro_batch=batch, ctx=0.0)
            )
        io = _sum("io__decode__last", self.vals1, math.inf, 1, micro_batch=batch, ctx=0.0)
        return total + io - _sum("io__decode__last", zero, math.inf, 1, micro_batch=batch, ctx=0.0)


def _window(w: int | None) -> float:
    return math.inf if w is None else float(w)


def primitives(spec: Any, ev1: I.Evaluator, ev: I.Evaluator) -> Prims:
    """Read the per-token figures off the generated decode functions (``ev1``: tp = 1)."""
    from llmcost.graph.ops import layer_groups

    groups, f_tok, a_tok = [], 0.0, 0.0
    v1, vd = ev1.vals, ev.vals
    zero = dict(v1, b_w=0.0)
    for g in layer_groups(spec, "decode"):
        w = _window(g.window)
        f0 = _sum(g.shape, v1, math.inf, 0, ("attention",), micro_batch=1.0, ctx=0.0)
        f1 = _sum(g.shape, v1, math.inf, 0, ("attention",), micro_batch=1.0, ctx=1.0)
        fd0 = _sum(g.shape, vd, math.inf, 0, ("attention",), micro_batch=1.0, ctx=0.0)
        fd1 = _sum(g.shape, vd, math.inf, 0, ("attention",), micro_batch=1.0, ctx=1.0)
        kv1 = _run(g.shape, v1, math.inf, micro_batch=1.0, ctx=1.0)[0][-1]
        kvd = _run(g.shape, vd, math.inf, micro_batch=1.0, ctx=1.0)[0][-1]
        groups.append(
            GroupPrims(
                g.name,
                g.shape,
                g.count,
                w,
                g.count * float(f1 - f0),
                g.count * float(kv1),
                g.count * float(fd1 - fd0),
                g.count * float(kvd),
            )
        )
        f_tok += g.count * float(_sum(g.shape, v1, w, 0, micro_batch=1.0, ctx=0.0))
        a_tok += g.count * float(_sum(g.shape, zero, w, 1, micro_batch=1.0, ctx=0.0))
    f_tok += float(_sum("io__decode__last", v1, math.inf, 0, micro_batch=1.0, ctx=0.0))
    a_tok += float(_sum("io__decode__last", zero, math.inf, 1, micro_batch=1.0, ctx=0.0))
    return Prims(groups, f_tok, a_tok, v1)


def _prefill_totals(spec: Any, vals: dict[str, Any], batch: float, seq: float) -> tuple[float, float]:
    """(FLOPs, HBM bytes) of a prefill of ``batch`` x ``seq`` tokens on one device (graph)."""
    from llmcost.graph.ops import layer_groups

    if seq <= 0:
        return 0.0, 0.0
    fl = by = 0.0
    work = {"micro_batch": batch, "seq": seq, "ctx": seq}
    for g in layer_groups(spec, "forward"):
        fl += g.count * float(_sum(g.shape, vals, _window(g.window), 0, **work))
        by += g.count * float(_sum(g.shape, vals, _window(g.window), 1, **work))
    fl += float(_sum("io__forward__last", vals, math.inf, 0, **work))
    by += float(_sum("io__forward__last", vals, math.inf, 1, **work))
    return fl, by


# ------------------------------------------------------------------------------ totals
def _gen(name: str, **vals: Any) -> Any:
    from llmcost.tts import _generated as T

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


def query_totals(prims: Prims, plan: TTSPlan, N: Any, L: Any, w_step: Any, I_: float) -> dict[str, Any]:
    """Per-query totals of the generator (arrays over N and L broadcast): FLOPs, bytes, eFLOPs."""
    seq = plan.strategy == "sequential"
    base = {
        "n_samples": N,
        "l_in": float(plan.prompt_len),
        "l_out": L,
        "beam_width": np.minimum(plan.beam_width, N),
        "beam_step": np.minimum(float(plan.beam_step), L),
    }
    sp = plan.sparse
    attn_flops: Any = 0.0
    kv_read: Any = 0.0
    kv_res: Any = 0.0
    sel_flops: Any = 0.0
    sel_read: Any = 0.0
    for g in prims.groups:
        budget = min(g.window, float(sp.budget)) if sp else g.window
        v = dict(base, budget=budget)
        pairs = _gen("pairs__sequential" if seq else "pairs__parallel", **v)
        kind = "beam_shared" if plan.strategy == "beam" else "parallel_shared"
        if seq:
            reads = _gen("reads__sequential", **v)
        elif _shared(plan, g):
            reads = _gen(f"reads__{kind}", **v)
        else:
            reads = _gen("reads__parallel", **v)
        # the cache holds the prompt once whatever the selection; windows bound what stays
        if seq:
            res = _gen("resident__sequential", **dict(v, budget=g.window))
        elif math.isinf(g.window):
            res = _gen(f"resident__{kind}", **v)
        else:
            res = _gen("resident__parallel", **dict(v, budget=g.window))
        attn_flops = attn_flops + g.f_pair * pairs
        kv_read = kv_read + g.k_pos * reads
        kv_res = kv_res + g.k_pos * res
        if sp is not None and sp.block > 1:
            vb = dict(base, block=float(sp.block))
            sel_flops = sel_flops + g.f_pair / 2 * _gen(
                "select_pairs__sequential" if seq else "select_pairs__parallel", **vb
            )
            sel_read = sel_read + g.k_pos / 2 * (
                _gen("select_pairs__sequential", **vb) if seq else _gen("select_reads__parallel", **vb)
            )
    linear = _gen("linear_flops", f_tok=prims.f_tok, l_out=L, n_samples=N)
    steps = _gen("steps__sequential" if seq else "steps__parallel", l_out=L, n_samples=N)
    tokens = _gen("tokens", l_out=L, n_samples=N)
    comp = linear + attn_flops + sel_flops
    mem = kv_read + sel_read
    return {
        "linear_flops": linear,
        "attention_flops": attn_flops + sel_flops,
        "decode_flops": comp,
        "kv_read_bytes": mem,
        "kv_resident_bytes": kv_res,
        "weight_bytes": steps * w_step,
        "activation_bytes": tokens * prims.a_tok,
        "steps": steps,
        "tokens": tokens,
        "eflops": _gen("eflops", c_comp=comp, c_mem=mem, intensity=I_),
    }


# ------------------------------------------------------------------------------ latency
def _step_points(total: int) -> tuple[np.ndarray, float]:
    """Step indices (1-based, float) evaluated and the weight of each."""
    if total <= STEP_SAMPLES:
        return np.arange(1, total + 1, dtype=float), 1.0
    return (np.arange(STEP_SAMPLES) + 0.5) * total / STEP_SAMPLES + 0.5, total / STEP_SAMPLES


def _attn_roofline(ev: I.Evaluator, flops: Any, hbm: Any) -> Any:
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


def decode_time(ev: I.Evaluator, prims: Prims, plan: TTSPlan, N: int, L: int) -> tuple[float, float]:
    """(total decode time, mean step time) of the generation on the plan's devices."""
    from llmcost.graph.ops import GroupInfo, layer_groups

    seq = plan.strategy == "sequential"
    steps = N * L if seq else L
    t, wgt = _step_points(steps)
    batch = 1.0 if seq else float(N)
    sp = plan.sparse
    Li = float(plan.prompt_len)
    by_name = {g.name: g for g in prims.groups}
    shared, own = [], []
    for g in layer_groups(ev.spec, "decode"):
        gp = by_name[g.name]
        if _cascade(plan, gp):
            shared.append(("decode", g))
        else:
            w = g.window if sp is None else min(g.window or sp.budget, sp.budget)
            own.append(("decode", GroupInfo(g.name, g.shape, g.count, w)))
    time: Any = 0.0
    if plan.strategy == "beam":
        ell = float(min(plan.beam_step, L))
        j = np.ceil(t / ell)
        own_ctx = t - (j - 1) * ell
        b = float(min(plan.beam_width, N))
        pre_att, pre_read = Li + (j - 1) * ell, Li + b * (j - 1) * ell
    else:
        own_ctx, pre_att, pre_read = t, Li, Li
    if shared:
        ph = ev.phase(shared, "io__decode__last", micro_batch=batch, ctx=own_ctx)
        time = time + ph.time
        for _, g in shared:
            fl = _sum(g.shape, ev.vals, math.inf, 0, ("attention",), micro_batch=1.0, ctx=pre_att)
            hb = _sum(g.shape, ev.vals, math.inf, 1, ("attention",), micro_batch=1.0, ctx=pre_read)
            if Li > 0:
                time = time + g.count * _attn_roofline(ev, batch * fl, hb)
    if own:
        ph = ev.phase(own, "io__decode__last", micro_batch=batch, ctx=Li + t)
        time = time + sum(o.count * o.time for o in ph.ops if not (shared and o.group == "io"))
    if sp is not None and sp.block > 1:
        fsel = sum(g.f_pair_dev for g in prims.groups) / 2
        ksel = sum(g.k_pos_dev for g in prims.groups) / 2
        time = time + _attn_roofline(
            ev, batch * fsel * (Li + t) / sp.block, ksel * (Li + batch * t) / sp.block
        )
    arr = np.broadcast_to(np.asarray(time, dtype=float), t.shape)
    return float(np.sum(arr) * wgt), float(np.mean(arr))


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

    @property
    def flops(self) -> float:
        v = self.verifier["flops"] if self.verifier else 0.0
        return self.prefill[0] + self.totals["decode_flops"] + v

    @property
    def bytes(self) -> float:
        t = self.totals
        v = self.verifier["bytes"] if self.verifier else 0.0
        return self.prefill[1] + t["weight_bytes"] + t["activation_bytes"] + t["kv_read_bytes"] + v

    @property
    def eflops(self) -> float:
        v = self.verifier["flops"] if self.verifier else 0.0
        return self.totals["eflops"] + v

    def metrics(self) -> dict[str, Any]:
        """Metric values keyed by the validation README names (plus $ and J)."""
        from llmcost.tts import _generated as T

        lat = self.latency["total"]
        usd = float(T.usd(self.devices, lat, self.price_per_hour)) if self.price_per_hour else None
        return {
            "eflops_per_query": self.eflops,
            "flops_per_query": self.flops,
            "bytes_per_query": self.bytes,
            "latency_s": lat,
            "kv_cache_gib": self.totals["kv_resident_bytes"] / GIB,
            "usd_per_query": usd,
            "joules_per_query": float(T.energy(self.devices, lat, self.tdp)),
            "generated_tokens": self.totals["tokens"],
        }


def _evaluators(spec: Any, hw: Hardware, plan: TTSPlan) -> tuple[I.Evaluator, I.Evaluator]:
    if spec.is_encoder_decoder:
        raise PlanError(
            f"test-time scaling is modelled for decoder-only models; {spec.name} is encoder-decoder"
        )
    ip = replace(plan.infer, batch=1, prompt_len=max(1, plan.prompt_len), output_len=plan.gen_len)
    one = replace(ip, tp=1, ep=1, gpus=None)
    return I.Evaluator(spec, hw, one), I.Evaluator(spec, hw, ip)


def _verifier(model: str | dict[str, Any], hw: Hardware, plan: TTSPlan, N: int, L: int) -> dict[str, float]:
    """Reward-model scoring as a prefill (an outcome reward model reads, never generates: prefill only) [derived]: each of
    the N samples' ``L_in + L_out`` tokens (beam: each candidate's chain, scored step by step
    with its KV kept, the same tokens); sequential: one pass over the ``L_in + N·L_out`` chain."""
    spec = I.spec_of(model)
    ev1, ev = _evaluators(spec, hw, plan)
    n_seq, length = (
        (1.0, plan.prompt_len + N * L) if plan.strategy == "sequential" else (float(N), plan.prompt_len + L)
    )
    fl, by = _prefill_totals(spec, ev1.vals, n_seq, float(length))
    ph = ev.phase(
        [("forward", g) for g in _groups(spec, "forward")],
        "io__forward__last",
        micro_batch=n_seq,
        seq=float(length),
        ctx=float(length),
    )
    return {"flops": fl, "bytes": by, "time": float(ph.time), "name": spec.name}  # type: ignore[dict-item]


def _groups(spec: Any, phase: str) -> Any:
    from llmcost.graph.ops import layer_groups

    return layer_groups(spec, phase)


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
    w = float(ctx.prims.w_step(ctx.spec, batch))
    tot = {k: float(v) for k, v in query_totals(ctx.prims, plan, N, L, w, I_).items()}
    if plan.sparse is None:
        return plan, tot, None
    dense = replace(plan, sparse=None)
    td = {k: float(v) for k, v in query_totals(ctx.prims, dense, N, L, w, I_).items()}
    if td["eflops"] <= tot["eflops"]:
        return (
            dense,
            td,
            f"sparse attention ({plan.sparse.describe()}) would cost more than dense here: dense used",
        )
    return plan, tot, None


def cost(model: str | dict[str, Any], hw: Hardware, plan: TTSPlan, ctx: Context | None = None) -> TTSResult:
    """Cost one query; PlanError when it does not divide or does not fit."""
    plan.check()
    ctx = ctx or prepare(model, hw, plan)
    spec, ev1, ev, prims = ctx.spec, ctx.ev1, ctx.ev, ctx.prims
    if CONTEXT_RULE.broken(spec, plan):
        raise PlanError(CONTEXT_RULE.message(spec, plan))
    N, L = plan.samples, plan.gen_len
    I_, note = intensity(hw, plan.intensity, ev.math[0])
    asked = plan
    plan, totals, why = choose(ctx, plan, I_)
    notes = [n for n in (why, R.context_note(spec, context_len(asked))) if n]
    prefill = _prefill_totals(spec, ev1.vals, 1.0, float(plan.prompt_len))
    # memory per device: weights, resident KV (shared prompt counted once), workspace, reserved
    pre = ev.phase(
        [("forward", g) for g in _groups(spec, "forward")],
        "io__forward__last",
        micro_batch=1.0,
        seq=float(max(1, plan.prompt_len)),
        ctx=float(max(1, plan.prompt_len)),
    )
    mem = I._memory(ev, 1.0, pre)
    kv_dev = (
        totals["kv_resident_bytes"]
        * sum(g.k_pos_dev for g in prims.groups)
        / max(1e-30, sum(g.k_pos for g in prims.groups))
    )
    mem["kv_cache"] = kv_dev
    mem["total"] = mem["weights"] + kv_dev + mem["activations"] + mem["reserved"]
    if mem["total"] > mem["usable"]:
        raise PlanError(
            f"does not fit: {mem['total'] / GIB:.1f} GiB per GPU needed (weights {mem['weights'] / GIB:.1f}, "
            f"KV {kv_dev / GIB:.1f}) of {mem['usable'] / GIB:.1f} GiB usable on {hw.id}; "
            "raise --tp, quantize the KV cache, or use fewer samples / shorter generations"
        )
    t_pre = float(pre.time) if plan.prompt_len > 0 else 0.0
    t_dec, tpot = decode_time(ev, prims, plan, N, L)
    ver = _verifier(plan.verifier, hw, plan, N, L) if plan.verifier else None
    t_ver = ver["time"] if ver else 0.0
    if plan.strategy == "majority" and ver:
        notes.append("majority with a verifier: verifier-weighted voting, scoring every sample")
    latency = {
        "prefill": t_pre,
        "decode": t_dec,
        "tpot": tpot,
        "verifier": t_ver,
        "total": t_pre + t_dec + t_ver,
    }
    return TTSResult(
        spec.name,
        hw.id,
        asked,
        plan.infer.devices,
        totals,
        prefill,
        ver,
        I_,
        note,
        latency,
        mem,
        hw.price_per_hour,
        hw.tdp,
        prims,
        notes,
    )
