"""The CLI's cold start (issue 14): what a command does not need stays unimported, and the option
coercion that avoids pydantic gives typer's own values."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from unittest.mock import patch

import pytest

from llmcost.cli.coercion import MISS, fast_value

COLLECTIVE = ["collective", "all_reduce", "--size", "1GiB", "--gpus", "64", "--hw", "h100-sxm"]
TRAIN = ["train", "gpt3-175b", "--hw", "a100-sxm4-80gb", "--gpus", "64", "--tp", "8", "--pp", "8"]
TRAIN += ["--micro-batch", "1", "--global-batch", "64", "--seq-len", "2048", "--goodput", "0.85"]


def _modules(code: str, *argv: str) -> set[str]:
    """The modules a fresh interpreter has imported after running ``code`` (``argv`` its args)."""
    code += "\nprint(' '.join(sys.modules), file=sys.stderr)\n"
    p = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True)
    return set(p.stderr.strip().splitlines()[-1].split())


RUN = "import sys\nfrom llmcost.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass"


@pytest.mark.parametrize("argv", [COLLECTIVE, TRAIN, ["--help"]], ids=["collective", "train", "help"])
def test_unneeded_imports_deferred(argv: list[str]) -> None:
    floor = _modules("import sys, numpy, yaml, typer")  # what the dependencies load anyway
    mods = _modules(RUN, *argv)
    for heavy in ("pydantic", "sympy", "importlib.metadata", "numpy.ma", "rich.console", "matplotlib"):
        assert heavy in floor or heavy not in mods, f"llmcost {' '.join(argv)} imported {heavy}"
    if argv[0] != "--help":  # a command imports its own module, not every command's
        assert "llmcost.cli.search_train_infer_cmd" not in mods and f"llmcost.cli.{argv[0]}_cmd" in mods
    for mixed in ("llmcost.training.seqdist", "llmcost.training.varlen"):  # only with --seq-len-dist
        assert mixed not in mods, f"llmcost {' '.join(argv)} imported {mixed}"


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


def _text(rng: random.Random, words: int) -> str:
    """Words of letters, digits, symbols and runs of spaces, sometimes leading or trailing."""
    pool = ["a", "bb", "GiB", "x=1,", "0.05", "-", "(s^2/2)", "µs", "§3", "a/b", "—", "a\\b", "...", "1,234"]
    odd = ["e:f", "[x]", ":ok:", "é", "\t", "averyveryverylongwordthatmightnotfit" * rng.choice([1, 3])]
    pick = [rng.choice(odd if rng.random() < 0.02 else pool) for _ in range(words)]
    out = "".join(w + " " * rng.choice([0, 1, 1, 1, 2, 3]) for w in pick)
    return (" " * rng.choice([0, 0, 2])) + out


def test_plain_table_is_richs() -> None:
    from llmcost.report import _plain_table, _rich_table

    rng, taken = random.Random(14), 0
    for _ in range(2000):
        ncols, nrows = rng.randint(1, 4), rng.randint(1, 5)
        cols = [_text(rng, rng.randint(1, 2)).strip() or "c" for _ in range(ncols)]
        cells = [[_text(rng, rng.randint(0, 4)) for _ in cols] for _ in range(nrows)]
        right = [rng.random() < 0.3 for _ in cols]
        title = rng.choice([None, "", _text(rng, rng.randint(1, 8))])
        notes = [_text(rng, rng.randint(0, 40)) for _ in range(rng.randint(0, 3))]
        width = rng.choice([100, 120, 160])
        plain = _plain_table(cols, cells, right, title, notes, width)
        if plain is None:
            continue
        taken += 1
        with patch("llmcost.report._width", return_value=width):
            assert plain == _rich_table(cols, cells, right, title, notes), (cols, cells, right, title, notes)
    assert taken > 800, taken  # the plain path is the common one
