"""``trtllm-serve`` command (PyTorch backend) of an inference plan, with the LLM-API options it has no
flag for in an ``--extra_llm_api_options`` YAML file.

Flags from tensorrt_llm/commands/serve.py and keys from tensorrt_llm/llmapi/llm_args.py (commits
below); documented at https://nvidia.github.io/TensorRT-LLM/commands/trtllm-serve.html."""

from __future__ import annotations

from typing import Any

import yaml

from llmcost.launch.common import Lines, Target, per_replica
from llmcost.launch.serving import attention_dp, kv_fp8, shared_notes
from llmcost.launch.vllm import command

SERVE = "https://github.com/NVIDIA/TensorRT-LLM/blob/4c05a74891e4df8066f08ed4ce14b0972abe4e25/tensorrt_llm/commands/serve.py"
LLM_ARGS = "https://github.com/NVIDIA/TensorRT-LLM/blob/fcd3f31682808ae56118ae43c1d7864a3a945e6f/tensorrt_llm/llmapi/llm_args.py"

FLAGS: dict[str, str] = {
    "--tp_size": SERVE,
    "--pp_size": SERVE,
    "--ep_size": SERVE,
    "--max_batch_size": SERVE,
    "--max_num_tokens": SERVE,
    "--max_seq_len": SERVE,
    "--enable_chunked_prefill": SERVE,
    "--extra_llm_api_options": SERVE,
    "kv_cache_config.dtype": LLM_ARGS,
    "enable_attention_dp": LLM_ARGS,
}
"""Flag or LLM-API key -> the file that defines it."""

EXTRA = "extra_llm_api_options.yaml"


def render(p: dict[str, Any], t: Target) -> str:
    w, extra = Lines(FLAGS), Lines(FLAGS)
    shared_notes(w, p, "TensorRT-LLM")
    adp = attention_dp(p)
    w.add("--tp_size", p["tp"] * p["dp"] if adp else p["tp"])  # attention DP splits the TP ranks
    if p["pp"] > 1:
        w.add("--pp_size", p["pp"])
    if p["ep"] > 1:
        w.add("--ep_size", p["ep"])
    if adp:
        extra.add("enable_attention_dp", True)
    elif p["dp"] > 1:
        w.note(
            f"dp {p['dp']}: trtllm-serve has no data-parallel option; run {p['dp']} servers behind a router"
        )
    if p["weights"] == "fp8":
        w.note(
            "weights fp8: serve an fp8 checkpoint (TensorRT Model Optimizer); TensorRT-LLM reads it from the checkpoint"
        )
    if kv_fp8(p):
        extra.add("kv_cache_config.dtype", "fp8")
    w.add("--max_batch_size", per_replica(p["batch"], p["dp"]))  # per rank / replica
    w.add("--max_seq_len", p["prompt_len"] + p["output_len"])
    if p["prefill_chunk"]:
        w.add("--enable_chunked_prefill")
        w.add("--max_num_tokens", p["prefill_chunk"])
    head: list[str] = []
    if extra.items:
        doc: dict[str, Any] = {}
        for key, value in extra.items:
            first, _, rest = key.partition(".")
            if rest:
                doc.setdefault(first, {})[rest] = value
            else:
                doc[first] = value
        w.add("--extra_llm_api_options", EXTRA)
        head = [f"cat > {EXTRA} <<'EOF'", yaml.safe_dump(doc, sort_keys=False).rstrip(), "EOF"]
    text = command(t, w, f"trtllm-serve {t.model}")
    if not head:
        return text
    lines = text.split("\n")
    n = sum(1 for line in lines if line.startswith("#"))
    return "\n".join(lines[:n] + head + lines[n:])
