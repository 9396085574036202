"""What ``--explain`` and ``llmcost explain`` print beside an expression: its symbols, and where it
is built (:mod:`llmcost.cli.formula_index`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def symbol_info(name: str) -> tuple[str, str]:
    """(unit, meaning) of a registered symbol, empty for one the registry does not know."""
    from llmcost.symbolic.symbols import REGISTRY

    if name not in REGISTRY:
        return "", ""
    info = REGISTRY.info(name)
    return info.unit, info.doc


def explain_rows(expr: Any, vals: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per free symbol: name, value, unit, meaning (from the symbol registry)."""
    rows = []
    for s in sorted(expr.free_symbols, key=lambda s: s.name):
        unit, meaning = symbol_info(s.name)
        rows.append({"symbol": s.name, "value": vals.get(s.name), "unit": unit, "meaning": meaning})
    return rows


def symbol_rows(exprs: list[Any]) -> list[dict[str, Any]]:
    """One row per free symbol of any of ``exprs``: name, unit, meaning."""
    names = sorted({s.name for e in exprs for s in getattr(e, "free_symbols", ())})
    return [dict(zip(("symbol", "unit", "meaning"), (n, *symbol_info(n)), strict=True)) for n in names]


def builder_of(name: str) -> str:
    """``path.py:function`` of the builder of formula ``name`` (``area.name`` or bare)."""
    from llmcost.cli.formula_index import find

    return find(name).location


@dataclass
class Explanation:
    """Lines of an ``--explain`` text, each expression line ending in ``[its builder]``; the
    builders again by label for the machine formats."""

    lines: list[str] = field(default_factory=list)
    builders: dict[str, str] = field(default_factory=dict)

    def add(self, line: str, label: str | None = None, builder: str | None = None) -> None:
        """Append ``line``; with ``builder``, end it with ``[builder]`` and record it under ``label``."""
        if builder is not None:
            line += f"  [{builder}]"
            self.builders[label or line] = builder
        self.lines.append(line)

    def as_dict(self) -> dict[str, Any]:
        """The explanation as one JSON / YAML value."""
        return {"lines": self.lines, "builders": self.builders}
