"""The metric names an inference result reports (a light module: the search and validation name
them without importing the evaluator)."""

METRICS = (
    "ttft_s",
    "tpot_s",
    "e2e_latency_s",
    "output_tokens_per_s",
    "output_tokens_per_s_per_gpu",
    "input_tokens_per_s_per_gpu",
    "memory_gib_per_gpu",
    "joules_per_output_token",
)
"""The validation README's infer metrics, each a key of :meth:`llmcost.inference.serve.InferenceResult.metrics`."""
