"""bench/run.py's helpers: measuring one subprocess, formatting figures and goals (no timing asserted)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench" / "run.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_run", BENCH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench_run"] = mod  # dataclasses resolve the module by name
    spec.loader.exec_module(mod)
    return mod


def test_measure_is_per_child() -> None:
    """Run from a small fresh interpreter: on Linux a child's peak RSS starts from its parent's pages
    (kept across exec), so pytest's own size would hide the difference."""
    probe = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('bench_run', {str(BENCH)!r})\n"
        "m = importlib.util.module_from_spec(spec); sys.modules['bench_run'] = m; spec.loader.exec_module(m)\n"
        "big = m.measure(['-c', \"b = bytearray(64 * 2**20); b[::4096] = b'x' * len(b[::4096]); print('hi')\"])\n"
        "small = m.measure(['-c', 'print(1)'])\n"
        "print(big.code, big.stdout.strip(), big.rss, small.rss, m.measure(['-c', 'raise SystemExit(3)']).code)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out[:2] == ["0", "hi"] and out[4] == "3"
    if out[2] != "None":  # os.wait4: this child's own peak, not the maximum over earlier children
        assert int(out[2]) >= 64 * 2**20 > int(out[3])


def test_formatting(bench: ModuleType) -> None:
    assert bench.verdict(1.2, 1.5) == "goal <= 1.5x: ok"
    assert bench.verdict(2.0, 1.5) == "goal <= 1.5x: not met"
    assert bench.verdict(3e5, 2e6, at_most=False, shown="2M plans/s") == "goal >= 2M plans/s: not met"
    assert bench.verdict(1.0, None) == ""
    assert bench.count(2_345_678) == "2.35M" and bench.count(31_281.4) == "31,281"
    assert bench.human_bytes(3 * 2**29) == "1.50 GiB" and bench.human_bytes(86 * 2**20) == "86 MiB"
    assert bench.human_bytes(None) == "n/a"
    assert bench.label(bench.SINGLE) == "train gpt3-175b 64 GPUs"
    assert bench.label(["search", "infer", "m", "--hw", "a,b"]) == "search infer m"
    assert bench.maxrss_bytes(10) in (10, 10 * 1024)


def test_search_figures(bench: ModuleType) -> None:
    s = bench.Search(["search", "train", "m", "--gpus", "8"], wall_goal=1.5, rate_goal=2e6, rss_goal=2**30)
    out = json.dumps({"plans_evaluated": 1_000_000, "elapsed_s": 0.5})
    runs = [bench.Run(1.0, 2**29, 0, out), bench.Run(3.0, 2**31, 0, out)]
    wall, rate, rss = bench.search_figures(s, runs, single=1.0)
    assert wall.split()[0] == "1.00x" and "search train m 8 GPUs" in wall and "goal <= 1.5x: ok" in wall
    assert rate.split()[0] == "2M" and "1,000,000 plans" in rate and "goal >= 2M plans/s: ok" in rate
    assert rss.split()[:2] == ["2.00", "GiB"] and "goal <= 1.00 GiB: not met" in rss
