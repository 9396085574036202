"""``python -m sglang.launch_server`` command of an inference plan.

Flags from SGLang's server-argument reference (docs/advanced_features/server_arguments.md, generated
from python/sglang/srt/server_args.py) at commit 004813e, and its parallelism cookbook."""

from __future__ import annotations

from typing import Any

from llmcost.launch.common import Lines, Target
from llmcost.launch.serving import attention_dp, kv_fp8, shared_notes
from llmcost.launch.vllm import command

DOCS = "https://github.com/sgl-project/sglang/blob/004813e1dd464844bd92ddbca5cab8c024a75f78/docs/advanced_features/server_arguments.md"
COOKBOOK = "https://docs.sglang.io/cookbook/base/reference/server_arguments"

FLAGS: dict[str, str] = {
    "--model-path": DOCS,
    "--tp-size": DOCS,
    "--pp-size": DOCS,
    "--dp-size": COOKBOOK,
    "--ep-size": COOKBOOK,
    "--enable-dp-attention": COOKBOOK,
    "--quantization": DOCS,
    "--kv-cache-dtype": DOCS,
    "--max-running-requests": DOCS,
    "--context-length": DOCS,
    "--chunked-prefill-size": DOCS,
}
"""Flag -> the SGLang page that documents it."""


def render(p: dict[str, Any], t: Target) -> str:
    w = Lines(FLAGS)
    shared_notes(w, p, "SGLang")
    w.add("--model-path", t.model)
    adp = attention_dp(p)
    # with DP attention, --tp-size is every rank of the engine and --dp-size splits its attention
    w.add("--tp-size", p["tp"] * p["dp"] if adp else p["tp"])
    if p["pp"] > 1:
        w.add("--pp-size", p["pp"])
    if p["dp"] > 1:
        w.add("--dp-size", p["dp"])
    if adp:
        w.add("--enable-dp-attention")
    if p["ep"] > 1:
        w.add("--ep-size", p["ep"])
    if p["weights"] == "fp8":
        w.add("--quantization", "fp8")
    if kv_fp8(p):
        w.add("--kv-cache-dtype", "fp8_e4m3")
    w.add("--max-running-requests", p["batch"])
    w.add("--context-length", p["prompt_len"] + p["output_len"])
    if p["prefill_chunk"]:
        w.add("--chunked-prefill-size", p["prefill_chunk"])
    return command(t, w, "python -m sglang.launch_server")
