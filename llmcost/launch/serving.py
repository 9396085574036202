"""What the serving engines' writers share: the plan values none of them sets from a flag."""

from __future__ import annotations

from typing import Any

from llmcost.launch.common import Lines

SIXTEEN = ("bf16", "fp16")


def attention_dp(p: dict[str, Any]) -> bool:
    """Experts spread over more ranks than a replica's TP: the replicas run attention data-parallel
    and the experts across all of them (llmcost's ep > tp, :mod:`llmcost.inference.plan`)."""
    return p["ep"] > p["tp"] and p["dp"] > 1


def shared_notes(w: Lines, p: dict[str, Any], engine: str) -> None:
    """Comments for what the plan decides that no engine flag written here sets."""
    w.note(
        f"{p['tp'] * p['pp'] * p['dp'] * p['cp']} GPUs: tp {p['tp']} x pp {p['pp']} x dp {p['dp']} x cp {p['cp']}"
    )
    weights, acts = p["weights"], p["activations"] or "bf16"
    if weights not in (*SIXTEEN, "fp8"):
        w.note(
            f"weights {weights}: serve a checkpoint quantized to {weights}; {engine} reads its method from the checkpoint"
        )
    if weights not in SIXTEEN and acts not in (weights, "bf16", "fp16"):
        w.note(f"activations {acts} with {weights} weights: needs a checkpoint quantized for it")
    if p["cp"] > 1:
        w.note(f"cp {p['cp']} (prefill ring attention): not set (no equivalent {engine} option written here)")
    if p["schedule"] == "static":
        w.note(
            f"schedule static: the figures are one batch prefilled then decoded together; {engine} batches continuously"
        )
    spec = p["speculative"]
    if spec:
        w.note(
            f"speculative decoding {spec.get('method')}:{spec.get('tokens')}: configure the drafter in {engine}'s"
            " speculative options (checkpoint-specific); not set"
        )
    if p["disaggregated"]:
        w.note(
            "disaggregated: this is one pool of a prefill / decode deployment; launch each pool with its plan"
        )
    for key in ("weights_tier", "kv_tier"):
        if p[key] not in (None, "hbm", "device", "gpu"):
            w.note(f"{key} {p[key]}: not set (size the host offload in {engine} by hand)")


def kv_fp8(p: dict[str, Any]) -> bool | None:
    """True: an fp8 KV cache; False: the model's format; None: another format (no flag)."""
    kv = p["kv_cache"] or p["activations"] or "bf16"
    if kv == "fp8":
        return True
    return False if kv in SIXTEEN else None
