"""Search spaces from option values, as ``llmcost search train | infer`` and
:func:`llmcost.api.search_train` / :func:`llmcost.api.search_infer` give them: each option one
value, several, or comma-separated text ("4,8"); what is not given is every value the model
allows, or the CLI's default. Messages name the CLI option (``--tp: ...``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from llmcost.errors import UserError, did_you_mean
from llmcost.search.common import parse_list

if TYPE_CHECKING:  # each search imports its own side (``search infer`` never loads the train step)
    from llmcost.hardware import Hardware
    from llmcost.model.spec import ModelSpec
    from llmcost.search.infer import InferSpace
    from llmcost.search.train import TrainSpace

TRAIN_KEYS = (
    *("gpus", "global_batch", "seq_len", "tp", "pp", "cp", "ep", "micro_batch", "virtual_stages"),
    *("zero", "recompute", "schedule", "precision", "sp", "tp_overlap", "gpus_per_node", "stack", "offload"),
    *("seq_len_dist", "packing", "dynamic_cp"),
    *("sync_interval", "sync_bytes", "sync_fragments", "sync_overlap", "power_cap", "ep_imbalance"),
    *("ep_deepep", "ep_overlap", "mtp_layers", "recompute_modules", "expert_tp"),
)
"""The options of ``search train`` that declare its space."""
INFER_KEYS = (
    *("gpus", "prompt_len", "output_len", "tp", "pp", "ep", "dp", "cp", "batch"),
    *("weights", "activations", "kv_cache", "gpus_per_node", "speculative", "schedule", "stack", "power_cap"),
)
"""The options of ``search infer`` that declare its space."""


def text(v: Any) -> str | None:
    """A value, or values, as the comma-separated text an option reads (bools as on / off)."""
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, (Sequence, set, frozenset)):
        return ",".join(str(text(x)) for x in v)
    return str(v)


def values(v: Any, what: str, cast: Any = int, choices: Any = None) -> tuple[Any, ...] | None:
    """:func:`llmcost.search.common.parse_list` of :func:`text`: None when not given."""
    return parse_list(text(v), what, cast, choices)


def on_off(x: str) -> bool:
    """on / off (true / false) as a bool; ValueError otherwise (parse_list reports it)."""
    v = {"on": True, "off": False, "true": True, "false": False}.get(x.strip().lower())
    if v is None:
        raise ValueError(x)
    return v


def axes(given: str | Sequence[str] | None, default: tuple[str, str]) -> tuple[str, str]:
    """The two Pareto metrics (``--axes A,B``), ``default`` when not given."""
    if given is None:
        return default
    t = str(text(given))
    parts = [x.strip() for x in t.split(",") if x.strip()]
    if len(parts) != 2:
        raise UserError(f"--axes: expected two metrics separated by a comma, got '{t}'")
    return parts[0], parts[1]


def slo_time(v: str | float | None, what: str) -> float | None:
    """An SLO time: seconds, or text with a unit ('50ms'); None when not given."""
    if v is None:
        return None
    from llmcost.units import parse

    v = str(v)
    try:
        t = float(parse(v if any(c.isalpha() for c in v) else v + " s", "time", what=what))
    except UserError:
        raise
    except Exception:
        raise UserError(f"{what}: expected a time such as 1s or 50ms, got '{v}'") from None
    if t <= 0:
        raise UserError(f"{what}: expected a time > 0 such as 1s or 50ms, got '{v}'")
    return t


def keys_of(space: Any, keys: Mapping[str, Any], known: Sequence[str], what: str) -> dict[str, Any]:
    """The options given (None: not given) of a mapping and keyword arguments; UserError for an
    unknown key."""
    if space is not None and not isinstance(space, Mapping):
        raise UserError(f"{what}: expected a space or a mapping of {what} keys, got {type(space).__name__}")
    out = {k: v for k, v in {**(space or {}), **keys}.items() if v is not None}
    for k in out:
        if k not in known:
            raise UserError(f"{what} key '{k}' is not a {what} key{did_you_mean(str(k), known)}")
    return out


def check_precisions(spec: ModelSpec, hw: Hardware, precs: Sequence[str] | None) -> None:
    """Each precision searched has a peak on the hardware (the train rule's message otherwise)."""
    from llmcost.training import plan as TR

    no_peak = next(r for r in TR.RULES if r.reason == "precision without compute on the hardware")
    for p in precs or ():
        fields = SimpleNamespace(hw=hw, prec=TR.PRECISIONS.index(p))
        if no_peak.broken(spec, fields):
            raise UserError(no_peak.message(spec, fields))


def train_space(spec: ModelSpec, hw: Hardware, k: Mapping[str, Any]) -> TrainSpace:
    """The train search space of options ``k`` (:data:`TRAIN_KEYS`); the global batch defaults to
    8 sequences per GPU of the largest count, the sequence length to the model's (at most 4096)."""
    from llmcost.search.train import ZMODE_NAMES, TrainSpace, default_seq
    from llmcost.training import plan as TR

    gl: Any = values(k.get("gpus", 8), "--gpus")
    from llmcost import checks

    seq = checks.finite_int(k["seq_len"], "--seq-len") if k.get("seq_len") is not None else default_seq(spec)
    gb = (
        checks.finite_int(k["global_batch"], "--global-batch")
        if k.get("global_batch") is not None
        else 8 * max(gl)
    )
    zero = values(k.get("zero"), "--zero", lambda x: {"fsdp": "3"}.get(x.lower(), x.lower()), ZMODE_NAMES)
    sp = values(k.get("sp"), "--sp", on_off)
    tpo = values(k.get("tp_overlap"), "--tp-overlap", on_off)
    precs = values(k.get("precision"), "--precision", str.lower, TR.PRECISIONS)
    check_precisions(spec, hw, precs)
    from llmcost.stacks import resolve_stack

    stack, named = resolve_stack(_stack(k.get("stack")))
    sync = _sync(k)
    given = {
        "zero": zero,
        "schedule": values(k.get("schedule"), "--schedule", str.lower, TR.SCHEDULES),
        "pp": values(k.get("pp"), "--pp"),
        "cp": values(k.get("cp"), "--cp"),
        "sp": sp,
        "recompute": values(k.get("recompute"), "--recompute", str.lower, TR.RECOMPUTE),
        "precision": precs,
    }
    bounds = {d: v for d, v in stack_runs(stack if named else None).items() if not given[d]}
    if (
        "precision" in bounds
    ):  # what the stack runs that the device has a peak for; fp16 only where bf16 is not
        runs_on = tuple(p for p in bounds["precision"] if p in hw.peak)
        if not runs_on:
            raise UserError(
                f"stack {stack}: it trains in {', '.join(bounds['precision'])}, which {hw.id} has no peak for; "
                "name --precision to search anyway"
            )
        bounds["precision"] = tuple(p for p in runs_on if p != "fp16" or "bf16" not in runs_on)
    runs = {**bounds, **_diloco_bounds(sync[0]), **{d: v for d, v in given.items() if v}}
    return TrainSpace(
        gpus=gl,
        global_batch=gb,
        seq_len=seq,
        tp=values(k.get("tp"), "--tp"),
        pp=runs.get("pp"),
        cp=runs.get("cp"),
        ep=values(k.get("ep"), "--ep") or runs.get("ep"),
        micro_batch=values(k.get("micro_batch"), "--micro-batch"),
        virtual_stages=values(k.get("virtual_stages"), "--virtual-stages"),
        zero=runs.get("zero", ZMODE_NAMES),
        recompute=runs.get("recompute", TR.RECOMPUTE[:3]),
        schedule=runs.get("schedule", TR.SCHEDULES),
        precision=runs.get("precision"),
        sp=runs.get("sp"),
        tp_overlap=tpo or (False,),
        gpus_per_node=k.get("gpus_per_node"),
        stack=stack,
        stack_default=not named,
        stack_bounds=tuple(bounds.items()),
        offload=_offload(k.get("offload")),
        workload=_workload(k),
        sync_interval=sync[0],
        sync_bytes=sync[1],
        sync_fragments=sync[2],
        sync_overlap=sync[3],
        power_cap=_power_cap(k.get("power_cap")),
        ep_imbalance=_imbalance(k.get("ep_imbalance")),
        ep_deepep=_flag(k.get("ep_deepep"), "ep_deepep"),
        ep_overlap=_flag(k.get("ep_overlap"), "ep_overlap"),
        mtp_layers=_mtp(spec, k.get("mtp_layers")),
        recompute_modules=_modules(spec, k.get("recompute_modules")),
        expert_tp=_expert_tp(k.get("expert_tp")),
    )


def _expert_tp(v: Any) -> int | None:
    """``search train --expert-tp``: ``1`` (every expert-parallel plan keeps its experts whole,
    Parallel Folding) or ``tp`` (the default, Megatron-Core's)."""
    if v is None or str(v).strip().lower() == "tp":
        return None
    if str(v).strip() == "1":
        return 1
    raise UserError(f"--expert-tp must be 1 (whole experts, Parallel Folding) or tp (the default), got {v!r}")


def _modules(spec: Any, v: Any) -> tuple[str, ...] | None:
    """``search train --recompute-modules``: what every selective plan recomputes (None: the attention
    core), checked as the plan key is (:func:`llmcost.training.plan.check_recompute_modules`)."""
    from llmcost.training import plan as TR
    from llmcost.training.recompute import parse_modules

    mods = parse_modules(v)
    if mods is None:
        return None
    TR.check_recompute_modules(spec, TR.TrainPlan(gpus=1, recompute="selective", recompute_modules=mods))
    return tuple(mods)


def _mtp(spec: Any, v: Any) -> int:
    """``search train --mtp-layers``: MTP modules every plan trains (0 when not given), checked as
    the plan key is (:func:`llmcost.training.plan.mtp_of`)."""
    from llmcost.training import plan as TR

    if v is None:
        return 0
    return TR.mtp_of(spec, TR.TrainPlan(gpus=1, mtp_layers=v))


def _flag(v: Any, name: str) -> bool | None:
    """A plan-wide true / false option of ``search train`` (None: the default), one clear line if not."""
    if v is None or isinstance(v, bool):
        return v
    raise UserError(f"{name} must be true or false, got {v!r}")


def _imbalance(v: Any) -> float | None:
    """``search train --ep-imbalance``: every expert-parallel plan's busiest-rank load over the mean
    (None: the default), checked as the plan key is."""
    from llmcost.graph.ops import checked_ep_imbalance

    return checked_ep_imbalance(v) if v is not None else None


def _power_cap(v: Any) -> float | None:
    """``search train --power-cap``: every plan's board power limit in watts (None: the default)."""
    from llmcost.economics.power import cap_of

    return cap_of(v)


def _workload(k: Mapping[str, Any]) -> Any:
    """The sequence-length distribution of every plan (``--seq-len-dist``, ``--packing``,
    ``--dynamic-cp``; :func:`llmcost.training.seqdist.workload`), None without one."""
    from llmcost.errors import PlanError
    from llmcost.training.seqdist import workload

    try:
        return workload(k.get("seq_len_dist"), k.get("packing"), k.get("dynamic_cp", False), "search")
    except PlanError as e:
        raise UserError(f"search train: {e}") from None


def _sync(k: Mapping[str, Any]) -> tuple[int, float | None, int, int]:
    """``search train --sync-interval H --sync-bytes B --sync-fragments P --sync-overlap T``: DiLoCo's
    sync of every plan, checked by the single-plan check (:func:`llmcost.training.plan.sync_values`);
    (1, None, 1, 0) when not given."""
    from llmcost.training import plan as TR

    got = [
        k.get("sync_interval", 1),
        k.get("sync_bytes"),
        k.get("sync_fragments", 1),
        k.get("sync_overlap", 0),
    ]
    for i in (0, 2, 3):
        if isinstance(got[i], str) and got[i].strip().isdigit():
            got[i] = int(got[i])
    h, b, f, o = got
    TR.sync_values(h, b, f, o)
    return h, b, f, o


def _diloco_bounds(h: int) -> dict[str, tuple[Any, ...]]:
    """What a DiLoCo space (``sync_interval`` > 1) searches where the options do not say: the plans
    :data:`llmcost.training.plan.RULES` let DiLoCo run (zero 0, cp 1, ep 1); given values are
    searched and the plans they break counted under the rule."""
    return {"zero": ("0",), "cp": (1,), "ep": (1,)} if h > 1 else {}


def stack_runs(stack: Any) -> dict[str, tuple[Any, ...]]:
    """What ``stack``'s profile can run, as the search dimensions it bounds where its sources say
    (:class:`llmcost.stacks.Profile`): ``zero`` (its ZeRO modes), ``schedule`` (``pp`` (1,) without
    pipeline parallelism), ``cp`` ((1,) without
    context parallelism), ``sp`` ((False,) without sequence parallelism), ``precision`` (the training
    precisions it runs) and ``recompute`` (no ``selective`` before it existed). Empty without a stack."""
    if stack is None:
        return {}
    from llmcost.stacks import NOT_DOCUMENTED, profile_for
    from llmcost.training import plan as TR
    from llmcost.training.stack import parse

    profile, _ = profile_for(*parse(stack))

    def says(name: str) -> bool:
        return profile.sources.get(name, NOT_DOCUMENTED) != NOT_DOCUMENTED

    out: dict[str, tuple[Any, ...]] = {}
    if says("zero_modes") and profile.zero_modes:
        out["zero"] = profile.zero_modes
    if says("schedules"):
        if profile.schedules:
            out["schedule"] = profile.schedules
        else:
            out["pp"] = (1,)  # no pipeline parallelism
    if says("context_parallel") and not profile.context_parallel:
        out["cp"] = (1,)
    if says("sequence_parallel") and not profile.sequence_parallel:
        out["sp"] = (False,)
    if says("precisions") and profile.precisions:
        out["precision"] = profile.precisions
    if says("selective_recompute") and not profile.selective_recompute:
        out["recompute"] = tuple(r for r in TR.RECOMPUTE[:3] if r != "selective")
    return out


def _stack(stack: Any) -> Any:
    """A search's ``stack``, checked now (one clear line) rather than per plan."""
    if stack is None:
        return None
    from llmcost.training.stack import parse

    parse(stack)
    return stack


def _offload(v: Any) -> str:
    """``search train --offload``: one tier for every plan (:data:`llmcost.training.base.OFFLOAD`)."""
    from llmcost.training import plan as TR

    if v is None:
        return "none"
    o = str(v).strip().lower()
    if o not in TR.OFFLOAD:
        raise UserError(f"--offload '{v}': use one of {', '.join(TR.OFFLOAD)}{did_you_mean(o, TR.OFFLOAD)}")
    return o


def infer_space(k: Mapping[str, Any]) -> InferSpace:
    """The infer search space of options ``k`` (:data:`INFER_KEYS`): 1024 prompt and 256 output
    tokens, batches 1..1024, formats bf16 to fp4 unless given."""
    from llmcost import precision as Q
    from llmcost.inference.plan import schedule_of, speculation_of
    from llmcost.search.infer import DEFAULT_BATCHES, DEFAULT_WEIGHTS, InferSpace

    def fmts(v: Any, what: str) -> Any:
        return values(v, what, lambda x: Q.normalize(x, what))

    return InferSpace(
        prompt_len=k.get("prompt_len", 1024),
        output_len=k.get("output_len", 256),
        gpus=values(k.get("gpus"), "--gpus"),
        tp=values(k.get("tp"), "--tp"),
        pp=values(k.get("pp"), "--pp"),
        ep=values(k.get("ep"), "--ep"),
        dp=values(k.get("dp"), "--dp"),
        cp=values(k.get("cp"), "--cp") or (1,),
        batch=values(k.get("batch"), "--batch") or DEFAULT_BATCHES,
        weights=fmts(k.get("weights"), "--weights") or DEFAULT_WEIGHTS,
        activations=fmts(k.get("activations"), "--activations") or (None, "fp8"),
        kv_cache=fmts(k.get("kv_cache"), "--kv-cache") or (None, "fp8"),
        gpus_per_node=k.get("gpus_per_node"),
        speculative=speculation_of(k.get("speculative")),
        schedule=schedule_of(k.get("schedule")),
        stack=None if k.get("stack") is None else str(k["stack"]),
        power_cap=_power_cap(k.get("power_cap")),
    )
