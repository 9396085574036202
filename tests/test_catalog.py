"""Catalog loading: shipped entries, user directories, systems, aliases and error messages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from llmcost.catalog import Catalog, shipped_root
from llmcost.errors import CatalogError, UnknownIdError, UserError
from tests.conftest import REQUIRED_HW

DATA = Path(__file__).parent / "data"


def _entry() -> dict:
    return yaml.safe_load((DATA / "test-gpu.yaml").read_text())


def _user_catalog(tmp_path: Path, entries: dict[str, dict | str]) -> Path:
    hw = tmp_path / "hardware"
    hw.mkdir(parents=True, exist_ok=True)
    for name, body in entries.items():
        text = body if isinstance(body, str) else yaml.safe_dump(body)
        (hw / f"{name}.yaml").write_text(text)
    return tmp_path


def test_every_required_hardware_id_resolves() -> None:
    cat = Catalog()
    for hid in REQUIRED_HW:
        hw = cat.hardware(hid)
        assert hw.id == hid
        assert hw.peak and hw.memory_capacity > 0 and hw.memory_bandwidth > 0 and hw.tdp > 0
        assert hw.fabric[-1].bandwidth > 0


def test_every_shipped_hardware_file_validates() -> None:
    cat = Catalog()
    ids = cat.ids("hardware")
    assert len(ids) >= len(REQUIRED_HW)
    for hid in ids:
        hw = cat.hardware(hid)
        assert hw.raw["sources"], hid
        assert 0 < hw.compute_efficiency <= 1 and 0 < hw.memory_efficiency <= 1
        for tier in hw.fabric:
            assert 0 < tier.efficiency <= 1 and tier.efficiency_source.strip()


def test_dense_not_sparse_peak_for_hopper() -> None:
    hw = Catalog().hardware("h100-sxm")
    assert hw.peak["bf16"] == pytest.approx(989.4e12, rel=0.01)  # dense; the sparse headline is 1979
    assert hw.peak["fp8"] == pytest.approx(2 * hw.peak["bf16"], rel=0.01)
    assert hw.memory_capacity == 80 * 2**30  # marketed "80GB" is GiB-sized HBM
    assert hw.fabric[0].bandwidth == pytest.approx(450e9)  # NVLink 4: 900 GB/s bidirectional


def test_alias_and_case_insensitive_lookup() -> None:
    cat = Catalog()
    assert cat.hardware("H100-SXM").id == "h100-sxm"


def test_unknown_id_suggests() -> None:
    with pytest.raises(UnknownIdError) as e:
        Catalog().hardware("h100-smx")
    assert "did you mean" in str(e.value) and "h100-sxm" in str(e.value)


def test_user_directory_adds_and_overrides(tmp_path: Path) -> None:
    over = _entry()
    over["id"] = "h100-sxm"
    over["memory"]["capacity"] = "96 GiB"
    root = _user_catalog(tmp_path, {"test-gpu": _entry(), "h100-sxm": over})
    cat = Catalog([root])
    assert cat.hardware("test-gpu").peak["bf16"] == pytest.approx(989.4e12)
    assert cat.hardware("h100-sxm").memory_capacity == 96 * 2**30


def test_env_variable_adds_directories(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _user_catalog(tmp_path, {"test-gpu": _entry()})
    monkeypatch.setenv("LLMCOST_CATALOG", str(root))
    assert Catalog().hardware("test-gpu").id == "test-gpu"


def test_loose_files_are_classified(tmp_path: Path) -> None:
    (tmp_path / "test-gpu.yaml").write_text(yaml.safe_dump(_entry()))
    cfg = {"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64}
    (tmp_path / "tiny.json").write_text(json.dumps(cfg))
    cat = Catalog([tmp_path])
    assert "test-gpu" in cat.ids("hardware")
    assert cat.model_config("tiny")[0]["hidden_size"] == 64


def test_system_entry_merges_over_base(tmp_path: Path) -> None:
    system = {
        "id": "test-rack",
        "base": "test-gpu",
        "type": "system",
        "name": "Test rack",
        "fabric": {"scale_up": {"devices": 72}},
    }
    cat = Catalog([_user_catalog(tmp_path, {"test-gpu": _entry(), "test-rack": system})])
    rack = cat.hardware("test-rack")
    assert rack.fabric[0].devices == 72
    assert rack.fabric[0].bandwidth == pytest.approx(450e9)  # inherited
    assert rack.raw["based_on"] == "test-gpu"


def test_system_base_cycle_is_an_error(tmp_path: Path) -> None:
    a = {"id": "a", "base": "b"}
    b = {"id": "b", "base": "a"}
    with pytest.raises(CatalogError, match="refers back"):
        Catalog([_user_catalog(tmp_path, {"a": a, "b": b})]).hardware("a")


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda e: e["memory"].update(bandwidth="3.35 TB"), "memory.bandwidth"),
        (lambda e: e["memory"].pop("capacity"), "missing required key 'memory.capacity'"),
        (lambda e: e["compute"].update(bf17="1 TFLOPS"), "compute.bf17"),
        (lambda e: e["efficiency"]["compute"].update(value=1.7), "efficiency.compute.value"),
        (lambda e: e["fabric"]["scale_up"].update(topology="hypercube"), "fabric.scale_up.topology"),
        (lambda e: e.update(sources=[]), "sources"),
        (lambda e: e["fabric"]["scale_up"].update(devices=None), "only one tier may be unbounded"),
        (lambda e: e.update(host_memory={"nvme_capacity": "30 TB/s"}), "host_memory.nvme_capacity"),
        (lambda e: e.update(host_memory={"nvme_bandwidth": "50 GB"}), "host_memory.nvme_bandwidth"),
    ],
)
def test_malformed_entries_name_file_and_key(tmp_path: Path, mutate, message: str) -> None:
    entry = _entry()
    mutate(entry)
    cat = Catalog([_user_catalog(tmp_path, {"test-gpu": entry})])
    with pytest.raises(CatalogError) as e:
        cat.hardware("test-gpu")
    text = str(e.value)
    assert message in text and "test-gpu.yaml" in text and "\n" not in text


def test_yaml_syntax_error_names_line(tmp_path: Path) -> None:
    cat = Catalog([_user_catalog(tmp_path, {"test-gpu": "id: x\ncompute: {bf16: [\n"})])
    with pytest.raises(CatalogError, match=r"test-gpu.yaml: invalid YAML at line \d+"):
        cat.hardware("test-gpu")


def test_missing_catalog_directory_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="not a directory"):
        Catalog([tmp_path / "nope"])


def test_overrides_deep_merge() -> None:
    hw = Catalog().hardware("h100-sxm")
    slower = hw.with_overrides({"memory": {"bandwidth": "2 TB/s"}})
    assert slower.memory_bandwidth == 2e12
    assert slower.memory_capacity == hw.memory_capacity
    assert hw.memory_bandwidth != 2e12  # the original is untouched


def test_flat_datasheet_override_keys() -> None:
    """The validation case format writes overrides as flat datasheet keys."""
    hw = Catalog().hardware("h100-sxm")
    over = {
        "bf16_tflops": 800,
        "fp8_tflops": 1600,
        "hbm_capacity_gib": 96,
        "hbm_bandwidth_tbps": 2.4,
        "tdp_w": 500,
    }
    h = hw.with_overrides(over)
    assert h.peak["bf16"] == 800e12 and h.peak["fp8"] == 1600e12
    assert (
        h.memory_capacity == 96 * 2**30
        and h.memory_usable == h.memory_capacity
        and h.memory_bandwidth == 2.4e12
        and h.tdp == 500
    )
    with pytest.raises(UserError, match="did you mean 'bf16_tflops'"):
        hw.with_overrides({"bf16_tflop": 800})


def test_shipped_root_has_catalogs() -> None:
    root = shipped_root()
    assert (root / "hardware").is_dir() and (root / "models").is_dir()
