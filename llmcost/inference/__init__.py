"""Inference cost: plans and rules (plan), the per-operator evaluator (evaluator), prefill/decode
composition (serve) with its sympy formulas (formulas, _generated)."""
