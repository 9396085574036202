"""Steps the costing commands share: the ``--explain`` check and the result printed.

Plans are built and costed by :mod:`llmcost.api` (the one path from options to figures); what
is left here is printing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def check_explain(explain: bool, fmt: str) -> None:
    """``--explain`` goes with a table, or into the one JSON / YAML document; CSV has no room for it."""
    from llmcost.errors import UserError

    if explain and fmt == "csv":
        raise UserError("--explain: use --format table, json or yaml (CSV rows have no room for expressions)")


def emit_result(
    fmt: str,
    table: Mapping[str, Any],
    machine: Mapping[str, Any] | list[Mapping[str, Any]],
    *,
    title: str,
    notes: list[str],
    explanation: Any = None,
) -> None:
    """A command's result: the ``table`` data then the ``--explain`` lines, or the ``machine``
    data as one document, the explanation (:class:`llmcost.cli.explaining.Explanation`) under
    ``explain``."""
    from llmcost.report import emit

    if fmt == "table":
        emit(table, "table", title=title, notes=notes)
        if explanation is not None:
            print("\n".join(explanation.lines))
        return
    if explanation is not None and isinstance(machine, Mapping):
        machine = {**machine, "explain": explanation.as_dict()}
    emit(machine, fmt)


def check_emit(framework: str | None, fmt: str, kind: str, **excluded: bool) -> None:
    """``--emit FRAMEWORK``: a known framework for this plan kind, a format with room for it, and none of
    the ``excluded`` options (name -> given), checked before anything is costed."""
    if framework is None:
        return
    from llmcost.errors import UserError
    from llmcost.launch import framework as known

    known(framework, kind)
    if fmt == "csv":
        raise UserError("--emit: use --format table (the launch config alone), json or yaml (under 'emit')")
    given = [name for name, on in excluded.items() if on]
    if given:
        raise UserError(f"--emit writes one costed plan: drop {', '.join(given)}")
