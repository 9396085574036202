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


# --- calibrate FILE --out DIR: a user's own cases ---------------------------------------------------
MINE = Path(__file__).parent / "data" / "calibrate-mine.yaml"
TRAIN_8B = ["train", "llama-3.1-8b", "--hw", "h100-sxm", "--gpus", "8", "--global-batch", "16"]
TRAIN_8B += ["--seq-len", "8192", "--zero", "3", "--recompute", "full", "-f", "json"]


def _json(cli, *args: str) -> dict:  # noqa: ANN001
    r = cli(*args)
    from llmcost.catalog import set_user_dirs

    set_user_dirs([])
    assert r.code == 0, r.err
    return json.loads(r.out)


def test_calibrate_out_writes_the_fitted_entries_with_provenance(cli, tmp_path: Path) -> None:  # noqa: ANN001
    out = tmp_path / "cat"
    doc = _json(cli, "calibrate", str(MINE), "--out", str(out), "-f", "json")
    (fig,) = doc["figures"]
    assert fig["figure"] == "h100-sxm:efficiency.compute_train" and fig["cases"] == 3
    assert fig["fitted value"] < fig["catalog value"]  # the user's cluster runs slower than the catalog says
    assert fig["objective after"] < fig["objective before"]
    s = doc["summary"]
    assert s["cases_fitted"] == 3 and s["median_abs_error_after"] < s["median_abs_error_before"]
    rows = {r["id"]: r for r in doc["cases"]}
    assert rows["mine-70b-g64-tp8"]["left out %"] != rows["mine-70b-g64-tp8"]["error after %"]
    assert "'mi300x' is in no fitted figure's scope" in rows["mine-8b-mi300x"]["fitted figure"]
    assert sorted(p.name for p in (out / "hardware").iterdir()) == [
        "h100-sxm.yaml",
        "h200-sxm.yaml",
        "h800-sxm.yaml",
    ]
    for name in ("h100-sxm", "h800-sxm"):
        entry = yaml.safe_load((out / "hardware" / f"{name}.yaml").read_text())["efficiency"]["compute_train"]
        assert entry["value"] == fig["fitted value"]
        cal = entry["fit"]["calibrated"]
        assert (
            cal["files"] == [str(MINE)]
            and len(cal["cases"]) == 3
            and cal["catalog_value"] == fig["catalog value"]
        )
        assert cal["objective_after"] < cal["objective_before"] and cal["date"]
        assert "calibrate" in entry["source"]
    h800 = yaml.safe_load((out / "hardware" / "h800-sxm.yaml").read_text())["efficiency"]["compute_train"]
    assert h800["fit"]["same_as"] == "h100-sxm"
    # the directory is a catalog: its figure is the one calibrate now reads, its train prediction changes
    before = _json(cli, *TRAIN_8B)
    after = _json(cli, "--catalog", str(out), *TRAIN_8B)
    ratio = before["iteration_time_s"] / after["iteration_time_s"]
    assert 0.5 < ratio < 0.95  # slower with the lower figure, not by the whole ratio (not all is GEMMs)
    v0 = _json(cli, "validate", str(MINE), "-f", "json")["summary"]["train"]["median_abs_error"]
    v1 = _json(cli, "--catalog", str(out), "validate", str(MINE), "-f", "json")["summary"]["train"]
    assert v1["median_abs_error"] < v0


def test_calibrate_out_leaves_each_case_out() -> None:
    cases = load_cases([MINE])
    fig = next(f for f in C.catalog_figures() if f.name == "h100-sxm:efficiency.compute_train")
    uf = C.calibrate_cases(cases, [fig])
    assert len(uf.fits) == 1
    assert [r.id for r in uf.left_out] == [c["id"] for c in cases]
    assert set(uf.unused) == {"mine-8b-mi300x"}
    # the 70B case left out is predicted with the figure fitted on the two 8B runs alone
    two = C.fit_figure(fig, [c for c in cases if c["id"] != "mine-70b-g64-tp8"])
    alone = C.run_case(C.with_figures(cases[2], {fig: two.value}))
    assert uf.left_out[2].predicted == alone.predicted and len(two.cases) == 2


def test_a_figure_is_never_fitted_on_cases_it_does_not_move() -> None:
    cases = load_cases([MINE])[:3]  # bf16 runs: h100's fp8 figure is in scope but flat on them
    fp8 = next(f for f in C.catalog_figures() if f.name == "h100-sxm:efficiency.compute_train_fp8")
    assert len(C.fitting_cases(fp8, cases)) == 3 and not any(C.moves(fp8, c) for c in cases)
    assert [f.figure.key for f in C.calibrate_cases(cases, C.catalog_figures()).fits] == ["compute_train"]


@pytest.mark.parametrize(
    ("keep", "args", "message"),
    [
        (slice(0, 1), [], r"moved by 1 case \(mine-8b-g8-s8k\); a figure is one degree of freedom"),
        (
            slice(3, 4),
            [],
            r"no fitted catalog figure depends on these cases \(mine-8b-mi300x: hardware 'mi300x'",
        ),
        (slice(0, 3), ["--write"], r"--write and --out: choose one"),
    ],
    ids=["one-case", "out-of-scope", "write-and-out"],
)
def test_calibrate_out_refusals(cli, tmp_path: Path, keep: slice, args: list[str], message: str) -> None:  # noqa: ANN001
    import re

    path = tmp_path / "cases.yaml"
    path.write_text(yaml.safe_dump(yaml.safe_load(MINE.read_text())[keep]))
    r = cli("calibrate", str(path), "--out", str(tmp_path / "cat"), *args)
    assert r.code == 2 and r.out == "" and len(r.err.strip().splitlines()) == 1
    assert re.search(message, r.err) and "Traceback" not in r.err
    assert not (tmp_path / "cat").exists()


def test_calibrate_out_must_be_a_directory(cli, tmp_path: Path) -> None:  # noqa: ANN001
    (tmp_path / "f").write_text("")
    r = cli("calibrate", str(MINE), "--out", str(tmp_path / "f"))
    assert r.code == 2 and "is not a directory" in r.err
