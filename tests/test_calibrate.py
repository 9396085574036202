"""Calibration: fitted catalog figures refitted by a stated procedure; leave-one-source-out."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml

from llmcost.validation import calibrate as C
from llmcost.validation.cases import load_cases, shipped_files

PICK = ("seqsel-tab5-22b-full", "seqsel-tab5-175b-full", "ptdp-table1-gpt-145b", "ptdp-table1-gpt-310b")


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four A100 training cases from two sources, as a case file."""
    cases = [c for c in load_cases(shipped_files()) if c["id"] in PICK]
    path = tmp_path_factory.mktemp("cal") / "cases.yaml"
    path.write_text(yaml.safe_dump(cases))
    return path


def test_catalog_declares_the_a100_figure() -> None:
    figs = {f.name: f for f in C.catalog_figures()}
    fig = figs["a100-sxm4-80gb:efficiency.compute_train"]
    assert fig.kind == "train" and "a100-sxm4-40gb" in fig.hardware
    assert fig.bounds[0] < fig.value < fig.bounds[1]


def test_minimize_finds_the_minimum_of_a_smooth_function() -> None:
    assert C.minimize(lambda x: (x - 0.637) ** 2, 0.3, 1.0) == pytest.approx(0.637, abs=C.TOLERANCE)
    assert C.minimize(lambda x: x, 0.3, 1.0) == pytest.approx(0.3)  # at a bound


def test_with_figures_overrides_only_matching_hardware_and_keeps_case_overrides() -> None:
    fig = C.Figure("compute", ("a100-sxm4-80gb",), "train", (0.4, 1.0), 0.75)
    case = {
        "id": "x",
        "hardware": "a100-sxm4-80gb",
        "hardware_overrides": {"efficiency": {"memory": {"value": 0.5}}},
    }
    out = C.with_figures(case, {fig: 0.6})
    assert out["hardware_overrides"]["efficiency"] == {"compute": {"value": 0.6}, "memory": {"value": 0.5}}
    assert "efficiency" not in (case["hardware_overrides"] or {}) or case["hardware_overrides"][
        "efficiency"
    ] == {"memory": {"value": 0.5}}
    other = {"id": "y", "hardware": "h100-sxm"}
    assert C.with_figures(other, {fig: 0.6}) is other
    own = {
        "id": "z",
        "hardware": "a100-sxm4-80gb",
        "hardware_overrides": {"efficiency": {"compute": {"value": 0.9}}},
    }
    assert C.with_figures(own, {fig: 0.6})["hardware_overrides"]["efficiency"]["compute"] == {"value": 0.9}


def test_source_key_is_the_source_up_to_the_first_comma() -> None:
    assert C.source_key({"id": "a", "source": "Korthikanti et al. 2022 (arXiv 2205.05198), Table 5"}) == (
        "Korthikanti et al. 2022 (arXiv 2205.05198)"
    )
    assert C.source_key({"id": "a"}) == "a"


def test_fit_lowers_the_objective_and_is_reproducible(small: Path) -> None:
    cases = load_cases([small])
    fig = next(f for f in C.catalog_figures() if f.name == "a100-sxm4-80gb:efficiency.compute_train")
    a = C.fit_figure(fig, cases)
    b = C.fit_figure(fig, cases)
    assert a.value == b.value and len(a.cases) == 4
    assert fig.bounds[0] <= a.value <= fig.bounds[1]
    assert a.objective_after <= a.objective_before + 1e-12
    none = C.fit_figure(fig, [c for c in cases if c["hardware"] != "a100-sxm4-80gb"])
    assert none.value == fig.value and math.isnan(none.objective_after)


def test_leave_one_source_out_refits_without_the_source(small: Path) -> None:
    cases = load_cases([small])
    cv = C.cross_validate(cases, C.catalog_figures())
    assert len(cv.fits) == 2  # two sources, each touching the A100 figure
    for src, fits in cv.fits.items():
        assert all(src not in {C.source_key(c) for c in cases if c["id"] in f.cases} for f in fits)
        assert all(len(f.cases) == 2 for f in fits)
    assert [r.id for r in cv.out_of_sample] == [r.id for r in cv.in_sample]


def test_cli_cross_validate_json_keys(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from llmcost.cli import main

    with pytest.raises(SystemExit) as e:
        main(["validate", str(small), "--cross-validate", "-f", "json"])
    assert e.value.code == 0
    doc = json.loads(capsys.readouterr().out)
    assert all("predicted_out_of_sample" in c and "predicted" in c for c in doc["cases"])
    assert "median_abs_error_out_of_sample" in doc["summary"]["train"]
    assert "median_abs_error" in doc["summary"]["train"]


def test_cli_calibrate_json(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from llmcost.cli import main

    with pytest.raises(SystemExit) as e:
        main(["calibrate", str(small), "-f", "json"])
    assert e.value.code == 0
    doc = json.loads(capsys.readouterr().out)
    fig = next(f for f in doc["figures"] if f["figure"] == "a100-sxm4-80gb:efficiency.compute_train")
    assert fig["cases"] == 4
    assert sorted(fig["case_ids"]) == sorted(PICK)


def test_write_fit_changes_only_the_value(tmp_path: Path) -> None:
    from llmcost.catalog import set_user_dirs, shipped_root

    (tmp_path / "hardware").mkdir()
    for name in ("a100-sxm4-80gb", "a100-sxm4-40gb"):
        text = (shipped_root() / "hardware" / f"{name}.yaml").read_text()
        (tmp_path / "hardware" / f"{name}.yaml").write_text(text)
    set_user_dirs([tmp_path])
    try:
        fig = next(f for f in C.catalog_figures() if f.name == "a100-sxm4-80gb:efficiency.compute_train")
        before = {p.name: p.read_text() for p in (tmp_path / "hardware").iterdir()}
        changed = C.write_fit(C.Fit(fig, 0.66, [], 0.0, 0.0))
        assert len(changed) == 2
        for p in (tmp_path / "hardware").iterdir():
            old, new = before[p.name].splitlines(), p.read_text().splitlines()
            diff = [(a, b) for a, b in zip(old, new, strict=True) if a != b]
            assert len(diff) == 1 and "value: 0.66" in diff[0][1] and "fit:" in diff[0][1]
    finally:
        set_user_dirs([])


def test_a_malformed_fit_mapping_is_one_clear_error(tmp_path: Path) -> None:
    from llmcost.catalog import set_user_dirs, shipped_root
    from llmcost.errors import UserError

    (tmp_path / "hardware").mkdir()
    text = (shipped_root() / "hardware" / "h100-sxm.yaml").read_text()
    (tmp_path / "hardware" / "h100-sxm.yaml").write_text(
        text.replace("bounds: [0.4, 1.0]", "bounds: [0.9, 0.1]")
    )
    set_user_dirs([tmp_path])
    try:
        with pytest.raises(UserError, match=r"h100-sxm: efficiency.compute_train.fit: expected"):
            C.catalog_figures(["h100-sxm"])
    finally:
        set_user_dirs([])
