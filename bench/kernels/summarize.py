"""Turn the raw JSON of ``measure.py`` / ``titan_step.py`` into ``hardware/measured/<hw>.yaml``.

``python bench/kernels/summarize.py HW DATE`` reads ``hardware/measured/raw/HW-kernels-DATE.json`` (and
``HW-titan-step-DATE.json``, ``HW-duty-DATE.json`` (copies between the GEMMs), ``HW-duty-sleep-DATE.json``
(idle gaps) and ``HW-grouped-DATE.json`` where they exist) and writes the summary the tests and the catalog cite:
rates rounded to 3 significant figures, each training step split into kernel classes by kernel name
(:func:`kernel_class`). Needs no GPU.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
RAW = ROOT / "hardware" / "measured" / "raw"


def _r(x: float) -> float:
    return float(f"{x:.3g}")


def kernel_class(name: str) -> str:
    """gemm (cuBLAS nvjet / CUTLASS / xmma), attention (cuDNN SDPA, flash), optimizer (fused AdamW's
    multi-tensor kernels), else elementwise (copies, casts, norms, activations, rotary, loss, fills)."""
    low = name.lower()
    if name.startswith("nvjet") or "gemm" in low or "cutlass" in low or "xmma" in low:
        return "gemm"
    if "sdpa" in low or "flash" in low or "fmha" in low or "cudnn" in low:
        return "attention"
    if "multi_tensor_apply" in name and "FusedOptimizer" in name:
        return "optimizer"
    return "elementwise"


def gemm_rows(rows: list[dict[str, Any]]) -> dict[str, float]:
    return {f"{x['m']}x{x['n']}x{x['k']}": _r(x["tflops"]) for x in rows}


def summarize_kernels(raw: dict[str, Any]) -> dict[str, Any]:
    g = raw["gemm"]
    att = [
        {k: (_r(v) if isinstance(v, float) else v) for k, v in a.items() if k in ("backend", "b", "h", "s", "d", "causal", "fwd_tflops", "bwd_tflops")}
        for a in raw["attention"]
        if "error" not in a
    ]  # fmt: skip
    sus = raw["sustained"]
    late = sus["smi"][4:]  # after the first second: the clock has settled under the limit
    return {
        "gemm_bf16_tflops": {
            "square": gemm_rows(g["square"]),
            "k_sweep": gemm_rows(g["k_sweep"]),
            "m_sweep": gemm_rows(g["m_sweep"]),
            "model_shapes": [
                {
                    "label": x["label"],
                    **{
                        p: [x[p]["m"], x[p]["n"], x[p]["k"], _r(x[p]["tflops"])]
                        for p in ("fwd", "dgrad", "wgrad")
                    },
                }
                for x in g["model"]
            ],
        },  # fmt: skip
        "gemm_fp8_tflops": {f"{x['m']}x{x['n']}x{x['k']}": _r(x["tflops"]) for x in raw["gemm_fp8"]},
        "attention": att,
        "memory_gb_s": {x["op"]: _r(x["gb_s"]) for x in raw["memory"]},
        "sustained_bf16": {
            "shape": f"{sus['size']}^3 nt, back to back",
            "seconds": len(sus["per_second"]),
            "tflops_median": _r(statistics.median(p["tflops"] for p in sus["per_second"])),
            "sm_clock_mhz_median": _r(statistics.median(float(s[1]) for s in late)),
            "power_w_median": _r(statistics.median(float(s[3]) for s in late)),
            "throttle_reasons": sorted({s[5] for s in late}),
        },
    }


def summarize_steps(raw: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for run in raw["runs"]:
        if "error" in run:
            continue
        row = {
            "model": run["model"],
            "micro_batch": run["micro_batch"],
            "seq_len": run["seq_len"],
            "compiled": run["compiled"],
            "step_ms": _r(run["step_ms_median"]),
            "step_ms_range": [_r(min(run["step_ms"])), _r(max(run["step_ms"]))],
            "peak_allocated_gib": _r(run["peak_allocated_bytes"] / 2**30),
        }
        if "kernels" in run:
            per: dict[str, float] = {}
            for k in run["kernels"]:
                c = kernel_class(k["name"])
                per[c] = per.get(c, 0.0) + k["us"] / 2000.0  # two profiled steps, µs -> ms
            row["kernel_ms"] = {k: _r(v) for k, v in sorted(per.items())}
        out.append(row)
    return out


def summarize_duty(raw: dict[str, Any]) -> list[dict[str, Any]]:
    """``duty.py``'s levels: GEMM share of the time, GEMM rate, SM clock, draw, throttled or not."""
    keys = ("dtype", "duty", "gemm_tflops", "copy_gb_s", "sm_clock_mhz", "power_w")
    rows = []
    for r in raw["runs"]:
        if "error" in r:
            continue
        row = {k: (_r(r[k]) if isinstance(r[k], float) else r[k]) for k in keys}
        row["power_capped"] = any(int(t, 16) & 0x4 for t in r["throttle"])
        rows.append(row)
    return rows


def summarize_grouped(raw: dict[str, Any]) -> list[dict[str, Any]]:
    """``grouped.py``'s rows: expert shape, tokens per expert, grouped and per-expert-loop rates."""
    keys = ("label", "experts", "m", "n", "k", "grouped_tflops", "loop_tflops")
    return [{k: (_r(r[k]) if isinstance(r[k], float) else r[k]) for k in keys if k in r} for r in raw["rows"]]


def main(hw: str, date: str) -> None:
    kernels = json.loads((RAW / f"{hw}-kernels-{date}.json").read_text())
    dev = kernels["device"]
    doc: dict[str, Any] = {
        "hardware": hw,
        "measured": date,
        "device": {k: dev[k] for k in ("name", "sms", "l2_bytes", "memory_bytes")} | dev["nvidia_smi"],
        "software": {k: str(dev[k]) for k in ("torch", "cuda", "cudnn", "blas")},
        "raw": f"raw/{hw}-kernels-{date}.json",
    }
    doc |= summarize_kernels(kernels)
    steps = RAW / f"{hw}-titan-step-{date}.json"
    if steps.exists():
        doc["training_steps"] = summarize_steps(json.loads(steps.read_text()))
        doc["training_steps_raw"] = f"raw/{steps.name}"
    for gap, key in (("", "gemm_duty"), ("-sleep", "gemm_duty_sleep")):
        duty = RAW / f"{hw}-duty{gap}-{date}.json"
        if duty.exists():
            doc[key] = summarize_duty(json.loads(duty.read_text()))
            doc[f"{key}_raw"] = f"raw/{duty.name}"
    grouped = RAW / f"{hw}-grouped-{date}.json"
    if grouped.exists():
        doc["moe_grouped_gemm"] = summarize_grouped(json.loads(grouped.read_text()))
        doc["moe_grouped_gemm_raw"] = f"raw/{grouped.name}"
    out = ROOT / "hardware" / "measured" / f"{hw}.yaml"
    head = (
        f"# {hw}: kernel rates measured by llmcost on {date} (bench/kernels/; method in README.md here).\n"
        "# Generated by bench/kernels/summarize.py from the raw JSON beside it; do not edit by hand.\n"
    )
    out.write_text(head + yaml.safe_dump(doc, sort_keys=False, width=120))
    print(out)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
