"""Money, energy and run-level figures: price formulas (formulas, _generated) and training budgets (budget)."""
