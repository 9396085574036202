"""ZeRO-3 parameters gathered in prefetch buckets (plan key ``zero3_bucket``): each layer moves in
``ceil(layer params / bucket)`` collectives of the smaller size, the stack mapping, the key's
checks, and a grid mixing bucketed and per-layer rows costing each row as alone."""

from __future__ import annotations

import math

import numpy as np
import pytest

from llmcost.catalog import get_hardware, get_model_config
from llmcost.collectives.cost import collective
from llmcost.errors import PlanError
from llmcost.model.config import from_config
from llmcost.training import data_parallel as DP
from llmcost.training import plan as TR
from llmcost.training import step as TS
from llmcost.training.stack import apply

A100 = get_hardware("a100-sxm4-80gb")
LAT, INV_BW = 1e-3, 1e-11  # the fake collective: latency + bytes / bandwidth
PLAN = {
    "gpus": 1536,
    "gpus_per_node": 8,
    "dp": 1536,
    "zero": 3,
    "micro_batch": 1,
    "global_batch": 1536,
    "seq_len": 2048,
    "recompute": "full",
    "precision": "fp16",
}


@pytest.fixture(scope="module")
def gpt3() -> object:
    return from_config(get_model_config("gpt3-175b"), where="gpt3-175b")


def _z3(spec, **kw) -> dict[str, float]:
    return TR.evaluate(spec, TR.TrainPlan.from_mapping({**PLAN, **kw}), A100).values


def _fake(hw, op, size, group, gpn, stride=1) -> np.ndarray:
    size, group = np.broadcast_arrays(np.asarray(size, dtype=float), np.asarray(group))
    return np.where((group >= 2) & (size > 0), LAT + size * INV_BW, 0.0)


def test_bucketed_gather_is_n_collectives_of_the_smaller_size(gpt3, monkeypatch) -> None:
    with monkeypatch.context() as m:  # a linear collective gives the layer's bytes back
        m.setattr(DP, "collective_v", _fake)
        whole = _z3(gpt3)["t_z3_ag"]
        layer_bytes = (whole - LAT) / INV_BW
        n = math.ceil(layer_bytes / 2 / 5e7)  # fp16 parameters
        assert n > 1
        bucketed = _z3(gpt3, zero3_bucket=5e7)["t_z3_ag"]
        assert bucketed == pytest.approx(n * (LAT + layer_bytes / n * INV_BW), rel=1e-12)
    real = _z3(gpt3, zero3_bucket=5e7)
    one = float(collective(A100, "all_gather", np.array([layer_bytes / n]), 1536, 8).time[0])
    assert real["t_z3_ag"] == pytest.approx(n * one, rel=1e-12)
    rs = float(collective(A100, "reduce_scatter", np.array([layer_bytes / n]), 1536, 8).time[0])
    assert real["t_z3_rs"] == pytest.approx(n * rs, rel=1e-12)
    assert real["t_z3_ag"] > _z3(gpt3)["t_z3_ag"]  # each bucket pays the ring latency


def test_bucket_larger_than_a_layer_is_one_collective(gpt3) -> None:
    assert _z3(gpt3, zero3_bucket=1e12) == _z3(gpt3)
    assert _z3(gpt3, zero3_bucket=1e12, zero=2) == _z3(gpt3, zero=2)


def test_bucket_only_moves_zero3(gpt3) -> None:
    plan = {**PLAN, "zero": 1, "distributed_optimizer": False}
    a = TR.evaluate(gpt3, TR.TrainPlan.from_mapping(plan), A100).metrics()
    b = TR.evaluate(gpt3, TR.TrainPlan.from_mapping({**plan, "zero3_bucket": 5e7}), A100).metrics()
    assert a == b


@pytest.mark.parametrize("bad", ["big", 0, -5, True, float("inf")])
def test_zero3_bucket_is_checked(gpt3, bad) -> None:
    with pytest.raises(PlanError, match="zero3_bucket"):
        TR.check(gpt3, TR.TrainPlan.from_mapping({**PLAN, "zero3_bucket": bad}), A100)


def test_yaml_style_bucket_string_is_a_number(gpt3) -> None:
    assert _z3(gpt3, zero3_bucket="5e7") == _z3(gpt3, zero3_bucket=5e7)


def test_stack_sets_bucket_where_gathered_per_tensor() -> None:
    ds = apply({"framework": "deepspeed", "year": 2021}, {"zero": 3}, A100).plan
    assert ds["zero3_bucket"] == 5e7
    stated = apply({"framework": "deepspeed", "year": 2021}, {"zero3_bucket": 5e8}, A100).plan
    assert stated["zero3_bucket"] == 5e8
    for fw, year in (
        ("torchtitan", 2024),
        ("llm-foundry", 2023),
        ("deepspeed", 2020),
        ("megatron-core", 2024),
    ):
        assert "zero3_bucket" not in apply({"framework": fw, "year": year}, {"zero": 3}, A100).plan


def test_grid_mixing_bucketed_and_per_layer_rows_is_each_row_alone(gpt3) -> None:
    plans = [
        TR.TrainPlan.from_mapping({**PLAN, **kw})
        for kw in (
            {},
            {"zero3_bucket": 5e7},
            {"zero3_bucket": 5e8},
            {"zero": 1},
            {"zero": 1, "zero3_bucket": 5e7},
        )
    ]
    lays = [TR.check(gpt3, p, A100) for p in plans]
    cols = [TR.plan_columns(lay) for lay in lays]
    grid = {k: np.concatenate([c[k] for c in cols]) for k in cols[0]}
    out = TS.evaluate(gpt3, A100, grid, lays[0].seq, lays[0].global_batch, 8)
    for i, lay in enumerate(lays):
        alone = TS.evaluate(gpt3, A100, cols[i], lay.seq, lay.global_batch, 8)
        assert all(float(alone[k][0]) == float(out[k][i]) for k in ("iteration_time_s", *TS.BREAKDOWN))
    t = out["iteration_time_s"]
    assert t[1] > t[2] > t[0] and t[3] == t[4]


def test_fsdp2_copy_out_runs_on_the_compute_stream() -> None:
    """FSDP2 (the torchtitan stack) copies each gather into the unsharded parameters: 2 gathers per
    micro-batch, reading and writing ``b_w`` bytes per parameter at the attained HBM rate, on the
    critical path (``zero3__copy_out``); FSDP1 (llm-foundry) and DeepSpeed gather in place."""
    h100 = get_hardware("h100-sxm")
    spec = from_config(get_model_config("llama-3.1-8b"), where="llama-3.1-8b")
    base = {"gpus": 8, "dp": 8, "zero": "fsdp", "micro_batch": 1, "global_batch": 16, "seq_len": 4096}
    assert apply("torchtitan:2025", base, h100).plan["zero3_copy_out"] is True
    assert "zero3_copy_out" not in apply("llm-foundry:2024", base, h100).plan
    assert "zero3_copy_out" not in apply("deepspeed:2021", base, h100).plan
    off = TR.evaluate(spec, TR.TrainPlan.from_mapping(base), h100)
    on = TR.evaluate(spec, TR.TrainPlan.from_mapping({**base, "zero3_copy_out": True}), h100)
    copy, m = on.row["t_z3_copy"], on.row["n_micro"]
    assert off.row["t_z3_copy"] == 0.0 and m == 2
    params = copy * h100.memory_efficiency * h100.memory_bandwidth / (2 * m * 2 * 2.0)  # b_w 2 (bf16)
    assert 7.9e9 < params < 8.1e9  # the whole unsharded model, each gather
    assert on.breakdown["zero3_comm"] - off.breakdown["zero3_comm"] == pytest.approx(copy, rel=1e-9)


def test_deepspeed_2021_zero3_runs_serial(gpt3: object) -> None:
    """DeepSpeed's ZeRO-3 before v0.6.0 synchronized the device before every parameter gather: the
    2021 profile sets ``zero3_serial``, the 2022 one prefetches. Serial exposes every collective,
    ``m·L·((2 + rc)·t_ag + t_rs)`` (``zero3__serial``), never less than the prefetched form."""
    assert apply("deepspeed:2021", PLAN, A100).plan["zero3_serial"] is True
    assert apply("deepspeed:2022", PLAN, A100).plan["zero3_serial"] is False
    assert "zero3_serial" not in apply("megatron-core:2025", PLAN, A100).plan
    for gpus in (384, 1536):
        plan = {**PLAN, "gpus": gpus, "dp": gpus, "micro_batch": 1536 // gpus}
        pre = TR.evaluate(gpt3, TR.TrainPlan.from_mapping(plan), A100)
        ser = TR.evaluate(gpt3, TR.TrainPlan.from_mapping({**plan, "zero3_serial": True}), A100)
        r = ser.row
        closed = r["n_micro"] * 96 * (3 * r["t_z3_ag"] + r["t_z3_rs"])  # full recompute: three gathers
        assert ser.breakdown["zero3_comm"] == pytest.approx(closed, rel=1e-9)
        assert ser.breakdown["zero3_comm"] >= pre.breakdown["zero3_comm"]
        assert ser.step_time >= pre.step_time
