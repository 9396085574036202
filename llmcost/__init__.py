"""llmcost: analytical roofline cost model for LLM training, inference and test-time scaling."""

__version__ = "0.1.0"
