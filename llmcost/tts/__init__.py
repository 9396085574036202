"""Test-time scaling: one query's cost (query), accuracy tables (accuracy), sympy formulas (formulas, _generated)."""
