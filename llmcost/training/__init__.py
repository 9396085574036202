"""Training cost. Layers, lowest first: shared vocabulary (base); plan rows and grouping
(columns); FLOPs and compute time per layer (compute); memory (memory); the step's stages:
layer costs (layers), busiest stage and pipeline (pipeline), data parallel and optimizer
(data_parallel), their composition (step); plans, checks and the single-plan result (plan);
sympy formulas (formulas) and the numpy module generated from them (_generated)."""
