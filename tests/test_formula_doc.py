"""docs/FORMULAS.md is generated from the sympy expressions and kept current."""

from __future__ import annotations

from pathlib import Path

from llmcost.cli import formula_doc

DOC = Path(__file__).resolve().parents[1] / "docs" / "FORMULAS.md"


def test_formulas_md_is_current() -> None:
    assert DOC.read_text() == formula_doc.render(), (
        f"docs/FORMULAS.md is stale: regenerate it with `{formula_doc.COMMAND}` (from the repository root)"
    )


def test_every_formula_has_its_section_latex_and_source() -> None:
    from llmcost.cli.formula_index import all_formulas

    text = DOC.read_text()
    assert formula_doc.COMMAND in text.splitlines()[2]
    for f in all_formulas():
        section = text.split(f"### `{f.key}`\n", 1)[1].split("\n### ", 1)[0]
        assert "$$\n" in section and f"`{f.location.partition(':')[2]}`" in section, f.key
        assert f"(#{formula_doc._anchor(f.key)})" in text  # listed in its area's contents
