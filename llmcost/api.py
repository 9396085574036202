"""The Python API: ``llmcost.train``, ``infer``, ``tts``, ``collective``, ``search_train`` and
``search_infer``, the CLI's costings as functions.

One argument order: what to cost, the hardware, the plan — ``(model, hardware, plan)``;
``collective`` takes ``(op, hardware, plan)`` (a collective has no model). Each argument is a
catalog id or an object:

* model: a catalog id, a config file (``.yaml`` / ``.yml`` / ``.json`` path), a Hugging Face
  config mapping, or a :class:`llmcost.model.spec.ModelSpec`;
* hardware: a catalog id or a :class:`llmcost.hardware.Hardware`;
* plan: the cost layer's plan dataclass, a mapping of the plan keys of ``validation/README.md``,
  or keyword arguments (which override the plan given).

Each returns a report: the cost layer's result dataclass as ``result`` (its attributes read
through the report: ``report.step_time``, ``report.ttft``) with ``metrics()`` (validation README
metric names) and ``as_dict()`` (what the command prints with ``--format json``).

The CLI commands call these functions: one path from input to figures, so the API and the CLI
give the same numbers. Mistakes raise :class:`llmcost.errors.UserError` (a subclass) with the
CLI's one-line message, which names the CLI flag where the CLI has one. The cost layer is
imported inside the functions: importing this module loads neither numpy nor sympy.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from llmcost.errors import UserError

if TYPE_CHECKING:
    from llmcost.collectives.cost import CollectiveCost
    from llmcost.hardware import Hardware
    from llmcost.inference.disagg import Deployment
    from llmcost.inference.serve import InferenceResult, Plan
    from llmcost.model.spec import ModelSpec
    from llmcost.search.common import SearchResult
    from llmcost.search.disagg import SizedDeployment
    from llmcost.search.infer import InferSpace
    from llmcost.search.train import TrainSpace
    from llmcost.training.plan import TrainPlan, TrainResult
    from llmcost.tts.query import TTSPlan, TTSResult

__all__ = [
    "train",
    "emit",
    "infer",
    "tts",
    "collective",
    "search_train",
    "search_infer",
    "train_plan",
    "infer_plan",
    "tts_plan",
    "TrainReport",
    "InferReport",
    "TTSReport",
    "CollectiveReport",
    "SearchReport",
]

TTS_DEFAULTS: dict[str, Any] = {
    "strategy": "best_of_n",
    "samples": 8,
    "prompt_len": 512,
    "gen_len": 4096,
    "beam_width": 4,
    "beam_step": 256,
    "intensity": "kinetics",
}
"""The tts query of ``llmcost tts`` with no options, which :func:`tts` and :func:`tts_plan` share."""
COLLECTIVE_DEFAULTS: dict[str, Any] = {
    "size": "1GiB",
    "gpus": 8,
    "gpus_per_node": None,
    "algorithm": "auto",
    "protocol": "auto",
    "nics": 1,
}
"""The collective of ``llmcost collective OP`` with no options."""
_COLLECTIVE_ALIASES = {"size_bytes": "size", "algo": "algorithm"}
"""Collective keys by their validation README name (``size_bytes``) and CLI flag (``--algo``)."""


# ------------------------------------------------------------------------------ reports
class _ReadsThrough:
    """A report whose unknown attributes are read from its ``result``."""

    def __repr__(self) -> str:  # the dataclass repr, without its cost at import (the CLI's start)
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self))
        return f"{type(self).__name__}({shown})"

    def __getattr__(self, name: str) -> Any:
        result = self.__dict__.get("result")
        if result is None or name.startswith("_"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(result, name)


@dataclass(repr=False)
class TrainReport(_ReadsThrough):
    """One training plan costed (``llmcost train``): ``result`` is the
    :class:`llmcost.training.plan.TrainResult`; ``tokens`` the run's tokens, if given."""

    result: TrainResult
    spec: ModelSpec
    hardware: Hardware
    tokens: float | None = None
    stack: Any = None  # the software stack the plan was costed under (carried in the JSON plan)

    def metrics(self) -> dict[str, float]:
        """The validation README's train metrics, per step."""
        return self.result.metrics()

    def operators(self) -> list[dict[str, Any]]:
        """``llmcost train --breakdown``: one layer's operators per layer shape, then the embedding,
        head and loss, one micro-batch on one device, forward and backward, as the step costs them
        (:func:`llmcost.training.plan.operator_rows`; computed when asked, not with the plan)."""
        from llmcost.training.plan import operator_breakdown, operator_rows

        return operator_rows(operator_breakdown(self.spec, self.result.layout.plan, self.hardware))

    def kernel_times(self) -> dict[str, float] | None:
        """One step's device time on one device by kernel class (GEMM, attention, elementwise,
        optimizer: :mod:`llmcost.training.kernel_classes`, what a profiler's kernel table sums to);
        None with pipeline parallelism."""
        from llmcost.training.kernel_classes import step_kernel_times

        return step_kernel_times(self.spec, self.result.layout.plan, self.hardware, self.result)

    def network(self) -> dict[str, Any] | None:
        """The plan's scale-out network (:func:`llmcost.training.network.network_dict`): its bill of
        materials, cost per device-hour and share of the device-hour price, cost and step time over a
        full-bisection fat tree's; None when the plan needs no billed network."""
        from llmcost.training.network import network_dict, network_figures

        return network_dict(network_figures(self.spec, self.result.layout.plan, self.hardware, self.result))

    def sublayers(self) -> list[dict[str, Any]]:
        """``llmcost train --sublayers``: each TP sublayer (a GEMM and the collective(s) that reduce
        its output) per layer shape and pass, alone, one after the other and as the plan runs them,
        with its speed-up (:func:`llmcost.training.plan.sublayer_rows`); none without TP."""
        from llmcost.training.plan import sublayer_rows

        return sublayer_rows(self.spec, self.result.layout.plan, self.hardware)

    def as_dict(self) -> dict[str, Any]:
        """``llmcost train --format json``: the metrics, rates, plan, time and memory breakdowns
        (SI units), the network (:meth:`network`) and, with ``tokens``, the run's FLOPs, time,
        GPU-hours, energy and cost."""
        from llmcost.economics.power import facility, pue_of
        from llmcost.training.plan import goodput_of
        from llmcost.training.run import run_totals
        from llmcost.training.step import FLOPS_CONVENTION
        from llmcost.validation.bands import band, evidence

        r, hw, tokens = self.result, self.hardware, self.tokens
        out: dict[str, Any] = dict(r.metrics())
        out["tokens_per_s"] = r.tokens_per_s
        out["model_flops_per_step"] = r.model_flops_step
        out["hardware_flops_per_step"] = r.hw_flops_step
        out["flops_convention"] = FLOPS_CONVENTION
        out["plan"] = _train_plan_dict(r)
        if self.stack is not None:  # so --plan of this output costs the same (the stack's device figures)
            out["plan"]["stack"] = self.stack
        out["time_breakdown_s"] = dict(r.breakdown)
        out["memory_bytes"] = dict(r.memory)
        plan = r.layout.plan
        b = band(hw, plan.zero == 3, self.spec.is_moe, plan.zero3_serial)
        out["band"] = None if b is None else [b["low"], b["high"]]
        out["band_runs_max_gpus"] = None if b is None else b["max_gpus"]
        out["evidence"] = evidence(hw, r.gpus)
        out["network"] = self.network()
        if r.ordinary_dp is not None:  # DiLoCo: the same plan as ordinary data parallelism
            out["ordinary_dp"] = dict(r.ordinary_dp)
        pue = pue_of(r.layout.plan.pue)
        out["mean_draw_w"] = r.row["mean_draw_w"]
        out["joules_per_token"] = float(facility(r.row["joules_per_token"], pue))
        if tokens is not None:
            run = run_totals(
                tokens,
                r.tokens_step,
                step_time=r.step_time,
                gpus=r.gpus,
                flops_step=r.model_flops_step,
                power_w=r.row["mean_draw_w"],
                price_h=hw.price_per_hour,
                goodput=goodput_of(r.layout.plan),
            )
            out["total_flops"] = run.total_flops
            out["time_to_train_s"] = float(run.time_to_train_s)
            out["gpu_hours"] = float(run.gpu_hours)
            out["energy_j"] = float(facility(run.energy_j, pue))
            out["cost_usd"] = None if run.cost_usd is None else float(run.cost_usd)
        return out


def _train_plan_dict(r: TrainResult) -> dict[str, Any]:
    """The plan as costed (defaults resolved), in train plan keys."""
    from llmcost.training.plan import OPTION_KEYS, STACK_KEYS, grad_fp32

    lay = r.layout
    return {
        "gpus": r.gpus,
        "tp": lay.tp,
        "pp": lay.pp,
        "dp": lay.dp,
        "cp": lay.cp,
        "ep": lay.ep,
        "sp": lay.sp,
        "tp_overlap": lay.plan.tp_overlap,
        "zero": lay.plan.zero,
        "distributed_optimizer": lay.plan.distributed_optimizer,
        "micro_batch": lay.plan.micro_batch,
        "global_batch": lay.global_batch,
        "micro_batches": lay.m,
        "seq_len": lay.seq,
        "recompute": lay.plan.recompute,
        **_modules_key(lay.plan),
        **({"mtp_layers": lay.plan.mtp_layers} if lay.plan.mtp_layers else {}),
        **({"pp_layout": lay.plan.pp_layout} if lay.plan.pp_layout else {}),
        **({"expert_tp": lay.plan.expert_tp} if lay.plan.expert_tp not in (None, lay.tp) else {}),
        "schedule": lay.plan.schedule,
        "virtual_stages": lay.v,
        "precision": lay.plan.precision,
        "attention": "flash" if lay.flash else "materialized",
        **{k: getattr(lay.plan, k) for k in STACK_KEYS},
        "grad_reduce_in_fp32": grad_fp32(lay.plan),
        **_sync_keys(lay.plan),
        **({"network": lay.plan.network} if lay.plan.network is not None else {}),
        **{k: True for k in OPTION_KEYS if getattr(lay.plan, k)},
        **_imbalance_key(lay),
        **(lay.workload.plan_keys() if lay.workload is not None else {}),
        **_power_keys(lay.plan),
    }


def _modules_key(plan: Any) -> dict[str, Any]:
    """``recompute_modules`` where the plan names them (plain selective recomputation prints none)."""
    if plan.recompute != "selective" or plan.recompute_modules is None:
        return {}
    return {"recompute_modules": list(plan.recompute_modules)}


def _imbalance_key(lay: Any) -> dict[str, Any]:
    """``ep_imbalance`` as costed (the default resolved) where the plan has expert parallelism."""
    from llmcost.graph.ops import EP_IMBALANCE

    if lay.ep <= 1:
        return {}
    imb = lay.plan.ep_imbalance
    return {"ep_imbalance": EP_IMBALANCE if imb is None else float(imb)}


def _power_keys(plan: Any) -> dict[str, Any]:
    """``power_cap`` (W) and ``pue`` where the plan sets them (a plain plan prints neither)."""
    from llmcost.economics.power import cap_of

    out = {"power_cap": cap_of(plan.power_cap), "pue": plan.pue}
    return {k: v for k, v in out.items() if v is not None}


def _sync_keys(plan: Any) -> dict[str, Any]:
    """DiLoCo's plan keys where the plan sets them (ordinary data parallelism prints none)."""
    from llmcost.training.plan import SYNC_BITS

    if plan.sync_interval == 1:
        return {}
    out = {"sync_interval": plan.sync_interval, "sync_bytes": plan.sync_bytes or SYNC_BITS / 8}
    if (plan.sync_fragments, plan.sync_overlap) != (1, 0):
        out.update(sync_fragments=plan.sync_fragments, sync_overlap=plan.sync_overlap)
    return out


@dataclass(repr=False)
class InferReport(_ReadsThrough):
    """One inference plan costed (``llmcost infer``): ``result`` is the
    :class:`llmcost.inference.serve.InferenceResult`."""

    result: InferenceResult
    hardware: Hardware

    def metrics(self) -> dict[str, Any]:
        """The validation README's infer metrics (plus max batch, $ and J per output token)."""
        return self.result.metrics()

    def as_dict(self) -> dict[str, Any]:
        """``llmcost infer --format json``: the metrics, memory per component (GiB), batch and GPUs."""
        from llmcost.units import GIB

        r = self.result
        out = dict(r.metrics())
        out["memory_gib_per_gpu_by_component"] = {k: v / GIB for k, v in r.memory.items()}
        out["batch"] = r.batch
        out["gpus"] = r.gpus
        return out


@dataclass(repr=False)
class TTSReport(_ReadsThrough):
    """One test-time-scaling query costed (``llmcost tts``): ``result`` is the
    :class:`llmcost.tts.query.TTSResult`."""

    result: TTSResult
    hardware: Hardware

    def metrics(self) -> dict[str, Any]:
        """The validation README's tts metrics (plus $ and J per query, generated tokens)."""
        return self.result.metrics()

    def as_dict(self) -> dict[str, Any]:
        """``llmcost tts --format json``: the metrics and their parts, intensity, devices, memory, notes."""
        from llmcost.units import GIB

        r = self.result
        t = r.totals
        out = dict(r.metrics())
        out |= {
            "latency_by_part_s": r.latency,
            "flops_by_part": {k: t[k] for k in ("linear_flops", "attention_flops")},
            "bytes_by_part": {k: t[k] for k in ("weight_bytes", "kv_read_bytes", "activation_bytes")},
            "intensity": r.intensity,
            "devices": r.devices,
            "memory_gib_per_gpu": {k: v / GIB for k, v in r.memory.items()},
            "notes": r.notes,
        }
        return out


@dataclass(repr=False)
class CollectiveReport(_ReadsThrough):
    """One collective costed: ``result`` is the :class:`llmcost.collectives.cost.CollectiveCost`
    of the algorithm asked for, or of the one ``auto`` picks."""

    result: CollectiveCost
    hardware: Hardware

    def metrics(self) -> dict[str, float]:
        """The validation README's collective metrics (GB/s = 1e9 B/s)."""
        r = self.result
        return {
            "time_s": float(r.time),
            "busbw_gbps": float(r.busbw) / 1e9,
            "algbw_gbps": float(r.algbw) / 1e9,
        }

    def as_dict(self) -> dict[str, Any]:
        """The algorithm's row of ``llmcost collective --format json`` (without its ``auto`` and
        ``fastest`` marks, which compare it with the algorithms not costed here)."""
        r = self.result
        return {
            "algorithm": str(r.algo),
            "protocol": str(r.protocol),
            "size_bytes": r.size,
            "time_s": float(r.time),
            "algbw_Bps": float(r.algbw),
            "busbw_Bps": float(r.busbw),
        }


@dataclass(repr=False)
class SearchReport(_ReadsThrough):
    """A plan search (``llmcost search train | infer``): ``result`` is the
    :class:`llmcost.search.common.SearchResult`; ``space`` the space searched (defaults resolved)."""

    result: SearchResult
    model: str
    hardware: list[Hardware]
    space: TrainSpace | InferSpace

    def networks(self) -> list[dict[str, Any]]:
        """A train search's scale-out network, one bill of materials per hardware and GPU count
        searched (:func:`llmcost.economics.network.bill`); empty for an inference search or where no
        network is billed."""
        from llmcost.economics.network import bill
        from llmcost.search.train import TrainSpace

        if not isinstance(self.space, TrainSpace):
            return []
        out = []
        for hw in self.hardware:
            for g in self.space.gpus:
                b = bill(hw, int(g), price_h=hw.price_per_hour)
                if b is not None:
                    out.append({"hardware": hw.id, **b.as_dict()})
        return out

    def as_dict(self) -> dict[str, Any]:
        """``llmcost search train | infer --format json`` (a train search also its ``network``)."""
        from llmcost.search.train import TrainSpace

        out = self.result.to_dict()
        if isinstance(self.space, TrainSpace):
            out["network"] = self.networks()
        return out


# ------------------------------------------------------------------------------ arguments
def _model_arg(model: Any) -> Any:
    """What the cost layer's model resolver takes: an id or path as a string, a mapping as a
    dict, a ModelSpec as it is."""
    from llmcost.model.spec import ModelSpec

    if isinstance(model, ModelSpec):
        return model
    if isinstance(model, (str, os.PathLike)):
        return os.fspath(model)
    if isinstance(model, Mapping):
        return dict(model)
    raise UserError(
        f"model: expected a catalog id, a config file, a config mapping or a ModelSpec, got {type(model).__name__}"
    )


def _spec(model: Any) -> ModelSpec:
    from llmcost.model.config import spec_of

    return spec_of(_model_arg(model))


def _hardware(hw: Any, wan: str | None = None) -> Hardware:
    """A hardware id or entry; with ``wan`` (``--wan SITE,BANDWIDTH,LATENCY``) its devices in sites
    joined by a WAN tier (:meth:`llmcost.hardware.Hardware.with_wan`)."""
    from llmcost.catalog import get_hardware
    from llmcost.hardware import Hardware, parse_wan

    if isinstance(hw, str):
        hw = get_hardware(hw)
    elif not isinstance(hw, Hardware):
        raise UserError(f"hardware: expected a hardware id or a Hardware, got {type(hw).__name__}")
    return hw if wan is None else hw.with_wan(*parse_wan(wan))


def _given(keys: Mapping[str, Any]) -> dict[str, Any]:
    """The keys set (None: not given, as an option left out)."""
    return {k: v for k, v in keys.items() if v is not None}


def _fields(obj: Any, drop: Sequence[str] = ()) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in fields(obj) if f.name not in drop}


def _plan_file(plan: Any) -> Path | None:
    return Path(plan) if isinstance(plan, (str, os.PathLike)) else None


# ------------------------------------------------------------------------------ plans
def train_plan(
    plan: TrainPlan | Mapping[str, Any] | str | os.PathLike[str] | None = None, **keys: Any
) -> TrainPlan:
    """A :class:`~llmcost.training.plan.TrainPlan` from a plan, a mapping of train plan keys (a
    case's ``plan:`` / ``cluster:`` nesting is read too) or a YAML / JSON plan file (``--plan``),
    with ``keys`` (train plan keys; None = not given) overriding it. ``gpus`` is required. A
    ``stack`` key is not part of a TrainPlan and is dropped: :func:`train` of the mapping applies it."""
    from llmcost.training.plan import TrainPlan

    given = _given(keys)
    if isinstance(plan, TrainPlan):
        if not given:
            return plan
        base = _fields(plan)
    else:
        base = _train_base(plan)
    base.update(given)
    base.pop("stack", None)
    if "gpus" not in base or base["gpus"] is None:
        raise UserError("give --gpus N (or gpus in --plan)")
    return TrainPlan.from_mapping(base)


def _stacked(
    plan: Any, keys: dict[str, Any], stack: Any, hw: Hardware
) -> tuple[TrainPlan, Hardware, str | None, Any]:
    """The train plan with a software stack's defaults (from ``stack``, else the plan's ``stack``
    key, else today's mainstream stack, :func:`llmcost.stacks.default_stack`), the device as that
    stack sees it, the note naming the profile and the stack. A :class:`TrainPlan` (every key
    decided) and ``stack="none"`` keep the plan's own defaults: :func:`train_plan` unchanged."""
    from llmcost.stacks import DEFAULT_STACK_NOTE, resolve_stack
    from llmcost.training.plan import TrainPlan

    if isinstance(plan, TrainPlan):
        if stack is not None:
            raise UserError(
                "stack: a TrainPlan is costed as it stands (every key decided); pass its keys as a mapping "
                "(dataclasses.asdict) to have a stack fill what they leave"
            )
        return train_plan(plan, **keys), hw, None, "none"  # as it stands: no profile, and its JSON says so
    base = _train_base(plan)
    base.update(_given(keys))
    chosen, named = resolve_stack(base.pop("stack", None) if stack is None else stack)
    base.pop("stack", None)
    from llmcost.training.stack import under

    mapping, device, choice = under(chosen, base, hw)
    if choice is None:
        return train_plan(mapping), hw, None, "none"  # carried in the JSON plan: --plan of it applies none
    note = choice.note if named else f"{choice.note} ({DEFAULT_STACK_NOTE})"
    return train_plan(mapping), device, note, chosen


def _train_base(plan: Any) -> dict[str, Any]:
    """Train plan keys of a mapping or plan file, ``cluster`` GPUs included."""
    if plan is None:
        return {}
    if _plan_file(plan) is None and not isinstance(plan, Mapping):
        raise UserError(
            f"train plan: expected a TrainPlan, a mapping or a plan file, got {type(plan).__name__}"
        )
    data, base = _plan_keys(plan, "train")
    cluster = data.get("cluster")
    if isinstance(cluster, dict):
        base.setdefault("gpus", cluster.get("gpus"))
        base.setdefault("gpus_per_node", cluster.get("gpus_per_node"))
    return base


def _plan_keys(plan: Any, kind: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A plan file's (or mapping's) document and its plan keys (its ``plan:`` mapping when it has
    one): the one reader of ``--plan`` files; a non-mapping or a key that is not text is one line."""
    path = _plan_file(plan)
    where = f"--plan {path}" if path is not None else f"{kind} plan"
    if path is not None:
        from llmcost.files import read_file

        if not path.is_file():
            raise UserError(f"--plan: file '{path}' does not exist")
        data = read_file(path)
    else:
        data = dict(plan)
    keys = data.get("plan", data) if isinstance(data, dict) else data
    if not isinstance(keys, dict):
        raise UserError(
            f"{where}: expected a mapping of {kind} plan keys (tp, pp, batch, ...), got {type(keys).__name__}"
        )
    bad = next((k for k in keys if not isinstance(k, str)), None)
    if bad is not None:
        raise UserError(f"{where}: plan key {bad!r} is not a name; keys are text such as tp, batch, seq_len")
    return data, dict(keys)


def infer_plan(plan: Plan | Mapping[str, Any] | str | os.PathLike[str] | None = None, **keys: Any) -> Plan:
    """An inference :class:`~llmcost.inference.serve.Plan` from a plan, a mapping of infer plan
    keys (or a case's ``plan:`` within one) or a YAML / JSON plan file (``--plan``), with ``keys``
    (infer plan keys; None = not given) overriding it. ``batch`` defaults to 1."""
    from llmcost.inference.serve import Plan, plan_from_dict

    given = _given(keys)
    if isinstance(plan, Plan):
        if not given:
            return plan
        base = _fields(plan)
    else:
        base = _infer_base(plan)
    base.update(given)
    base.setdefault("batch", 1)
    return plan_from_dict(base)


def _infer_base(plan: Any) -> dict[str, Any]:
    """Infer plan keys of a mapping or plan file (a case's ``plan:`` mapping within it)."""
    if plan is None:
        return {}
    if _plan_file(plan) is None and not isinstance(plan, Mapping):
        raise UserError(f"infer plan: expected a Plan, a mapping or a plan file, got {type(plan).__name__}")
    return _plan_keys(plan, "infer")[1]


def tts_plan(plan: TTSPlan | Mapping[str, Any] | None = None, **keys: Any) -> TTSPlan:
    """A :class:`~llmcost.tts.query.TTSPlan` from a plan or a mapping of tts keys (``strategy``,
    ``samples``, ``prompt_len``, ``gen_len``, ``sparse_attention``, ``verifier``, ``beam_width``,
    ``beam_step``, ``intensity``) and serving keys (``tp``, ``ep``, ``weights``, ``kv_cache``...),
    with ``keys`` (None = not given) overriding it; what is not given is ``llmcost tts``'s default
    (:data:`TTS_DEFAULTS`)."""
    from llmcost.tts.query import TTSPlan

    given = _given(keys)
    if isinstance(plan, TTSPlan):
        if not given:
            plan.check()
            return plan
        base = _tts_keys(plan)
    elif plan is None or isinstance(plan, Mapping):
        base = {**TTS_DEFAULTS, **(plan or {})}
    else:
        raise UserError(f"tts plan: expected a TTSPlan or a mapping of tts keys, got {type(plan).__name__}")
    return _tts_from_keys({**base, **given})


def _tts_keys(plan: TTSPlan) -> dict[str, Any]:
    """A TTSPlan as the flat keys :func:`tts_plan` reads."""
    out = _fields(plan, ("sparse", "infer"))
    out["sparse_attention"] = asdict(plan.sparse) if plan.sparse is not None else None
    out |= _fields(plan.infer, ("batch", "prompt_len", "output_len"))
    return out


def _tts_from_keys(keys: dict[str, Any]) -> TTSPlan:
    """Serving keys (infer plan keys but the workload's) to the serving plan, the rest to the tts
    keys of :func:`llmcost.tts.query.plan_from_dict` (which names an unknown key)."""
    from llmcost.inference.serve import PLAN_KEYS
    from llmcost.inference.serve import plan_from_dict as serving_plan
    from llmcost.tts.query import plan_from_dict

    workload = ("batch", "prompt_len", "output_len")
    serving = {k: v for k, v in keys.items() if k in PLAN_KEYS and k not in workload}
    query = {k: v for k, v in keys.items() if k not in serving}
    serving_plan(serving)  # a serving mistake is named before a query mistake, as llmcost tts always has
    return plan_from_dict(query, serving)


# ------------------------------------------------------------------------------ costings
def train(
    model: str | os.PathLike[str] | Mapping[str, Any] | ModelSpec,
    hardware: str | Hardware = "h100-sxm",
    plan: TrainPlan | Mapping[str, Any] | str | os.PathLike[str] | None = None,
    *,
    tokens: float | str | None = None,
    stack: Mapping[str, Any] | str | None = None,
    wan: str | None = None,
    **plan_keys: Any,
) -> TrainReport:
    """Cost one training plan, as ``llmcost train``: step time and its breakdown, MFU / HFU,
    memory per GPU; with ``tokens`` (a count or ``"15T"``) the run's time, GPU-hours, energy and cost.

    ``plan``: see :func:`train_plan` (``gpus`` required), e.g.
    ``train("llama-3.1-8b", "h100-sxm", gpus=8, tp=2)``. ``stack`` (``{framework, year}`` or
    ``"torchtitan:2025"``; also a ``stack`` key of a plan mapping or file): the software stack's
    profile fills what the plan does not state (attention kernel, DP / TP overlap, fused
    elementwise kernels; :mod:`llmcost.training.stack`); none named: today's mainstream
    (:func:`llmcost.stacks.default_stack`, said in a note); ``"none"``: no profile. A
    :class:`~llmcost.training.plan.TrainPlan` is costed as it stands (no profile; ``stack`` with it
    is an error). A plan that does not divide or fit
    raises :class:`llmcost.errors.PlanError`. ``wan`` (``"SITE,BANDWIDTH,LATENCY"``, e.g. ``"8,10 Gbit/s,40
    ms"``): the devices in sites of SITE joined by a WAN link of that bandwidth per site and one-way
    latency (:meth:`llmcost.hardware.Hardware.with_wan`; a ``wan`` fabric tier of the entry does the same)."""
    from llmcost.economics.budget import parse_count
    from llmcost.training.plan import evaluate

    hw = _hardware(hardware, wan)
    p, hw, stack_note, chosen = _stacked(plan, plan_keys, stack, hw)
    # every input is checked before the plan is costed (a bad tokens is named, not "does not fit")
    if tokens is not None:
        run_tokens: float | None = parse_count(tokens, "--tokens")
    else:
        run_tokens = None if p.tokens is None else parse_count(p.tokens, "plan key 'tokens'")
    spec = _spec(model)
    r = evaluate(spec, p, hw, check_memory=True)
    if stack_note:
        r.notes.insert(0, stack_note)
    if run_tokens is not None:
        from llmcost.training.plan import goodput_of

        r.notes.append(
            f"the run's time, GPU-hours, energy and cost are wall time at goodput {goodput_of(p):g} "
            "(share of wall time that trains; default from the Llama 3 report, --goodput)"
        )
    if p.sp and r.layout.tp == 1:
        r.notes.append("--sp has no effect with tp 1 (nothing to split): sequence parallelism off")
    return TrainReport(r, spec, hw, run_tokens, chosen)


# ------------------------------------------------------------------------------ launch configs
def emit(
    result: Any, framework: str, *, model: str | None = None, rank: int = 1, gpus_per_node: int | None = None
) -> str:
    """A plan in ``framework``'s own terms, as ``--emit FRAMEWORK``: Megatron-LM arguments, a
    torchtitan TOML job config, NeMo Hydra overrides or a DeepSpeed config for a training plan; a
    ``vllm serve``, SGLang or ``trtllm-serve`` command for an inference plan (:mod:`llmcost.launch`,
    each flag's source in its framework's table).

    ``result``: a :class:`TrainReport` or :class:`InferReport` (the header names its predicted
    figures), a :class:`SearchReport` (its plan number ``rank``), or a plan (train / infer plan
    keys, :class:`~llmcost.training.plan.TrainPlan`, :class:`~llmcost.inference.plan.Plan`).
    ``model``: what a serving engine loads (default: the catalog entry's Hugging Face repo)."""
    from llmcost import __version__, launch
    from llmcost.units import fmt_time

    plan, kind, figures, hw, served = _emit_input(result, rank)
    fw = launch.framework(framework, kind)
    served = model or served
    header = [
        f"llmcost {__version__} --emit {fw}"
        + (f": {served}" if served else "")
        + (f" on {hw.id}" if hw else "")
    ]
    m = figures or {}
    if "iteration_time_s" in m:
        header.append(
            f"predicted: step {fmt_time(m['iteration_time_s'])}, MFU {100 * m['mfu']:.1f}%, "
            f"{m['memory_gib_per_gpu']:.1f} GiB/GPU"
        )
    elif "tpot_s" in m:
        header.append(
            f"predicted: TTFT {fmt_time(m['ttft_s'])}, TPOT {fmt_time(m['tpot_s'])}, "
            f"{m['output_tokens_per_s_per_gpu']:.1f} output tok/s/GPU, {m['memory_gib_per_gpu']:.1f} GiB/GPU"
        )
    node = gpus_per_node or (plan.get("gpus_per_node") if isinstance(plan, Mapping) else None)
    node = node or (hw.node_devices if hw else 8)
    engine_model = _served_model(served) if served and fw in launch.INFER else "MODEL"
    target = launch.Target(fw, engine_model, node, tuple(header))
    return launch.render(fw, plan, target)


def _emit_input(
    result: Any, rank: int
) -> tuple[Any, str | None, Mapping[str, Any] | None, Hardware | None, str | None]:
    """(plan, kind, predicted metrics, hardware, model) of what :func:`emit` is given."""
    if isinstance(result, TrainReport):
        r = result.result
        plan = {**_fields(r.layout.plan), **_train_plan_dict(r)}
        return plan, "train", r.metrics(), result.hardware, result.spec.name
    if isinstance(result, InferReport):
        r = result.result
        w, a, kv = r.formats
        plan = {**_fields(r.plan), "batch": r.batch, "weights": w, "activations": a, "kv_cache": kv}
        return plan, "infer", r.metrics(), result.hardware, r.model
    if isinstance(result, SearchReport):
        plans = result.result.plans
        if not 1 <= rank <= len(plans):
            raise UserError(f"--emit: plan {rank} of {len(plans)} (the search kept {len(plans)})")
        p = plans[rank - 1]
        kind = "infer" if "hardware" in p else "train"
        hw = next((h for h in result.hardware if h.id == p.get("hardware")), result.hardware[0])
        return p["plan"], kind, p["metrics"], hw, result.model
    from dataclasses import is_dataclass

    keys = (
        set(result)
        if isinstance(result, Mapping)
        else {f.name for f in fields(result)}
        if is_dataclass(result)
        else set()
    )
    kind = "train" if keys & {"micro_batch", "global_batch", "zero", "recompute"} else None
    kind = kind or ("infer" if keys & {"batch", "prompt_len", "output_len", "kv_cache"} else None)
    return result, kind, None, None, None


def _served_model(model: str) -> str:
    """The Hugging Face repo a catalog model entry names in its sources, else ``model`` as given."""
    import re

    from llmcost.catalog import get_model_config

    try:
        sources = get_model_config(model).get("sources") or []
    except (UserError, OSError, KeyError):
        return model
    for s in sources:
        found = re.search(r"huggingface\.co/([\w.-]+/[\w.-]+)", str(s))
        if found:
            return found.group(1)
    return model


POOL_KEYS = (
    "hw",
    "tp",
    "pp",
    "dp",
    "ep",
    "cp",
    "batch",
    "weights",
    "activations",
    "kv_cache",
    "gpus_per_node",
    "schedule",
    "prefill_chunk",
)
"""Keys of ``--prefill-pool`` / :func:`infer_disaggregated`'s ``prefill_pool``."""


def prefill_pool_keys(text: str | Mapping[str, Any]) -> dict[str, Any]:
    """``--prefill-pool tp=8,batch=4,hw=h100-sxm`` (or a mapping) as its keys (:data:`POOL_KEYS`);
    numbers as ints."""
    from llmcost.errors import did_you_mean

    if isinstance(text, Mapping):
        items = [(str(k), v) for k, v in text.items()]
    else:
        items = []
        for part in str(text).split(","):
            k, sep, v = part.partition("=")
            if not sep or not k.strip() or not v.strip():
                raise UserError(f"--prefill-pool: expected KEY=VALUE[,KEY=VALUE], got {text!r}")
            v = v.strip()
            items.append((k.strip(), int(v) if v.isascii() and v.isdigit() else v))
    out: dict[str, Any] = {}
    for k, v in items:
        if k not in POOL_KEYS:
            raise UserError(
                f"--prefill-pool: unknown key {k!r}: use {', '.join(POOL_KEYS)}{did_you_mean(k, POOL_KEYS)}"
            )
        if k in out:
            raise UserError(f"--prefill-pool: {k!r} given twice")
        out[k] = v
    return out


def infer_disaggregated(
    model: str | os.PathLike[str] | Mapping[str, Any] | ModelSpec,
    hardware: str | Hardware = "h100-sxm",
    plan: Plan | Mapping[str, Any] | str | os.PathLike[str] | None = None,
    *,
    prefill_pool: str | Mapping[str, Any],
    kv_nics: int = 1,
    **plan_keys: Any,
) -> Deployment:
    """Cost a prefill / decode disaggregated deployment, as ``llmcost infer --prefill-pool``: ``plan``
    (and ``plan_keys``) is the decode pool on ``hardware``; ``prefill_pool`` the prefill pool's keys
    (:data:`POOL_KEYS`; not given: tp, pp, dp, ep, cp 1, one prompt per replica, static schedule, no
    chunk, the decode pool's hardware and formats);
    the prompt KV cache is written between them by RDMA over ``kv_nics`` NICs per prefill GPU
    (:mod:`llmcost.inference.disagg`)."""
    from dataclasses import replace

    from llmcost import checks
    from llmcost.inference.disagg import deploy

    dec = infer_plan(plan, **plan_keys)
    keys = prefill_pool_keys(prefill_pool)
    pre_hw = _hardware(keys.pop("hw", hardware))
    base = {k: v for k, v in _fields(dec).items() if k not in ("gpus", "gpus_per_node", "speculative")}
    base.update(tp=1, pp=1, dp=1, ep=1, cp=1, batch=None, schedule="static", prefill_chunk=None)
    base.update(keys)
    if base["batch"] is None:
        base["batch"] = base["dp"]
    from llmcost.inference.serve import plan_from_dict

    pre = plan_from_dict({k: v for k, v in base.items() if v is not None})
    pre = replace(pre, output_len=1, disaggregated=True)
    nics = checks.finite_int(kv_nics, "--kv-nics", 1)
    return deploy(_model_arg(model), pre_hw, pre, _hardware(hardware), dec, nics)


def infer(
    model: str | os.PathLike[str] | Mapping[str, Any] | ModelSpec,
    hardware: str | Hardware = "h100-sxm",
    plan: Plan | Mapping[str, Any] | str | os.PathLike[str] | None = None,
    **plan_keys: Any,
) -> InferReport:
    """Cost one inference plan, as ``llmcost infer``: TTFT, TPOT, throughput, memory per GPU,
    largest batch, $ and J per output token.

    ``plan``: see :func:`infer_plan`, e.g. ``infer("llama-3.1-70b", "h100-sxm", tp=4, batch=16)``.
    A plan that does not divide or fit raises :class:`llmcost.errors.PlanError`."""
    from llmcost.inference.serve import cost

    p = infer_plan(plan, **plan_keys)
    hw = _hardware(hardware)
    return InferReport(cost(_model_arg(model), hw, p), hw)


def tts(
    model: str | os.PathLike[str] | Mapping[str, Any] | ModelSpec,
    hardware: str | Hardware = "h100-sxm",
    plan: TTSPlan | Mapping[str, Any] | None = None,
    **plan_keys: Any,
) -> TTSReport:
    """Cost one test-time-scaling query, as ``llmcost tts``: FLOPs, bytes, Kinetics eFLOPs,
    latency, memory, $ and J.

    ``plan``: see :func:`tts_plan`, e.g. ``tts("qwen3-8b", "h100-sxm", strategy="majority",
    samples=16)``."""
    from llmcost.tts.query import cost

    p = tts_plan(plan, **plan_keys)
    if p.strategy == "beam" and p.beam_width > p.samples:
        raise UserError(
            f"--beam-width {p.beam_width} exceeds --samples {p.samples} (the candidates kept per step); "
            f"use --beam-width <= {p.samples} or raise --samples"
        )
    if p.strategy == "beam" and p.beam_step > p.gen_len:
        raise UserError(
            f"--beam-step {p.beam_step} is longer than --gen-len {p.gen_len}; use --beam-step <= {p.gen_len}"
        )
    hw = _hardware(hardware)
    return TTSReport(cost(_model_arg(model), hw, p), hw)


def collective(
    op: str,
    hardware: str | Hardware = "h100-sxm",
    plan: Mapping[str, Any] | None = None,
    **plan_keys: Any,
) -> CollectiveReport:
    """Cost one collective, as a row of ``llmcost collective``: ``(op, hardware, plan)``, the
    operation in the model's place.

    ``op``: all_reduce, reduce_scatter, all_gather, broadcast, all_to_all or send_recv. ``plan``
    (a mapping, or keyword arguments over it): ``size`` (the full buffer per rank, nccl-tests
    convention: bytes or ``"1GiB"``; ``size_bytes`` as in the validation README), ``gpus``,
    ``gpus_per_node``, ``algorithm`` (``algo``; default ``auto``: the fastest that NCCL would
    run), ``protocol`` and ``nics`` (an ``rdma_write``'s NICs); defaults :data:`COLLECTIVE_DEFAULTS`. E.g.
    ``collective("all_reduce", "h100-sxm", size="1GiB", gpus=16)``."""
    from llmcost.collectives import cost as C
    from llmcost.units import parse

    if plan is not None and not isinstance(plan, Mapping):
        raise UserError(f"collective plan: expected a mapping of collective keys, got {type(plan).__name__}")
    keys = _collective_keys({**(plan or {}), **plan_keys})
    op = C.normalize_op(op)
    hw = _hardware(hardware)
    C.normalize_algo(op, str(keys["algorithm"]))
    C.normalize_protocol(str(keys["protocol"]))
    nbytes = parse(keys["size"], "bytes", what="--size", allow_bare=True)
    gpus = keys["gpus"]
    if isinstance(gpus, bool) or not isinstance(gpus, numbers.Integral):
        raise UserError(f"--gpus: expected an integer, got {gpus!r}")
    from llmcost import checks

    nics = checks.finite_int(keys["nics"], "--nics", 1)
    r = C.collective(
        hw, op, nbytes, int(gpus), keys["gpus_per_node"], str(keys["algorithm"]), str(keys["protocol"]), nics
    )
    return CollectiveReport(r, hw)


def _collective_keys(given: Mapping[str, Any]) -> dict[str, Any]:
    """Collective keys (aliases resolved) over :data:`COLLECTIVE_DEFAULTS`; UserError for an
    unknown key or a key given twice."""
    from llmcost.errors import did_you_mean

    out: dict[str, Any] = {}
    for k, v in given.items():
        key = _COLLECTIVE_ALIASES.get(k, k)
        if key not in COLLECTIVE_DEFAULTS:
            known = [*COLLECTIVE_DEFAULTS, *_COLLECTIVE_ALIASES]
            raise UserError(f"collective key '{k}' is not a collective key{did_you_mean(k, known)}")
        if key in out:
            raise UserError(f"collective: give '{key}' once (also given as '{k}')")
        out[key] = v
    return {**COLLECTIVE_DEFAULTS, **_given(out)}


# ------------------------------------------------------------------------------ capacity
def fit(
    model: str | os.PathLike[str] | Mapping[str, Any] | ModelSpec,
    hardware: str | Hardware = "h100-sxm",
    *,
    mode: str = "train",
    gpus: int | None = None,
    max_devices: int | None = None,
    options: Sequence[Any] | None = None,
    **keys: Any,
) -> Any:
    """The fewest devices ``model`` trains (``mode="train"``: per ZeRO mode x offload tier) or
    serves (``"infer"``: per weight format) on, as ``llmcost fit``
    (:class:`llmcost.capacity.fit.FitReport`); with ``gpus``, the longest sequence / prompt and the
    largest batch that fit on that count. ``keys``: search options (train: seq_len, global_batch,
    precision, ...; infer: batch, prompt_len, output_len, kv_cache, ...). ``options``: the
    (zero, offload) pairs or weight formats to report (default all)."""
    from llmcost.capacity.run import run_fit

    spec, hw = _spec(model), _hardware(hardware)
    return run_fit(spec, hw, mode, gpus, max_devices, options, _given(keys))


# ------------------------------------------------------------------------------ searches
def search_train(
    model: str | os.PathLike[str] | Mapping[str, Any] | ModelSpec,
    hardware: str | Hardware = "h100-sxm",
    space: TrainSpace | Mapping[str, Any] | None = None,
    *,
    tokens: float | str | None = None,
    objective: str = "throughput",
    top: int = 10,
    pareto: bool = False,
    axes: str | Sequence[str] | None = None,
    min_throughput: float | None = None,
    max_memory: float | None = None,
    progress: bool = False,
    jobs: int = 1,
    network: str | None = None,
    wan: str | None = None,
    **space_keys: Any,
) -> SearchReport:
    """Search training plans, as ``llmcost search train``: the ``top`` plans by ``objective``, or
    the Pareto front (``pareto``, on ``axes``); ``jobs`` processes evaluate the chunks of the space
    (the same result bit for bit); ``network``: the scale-out topology every plan runs on
    (:data:`llmcost.hardware.NETWORK_TOPOLOGIES`; default the catalog's), whose bill of materials the
    report carries (:meth:`SearchReport.networks`).

    ``space``: a :class:`llmcost.search.train.TrainSpace`, or a mapping of the space options
    (:data:`llmcost.search.space.TRAIN_KEYS`: each one value, several, or comma-separated text;
    not given = every value the model allows), e.g. ``search_train("llama-3.1-70b", "h100-sxm",
    gpus=64, tp=[4, 8], global_batch=512)``. ``max_memory`` in GiB per GPU, ``min_throughput``
    in tokens/s; ``progress`` shows a progress bar on a terminal; ``wan``: as :func:`train`'s.
    ``stack`` (a space key): a named stack fills what the space does not search and bounds it to
    what the framework runs; none named: today's mainstream fills it and bounds nothing;
    ``"none"``: no profile (as a :class:`~llmcost.search.train.TrainSpace` built directly)."""
    from llmcost import checks
    from llmcost.economics.budget import parse_count
    from llmcost.search import run
    from llmcost.search import space as S
    from llmcost.search.common import check_top
    from llmcost.search.train import TrainSpace

    check_top(top)
    jobs = _jobs(jobs)
    min_throughput = checks.optional_positive(min_throughput, "--min-throughput")
    max_memory = checks.optional_positive(max_memory, "--max-memory")
    run_tokens = parse_count(tokens, "--tokens") if tokens is not None else None
    spec = _spec(model)
    hw = _hardware(hardware, wan).with_network(network)
    if isinstance(space, TrainSpace):
        _no_options(space, space_keys)
        checks.gpus_per_node(hw, space.gpus_per_node)
        S.check_precisions(spec, hw, space.precision)
        declared = space
    else:
        keys = S.keys_of(space, space_keys, S.TRAIN_KEYS, "search train")
        checks.gpus_per_node(hw, keys.get("gpus_per_node"))
        declared = S.train_space(spec, hw, keys)
    res = run.train_search(
        spec,
        hw,
        declared,
        tokens=run_tokens,
        objective=objective,
        top=top,
        pareto=S.axes(axes, ("tokens_per_s", "memory_gib_per_gpu")) if pareto else None,
        min_throughput=min_throughput,
        max_memory_gib=max_memory,
        show_progress=progress,
        jobs=jobs,
    )
    return SearchReport(res, spec.name, [hw], declared)


def _jobs(jobs: Any) -> int:
    """``--jobs``: 1 to :data:`llmcost.search.chunks.MAX_JOBS` processes."""
    from llmcost.search.chunks import MAX_JOBS

    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= MAX_JOBS:
        raise UserError(f"--jobs: expected a number of processes from 1 to {MAX_JOBS}, got {jobs!r}")
    return jobs


def _no_options(space: Any, options: Mapping[str, Any]) -> None:
    if options:
        raise UserError(
            f"give the space as a {type(space).__name__} or as options ({', '.join(options)}), not both"
        )


def _hardware_list(hardware: Any) -> list[Hardware]:
    """Hardware to compare: ids (a list, or comma-separated text) and Hardware objects."""
    from llmcost.hardware import Hardware
    from llmcost.search.space import values

    items = [hardware] if isinstance(hardware, (str, Hardware)) else hardware
    if not isinstance(items, (Sequence, set, frozenset)):
        _hardware(items)  # raises the message naming what a hardware is
    out: list[Hardware] = []
    for item in items:
        if isinstance(item, Hardware):
            out.append(item)
        else:
            out += [_hardware(h) for h in values(str(item), "--hw", str) or ()]
    if not out:
        values("", "--hw", str)  # raises the empty-list message
    return out


def search_infer(
    model: str | os.PathLike[str] | Mapping[str, Any] | ModelSpec,
    hardware: str | Hardware | Sequence[str | Hardware] = "h100-sxm",
    space: InferSpace | Mapping[str, Any] | None = None,
    *,
    objective: str = "throughput_per_gpu",
    top: int = 10,
    pareto: bool = False,
    axes: str | Sequence[str] | None = None,
    max_ttft: float | str | None = None,
    max_tpot: float | str | None = None,
    max_latency: float | str | None = None,
    min_throughput: float | None = None,
    progress: bool = False,
    **space_keys: Any,
) -> SearchReport:
    """Search inference plans, as ``llmcost search infer``, on one or more hardware (ids, Hardware,
    or comma-separated ids) under SLOs (seconds, or text such as ``"50ms"``).

    ``space``: a :class:`llmcost.search.infer.InferSpace`, or a mapping of the space options
    (:data:`llmcost.search.space.INFER_KEYS`: each one value, several, or comma-separated text),
    e.g. ``search_infer("llama-3.1-70b", ["h100-sxm", "mi300x"], max_tpot="50ms", top=5)``."""
    from llmcost import checks
    from llmcost.search import run
    from llmcost.search import space as S
    from llmcost.search.common import check_top

    check_top(top)
    declared, hws = _infer_space(hardware, space, space_keys, min_output=1)
    min_throughput = checks.optional_positive(min_throughput, "--min-throughput")
    m = _model_arg(model)
    res = run.infer_search(
        m,
        hws,
        declared,
        objective=objective,
        top=top,
        pareto=S.axes(axes, ("output_tokens_per_s_per_gpu", "output_tokens_per_s_per_user"))
        if pareto
        else None,
        max_ttft=S.slo_time(max_ttft, "--max-ttft"),
        max_tpot=S.slo_time(max_tpot, "--max-tpot"),
        max_latency=S.slo_time(max_latency, "--max-latency"),
        min_throughput=min_throughput,
        show_progress=progress,
    )
    return SearchReport(res, m if isinstance(m, str) else _spec(m).name, hws, declared)


def _infer_space(
    hardware: Any, space: Any, space_keys: Mapping[str, Any], min_output: int
) -> tuple[InferSpace, list[Hardware]]:
    """The declared infer search space (a :class:`InferSpace`, or options) and its hardware list,
    checked: lengths (``min_output`` output tokens: 2 for a decode pool, which generates all but the
    first) and ranks per node on each device."""
    from llmcost import checks
    from llmcost.search import space as S
    from llmcost.search.infer import InferSpace

    if isinstance(space, InferSpace):
        _no_options(space, space_keys)
        k = _fields(space)
    else:
        k = S.keys_of(space, space_keys, S.INFER_KEYS, "search infer")
    if k.get("prompt_len", 1024) < 1 or k.get("output_len", 256) < min_output:
        raise UserError(
            "--prompt-len and --output-len must be at least 1"
            if min_output == 1
            else "--prompt-len must be at least 1 and --output-len at least 2 (the decode pool generates)"
        )
    hws = _hardware_list(hardware)
    for h in hws:
        checks.gpus_per_node(h, k.get("gpus_per_node"))
    return (space if isinstance(space, InferSpace) else S.infer_space(k)), hws


def search_disaggregated(
    model: str | os.PathLike[str] | Mapping[str, Any] | ModelSpec,
    hardware: str | Hardware | Sequence[str | Hardware] = "h100-sxm",
    space: InferSpace | Mapping[str, Any] | None = None,
    *,
    budget_gpus: int,
    max_ttft: float | str | None = None,
    max_tpot: float | str | None = None,
    top: int = 10,
    kv_nics: int = 1,
    **space_keys: Any,
) -> list[SizedDeployment]:
    """Size a prefill / decode disaggregated deployment, as ``llmcost search infer --disaggregated``:
    the prefill and decode plans of the space (each pool on any of ``hardware``) and their instance
    counts within ``budget_gpus`` that serve the most requests under the TTFT / TPOT SLOs
    (:mod:`llmcost.search.disagg`); a list of :class:`llmcost.search.disagg.SizedDeployment`, best first."""
    from llmcost import checks
    from llmcost.search import disagg
    from llmcost.search import space as S
    from llmcost.search.common import check_top

    check_top(top)
    budget = checks.finite_int(budget_gpus, "--budget-gpus", 2)
    nics = checks.finite_int(kv_nics, "--kv-nics", 1)
    declared, hws = _infer_space(hardware, space, space_keys, min_output=2)
    m = _model_arg(model)
    return disagg.search(
        m,
        hws,
        declared,
        budget,
        max_ttft=S.slo_time(max_ttft, "--max-ttft"),
        max_tpot=S.slo_time(max_tpot, "--max-tpot"),
        top=top,
        nics=nics,
    )
