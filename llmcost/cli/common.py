"""Steps every costing command shares: options over a plan file, the model, the result printed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def load_spec(model: str) -> Any:
    """ModelSpec of a catalog id, or of a config file (YAML / JSON) when ``model`` is a path
    (:func:`llmcost.inference.serve.spec_of`, the one resolver every command uses)."""
    from llmcost.inference.serve import spec_of

    return spec_of(model)


def overlay(base: dict[str, Any], given: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with every option the user gave (not None) put over it."""
    base.update({k: v for k, v in given.items() if v is not None})
    return base


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
