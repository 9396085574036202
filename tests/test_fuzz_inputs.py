"""Fuzz every command, option and input file kind (tests/fuzzgen.py): no traceback, no hang, and
every refusal one line on stderr with exit code 2. Seeded, so a failure reproduces with its seed;
``python -m tests.fuzzgen --n 12000`` runs the big sweep outside the suite."""

from __future__ import annotations

import random
import signal
import time
from pathlib import Path

import pytest

from tests import fuzzgen

N_CASES = 600
BUDGET_S = 10.0  # per invocation; the slowest accepted ones (a search) take ~2 s
TOTAL_S = 90.0


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="the per-invocation budget needs SIGALRM")
@pytest.mark.parametrize("seed", [0, 1])
def test_fuzzed_invocations_end_cleanly(tmp_path: Path, seed: int) -> None:
    t0 = time.perf_counter()
    bad = []
    for o in fuzzgen.sweep(N_CASES // 2, seed, tmp_path, BUDGET_S, quick=True):
        if o.problem:
            bad.append(f"{o.problem}: llmcost {' '.join(o.args)}\n{o.err[-800:]}")
    assert not bad, f"{len(bad)} of {N_CASES // 2} bad; first:\n" + "\n".join(bad[:3])
    assert time.perf_counter() - t0 < TOTAL_S


def test_generator_covers_every_command_and_file_kind(tmp_path: Path) -> None:
    cmds = fuzzgen.commands()
    assert {("train",), ("infer",), ("search", "train"), ("search", "infer"), ("search", "tts")} <= set(cmds)
    assert {("validate",), ("calibrate",), ("model", "import"), ("hw", "show"), ("collective",)} <= set(cmds)
    files = fuzzgen.write_inputs(tmp_path, random.Random(0))
    assert all(files[k] for k in ("plan", "cases", "hf", "catalog", "accuracy", "broken"))


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["validate", "{not_utf8.yaml}"], ["not UTF-8", "byte 0xff"]),
        (["infer", "llama-3.1-8b", "--plan", "{deep.json}"], ["nested deeper than 64"]),
        (["infer", "llama-3.1-8b", "--plan", "{bigint.yaml}"], ["64-bit range"]),
        (["infer", "{bomb.yaml}"], ["250,000 values", "alias"]),
        (["infer", "llama-3.1-8b", "--batch", "9223372036854775808"], ["batch", "16,777,216"]),
        (["infer", "llama-3.1-8b", "--output-len", "4294967296"], ["output_len", "16,777,216"]),
        (["search", "train", "llama-3.2-1b", "--gpus", "4294967296"], ["--gpus", "16,777,216"]),
        (["search", "infer", "llama-3.1-8b", "--output-len", "10000000"], ["decode-step", "--output-len"]),
        (["infer"], ["Missing argument 'model'", "llmcost infer --help"]),
        (["infer", "llama-3.1-8b", "--bogus"], ["No such option: --bogus"]),
    ],
)
def test_named_classes_are_one_line(cli, tmp_path: Path, args: list[str], words: list[str]) -> None:  # noqa: ANN001
    fuzzgen.write_inputs(tmp_path, random.Random(0))
    r = cli(*[str(tmp_path / a[1:-1]) if a.startswith("{") else a for a in args])
    assert r.code == 2 and r.err.startswith("error: ") and r.err.count("\n") == 1, (r.code, r.err[-500:])
    for w in words:
        assert w in r.err, (w, r.err)
