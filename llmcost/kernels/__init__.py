"""Kernel-level cost: roofline time of one operator and the per-kernel overhead."""
