"""Test-time-scaling queries: the :class:`TTSPlan` (strategy, samples, lengths, verifier, top-k
:class:`Sparse` attention, serving plan), its parsing and checks, and the eFLOPs intensity (no
sympy). Costing is :mod:`llmcost.tts.query`.

Sparse attention (Kinetics §5, ``cost_model/utils.py``): top-k keeps ``B = local + block·topk``
KV positions per query per step (``block = 1``: token top-k with zero selection overhead).
Intensity ``I`` of the Kinetics eFLOPs (:func:`intensity`): ``kinetics`` = the device's dense FP8
peak ÷ HBM bandwidth (bf16 when it has no FP8) — on ``b200`` 4.5e15 / 8e12 = 562.5, Kinetics'
``E_flops``; ``plan`` = the peak at the plan's GEMM precision ÷ HBM bandwidth (the ridge point
of the latency model); or a number.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from llmcost import checks
from llmcost import rules as R
from llmcost.errors import PlanError, UserError
from llmcost.hardware import Hardware
from llmcost.inference import plan as IP

STRATEGIES = ("best_of_n", "majority", "sequential", "beam")


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
    infer: IP.Plan = field(default_factory=IP.Plan)

    def check(self) -> None:
        if self.strategy not in STRATEGIES:
            from llmcost.errors import did_you_mean

            raise UserError(
                f"strategy '{self.strategy}' is not a strategy{did_you_mean(self.strategy, STRATEGIES)}"
            )
        from llmcost.checks import finite_int

        for key in ("samples", "gen_len", "beam_width", "beam_step"):
            v = getattr(self, key)
            if not isinstance(v, int):
                raise UserError(f"{key.replace('_', '-')}: expected an integer >= 1, got {v!r}")
            finite_int(v, key.replace("_", "-"))
        if not isinstance(self.prompt_len, int):
            raise UserError(f"prompt-len: expected an integer >= 0, got {self.prompt_len!r}")
        finite_int(self.prompt_len, "prompt-len", 0)
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
    kw["infer"] = IP.plan_from_dict(base)
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
