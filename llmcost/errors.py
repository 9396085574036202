"""User-facing errors: one line, exit code 2, never a traceback.

Every mistake a user can make (unknown id, impossible plan, malformed YAML, negative
size) raises :class:`UserError` or a subclass; the CLI prints its message on one line and
exits with :data:`EXIT_USER_ERROR`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

EXIT_USER_ERROR = 2


class UserError(Exception):
    """A mistake in the user's input. The message names what is wrong and what would be right."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))  # always one line


class CatalogError(UserError):
    """A catalog file (hardware/*.yaml, models/*.yaml, a user file) is malformed."""


class UnknownIdError(UserError):
    """An id that is not in a catalog; the message carries "did you mean" suggestions."""

    def __init__(self, what: str, name: str, choices: Iterable[str]) -> None:
        self.name = name
        super().__init__(f"unknown {what} '{name}'{did_you_mean(name, choices)}")


class PlanError(UserError):
    """A plan that cannot run: it does not divide, does not fit, or asks for what the hardware lacks."""


def suggestions(name: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """Closest matches of ``name`` among ``choices`` (case-insensitive, substring-aware)."""
    pool = sorted({str(c) for c in choices})
    low = str(name).lower()
    by_lower = {c.lower(): c for c in pool}
    close = difflib.get_close_matches(low, list(by_lower), n=n, cutoff=0.5)
    out = [by_lower[c] for c in close]
    if len(out) < n:
        for c in pool:
            if c not in out and low and (low in c.lower() or c.lower() in low):
                out.append(c)
            if len(out) >= n:
                break
    return out[:n]


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """'; did you mean 'a', 'b'?' or a pointer to the list command when nothing is close."""
    pool = list(choices)
    best = suggestions(name, pool)
    if best:
        return "; did you mean " + ", ".join(f"'{b}'" for b in best) + "?"
    return f"; {len(pool)} known, e.g. " + ", ".join(f"'{c}'" for c in sorted(pool)[:3])
