"""What a serving engine adds around the GPU's kernels: per-step host time and CUDA graphs.

A serving engine runs one *engine step* after another (a decode step, a prefill pass, a mixed
step of continuous batching). Besides the kernels the GPU runs, each step costs host (CPU) time:
scheduling, preparing the inputs, copying the sampled tokens back, processing every sequence's
output. A *synchronous* engine does that between two GPU steps, so it adds to every step; an
*overlap* (asynchronous) scheduler prepares step n + 1 while the GPU runs step n, so only the part
longer than the GPU step shows. Steps captured as a CUDA graph launch in one call; an *eager* step
issues its kernels one by one from Python, and when issuing them takes longer than running them the
GPU waits (:func:`llmcost.inference.formulas.engine_step`).

A case's ``stack: {framework, year}`` (or a plan's ``stack`` key, ``infer --stack NAME[:YEAR]``)
selects a :class:`ServingProfile` below; its figures become the plan keys ``host_step_s``,
``host_seq_s``, ``overlap_scheduler`` and ``graphs`` that the plan does not state. Every figure
names its source; a figure nobody published stays 0 (not priced), never a guess. No stack, or a
framework without a profile: nothing is added (the figures llmcost gave before profiles existed).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

GRAPHS = ("all", "decode", "none")
"""Values of plan key ``graphs``: which engine steps run as captured CUDA graphs (or a compiled
engine): ``all`` (every step; TensorRT engines, vLLM V1's piecewise graphs), ``decode`` (pure decode
steps only; a step carrying prefill tokens runs eagerly), ``none`` (every step eager: vLLM
``--enforce-eager``, SGLang ``--disable-cuda-graph``)."""

EAGER_OP_S = 46e-6
"""Host time to issue one operator of llmcost's graph eagerly (s): vLLM PR #1440 ("CUDA graph for
Llama", 2023-10-20): Llama-2-7B at batch 1, 100 output tokens, ~1.2 s without CUDA graphs and
~1.05 s with them, i.e. ~12 ms per eager decode step, host-bound; llmcost's graph has 259
operators in that step (8 per layer x 32 layers + 3), so ~46 us each [derived]. It covers the
framework's Python module code and the several PyTorch ops behind one llmcost operator (norm,
rotary, cache write, attention, ...), not only ``cudaLaunchKernel``."""


@dataclass(frozen=True)
class ServingProfile:
    """One serving engine over a range of years (``host_*`` in seconds; 0 = not published)."""

    framework: str
    years: tuple[int, int]
    host_step_s: float
    host_seq_s: float
    overlap: bool
    graphs: str
    sources: Mapping[str, str]

    @property
    def label(self) -> str:
        a, b = self.years
        return f"{self.framework} ({a})" if a == b else f"{self.framework} ({a}-{b})"

    def plan_keys(self) -> dict[str, Any]:
        """The plan keys this profile sets (:data:`HOST_KEYS`)."""
        return dict(
            zip(HOST_KEYS, (self.host_step_s, self.host_seq_s, self.overlap, self.graphs), strict=True)
        )


HOST_KEYS = ("host_step_s", "host_seq_s", "overlap_scheduler", "graphs")
"""Infer plan keys a serving profile fills where the plan does not state them."""

_V0_BUBBLE = (
    "vllm-project/vllm RFC #6854 'Multi-Step Scheduling' (2024-07-26): vLLM V0 with CUDA graphs, "
    "Llama-3-8B on one H100: 'about 4ms of GPU bubble' on every decode step (scheduler, input "
    "preparation, sampled-token copy, output pythonizing; 5-13 ms quoted)"
)
_V0_OUTPUT = (
    "vllm-project/vllm RFC #6913 'Asynchronous Output Processor' (2024-07-29): Llama-3-70B FP8 on "
    "4xH100, output processing 0.2 ms per step at batch 1 and 3.4 ms at batch 32, i.e. ~0.1 ms per "
    "running sequence [derived], not overlapped before v0.6.0"
)
_V0_GRAPHS = (
    "vllm-project/vllm PR #1440 (2023-10): CUDA graphs for decode, enforce_eager default False; "
    "V0's model runner captures decode batches only, prefill runs eagerly"
)
_V1 = (
    "vLLM V1 (default engine from v0.8.0, 2025-03; blog 2025-01-27 'vLLM V1'): persistent batch, "
    "piecewise CUDA graphs over every step but the attention kernels"
)
_V1_HOST = (
    "vllm-project/vllm PR #25872 (2025): --async-scheduling cut mean TPOT 9.91 -> 9.57 ms at "
    "concurrency 1 (Llama-3.1-8B), i.e. ~0.34 ms of host time exposed per step by the synchronous "
    "V1 loop [derived]; per-sequence cost not published"
)
_V1_ASYNC = (
    "vllm-project/vllm PR #27614 (2025-11): async scheduling on by default (the Q4 2025 roadmap item; "
    "PR #31998 extends it to speculative decoding, 2026-01); the host work of step n+1 runs under step n"
)
_SGL_HOST = (
    "sgl-project/sglang PR #5608 (2025-04): decode overlap schedule, Llama-3.1-8B TP4, 16 running "
    "requests: 3053.86 -> 3458.31 tok/s, i.e. 5.24 -> 4.63 ms per step, ~0.6 ms host exposed without "
    "overlap [derived]; per-sequence cost not published"
)
_SGL_OVERLAP = (
    "LMSYS blog 2024-12-04 'SGLang v0.4': zero-overhead batch scheduler (the CPU schedules one batch "
    "ahead), on by default from v0.4"
)
_SGL_GRAPHS = (
    "sgl-project/sglang server args: CUDA graphs capture decode batches up to --cuda-graph-max-bs; "
    "extend (prefill) batches run eagerly (--disable-cuda-graph turns decode graphs off)"
)
_TRT_CPP = (
    "TensorRT-LLM C++ runtime (gptSessionBenchmark / gptManager, 2023-2024): a TensorRT engine "
    "enqueued from C++, no per-operator Python; host time per step not published"
)
_TRT_PYT = (
    "TensorRT-LLM PyTorch backend (default from v1.0, 2025): overlap scheduler on by default "
    "(docs features/overlap-scheduler, disable_overlap_scheduler=False); CUDA graphs for "
    "generation-only batches, steps with context requests eager (docs features/"
    "torch_compile_and_piecewise_cuda_graph); host time per step not published"
)
_UNPUBLISHED = "not published: 0 (not priced)"


def _p(
    fw: str,
    years: tuple[int, int],
    step: tuple[float, str],
    seq: tuple[float, str],
    ovl: tuple[bool, str],
    gr: tuple[str, str],
) -> ServingProfile:
    src = {"host_step_s": step[1], "host_seq_s": seq[1], "overlap_scheduler": ovl[1], "graphs": gr[1]}
    return ServingProfile(fw, years, step[0], seq[0], ovl[0], gr[0], src)


PROFILES: tuple[ServingProfile, ...] = (
    _p(
        "vllm",
        (2023, 2024),
        (4e-3, _V0_BUBBLE),
        (1e-4, _V0_OUTPUT),
        (False, _V0_BUBBLE),
        ("decode", _V0_GRAPHS),
    ),
    _p("vllm", (2025, 2025), (3.4e-4, _V1_HOST), (0.0, _UNPUBLISHED), (False, _V1_HOST), ("all", _V1)),
    _p("vllm", (2026, 2026), (3.4e-4, _V1_HOST), (0.0, _UNPUBLISHED), (True, _V1_ASYNC), ("all", _V1)),
    _p(
        "sglang",
        (2023, 2024),
        (6e-4, _SGL_HOST),
        (0.0, _UNPUBLISHED),
        (False, _SGL_OVERLAP),
        ("decode", _SGL_GRAPHS),
    ),
    _p(
        "sglang",
        (2025, 2026),
        (6e-4, _SGL_HOST),
        (0.0, _UNPUBLISHED),
        (True, _SGL_OVERLAP),
        ("decode", _SGL_GRAPHS),
    ),
    _p("tensorrt-llm", (2023, 2024), (0.0, _TRT_CPP), (0.0, _TRT_CPP), (False, _TRT_CPP), ("all", _TRT_CPP)),
    _p(
        "tensorrt-llm", (2025, 2026), (0.0, _TRT_PYT), (0.0, _TRT_PYT), (True, _TRT_PYT), ("decode", _TRT_PYT)
    ),
)

ALIASES = {"trtllm": "tensorrt-llm", "trt-llm": "tensorrt-llm", "tensorrt_llm": "tensorrt-llm"}


def profile_for(framework: str, year: int | None) -> tuple[ServingProfile | None, str]:
    """The profile of ``framework`` for ``year`` (the nearest year range when outside them, the latest
    without a year) and a note naming it; None for a framework without a serving profile."""
    name = ALIASES.get(framework.strip().lower(), framework.strip().lower())
    mine = [p for p in PROFILES if p.framework == name]
    if not mine:
        from llmcost.errors import did_you_mean

        known = dict.fromkeys(p.framework for p in PROFILES)
        return (
            None,
            f"stack '{framework}': no serving profile, host time not priced{did_you_mean(name, known)}",
        )
    if year is None:
        p = mine[-1]
        return p, f"serving stack: {p.label} (no year given: the latest)"
    p = min(
        mine, key=lambda q: 0 if q.years[0] <= year <= q.years[1] else min(abs(year - y) for y in q.years)
    )
    return p, f"serving stack: {p.label}"


def apply(stack: Any, plan: Mapping[str, Any]) -> tuple[dict[str, Any], str | None]:
    """``plan`` with the serving profile of ``stack`` (``{framework, year}`` or ``NAME[:YEAR]``)
    filling the :data:`HOST_KEYS` it does not state, and the note naming the profile."""
    from llmcost.stacks import parse_stack

    name, year = parse_stack(stack)
    out = dict(plan)
    if name is None:
        return out, None
    profile, note = profile_for(name, year)
    if profile is not None:
        for k, v in profile.plan_keys().items():
            out.setdefault(k, v)
    return out, note


TIERS = ("hbm", "host", "nvme")
"""Values of plan key ``weights_tier``: where a decoder layer's weights live between uses."""


def tier_bandwidth(hw: Any, tier: str, devices: int) -> float:
    """Bytes per second one device streams weights from ``tier``: its host link, or the node's NVMe
    read bandwidth shared by the plan's devices on the node (``devices``) and capped by that link
    (:meth:`llmcost.hardware.Hardware.host_bandwidths`; the training offload shares NVMe alike)."""
    link, _, nvme = hw.host_bandwidths(need_nvme=tier == "nvme")
    if tier == "host" or nvme is None:
        return link
    return min(link, nvme / hw.node_share(devices))
