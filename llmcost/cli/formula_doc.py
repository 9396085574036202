"""docs/FORMULAS.md: every formula of every area (:mod:`llmcost.cli.formula_index`) as LaTeX with its
source, generated from the sympy expressions. Regenerate with::

    python -m llmcost.cli.formula_doc > docs/FORMULAS.md

``tests/test_formula_doc.py`` regenerates it and fails when the committed file differs.
"""

from __future__ import annotations

import re
from typing import Any

COMMAND = "python -m llmcost.cli.formula_doc > docs/FORMULAS.md"
ORDER = ("training", "inference", "kernels", "collectives", "tts", "economics", "graph")
"""Areas in reading order: the run-level formulas first, the per-operator costs of each layer shape last."""
WHAT = {
    "training": "a training step and run: compute, pipeline, data parallelism, memory, time to train",
    "inference": "serving: TTFT, TPOT, end-to-end latency, memory, rates, speculative and continuous batching",
    "kernels": "one operator's roofline time, the GEMM shape efficiency, fused attention's head-dimension factor",
    "collectives": "one collective's time per op and algorithm (alpha-beta, one switch level shown)",
    "tts": "test-time scaling: FLOPs, bytes, Kinetics eFLOPs, latency and accuracy of one query",
    "economics": "rental cost and cost per token",
    "graph": "each layer shape's operators: FLOPs, bytes and collective sizes per device",
}


def _anchor(key: str) -> str:
    return key.replace(".", "-").replace("_", "-").lower()


def _rst_to_md(doc: str) -> str:
    """A docstring's reStructuredText roles and literals as Markdown."""
    doc = re.sub(r":(?:func|mod|class|data|meth|attr):`~?([^`]+)`", r"`\1`", doc)
    return doc.replace("``", "`")


def _label(name: str) -> str:
    return r"\mathrm{" + name.replace("_", r"\_") + "}"


def _formula(f: Any, terms: list[tuple[str, Any]], names: dict[Any, str]) -> list[str]:
    """One formula's section: heading, what it is, LaTeX, where it is built, its source."""
    import sympy as sp

    out = [f'<a id="{_anchor(f.key)}"></a>', "", f"### `{f.key}`", ""]
    if f.summary_text:  # else the docstring below says what it is
        out += [_rst_to_md(f.summary_text), ""]
    for label, expr in terms:
        out += ["$$", f"{_label(label)} = {sp.latex(expr, symbol_names=names)}", "$$", ""]
    path, _, func = f.location.partition(":")
    built = f"Built by [`{path}`](../{path}) `{func}`" + (f" as `{f.via}`" if f.via else "") + "."
    out += [built, ""]
    doc = _rst_to_md(f.doc).strip()
    if doc:
        out += ["> " + line if line else ">" for line in doc.splitlines()]
        out.append("")
    if f.note:
        out += [_rst_to_md(f.note), ""]
    return out


def render() -> str:
    """The whole of docs/FORMULAS.md."""
    from llmcost.cli import formula_index as X
    from llmcost.symbolic.symbols import REGISTRY

    areas = [a for a in ORDER if a in X.AREAS] + [a for a in X.AREAS if a not in ORDER]
    formulas = {a: list(X.area_formulas(a)) for a in areas}
    terms = {f.key: f.terms() for fs in formulas.values() for f in fs}
    names = REGISTRY.latex_names()  # after every area has defined its symbols
    out = [
        "# Formulas",
        "",
        f"<!-- Generated from the sympy expressions; do not edit. Regenerate: {COMMAND} -->",
        "",
        "Every formula llmcost evaluates, as LaTeX printed by sympy from the expression the generated numpy",
        "code is compiled from, with the function that builds it and that function's docstring (its source;",
        "short tags such as `[MPICH]` are expanded in [SOURCES.md](SOURCES.md)). `llmcost explain NAME`",
        "prints the same with its symbols; `--explain` on `train`, `infer` and `tts` with a plan's values.",
        f"Regenerate this file with `{COMMAND}` (a test fails when it is stale).",
        "",
        "## Contents",
        "",
    ]
    for a in areas:
        out.append(f"- [{a}](#{a}) ({len(formulas[a])}): {WHAT.get(a, '')}")
    for a in areas:
        module = X.AREAS[a].replace(".", "/") + ".py"
        out += ["", f"## {a}", "", f"{WHAT.get(a, '')}; built in [`{module}`](../{module}).", ""]
        out.append(" · ".join(f"[`{f.name}`](#{_anchor(f.key)})" for f in formulas[a]))
        out.append("")
        for f in formulas[a]:
            out += _formula(f, terms[f.key], names)
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":
    import sys

    sys.stdout.write(render())
