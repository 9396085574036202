"""Cold wall time, plans/s and peak memory of llmcost commands, as ratios to references timed in the same run.

Usage: ``python bench/run.py [N] [--quick] [-v]`` (``make bench``): N cold runs of each single costing
(default 7), in rounds that run each once; searches run min(N, 3) times, the DeepSeek-V3 search once
(~20 s, ~0.3 GiB here; ``--quick`` skips it); ``-v`` prints each command in full. Ratios use the fastest
run, the one least disturbed by other load.

Every command runs in a fresh interpreter pinned to one core, and its peak RSS is its own (``os.wait4``).
Wall times are printed as ratios to two references of the same run, so figures compare across
machines: the dependency import floor (``python -c "import numpy, yaml, typer, rich"``) and one
single cold costing (:data:`SINGLE`). Goals are issue 14's; each line ends ``ok`` or ``not met``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FLOOR: list[str] = ["-c", "import numpy, yaml, typer, rich"]
"""The import floor: what any command of a numpy / yaml / typer / rich CLI pays before it works."""
SINGLE: list[str] = shlex.split(
    "train gpt3-175b --hw a100-sxm4-80gb --gpus 64 --tp 8 --pp 8 --micro-batch 1 --global-batch 64 "
    "--seq-len 2048 --recompute selective --schedule interleaved --virtual-stages 3 --precision fp16"
)
"""The single cold costing that searches are measured against (also one of :data:`COMMANDS`)."""
COMMANDS: list[list[str]] = [
    shlex.split("collective all_reduce --size 1GiB --gpus 64 --hw h100-sxm"),
    shlex.split("infer llama-3.1-70b --hw h100-sxm --tp 4 --batch 16 --prompt-len 2048 --output-len 256"),
    SINGLE,
    shlex.split(
        "tts qwen3-8b --hw h100-sxm --strategy best_of_n --samples 16 --prompt-len 512 --gen-len 8192 "
        "--verifier qwen3-0.6b"
    ),
]
"""Single cold costings; goal: each at most :data:`SINGLE_GOAL` times the import floor."""
SINGLE_GOAL = 1.5


@dataclass(frozen=True)
class Search:
    """A plan search to time, with its goals (None: no goal)."""

    args: list[str]
    wall_goal: float | None  # cold wall, at most this many single costings
    rate_goal: float | None  # plans evaluated per second (search alone, one core), at least
    rss_goal: int | None  # peak RSS in bytes, at most
    slow: bool = False  # skipped by --quick


GIB = 2**30
SEARCHES: list[Search] = [
    Search(
        shlex.split(
            "search train gpt3-175b --hw a100-sxm4-80gb --gpus 1024 --global-batch 1536 --seq-len 2048"
        ),
        wall_goal=1.5,
        rate_goal=2e6,
        rss_goal=None,
    ),
    # inference plan search: 3 accelerators x tp/pp x 5 weight x 2 activation x 2 KV formats x 11 batches
    Search(shlex.split("search infer llama-3.1-70b --hw h100-sxm,mi300x,l40s"), None, 50_000, None),
    Search(
        shlex.split("search train deepseek-v3 --hw h800-sxm --gpus 2048 --global-batch 15360 --seq-len 4096"),
        wall_goal=10.0,
        rate_goal=None,
        rss_goal=GIB,
        slow=True,
    ),
]


@dataclass(frozen=True)
class Run:
    """One finished subprocess: wall seconds, peak RSS in bytes (None where unknown), exit code, stdout."""

    wall: float
    rss: int | None
    code: int
    stdout: str


@contextmanager
def _one_core() -> Iterator[None]:
    """This process pinned to one core while it starts a child (which inherits the pinning): no
    ``preexec_fn``, so the child is spawned, not forked, and its peak RSS is its own, not a copy of
    this process's pages."""
    if not hasattr(os, "sched_setaffinity"):
        yield
        return
    was = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {sorted(was)[0]})
    try:
        yield
    finally:
        os.sched_setaffinity(0, was)


def maxrss_bytes(ru_maxrss: int) -> int:
    """``ru_maxrss`` in bytes: macOS reports bytes, Linux and the BSDs kibibytes."""
    return ru_maxrss if sys.platform == "darwin" else ru_maxrss * 1024


def measure(argv: list[str]) -> Run:
    """Run ``python ARGV`` once in a fresh interpreter pinned to one core; its own wall time and peak RSS.

    Output goes to a temporary file (no pipe to drain), and the child is reaped with ``os.wait4`` so the
    resource usage is this child's alone (``RUSAGE_CHILDREN`` would be the maximum over all children).
    """
    with tempfile.TemporaryFile() as out:
        t = time.perf_counter()
        with _one_core():
            proc = subprocess.Popen([sys.executable, *argv], cwd=ROOT, stdout=out, stderr=subprocess.DEVNULL)
        rss = None
        if hasattr(os, "wait4"):
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            rss = maxrss_bytes(usage.ru_maxrss)
        else:
            proc.wait()
        wall = time.perf_counter() - t
        out.seek(0)
        return Run(wall, rss, proc.returncode, out.read().decode(errors="replace"))


def verdict(value: float, goal: float | None, at_most: bool = True, shown: str = "") -> str:
    """``goal <= G: ok`` or ``: not met`` (``>=`` when not ``at_most``; G as ``shown``, else ``{goal}x``)."""
    if goal is None:
        return ""
    met = value <= goal if at_most else value >= goal
    return f"goal {'<=' if at_most else '>='} {shown or f'{goal:g}x'}: {'ok' if met else 'not met'}"


def count(x: float) -> str:
    """A count as ``2.1M``, ``237,631`` or ``12``."""
    return f"{x / 1e6:.3g}M" if x >= 1e6 else f"{x:,.0f}"


def human_bytes(n: int | None) -> str:
    """Bytes as MiB or GiB."""
    if n is None:
        return "n/a"
    return f"{n / GIB:.2f} GiB" if n >= GIB else f"{n / 2**20:.0f} MiB"


def label(args: list[str]) -> str:
    """A command's short name: its words before the first option, and its GPU count."""
    words = list(itertools.takewhile(lambda w: not w.startswith("-"), args))
    if "--gpus" in args[:-1]:
        words.append(f"{args[args.index('--gpus') + 1]} GPUs")
    return " ".join(words)


def line(lead: str, what: str, detail: str, goal: str = "") -> str:
    """One figure: the ratio (or value) first, then what it is, then the absolute figure and the goal."""
    return f"{lead:>14}  {what:<34} ({detail}{'; ' + goal if goal else ''})"


def cold(argv: list[str]) -> Run:
    """One cold run of ``python ARGV``; raises with the exit code when it fails."""
    r = measure(argv)
    if r.code != 0:
        raise RuntimeError(f"python {shlex.join(argv)} exited with {r.code}")
    return r


def search_figures(s: Search, runs: list[Run], single: float) -> list[str]:
    """A search's lines from its runs' ``--format json`` output: cold wall per single costing, plans/s, peak RSS."""
    data = [json.loads(r.stdout) for r in runs]
    n, wall = len(runs), min(r.wall for r in runs)
    rate = max(d["plans_evaluated"] / d["elapsed_s"] for d in data)
    rss = [r.rss for r in runs if r.rss is not None]
    peak = max(rss) if rss else None
    rate_goal = verdict(rate, s.rate_goal, at_most=False, shown=f"{count(s.rate_goal or 0)} plans/s")
    rss_goal = verdict(peak or 0, s.rss_goal, shown=human_bytes(s.rss_goal)) if peak is not None else ""
    return [
        line(
            f"{wall / single:.2f}x single",
            label(s.args),
            f"cold wall {wall:.2f} s, fastest of {n}",
            verdict(wall / single, s.wall_goal),
        ),
        line(
            count(rate), "  plans/s, search alone, best", f"{data[0]['plans_evaluated']:,} plans", rate_goal
        ),
        line(human_bytes(peak), "  peak RSS", f"max of {n}", rss_goal),
    ]


def main(argv: list[str] | None = None) -> None:
    """Time the references and single costings in interleaved rounds, then the searches; one line per figure."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("runs", nargs="?", type=int, default=7, help="cold runs per single costing (default 7)")
    p.add_argument("--quick", action="store_true", help="skip the DeepSeek-V3 search (~20 s)")
    p.add_argument("-v", "--verbose", action="store_true", help="print each command in full")
    a = p.parse_args(argv)
    runs = max(1, a.runs)
    subprocess.run([sys.executable, "-m", "compileall", "-q", "llmcost"], cwd=ROOT, check=True)

    def show(args: list[str]) -> None:
        if a.verbose:
            print(f"{'':>14}  llmcost {shlex.join(args)}")

    # one round runs every command once, so a burst of other load slows references and figures alike
    argvs = [FLOOR, *(["-m", "llmcost", *c] for c in COMMANDS)]
    walls: list[list[float]] = [[] for _ in argvs]
    for _ in range(runs):
        for w, cmd in zip(walls, argvs, strict=True):
            w.append(cold(cmd).wall)
    floor, single = min(walls[0]), min(walls[1 + COMMANDS.index(SINGLE)])
    print(f"cold runs, fresh interpreter, one core; ratios of the fastest of {runs} runs (searches: of 3)")
    print(line(f"{floor:.3f} s", "floor (reference)", "python -c 'import numpy, yaml, typer, rich'"))
    print(line(f"{single:.3f} s", "single (reference)", f"llmcost {label(SINGLE)}, bench/run.py SINGLE"))
    for args, w in zip(COMMANDS, walls[1:], strict=True):
        t = min(w)
        detail = f"{t:.3f} s, median {statistics.median(w):.3f} s"
        print(line(f"{t / floor:.2f}x floor", label(args), detail, verdict(t / floor, SINGLE_GOAL)))
        show(args)
    for s in SEARCHES:
        if s.slow and a.quick:
            print(line("skipped", label(s.args), "--quick"))
            continue
        done = []
        for _ in range(1 if s.slow else min(runs, 3)):
            r = measure(["-m", "llmcost", *s.args, "--format", "json"])
            if r.code != 0:
                print(line("failed", label(s.args), f"exit {r.code}, peak RSS {human_bytes(r.rss)}"))
                break
            done.append(r)
        else:
            print("\n".join(search_figures(s, done, single)))
        show(s.args)


if __name__ == "__main__":
    main()
