"""The operator graph: a model as operators per layer (ops), per-layer expression shapes in sympy (formulas) and their generated numpy (_generated)."""
