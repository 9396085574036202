"""Sanity checks of the shipped hardware catalog data (hardware/*.yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from llmcost.catalog import get_hardware, hardware_ids
from tests.conftest import REQUIRED_HW

HW_DIR = Path(__file__).resolve().parent.parent / "hardware"

REQUIRED_DEVICES = REQUIRED_HW

REQUIRED_SYSTEMS = [
    "dgx-h100-superpod",
    "gb200-nvl72",
    "gb300-nvl72",
    "tpu-v5p-pod",
    "tpu-v4-pod",
    "tpu-v5e-pod",
    "tpu-v6e-pod",
    "cloudmatrix384",
    "mi300x-ubb",
    "deepseek-h800-cluster",
]

ALL_FILES = sorted(p.stem for p in HW_DIR.glob("*.yaml"))
T = 1e12


def _raw(hid: str) -> dict:
    return yaml.safe_load((HW_DIR / f"{hid}.yaml").read_text())


@pytest.mark.parametrize("hid", REQUIRED_DEVICES + REQUIRED_SYSTEMS)
def test_required_ids_exist(hid: str) -> None:
    assert (HW_DIR / f"{hid}.yaml").is_file()
    assert hid in hardware_ids()


@pytest.mark.parametrize("hid", ALL_FILES)
def test_entry_resolves_with_sources_and_efficiency(hid: str) -> None:
    raw = _raw(hid)
    assert raw["id"] == hid
    assert raw.get("sources"), "every file lists its sources"
    assert raw.get("confidence") in ("high", "medium", "low")
    hw = get_hardware(hid)
    assert 0 < hw.compute_efficiency <= 1 and 0 < hw.memory_efficiency <= 1
    eff = hw.raw["efficiency"]
    for key in ["compute", "memory", *(t.key for t in hw.fabric)]:
        assert eff[key]["source"].strip(), f"{hid}: efficiency.{key} needs a source"
    for t in hw.fabric:
        assert 0 < t.efficiency <= 1
        assert t.latency > 0
    assert hw.tdp > 0


@pytest.mark.parametrize("hid", [h for h in ALL_FILES if "base" in _raw(h)])
def test_systems_have_a_real_base(hid: str) -> None:
    raw = _raw(hid)
    assert raw["type"] == "system"
    assert (HW_DIR / f"{raw['base']}.yaml").is_file()


def test_h100_dense_not_sparse() -> None:
    hw = get_hardware("h100-sxm")
    assert hw.peak_flops("bf16") == pytest.approx(989.4 * T)
    assert hw.peak_flops("fp8") == pytest.approx(1978.9 * T)
    assert hw.memory_bandwidth == pytest.approx(3.35 * T)
    assert hw.memory_capacity == 80 * 2**30
    up = hw.tier("scale_up")
    assert up.bandwidth == pytest.approx(450e9) and up.devices == 8
    assert hw.tier("scale_out").bandwidth == pytest.approx(50e9)  # 400 Gbit/s


@pytest.mark.parametrize(
    ("hid", "bf16_tflops"),
    [
        ("a100-sxm4-80gb", 312),
        ("h200-sxm", 989.4),
        ("b200", 2250),
        ("gb200", 2500),
        ("mi300x", 1307.4),
        ("tpu-v5p", 459),
        ("gaudi3", 1835),
        ("trainium2", 667),
        ("rtx-4090", 165.2),
    ],
)
def test_dense_bf16_peaks(hid: str, bf16_tflops: float) -> None:
    assert get_hardware(hid).peak_flops("bf16") == pytest.approx(bf16_tflops * T)


def test_hbm_capacity_is_binary() -> None:
    assert get_hardware("h200-sxm").memory_capacity == 141 * 2**30
    assert get_hardware("mi300x").memory_capacity == 192 * 2**30


def test_mi300x_is_switchless_mesh() -> None:
    for hid in ("mi300x", "mi300x-ubb"):
        up = get_hardware(hid).tier("scale_up")
        assert up.topology == "mesh" and up.links == 7
        assert up.link_bandwidth == pytest.approx(64e9)
        assert not up.in_network_reduction


def test_nvl72_domains() -> None:
    for hid in ("gb200", "gb200-nvl72", "gb300", "gb300-nvl72"):
        hw = get_hardware(hid)
        assert hw.tier("scale_up").devices == 72
        assert hw.node_devices == 4


def test_superpod_has_three_tiers() -> None:
    hw = get_hardware("dgx-h100-superpod")
    assert [t.key for t in hw.fabric] == ["scale_up", "scale_out", "spine"]
    assert [t.devices for t in hw.fabric] == [8, 256, None]


def test_tpu_pods_are_tori() -> None:
    assert get_hardware("tpu-v5p-pod").tier("scale_up").torus_dims == 3
    for hid in ("tpu-v5e-pod", "tpu-v6e-pod"):
        up = get_hardware(hid).tier("scale_up")
        assert up.topology == "torus" and up.torus_dims == 2 and up.devices == 256
        assert [t.key for t in get_hardware(hid).fabric][-1] == "scale_out"


def test_cloudmatrix_domain() -> None:
    assert get_hardware("cloudmatrix384").tier("scale_up").devices == 384


def test_aliases_resolve() -> None:
    assert get_hardware("h100").id == "h100-sxm"
    assert get_hardware("h100-sxm5-80gb").id == "h100-sxm"


# --- optional efficiency figures (docs/CATALOG.md "efficiency") ----------------------------------
def test_per_dtype_and_attention_efficiency_with_fallback() -> None:
    h100 = get_hardware("h100-sxm")
    assert h100.gemm_efficiency("fp8") == 0.50  # efficiency.compute_fp8 (W8A8 with activation quantization)
    assert h100.gemm_efficiency("bf16") == h100.compute_efficiency == 0.80  # no compute_bf16: falls back
    assert h100.attention_efficiency("bf16") == 0.60
    l4 = get_hardware("l4")  # no optional keys: everything falls back to efficiency.compute
    assert l4.gemm_efficiency("fp8") == l4.compute_efficiency
    assert l4.attention_efficiency("bf16") == l4.compute_efficiency


def test_training_gemm_figures_are_fitted_by_the_procedure_and_below_the_measured_peak() -> None:
    """The sustained training GEMM figures carry a fit mapping (llmcost calibrate) and sit below the
    measured best case (gemm_peak, else compute); no hand-picked in-sample figure remains."""
    for hid in ("a100-sxm4-80gb", "h100-sxm"):
        raw = get_hardware(hid).raw["efficiency"]
        peak = raw.get("gemm_peak", raw["compute"])
        assert "MAMF" in peak["source"] and "MAMF" in raw["compute"]["source"]
        assert isinstance(raw["compute_train"].get("fit"), dict)
        assert raw["compute_train"]["value"] < peak["value"]
    for hid in ("a100-sxm4-80gb", "a100-sxm4-40gb"):
        assert "in-sample" not in get_hardware(hid).raw["efficiency"]["compute"]["source"]


def test_blackwell_fp4_training_figure_is_derived_from_the_fp8_fit() -> None:
    """NVFP4 training GEMMs sustain the NVFP4 sweep (0.60: 5370-5500 of 9000 TFLOPS) times the fitted fp8
    training rate over the fp8 sweep (MAMF 3432.5 of 4500): the same tensor cores at the same power limit.
    Refitting compute_train_fp8 must carry over here."""
    b200 = get_hardware("b200").raw["efficiency"]
    derived = 0.60 * b200["compute_train_fp8"]["value"] / (3432.5 / 4500)
    for hid in ("b200", "gb200", "b300", "gb300"):
        fig = get_hardware(hid).raw["efficiency"]["compute_train_fp4"]
        assert abs(fig["value"] - derived) < 0.005 and "[derived]" in fig["source"]


def test_hopper_fp8_gemm_figure_is_the_measured_w8a8_rate() -> None:
    # W8A8 GEMM with activation quantization (FBGEMM PR #2546: 0.44-0.52 of the dense FP8 peak), not
    # the best-case MAMF sweep; the same figure on every GH100 part at the 700 W limit
    for hid in ("h100-sxm", "h200-sxm", "h800-sxm"):
        hw = get_hardware(hid)
        src = hw.raw["efficiency"]["compute_fp8"]["source"]
        assert hw.gemm_efficiency("fp8") == 0.50 and "FBGEMM" in src and "in-sample" in src


def test_optional_efficiency_keys_are_validated() -> None:
    import pytest

    from llmcost.errors import CatalogError

    hw = get_hardware("h100-sxm")
    with pytest.raises(CatalogError, match="efficiency.compute_fp8.value"):
        hw.with_overrides({"efficiency": {"compute_fp8": {"value": 1.5, "source": "x"}}})
    with pytest.raises(CatalogError, match="efficiency.compute_fp16.source"):
        hw.with_overrides({"efficiency": {"compute_fp16": {"value": 0.5}}})
    low = hw.with_overrides({"efficiency": {"compute_fp8": {"value": 0.4, "source": "x"}}})
    assert low.gemm_efficiency("fp8") == 0.4 and low.gemm_efficiency("bf16") == 0.80
