"""Capacity planning: the fewest devices a model fits on, and what fits on a given count (``llmcost fit``)."""
