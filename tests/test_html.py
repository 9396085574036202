"""``--html FILE`` (issue 15): one self-contained HTML5 page per command (the printed tables, the
figure as inline SVG, the formulas behind it), no external resource; bad targets one line, exit 2."""

from __future__ import annotations

import builtins
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.test_plots import COMMANDS

VOID = {"meta", "link", "br", "hr", "img", "input", "col", "area", "base", "embed", "source", "track", "wbr"}


class Page(HTMLParser):
    """The page's structure: balanced tags, ids, links, tables (as cell texts) and svg count."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.seen: list[str] = []
        self.ids: list[str] = []
        self.links: list[str] = []
        self.tables: list[list[list[str]]] = []
        self.cell: list[str] | None = None
        self.doctype = ""
        self.feed(text)
        self.close()

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._attrs(tag, attrs)
        if tag not in VOID:
            self.stack.append(tag)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell = []

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._attrs(tag, attrs)

    def _attrs(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.seen.append(tag)
        for k, v in attrs:
            if k == "id":
                self.ids.append(v or "")
            if k in ("src", "href", "xlink:href", "action", "srcset", "poster"):
                self.links.append(v or "")

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-5:])
        self.stack.pop()
        if tag in ("td", "th") and self.cell is not None:
            self.tables[-1][-1].append("".join(self.cell).strip())
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def check_page(path: Path) -> Page:
    """Valid HTML5 as far as html.parser sees: doctype, balanced tags, unique ids, no script, no link
    leaving the page, the page's sections."""
    text = path.read_text(encoding="utf-8")
    page = Page(text)
    assert page.doctype.lower() == "doctype html" and text.startswith("<!DOCTYPE html>")
    assert not page.stack
    assert page.seen[:3] == ["html", "head", "meta"] and "body" in page.seen and "title" in page.seen
    assert "script" not in page.seen and "iframe" not in page.seen and "link" not in page.seen
    assert all(link.startswith("#") for link in page.links), [x for x in page.links if not x.startswith("#")]
    assert len(page.ids) == len(set(page.ids))
    for section in ("results", "figures", "formulas"):
        assert section in page.ids
    assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "").replace(
        'xmlns:xlink="http://www.w3.org/1999/xlink"', ""
    )
    assert page.tables and page.tables[0][1:]
    return page


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_page_of_each_command(cli, tmp_path: Path, name: str) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "page.html"
    r = cli(*COMMANDS[name], "--html", str(out))
    assert r.code == 0, r.err
    page = check_page(out)
    assert "svg" in page.seen
    text = out.read_text(encoding="utf-8")
    assert f"llmcost {' '.join(COMMANDS[name][:2])}" in text and "The formulas behind the figures" in text
    first = [row[0] for row in page.tables[0][1:]]  # the rows the table format prints
    plain = cli(*COMMANDS[name])
    assert all(cell.strip() in plain.out for cell in first if cell.strip()), first


def test_train_page_holds_the_step_expression_and_the_notes(cli, tmp_path: Path) -> None:
    out = tmp_path / "train.html"
    r = cli(*COMMANDS["train"], "--tokens", "1T", "--html", str(out))
    assert r.code == 0, r.err
    text = out.read_text(encoding="utf-8")
    assert "T = " in text and "training.pipeline__1f1b" in text and "step time T" in text
    assert "plan: " in text and "goodput" in text  # the plan line and a note
    assert "time to train" in text


def test_infer_page_holds_ttft_and_tpot(cli, tmp_path: Path) -> None:
    out = tmp_path / "infer.html"
    r = cli("infer", "llama-3.1-8b", "--hw", "h100-sxm", "--html", str(out))
    assert r.code == 0, r.err
    text = check_page(out) and out.read_text(encoding="utf-8")
    assert "TTFT" in text and "inference.ttft" in text and "inference.decode_step" in text


def test_plot_and_html_together(cli, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    r = cli(
        *COMMANDS["collective_sweep"], "--plot", str(tmp_path / "f.svg"), "--html", str(tmp_path / "p.html")
    )
    assert r.code == 0, r.err
    assert (tmp_path / "f.svg").exists() and "svg" in check_page(tmp_path / "p.html").seen


def test_without_matplotlib_the_page_says_so(cli, tmp_path: Path, monkeypatch) -> None:
    real = builtins.__import__

    def no_matplotlib(name: str, *args, **kwargs):  # noqa: ANN002, ANN003
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError(f"No module named '{name}'")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    out = tmp_path / "p.html"
    r = cli(*COMMANDS["train"], "--html", str(out))
    assert r.code == 0, r.err
    page = check_page(out)
    assert "svg" not in page.seen and "pip install &#x27;llmcost[plot]&#x27;" in out.read_text(
        encoding="utf-8"
    )


@pytest.mark.parametrize(
    ("target", "words"),
    [("p.htm", "must end in .html"), ("p", "must end in .html"), ("missing/p.html", "does not exist"),
     ("dir.html", "is a directory")],
)  # fmt: skip
def test_bad_target_is_one_line(cli, tmp_path: Path, target: str, words: str) -> None:
    (tmp_path / "dir.html").mkdir()
    r = cli(*COMMANDS["train"], "--html", str(tmp_path / target))
    assert r.code == 2 and r.err.count("\n") == 1 and words in r.err and not r.out
    assert "Traceback" not in r.err


def test_html_with_a_launch_config_alone_is_refused(cli, tmp_path: Path) -> None:
    r = cli("infer", "llama-3.1-8b", "--emit", "vllm", "--html", str(tmp_path / "p.html"))
    assert r.code == 2 and "--html" in r.err and not (tmp_path / "p.html").exists()


def test_everything_is_escaped(tmp_path: Path) -> None:
    from llmcost.pages.page import Formula, render
    from llmcost.pages.page import Page as P
    from llmcost.report import Printed

    bad = "<script>alert('x')</script> & \"q\""
    page = P(tmp_path / "x.html", f"llmcost {bad}", bad)
    page.tables.append(Printed([{bad: bad}], bad, None, (bad,)))
    page.formulas.append(Formula(bad, bad, bad, bad, [{"symbol": bad}]))
    page.figure_note = bad
    text = render(page)
    assert "<script>" not in text and text.count("&lt;script&gt;") >= 8
    (tmp_path / "x.html").write_text(text, encoding="utf-8")
    Page(text)  # balanced


BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def test_headless_browser_renders_the_table_and_the_figure(cli, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    browser = next((b for b in map(shutil.which, BROWSERS) if b), None)
    if browser is None:
        pytest.skip(f"no headless browser on PATH ({', '.join(BROWSERS)})")
    out = tmp_path / "train.html"
    assert cli(*COMMANDS["train"], "--html", str(out)).code == 0
    flags = ["--headless", "--disable-gpu", "--no-sandbox", f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(
        [browser, *flags, "--dump-dom", out.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "<table" in dom.stdout and "<svg" in dom.stdout and "step time" in dom.stdout
