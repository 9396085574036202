"""``--plot FILE`` (issue 15): each command writes a PNG or SVG by the suffix; without matplotlib, a
bad suffix or a missing directory, one line and exit code 2 before anything is costed."""

from __future__ import annotations

import builtins
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
SEARCH_TRAIN = ["search", "train", "llama-3.1-8b", "--hw", "h100-sxm", "--gpus", "8", "--global-batch", "64",
                "--seq-len", "4096", "-q", "--top", "5"]  # fmt: skip
COMMANDS = {
    "search_train": SEARCH_TRAIN,
    "search_train_pareto": [*SEARCH_TRAIN, "--pareto"],
    "search_infer": ["search", "infer", "llama-3.1-8b", "--hw", "h100-sxm,l40s", "--max-tpot", "50ms", "-q"],
    "infer_breakdown": ["infer", "llama-3.1-8b", "--hw", "h100-sxm", "--batch", "8", "--breakdown"],
    "train": [
        "train",
        "llama-3.1-8b",
        "--hw",
        "h100-sxm",
        "--gpus",
        "8",
        "--tp",
        "2",
        "--global-batch",
        "16",
        "--seq-len",
        "4096",
    ],  # fmt: skip
    "collective_sweep": ["collective", "all_reduce", "--gpus", "16", "--sweep", "1KiB:1GiB"],
    "tts": ["tts", "qwen3-0.6b", "--hw", "h100-sxm", "--samples", "4", "--gen-len", "2048"],
    "search_tts": [
        "search",
        "tts",
        "--models",
        "qwen3-0.6b",
        "--hw",
        "h100-sxm",
        "--budget-seconds",
        "30",
        "--samples",
        "1,4,16",
        "--gen-lens",
        "1024,4096",
    ],  # fmt: skip
}


def _is_image(path: Path) -> None:
    data = path.read_bytes()
    if path.suffix == ".png":
        assert data.startswith(PNG_MAGIC)
    else:
        assert ET.fromstring(data).tag.endswith("svg")


SVG_ONCE = ("search_train", "infer_breakdown", "collective_sweep")
"""Commands also drawn as SVG: one per figure kind (every command is drawn as PNG)."""


@pytest.mark.parametrize(
    ("name", "suffix"), [(n, ".png") for n in sorted(COMMANDS)] + [(n, ".svg") for n in SVG_ONCE]
)
def test_plot_writes_an_image_of_its_suffix(cli, tmp_path: Path, name: str, suffix: str) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / f"fig{suffix}"
    r = cli(*COMMANDS[name], "--plot", str(out))
    assert r.code == 0, r.err
    _is_image(out)


def test_accuracy_search_tts_plot(cli, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    acc = tmp_path / "acc.yaml"
    acc.write_text("- {model: qwen3-0.6b, gen_len: 1024, p: 0.3, f_max: 0.8}\n"
                   "- {model: qwen3-0.6b, gen_len: 4096, p: 0.4, f_max: 0.9}\n")  # fmt: skip
    out = tmp_path / "tts.png"
    r = cli(*COMMANDS["search_tts"], "--accuracy", str(acc), "--pareto", "--plot", str(out))
    assert r.code == 0, r.err
    _is_image(out)


def test_missing_matplotlib_is_one_line_naming_the_extra(cli, tmp_path: Path, monkeypatch) -> None:
    real = builtins.__import__

    def no_matplotlib(name: str, *args, **kwargs):  # noqa: ANN002, ANN003
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError(f"No module named '{name}'")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    for args in (COMMANDS["train"], COMMANDS["collective_sweep"], COMMANDS["search_train"]):
        r = cli(*args, "--plot", str(tmp_path / "x.png"))
        assert r.code == 2
        assert r.err.count("\n") == 1 and "pip install 'llmcost[plot]'" in r.err
        assert "Traceback" not in r.err and not r.out
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize(
    ("target", "words"),
    [("fig.pdf", ".png or .svg"), ("fig", ".png or .svg"), ("missing/fig.png", "does not exist")],
)
def test_bad_target_is_one_line(cli, tmp_path: Path, target: str, words: str) -> None:
    r = cli(*COMMANDS["train"], "--plot", str(tmp_path / target))
    assert r.code == 2 and r.err.count("\n") == 1 and words in r.err and not r.out


def test_plot_needs_a_sweep_and_one_pool(cli, tmp_path: Path) -> None:
    r = cli("collective", "all_reduce", "--plot", str(tmp_path / "x.png"))
    assert r.code == 2 and "--sweep" in r.err
    r = cli("infer", "llama-3.1-8b", "--prefill-pool", "tp=1", "--plot", str(tmp_path / "x.png"))
    assert r.code == 2 and "--plot" in r.err
