"""Symbolic core: symbol registry, compilation to numpy, and the generated runtime module."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import sympy as sp

from llmcost.symbolic import compile as C
from llmcost.symbolic.symbols import REGISTRY, SymbolRegistry, info, sym


def test_registry_has_units_and_docs() -> None:
    for name in ("S", "t_0", "peak_flops", "mem_bw", "eta_c", "d_model", "tp"):
        i = info(name)
        assert i.unit and i.doc
        assert sym(name).is_positive


def test_registry_extension_and_conflict() -> None:
    reg = SymbolRegistry()
    a = reg.define("n_micro", "1", "micro-batches per step", latex="m")
    assert reg.define("n_micro", "1", "micro-batches per step", latex="m") is a
    with pytest.raises(ValueError):
        reg.define("n_micro", "s", "something else")
    with pytest.raises(ValueError):
        reg.define("not an identifier", "1", "x")
    reg.define_family("W", "B/s", "bandwidth at level {k}")
    assert reg.level("W", 2).name == "W_2"
    assert reg.info("W_2").doc == "bandwidth at level 2"
    with pytest.raises(KeyError):
        reg.sym("nope")


def test_compile_broadcasts_scalars_and_arrays() -> None:
    x, y = sp.symbols("x y", positive=True)
    expr = sp.Max(x, 2 * y) + sp.Min(x, y) / sp.log(y, 2)
    f = C.compile_expr(expr, [x, y])
    assert C.compile_expr(expr, [x, y]) is f  # cached: compiled once per shape
    xs = np.array([1.0, 4.0, 9.0])
    got = f(xs, 2.0)
    want = [float(expr.subs({x: v, y: 2.0})) for v in xs]
    np.testing.assert_allclose(got, want)
    assert float(f(3.0, 2.0)) == pytest.approx(float(expr.subs({x: 3.0, y: 2.0})))


def test_generated_module_is_up_to_date() -> None:
    """The checked-in numpy module equals what the sympy expressions print today."""
    from llmcost.collectives import formulas as F

    assert F.GENERATED.read_text() == F.generated_source(), (
        "llmcost/collectives/_generated.py is stale: run python -m llmcost.collectives.formulas"
    )


def test_generated_functions_match_sympy() -> None:
    from llmcost.collectives import formulas as F
    from llmcost.collectives._generated import FUNCTIONS

    rng = np.random.default_rng(0)
    for sh in F.generated_shapes()[::7]:
        expr = F.expression(sh)
        fn, names, _ = FUNCTIONS[sh.name]
        vals = {n: float(rng.uniform(2, 9)) for n in names}
        want = float(sp.N(expr.subs({s: vals[s.name] for s in expr.free_symbols})))
        assert float(fn(*(vals[n] for n in names))) == pytest.approx(want, rel=1e-9), sh.name


def test_runtime_path_does_not_import_sympy() -> None:
    code = (
        "import sys; from llmcost.catalog import get_hardware; from llmcost.collectives.cost import collective;"
        "collective(get_hardware('h100-sxm'), 'all_reduce', 2**30, 64); print('sympy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_latex_names() -> None:
    names = REGISTRY.latex_names()
    assert names[sym("eta_c")] == r"\eta_c"
