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
    ["infer", "llama-3.1-70b", "--hw", "h100-sxm", "--tp", "4", "--batch", "16", "--prompt-len", "2048",
     "--output-len", "256"],
    ["train", "gpt3-175b", "--hw", "a100-sxm4-80gb", "--gpus", "64", "--tp", "8", "--pp", "8", "--micro-batch", "1",
     "--global-batch", "64", "--seq-len", "2048", "--recompute", "selective", "--schedule", "interleaved",
     "--virtual-stages", "3", "--precision", "fp16"],
    ["tts", "qwen3-8b", "--hw", "h100-sxm", "--strategy", "best_of_n", "--samples", "16", "--prompt-len", "512",
     "--gen-len", "8192", "--verifier", "qwen3-0.6b"],
]
TARGET_S = 0.5


def cold_times(args: list[str], runs: int) -> list[float]:
    """Wall time of ``python -m llmcost ARGS`` in a fresh interpreter, ``runs`` times."""
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "llmcost", *args], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        out.append(time.perf_counter() - t)
    return out


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    for args in COMMANDS:
        ts = cold_times(args, runs)
        mn, med = min(ts), statistics.median(ts)
        flag = "ok" if med < TARGET_S else f"over the {TARGET_S} s target"
        print(f"llmcost {' '.join(args)}: cold min {mn:.3f} s, median {med:.3f} s over {runs} runs ({flag})")


if __name__ == "__main__":
    main()
