"""Validation: the shipped public collective cases against the model, and the case-file machinery."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from llmcost.errors import UserError
from llmcost.validation.cases import (
    EVALUATORS,
    Prediction,
    as_json,
    load_cases,
    register_evaluator,
    run,
    shipped_files,
)

ROOT = Path(__file__).resolve().parents[1]
MEDIAN_GOAL = 0.15


def test_shipped_collective_cases_meet_median_goal() -> None:
    """Runs validation/collectives.yaml and prints the table (visible with pytest -rA)."""
    results, summary = run([ROOT / "validation" / "collectives.yaml"])
    print(f"\n{'id':34s} {'metric':11s} {'measured':>11s} {'predicted':>11s} {'error':>8s}  algorithm")
    for r in results:
        err = "-" if r.error is None else f"{100 * r.error:+.1f}%"
        pred = "-" if r.predicted is None else f"{r.predicted:.4g}"
        print(
            f"{r.id:34s} {r.metric:11s} {r.measured:11.4g} {pred:>11s} {err:>8s}  {r.detail.get('algorithm', r.reason)}"
        )
    s = summary["collective"]
    print(
        f"collective: {s['evaluated']}/{s['count']} evaluated, median |err| {100 * s['median_abs_error']:.1f}%, "
        f"mean {100 * s['mean_abs_error']:.1f}%, max {100 * s['max_abs_error']:.1f}%, "
        f"within tolerance {s['within_tolerance']}"
    )
    assert s["evaluated"] == s["count"] == 75
    assert s["median_abs_error"] <= MEDIAN_GOAL
    latency = [abs(r.error) for r in results if r.metric == "time_s" and r.measured < 1e-4]
    bandwidth = [abs(r.error) for r in results if r.metric == "busbw_gbps"]
    print(
        f"latency-bound (KiB) median |err| {100 * statistics.median(latency):.1f}%, "
        f"bandwidth-bound (GiB) median |err| {100 * statistics.median(bandwidth):.1f}%"
    )


def test_unmodelled_kinds_are_listed_with_reason(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A kind with no evaluator keeps every case in the table, predicted None with a reason."""
    monkeypatch.delitem(EVALUATORS, "train", raising=False)
    results, summary = run(shipped_files())
    assert {r.kind for r in results} == {"train", "infer", "collective", "tts", "fit", "network"}
    for r in results:
        if r.kind not in EVALUATORS:
            assert r.predicted is None and r.error is None and "not modelled" in (r.reason or "")
    assert summary["train"]["evaluated"] == 0 and summary["train"]["count"] > 0


def test_json_shape_matches_readme(cli) -> None:  # type: ignore[no-untyped-def]
    r = cli(
        "validate",
        str(ROOT / "validation" / "collectives.yaml"),
        str(ROOT / "validation" / "tts.yaml"),
        "--format",
        "json",
    )
    assert r.code == 0, r.err
    data = json.loads(r.out)
    assert set(data) == {"cases", "summary", "by_source"}
    assert {r["source"] for r in data["by_source"] if r["kind"] == "tts"} == {"Sadhukhan et al. 2025"}
    for c in data["cases"]:
        assert {"id", "kind", "metric", "measured", "predicted", "error"} <= set(c)
        if c["predicted"] is None:
            assert c["reason"]
        else:
            assert c["error"] == pytest.approx((c["predicted"] - c["measured"]) / c["measured"])
    assert data["summary"]["collective"]["count"] == 75


def test_cli_validate_table_default_files(cli) -> None:  # type: ignore[no-untyped-def]
    r = cli("validate")
    assert r.code == 0, r.err
    assert "col-02" in r.out and "summary" in r.out and "tts-01-bon-qwen3-8b" in r.out


def test_evaluator_registry_and_inline_cases(tmp_path: Path) -> None:
    f = tmp_path / "cases.yaml"
    f.write_text(
        "- id: t1\n  kind: tts\n  model: {model_type: llama, hidden_size: 64}\n  hardware: h100-sxm\n"
        "  hardware_overrides: {fabric: {scale_up: {bandwidth: 900 GB/s}}}\n"
        "  tts: {strategy: majority}\n  metric: {name: latency_s, value: 2.0}\n"
        "- id: c1\n  kind: collective\n  hardware: h100-sxm\n  hardware_overrides: {fabric: {scale_up: {bandwidth: 900 GB/s}}}\n"
        "  collective: {op: all_gather, size_bytes: 1073741824, gpus: 8, gpus_per_node: 8, algorithm: ring}\n"
        "  metric: {name: busbw_gbps, value: 700}\n"
    )
    saved = EVALUATORS.pop("tts", None)
    try:

        @register_evaluator("tts")
        def _tts(case: dict, hw: object) -> Prediction:
            return Prediction(2.2)

        results, _ = run([f])
        assert results[0].predicted == 2.2 and results[0].error == pytest.approx(0.1)
        assert results[1].predicted == pytest.approx(900 * 0.82, rel=0.03)  # override deep-merged
        assert as_json(results, {})["cases"][1]["id"] == "c1"
    finally:
        EVALUATORS.pop("tts")
        if saved is not None:
            EVALUATORS["tts"] = saved


def test_bad_files(tmp_path: Path) -> None:
    with pytest.raises(UserError):
        load_cases([tmp_path / "missing.yaml"])
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: x\n")
    with pytest.raises(UserError):
        load_cases([bad])
    bad.write_text("- id: x\n  kind: collective\n  hardware: h100-sxm\n  metric: {name: time_s}\n")
    with pytest.raises(UserError):
        load_cases([bad])
    unknown = tmp_path / "hw.yaml"
    unknown.write_text(
        "- id: x\n  kind: collective\n  hardware: h9000\n  collective: {op: all_reduce, size_bytes: 1024, gpus: 8}\n"
        "  metric: {name: time_s, value: 1.0e-5}\n"
    )
    results, _ = run([unknown])
    assert results[0].predicted is None and "h9000" in (results[0].reason or "")


def test_cluster_gpus_per_node_widens_the_host() -> None:
    """A case's cluster describes the real machine: 16 GPUs per node on a part whose catalog host
    holds 8 widens the host and scale-up domain instead of rejecting the case."""
    from llmcost.validation.cases import case_hardware

    case = {"hardware": "v100-sxm2-32gb", "cluster": {"gpus": 512, "gpus_per_node": 16}}
    hw = case_hardware(case)
    assert hw.node_devices == 16 and hw.fabric[0].devices == 16
    assert case_hardware({"hardware": "v100-sxm2-32gb", "cluster": {"gpus_per_node": 8}}).node_devices == 8
