"""CLI conventions: output formats, --version, --catalog, and one-line errors with exit code 2."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import LLMCOST

DATA = Path(__file__).parent / "data"


def test_version(cli) -> None:
    r = cli("--version")
    assert r.code == 0 and r.out.startswith("llmcost ")


def test_hw_list_formats(cli) -> None:
    r = cli("hw", "list", "--format", "json")
    assert r.code == 0
    rows = json.loads(r.out)
    ids = {row["id"] for row in rows}
    assert {"h100-sxm", "mi300x", "tpu-v5p", "gb200"} <= ids
    r = cli("hw", "list", "--format", "csv")
    parsed = list(csv.DictReader(io.StringIO(r.out)))
    assert {row["id"] for row in parsed} == ids
    r = cli("hw", "list", "--format", "yaml")
    assert {row["id"] for row in yaml.safe_load(r.out)} == ids
    r = cli("hw", "list")
    assert r.code == 0 and "h100-sxm" in r.out


def test_hw_show_yaml_round_trips_as_an_entry(cli, tmp_path: Path) -> None:
    r = cli("hw", "show", "h100-sxm", "--format", "yaml")
    assert r.code == 0
    entry = yaml.safe_load(r.out)
    assert entry["id"] == "h100-sxm" and entry["compute"]["bf16"]
    # the printed entry is itself a valid catalog file
    (tmp_path / "hardware").mkdir()
    entry["id"] = "my-h100"
    (tmp_path / "hardware" / "my-h100.yaml").write_text(yaml.safe_dump(entry))
    r = cli("--catalog", str(tmp_path), "hw", "show", "my-h100", "--format", "json")
    assert r.code == 0, r.err
    assert json.loads(r.out)["id"] == "my-h100"


def test_hw_show_table(cli) -> None:
    r = cli("hw", "show", "mi300x")
    assert r.code == 0 and "compute.bf16" in r.out and "sources" in r.out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("hw", "show", "h100-smx"), "did you mean 'h100-sxm'"),
        (("hw", "show", "h100-sxm", "--format", "xml"), "--format"),
        (("--catalog", "/nonexistent/dir", "hw", "list"), "not a directory"),
    ],
)
def test_user_errors_are_one_line_exit_2(cli, args: tuple[str, ...], needle: str) -> None:
    r = cli(*args)
    assert r.code == 2
    assert needle in r.err
    assert len(r.err.strip().splitlines()) == 1
    assert "Traceback" not in r.err


def test_malformed_user_catalog_is_one_line(cli, tmp_path: Path) -> None:
    (tmp_path / "hardware").mkdir()
    (tmp_path / "hardware" / "bad.yaml").write_text("id: bad\ncompute: [oops\n")
    r = cli("--catalog", str(tmp_path), "hw", "show", "bad")
    assert r.code == 2 and "bad.yaml: invalid YAML at line" in r.err
    assert len(r.err.strip().splitlines()) == 1


def test_entry_point_subprocess_no_traceback() -> None:
    """The installed script and ``python -m llmcost`` behave the same, with no traceback."""
    for cmd in ([str(LLMCOST)], [sys.executable, "-m", "llmcost"]):
        p = subprocess.run([*cmd, "hw", "show", "nosuchthing"], capture_output=True, text=True, timeout=60)
        assert p.returncode == 2, p.stderr
        assert "Traceback" not in p.stderr and p.stderr.startswith("error: unknown hardware")


def test_usage_error_exit_2(cli) -> None:
    r = cli("hw", "lst")
    assert r.code == 2


def test_model_list_json_has_integer_counts(cli) -> None:
    r = cli("model", "list", "--format", "json")
    assert r.code == 0, r.err
    rows = {row["id"]: row for row in json.loads(r.out)}
    assert len(rows) >= 68
    for row in rows.values():
        assert isinstance(row["params_total"], int) and isinstance(row["params_active"], int)
        assert 0 < row["params_active"] <= row["params_total"]
    assert rows["mixtral-8x7b"]["params_total"] == 46702792704
    assert rows["deepseek-v3"]["params_active"] < rows["deepseek-v3"]["params_total"] / 10


def test_model_show_formats(cli) -> None:
    r = cli("model", "show", "llama-3.1-8b", "--format", "yaml")
    entry = yaml.safe_load(r.out)
    assert entry["hidden_size"] == 4096 and entry["computed_params"]["total"] == 8030261248
    r = cli("model", "show", "llama-3.1-8", "--format", "csv")
    assert r.code == 2 and "did you mean" in r.err


def test_model_import_round_trip(cli, tmp_path: Path) -> None:
    cfg = {
        "model_type": "llama",
        "num_hidden_layers": 2,
        "hidden_size": 256,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "intermediate_size": 512,
        "vocab_size": 1000,
        "hidden_act": "silu",
        "tie_word_embeddings": False,
    }
    src = tmp_path / "tiny-llama" / "config.json"
    src.parent.mkdir()
    src.write_text(json.dumps(cfg))
    out = tmp_path / "cat"
    out.mkdir()
    r = cli("model", "import", str(src), "--name", "tiny", "--out", str(out))
    assert r.code == 0, r.err
    r = cli("--catalog", str(out), "model", "show", "tiny", "--format", "json")
    assert r.code == 0, r.err
    per_layer = (
        2 * 256 * 256 + 2 * 256 * 128 + 3 * 256 * 512 + 2 * 256
    )  # q,o; k,v (2 KV heads x 64); SwiGLU; 2 norms
    assert json.loads(r.out)["computed_params"]["total"] == 2 * 1000 * 256 + 2 * per_layer + 256


def test_model_import_unsupported_architecture(cli, tmp_path: Path) -> None:
    src = tmp_path / "config.json"
    src.write_text(json.dumps({"model_type": "mamba", "hidden_size": 64}))
    r = cli("model", "import", str(src))
    assert r.code == 2 and "model_type" in r.err and "mamba" in r.err


def test_low_confidence_notes_are_printed(cli) -> None:
    """Outputs say when efficiency figures are borrowed from a sibling device, and when ZeRO-3 is optimistic."""
    r = cli(
        "infer", "llama-3.1-8b", "--hw", "l40s", "--batch", "4", "--prompt-len", "512", "--output-len", "64"
    )
    assert r.code == 0 and "assumed from a sibling device" in r.out
    r = cli(
        "infer",
        "llama-3.1-8b",
        "--hw",
        "h100-sxm",
        "--batch",
        "4",
        "--prompt-len",
        "512",
        "--output-len",
        "64",
    )
    assert r.code == 0 and "assumed from a sibling" not in r.out
    r = cli("train", "llama-3.1-8b", "--hw", "h100-sxm", "--gpus", "8", "--zero", "3", "--global-batch", "64")
    assert r.code == 0 and "ZeRO-3" in r.out and "optimistic" in r.out


def test_cli_functions_are_short() -> None:
    """No function body in llmcost/cli over 60 lines: a command is its typer option list (the
    signature, not counted) plus a short body calling named helpers."""
    import ast

    long = []
    for path in sorted((Path(__file__).parents[1] / "llmcost" / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body = (node.end_lineno or node.lineno) - node.body[0].lineno + 1
                if body > 60:
                    long.append(f"{path.name}:{node.lineno} {node.name} ({body} lines)")
    assert not long, long
