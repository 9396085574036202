"""``--html FILE``: the command's page (:mod:`llmcost.pages`): the tables it prints, its figure as
inline SVG and the formulas behind it. Nothing here runs, and neither the page nor matplotlib is
imported, unless a page is asked for."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any


def start(path: Path | None) -> Any:
    """The page for a checked ``--html`` target (None without one); from now on what the command
    prints is kept for it (:func:`llmcost.report.record`)."""
    if path is None:
        return None
    from llmcost import __version__
    from llmcost.pages.page import Page, check_target
    from llmcost.report import record

    target = check_target(path)
    return Page(target, command_line(), __version__, tables=record(True))


def targets(plot: Path | None, page: Any) -> list[Any]:
    """Where the command's figure goes: the ``--plot`` file, and the page's SVG when it has matplotlib."""
    out: list[Any] = [] if plot is None else [plot]
    buf = page.figure() if page is not None else None
    return out if buf is None else [*out, buf]


def finish(page: Any, formulas: Callable[[], list[Any]] | None = None) -> None:
    """Stop keeping what is printed and write the page with the ``formulas()``
    (:class:`llmcost.pages.page.Formula`); nothing without a page."""
    if page is None:
        return
    from llmcost.report import record

    record(False)
    page.formulas = formulas() if formulas is not None else []
    page.write()


def command_line() -> str:
    """``llmcost COMMAND ARGS``: the command path and the parameters given on the command line."""
    import shlex

    from typer._click.core import ParameterSource
    from typer._click.globals import get_current_context

    ctx = get_current_context(silent=True)
    if ctx is None:
        return "llmcost"
    words: list[str] = []
    chain = []
    while ctx is not None:
        chain.append(ctx)
        ctx = ctx.parent
    for c in reversed(chain):
        words.append(c.info_name or "llmcost")
        for p in c.command.params:
            if p.name and c.get_parameter_source(p.name) == ParameterSource.COMMANDLINE:
                words += _words(p, c.params[p.name])
    return shlex.join(words)


def _words(p: Any, value: Any) -> list[str]:
    """One parameter as typed: ``--flag`` / ``--no-flag``, ``--opt VALUE`` (repeated), or the argument."""
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    if p.param_type_name != "option":
        return [str(v) for v in values]
    if p.is_flag:
        return [p.opts[0] if value or not p.secondary_opts else p.secondary_opts[0]]
    return [w for v in values for w in (p.opts[0], str(v))]


# ------------------------------------------------------------------------- formulas on the page
def train_formulas(rep: Any) -> list[Any]:
    """The step-time expression with its values (``train --explain``) and each formula in it."""
    from llmcost.cli.formula_index import find
    from llmcost.cli.train_view import explain_doc
    from llmcost.pages.page import Formula

    doc = explain_doc(rep.result)
    builders = doc["builders"]
    text = f"{doc['expression']}\n= {doc['step_time_s']:.6g} s"
    out = [Formula("step time T", builders["T"], "", text, doc["symbols"])]
    return out + [_indexed(find(f"training.{n}"), builders[n]) for n in builders if n != "T"]


def infer_formulas(model: str, rep: Any) -> list[Any]:
    """TTFT and TPOT with the values substituted (``infer --explain``), then their formulas."""
    from llmcost.cli.formula_index import find
    from llmcost.cli.infer_view import explain
    from llmcost.pages.page import Formula

    r = rep.result
    ex = explain(model, rep.hardware, r.plan, r)
    found = [_indexed(find(f"inference.{n}")) for n in ("ttft", "decode_step")]
    return [Formula("TTFT and TPOT of this plan", text="\n".join(ex.lines)), *found]


def tts_formulas(rep: Any) -> list[Any]:
    """The query's expressions with the values substituted (``tts --explain``)."""
    from llmcost.cli.tts_view import explain
    from llmcost.pages.page import Formula

    return [Formula("this query", text="\n".join(explain(rep.result).lines))]


def area_formulas(area: str, prefix: str = "") -> list[Any]:
    """Every formula of ``area`` (its names starting with ``prefix``), as ``llmcost explain`` shows them."""
    from llmcost.cli.formula_index import area_formulas as formulas

    return [_indexed(f) for f in formulas(area) if f.name.startswith(prefix)]


def _indexed(f: Any, where: str | None = None) -> Any:
    """A formula of the index: its name, builder, docstring and expressions."""
    from llmcost.pages.page import Formula

    text = "\n".join(f"{label} = {e}" for label, e in f.terms())
    return Formula(f.key, where or f.location + (f" as {f.via}" if f.via else ""), f.doc, text)
