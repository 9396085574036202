"""Cold wall time of single CLI costings, each run as a fresh subprocess (min / median of N runs).

Usage: ``python bench/run.py [N]`` (``make bench``). Later issues append their commands to
``COMMANDS``.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS: list[list[str]] = [
    ["collective", "all_reduce", "--size", "1GiB", "--gpus", "64", "--hw", "h100-sxm"],
    [
        "infer",
        "llama-3.1-70b",
        "--hw",
        "h100-sxm",
        "--tp",
        "4",
        "--batch",
        "16",
        "--prompt-len",
        "2048",
        "--output-len",
        "256",
    ],
    [
        "train",
        "gpt3-175b",
        "--hw",
        "a100-sxm4-80gb",
        "--gpus",
        "64",
        "--tp",
        "8",
        "--pp",
        "8",
        "--micro-batch",
        "1",
        "--global-batch",
        "64",
        "--seq-len",
        "2048",
        "--recompute",
        "selective",
        "--schedule",
        "interleaved",
        "--virtual-stages",
        "3",
        "--precision",
        "fp16",
    ],
    [
        "tts",
        "qwen3-8b",
        "--hw",
        "h100-sxm",
        "--strategy",
        "best_of_n",
        "--samples",
        "16",
        "--prompt-len",
        "512",
        "--gen-len",
        "8192",
        "--verifier",
        "qwen3-0.6b",
    ],
]
TARGET_S = 0.5


def cold_times(args: list[str], runs: int) -> list[float]:
    """Wall time of ``python -m llmcost ARGS`` in a fresh interpreter, ``runs`` times."""
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "llmcost", *args],
            cwd=ROOT,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        out.append(time.perf_counter() - t)
    return out


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    for args in COMMANDS:
        ts = cold_times(args, runs)
        mn, med = min(ts), statistics.median(ts)
        flag = "ok" if med < TARGET_S else f"over the {TARGET_S} s target"
        print(f"llmcost {' '.join(args)}: cold min {mn:.3f} s, median {med:.3f} s over {runs} runs ({flag})")
    search_bench(max(1, min(runs, 3)))


# --- plan search (issue 6): plans evaluated per second on one core, cold wall time --------------------
SEARCH_COMMANDS: list[list[str]] = [
    [
        "search",
        "train",
        "gpt3-175b",
        "--hw",
        "a100-sxm4-80gb",
        "--gpus",
        "1024",
        "--global-batch",
        "1536",
        "--seq-len",
        "2048",
    ],
    # inference plan search: 3 accelerators x tp/pp x 5 weight x 2 activation x 2 KV formats x 11 batches
    ["search", "infer", "llama-3.1-70b", "--hw", "h100-sxm,mi300x,l40s"],
]
SEARCH_TARGET_PLANS_S = 100_000
SEARCH_TARGET_WALL_S = 3.0
SEARCH_TARGETS = {"train": (SEARCH_TARGET_PLANS_S, SEARCH_TARGET_WALL_S), "infer": (50_000, 2.0)}
"""(plans/s, cold wall s) targets per search; the inference search: 50,000 plans/s, under 2 s."""


def _one_core() -> None:
    import os

    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})


def search_bench(runs: int) -> None:
    """Cold wall time of each search (pinned to one core) and its plans evaluated per second."""
    import json

    for args in SEARCH_COMMANDS:
        walls, rates, n = [], [], 0
        for _ in range(runs):
            t = time.perf_counter()
            out = subprocess.run(
                [sys.executable, "-m", "llmcost", *args, "--format", "json"],
                cwd=ROOT,
                check=True,
                capture_output=True,
                text=True,
                preexec_fn=_one_core,
            )
            walls.append(time.perf_counter() - t)
            data = json.loads(out.stdout)
            n = data["plans_evaluated"]
            rates.append(n / data["elapsed_s"])
        wall, rate = statistics.median(walls), statistics.median(rates)
        min_rate, max_wall = SEARCH_TARGETS.get(args[1], (SEARCH_TARGET_PLANS_S, SEARCH_TARGET_WALL_S))
        ok = "ok" if rate >= min_rate and wall < max_wall else "over target"
        print(
            f"llmcost {' '.join(args)}: {n:,} plans, {rate:,.0f} plans/s (search alone), cold wall median "
            f"{wall:.2f} s over {runs} runs, one core (targets {min_rate:,} plans/s, {max_wall} s: {ok})"
        )


if __name__ == "__main__":
    main()
