"""Accuracy of test-time-scaling strategies from a per-sample success table (no sympy).

Input (YAML or CSV, supplied by the user): rows of ``model``, ``gen_len``, ``p`` (probability
that one sample of ``gen_len`` tokens is correct, pass@1), optional ``strategy`` (the row then
applies to that strategy only, e.g. a beam search's measured per-beam success), optional ``wrong_share`` (share of
the wrong answers taken by the most common wrong answer, default 1) and ``f_max`` (accuracy
ceiling, default 1). YAML may also be ``{model: {gen_len: p}}``. Between listed lengths ``p``
is interpolated linearly in log2(gen_len); outside them a plan has no accuracy.

Models (Chen et al. 2021 pass@k; Wang et al. 2023 self-consistency; Wang et al. 2025 §3 TTSPM):

* ``best_of_n`` and ``beam``: ``F_max·(1 − (1 − p)^N)`` — pass@N with a verifier that finds a
  correct sample whenever one exists (an upper bound; TTSPM parallel scaling, Wang et al. 2025
  §3; Chen et al. 2021 pass@k). Beam candidates share prefixes and are not independent, so a
  beam plan gets an accuracy only from ``strategy: beam`` rows (its measured per-beam success);
  generic rows are not used for it, rather than credit it with independent samples it lacks.
* ``sequential``: ``F_max·(1 − (1 − p)^N)`` — TTSPM sequential scaling, each round a geometric
  "rethink" trial with success ``p`` (Wang et al. 2025 §3, the same form).
* ``majority``: each sample is correct with ``p``, gives the most common wrong answer with
  ``q = wrong_share·(1 − p)``, and otherwise a wrong answer no other sample repeats. The vote
  is right when the correct count beats the top wrong count (a tie counts one half):
  ``Σ_{c,w} N!/(c! w! r!) p^c q^w (1−p−q)^r · ([c > w] + ½[c = w > 0])``, an exact finite
  sum. ``wrong_share = 1`` is the binomial model (the wrong samples agree: right iff
  ``c > N/2``), the pessimistic default; scattered wrong answers (small share) approach pass@N.

Saturation (TTSPM): sample N+1 adds ``F_max·p·(1 − p)^N``; scaling has saturated at the
smallest N where that is below ``ε`` (:func:`saturation`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from llmcost.errors import UserError


@dataclass(frozen=True)
class Point:
    gen_len: float
    p: float
    wrong_share: float = 1.0
    f_max: float = 1.0


class AccuracyTable:
    """Per-model success points, interpolated in log2(gen_len)."""

    def __init__(self, rows: dict[tuple[str, str | None], list[Point]]) -> None:
        self.rows = {k: sorted(v, key=lambda r: r.gen_len) for k, v in rows.items()}

    def lookup(self, model: str, gen_len: float, strategy: str | None = None) -> Point | None:
        """The success point of ``model`` (rows for ``strategy`` first, then rows for any strategy)
        at ``gen_len``; None outside the listed lengths."""
        pts = self.rows.get((model, strategy))
        if not pts and strategy != "beam":  # beam needs its own rows (see the module docstring)
            pts = self.rows.get((model, None))
        if not pts or gen_len < pts[0].gen_len or gen_len > pts[-1].gen_len:
            return None
        for a, b in zip(pts, pts[1:], strict=False):
            if a.gen_len <= gen_len <= b.gen_len:
                if b.gen_len == a.gen_len:
                    return a
                x = (math.log2(gen_len) - math.log2(a.gen_len)) / (
                    math.log2(b.gen_len) - math.log2(a.gen_len)
                )
                return Point(
                    gen_len,
                    a.p + x * (b.p - a.p),
                    a.wrong_share + x * (b.wrong_share - a.wrong_share),
                    a.f_max + x * (b.f_max - a.f_max),
                )
        return pts[0]


def _point(row: dict[str, Any], where: str) -> tuple[tuple[str, str | None], Point]:
    strategy = str(row["strategy"]).strip() if row.get("strategy") else None
    try:
        model = str(row["model"]).strip()
        gl = float(row["gen_len"])
        p = float(row["p"])
        ws = float(row.get("wrong_share") or 1.0)
        fm = float(row.get("f_max") or 1.0)
    except (KeyError, TypeError, ValueError) as e:
        raise UserError(
            f"{where}: each row needs model, gen_len and p (numbers), got {row!r} ({e})"
        ) from None
    if not (0.0 <= p <= 1.0 and 0.0 <= ws <= 1.0 and 0.0 < fm <= 1.0) or gl < 1:
        raise UserError(
            f"{where}: p and wrong_share must lie in [0, 1], f_max in (0, 1], gen_len >= 1; got {row!r}"
        )
    return (model, strategy), Point(gl, p, ws, fm)


def load(path: Path) -> AccuracyTable:
    """Read an accuracy table from a YAML or CSV file (module docstring)."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"--accuracy: file '{path}' does not exist")
    rows: list[dict[str, Any]] = []
    if path.suffix.lower() == ".csv":
        import csv
        import io

        from llmcost.files import read_text

        try:
            rows = [dict(r) for r in csv.DictReader(io.StringIO(read_text(path), newline=""))]
        except csv.Error as e:
            raise UserError(f"{path}: invalid CSV ({e})") from None
    else:
        from llmcost.files import read_file

        data = read_file(path)
        if isinstance(data, dict):
            for model, by_len in data.items():
                if not isinstance(by_len, dict):
                    raise UserError(f"{path}: '{model}' must map gen_len to p")
                rows += [{"model": model, "gen_len": k, "p": v} for k, v in by_len.items()]
        elif isinstance(data, list):
            rows = data
        else:
            raise UserError(f"{path}: expected a list of rows or a mapping model -> {{gen_len: p}}")
    out: dict[tuple[str, str | None], list[Point]] = {}
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise UserError(f"{path}: row {i + 1} is not a mapping")
        m, pt = _point(row, f"{path}: row {i + 1}")
        out.setdefault(m, []).append(pt)
    if not out:
        raise UserError(f"{path}: no accuracy rows")
    return AccuracyTable(out)


def pass_at_n(n: Any, p: Any, f_max: Any = 1.0) -> Any:
    """``F_max·(1 − (1 − p)^N)`` through the generated TTSPM formula."""
    from llmcost.tts import _generated as T

    return T.pass_at_n(f_max, n, p)


def majority(n: int, p: float, wrong_share: float = 1.0) -> float:
    """Majority-vote accuracy under the trinomial model of the module docstring."""
    q = wrong_share * (1.0 - p)
    r = max(0.0, 1.0 - p - q)
    c = np.arange(n + 1)[:, None]
    w = np.arange(n + 1)[None, :]
    ok = (c + w) <= n
    rest = np.where(ok, n - c - w, 0)
    lg = np.vectorize(math.lgamma)
    with np.errstate(divide="ignore", invalid="ignore"):
        logc = lg(n + 1.0) - lg(c + 1.0) - lg(w + 1.0) - lg(rest + 1.0)
        terms = np.exp(logc + _xlogy(c, p) + _xlogy(w, q) + _xlogy(rest, r))
    win = np.where(c > w, 1.0, np.where((c == w) & (c > 0), 0.5, 0.0))
    return float(np.sum(np.where(ok, terms * win, 0.0)))


def _xlogy(k: np.ndarray, x: float) -> np.ndarray:
    return np.where(k == 0, 0.0, k * math.log(x)) if x > 0 else np.where(k == 0, 0.0, -np.inf)


def accuracy(strategy: str, n: int, pt: Point) -> float:
    """Accuracy of ``n`` samples of a strategy at success point ``pt`` (module docstring)."""
    if strategy == "majority":
        return pt.f_max * majority(n, pt.p, pt.wrong_share)
    return float(pass_at_n(float(n), pt.p, pt.f_max))


def saturation(p: float, f_max: float = 1.0, epsilon: float = 0.01) -> int:
    """TTSPM saturation point ``N* = max(0, ⌈ln(ε/(F_max·p))/ln(1 − p)⌉)`` (generated formula);
    p = 1 saturates after one sample, p = 0 never gains (0)."""
    from llmcost.tts import _generated as T

    if p <= 0.0:
        return 0
    if p >= 1.0:
        return 1 if f_max >= epsilon else 0
    return int(T.saturation(epsilon, f_max, p))


def pareto(costs: list[float], accs: list[float]) -> list[int]:
    """Indices of the cost-accuracy Pareto front (lower cost, higher accuracy), cheapest first."""
    order = sorted(range(len(costs)), key=lambda i: (costs[i], -accs[i]))
    front: list[int] = []
    best = -math.inf
    for i in order:
        if accs[i] > best:
            front.append(i)
            best = accs[i]
    return front
