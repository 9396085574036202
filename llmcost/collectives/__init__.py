"""Collective communication over fabric tiers: sympy formulas (formulas), their generated numpy (_generated) and the runtime costing (cost)."""
