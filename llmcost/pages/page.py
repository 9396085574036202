"""The ``--html`` page: what a command printed and drew, and the formulas behind it, as one HTML5
file with inline CSS and inline SVG (no script, no link outside the page); every text escaped."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from llmcost.errors import UserError
from llmcost.plots.figure import EXTRA, SvgBuffer
from llmcost.report import Printed, table_cells, table_rows


@dataclass(frozen=True)
class Formula:
    """One formula on the page: its name, where it is built, its docstring (the source), its
    expressions as plain text, and optional rows (symbol, value, unit, meaning)."""

    name: str
    where: str = ""
    doc: str = ""
    text: str = ""
    rows: Sequence[Mapping[str, Any]] = ()


@dataclass
class Page:
    """The page of one command: ``tables`` fills while the command prints (:func:`llmcost.report.record`)."""

    path: Path
    command: str
    version: str
    tables: list[Printed] = field(default_factory=list)
    figures: list[SvgBuffer] = field(default_factory=list)
    formulas: list[Formula] = field(default_factory=list)
    figure_note: str | None = None

    def figure(self) -> SvgBuffer | None:
        """A new in-memory SVG target for the command's figure; None (and a note on the page)
        without matplotlib."""
        from llmcost.plots.figure import pyplot

        try:
            pyplot()
        except UserError:
            self.figure_note = f"The figures need matplotlib: {EXTRA}"
            return None
        self.figures.append(SvgBuffer())
        return self.figures[-1]

    def write(self) -> None:
        """Write the page to :attr:`path` (one line when it cannot be)."""
        try:
            self.path.write_text(render(self), encoding="utf-8")
        except OSError as e:
            raise UserError(f"--html: cannot write '{self.path}': {e.strerror or e}") from None


def check_target(path: str | Path) -> Path:
    """The ``--html`` file: a ``.html`` name, not a directory, in a directory that exists; else one line."""
    p = Path(path)
    if p.suffix.lower() != ".html":
        raise UserError(f"--html: '{path}' must end in .html")
    if p.is_dir():
        raise UserError(f"--html: '{path}' is a directory")
    if not p.parent.is_dir():
        raise UserError(f"--html: directory '{p.parent}' does not exist")
    return p


CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:72rem;
padding:0 1rem;color:#1b1f24;line-height:1.45}
h1{font-size:1.3rem;font-family:ui-monospace,Menlo,Consolas,monospace;word-break:break-all}
h2{font-size:1.15rem;border-bottom:1px solid #d0d7de;padding-bottom:.2rem;margin-top:2rem}
h3{font-size:1rem;font-family:ui-monospace,Menlo,Consolas,monospace}
nav a{margin-right:1rem}
table{border-collapse:collapse;margin:1rem 0;font-size:.9rem}
caption{text-align:left;font-weight:600;padding:.3rem 0}
th,td{border:1px solid #d0d7de;padding:.2rem .5rem;vertical-align:top;white-space:pre-wrap}
th{background:#f6f8fa}
td.num{text-align:right;font-variant-numeric:tabular-nums}
ul.notes{font-size:.9rem;color:#444}
figure{margin:1rem 0}
figure svg{max-width:100%;height:auto}
pre{background:#f6f8fa;padding:.6rem;overflow-x:auto;font-size:.85rem;white-space:pre-wrap}
p.where,p.meta{color:#57606a;font-size:.9rem}
p.note{background:#fff8c5;padding:.5rem}
""".strip()


def render(page: Page) -> str:
    """The page as HTML5 text."""
    e = escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(page.command)}</title><style>{CSS}</style></head>",
        "<body>",
        f'<header><h1>{e(page.command)}</h1><p class="meta">llmcost {e(page.version)}</p>',
        '<nav><a href="#results">results</a><a href="#figures">figures</a>'
        '<a href="#formulas">formulas</a></nav></header>',
        '<main><section id="results"><h2>Results</h2>',
        *(_table(t) for t in page.tables),
        "</section>",
        '<section id="figures"><h2>Figures</h2>',
        *(f"<figure>{_svg(b.getvalue(), f'fig{i}')}</figure>" for i, b in enumerate(page.figures, 1)),
    ]
    if page.figure_note:
        parts.append(f'<p class="note">{e(page.figure_note)}</p>')
    elif not page.figures:
        parts.append("<p>This command draws no figure here.</p>")
    parts += ["</section>", '<section id="formulas"><h2>The formulas behind the figures</h2>']
    parts += [_formula(f, i) for i, f in enumerate(page.formulas, 1)]
    if not page.formulas:
        parts.append("<p>None: llmcost explain lists every formula.</p>")
    parts += ["</section></main>", "</body>", "</html>", ""]
    return "\n".join(parts)


def _table(t: Printed) -> str:
    """One printed table with its title as caption and its notes below."""
    rows, cols = table_rows(t.data, t.columns)
    return _html_table(rows, cols, t.title) + _notes(t.notes)


def _html_table(rows: Sequence[Mapping[str, Any]], cols: Sequence[str], title: str | None) -> str:
    cells, right = table_cells(rows, cols)
    head = "".join(f"<th>{escape(c)}</th>" for c in cols)
    td = ['<td class="num">' if r else "<td>" for r in right]
    body = "".join(
        "<tr>" + "".join(f"{t}{escape(v)}</td>" for t, v in zip(td, row, strict=True)) + "</tr>"
        for row in cells
    )
    caption = f"<caption>{escape(title)}</caption>" if title else ""
    return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _notes(notes: Sequence[str]) -> str:
    if not notes:
        return ""
    return '<ul class="notes">' + "".join(f"<li>{escape(n)}</li>" for n in notes) + "</ul>"


def _formula(f: Formula, i: int) -> str:
    parts = [f'<h3 id="formula-{i}">{escape(f.name)}</h3>']
    if f.where:
        parts.append(f'<p class="where">built by <code>{escape(f.where)}</code></p>')
    if f.doc:
        parts.append(f"<p>{escape(' '.join(f.doc.split()))}</p>")
    if f.text:
        parts.append(f"<pre><code>{escape(f.text)}</code></pre>")
    if f.rows:
        rows = list(f.rows)
        parts.append(_html_table(rows, table_rows(rows)[1], "symbols"))
    return "\n".join(parts)


_PROLOGUE = re.compile(r"^.*?(?=<svg\b)", re.S)
_METADATA = re.compile(r"\s*<metadata>.*?</metadata>", re.S)
_ID = re.compile(r'(\bid="|href="#|url\(#)([^")]+)')


def _svg(text: str, prefix: str) -> str:
    """matplotlib's SVG inline: no XML prologue, DOCTYPE or metadata (their URLs), ids prefixed so
    that two figures on the page share none."""
    text = _METADATA.sub("", _PROLOGUE.sub("", text, count=1))
    return _ID.sub(lambda m: f"{m.group(1)}{prefix}-{m.group(2)}", text).strip()
