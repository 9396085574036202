"""Shared fixtures: run the CLI in-process and capture what it prints."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LLMCOST = Path(sys.executable).parent / "llmcost"


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
