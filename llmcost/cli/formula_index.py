"""Every formula of every cost area, found where it is built: the index ``llmcost explain`` reads.

:data:`AREAS` maps an area to the module that builds its sympy expressions. A module with a
``FORMULAS`` table (name -> builder) needs nothing more; the areas whose expressions are built per
*shape* have a reader in :data:`READERS` (collectives: op x algorithm x fabric levels; graph: the
operators of a layer shape; kernels: the roofline expression and the GEMM shape efficiency). A module that does not exist
(an area not written yet) is skipped, so adding an area is one line in :data:`AREAS`.

Each :class:`Formula` names its builder function, whose docstring cites the source, and where it
lives (``llmcost/training/formulas.py:time_to_train``). Importing this module imports no sympy;
reading an area imports its formulas module (and sympy).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

AREAS: dict[str, str] = {
    "training": "llmcost.training.formulas",
    "inference": "llmcost.inference.formulas",
    "graph": "llmcost.graph.formulas",
    "kernels": "llmcost.kernels.roofline",
    "collectives": "llmcost.collectives.formulas",
    "tts": "llmcost.tts.formulas",
    "economics": "llmcost.economics.formulas",
}

Terms = list[tuple[str, Any]]


@dataclass(frozen=True)
class Formula:
    """One named formula: its builder (docstring = source), the expressions it prints, and how
    the ``FORMULAS`` entry composes the builder (``pipeline_time(bubble_1f1b)``) when it does."""

    area: str
    name: str
    builder: Callable[..., Any]
    terms: Callable[[], Terms] = field(compare=False)
    via: str = ""
    summary_text: str = ""
    note: str = ""

    @property
    def key(self) -> str:
        """``area.name``: always accepted by ``llmcost explain``."""
        return f"{self.area}.{self.name}"

    @property
    def location(self) -> str:
        """``path/to/module.py:function`` of the builder."""
        return location(self.builder)

    @property
    def doc(self) -> str:
        """The builder's docstring (its source), dedented."""
        return inspect.getdoc(self.builder) or ""

    @property
    def summary(self) -> str:
        """One line: the given summary, else the docstring's first paragraph, shortened."""
        return self.summary_text or one_line(self.doc)


def location(fn: Any) -> str:
    """Where ``fn`` is defined, as ``llmcost/area/module.py:name`` (path from the repository root)."""
    fn = inspect.unwrap(fn)
    path = fn.__module__.replace(".", "/") + ".py"
    return f"{path}:{fn.__name__}"


def one_line(doc: str, width: int = 100) -> str:
    """The first paragraph of ``doc`` on one line, cut at a word boundary to ``width`` characters."""
    text = " ".join(doc.split("\n\n")[0].split())
    if len(text) <= width:
        return text
    return text[: width - 3].rsplit(" ", 1)[0] + "..."


# ------------------------------------------------------------------------------- table areas
def _composed(fn: Any) -> tuple[Any, str]:
    """The function a ``FORMULAS`` value builds with, and the composition text: a named builder is
    itself; ``lambda: pipeline_time(bubble_1f1b)`` is ``pipeline_time`` via that call; a
    ``functools.partial`` is its function."""
    func = getattr(fn, "func", None)
    if func is not None and hasattr(fn, "args"):  # functools.partial
        args = ", ".join(getattr(a, "__name__", repr(a)) for a in fn.args)
        return func, f"{func.__name__}({args})"
    if getattr(fn, "__name__", "") != "<lambda>":
        return fn, ""
    glb = getattr(fn, "__globals__", {})
    called = [glb[n] for n in fn.__code__.co_names if inspect.isfunction(glb.get(n))]
    if not called:
        return fn, ""
    try:
        src = inspect.getsource(fn)
    except (OSError, TypeError):
        src = ""
    m = re.search(r"lambda\s*:\s*(.+?),?\s*$", src.strip().splitlines()[0]) if src else None
    return called[0], m.group(1).strip() if m else ""


def _table(area: str, mod: ModuleType) -> list[Formula]:
    """One formula per ``FORMULAS`` entry."""
    out = []
    for name, fn in mod.FORMULAS.items():
        builder, via = _composed(fn)
        out.append(Formula(area, name, builder, lambda n=name, f=fn: [(n, f())], via=via))
    return out


# ------------------------------------------------------------------------------ shape areas
def _collective_formula(mod: ModuleType, shape: Any, name: str) -> Formula:
    builder = getattr(mod, shape.algo)  # one builder per algorithm, named after it
    where = f"one {shape.topos[0]} level" if len(shape.topos) == 1 else "levels " + " + ".join(shape.topos)
    note = (
        f"Shown on {where} (shape {shape.name}); other placements and the values of a real group: "
        f"llmcost explain collective {shape.op} --algo {shape.algo} --gpus N --hw ID"
    )
    return Formula(
        "collectives",
        name,
        builder,
        lambda: [("T", mod.expression(shape))],
        summary_text=f"{shape.op} by {shape.algo}: " + one_line(inspect.getdoc(builder) or "", 80),
        note=note,
    )


def _collectives(area: str, mod: ModuleType) -> list[Formula]:
    """One formula per op and algorithm, on one switch level (the time of one collective)."""
    from llmcost.collectives.cost import ALGORITHMS, Shape

    out = []
    for op, algos in ALGORITHMS.items():
        for algo in algos:
            shape = Shape(op, algo, ("switch",), (True,) if algo == "in_network" else ())
            out.append(_collective_formula(mod, shape, f"{op}__{algo}"))
    return out


def _collective_shape(mod: ModuleType, name: str) -> Formula | None:
    """A generated shape name (``all_reduce__ring__switch_switch``) as a formula."""
    for shape in mod.generated_shapes():
        if shape.name == name:
            return _collective_formula(mod, shape, name)
    return None


def _graph_terms(mod: ModuleType, shape: str) -> Terms:
    """Each operator's nonzero quantities, then the layer's resident KV bytes."""
    import sympy as sp

    from llmcost.graph import ops as G

    terms: Terms = []
    for op in mod.ops_of(shape):
        for q in G.QUANTITIES:
            e = sp.sympify(getattr(op, q))
            if e != 0:
                terms.append((f"{op.name}.{q}", e))
    if not shape.startswith("io__"):
        terms.append(("kv_bytes", sp.sympify(G.layer_kv_bytes(shape))))
    return terms


def _graph_summary(shape: str) -> str:
    parts = shape.split("__")
    if parts[0] == "io":
        return f"{parts[1]} embedding, final norm and LM head (logits of {parts[2]} positions), per device"
    return f"one {parts[0]} layer, {parts[1]} attention + {parts[2]} FFN: each operator's cost, per device"


def _graph(area: str, mod: ModuleType) -> list[Formula]:
    """One formula per layer / io shape: its operators' flops, bytes and collective sizes."""
    from llmcost.graph import ops as G

    out = []
    for shape in [*mod.layer_shapes(), *mod.IO_SHAPES]:
        builder = G.io_ops if shape.startswith("io__") else G.layer_ops
        out.append(
            Formula(
                area,
                shape,
                builder,
                lambda s=shape: _graph_terms(mod, s),
                summary_text=_graph_summary(shape),
                note="Conventions and sources: the docstring of llmcost/graph/ops.py and of each operator's builder.",
            )
        )
    return out


def _kernels(area: str, mod: ModuleType) -> list[Formula]:
    """The roofline time of one operator, the GEMM shape efficiency its matmuls run at and the
    head-dimension and sequence-length factors of fused attention."""
    from llmcost.kernels import attention, gemm

    return [
        Formula(area, "roofline", mod.expression, lambda: [("T_op", mod.expression())]),
        Formula(area, "gemm_shape", gemm.expression, lambda: [("eta_shape", gemm.expression())]),
        Formula(
            area,
            "attention_head",
            attention.head_factor,
            lambda: [("eta_head", attention.expression()), ("eta_head_bwd", attention.expression(True))],
        ),
        Formula(
            area,
            "attention_length",
            attention.length_factor,
            lambda: [("eta_len", attention.length_expression())],
        ),
    ]


READERS: dict[str, Callable[[str, ModuleType], list[Formula]]] = {
    "collectives": _collectives,
    "graph": _graph,
    "kernels": _kernels,
}
# names a shape area resolves beyond those it lists
EXTRA: dict[str, Callable[[ModuleType, str], Formula | None]] = {"collectives": _collective_shape}


# ------------------------------------------------------------------------------------ index
def _module(path: str) -> ModuleType | None:
    """The module, or None when it does not exist (yet); other import errors propagate."""
    try:
        return importlib.import_module(path)
    except ModuleNotFoundError as e:
        if e.name is not None and (path == e.name or path.startswith(e.name + ".")):
            return None
        raise


@functools.cache
def area_formulas(area: str) -> tuple[Formula, ...]:
    """The formulas of one area (none when its module is absent or has no table and no reader)."""
    mod = _module(AREAS[area])
    if mod is None:
        return ()
    if area in READERS:
        return tuple(READERS[area](area, mod))
    if isinstance(getattr(mod, "FORMULAS", None), dict):
        return tuple(_table(area, mod))
    return ()


def all_formulas() -> Iterator[Formula]:
    """Every formula, area by area in :data:`AREAS` order."""
    for area in AREAS:
        yield from area_formulas(area)


def display_names(formulas: list[Formula]) -> dict[str, str]:
    """``key -> name to type``: the bare name when one area has it, else ``area.name``."""
    count: dict[str, int] = {}
    for f in formulas:
        count[f.name] = count.get(f.name, 0) + 1
    return {f.key: f.name if count[f.name] == 1 else f.key for f in formulas}


def find(name: str) -> Formula:
    """The formula called ``name`` (bare, or ``area.name``); UserError with did-you-mean otherwise."""
    from llmcost.errors import UserError, did_you_mean

    area, _, bare = name.rpartition(".")
    formulas = list(area_formulas(area) if area in AREAS else all_formulas())
    hits = [f for f in formulas if f.name == bare and (not area or f.area == area)]
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        keys = ", ".join(f.key for f in hits)
        raise UserError(f"formula '{name}' is in several areas: {keys}; name one of them")
    for a, extra in EXTRA.items():
        mod = _module(AREAS[a]) if not area or area == a else None
        found = extra(mod, bare) if mod is not None else None
        if found is not None:
            return found
    known = list(display_names(formulas).values())
    raise UserError(f"unknown formula '{name}'{did_you_mean(name, known)} (llmcost explain --list)")
