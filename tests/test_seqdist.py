"""Mixed sequence lengths (plan ``seq_len_dist``, ``packing``, ``dynamic_cp``; ``--seq-len-dist FILE``):
the file and its checks, the moments against direct counts and simulation, the step's physics
(document masks save attention, padding costs tokens, stragglers, dynamic CP), a uniform step
unchanged without a distribution, and search rows that ``train --plan`` re-costs bit for bit."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import llmcost
from llmcost.errors import PlanError, UserError
from llmcost.training import seqdist as SD

LONG_TAIL = [[1024, 0.5], [4096, 0.3], [16384, 0.12], [65536, 0.06], [262144, 0.02]]
"""A long-tailed mix: most sequences short, a few filling the context (the shape ByteScale reports)."""
BASE = dict(gpus=8, tp=2, zero=1, recompute="full", seq_len=8192, global_batch=64)


# --- the distribution -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "words"),
    [
        ([], "list of [length, weight] pairs"),
        ("x", "list of [length, weight] pairs"),
        ([[512]], "entry 1: expected [length, weight]"),
        ([[0, 1.0]], "entry 1 length"),
        ([[2.5, 1.0]], "entry 1 length"),
        ([[512, -1]], "weight must be a finite number >= 0"),
        ([[512, float("nan")]], "weight must be a finite number >= 0"),
        ([[512, True]], "weight must be a finite number >= 0"),
        ([[512, 1], [512, 2]], "listed twice"),
        ([[512, 0], [1024, 0]], "every weight is 0"),
        ([[n, 1] for n in range(1, SD.MAX_BUCKETS + 2)], "at most"),
    ],
)
def test_bad_distribution_is_one_line(value: Any, words: str) -> None:
    with pytest.raises(UserError, match=re.escape(words)):
        SD.parse(value, "seq_len_dist")


def test_files_yaml_json_csv_read_alike(tmp_path: Path) -> None:
    pairs = [[512, 7], [8192, 3]]
    (tmp_path / "d.yaml").write_text("- [512, 7]\n- [8192, 3]\n")
    (tmp_path / "d.json").write_text(json.dumps(pairs))
    (tmp_path / "d.csv").write_text("# lengths of my dataset\nlength,weight\n512,7\n8192,3\n")
    got = [SD.read(tmp_path / f"d.{x}") for x in ("yaml", "json", "csv")]
    assert got[0] == got[1] == got[2] == SD.parse(pairs, "x")
    assert got[0].weights == (0.7, 0.3) and got[0].pairs() == [[512, 7.0], [8192, 3.0]]


def test_bad_files_name_the_file(tmp_path: Path) -> None:
    (tmp_path / "bad.csv").write_text("length,weight\n512,abc\n")
    with pytest.raises(UserError, match="bad.csv: line 2"):
        SD.read(tmp_path / "bad.csv")
    with pytest.raises(UserError, match="no such file"):
        SD.read(tmp_path / "missing.yaml")


# --- moments ------------------------------------------------------------------------------------------------
def test_document_share_of_equal_sequences_is_their_length_over_the_pack() -> None:
    d = SD.parse([[1024, 1]], "x")
    assert SD.doc_share(d, 8192, math.inf) == pytest.approx(1024 / 8192)  # (S/l)·(l²/2)/(S²/2)
    assert SD.doc_share(SD.parse([[8192, 1]], "x"), 8192, math.inf) == 1.0
    # a sequence twice the pack is cut into two packs: each keeps all its pairs
    assert SD.doc_share(SD.parse([[16384, 1]], "x"), 8192, math.inf) == 1.0
    # a window shorter than the sequences leaves less to save
    assert SD.doc_share(d, 8192, 512.0) > SD.doc_share(d, 8192, math.inf)


def test_padded_lengths_are_the_maximum_of_the_micro_batch() -> None:
    d = SD.parse([[100, 1], [300, 1]], "x")
    support, pad, p = SD.padded(d, 8192, 2)
    assert support.tolist() == [100, 300] and pad.tolist() == [0.25, 0.75] and p.tolist() == [0.5, 0.5]
    assert SD.padding_overhead(d, 8192, 2) == pytest.approx((0.25 * 100 + 0.75 * 300) / 200)
    assert SD.padding_overhead(d, 8192, 1) == 1.0  # one sequence per micro-batch: nothing padded
    assert SD.padding_overhead(d, 200, 2) == pytest.approx((0.25 * 100 + 0.75 * 200) / 150)  # truncated


def test_pack_cv_matches_a_simulation_of_packs() -> None:
    d = SD.parse([[256, 0.6], [1024, 0.3], [4096, 0.1]], "x")
    seq = 65536
    rng = np.random.default_rng(0)
    lengths = rng.choice(d.lengths, size=400_000, p=d.weights)
    cut = np.searchsorted(np.cumsum(lengths), np.arange(seq, lengths.sum(), seq))
    kept = np.add.reduceat(SD.causal_pairs(lengths.astype(float), math.inf), np.concatenate([[0], cut]))[:-1]
    assert SD.pack_cv(d, seq) == pytest.approx(kept.std() / kept.mean(), rel=0.1)


def test_expected_maximum_of_normals() -> None:
    assert SD.normal_max(1) == 0.0
    assert SD.normal_max(2) == pytest.approx(1 / math.sqrt(math.pi), abs=1e-6)
    assert SD.normal_max(3) == pytest.approx(1.5 / math.sqrt(math.pi), abs=1e-6)
    assert SD.normal_max(1024) > SD.normal_max(64) > SD.normal_max(8)


@pytest.mark.parametrize(
    ("length", "cap", "cp", "ranks"),
    [
        (2048, 2048, 4, 1),
        (2049, 2048, 4, 2),
        (4096, 2048, 4, 2),
        (4097, 2048, 4, 4),
        (8192, 2048, 4, 4),
        (3000, 1000, 3, 3),
    ],
)
def test_dynamic_cp_degree(length: int, cap: int, cp: int, ranks: int) -> None:
    assert SD.cp_degree(length, cap, cp) == ranks


def test_dynamic_cp_shapes_share_the_tokens() -> None:
    wl = SD.Workload(SD.parse(LONG_TAIL, "x"), "document", True)
    vs = wl.variants(262144, 32, 1, (math.inf,))
    assert sum(v.time for v in vs) == pytest.approx(1.0)
    assert [v.cp for v in vs] == sorted(v.cp for v in vs) and vs[0].cp == 1 and vs[-1].cp == 32
    assert all(v.seq == v.cp * 262144 // 32 for v in vs)


# --- the step -----------------------------------------------------------------------------------------------
def _train(**keys: Any) -> Any:
    return llmcost.train("llama-3.1-8b", "h100-sxm", **{**BASE, **keys})


def test_causal_packing_is_the_uniform_step_bit_for_bit() -> None:
    plain = _train().as_dict()
    causal = _train(seq_len_dist=LONG_TAIL, packing="causal", dp=1, gpus=2).as_dict()
    uniform = _train(dp=1, gpus=2).as_dict()
    assert causal["iteration_time_s"] == uniform["iteration_time_s"]
    assert causal["mfu"] == uniform["mfu"]
    assert "seq_len_dist" not in plain["plan"]


def test_document_mask_saves_attention_work() -> None:
    short = [[512, 0.9], [8192, 0.1]]
    causal = _train(seq_len_dist=short, packing="causal", dp=1, gpus=2).result
    doc = _train(seq_len_dist=short, dp=1, gpus=2).result
    assert doc.model_flops_step < causal.model_flops_step
    assert doc.step_time < causal.step_time  # dp 1: nothing straggles
    assert doc.row["straggler"] == 1.0
    assert doc.tokens_step == causal.tokens_step == 64 * 8192
    assert doc.mfu <= 1.0 and doc.hfu <= 1.0


def test_padding_computes_tokens_it_does_not_train() -> None:
    spread = [[512, 0.7], [8192, 0.3]]
    pad = _train(seq_len_dist=spread, packing="none", micro_batch=4).result
    doc = _train(seq_len_dist=spread, micro_batch=4).result
    real = 64 * (0.7 * 512 + 0.3 * 8192)
    assert pad.tokens_step == pytest.approx(real)
    assert pad.tokens_per_s < doc.tokens_per_s  # padded micro-batches compute pads
    assert pad.model_flops_step < pad.hw_flops_step
    assert pad.row["straggler"] > 1.0 and pad.mfu <= 1.0
    assert any("tokens computed per real token" in n for n in pad.notes)


def test_stragglers_grow_with_data_parallel_ranks() -> None:
    spread = [[512, 0.7], [8192, 0.3]]
    s = [
        _train(seq_len_dist=spread, packing="none", gpus=g, global_batch=8 * g).result.row["straggler"]
        for g in (4, 16, 64)
    ]
    assert 1.0 < s[0] < s[1] < s[2]


def test_dynamic_cp_gains_grow_with_the_context() -> None:
    """ByteScale's direction (Ge et al. 2025, arXiv 2502.21231): on a long-tailed mix, sizing context
    parallelism per sequence beats a static CP mesh, by more as the context (and the CP degree) grows."""
    gains = []
    for seq, cp in ((32768, 4), (131072, 16), (262144, 32)):
        keys = dict(gpus=256, tp=8, cp=cp, seq_len=seq, zero=1, recompute="full", global_batch=32)
        base = llmcost.train("llama-2-7b", "h100-sxm", seq_len_dist=LONG_TAIL, **keys).result
        dyn = llmcost.train("llama-2-7b", "h100-sxm", seq_len_dist=LONG_TAIL, dynamic_cp=True, **keys).result
        assert dyn.breakdown["cp_comm"] < base.breakdown["cp_comm"]
        assert dyn.memory_total == base.memory_total  # the same tokens per rank
        gains.append(base.step_time / dyn.step_time)
    assert 1.0 < gains[0] < gains[1] < gains[2]


@pytest.mark.parametrize(
    ("keys", "words"),
    [
        (dict(packing="none"), "needs a sequence-length distribution"),
        (dict(dynamic_cp=True), "needs a sequence-length distribution"),
        (dict(seq_len_dist=LONG_TAIL, packing="bins"), "use one of document, causal, none"),
        (dict(seq_len_dist=LONG_TAIL, packing="none", dynamic_cp=True), "packing document"),
        (dict(seq_len_dist=LONG_TAIL, dynamic_cp="yes"), "dynamic_cp must be true or false"),
    ],
)
def test_bad_workload_keys(keys: dict[str, Any], words: str) -> None:
    with pytest.raises(PlanError, match=words):
        _train(**keys)


def test_costed_plan_recosts_the_same(tmp_path: Path) -> None:
    d = _train(seq_len_dist=LONG_TAIL[:3], packing="none", micro_batch=2).as_dict()
    assert d["plan"]["seq_len_dist"] == [[1024, 0.5], [4096, 0.3], [16384, 0.12]]
    again = llmcost.train("llama-3.1-8b", "h100-sxm", plan=d["plan"]).as_dict()
    assert again["iteration_time_s"] == d["iteration_time_s"] and again["mfu"] == d["mfu"]


@pytest.mark.parametrize("extra", [dict(), dict(packing="none"), dict(dynamic_cp=True)])
def test_search_rows_recost_bit_for_bit(extra: dict[str, Any]) -> None:
    keys = dict(gpus=16, seq_len=8192, global_batch=64, tp="1,2", cp="1,2,4", recompute="full", **extra)
    rep = llmcost.search_train("llama-3.1-8b", "h100-sxm", seq_len_dist=LONG_TAIL[:3], top=4, **keys)
    two = llmcost.search_train("llama-3.1-8b", "h100-sxm", seq_len_dist=LONG_TAIL[:3], top=4, jobs=2, **keys)
    assert [p["metrics"] for p in rep.result.plans] == [p["metrics"] for p in two.result.plans]
    for p in rep.result.plans:
        again = llmcost.train("llama-3.1-8b", "h100-sxm", plan=p["plan"]).as_dict()
        assert again["tokens_per_s"] == p["metrics"]["tokens_per_s"], p["plan"]


# --- the command line ---------------------------------------------------------------------------------------
def test_cli_train_and_search(cli: Callable[..., Any], tmp_path: Path) -> None:
    f = tmp_path / "lengths.csv"
    f.write_text("length,weight\n512,0.7\n8192,0.3\n")
    r = cli("train", "llama-3.1-8b", "--gpus", "8", "--tp", "2", "--zero", "1", "--seq-len", "8192",
            "--seq-len-dist", str(f), "--packing", "none", "--global-batch", "32", "-f", "json")  # fmt: skip
    assert r.code == 0, r.err
    assert json.loads(r.out)["plan"]["packing"] == "none"
    r = cli("search", "train", "llama-3.1-8b", "--gpus", "8", "--seq-len", "8192", "--seq-len-dist", str(f),
            "--dynamic-cp", "--cp", "2,4", "-f", "json", "--top", "2")  # fmt: skip
    assert r.code == 0, r.err
    assert all(p["plan"]["dynamic_cp"] for p in json.loads(r.out)["plans"])


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--seq-len-dist", "/nonexistent/d.yaml"], "no such file"),
        (["--packing", "none"], "needs a sequence-length distribution"),
        (["--seq-len-dist", "{bad}"], "entry 1: expected [length, weight]"),
    ],
)
def test_cli_bad_input_is_one_line(
    cli: Callable[..., Any], tmp_path: Path, args: list[str], words: str
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("- 512\n")
    args = [a.replace("{bad}", str(bad)) for a in args]
    for cmd in (["train", "llama-3.1-8b", "--gpus", "8"], ["search", "train", "llama-3.1-8b", "--gpus", "8"]):
        r = cli(*cmd, *args)
        assert (
            r.code == 2
            and words in r.err
            and "Traceback" not in r.err
            and len(r.err.strip().splitlines()) == 1
        )


def test_step_speedup_case_needs_a_baseline() -> None:
    from llmcost.validation.cases import run_case

    case = {
        "id": "x", "kind": "train", "hardware": "h100-sxm", "model": "llama-3.1-8b", "cluster": {"gpus": 8},
        "plan": {"tp": 2, "cp": 2, "zero": 1, "seq_len": 8192, "seq_len_dist": LONG_TAIL[:3], "dynamic_cp": True},
        "metric": {"name": "step_speedup", "value": 1.2},
    }  # fmt: skip
    assert "needs metric.baseline" in str(run_case(case).reason)
    case["metric"]["baseline"] = {"dynamic_cp": False}
    res = run_case(case)
    assert res.predicted is not None and res.predicted > 1.0
