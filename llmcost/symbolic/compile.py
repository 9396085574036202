"""Compile sympy cost expressions to numpy, once per expression *shape*.

A shape is what the categorical choices of a cost fix (collective op, algorithm, the
topology of each fabric level, precision...); everything numeric is an argument. One
compiled function evaluates one plan (scalars) or arrays of plans (numpy broadcasting).

Two paths, one source of truth (the sympy expression):

* **Generated module (runtime path, no sympy).** :func:`module_source` prints a set of
  expressions as plain Python/numpy functions with sympy's NumPy code printer (``Min``/``Max``
  printed as ``numpy.minimum``/``numpy.maximum`` so scalars and arrays broadcast). The output
  is checked into the package (e.g. ``llmcost/collectives/_generated.py``) and a test
  regenerates it and fails when it differs, so it can never drift from the expressions.
  Chosen over a user cache directory because a fresh install then pays nothing: a cold CLI
  costing imports numpy and the generated module, never sympy (~0.5 s saved).
* **In-process lambdify (fallback and research path).** :func:`compile_expr` lambdifies an
  expression with the same printer and caches it in memory keyed by the expression's
  ``srepr`` and argument order, for shapes not pre-generated and for new expressions.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import sympy as sp
from sympy.printing.numpy import NumPyPrinter

__all__ = ["formulas_source", "CostPrinter", "compile_expr", "function_source", "module_source", "expr_hash"]


class CostPrinter(NumPyPrinter):
    """NumPy printer whose Min/Max broadcast between scalars and arrays (nested ufuncs)."""

    def _nested(self, fn: str, args: Sequence[sp.Expr]) -> str:
        out = self._print(args[0])
        for a in args[1:]:
            out = f"numpy.{fn}({out}, {self._print(a)})"
        return out

    def _print_Min(self, expr: sp.Min) -> str:
        return self._nested("minimum", sorted(expr.args, key=sp.default_sort_key))

    def _print_Max(self, expr: sp.Max) -> str:
        return self._nested("maximum", sorted(expr.args, key=sp.default_sort_key))


def _printer() -> CostPrinter:
    return CostPrinter({"fully_qualified_modules": True, "inline": True, "allow_unknown_functions": False})


def expr_hash(expr: sp.Expr, args: Sequence[sp.Symbol]) -> str:
    """Stable hash of an expression and its argument order (keys caches, pins generated code)."""
    text = sp.srepr(expr) + "|" + ",".join(a.name for a in args)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def function_source(name: str, expr: sp.Expr, args: Sequence[sp.Symbol], doc: str = "") -> str:
    """Python source of ``def name(*args): return <expr>`` using numpy only."""
    body = _printer().doprint(expr)
    params = ", ".join(a.name for a in args)
    lines = [f"def {name}({params}):"]
    if doc:
        lines.append(f'    """{doc}"""')
    lines.append(f"    return {body}")
    return "\n".join(lines) + "\n"


def module_source(
    entries: Iterable[tuple[str, sp.Expr, Sequence[sp.Symbol], str]],
    *,
    header: str,
    table_name: str = "FUNCTIONS",
) -> str:
    """Source of a module defining one function per entry ``(name, expr, args, doc)`` and a table
    ``{name: (function, (arg names...), hash)}``."""
    parts = [header.rstrip() + "\n", "import numpy\n"]
    table = []
    for name, expr, args, doc in entries:
        parts.append("\n" + function_source(name, expr, args, doc))
        table.append(f"    {name!r}: ({name}, {tuple(a.name for a in args)!r}, {expr_hash(expr, args)!r}),")
    parts.append(f"\n{table_name} = {{\n" + "\n".join(table) + "\n}\n")
    return "\n".join(parts)


_CACHE: dict[str, Callable[..., Any]] = {}


def generated_header(module: str, test: str, description: str) -> str:
    """Docstring of a generated module: where it comes from, which test pins it, what it holds."""
    return (
        f'''"""Generated from {module.replace(".", "/")}.py by\n``python -m {module}``: do not '''
        f'edit ({test} pins it).\n\n{description}\n"""\n# ruff: noqa\n'
    )


def write_generated(path: Path, source: str) -> None:
    """Write a generated module (the ``python -m llmcost.<area>.formulas`` entry point)."""
    path.write_text(source)
    print(f"wrote {path}")


def arguments(expr: sp.Basic) -> list[sp.Symbol]:
    """Free symbols of ``expr`` in a stable order: the parameters of its generated function."""
    return sorted(expr.free_symbols, key=lambda s: s.name)


def formulas_source(
    formulas: dict[str, Callable[[], sp.Expr]],
    arguments: Callable[[sp.Expr], Sequence[sp.Symbol]],
    *,
    header: str,
) -> str:
    """Source of a generated module: one function per entry of a ``*_formulas.py`` FORMULAS
    table, named after the entry, with its arguments and the first line of its docstring."""
    entries = []
    for name, fn in formulas.items():
        expr = fn()
        doc = (fn.__doc__ or "").strip().splitlines()[0] if fn.__doc__ else ""
        entries.append((name, expr, arguments(expr), doc.replace('"', "'")))
    return module_source(entries, header=header)


def compile_expr(expr: sp.Expr, args: Sequence[sp.Symbol]) -> Callable[..., Any]:
    """numpy function of ``args`` computing ``expr``; compiled once per (expression, args)."""
    key = expr_hash(expr, args)
    fn = _CACHE.get(key)
    if fn is None:
        src = function_source("_f", expr, args)
        ns: dict[str, Any] = {"numpy": __import__("numpy")}
        exec(compile(src, f"<llmcost-compiled {key}>", "exec"), ns)  # noqa: S102 - our own printed code
        fn = _CACHE[key] = ns["_f"]
    return fn
