"""What every launch-config writer shares: the plan keys with their defaults resolved, the lines
of a config, a TOML writer and the comment of a plan value a framework has no setting for."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

from llmcost.errors import UserError


@dataclass(frozen=True)
class Target:
    """Where a plan is launched: ``model`` is what an engine loads (a Hugging Face repo id where the
    catalog entry names one), ``gpus_per_node`` the node size, ``header`` the comment lines that
    open the config (llmcost version, the plan's predicted figures)."""

    framework: str
    model: str = "MODEL"
    gpus_per_node: int = 8
    header: tuple[str, ...] = ()


def as_keys(plan: Any) -> dict[str, Any]:
    """A plan mapping or dataclass (:class:`llmcost.training.plan.TrainPlan`,
    :class:`llmcost.inference.plan.Plan`) as a dict of its keys."""
    if isinstance(plan, Mapping):
        return dict(plan)
    if is_dataclass(plan) and not isinstance(plan, type):
        return {f.name: getattr(plan, f.name) for f in fields(plan)}
    raise UserError(f"--emit: expected a plan mapping or dataclass, got {type(plan).__name__}")


def train_keys(plan: Any) -> dict[str, Any]:
    """Train plan keys (validation README) with :class:`~llmcost.training.plan.TrainPlan`'s defaults
    resolved: dp from the GPU count, sp on with tp > 1, global batch dp x micro-batch."""
    d = as_keys(plan)
    out: dict[str, Any] = {
        "tp": 1, "pp": 1, "cp": 1, "ep": 1, "zero": 0, "distributed_optimizer": False, "micro_batch": 1,
        "recompute": "none", "schedule": "1f1b", "virtual_stages": None, "precision": "bf16",
        "overlap_dp": True, "tp_overlap": False, "offload": "none", "offload_activations": False, "offload_layers": 0,
        "fp8_recipe": "delayed", "seq_len": None,
    }  # fmt: skip
    out.update({k: v for k, v in d.items() if v is not None})
    out["zero"] = 3 if str(out["zero"]).lower() == "fsdp" else int(out["zero"])
    model_parallel = out["tp"] * out["pp"] * out["cp"]
    if "gpus" not in out:
        out["gpus"] = model_parallel * int(out.get("dp") or 1)
    out.setdefault("dp", out["gpus"] // model_parallel)
    if out.get("sp") is None:
        out["sp"] = out["tp"] > 1
    out.setdefault("global_batch", out["dp"] * out["micro_batch"])
    out["offload"] = out["offload"] or "none"
    return out


def infer_keys(plan: Any) -> dict[str, Any]:
    """Infer plan keys (validation README) with :class:`~llmcost.inference.plan.Plan`'s defaults."""
    d = as_keys(plan)
    out: dict[str, Any] = {
        "tp": 1, "pp": 1, "dp": 1, "cp": 1, "ep": 1, "batch": 1, "prompt_len": 1024, "output_len": 128,
        "weights": "bf16", "activations": None, "kv_cache": None, "disaggregated": False, "speculative": None,
        "schedule": "static", "prefill_chunk": None, "weights_tier": None, "kv_tier": None,
    }  # fmt: skip
    out.update({k: v for k, v in d.items() if v is not None})
    spec = out["speculative"]
    if spec is not None and not isinstance(spec, Mapping):
        out["speculative"] = as_keys(spec)
    return out


def per_replica(batch: int, dp: int) -> int:
    """Sequences one data-parallel replica runs (the plan's batch is the system's)."""
    return max(1, math.ceil(batch / max(1, dp)))


def nodes(gpus: int, per_node: int) -> str:
    """``64 GPUs (8 nodes x 8)`` or ``4 GPUs (one node)``."""
    if gpus <= per_node:
        return f"{gpus} GPU{'s' if gpus > 1 else ''} (one node)"
    return f"{gpus} GPUs ({math.ceil(gpus / per_node)} nodes x {per_node})"


class Lines:
    """A config's flags in order, each checked against the framework's table of documented names
    (``table``: name -> source URL), and its comment lines (what the plan decides that the
    framework has no setting for)."""

    def __init__(self, table: Mapping[str, str]) -> None:
        self.table = table
        self.items: list[tuple[str, Any]] = []
        self.notes: list[str] = []

    def add(self, name: str, value: Any = None) -> None:
        """Flag ``name`` (with ``value``; None: a switch). Raises on a name not in the table."""
        if name not in self.table:
            raise KeyError(f"{name} is not in the framework's table of documented flags")
        self.items.append((name, value))

    def note(self, text: str) -> None:
        self.notes.append(text)

    def megatron_keys(self, p: Mapping[str, Any], framework: str, has: tuple[str, ...] = ()) -> None:
        """Comments for the plan's Megatron-Core-only keys the framework has no setting for (those
        in ``has`` it sets itself): fine-grained recompute modules, MTP modules, a pipeline layout,
        the experts' tensor-parallel degree."""
        given = {
            "recompute_modules": p.get("recompute_modules"),
            "mtp_layers": p.get("mtp_layers") or None,
            "pp_layout": p.get("pp_layout"),
            "expert_tp": p.get("expert_tp"),
        }
        for key, value in given.items():
            if value is not None and key not in has:
                shown = ", ".join(value) if isinstance(value, list) else value
                self.note(
                    f"{key} {shown}: a Megatron-Core setting with no {framework} equivalent here; not set"
                )

    def workload(self, p: Mapping[str, Any], framework: str) -> None:
        """The comment of a plan's sequence-length distribution (plan ``seq_len_dist``): packing and
        dynamic CP are the data pipeline's and scheduler's, not a launch setting written here."""
        dist = p.get("seq_len_dist")
        if dist is None:
            return
        n = len(dist) if isinstance(dist, (list, tuple)) else "a file of"
        how = f"packing {p.get('packing') or 'document'}" + (", dynamic CP" if p.get("dynamic_cp") else "")
        self.note(
            f"seq_len_dist ({n} lengths, {how}): set in {framework}'s data pipeline, not by these settings"
        )


def header_lines(t: Target, notes: list[str], mark: str = "#") -> list[str]:
    """The opening comment lines: ``t.header`` then the notes, each after ``mark``."""
    return [f"{mark} {line}" for line in (*t.header, *notes)]


def toml_value(v: Any) -> str:
    """One TOML value: a string, boolean, integer, float or list of strings."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


def toml(sections: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Tables of scalar keys as TOML lines (the TOML 1.0 subset a job config needs)."""
    out: list[str] = []
    for name, keys in sections.items():
        if not keys:
            continue
        out += ["", f"[{name}]"] + [f"{k} = {toml_value(v)}" for k, v in keys.items()]
    return out


def refuse(framework: str, why: str) -> UserError:
    """The one-line error of a plan ``framework`` cannot run at all."""
    return UserError(f"--emit {framework}: {why}")
