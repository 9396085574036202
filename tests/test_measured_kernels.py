"""The catalog's kernel figures against llmcost's own device measurements (hardware/measured/).

The figures derived from a measurement are re-derived here from the stored table, so a change to
either shows; the kernel models are checked against the tables they claim to describe."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

import llmcost
from llmcost.catalog import get_hardware
from llmcost.kernels.attention import length_factor
from llmcost.kernels.gemm import shape_efficiency
from llmcost.training.kernel_classes import KERNEL_CLASS_METRICS, kernel_class_times

MEASURED = Path(__file__).resolve().parents[1] / "hardware" / "measured"
GH100 = ("h100-sxm", "h200-sxm")


def _table(hw: str) -> dict[str, Any]:
    return yaml.safe_load((MEASURED / f"{hw}.yaml").read_text())


def _fit_length(points: list[tuple[float, float]]) -> tuple[float, float]:
    """Least-squares (in log) ``s0`` and asymptote of ``rate = inf · s / (s + s0)`` over a grid of s0."""
    s = np.array([p[0] for p in points])
    rate = np.array([p[1] for p in points])
    best = (np.inf, 0.0, 0.0)
    for s0 in np.arange(0.0, 3000.0, 4.0):
        f = s / (s + s0)
        inf = float(np.exp(np.mean(np.log(rate / f))))
        err = float(np.sqrt(np.mean(np.log(inf * f / rate) ** 2)))
        best = min(best, (err, float(s0), inf))
    return best[1], best[2]


@pytest.mark.parametrize("hw_id", ["h100-sxm", "h200-sxm", "h800-sxm"])
def test_attention_length_and_backward_figures_are_the_measured_fit(hw_id: str) -> None:
    """``gemm.attention_s0`` and ``efficiency.attention_bwd`` of the GH100 parts are the mean over the
    H100 and H200 tables of the fit of cuDNN SDPA (head dim 128, causal) over 1k-16k tokens."""
    fits = {p: [] for p in ("fwd", "bwd")}
    for hw in GH100:
        rows = [
            a for a in _table(hw)["attention"] if a["backend"] == "cudnn" and a["d"] == 128 and a["causal"]
        ]
        for p in fits:
            fits[p].append(_fit_length([(a["s"], a[f"{p}_tflops"]) for a in rows]))
    hw = get_hardware(hw_id)
    assert hw.gemm_shape is not None and hw.gemm_shape.attention_s0 is not None
    for i, p in enumerate(("fwd", "bwd")):
        s0 = float(np.mean([f[0] for f in fits[p]]))
        assert hw.gemm_shape.attention_s0[i] == pytest.approx(s0, abs=10), p
    peak = hw.peak["bf16"] / 1e12
    assert hw.attention_bwd_efficiency_value == pytest.approx(
        np.mean([f[1] for f in fits["bwd"]]) / peak, abs=0.01
    )
    assert hw.attention_efficiency() == pytest.approx(np.mean([f[1] for f in fits["fwd"]]) / peak, abs=0.015)


BLACKWELL_SDPA = "blackwell-cudnn-sdpa-nvidia.yaml"
"""NVIDIA's cuDNN SDPA benchmark on GB200 / GB300 (not ours; the file names its source)."""


def _nvidia_sdpa() -> dict[str, Any]:
    return yaml.safe_load((MEASURED / BLACKWELL_SDPA).read_text())


def _nvidia_rate(table: dict[str, Any], device: str, preset: str, pas: str, seq: int) -> float:
    """TFLOP/s of one row of NVIDIA's table in llmcost's convention: the backward counted as 2.5x the
    forward's FLOPs, where the table counts ``3·d_qk + 2·d_vo`` against the forward's ``d_qk + d_vo``."""
    p = table["presets"][preset]
    (rate,) = [r[5] for r in table["rows"] if r[:4] == [device, preset, pas, seq]]
    if pas == "fwd":
        return rate
    return rate * 2.5 * (p["d_qk"] + p["d_vo"]) / (3 * p["d_qk"] + 2 * p["d_vo"])


@pytest.mark.parametrize(
    ("hw_id", "device"), [("gb200", "gb200"), ("b200", "gb200"), ("gb300", "gb300"), ("b300", "gb300")]
)
def test_blackwell_attention_figures_are_the_nvidia_sdpa_fit(hw_id: str, device: str) -> None:
    """``efficiency.attention`` / ``attention_bwd`` and ``gemm.attention_s0`` of the Blackwell parts are
    the fit of NVIDIA's cuDNN SDPA benchmark (head dim 128, causal, 2k-16k tokens) on that GPU (B200
    and B300 take GB200's and GB300's fractions)."""
    table = _nvidia_sdpa()
    hw = get_hardware(hw_id)
    assert hw.gemm_shape is not None and hw.gemm_shape.attention_s0 is not None
    figures = (hw.attention_efficiency(), hw.attention_bwd_efficiency_value)
    for i, pas in enumerate(("fwd", "bwd")):
        pts = [(s, _nvidia_rate(table, device, "llama3.1", pas, s)) for s in (2048, 4096, 8192, 16384)]
        s0, inf = _fit_length(pts)
        assert hw.gemm_shape.attention_s0[i] == pytest.approx(s0, abs=10), pas
        assert figures[i] == pytest.approx(inf / 2500.0, abs=0.002), pas


def test_wide_head_attention_factor_is_the_measured_fit() -> None:
    """Above d_qk + d_v = 256 the backward's ``(256/w)^γ`` is the log least-squares fit to the cuDNN
    backward over the head-dim-128 backward at 4k-16k tokens (head dim 256 on H100 / H200, llmcost's
    tables; DeepSeek-V3's 192 / 128 on GB200 / GB300, NVIDIA's), and the forward stays within 9% of
    the head-dim-128 rate there (the factor is 1; also head dim 256 on GB200 / GB300)."""
    from llmcost.kernels.attention import WIDE_BACKWARD_EXPONENT

    bwd, fwd = [], []
    for hw in GH100:
        rows = [a for a in _table(hw)["attention"] if a["backend"] == "cudnn" and a["causal"]]
        rate = {(a["d"], a["s"]): a for a in rows}
        for s in (4096, 8192, 16384):
            bwd.append((512, rate[256, s]["bwd_tflops"] / rate[128, s]["bwd_tflops"]))
            fwd.append(rate[256, s]["fwd_tflops"] / rate[128, s]["fwd_tflops"])
    table = _nvidia_sdpa()
    for device in ("gb200", "gb300"):
        for s in (4096, 8192, 16384):
            r = [
                _nvidia_rate(table, device, p, pas, s) for p in ("dsv3", "llama3.1") for pas in ("fwd", "bwd")
            ]
            bwd.append((320, r[1] / r[3]))
            fwd += [r[0] / r[2], _nvidia_rate(table, device, "qwen35", "fwd", s) / r[2]]
    x = np.log([256 / w for w, _ in bwd])
    y = np.log([ratio for _, ratio in bwd])
    fitted = float((x * y).sum() / (x * x).sum())
    assert fitted == pytest.approx(WIDE_BACKWARD_EXPONENT, abs=0.01)
    assert max(abs(np.log(fwd))) < np.log(1.09)


@pytest.mark.parametrize("hw_id", GH100)
def test_gemm_shape_model_tracks_the_measured_sweeps(hw_id: str) -> None:
    """Tile / wave quantization and the per-tile fixed cost against the measured bf16 sweeps (square,
    K at m = n = 4096, M at n = k = 8192, the layers of Llama 3 8B / 70B and GPT-3 175B in their three
    training layouts), compute-bound rows only, each sweep's scale free: rms log error under 8%
    (measured 7.1% on both parts; a constant would be 26-28%)."""
    g = _table(hw_id)["gemm_bf16_tflops"]
    rows = []
    for sweep in ("square", "k_sweep", "m_sweep"):
        for shape, rate in g[sweep].items():
            m, n, k = (int(x) for x in shape.split("x"))
            if min(m, n) >= 512 and max(m, n) >= 2048:  # not launch- or memory-bound
                rows.append((m, n, k, rate))
    for layer in g["model_shapes"]:
        rows += [tuple(layer[p]) for p in ("fwd", "dgrad", "wgrad")]
    m, n, k, rate = (np.array(x, dtype=float) for x in zip(*rows, strict=True))
    eff = shape_efficiency(m, n, k, 1, get_hardware(hw_id).gemm_shape)
    err = np.log(eff / rate)
    err -= np.median(err)
    assert float(np.sqrt(np.mean(err**2))) < 0.08


def test_length_factor() -> None:
    """numpy and sympy forms agree; 1 without the figure; rises with the sequence."""
    from llmcost.kernels.attention import length_expression
    from llmcost.symbolic.symbols import sym

    e = length_expression().subs({sym("seq"): 4096, sym("attn_s0"): 770})
    assert float(e) == pytest.approx(float(length_factor(4096, 770.0)))
    assert length_factor(1000.0, None) == 1.0
    assert length_factor(360.0, 360.0) == pytest.approx(0.5)
    assert np.all(np.diff(length_factor(np.array([1024, 2048, 4096]), 770.0)) > 0)


def _titan(model: str, mb: int, seq: int, compiled: bool) -> Any:
    return llmcost.train(
        model, "h100-sxm", gpus=1, micro_batch=mb, global_batch=mb, seq_len=seq, stack="torchtitan:2026",
        recompute="none", fused_norm=compiled, fused_act=compiled, fused_rope=compiled, fused_ce=False,
    )  # fmt: skip


def test_kernel_classes_sum_to_the_compute_of_the_step() -> None:
    """On one device without pipeline parallelism, GEMM + attention + elementwise time is the step's
    forward + backward + recomputation compute with what the power limit adds to it, and the
    optimizer class is the optimizer step."""
    rep = _titan("llama-3.2-1b", 2, 4096, False)
    r = rep.result
    times = kernel_class_times(
        rep.operators(), r.row["n_micro"], r.breakdown["optimizer"], r.breakdown["power_limit"]
    )
    assert set(times) == set(KERNEL_CLASS_METRICS)
    assert r.breakdown["power_limit"] > 0.0  # the H100 step is GEMM-heavy enough to throttle
    parts = sum(times[k] for k in ("gemm_time_s", "attention_time_s", "elementwise_time_s"))
    compute = sum(r.breakdown[k] for k in ("compute_fwd", "compute_bwd", "compute_recompute", "power_limit"))
    assert parts == pytest.approx(compute, rel=1e-9)
    assert times["optimizer_time_s"] == r.breakdown["optimizer"]


@pytest.mark.parametrize(("model", "compiled"), [("llama-3.2-1b", False), ("llama-3.2-3b", False)])
def test_optimizer_and_step_against_the_measured_steps(model: str, compiled: bool) -> None:
    """The fused AdamW step (a memory-bound pass over the fp32 states) is within 3% of the measured
    kernel time; the step within 8% (hardware/measured/h100-sxm.yaml ``training_steps``)."""
    mb, seq = (2, 4096) if model.endswith("1b") else (1, 4096)
    meas = next(
        s
        for s in _table("h100-sxm")["training_steps"]
        if (s["model"], s["micro_batch"], s["seq_len"], s["compiled"]) == (model, mb, seq, compiled)
    )
    r = _titan(model, mb, seq, compiled).result
    assert r.breakdown["optimizer"] * 1e3 == pytest.approx(meas["kernel_ms"]["optimizer"], rel=0.03)
    assert r.step_time * 1e3 == pytest.approx(meas["step_ms"], rel=0.08)


def _near_ridge_rows() -> list[tuple[int, int, int, int, float]]:
    """(m, n, k, groups, measured TFLOP/s) of the H100 M and K sweeps and the MoE expert GEMMs."""
    t = _table("h100-sxm")
    rows = []
    for sweep in ("m_sweep", "k_sweep"):
        for shape, rate in t["gemm_bf16_tflops"][sweep].items():
            m, n, k = (int(x) for x in shape.split("x"))
            rows.append((m, n, k, 1, rate))
    rows += [(r["m"], r["n"], r["k"], r["experts"], r["grouped_tflops"]) for r in t["moe_grouped_gemm"]]
    return rows


def test_roofline_overlap_norm_is_the_measured_fit() -> None:
    """``OVERLAP_P`` is the p of ``(t_c^p + t_m^p)^(1/p)`` (with the GEMM shape efficiency, the launch
    floor and the measured copy rate; the large-GEMM rate free) that fits the H100 rows best among
    1.5, 2, 3, 4 and the plain max."""
    from llmcost.kernels.roofline import OVERLAP_P, T_KERNEL

    g = get_hardware("h100-sxm").gemm_shape
    bw = _table("h100-sxm")["memory_gb_s"]["copy"] * 1e9
    m, n, k, grp, rate = (np.array(x, dtype=float) for x in zip(*_near_ridge_rows(), strict=True))
    flops, nbytes = 2 * grp * m * n * k, 2 * grp * (n * k + m * k + m * n)
    eff = shape_efficiency(m, n, k, grp, g)

    def rms(p: float, big: float) -> float:
        tc, tm = flops / (big * eff), nbytes / bw
        t = np.maximum(tc, tm) if p == np.inf else (tc**p + tm**p) ** (1 / p)
        return float(np.sqrt(np.mean(np.log(flops / (t + T_KERNEL) / (rate * 1e12)) ** 2)))

    fits = {p: min(rms(p, r * 1e12) for r in range(600, 901, 5)) for p in (1.5, 2, 3, 4, np.inf)}
    assert min(fits, key=fits.get) == OVERLAP_P
    assert fits[OVERLAP_P] < 0.8 * fits[np.inf]


def test_report_kernel_times_and_the_breakdown_note() -> None:
    """``TrainReport.kernel_times`` is the validation metrics' function on the same rows, None with
    pipeline parallelism; ``train --breakdown`` prints it as a note."""
    from typer.testing import CliRunner

    from llmcost.cli import app

    rep = _titan("llama-3.2-1b", 2, 4096, False)
    r = rep.result
    assert rep.kernel_times() == kernel_class_times(
        rep.operators(), r.row["n_micro"], r.breakdown["optimizer"], r.breakdown["power_limit"]
    )
    piped = llmcost.train(
        "llama-3.2-1b", "h100-sxm", gpus=2, pp=2, micro_batch=1, global_batch=4, seq_len=4096
    )
    assert piped.kernel_times() is None
    args = "train llama-3.2-1b --hw h100-sxm --gpus 1 --micro-batch 2 --global-batch 2 --seq-len 4096 --breakdown"
    out = CliRunner().invoke(app, args.split(), env={"COLUMNS": "200"})
    assert out.exit_code == 0 and "by kernel class: gemm" in out.output


def _duty_rows(
    table: dict[str, Any], p_gemm: float, p_copy: float, p_wait: float
) -> list[tuple[float, float]]:
    """(overshoot at the maximum clock, rate over the unthrottled rate) of every bf16 duty row: the
    measured GEMM share converted to its share at the maximum clock (the GEMMs ran ``rate`` slower)."""
    top = max(r["gemm_tflops"] for r in table["gemm_duty"] if r["dtype"] == "bf16")
    out = []
    for key, gap in (("gemm_duty", p_copy), ("gemm_duty_sleep", p_wait)):
        for r in (r for r in table[key] if r["dtype"] == "bf16"):
            k, d = r["gemm_tflops"] / top, r["duty"]
            d_max = d * k / (d * k + 1 - d)
            out.append(((d_max * p_gemm + (1 - d_max) * gap) / 700.0, k))
    return out


def test_h100_throttle_figures_are_the_duty_fit() -> None:
    """GEMM and copy draws from the duty sweep's unthrottled rows; the waiting draw and the rate
    exponent by least squares (in log rate) over both sweeps; the catalog holds them (rounded; the
    compute draw is the steps', :func:`test_h100_compute_draw_is_the_step_clock_fit`)."""
    tab = _table("h100-sxm")
    free = [r for r in tab["gemm_duty"] if r["dtype"] == "bf16" and not r["power_capped"] and r["copy_gb_s"]]
    a = np.array([[r["duty"], 1 - r["duty"]] for r in free])
    p_gemm, p_copy = np.linalg.lstsq(a, np.array([r["power_w"] for r in free]), rcond=None)[0]
    best = (np.inf, 0.0, 0.0)
    for wait in np.arange(70.0, 500.0, 10.0):
        rows = _duty_rows(tab, p_gemm, p_copy, wait)
        for alpha in np.arange(0.2, 0.8, 0.01):
            err = float(np.sqrt(np.mean([np.log(min(1.0, x**-alpha) / k) ** 2 for x, k in rows])))
            best = min(best, (err, float(wait), float(alpha)))
    th = get_hardware("h100-sxm").throttle
    assert abs(p_gemm - 988.0) < 1.0 and abs(th["memory_w"] - p_copy) < 1.0  # 988: the GEMM's draw
    assert th["wait_w"] == pytest.approx(best[1]) and th["exponent"] == pytest.approx(best[2], abs=0.005)
    assert best[0] < 0.015


def test_a100_throttle_figures_are_the_perseus_fit() -> None:
    """The A100 stage's draw at 1410 MHz and the exponent of its rate in the overshoot, the clock
    where the draw meets a 460-380 W limit found on the measured sweep."""
    sweep = yaml.safe_load((MEASURED / "a100-sxm4-80gb-perseus.yaml").read_text())
    pts, top = [], []
    for ph in ("forward", "backward"):
        rows = sorted((r for r in sweep["rows"] if r[0] == ph), key=lambda r: r[1])
        f = np.array([r[1] for r in rows], dtype=float)
        t = np.array([r[2] for r in rows])
        p = np.array([r[3] for r in rows]) / t
        top.append(p[-1])
        for cap in (460.0, 440.0, 420.0, 400.0, 380.0):
            fc = np.interp(cap, np.sort(p), f[np.argsort(p)])
            pts.append((np.log(p[-1] / cap), np.log(np.interp(fc, f, t) / t[-1])))
    x = np.array(pts)
    alpha = float(x[:, 0] @ x[:, 1] / (x[:, 0] @ x[:, 0]))
    th = get_hardware("a100-sxm4-80gb").throttle
    assert th["compute_w"] == pytest.approx(float(np.mean(top)), abs=1.0)
    assert th["exponent"] == pytest.approx(alpha, abs=0.005)
    assert float(np.sqrt(np.mean((x[:, 1] - alpha * x[:, 0]) ** 2))) < 0.006


STEP_CLOCK = MEASURED / "raw" / "h100-sxm-step-clock-2026-11-26.json"


def _step_case(run: dict[str, Any]) -> dict[str, Any]:
    """The validation case of an H100 step-clock run (``validation/h100-measured.yaml``)."""
    cases = {
        c["id"]: c
        for c in yaml.safe_load((MEASURED.parents[1] / "validation" / "h100-measured.yaml").read_text())
    }
    kind = "compiled" if run["compiled"] else "eager"
    if run["model"] == "llama-3-8b-8l":
        return cases[f"h100m-l3-8b-8layers-mb{run['micro_batch']}-s4k-{kind}"]
    size = run["model"].split("-")[-1]
    return cases[f"h100m-l32-{size}-mb{run['micro_batch']}-s4k-{kind}"]


def _compute_share(case: dict[str, Any]) -> float:
    """The model's compute-bound share of the case's step at the maximum clock (``t_cact`` over the
    step without what the limit adds)."""
    from llmcost.training.plan import TrainPlan, evaluate
    from llmcost.training.stack import apply
    from llmcost.validation.case_hw import case_hardware
    from llmcost.validation.training import case_spec

    choice = apply(case["stack"], dict(case["plan"]), case_hardware(case))
    plan = TrainPlan.from_mapping(choice.plan, case["cluster"]["gpus"], case["cluster"]["gpus_per_node"])
    row = evaluate(case_spec(case), plan, choice.hardware).row
    return row["t_cact"] / (row["iteration_time_s"] - row["power_limit"])


def test_h100_compute_draw_is_the_step_clock_fit() -> None:
    """``throttle.compute_w``: per measured step, the overshoot its SM clock implies (the duty sweeps'
    rate against clock, least squares, then ``rate = overshoot^-α``) solved for the compute-bound
    draw at the model's compute share, the memory-bound rest at ``memory_w``; the mean of the steps.
    Each within 10% of the 8192³ GEMM's draw (the duty sweep's, 988 W)."""
    tab, th = _table("h100-sxm"), get_hardware("h100-sxm").throttle
    top = max(r["gemm_tflops"] for r in tab["gemm_duty"] if r["dtype"] == "bf16")
    rows = [(r["sm_clock_mhz"], r["gemm_tflops"] / top) for k in ("gemm_duty", "gemm_duty_sleep") for r in tab[k]
            if r["dtype"] == "bf16"]  # fmt: skip
    slope, icpt = np.polyfit([c for c, _ in rows], [k for _, k in rows], 1)
    draws = []
    for run in yaml.safe_load(STEP_CLOCK.read_text())["runs"]:
        c = _compute_share(_step_case(run))
        xi = min(1.0, slope * run["sm_clock_mhz"] + icpt) ** (-1.0 / th["exponent"])
        draws.append((700.0 * xi - (1.0 - c) * th["memory_w"]) / c)
    assert len(draws) == 5 and th["compute_w"] == pytest.approx(float(np.mean(draws)), abs=10.0)
    assert all(abs(d / 988.0 - 1.0) < 0.1 for d in draws)


def test_blackwell_compute_draw_is_the_flashinfer_point() -> None:
    """B200 (and GB200, the same GPU): the draw at the maximum clock that makes the H100's exponent
    give FlashAttention-4's sustained 1237 of 1450 TFLOP/s at a 1000 W limit (flashinfer PR #2899)."""
    for hw_id in ("b200", "gb200"):
        th = get_hardware(hw_id).throttle
        assert th["exponent"] == get_hardware("h100-sxm").throttle["exponent"]
        assert th["compute_w"] == pytest.approx(
            1000.0 * (1237.0 / 1450.0) ** (-1.0 / th["exponent"]), abs=1.0
        )


def _materialized(hw_id: str, g: int, s: int, d: int, dropout: bool, prec: str) -> tuple[float, float]:
    """(forward, backward) seconds llmcost gives one materialized attention of ``g`` heads x sequences,
    ``s`` tokens, head dim ``d``, no mask (:func:`llmcost.training.compute.materialized_ops`)."""
    from llmcost.training.base import machine
    from llmcost.training.compute import layer_cost, materialized_ops
    from llmcost.training.operator import TOp

    flops = 2.0 * g * s * s * 2 * d
    op = TOp("attention", "attention", flops, flops, 4.0 * g * s * d * 2)
    ops = materialized_ops(op, 0.0, (s, s, g), (d, d), 1.0 if dropout else 0.0)
    lc = layer_cost(ops, "none", machine(get_hardware(hw_id), prec), flash=False)
    return float(lc.t_fwd), float(lc.t_bwd)


def test_materialized_attention_against_the_flashattention_paper_a100() -> None:
    """Megatron's and PyTorch's attention on an A100 40GB (FlashAttention paper App. E.6, fp16, 16 x 8
    heads of 64, no mask): priced as its kernels (two batched GEMMs at their shapes, the softmax and
    dropout passes, their times added), the forward at 1024-4096 tokens is within -5% to +20%, the
    backward -14% to +1%, the fwd + bwd sum within -10% to +7%; the 2-norm of the summed FLOPs and
    bytes, the former pricing, was 18-45% fast (41-55% at 512). At 512 tokens launches and small kernels dominate and
    the model is 17-26% fast."""
    table = yaml.safe_load((MEASURED / "a100-sxm4-40gb-flashattention-paper.yaml").read_text())
    st = table["setting"]
    g, d = st["batch"] * st["heads"], st["head_dim"]
    pairs: dict[tuple[str, bool, int], dict[str, float]] = {}
    for impl, dropout, pas, s, ms in table["rows"]:
        pairs.setdefault((impl, dropout, s), {})[pas] = ms / 1e3
    for (impl, dropout, s), meas in pairs.items():
        fwd, bwd = _materialized(table["device"], g, s, d, dropout, "fp16")
        if s < 1024:
            assert 0.7 < fwd / meas["forward"] < 0.9, (impl, dropout, s)
            continue
        assert 0.9 < fwd / meas["forward"] < 1.25, (impl, dropout, s, fwd / meas["forward"])
        assert 0.85 < bwd / meas["backward"] < 1.05, (impl, dropout, s, bwd / meas["backward"])
        assert 0.88 < (fwd + bwd) / (meas["forward"] + meas["backward"]) < 1.1, (impl, dropout, s)


def test_materialized_attention_against_the_h200_measurement() -> None:
    """llmcost's own H200 measurement of the Megatron-style chain (bench/kernels/materialized.py, fp16):
    at Megatron's model shapes (2048 tokens, head dim 96-160, 8-28 heads per rank) the batched QKᵀ
    and PV GEMMs run at 220-420 TFLOP/s, well under the large-GEMM rate, and the forward's parts
    (GEMMs, a one-kernel compiled softmax, dropout) add to 5-16% more than the model gives; the
    backward (the whole chain's, eager softmax backward; rows of at least 0.7 ms, where the GPU and
    not the Python autograd loop sets the time) 18-28% more. The softmax stand-in runs at about
    1.5 TB/s of the 4.8, slower than the model's HBM rate: the model errs fast here."""
    raw = MEASURED / "raw" / "h200-sxm-materialized-2026-11-26.json"
    rows = [r for r in json.loads(raw.read_text())["rows"] if r["s"] == 2048 and r["b"] == 1]
    assert len(rows) >= 7
    for r in rows:
        assert 200 < r["qk_tflops"] < 450 and 200 < r["pv_tflops"] < 450, r["label"]
        fwd, bwd = _materialized("h200-sxm", r["b"] * r["np"], r["s"], r["d"], True, "fp16")
        parts = (r["qk_ms"] + r["softmax_fused_ms"] + r["dropout_ms"] + r["pv_ms"]) / 1e3
        assert 0.8 < fwd / parts < 1.0, (r["label"], fwd / parts)
        if r["chain_drop0.1_bwd_ms"] < 0.7:
            continue
        assert 0.7 < bwd / (r["chain_drop0.1_bwd_ms"] / 1e3) < 0.9, (
            r["label"],
            bwd / r["chain_drop0.1_bwd_ms"],
        )


MOE_MODELS = {
    "qwen3-30b-a3b",
    "qwen3-235b-a22b",
    "deepseek-v3",
    "gpt-oss-120b",
    "mixtral-8x7b",
    "deepseek-v2",
}
MOE_OPS = ("router", "moe_permute", "experts_up", "experts_act", "experts_down")


def _moe_layer_model(row: dict[str, Any], hw_id: str) -> dict[tuple[str, str], float]:
    """The model's times (ms) of the MoE operators of one layer at a measured rank's shape: the
    model's own config at 4 layers (no dense first layers, no shared experts: the measured layer has
    none), on ``ep`` GPUs with one rank's tokens each, the routing balanced."""
    from llmcost.api import train_plan
    from llmcost.catalog import get_model_config
    from llmcost.model.config import spec_of
    from llmcost.training.plan import operator_breakdown, operator_rows

    model = row["label"].split()[0]
    cfg = dict(get_model_config(model))
    cfg.update(num_hidden_layers=4, first_k_dense_replace=0, n_shared_experts=0)
    if "layer_types" in cfg:
        cfg["layer_types"] = cfg["layer_types"][:4]
    ep = row["experts"] // row["experts_local"]
    seq = min(row["tokens"], 4096)
    mb = row["tokens"] // seq
    plan = train_plan(gpus=ep, ep=ep, ep_imbalance=1, distributed_optimizer=True, micro_batch=mb,
                      global_batch=ep * mb, seq_len=seq, precision="bf16", recompute="none")  # fmt: skip
    rows = operator_rows(operator_breakdown(spec_of(cfg), plan, get_hardware(hw_id)))
    return {(r["phase"], r["op"]): r["time_s"] * 1e3 for r in rows if "moe" in r["layer"]}


@pytest.mark.parametrize("hw_id", ["h100-sxm", "h200-sxm"])
def test_moe_layer_against_the_measured_operators(hw_id: str) -> None:
    """bench/kernels/moe_layer.py at nine ranks' shapes (H100 and H200 raw JSON): the expert GEMMs
    (``torch._grouped_mm``) are priced -7% to +22% of their measured forward and -7% to +17% of their
    two gradients; the eager layer (unfused permutation, activation and combine) runs 4-27% longer
    than the model's operators forward and 16-44% forward + backward. So the layer's device time is
    not where the MoE training cases' optimism comes from (hardware/measured/README.md)."""
    raw = MEASURED / "raw" / f"{hw_id}-moe-layer-2026-11-26.json"
    shapes = [v for k, v in json.loads(raw.read_text()).items() if k.startswith("shape:")]
    assert len(shapes) == 9 and {s["label"].split()[0] for s in shapes} == MOE_MODELS
    for s in shapes:
        t = _moe_layer_model(s, hw_id)
        fwd = (t["forward", "experts_up"] + t["forward", "experts_down"]) / (
            s["up_fwd_ms"] + s["down_fwd_ms"]
        )
        bwd = (t["backward", "experts_up"] + t["backward", "experts_down"]) / (
            s["up_dgrad_ms"] + s["up_wgrad_ms"] + s["down_dgrad_ms"] + s["down_wgrad_ms"]
        )
        assert 0.9 < fwd < 1.3 and 0.9 < bwd < 1.25, (s["label"], fwd, bwd)
        layer_f = sum(t["forward", o] for o in MOE_OPS) / (s["layer"]["fwd_ms"] / s["layer"]["layers"])
        layer_fb = sum(t[p, o] for p in ("forward", "backward") for o in MOE_OPS) / (
            s["layer"]["fwd_bwd_ms"] / s["layer"]["layers"]
        )
        assert 0.75 < layer_f < 1.0 and 0.65 < layer_fb < 0.9, (s["label"], layer_f, layer_fb)
