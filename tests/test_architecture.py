"""Architecture rules of the llmcost package, checked on its source with :mod:`ast`.

(a) no import cycles between modules; (b) packages import only downwards in :data:`LAYERS`, and
within a layer only along :data:`SIBLING_EDGES`; (c) every generated function is reached from the
runtime. Imports count wherever they are written: module level, inside functions, under
``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
import importlib
import itertools
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "llmcost"

# Packages from the top layer down. A package may import any package of a LOWER layer (later in
# this list), never one of a higher layer, and one of its own layer only along SIBLING_EDGES.
# Top: the entry points (``python -m llmcost``, the typer CLI, the library API); then the plan
# search, which drives the cost areas; validation, which runs the cost areas on measured cases;
# the cost areas themselves; below them what every cost area builds on (model shapes, datatypes,
# the symbolic core, rules, the catalog and hardware, input checks, report formatting); at the
# bottom the unit parsing, the one file reader and the error types that everything uses. ``__init__`` is the root
# package (``llmcost.__version__``). A package missing here fails the test: place it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("__main__",),
    ("cli",),
    ("api",),
    ("pages",),
    ("plots",),
    ("capacity",),
    ("search",),
    ("validation",),
    ("launch",),
    ("training", "tts", "inference", "economics", "collectives", "kernels", "graph"),
    ("model", "precision", "symbolic", "rules", "catalog", "hardware", "checks", "report", "stacks"),
    ("units", "files", "errors", "__init__"),
)

# The imports allowed between packages of one layer: a DAG (checked acyclic below). Training
# prices the operator graph with the roofline and collectives; test-time scaling prices queries with inference;
# a GPU-initiated collective (DeepEP) pays the kernel launches of the roofline's per-kernel figure.
SIBLING_EDGES: dict[str, frozenset[str]] = {
    "training": frozenset({"graph", "kernels", "collectives", "economics"}),
    "tts": frozenset({"inference", "graph", "kernels", "economics"}),
    "inference": frozenset({"graph", "kernels", "collectives", "economics"}),
    "collectives": frozenset({"kernels"}),
    "model": frozenset({"catalog", "checks"}),
    "catalog": frozenset({"hardware"}),
    "units": frozenset({"errors"}),
    "files": frozenset({"errors"}),
}

# Module cycles tolerated for now, each as its set of modules (none left).
KNOWN_CYCLES: set[frozenset[str]] = set()


# --------------------------------------------------------------------------- the import graph


def _modules() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package."""
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _targets(node: ast.AST, module: str, is_package: bool) -> list[str]:
    """The llmcost modules one import statement names (a ``from X import name`` of a submodule
    names the submodule, otherwise X)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "llmcost"]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    if target.split(".")[0] != "llmcost":
        return []
    subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in MODULES]
    return subs or [target]


def _import_graph() -> dict[str, set[str]]:
    """Module -> the llmcost modules it imports anywhere in its source."""
    graph: dict[str, set[str]] = {}
    for mod, path in MODULES.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        is_package = path.name == "__init__.py"
        found = {t for n in ast.walk(tree) for t in _targets(n, mod, is_package)}
        graph[mod] = {t for t in found if t in MODULES and t != mod}
    return graph


GRAPH = _import_graph()


def _cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """Strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(frozenset(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _package(module: str) -> str:
    """The package a module belongs to: the first name below ``llmcost`` (``__init__`` for the root)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


LAYER_OF = {pkg: i for i, layer in enumerate(LAYERS) for pkg in layer}


# --------------------------------------------------------------------------- (a) and (b)


def test_no_import_cycles() -> None:
    unknown = [sorted(c) for c in _cycles(GRAPH) if not any(c <= known for known in KNOWN_CYCLES)]
    assert not unknown, f"import cycles (function-local imports count): {unknown}"


def test_every_package_has_a_layer() -> None:
    missing = sorted({_package(m) for m in MODULES} - set(LAYER_OF))
    assert not missing, f"packages not placed in LAYERS: {missing}"


def test_imports_go_down_the_layers() -> None:
    bad = []
    for mod, targets in sorted(GRAPH.items()):
        a = _package(mod)
        for t in sorted(targets):
            b = _package(t)
            if a == b or LAYER_OF[b] > LAYER_OF[a]:
                continue
            if LAYER_OF[b] == LAYER_OF[a] and b in SIBLING_EDGES.get(a, ()):
                continue
            why = "same layer, not in SIBLING_EDGES" if LAYER_OF[b] == LAYER_OF[a] else "a higher layer"
            bad.append(f"{mod} imports {t} ({a} -> {b}: {why})")
    assert not bad, "\n".join(bad)


def test_sibling_edges_are_a_dag_within_layers() -> None:
    for a, targets in SIBLING_EDGES.items():
        for b in targets:
            assert LAYER_OF[a] == LAYER_OF[b], f"SIBLING_EDGES {a} -> {b} crosses layers"
    assert not _cycles({a: set(t) for a, t in SIBLING_EDGES.items()}), "SIBLING_EDGES has a cycle"


# --------------------------------------------------------------------------- (c) generated functions


def _collective_runtime_keys() -> set[str]:
    """Every ``Shape.name`` the runtime builds (:func:`llmcost.collectives.cost.shape` over
    :func:`~llmcost.collectives.cost.available`) for 1-3 fabric levels of any catalog topology,
    each with or without in-network reduction: the collectives are looked up by that name."""
    from llmcost.collectives import cost as C
    from llmcost.hardware import TOPOLOGIES, FabricTier

    def tier(topology: str, inr: bool) -> FabricTier:
        return FabricTier("t", "t", 8, 1e9, 1e-6, topology, inr, None, None, None, 1.0, "")

    kinds = [tier(t, f) for t in TOPOLOGIES for f in (False, True)]
    keys = set()
    for n in (1, 2, 3):
        for tiers in itertools.product(kinds, repeat=n):
            levels = [C.Level(t, 2.0) for t in tiers]
            named = [a for a in C.LIBRARY_ALGORITHMS]  # chosen by name (--algo), never by auto
            keys |= {
                C.shape(op, a, levels).name
                for op in C.OPS
                for a in [*C.available(op, levels), *(x for x in named if x in C.ALGORITHMS[op])]
            }
    return keys


def _graph_runtime_keys() -> set[str]:
    """Every layer shape :func:`llmcost.graph.ops.layer_groups` builds for a catalog model (and for
    each MLA model without the query low rank, as DeepSeek-V2-Lite), in every phase: the layer
    functions are looked up by that name."""
    from llmcost.catalog import get_model_config, model_ids
    from llmcost.graph import ops as G
    from llmcost.model.config import from_config

    specs = [from_config(get_model_config(m), where=m) for m in model_ids()]
    specs += [replace(s, mla=replace(s.mla, q_lora_rank=None)) for s in specs if s.mla is not None]
    shapes = {g.shape for s in specs for phase in G.PHASES for g in G.layer_groups(s, phase)}
    # training looks up each forward / encoder layer's GEMM dimensions as gemm__<shape>
    training = {sh for sh in shapes if not sh.startswith("decode")} | {"io__forward__all", "io__mtp__all"}
    return shapes | {f"gemm__{sh}" for sh in training}


def _training_runtime_keys() -> set[str]:
    """The keys training composes: ``pipeline__``, ``bubble__``, ``inflight__`` and
    ``inflight_last__<schedule>`` per pipeline schedule (:mod:`llmcost.training.pipeline`,
    :func:`llmcost.training.memory.inflight`) and ``act__<policy>`` per activation policy
    (:data:`llmcost.training.memory.ACT_POLICIES`)."""
    from llmcost.training.base import SCHEDULES
    from llmcost.training.memory import ACT_POLICIES

    per_schedule = {
        f"{k}__{s}" for k in ("pipeline", "bubble", "inflight", "inflight_last") for s in SCHEDULES
    }
    return per_schedule | {f"act__{p}" for p in ACT_POLICIES}


# Area -> how its generated functions are reached. Each function must be named outside the area's
# _generated and formulas modules (a name grep over llmcost: called as an attribute or looked up
# by a literal key) or, where the area maps a key its runtime composes, be among the keys that
# callable returns. Value None: the name grep alone.
GENERATED_REACH: dict[str, Callable[[], set[str]] | None] = {
    "collectives": _collective_runtime_keys,
    "graph": _graph_runtime_keys,
    "training": _training_runtime_keys,
    "inference": None,
    "tts": None,
    "economics": None,
}
# Areas with a _generated module not checked yet (their unused functions are being deleted on
# other branches); move each into GENERATED_REACH (value None) once it passes.
GENERATED_PENDING: tuple[str, ...] = ()


def test_every_generated_area_is_checked_or_pending() -> None:
    areas = {p.parent.name for p in ROOT.glob("*/_generated.py")}
    assert areas == set(GENERATED_REACH) | set(GENERATED_PENDING)


def _named_outside(area: str) -> str:
    """Source of every llmcost module except the area's generated module and its generator."""
    skip = {ROOT / area / "_generated.py", ROOT / area / "formulas.py"}
    return "\n".join(p.read_text() for p in MODULES.values() if p not in skip)


@pytest.mark.parametrize("area", sorted(GENERATED_REACH))
def test_generated_functions_are_reached(area: str) -> None:
    functions = importlib.import_module(f"llmcost.{area}._generated").FUNCTIONS
    source = _named_outside(area)
    keys_of = GENERATED_REACH[area]
    runtime = keys_of() if keys_of is not None else set()
    unused = sorted(
        name for name in functions if name not in runtime and not re.search(rf"\b{re.escape(name)}\b", source)
    )
    assert not unused, f"{area}: generated functions nothing calls: {unused}"
