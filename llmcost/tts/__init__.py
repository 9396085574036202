"""Test-time scaling: the query plan (plan), graph primitives (primitives), one query's cost (query),
accuracy tables (accuracy), sympy formulas (formulas, _generated)."""
