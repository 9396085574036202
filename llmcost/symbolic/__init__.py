"""Symbolic core: named sympy symbols (:mod:`.symbols`) and their compilation to numpy (:mod:`.compile`).

Importing this package does not import sympy; the submodules that need it import it
themselves, so the runtime path of a CLI costing (which uses generated numpy code) never pays
for it.
"""
