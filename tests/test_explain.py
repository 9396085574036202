"""``llmcost explain``: every formula of every area listed with the function that builds it, one
formula explained by name, and ``--explain`` naming the builder of each expression it prints."""

from __future__ import annotations

import json
import re
import sys
import types
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT

LOCATION = re.compile(r"(llmcost/[\w/]+\.py):(\w+)")


def _resolves(loc: str) -> bool:
    """``path.py:function`` names a file of the repository that defines that function."""
    m = LOCATION.fullmatch(loc.split("(")[0].split(" ")[0])
    assert m, loc
    path = ROOT / m.group(1)
    return path.is_file() and re.search(rf"^\s*def {m.group(2)}\(", path.read_text(), re.M) is not None


def test_list_names_every_formula_of_every_table_area(cli) -> None:  # noqa: ANN001
    from llmcost.economics import formulas as E
    from llmcost.training import formulas as TR
    from llmcost.tts import formulas as TT

    r = cli("explain", "--list", "-f", "json")
    assert r.code == 0, r.err
    rows = json.loads(r.out)
    by_area: dict[str, set[str]] = {}
    for row in rows:
        by_area.setdefault(row["area"], set()).add(row["name"].split(".")[-1])
        assert _resolves(row["builder"]), row
        assert row["summary"] and "\n" not in row["summary"]
    assert by_area["training"] == set(TR.FORMULAS)
    assert by_area["tts"] == set(TT.FORMULAS)
    assert by_area["economics"] == set(E.FORMULAS)
    assert {"all_reduce__ring", "all_reduce__in_network", "send_recv__direct"} <= by_area["collectives"]
    assert {"forward__std__dense", "io__decode__last"} <= by_area["graph"]
    assert by_area["kernels"] == {"roofline", "gemm_shape", "attention_head", "attention_length"}
    row = next(x for x in rows if x["name"] == "time_to_train")
    assert row["builder"] == "llmcost/training/formulas.py:time_to_train"
    # a name in two areas is listed as area.name, the way it must be typed
    assert {"economics.usd", "tts.usd"} <= {x["name"] for x in rows}


def test_no_argument_lists_per_area_tables(cli) -> None:  # noqa: ANN001
    r = cli("explain")
    assert r.code == 0, r.err
    assert "training (llmcost/training/formulas.py)" in r.out
    assert "collectives (llmcost/collectives/formulas.py)" in r.out
    assert "llmcost/training/formulas.py:time_to_train" in r.out
    assert cli("explain", "--list").out == r.out


def test_one_formula_by_name(cli) -> None:  # noqa: ANN001
    r = cli("explain", "time_to_train")
    assert r.code == 0, r.err
    assert r.out.startswith("training.time_to_train: built by llmcost/training/formulas.py:time_to_train")
    assert "Run length" in r.out and "time_to_train = t_step*train_tokens/(goodput*tokens_step)" in r.out
    assert "train_tokens" in r.out and "symbols" in r.out
    r = cli("explain", "pipeline__1f1b")
    assert "llmcost/training/formulas.py:pipeline_time as pipeline_time(bubble_1f1b)" in r.out
    r = cli("explain", "training.mfu", "--format", "json")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["name"] == "training.mfu" and doc["builder"] == "llmcost/training/formulas.py:mfu"
    assert "PaLM" in doc["doc"] and doc["expressions"]["mfu"] and doc["symbols"]
    r = cli("explain", "tts.usd", "--latex")
    assert r.code == 0 and "\\frac" in r.out


def test_collective_and_graph_formulas(cli) -> None:  # noqa: ANN001
    r = cli("explain", "all_reduce__ring")
    assert r.code == 0, r.err
    assert "llmcost/collectives/formulas.py:ring" in r.out and "MPICH" in r.out and "T = " in r.out
    assert "llmcost explain collective all_reduce --algo ring" in r.out
    r = cli("explain", "all_reduce__ring__switch_switch", "-f", "json")  # any generated shape
    assert r.code == 0, r.err
    assert "alpha_1" in json.loads(r.out)["expressions"]["T"]
    r = cli("explain", "decode__std__dense")
    assert r.code == 0 and "llmcost/graph/ops.py:layer_ops" in r.out and "qkv_proj.flops = " in r.out
    r = cli("explain", "roofline")
    assert r.code == 0 and "llmcost/kernels/roofline.py:expression" in r.out


@pytest.mark.parametrize(
    ("name", "needle"),
    [
        ("time_to_trian", "did you mean 'time_to_train'"),
        ("usd", "economics.usd"),
        ("training.eflops", "unknown formula"),
    ],
)
def test_bad_names_are_one_line_exit_2(cli, name: str, needle: str) -> None:  # noqa: ANN001
    r = cli("explain", name)
    assert r.code == 2 and needle in r.err
    assert len(r.err.strip().splitlines()) == 1 and "Traceback" not in r.err


def test_collective_subcommand_unchanged(cli) -> None:  # noqa: ANN001
    r = cli("explain", "collective", "all_reduce", "--algo", "ring", "--gpus", "16", "-f", "json")
    assert r.code == 0, r.err
    assert set(json.loads(r.out)) == {"shape", "protocol", "expression", "latex", "values", "time_s"}


def test_areas_table_tolerates_a_missing_module_and_reads_a_new_one(monkeypatch) -> None:  # noqa: ANN001
    import sympy as sp

    from llmcost.cli import formula_index as X

    def built() -> sp.Expr:
        """A new area's formula (its source)."""
        return sp.Symbol("x") + 1

    fake = types.ModuleType("llmcost_fake_area_formulas")
    fake.FORMULAS = {"fake_quantity": built}  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, fake.__name__, fake)
    monkeypatch.setattr(X, "AREAS", {**X.AREAS, "absent": "llmcost.nosuch.formulas", "fake": fake.__name__})
    X.area_formulas.cache_clear()
    try:
        assert X.area_formulas("absent") == ()
        f = X.find("fake_quantity")
        assert f.key == "fake.fake_quantity" and f.summary == "A new area's formula (its source)."
        assert f.terms()[0][1] == sp.Symbol("x") + 1
    finally:
        X.area_formulas.cache_clear()


def _json_doc(out: str) -> dict:
    return json.loads(out)  # raises if stdout holds more than one document


def test_explain_flags_name_each_builder(cli) -> None:  # noqa: ANN001
    runs = {
        "train": (
            "train",
            "llama-3.1-8b",
            "--gpus",
            "8",
            "--tp",
            "8",
            "--zero",
            "3",
            "--stack",
            "none",
            "--explain",
        ),
        "infer": ("infer", "llama-3.1-8b", "--output-len", "4", "--explain"),
        "tts": ("tts", "qwen3-1.7b", "--samples", "4", "--gen-len", "1024", "--explain"),
    }
    for name, args in runs.items():
        r = cli(*args)
        assert r.code == 0, (name, r.err)
        locs = LOCATION.findall(r.out)
        assert locs, name
        for path, fn in locs:
            assert _resolves(f"{path}:{fn}"), (name, path, fn)
        r = cli(*args, "-f", "json")
        assert r.code == 0, (name, r.err)
        doc = _json_doc(r.out)
        builders = doc["explain"]["builders"]  # the result document, the explanation under a key
        assert builders and all(_resolves(b) for b in builders.values())
        assert doc["explain"]["expression" if name == "train" else "lines"]
        assert "iteration_time_s" in doc if name == "train" else "explain" in doc
        r = cli(*args, "-f", "yaml")
        assert r.code == 0 and "explain" in yaml.safe_load(r.out), name
        r = cli(*args, "-f", "csv")  # the result is a CSV row: no room for the expressions
        assert r.code == 2 and r.err.count("\n") == 1 and "--explain" in r.err
    r = cli(*runs["train"])
    assert (
        "T is built by llmcost/training/formulas.py:step_expression from pipeline__1f1b, pp__p2p_serial, dp__overlap, zero3"
        in r.out
    )


def test_explain_module_imports_stay_light() -> None:
    """Listing the index module imports no sympy (the formulas modules do, when read)."""
    import subprocess

    code = "import sys, llmcost.cli.formula_index; assert 'sympy' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], cwd=Path(ROOT), check=True)
