"""Gradient precision (plan ``grad_reduce_in_fp32``): fp32 main gradients by default except in
fp16 (Megatron), the 16-bit dtype under DeepSpeed, ZeRO-3 unchanged; memory and the data-parallel
reduction follow it, and the search, ``train`` and a re-costed plan agree."""

from __future__ import annotations

import pytest

import llmcost
from llmcost.errors import PlanError
from llmcost.training.base import precision_bytes

BASE = dict(gpus=64, tp=8, global_batch=256, seq_len=4096, micro_batch=1)
PSI = 8.03e9 / 8  # parameters one tp rank holds (Llama 3 8B, tp 8), roughly


@pytest.mark.parametrize(
    ("zero", "precision", "fp32", "b_g", "b_o"),
    [
        (0, "bf16", None, 4, 12),  # Megatron: fp32 main_grad, forced for bf16
        (0, "fp16", None, 2, 16),  # Megatron fp16: fp16 grads, fp32 copy in the optimizer
        (1, "bf16", None, 4, 12),
        (1, "fp16", None, 2, 12),  # ZeRO paper (fp16)
        (1, "bf16", False, 2, 12),  # DeepSpeed: reduced in the parameter dtype
        (2, "fp8", None, 4, 12),
        (3, "bf16", True, 2, 12),  # FSDP: the fp32 shard is the master, unchanged
        (3, "bf16", False, 2, 12),
    ],
)
def test_bytes_per_gradient(zero: int, precision: str, fp32: bool | None, b_g: float, b_o: float) -> None:
    _, g, o, _ = precision_bytes(zero, precision, fp32)
    assert (g, o) == (b_g, b_o)


def test_zero1_gradient_memory_and_reduction_follow_the_dtype() -> None:
    fp32 = llmcost.train("llama-3-8b", "h100-sxm", zero=1, **BASE)
    bf16 = llmcost.train("llama-3-8b", "h100-sxm", zero=1, grad_reduce_in_fp32=False, **BASE)
    a, b = fp32.result, bf16.result
    assert a.memory["gradients"] == pytest.approx(2 * b.memory["gradients"])
    assert a.memory["gradients"] == pytest.approx(4 * PSI, rel=0.01)
    assert a.values["t_dp"] > b.values["t_dp"]  # twice the bytes reduce-scattered
    assert fp32.as_dict()["plan"]["grad_reduce_in_fp32"] is True
    assert bf16.as_dict()["plan"]["grad_reduce_in_fp32"] is False


def test_default_is_unchanged_for_plain_dp_and_zero3() -> None:
    for keys in (dict(), dict(zero=3), dict(precision="fp16")):
        plain = llmcost.train("llama-3-8b", "h100-sxm", **keys, **BASE).as_dict()
        fp16 = keys.get("precision") == "fp16"
        said = llmcost.train("llama-3-8b", "h100-sxm", grad_reduce_in_fp32=not fp16, **keys, **BASE).as_dict()
        assert said == plain


def test_stack_sets_it_and_the_plan_wins() -> None:
    ds = llmcost.train("llama-3-8b", "h100-sxm", zero=1, stack="deepspeed:2023", **BASE)
    assert ds.as_dict()["plan"]["grad_reduce_in_fp32"] is False
    won = llmcost.train(
        "llama-3-8b", "h100-sxm", zero=1, stack="deepspeed:2023", grad_reduce_in_fp32=True, **BASE
    )
    assert won.as_dict()["plan"]["grad_reduce_in_fp32"] is True
    tt = llmcost.train("llama-3-8b", "h100-sxm", zero=1, stack="torchtitan:2025", **BASE)
    assert tt.as_dict()["plan"]["grad_reduce_in_fp32"] is True


def test_costed_plan_recosts_the_same() -> None:
    d = llmcost.train("llama-3-8b", "h100-sxm", zero=1, stack="deepspeed:2023", **BASE).as_dict()
    again = llmcost.train("llama-3-8b", "h100-sxm", plan=d["plan"]).as_dict()
    assert again["iteration_time_s"] == d["iteration_time_s"]
    assert again["memory_gib_per_gpu"] == d["memory_gib_per_gpu"]


def test_search_rows_recost_bit_for_bit_with_deepspeed() -> None:
    for stack in ("deepspeed:2023", None):
        res = llmcost.search_train(
            "llama-3.2-1b",
            "h100-sxm",
            gpus=8,
            global_batch=32,
            seq_len=2048,
            zero=["1", "2"],
            top=3,
            stack=stack,
        )
        for row in res.plans:
            assert row["plan"]["grad_reduce_in_fp32"] is (stack is None)
            again = llmcost.train("llama-3.2-1b", "h100-sxm", row["plan"]).as_dict()
            for k in ("iteration_time_s", "memory_gib_per_gpu"):
                assert again[k] == row["metrics"][k]


@pytest.mark.parametrize("bad", ["yes", 1, 0.0])
def test_bad_value_is_one_line(bad: object) -> None:
    with pytest.raises(PlanError, match="grad_reduce_in_fp32 must be true or false"):
        llmcost.train("llama-3-8b", "h100-sxm", zero=1, grad_reduce_in_fp32=bad, **BASE)
