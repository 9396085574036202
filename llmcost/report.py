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
import sys
from collections.abc import Mapping, Sequence
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
    rows: list[Mapping[str, Any]]
    if isinstance(data, Mapping):
        rows = [{"key": k, "value": v} for k, v in flatten(data).items()]
        columns = columns or ["key", "value"]
    else:
        rows = list(data)
    cols = list(columns) if columns else _columns(rows)
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(cols)
        for row in rows:
            w.writerow(["" if row.get(c) is None else _plain(row.get(c)) for c in cols])
        return buf.getvalue().rstrip("\n")
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, title_justify="left", header_style="bold")
    for c in cols:
        vals = [r.get(c) for r in rows if r.get(c) is not None]
        numeric = bool(vals) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals)
        table.add_column(c, justify="right" if numeric else "left", overflow="fold")
    for row in rows:
        table.add_row(*(_cell(row.get(c)) for c in cols))
    console = Console(file=io.StringIO(), width=_width(), color_system=None, force_terminal=False)
    console.print(table)
    for n in notes:
        console.print(n, highlight=False)
    return console.file.getvalue().rstrip("\n")  # type: ignore[attr-defined]


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
    """Print ``data`` to stdout in ``fmt`` (table | json | yaml | csv)."""
    sys.stdout.write(render(data, fmt, title=title, columns=columns, notes=notes) + "\n")
