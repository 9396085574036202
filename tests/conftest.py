"""Shared fixtures: run the CLI in-process and capture what it prints."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LLMCOST = Path(sys.executable).parent / "llmcost"

# The hardware ids the catalog must resolve (the foundation issue's list).
REQUIRED_HW = [
    "v100-sxm2-32gb",
    "a100-sxm4-40gb",
    "a100-sxm4-80gb",
    "a100-pcie-80gb",
    "h100-sxm",
    "h100-pcie",
    "h100-nvl",
    "h800-sxm",
    "h20",
    "h200-sxm",
    "gh200",
    "b200",
    "gb200",
    "b300",
    "gb300",
    "l40s",
    "l4",
    "rtx-4090",
    "rtx-5090",
    "a10g",
    "mi250x",
    "mi250x-gcd",
    "mi300x",
    "mi325x",
    "mi355x",
    "tpu-v4",
    "tpu-v5e",
    "tpu-v5p",
    "tpu-v6e",
    "tpu-v7",
    "gaudi2",
    "gaudi3",
    "ascend-910b",
    "ascend-910c",
    "trainium2",
    "inferentia2",
    "sn40l",
    "xeon-8480",
    "epyc-9654",
    "grace",
]


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Callable[..., Result]:
    """Run ``llmcost ARGS`` in-process; returns exit code, stdout and stderr."""
    from llmcost import catalog
    from llmcost.cli import main

    monkeypatch.delenv("LLMCOST_CATALOG", raising=False)
    monkeypatch.setenv("COLUMNS", "200")

    def run(*args: str) -> Result:
        catalog.set_user_dirs([])
        code = 0
        try:
            main(list(args))
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run
