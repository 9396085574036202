"""What an evaluator of a validation case returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Prediction:
    """What an evaluator returns: the predicted metric value, or None with a reason; ``detail``
    carries extras for the table (e.g. the algorithm auto chose)."""

    value: float | None
    reason: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)
