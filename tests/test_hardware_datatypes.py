"""Compute datatypes: a device lists only what it computes in hardware (docs/CATALOG.md)."""

from __future__ import annotations

import json
import re

import pytest

from llmcost.catalog import get_hardware, hardware_ids

# A compute note that says a datatype is missing ("No hardware FP8", "No native FP8",
# "No INT8 x INT8 compute") must not be contradicted by a compute key.
_MISSING = re.compile(r"\bNo (?:hardware |native )?(FP8|FP4|INT8|INT4)\b")


@pytest.mark.parametrize("hid", hardware_ids())
def test_no_datatype_the_note_says_is_missing(hid: str) -> None:
    hw = get_hardware(hid)
    for dtype in _MISSING.findall(str(hw.raw.get("compute_note") or "")):
        assert dtype.lower() not in hw.peak, f"{hid}: compute_note says no {dtype} but compute lists it"


@pytest.mark.parametrize(
    ("hid", "absent"),
    [
        ("tpu-v4", ("fp8", "int8", "int4")),  # JAX tpu_info: int8 / fp8 not available on v4
        ("tpu-v5e", ("fp8",)),
        ("tpu-v5p", ("fp8",)),  # Google's "FP8 459" = BF16: upcast, not hardware FP8
        ("tpu-v6e", ("fp8",)),  # FP8 = BF16 rate; Ironwood is the first TPU with FP8 MXUs
        ("tpu-v5p-pod", ("fp8",)),
        ("tpu-v6e-pod", ("fp8",)),
        ("mi250x", ("int4", "fp8")),  # CDNA2: 8-bit integer MFMA only
        ("mi250x-gcd", ("int4", "fp8")),
        ("a100-sxm4-80gb", ("fp8", "fp4")),
        ("h100-sxm", ("fp4", "int4")),
    ],
)
def test_emulated_datatypes_are_omitted(hid: str, absent: tuple[str, ...]) -> None:
    peak = get_hardware(hid).peak
    assert not set(absent) & set(peak)


@pytest.mark.parametrize(
    ("hid", "dtype", "ratio"),
    [
        ("tpu-v7", "fp8", 2.0),  # Ironwood: native FP8
        ("tpu-v5p", "int8", 2.0),
        ("tpu-v6e", "int4", 4.0),
        ("inferentia2", "fp8", 1.0),  # AWS: 190 TFLOPS FP16/BF16/cFP8/TF32, cFP8 native
        ("trainium2", "fp8", 1299 / 667),
        ("gaudi3", "fp8", 1.0),  # native FP8 MME at the BF16 rate
        ("gaudi2", "fp8", 865 / 432),
    ],
)
def test_genuine_datatypes_are_kept(hid: str, dtype: str, ratio: float) -> None:
    peak = get_hardware(hid).peak
    assert peak[dtype] == pytest.approx(ratio * peak["bf16"], rel=0.01)  # vendor rounding (3680 vs 4 x 918)


def test_search_train_proposes_no_fp8_on_tpu_v5p(cli) -> None:
    r = cli("search", "train", "llama-3.1-8b", "--hw", "tpu-v5p", "--gpus", "64", "--top", "50", "-f", "json")
    assert r.code == 0, r.err
    plans = json.loads(r.out)["plans"]
    assert plans and {p["plan"]["precision"] for p in plans} == {"bf16"}


def test_search_infer_computes_no_fp8_or_fp4_on_tpu_v6e(cli) -> None:
    r = cli("search", "infer", "llama-3.1-8b", "--hw", "tpu-v6e", "--top", "50", "-q", "-f", "json")
    assert r.code == 0, r.err
    plans = json.loads(r.out)["plans"]
    assert plans
    for p in plans:
        plan = p["plan"]
        # weight-only fp8 / fp4 storage (dequantized to bf16) is allowed; fp8 / fp4 math is not
        assert plan["activations"] not in ("fp8", "fp4") and plan["kv_cache"] not in ("fp8", "fp4"), plan
