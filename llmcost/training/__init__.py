"""Training cost: plans and checks (plan), FLOPs and compute time (compute), memory (memory), the step composition (step), sympy formulas (formulas, _generated)."""
