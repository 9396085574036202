"""The pipeline bubble runs at the pace of the stages other than the busiest one (``r_bub``)."""

from __future__ import annotations

import numpy as np
import pytest

from llmcost.catalog import get_hardware
from llmcost.model.config import from_config
from llmcost.training import plan as TR
from llmcost.training.pipeline import _other_pace

A100 = get_hardware("a100-sxm4-80gb")


def _spec(vocab: int) -> object:
    cfg = {
        "model_type": "gpt",
        "num_hidden_layers": 8,
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "intermediate_size": 16384,
        "vocab_size": vocab,
        "hidden_act": "gelu",
        "tie_word_embeddings": False,
        "max_position_embeddings": 2048,
    }
    return from_config(cfg, where=f"gpt-vocab{vocab}")


def _bubble_share(vocab: int, schedule: str = "1f1b") -> float:
    """The bubble over ``(p − 1)`` busiest-stage micro-batches (1 when the stages are equal)."""
    plan = {"gpus": 4, "pp": 4, "micro_batch": 1, "global_batch": 16, "seq_len": 2048}
    plan |= {"recompute": "none", "schedule": schedule}
    if schedule == "interleaved":
        plan["virtual_stages"] = 2
    r = TR.evaluate(_spec(vocab), TR.TrainPlan.from_mapping(plan), A100)
    b, m = r.breakdown, 16
    per_mb = (b["compute_fwd"] + b["compute_bwd"] + b["compute_recompute"] + b["tp_comm"]) / m
    v = 2 if schedule == "interleaved" else 1
    return b["pp_bubble"] / (3 * per_mb / v)


def test_other_pace_is_the_mean_of_the_other_stages() -> None:
    totals = np.array([[10.0, 4.0], [12.0, 4.0]])  # [composition, row]
    best = np.array([1, 0])
    got = _other_pace(totals, best, np.array([3.0, 1.0]))
    assert got[0] == pytest.approx(30.0 / 3 / 12.0)
    assert got[1] == pytest.approx(1.0)  # equal stages: the busiest's pace


def test_one_stage_has_nothing_else_to_wait_on() -> None:
    assert _other_pace(np.array([[5.0]]), np.array([0]), np.array([1.0]))[0] == 1.0


@pytest.mark.parametrize("schedule", ["1f1b", "interleaved"])
def test_a_heavy_head_slows_the_last_stage_not_the_bubble(schedule: str) -> None:
    light, heavy = _bubble_share(1024, schedule), _bubble_share(256_000, schedule)
    assert heavy < light <= 1.0 + 1e-12
    assert heavy < 0.95  # the head's share of the last stage does not pace the fill and drain
