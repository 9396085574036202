"""Inference plan search: (hardware, GPU count, tp, pp, ep, dp, cp, weight / activation / KV formats)
x batch sizes, evaluated vectorized over all the plans of a hardware at once (runtime: no sympy).

The plans of one hardware are one :class:`llmcost.inference.serve.Evaluator` holding them as arrays
(every plan value on the last axis) and go through :func:`llmcost.inference.serve.serve`, the
composition :func:`llmcost.inference.serve.cost` runs on one plan; the metrics are
:meth:`InferenceResult.metrics` on those arrays. Validity is the single-plan rules,
:data:`llmcost.inference.serve.RULES` (as masks) and :func:`llmcost.inference.serve.formats_on`.
``tests/test_search.py`` re-costs returned plans one by one with ``cost``: identical.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

# catalog, graph, model config and the generated code: what the evaluation imports lazily, loaded with
# this module (before the search's clock starts) rather than during the search
from llmcost import catalog  # noqa: F401
from llmcost import precision as Q
from llmcost.collectives import _generated as _collectives_generated  # noqa: F401
from llmcost.collectives import cost as collectives  # noqa: F401
from llmcost.errors import PlanError
from llmcost.graph import _generated as _inference_generated  # noqa: F401
from llmcost.graph import ops as graph  # noqa: F401
from llmcost.hardware import Hardware
from llmcost.inference import serve as I
from llmcost.kernels import roofline  # noqa: F401
from llmcost.model import config as model_config  # noqa: F401
from llmcost.search.common import MAX_STEPS, check_size, divisors

_NARROW = "--hw, --gpus, --tp, --pp, --ep, --dp, --cp, --batch, --weights, --activations, --kv-cache"
DEFAULT_BATCHES = tuple(2**i for i in range(0, 11))
DEFAULT_WEIGHTS = ("bf16", "fp8", "int8", "int4", "fp4")
CHUNK = 1 << 21
"""Plans x decode steps evaluated at once (bounds the arrays: 16 MiB each)."""


@dataclass(frozen=True)
class InferSpace:
    """The declared space: None for a dimension means every value the model allows."""

    prompt_len: int
    output_len: int
    gpus: tuple[int, ...] | None = None  # None: one node of each hardware
    tp: tuple[int, ...] | None = None
    pp: tuple[int, ...] | None = None
    ep: tuple[int, ...] | None = None
    dp: tuple[int, ...] | None = None
    cp: tuple[int, ...] = (1,)  # context parallelism (prefill ring attention): searched only when asked
    batch: tuple[int, ...] = DEFAULT_BATCHES
    weights: tuple[str, ...] = DEFAULT_WEIGHTS
    activations: tuple[str | None, ...] = (None, "fp8")  # None: the plan default for the weights
    kv_cache: tuple[str | None, ...] = (None, "fp8")  # None: the plan default
    gpus_per_node: int | None = None
    speculative: I.Speculation | None = None  # shared by every plan (inference.plan.Speculation)
    schedule: str = "static"  # shared by every plan (inference.plan.Plan.schedule)
    disaggregated: bool = False  # every plan one pool of a disaggregated deployment (search/disagg.py)
    stack: str | None = None  # serving engine NAME[:YEAR]: its host time, every plan (inference/stack.py)
    power_cap: float | None = None  # board power limit of every plan's devices, W (None: the default limit)

    def shared(self, cp: int = 1) -> dict[str, Any]:
        """The plan fields every plan of the space shares (one cp per evaluator)."""
        return dict(
            prompt_len=self.prompt_len,
            output_len=self.output_len,
            gpus_per_node=self.gpus_per_node,
            cp=cp,
            speculative=self.speculative,
            schedule=self.schedule,
            disaggregated=self.disaggregated,
            power_cap=self.power_cap,
            **self.host(),
        )

    def host(self) -> dict[str, Any]:
        """The plan fields the space's serving ``stack`` sets (none without one)."""
        if self.stack is None:
            return {}
        from llmcost.inference.plan import host_of
        from llmcost.inference.stack import apply

        keys, note = apply(self.stack, {})
        return {**host_of(keys), "stack": note}


_INT_KEYS = ("gpus", "tp", "pp", "dp", "ep", "batch")
_FMT_KEYS = ("weights", "activations", "kv_cache")


class Plans:
    """The evaluated plans, one per metric row: ``plans[i]`` is plan ``i`` as a dict (hardware and
    the README infer plan keys), built when asked for."""

    def __init__(self, space: InferSpace, hws: list[Hardware]) -> None:
        self.space, self.hws = space, hws
        self.cols: dict[str, list[np.ndarray]] = {k: [] for k in ("hw", "cp", *_INT_KEYS, *_FMT_KEYS)}
        self._arr: dict[str, np.ndarray] | None = None

    def add(self, hw: int, cp: int, rows: dict[str, np.ndarray]) -> None:
        n = len(rows["tp"])
        self.cols["hw"].append(np.full(n, hw))
        self.cols["cp"].append(np.full(n, cp))
        for k in (*_INT_KEYS, *_FMT_KEYS):
            self.cols[k].append(rows[k])
        self._arr = None

    @property
    def arrays(self) -> dict[str, np.ndarray]:
        if self._arr is None:
            self._arr = {
                k: np.concatenate(v) if v else np.zeros(0, dtype=object if k in _FMT_KEYS else np.int64)
                for k, v in self.cols.items()
            }
        return self._arr

    def __len__(self) -> int:
        return len(self.arrays["tp"])

    def __getitem__(self, i: int) -> dict[str, Any]:
        a = self.arrays
        out: dict[str, Any] = {"hardware": self.hws[int(a["hw"][i])].id}
        for k in (*_INT_KEYS, "cp"):
            out[k] = int(a[k][i])
        out |= {"prompt_len": self.space.prompt_len, "output_len": self.space.output_len}
        for k in _FMT_KEYS:
            out[k] = str(a[k][i])
        from llmcost.inference.plan import speculation_dict

        plan = {k: out[k] for k in ("hardware", *PLAN_ORDER)}
        if self.space.speculative is not None:
            plan["speculative"] = speculation_dict(self.space.speculative)
        if self.space.schedule != "static":
            plan["schedule"] = self.space.schedule
        if self.space.stack is not None:
            plan["stack"] = self.space.stack
        if self.space.disaggregated:
            plan["disaggregated"] = True
        if self.space.power_cap is not None:
            plan["power_cap"] = self.space.power_cap
        return plan

    def plan(self, rows: np.ndarray) -> I.Plan:
        """Plans ``rows`` (all on one hardware, one cp) as one :class:`Plan` with array fields."""
        a = self.arrays
        cps = set(a["cp"][rows].tolist())
        if len(cps) > 1:
            raise ValueError("plans of one Plan share cp")
        return I.Plan(
            **{k: a[k][rows] for k in (*_INT_KEYS, *_FMT_KEYS)}, **self.space.shared(cps.pop() if cps else 1)
        )


PLAN_ORDER = (
    "gpus",
    "tp",
    "pp",
    "dp",
    "ep",
    "cp",
    "batch",
    "prompt_len",
    "output_len",
    "weights",
    "activations",
    "kv_cache",
)


def _metrics(ev: I.Evaluator) -> dict[str, np.ndarray]:
    """The metrics of every plan of ``ev`` at once: :func:`llmcost.inference.serve.serve` (the
    composition :func:`llmcost.inference.serve.cost` runs on one plan) on the array of per-replica
    batches, and :meth:`InferenceResult.metrics` on its arrays."""
    p = ev.plan
    r = I.serve(ev, I.per_replica(p.batch, p.dp))
    mem = r["memory"]
    res = I.InferenceResult(
        model=ev.spec.name,
        hardware=ev.hw.id,
        plan=p,
        batch=p.batch,
        gpus=p.devices,
        ttft=r["ttft"],
        tpot=r["tpot"],
        e2e=r["e2e"],
        memory=mem,
        max_batch=0,
        prefill=r["prefill"],
        decode=r["decode"],
        math=ev.math,  # type: ignore[arg-type]
        formats=ev.formats,  # type: ignore[arg-type]
        price_per_hour=ev.hw.price_per_hour,
        tdp=ev.hw.tdp,
        draw=I.draw_of(ev.hw, p, (r["prefill"], r["decode"])),
    )
    shape = np.shape(p.batch)
    out = {
        k: np.broadcast_to(np.asarray(v, dtype=float), shape) if v is not None else np.full(shape, np.nan)
        for k, v in res.metrics().items()
        if k != "max_batch"
    }
    out["fits"] = ~(np.asarray(mem["total"]) > mem["usable"])
    return out


class _Rejections:
    """Rejected plans by reason, each reason placed where a plan-by-plan loop would first meet it
    (its position in the enumeration), so that ties in the report keep that order."""

    def __init__(self) -> None:
        self.count: Counter[str] = Counter()
        self.first: dict[str, int] = {}

    def add(self, reason: str, n: int, at: int) -> None:
        self.count[reason] += n
        self.first[reason] = min(self.first.get(reason, at), at)

    def counter(self) -> Counter[str]:
        return Counter({k: self.count[k] for k in sorted(self.first, key=self.first.__getitem__)})


def _layouts(spec: Any, hw: Hardware, space: InferSpace, cp: int = 1) -> list[tuple[int, int, int, int, int]]:
    """(gpus, tp, pp, ep, dp) in enumeration order for context-parallel degree ``cp``; dp 0:
    tp*pp*cp does not divide the GPUs (listed only when the user narrowed the degrees, to be counted
    as rejected)."""
    experts = spec.moe.num_experts if spec.moe is not None else 1
    narrowed = space.tp is not None or space.pp is not None or space.dp is not None or space.cp != (1,)
    out = []
    n_ep = len(space.ep or (divisors(experts) if spec.moe is not None else [1]))
    gpus = space.gpus or (hw.node_devices or 1,)
    n = sum(len(space.tp or divisors(g)) * len(space.pp or divisors(g)) * n_ep for g in gpus)
    check_size(n, "infer", _NARROW)
    for g in gpus:
        for tp in space.tp or divisors(g):
            for pp in space.pp or divisors(g):
                for ep in space.ep or (divisors(experts) if spec.moe is not None else [1]):
                    dps = [g // (tp * pp * cp)] if g % (tp * pp * cp) == 0 else []
                    if space.dp is not None:
                        dps = [d for d in dps if d in space.dp]
                    if dps or narrowed:
                        out.append((g, tp, pp, ep, dps[0] if dps else 0))
    return out


@dataclass(frozen=True)
class _Formats:
    """The format triples on one hardware, in :attr:`InferSpace` order: why each is refused
    (None: it runs) and its resolved names (None: refused, or a default resolving to a triple
    already listed, which is the same plan)."""

    why: list[str | None]
    names: list[tuple[str, str, str] | None]


def _formats_on(hw: Hardware, fmts: list[tuple[str, str | None, str | None]]) -> _Formats:
    """Formats on this hardware: their numbers, or why they are refused; duplicates skipped."""
    why: list[str | None] = []
    names: list[tuple[str, str, str] | None] = []
    seen: set[tuple[str, str, str]] = set()
    for w, a, kv in fmts:
        try:
            f = I.formats_on(hw, w, a, kv)
        except PlanError as e:
            why.append(_reason(str(e)))
            names.append(None)
            continue
        why.append(None)
        names.append(None if f.names in seen else f.names)
        seen.add(f.names)
    return _Formats(why, names)


@dataclass(frozen=True)
class _Candidates:
    """Every candidate (layout, format, batch) of one hardware as one code: the index of its
    rejection reason in ``labels``, -1 evaluated, -2 the same plan again. ``lay_code`` and
    ``fmt_code`` are the codes of the layouts and the formats alone."""

    layout: np.ndarray  # (layouts, 5): gpus, tp, pp, ep, dp (dp 0: tp*pp does not divide the GPUs)
    lay_code: np.ndarray
    fmt_code: np.ndarray
    cand: np.ndarray  # flat, layout-major, then format, then batch
    labels: list[str]
    batch_reason: str


def _candidates(
    spec: Any, space: InferSpace, lay: np.ndarray, batches: np.ndarray, formats: _Formats, cp: int = 1
) -> _Candidates:
    """The code of every candidate: the plan rules but the batch one on each layout
    (:data:`llmcost.inference.serve.RULES`), then the formats, then the batch rule."""
    g, tp, pp, ep, dp = lay.T
    nofact = dp == 0
    dp1 = np.where(nofact, 1, dp)
    shared = space.shared(cp)
    first = I.first_broken(spec, I.Plan(tp=tp, pp=pp, dp=dp1, ep=ep, gpus=g, batch=None, **shared))
    batch_rule = I.RULES[I.BATCH_RULE]
    bad_batch = np.broadcast_to(
        batch_rule.broken(spec, I.Plan(dp=dp1[:, None], batch=batches[None, :], **shared)),
        (len(lay), batches.size),
    )
    why, names = formats.why, formats.names
    reasons = ["tp*pp*dp*cp does not equal the GPUs", *(r.reason for r in I.RULES), *{w for w in why if w}]
    code = {r: i for i, r in enumerate(dict.fromkeys(reasons))}
    lay_code = np.where(nofact, code[reasons[0]], np.where(first >= 0, first + 1, -1))
    fmt_code = np.array([code[w] if w else (-1 if n else -2) for w, n in zip(why, names, strict=True)])
    cand = np.where(
        (lay_code >= 0)[:, None, None],
        lay_code[:, None, None],
        np.where(
            (fmt_code != -1)[None, :, None],
            fmt_code[None, :, None],
            np.where(bad_batch[:, None, :], code[batch_rule.reason], -1),
        ),
    ).ravel()
    return _Candidates(lay, lay_code, fmt_code, cand, list(dict.fromkeys(reasons)), batch_rule.reason)


def _count_rejections(rej: _Rejections, c: _Candidates, offset: int, n_batches: int) -> None:
    """Count the rejected candidates of one hardware under their reasons, each placed at its
    first candidate (``offset``: the candidates of the hardware before)."""
    hit = np.flatnonzero(c.cand >= 0)
    counts = np.bincount(c.cand[hit], minlength=len(c.labels))
    for k in np.flatnonzero(counts).tolist():
        rej.add(c.labels[k], int(counts[k]), offset + int(hit[np.argmax(c.cand[hit] == k)]))
    reached = np.flatnonzero(((c.lay_code < 0)[:, None] & (c.fmt_code == -1)[None, :]).ravel())
    if reached.size:  # a plan-by-plan loop counts the batch rule (maybe 0) once a plan gets there
        rej.add(c.batch_reason, 0, offset + int(reached[0]) * n_batches)


def _accepted(
    c: _Candidates, formats: _Formats, batches: np.ndarray
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The candidates to evaluate (their flat indices) and their plan columns."""
    n_fmt, n_batch = len(formats.names), batches.size
    g, tp, pp, ep, dp = c.layout.T
    ok = np.flatnonzero(c.cand == -1)
    li, fi, bi = ok // (n_fmt * n_batch), (ok // n_batch) % n_fmt, ok % n_batch
    fnames = np.array([n or ("", "", "") for n in formats.names], dtype=object).reshape(-1, 3)
    rows = {"gpus": g[li], "tp": tp[li], "pp": pp[li], "dp": dp[li], "ep": ep[li], "batch": batches[bi]}
    rows |= {k: fnames[fi, j] for j, k in enumerate(_FMT_KEYS)}
    return ok, rows


@dataclass
class _Found:
    """What the search accumulates: the plans, their metric columns, the rejections and the count."""

    plans: Plans
    cols: dict[str, list[np.ndarray]]
    rej: _Rejections
    evaluated: int = 0


def _evaluate(
    spec: Any,
    h: int,
    hw: Hardware,
    space: InferSpace,
    accepted: tuple[np.ndarray, dict[str, np.ndarray]],
    offset: int,
    found: _Found,
    advance: Any,
    cp: int = 1,
) -> None:
    """Evaluate the accepted candidates of hardware ``h`` in chunks of at most :data:`CHUNK` plans
    x decode steps; a plan whose collectives cannot be placed is rejected with every batch."""
    ok, rows = accepted
    per = max(1, CHUNK // max(1, space.output_len - 1))
    for s in range(0, ok.size, per):
        sub = slice(s, s + per)
        chunk = {k: v[sub] for k, v in rows.items()}
        ev = I.Evaluator(
            spec,
            hw,
            I.Plan(**{k: chunk[k] for k in (*_INT_KEYS, *_FMT_KEYS)}, **space.shared(cp)),
        )
        out = _metrics(ev)
        keep = np.ones(len(chunk["tp"]), dtype=bool)
        for mask, msg in ev.failed:  # collective placement refused: every batch of those plans
            new = mask & keep
            if new.any():
                found.rej.add(_reason(msg), int(new.sum()), offset + int(ok[sub][new][0]))
            keep &= ~mask
        found.plans.add(h, cp, {k: v[keep] for k, v in chunk.items()})
        for k, v in out.items():
            found.cols.setdefault(k, []).append(np.asarray(v)[keep])
        found.evaluated += int(keep.sum())
        if advance:
            advance(int(keep.sum()))


def search_space(
    model: str, hws: list[Hardware], space: InferSpace, advance: Any = None
) -> tuple[Plans, dict[str, np.ndarray], Counter[str], int]:
    """Evaluate the space; returns (plan per row, metric columns, rejections, plans evaluated).

    Candidates run in the order hardware, GPUs, tp, pp, ep, formats, batch; each rejected one is
    counted under the first check it fails, in the order of a plan-by-plan loop: the plan rules
    but the batch one (:data:`llmcost.inference.serve.RULES`), the formats on the hardware
    (:func:`llmcost.inference.serve.formats_on`; a default resolving to a triple already listed
    is the same plan, skipped), the batch rule, then the collectives' placement."""
    spec = I.spec_of(model)
    found = _Found(Plans(space, hws), {}, _Rejections())
    fmts = [(w, a, kv) for w in space.weights for a in space.activations for kv in space.kv_cache]
    batches = np.array(sorted(space.batch), dtype=np.int64)
    todo = []
    offset = 0  # candidates before this hardware's
    for h, hw in enumerate(hws):
        formats = _formats_on(hw, fmts)
        for cp in space.cp:
            lay = np.array(_layouts(spec, hw, space, cp), dtype=np.int64).reshape(-1, 5)
            if not len(lay):
                continue
            check_size(offset + len(lay) * len(fmts) * batches.size, "infer", _NARROW)
            c = _candidates(spec, space, lay, batches, formats, cp)
            todo.append((h, hw, cp, c, _accepted(c, formats, batches), offset))
            offset += c.cand.size
    steps = sum(a[0].size for *_, a, _ in todo) * max(1, space.output_len - 1)
    check_size(
        steps, "infer", _NARROW + " or a shorter --output-len", MAX_STEPS, "plan x decode-step evaluations"
    )
    for h, hw, cp, c, accepted, at in todo:
        _count_rejections(found.rej, c, at, batches.size)
        _evaluate(spec, h, hw, space, accepted, at, found, advance, cp)
    merged = {k: np.concatenate(v) for k, v in found.cols.items()}
    return found.plans, merged, found.rej.counter(), found.evaluated


def _reason(msg: str) -> str:
    """A rejection reason (formats, collective placement) without the plan's numbers (so that
    counts aggregate); the plan rules carry their own (:data:`llmcost.inference.serve.RULES`)."""
    low = msg.lower()
    for key, text in (
        ("not a supported gemm", "activations narrower than weights"),
        ("fabric", "GPU count does not fit the fabric"),
    ):
        if key in low:
            return text
    if "has no" in low or "compute" in low:
        return "format without a hardware peak"
    return msg.split(";")[0][:80]


def plan_keys(plan: dict[str, Any]) -> dict[str, Any]:
    """The validation README's infer plan keys of a search row (feeds ``llmcost infer --plan``)."""
    return {k: v for k, v in plan.items() if k != "hardware"}


def bottlenecks(model: str, plans: Plans, rows: Any) -> list[str]:
    """Operator kind and bound taking most of the decode step (prefill when one token is
    generated) of each plan of ``rows``: those plans evaluated together per hardware as
    :func:`llmcost.inference.serve.serve` does, then each read as one plan (``inference.dominant``)."""
    spec = I.spec_of(model)
    rows = np.asarray(rows, dtype=np.int64)
    out: list[str] = [""] * rows.size
    hw_of, cp_of = plans.arrays["hw"][rows], plans.arrays["cp"][rows]
    for h, cp in sorted(set(zip(hw_of.tolist(), cp_of.tolist(), strict=True))):
        at = np.flatnonzero((hw_of == h) & (cp_of == cp))
        ev = I.Evaluator(spec, plans.hws[h], plans.plan(rows[at]))
        ph = I.bottleneck_phase(ev, I.per_replica(ev.plan.batch, ev.plan.dp))
        for j, i in enumerate(at.tolist()):
            out[i] = I.dominant(ph.at(j))
    return out


__all__ = ["InferSpace", "Plans", "search_space", "plan_keys", "bottlenecks", "Q"]
