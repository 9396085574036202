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
    assert "*" in BANDS and all(lo <= hi and n >= B.MIN_CASES and g >= 1 for lo, hi, n, g in BANDS.values())


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


def test_evidence_is_the_best_published_run_of_the_plans_size() -> None:
    """The best measured MFU of the device family among runs with at least half the plan's GPUs:
    fewer qualify as the plan grows; the table lists each family best first."""
    from llmcost.validation._bands import EVIDENCE

    a100 = get_hardware("a100-sxm4-80gb")
    runs = EVIDENCE["NVIDIA Ampere"]
    assert [m for _, m, _ in runs] == sorted((m for _, m, _ in runs), reverse=True)
    small, big = B.evidence(a100, 8), B.evidence(a100, 1024)
    assert small is not None and big is not None and big["mfu"] <= small["mfu"]
    assert big["gpus"] >= 512 and big["at_least_gpus"] == 512
    assert big["mfu"] == max(m for g, m, _ in runs if g >= 512)
    assert B.evidence(a100, 10**6) is None


def test_a_plan_beyond_the_evidence_says_so() -> None:
    ev = {"mfu": 0.5, "case": "x", "gpus": 512, "at_least_gpus": 512, "family": "NVIDIA Ampere"}
    note = B.evidence_note(ev, 0.6)
    assert note is not None and "60.0%" in note and "50.0%" in note and ">= 512 GPUs" in note
    assert B.evidence_note(ev, 0.5) is None and B.evidence_note(None, 0.9) is None


def test_search_and_train_report_the_evidence() -> None:
    import llmcost

    res = llmcost.search_train(
        "gpt3-175b", "a100-sxm4-80gb", gpus=1024, global_batch=1536, seq_len=2048, top=3
    )
    ev = B.evidence(get_hardware("a100-sxm4-80gb"), 1024)
    assert ev is not None and all(p["metrics"]["evidence_mfu"] == ev["mfu"] for p in res.plans)
    above = [p for p in res.plans if p["metrics"]["mfu"] > ev["mfu"]]
    assert bool(above) == any("beyond the evidence" in n for n in res.notes)
    rep = llmcost.train(
        "gpt3-175b", "a100-sxm4-80gb", gpus=1024, tp=8, pp=8, global_batch=1536, seq_len=2048
    ).as_dict()
    assert rep["evidence"] == ev


def test_serial_zero3_runs_are_their_own_evidence() -> None:
    """DeepSpeed 2021's ZeRO-3 runs (no prefetch, ``zero3_serial``) are read as their own feature: a
    prefetched ZeRO-3 plan's band is not read off them, a serial one's is."""
    a100 = get_hardware("a100-sxm4-80gb")
    pre, ser = B.band(a100, True, False), B.band(a100, True, False, serial=True)
    assert pre is not None and ser is not None
    assert pre["like"] == "NVIDIA Ampere|zero3=True|moe=False"
    assert ser["like"] == "NVIDIA Ampere|zero3=serial|moe=False"
    assert B.zero3_feature(False, True) is False


def test_a_band_read_off_smaller_runs_says_so() -> None:
    """A plan more than twice the largest run its band is read off gets a note, in train and search."""
    import llmcost

    assert B.scale_note(128, 256) is None and B.beyond_band_scale(None, 10**6) is False
    note = B.scale_note(128, 1024)
    assert note is not None and "128 GPUs" in note and "1,024 GPUs" in note
    res = llmcost.search_train(
        "gpt3-175b", "a100-sxm4-80gb", gpus=1024, global_batch=1536, seq_len=2048, top=3
    )
    small = [p for p in res.plans if B.beyond_band_scale(p["metrics"]["band_runs_max_gpus"], 1024)]
    assert bool(small) == any("read off smaller runs" in n for n in res.notes)
