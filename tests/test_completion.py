"""Shell completion: typer's --show-completion / --install-completion, and catalog ids completed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from llmcost.catalog import hardware_ids, model_ids
from llmcost.cli import options as O


def test_callbacks_complete_catalog_ids() -> None:
    assert O.complete_hardware(None, "h100") == [i for i in hardware_ids() if i.startswith("h100")]
    assert "h100-sxm" in O.complete_hardware(None, "h100") and "mi300x" not in O.complete_hardware(None, "h")
    assert O.complete_model(None, "llama-3.1-") == [i for i in model_ids() if i.startswith("llama-3.1-")]
    assert "llama-3.1-8b" in O.complete_model(None, "llama-3.1-")
    assert O.complete_hardware(None, "no-such") == [] and O.complete_model(None, "") == model_ids()
    assert "h100-sxm,mi300x" in O.complete_hardware_list(None, "h100-sxm,mi3")
    assert all(c.startswith("h100-sxm,mi") for c in O.complete_hardware_list(None, "h100-sxm,mi"))


def test_callbacks_read_the_catalog_dirs_of_the_line(tmp_path: Path) -> None:
    """A --catalog directory's entries complete too; an unreadable one completes nothing."""
    from llmcost.catalog import shipped_root

    (tmp_path / "hardware").mkdir()
    text = (shipped_root() / "hardware" / "h100-sxm.yaml").read_text()
    (tmp_path / "hardware" / "my-gpu.yaml").write_text(text.replace("id: h100-sxm", "id: my-gpu"))

    class Root:
        params = {"catalog": [str(tmp_path)]}

    class Ctx:
        def find_root(self) -> Root:
            return Root()

    assert O.complete_hardware(Ctx(), "my-") == ["my-gpu"]  # type: ignore[arg-type]
    Root.params = {"catalog": [str(tmp_path / "missing")]}
    assert O.complete_hardware(Ctx(), "h1") == []  # type: ignore[arg-type]


def _complete(line: str) -> list[str]:
    """What bash completion offers for ``line`` (the word being typed last), through the real
    entry point and its fast path."""
    env = {**os.environ, "COMP_WORDS": line, "COMP_CWORD": str(len(line.split()) - 1)}
    env["_LLMCOST_COMPLETE"] = "complete_bash"
    code = "from llmcost.cli import main; main()"
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


@pytest.mark.parametrize(
    ("line", "want"),
    [
        ("llmcost train llama-3.1-", "llama-3.1-8b"),
        ("llmcost infer llama-3.1-8b --hw h10", "h100-sxm"),
        ("llmcost search train gpt3-175b --hw a100-sxm4-8", "a100-sxm4-80gb"),
        ("llmcost search infer llama-3.1-8b --hw h100-sxm,mi30", "h100-sxm,mi300x"),
        ("llmcost hw show tpu-v5", "tpu-v5p"),
        ("llmcost collective all_reduce --hw gb20", "gb200"),
    ],
)
def test_bash_completion_offers_ids(line: str, want: str) -> None:
    got = _complete(line)
    last = line.split()[-1]
    assert want in got and all(g.startswith(last) for g in got)


def test_show_completion_prints_a_script() -> None:
    env = {**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    code = "from llmcost.cli import main; main(['--show-completion', 'bash'])"
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "_LLMCOST_COMPLETE=complete_bash" in p.stdout and "complete " in p.stdout


def test_root_help_lists_the_completion_options(cli) -> None:  # noqa: ANN001
    out = cli("--help").out
    assert "--install-completion" in out and "--show-completion" in out
