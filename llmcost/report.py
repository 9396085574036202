"""Printing results: a rich table for people, JSON / YAML / CSV for scripts.

Every command hands :func:`emit` plain data (a list of row mappings, or one mapping) and
the ``--format`` the user chose. Machine formats carry raw SI numbers; tables may carry
display strings built by the command.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from llmcost.errors import UserError

FORMATS = ("table", "json", "yaml", "csv")


def check_format(fmt: str) -> str:
    """Validate a ``--format`` value."""
    if fmt not in FORMATS:
        raise UserError(f"--format: '{fmt}' is not a format; use one of {', '.join(FORMATS)}")
    return fmt


def _plain(v: Any) -> Any:
    """JSON/YAML-safe value: numpy scalars to Python, NaN/inf to None, tuples to lists."""
    if type(v).__module__ == "numpy" and hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, Mapping):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def flatten(d: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested mapping to dotted keys: {'a': {'b': 1}} -> {'a.b': 1}; lists joined for display."""
    out: dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping) and v:
            out.update(flatten(v, key + "."))
        elif isinstance(v, (list, tuple)):
            out[key] = "; ".join(str(x) for x in v)
        else:
            out[key] = v
    return out


def _cell(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def render(
    data: Sequence[Mapping[str, Any]] | Mapping[str, Any],
    fmt: str,
    *,
    title: str | None = None,
    columns: Sequence[str] | None = None,
    notes: Sequence[str] = (),
) -> str:
    """The text :func:`emit` prints (tables rendered without colour for reproducible output)."""
    check_format(fmt)
    if fmt == "json":
        return json.dumps(_plain(data), indent=2)
    if fmt == "yaml":
        import yaml

        return yaml.safe_dump(_plain(data), sort_keys=False, allow_unicode=True, width=100).rstrip()
    rows, cols = table_rows(data, columns)
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(cols)
        for row in rows:
            w.writerow(["" if row.get(c) is None else _plain(row.get(c)) for c in cols])
        return buf.getvalue().rstrip("\n")
    cells, right = table_cells(rows, cols)
    plain = _plain_table(cols, cells, right, title, notes, _width())
    return plain if plain is not None else _rich_table(cols, cells, right, title, notes)


def table_rows(
    data: Sequence[Mapping[str, Any]] | Mapping[str, Any], columns: Sequence[str] | None = None
) -> tuple[list[Mapping[str, Any]], list[str]]:
    """(rows, columns) of what :func:`render` tabulates: one mapping as (key, value) rows."""
    if isinstance(data, Mapping):
        return [{"key": k, "value": v} for k, v in flatten(data).items()], list(columns or ["key", "value"])
    rows = list(data)
    return rows, list(columns) if columns else _columns(rows)


def table_cells(rows: Sequence[Mapping[str, Any]], cols: Sequence[str]) -> tuple[list[list[str]], list[bool]]:
    """The table's cell texts and which columns are numeric (right-justified)."""
    cells = [[_cell(r.get(c)) for c in cols] for r in rows]
    return cells, [_numeric([r.get(c) for r in rows]) for c in cols]


def _numeric(vals: list[Any]) -> bool:
    """A column of numbers only (right-justified); ``None`` cells do not count."""
    vals = [v for v in vals if v is not None]
    return bool(vals) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals)


def _rich_table(
    cols: list[str], cells: list[list[str]], right: list[bool], title: str | None, notes: Sequence[str]
) -> str:
    """The table and notes as rich prints them, without colour."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, title_justify="left", header_style="bold")
    for c, r in zip(cols, right, strict=True):
        table.add_column(c, justify="right" if r else "left", overflow="fold")
    for row in cells:
        table.add_row(*row)
    console = Console(file=io.StringIO(), width=_width(), color_system=None, force_terminal=False)
    console.print(table)
    for n in notes:
        console.print(n, highlight=False)
    return console.file.getvalue().rstrip("\n")  # type: ignore[attr-defined]


# Text rich prints as is: printable ASCII and a few one-cell symbols, no markup ('[') or emoji
# code (':name:'); anything else is left to rich.
_AS_IS = re.compile(r"[ -Z\\\]-~§µ°±×·–—’…≈≤≥→]*")
_EMOJI = re.compile(r":\S*?:")
_WORD = re.compile(r"\s*\S+\s*")  # rich's word: the word and the whitespace after it


def _as_is(text: str) -> bool:
    return _AS_IS.fullmatch(text) is not None and _EMOJI.search(text) is None


def _plain_table(
    cols: list[str],
    cells: list[list[str]],
    right: list[bool],
    title: str | None,
    notes: Sequence[str],
    width: int,
) -> str | None:
    """What :func:`_rich_table` prints, built without rich (a cold start's ~40 ms), for a table
    that fits ``width`` as it is and text rich would print as is; ``None`` otherwise."""
    texts = [*cols, *(c for row in cells for c in row), title or "", *notes]
    if not cells or not all(_as_is(t) for t in texts):
        return None
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
    table_width = sum(widths) + 3 * len(widths) + 1  # a space either side of each cell, the rules
    if table_width > width or len(title or "") > table_width:
        return None

    def line(left: str, sep: str, end: str, row: list[str]) -> str:
        padded = (
            (v.rstrip().rjust(w) if r else v.ljust(w)) for v, w, r in zip(row, widths, right, strict=True)
        )
        return left + " " + f" {sep} ".join(padded) + " " + end

    out = [title.ljust(table_width)] if title else []
    out += ["┏" + "┳".join("━" * (w + 2) for w in widths) + "┓", line("┃", "┃", "┃", cols)]
    out.append("┡" + "╇".join("━" * (w + 2) for w in widths) + "┩")
    out += [line("│", "│", "│", row) for row in cells]
    out.append("└" + "┴".join("─" * (w + 2) for w in widths) + "┘")
    for note in notes:
        wrapped = _wrap(note, width)
        if wrapped is None:
            return None
        out += wrapped
    return "\n".join(out).rstrip("\n")


def _wrap(text: str, width: int) -> list[str] | None:
    """``text`` word-wrapped to ``width`` as rich wraps it (``rich._wrap.divide_line``, lines
    then cut to ``width``); ``None`` where a word would have to be folded."""
    breaks, offset = [], 0
    for m in _WORD.finditer(text):
        word = m.group(0)
        size = len(word.rstrip())
        if size > width:
            return None
        if width - offset >= size:
            offset += len(word)
        elif offset and m.start():
            breaks.append(m.start())
            offset = len(word)
    lines = [text[a:b] for a, b in zip([0, *breaks], [*breaks, len(text)], strict=True)]
    return [ln[:width] for ln in lines]  # only trailing whitespace can pass ``width``


def _columns(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    cols: list[str] = []
    for r in rows:
        for k in r:
            if k not in cols:
                cols.append(k)
    return cols


def _width() -> int:
    import shutil

    return max(100, shutil.get_terminal_size((160, 40)).columns)


def emit(
    data: Sequence[Mapping[str, Any]] | Mapping[str, Any],
    fmt: str,
    *,
    title: str | None = None,
    columns: Sequence[str] | None = None,
    notes: Sequence[str] = (),
) -> None:
    """Print ``data`` to stdout in ``fmt`` (table | json | yaml | csv); kept too while recording."""
    if _printed is not None:
        _printed.append(Printed(data, title, columns, tuple(notes)))
    sys.stdout.write(render(data, fmt, title=title, columns=columns, notes=notes) + "\n")


@dataclass(frozen=True)
class Printed:
    """One :func:`emit` call kept by :func:`record` (``--html`` puts it on the page)."""

    data: Sequence[Mapping[str, Any]] | Mapping[str, Any]
    title: str | None
    columns: Sequence[str] | None
    notes: tuple[str, ...]


_printed: list[Printed] | None = None


def record(on: bool) -> list[Printed]:
    """Start (``on``) or stop keeping what :func:`emit` prints; the list it keeps into."""
    global _printed
    kept = [] if on else (_printed or [])
    _printed = kept if on else None
    return kept
