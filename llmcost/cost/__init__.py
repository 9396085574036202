"""Cost layer: roofline time per operator, collectives over fabric tiers, and (later) workloads."""
