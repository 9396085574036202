"""Plan search: enumerate a declared plan space, evaluate it vectorized through the same compiled
expressions as ``llmcost train`` / ``llmcost infer``, filter by memory and SLOs, and rank or
return the Pareto front (``llmcost search train | infer``); :mod:`llmcost.search.tts` sweeps
test-time-scaling plans through :mod:`llmcost.tts.query` (``llmcost search tts``)."""
