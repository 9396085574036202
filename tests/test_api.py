"""The Python API (llmcost.train, infer, tts, collective, search_train, search_infer): ids and objects
give the same figures, each report's as_dict() is the CLI's --format json for the same plan, bad
input raises UserError with the CLI's message, ``import llmcost`` stays light, and the README's
example runs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

import llmcost
from llmcost import api
from llmcost.catalog import get_hardware, get_model_config
from llmcost.errors import PlanError, UnknownIdError, UserError
from llmcost.model.config import spec_of
from llmcost.report import render
from tests.conftest import ROOT


def _json(d: Any) -> Any:
    """What --format json prints of ``d``, read back (numpy scalars to Python, NaN to None)."""
    return json.loads(render(d, "json"))


def _cli_json(cli: Any, *args: str) -> Any:
    r = cli(*args, "--format", "json")
    assert r.code == 0, r.err
    return json.loads(r.out)


def _timeless(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k != "elapsed_s"}


# ------------------------------------------------------------------------------ import
def test_import_llmcost_loads_neither_numpy_nor_sympy() -> None:
    code = (
        "import sys, llmcost, llmcost.api\n"
        "assert callable(llmcost.train) and callable(llmcost.tts)\n"
        "print(sorted(m for m in ('numpy', 'sympy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


def test_api_names_lazy_listed_and_version_kept() -> None:
    names = {"train", "infer", "tts", "collective", "search_train", "search_infer"}
    names |= {"infer_disaggregated", "search_disaggregated", "emit"}
    assert set(llmcost.__all__) == names
    assert names <= set(dir(llmcost))
    assert llmcost.__version__
    for n in names:
        assert getattr(llmcost, n) is getattr(api, n)
    with pytest.raises(AttributeError):
        llmcost.fit  # noqa: B018  (not an API name yet)


def test_tts_is_the_function_even_after_the_tts_package_is_imported() -> None:
    from llmcost.tts import query

    assert llmcost.tts is api.tts
    assert sys.modules["llmcost.tts"].query is query
    code = "from llmcost.tts import query\nimport llmcost\nassert llmcost.tts.__module__ == 'llmcost.api'"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


# ------------------------------------------------------------------------------ API == CLI
def test_train_equals_cli_json(cli) -> None:
    rep = llmcost.train("llama-3.2-1b", "h100-sxm", gpus=8, tp=2, tokens="1T")
    out = _cli_json(
        cli, "train", "llama-3.2-1b", "--hw", "h100-sxm", "--gpus", "8", "--tp", "2", "--tokens", "1T"
    )
    assert _json(rep.as_dict()) == out
    assert rep.metrics() == {k: out[k] for k in rep.metrics()}
    assert rep.step_time == out["iteration_time_s"] and rep.mfu == out["mfu"]


def test_infer_equals_cli_json(cli) -> None:
    rep = llmcost.infer("llama-3.1-8b", "a100-sxm4-80gb", tp=2, batch=8, prompt_len=512, output_len=64)
    out = _cli_json(cli, "infer", "llama-3.1-8b", "--hw", "a100-sxm4-80gb", "--tp", "2", "--batch", "8",
                    "--prompt-len", "512", "--output-len", "64")  # fmt: skip
    assert _json(rep.as_dict()) == out
    assert rep.ttft == rep.metrics()["ttft_s"]


def test_tts_equals_cli_json(cli) -> None:
    rep = llmcost.tts("qwen3-0.6b", "h100-sxm", strategy="majority", samples=4, gen_len=1024)
    args = ("--hw", "h100-sxm", "--strategy", "majority", "--samples", "4", "--gen-len", "1024")
    assert _json(rep.as_dict()) == _cli_json(cli, "tts", "qwen3-0.6b", *args)


@pytest.mark.parametrize("algo", ["auto", "ring"])
def test_collective_equals_its_cli_json_row(cli, algo: str) -> None:
    rep = llmcost.collective("all_reduce", "h100-sxm", size="256MiB", gpus=16, algorithm=algo)
    rows = _cli_json(cli, "collective", "all_reduce", "--size", "256MiB", "--gpus", "16", "--algo", algo)
    (row,) = [r for r in rows if r["auto"]]
    assert _json(rep.as_dict()) == {k: v for k, v in row.items() if k not in ("auto", "fastest")}
    assert rep.metrics()["time_s"] == row["time_s"]


def test_search_train_equals_cli_json(cli) -> None:
    rep = llmcost.search_train("llama-3.2-1b", "h100-sxm", gpus=8, tp=[1, 2], top=3)
    out = _cli_json(cli, "search", "train", "llama-3.2-1b", "--gpus", "8", "--tp", "1,2", "--top", "3")
    assert _timeless(_json(rep.as_dict())) == _timeless(out)
    assert rep.space.tp == (1, 2) and rep.space.global_batch == 64


def test_search_infer_equals_cli_json(cli) -> None:
    rep = llmcost.search_infer("llama-3.2-1b", ["h100-sxm", "l40s"], batch=[1, 8], top=3, max_tpot="50ms")
    args = ("--hw", "h100-sxm,l40s", "--batch", "1,8", "--top", "3", "--max-tpot", "50ms")
    assert _timeless(_json(rep.as_dict())) == _timeless(
        _cli_json(cli, "search", "infer", "llama-3.2-1b", *args)
    )
    assert [h.id for h in rep.hardware] == ["h100-sxm", "l40s"]


def test_plan_file_as_cli_plan(cli, tmp_path: Path) -> None:
    f = tmp_path / "plan.yaml"
    f.write_text(yaml.safe_dump({"plan": {"tp": 2, "micro_batch": 2}, "cluster": {"gpus": 8}}))
    rep = llmcost.train("llama-3.2-1b", "h100-sxm", f)
    assert _json(rep.as_dict()) == _cli_json(cli, "train", "llama-3.2-1b", "--plan", str(f))
    f = tmp_path / "infer.json"
    f.write_text(json.dumps({"plan": {"tp": 2, "prompt_len": 256}}))
    rep = llmcost.infer("llama-3.2-1b", "h100-sxm", str(f), batch=4)
    assert _json(rep.as_dict()) == _cli_json(cli, "infer", "llama-3.2-1b", "--plan", str(f), "--batch", "4")


# ------------------------------------------------------------------------------ ids and objects
@pytest.fixture(scope="module")
def objects(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    cfg = get_model_config("llama-3.2-1b")
    path = tmp_path_factory.mktemp("model") / "llama.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return {"spec": spec_of("llama-3.2-1b"), "config": cfg, "path": path, "hw": get_hardware("h100-sxm")}


@pytest.mark.parametrize("model", ["spec", "config", "path"])
def test_train_by_object(objects: dict[str, Any], model: str) -> None:
    by_id = llmcost.train("llama-3.2-1b", "h100-sxm", gpus=8, tp=2, tokens=1e12, stack="none")
    plan = api.train_plan({"gpus": 8, "tp": 2})  # an object is costed as it stands: no stack
    rep = llmcost.train(objects[model], objects["hw"], plan, tokens="1T")
    assert rep.as_dict() == by_id.as_dict()
    assert isinstance(rep.result, type(by_id.result)) and rep.hardware is objects["hw"]
    # a plan object with keyword overrides, and a plain mapping
    assert (
        llmcost.train(objects[model], "h100-sxm", api.train_plan(gpus=8), tp=2).metrics() == by_id.metrics()
    )
    assert (
        llmcost.train(objects[model], "h100-sxm", {"gpus": 8, "tp": 2, "stack": "none"}).metrics()
        == by_id.metrics()
    )


def test_train_default_stack_is_todays_mainstream() -> None:
    """A plan that names no stack is costed under today's mainstream one, says so, and carries it
    (so ``--plan`` of the output costs the same); ``stack="none"`` keeps the plan's own defaults."""
    plain = llmcost.train("llama-3.2-1b", "h100-sxm", gpus=8, tp=2)
    named = llmcost.train("llama-3.2-1b", "h100-sxm", gpus=8, tp=2, stack="megatron-core:2026")
    assert plain.metrics() == named.metrics()
    assert plain.as_dict()["plan"]["stack"] == {"framework": "megatron-core", "year": 2026}
    assert "no stack given: today's mainstream" in plain.result.notes[0]
    again = llmcost.train("llama-3.2-1b", "h100-sxm", plain.as_dict()["plan"])
    assert again.metrics() == plain.metrics()
    bare = llmcost.train("llama-3.2-1b", "h100-sxm", gpus=8, tp=2, stack="NONE")
    assert bare.as_dict()["plan"]["stack"] == "none" and not any("stack" in n for n in bare.result.notes)
    assert bare.metrics() != plain.metrics()
    assert llmcost.train("llama-3.2-1b", "h100-sxm", bare.as_dict()["plan"]).metrics() == bare.metrics()
    assert api.train_plan(plain.as_dict()["plan"]).tp == 2  # the stack key is not a TrainPlan's
    with pytest.raises(UserError, match="costed as it stands"):
        llmcost.train("llama-3.2-1b", "h100-sxm", api.train_plan(gpus=8), stack="nemo:2025")


@pytest.mark.parametrize("model", ["spec", "config", "path"])
def test_infer_by_object(objects: dict[str, Any], model: str) -> None:
    by_id = llmcost.infer("llama-3.2-1b", "h100-sxm", tp=2, batch=8)
    rep = llmcost.infer(objects[model], objects["hw"], api.infer_plan(tp=2, batch=8))
    assert rep.as_dict() == by_id.as_dict()
    assert llmcost.infer(objects[model], "h100-sxm", {"tp": 2}, batch=8).as_dict() == by_id.as_dict()


def test_tts_by_object(objects: dict[str, Any]) -> None:
    by_id = llmcost.tts("llama-3.2-1b", "h100-sxm", strategy="best_of_n", samples=4, gen_len=512)
    plan = api.tts_plan({"strategy": "best_of_n", "samples": 4, "gen_len": 512})
    assert llmcost.tts(objects["spec"], objects["hw"], plan).as_dict() == by_id.as_dict()
    assert llmcost.tts(objects["config"], "h100-sxm", plan, samples=4).as_dict() == by_id.as_dict()
    sparse = llmcost.tts("llama-3.2-1b", "h100-sxm", plan, sparse_attention="topk=64,block=16", tp=2)
    assert sparse.plan.sparse.topk == 64 and sparse.plan.infer.tp == 2


def test_collective_by_object(objects: dict[str, Any]) -> None:
    by_id = llmcost.collective("all_gather", "h100-sxm", size="64MiB", gpus=16, algo="ring")
    plan = {"size_bytes": 64 * 2**20, "gpus": 16, "algorithm": "ring"}
    assert llmcost.collective("all_gather", objects["hw"], plan).as_dict() == by_id.as_dict()


def test_searches_by_object(objects: dict[str, Any]) -> None:
    by_id = llmcost.search_train("llama-3.2-1b", "h100-sxm", gpus=8, tp="1,2", top=2)
    rep = llmcost.search_train(objects["spec"], objects["hw"], by_id.space, top=2)
    assert _timeless(rep.as_dict())["plans"] == _timeless(by_id.as_dict())["plans"]
    by_id = llmcost.search_infer("llama-3.2-1b", "h100-sxm,l40s", batch=(1, 8), top=2)
    rep = llmcost.search_infer(objects["config"], [objects["hw"], "l40s"], by_id.space, top=2)
    assert rep.as_dict()["plans"] == by_id.as_dict()["plans"]


# ------------------------------------------------------------------------------ bad input
BAD = [
    (
        lambda: llmcost.train("llama-3.2-1b", "h100-smx", gpus=8),
        ("train", "llama-3.2-1b", "--hw", "h100-smx", "--gpus", "8"),
        UnknownIdError,
    ),
    (lambda: llmcost.train("llama-3.2-1b", "h100-sxm"), ("train", "llama-3.2-1b"), UserError),
    (
        lambda: llmcost.train("llama-3.2-1b", "h100-sxm", gpus=8, tokens="-5e12"),
        ("train", "llama-3.2-1b", "--gpus", "8", "--tokens", "-5e12"),
        UserError,
    ),
    (lambda: llmcost.infer("llama-3.1-8b", tp=3), ("infer", "llama-3.1-8b", "--tp", "3"), PlanError),
    (
        lambda: llmcost.tts("qwen3-0.6b", strategy="beam", samples=2, beam_width=4),
        ("tts", "qwen3-0.6b", "--strategy", "beam", "--samples", "2", "--beam-width", "4"),
        UserError,
    ),
    (
        lambda: llmcost.collective("all_reduce", size="1XB"),
        ("collective", "all_reduce", "--size", "1XB"),
        UserError,
    ),
    (
        lambda: llmcost.search_train("llama-3.2-1b", tp=[0]),
        ("search", "train", "llama-3.2-1b", "--tp", "0"),
        UserError,
    ),
    (
        lambda: llmcost.search_infer("llama-3.2-1b", max_tpot="fast"),
        ("search", "infer", "llama-3.2-1b", "--max-tpot", "fast"),
        UserError,
    ),
]


@pytest.mark.parametrize(("call", "args", "kind"), BAD)
def test_bad_input_raises_the_cli_message(cli, call: Any, args: tuple[str, ...], kind: type) -> None:
    with pytest.raises(kind) as e:
        call()
    r = cli(*args)
    assert r.code == 2
    assert r.err.strip() == f"error: {e.value}"


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda: llmcost.train(3, gpus=8), "model: expected a catalog id"),
        (lambda: llmcost.infer("llama-3.2-1b", 3), "hardware: expected a hardware id"),
        (lambda: llmcost.infer("llama-3.2-1b", tq=2), "did you mean 'tp'"),
        (lambda: llmcost.tts("qwen3-0.6b", sampels=2), "did you mean 'samples'"),
        (lambda: llmcost.collective("all_reduce", sise="1GiB"), "did you mean 'size'"),
        (lambda: llmcost.collective("all_reduce", size="1GiB", size_bytes=8), "give 'size' once"),
        (lambda: llmcost.collective("all_reduce", gpus="16"), "--gpus: expected an integer"),
        (lambda: llmcost.search_train("llama-3.2-1b", tpp=2), "did you mean 'tp'"),
        (lambda: llmcost.search_infer("llama-3.2-1b", []), "--hw: expected a comma-separated list"),
        (lambda: llmcost.search_infer("llama-3.2-1b", 3), "hardware: expected a hardware id"),
        (lambda: llmcost.collective("all_reduce", "h100-sxm", 3), "collective plan: expected a mapping"),
        (lambda: llmcost.tts("qwen3-0.6b", "h100-sxm", "plan.yaml"), "tts plan: expected a TTSPlan"),
        (lambda: llmcost.search_train("llama-3.2-1b", "h100-sxm", "4,8"), "search train: expected a space"),
    ],
)
def test_api_only_mistakes_are_user_errors(call: Any, needle: str) -> None:
    with pytest.raises(UserError, match=re.escape(needle)):
        call()


# ------------------------------------------------------------------------------ README
def test_readme_python_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"^## Python API\n.*?^```python\n(.*?)^```", text, re.S | re.M)
    assert m, "README.md: the Python API section's python block"
    exec(compile(m.group(1), "README.md (Python API)", "exec"), {"__name__": "readme"})
    assert "MFU" in capsys.readouterr().out


def test_train_json_plan_feeds_back_as_it_is(cli, tmp_path) -> None:  # noqa: ANN001
    """``train --format json``'s plan (stack-decided keys and the derived micro_batches included)
    re-costs to the same step time through ``--plan``."""
    import json

    for args in (
        ("--tp", "2", "--stack", "megatron-core:2024"),
        ("--zero", "3", "--stack", "torchtitan:2025"),
    ):
        first = json.loads(cli("train", "llama-3.1-8b", "--gpus", "8", *args, "-f", "json").out)
        assert first["plan"]["stack"] == args[-1]  # the stack's device figures come back with it
        path = tmp_path / "plan.json"
        path.write_text(json.dumps(first["plan"]))
        again = json.loads(cli("train", "llama-3.1-8b", "--plan", str(path), "-f", "json").out)
        assert again["iteration_time_s"] == first["iteration_time_s"]


def test_micro_batches_checks_come_after_the_plans_own(cli, tmp_path) -> None:  # noqa: ANN001
    """A plan file with micro_batches and a bad degree or a quoted dp names the degree, not the count."""
    import json

    for plan, words in (
        ({"gpus": 8, "dp": "8", "global_batch": 16, "micro_batches": 2}, "dp"),
        ({"gpus": 12, "tp": 8, "micro_batches": 2}, "12 GPUs do not divide"),
    ):
        path = tmp_path / "p.json"
        path.write_text(json.dumps(plan))
        r = cli("train", "llama-3.1-8b", "--plan", str(path))
        assert r.code == 2 and words in r.err and "Traceback" not in r.err
