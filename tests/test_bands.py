"""Error bands: published runs like a plan, relative to llmcost's out-of-sample prediction of them."""

from __future__ import annotations

import pytest

from llmcost.catalog import get_hardware
from llmcost.validation import bands as B
from llmcost.validation._bands import BANDS, CASES_DIGEST
from llmcost.validation.cases import load_cases, shipped_files


def test_shipped_table_matches_the_shipped_cases() -> None:
    """Regenerate with ``llmcost validate --cross-validate --write-bands`` when the cases change."""
    assert B.cases_digest(load_cases(shipped_files())) == CASES_DIGEST
    assert "*" in BANDS and all(lo <= hi and n >= B.MIN_CASES for lo, hi, n in BANDS.values())


def test_residual_is_true_over_predicted_throughput() -> None:
    assert B.residual("tokens_per_s_per_gpu", 0.25) == pytest.approx(1 / 1.25 - 1)  # over-predicted
    assert B.residual("iteration_time_s", 0.25) == pytest.approx(0.25)  # slow prediction: true is faster
    assert B.residual("total_flops", 0.1) is None


def test_band_falls_back_to_wider_sets() -> None:
    h100 = B.band(get_hardware("h100-sxm"), zero3=True, moe=False)
    assert h100 is not None and h100["like"].startswith("NVIDIA Hopper")
    odd = B.band(get_hardware("mi300x"), zero3=False, moe=True)  # no AMD training cases
    assert odd is not None and odd["like"] == "*"


def test_train_and_search_carry_the_band() -> None:
    import llmcost

    rep = llmcost.train("llama-3.2-1b", "h100-sxm", gpus=8, zero=3, global_batch=16, seq_len=2048).as_dict()
    assert rep["band"] == list(BANDS["NVIDIA Hopper|zero3=True|moe=False"][:2])
    res = llmcost.search_train("llama-3.2-1b", "h100-sxm", gpus=8, global_batch=16, seq_len=2048, top=2)
    assert all(len(p["metrics"]["band"]) == 2 for p in res.plans)
