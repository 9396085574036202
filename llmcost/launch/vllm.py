"""``vllm serve`` command of an inference plan.

Flags from vllm/engine/arg_utils.py (``EngineArgs.add_cli_args``) at commit 99d7eb5 (v0.11 line);
documented at https://docs.vllm.ai/en/latest/configuration/engine_args.html."""

from __future__ import annotations

from typing import Any

from llmcost.launch.common import Lines, Target, header_lines, per_replica
from llmcost.launch.serving import kv_fp8, shared_notes

SOURCE = "https://github.com/vllm-project/vllm/blob/99d7eb5d6a512cfcc5a2b104f24ebf2d6cda772b/vllm/engine/arg_utils.py"

FLAGS: dict[str, str] = {
    name: SOURCE
    for name in (
        "--tensor-parallel-size",
        "--pipeline-parallel-size",
        "--data-parallel-size",
        "--enable-expert-parallel",
        "--quantization",
        "--kv-cache-dtype",
        "--max-num-seqs",
        "--max-model-len",
        "--max-num-batched-tokens",
        "--enable-chunked-prefill",
    )
}
"""Flag -> the file that adds it (ModelConfig, ParallelConfig, CacheConfig and SchedulerConfig groups)."""


def render(p: dict[str, Any], t: Target) -> str:
    w = Lines(FLAGS)
    shared_notes(w, p, "vLLM")
    w.add("--tensor-parallel-size", p["tp"])
    if p["pp"] > 1:
        w.add("--pipeline-parallel-size", p["pp"])
    if p["dp"] > 1:
        w.add("--data-parallel-size", p["dp"])
    if p["ep"] > 1:
        w.add("--enable-expert-parallel")
        if p["ep"] != p["tp"] * p["dp"]:
            w.note(f"ep {p['ep']}: vLLM's expert-parallel group is tp x dp = {p['tp'] * p['dp']}")
    if p["weights"] == "fp8":
        w.add("--quantization", "fp8")
    if kv_fp8(p):
        w.add("--kv-cache-dtype", "fp8")
    w.add("--max-num-seqs", per_replica(p["batch"], p["dp"]))
    w.add("--max-model-len", p["prompt_len"] + p["output_len"])
    if p["prefill_chunk"]:
        w.add("--enable-chunked-prefill")
        w.add("--max-num-batched-tokens", p["prefill_chunk"])
    return command(t, w, f"vllm serve {t.model}")


def command(t: Target, w: Lines, head: str, sep: str = " ") -> str:
    """Header comments, then ``head`` and one flag per line, continued with backslashes."""
    args = [k if v is None else f"{k}{sep}{v}" for k, v in w.items]
    body = [head, *args]
    lines = [line + " \\" for line in body[:-1]] + [body[-1]]
    return "\n".join(header_lines(t, w.notes) + [lines[0], *("    " + line for line in lines[1:])])
