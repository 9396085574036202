"""The CLI's cold start (issue 14): what a command does not need stays unimported, and the option
coercion that avoids pydantic gives typer's own values."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from llmcost.cli.coercion import MISS, fast_value

COLLECTIVE = ["collective", "all_reduce", "--size", "1GiB", "--gpus", "64", "--hw", "h100-sxm"]
TRAIN = ["train", "gpt3-175b", "--hw", "a100-sxm4-80gb", "--gpus", "64", "--tp", "8", "--pp", "8"]
TRAIN += ["--micro-batch", "1", "--global-batch", "64", "--seq-len", "2048", "--goodput", "0.85"]


def _loaded(argv: list[str]) -> set[str]:
    """The modules ``llmcost ARGV`` has imported by its end."""
    code = (
        "import sys\nfrom llmcost.cli import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "print(' '.join(sys.modules), file=sys.stderr)\n"
    )
    p = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True)
    return set(p.stderr.strip().splitlines()[-1].split())


@pytest.mark.parametrize("argv", [COLLECTIVE, TRAIN, ["--help"]], ids=["collective", "train", "help"])
def test_unneeded_imports_deferred(argv: list[str]) -> None:
    mods = _loaded(argv)
    for heavy in ("pydantic", "sympy", "importlib.metadata", "numpy.ma"):
        assert heavy not in mods, f"llmcost {' '.join(argv)} imported {heavy}"


TYPES = [str, bool, int, float, Path, list[str], list[Path]]
VALUES = [
    *["0", "7", "-3", "64", "007", "+8", " 8", "8 ", "1_000", "6x4", "", "-0", "12345678901234567890"],
    *["0.85", "1e-1", "1E5", "2.5e10", "-0.5", ".5", "5.", "inf", "nan", "0.1000000000000000055511"],
    *["1e400", "1e-400", "0x10", "abc", "a/b.yaml", "~/x", "é", "\udcff", "１２"],
    *[0, 3, 1.5, True, False, ("a", "b"), ("1",), ()],
]


def _typer_value(annotation: object, value: object) -> object:
    """What typer's pydantic adapter makes of ``value`` (an exception's type if it refuses it)."""
    from typer._adapters import try_build_adapter
    from typer.models import OptionInfo

    adapter = try_build_adapter(annotation, OptionInfo())
    try:
        return adapter.validate_python(value)
    except Exception as e:  # noqa: BLE001 (any refusal: the fast path must have left it alone)
        return type(e)


@pytest.mark.parametrize("annotation", TYPES, ids=str)
def test_fast_coercion_is_typers(annotation: object) -> None:
    pytest.importorskip("typer._adapters")
    for value in VALUES:
        fast = fast_value(annotation, value)
        if fast is MISS:
            continue
        want = _typer_value(annotation, value)
        assert fast == want and type(fast) is type(want), (annotation, value, fast, want)
