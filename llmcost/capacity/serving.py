"""``llmcost fit --infer``: the fewest devices each weight format serves a batch and context on,
and the largest batch / longest prompt on a given count (:mod:`llmcost.capacity.fit`)."""

from __future__ import annotations

from typing import Any

from llmcost.capacity.fit import MISSING, FitOption, counts, dominant, fewest, largest
from llmcost.errors import PlanError, UserError
from llmcost.hardware import Hardware
from llmcost.model.spec import ModelSpec

FORMATS = ("bf16", "fp8", "int4", "fp4")
"""Weight formats ``fit --infer`` reports (those the device has a peak or a dequantizing path for)."""


def _search(spec: ModelSpec, hw: Hardware, gpus: int, keys: dict[str, Any]) -> dict[str, Any] | None:
    """The best serving plan on ``gpus`` devices with ``keys`` (one batch, one format), or None when
    none fits there (a bad option, or a missing catalog figure, is raised as it is)."""
    from llmcost.search import run
    from llmcost.search import space as S

    declared = S.infer_space(S.keys_of(None, {**keys, "gpus": gpus}, S.INFER_KEYS, "fit"))
    try:
        res = run.infer_search(
            spec, [hw], declared, objective="throughput_per_gpu", top=1, pareto=None, max_ttft=None,
            max_tpot=None, max_latency=None, min_throughput=None, show_progress=False,
        )  # fmt: skip
    except (UserError, PlanError) as e:
        if MISSING in str(e):
            raise
        return None
    return res.plans[0] if res.plans else None


def fit_options(
    spec: ModelSpec, hw: Hardware, keys: dict[str, Any], limit: int, formats: tuple[str, ...] = FORMATS
) -> list[FitOption]:
    """Each weight format's fewest devices within ``limit`` for the batch and lengths of ``keys``
    (the KV cache in the activation format the plan defaults to), with the best plan there."""
    from llmcost.inference.serve import cost, plan_from_dict

    cands = counts(hw, limit)
    out = []
    for w in formats:
        opt = {"weights": w}
        probe = {**keys, "weights": w}
        n = fewest(cands, lambda g, probe=probe: _search(spec, hw, g, probe) is not None, opt, limit)
        if isinstance(n, FitOption):
            out.append(n)
            continue
        best = _search(spec, hw, n, probe)
        if best is None:
            out.append(FitOption(opt, n))
            continue
        plan = {k: v for k, v in best["plan"].items() if k != "hardware"}
        r = cost(spec, hw, plan_from_dict(plan))
        metrics = {k: best["metrics"][k] for k in _HEADLINE if k in best["metrics"]}
        out.append(FitOption(opt, n, plan, metrics, dominant(_device_parts(r.memory))))
    return out


_HEADLINE = ("ttft_s", "tpot_s", "output_tokens_per_s", "output_tokens_per_s_per_gpu", "memory_gib_per_gpu")


def _device_parts(memory: dict[str, float]) -> dict[str, float]:
    """The components a plan's memory holds (not the runtime reserve, a fixed share of the device)."""
    return {k: v for k, v in memory.items() if k not in ("total", "usable", "reserved")}


def on_count(
    spec: ModelSpec, hw: Hardware, gpus: int, keys: dict[str, Any], ctx_cap: int, option: str | None = None
) -> dict[str, Any]:
    """On ``gpus`` devices, with weights in ``option`` (None: the plan's): the largest batch that
    fits at the plan's lengths, and the longest prompt that fits one sequence (output length as given)."""
    from llmcost.checks import MAX_COUNT

    base = {k: v for k, v in keys.items() if k != "batch"}
    if option is not None:
        base["weights"] = option
    batch = largest(1, MAX_COUNT, lambda b: _search(spec, hw, gpus, {**base, "batch": b}) is not None)
    out_len = int(keys.get("output_len", 256))
    one = {k: v for k, v in base.items() if k != "prompt_len"}
    cap = max(1, ctx_cap - out_len)
    prompt = largest(
        1, cap, lambda n: _search(spec, hw, gpus, {**one, "batch": 1, "prompt_len": n}) is not None
    )
    out = {"gpus": gpus, **({} if option is None else {"weights": option})}
    return {**out, "largest_batch": batch, "longest_prompt_len": prompt, "output_len": out_len}
