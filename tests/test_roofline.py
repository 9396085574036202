"""Roofline time per operator and the bound it reports."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from llmcost.kernels.roofline import expression, roofline
from llmcost.symbolic.symbols import sym

F, W = 989.4e12, 3.35e12


def test_compute_and_memory_bound() -> None:
    """The larger term names the bound; the time is the 2-norm of the two (OVERLAP_P), within 1% of
    the larger one far from the ridge (a 10x gap: +0.5%) and sqrt(2) times it on the ridge."""
    big = roofline(2 * 8192**3, 3 * 2 * 8192**2, F, W, eta_c=0.8, eta_m=0.85)
    assert big.bound == "compute"
    tc, tm = 2 * 8192**3 / (0.8 * F), 3 * 2 * 8192**2 / (0.85 * W)
    assert big.time == pytest.approx(np.hypot(tc, tm))
    assert big.time == pytest.approx(tc, rel=1e-2)
    gemv = roofline(2 * 8192**2, 2 * 8192**2, F, W, eta_c=0.8, eta_m=0.85)
    assert gemv.bound == "memory"
    assert gemv.time == pytest.approx(2 * 8192**2 / (0.85 * W), rel=1e-2)
    ridge = roofline(F, W, F, W)
    assert ridge.time == pytest.approx(2**0.5)


def test_latency_and_network_bound() -> None:
    tiny = roofline(1e3, 1e3, F, W, t_launch=5e-6)
    assert tiny.bound == "latency"
    assert tiny.time == pytest.approx(5e-6 + 1e3 / W)
    net = roofline(1e6, 1e6, F, W, net_bytes=1e9, net_bw=50e9)
    assert net.bound == "network"
    assert net.time == pytest.approx(1e9 / 50e9)


def test_vectorized_matches_scalar() -> None:
    m = np.array([1, 16, 256, 4096])
    flops, byts = 2 * m * 8192 * 8192, 2 * (m * 8192 * 2 + 8192 * 8192)
    r = roofline(flops, byts, F, W, eta_c=0.7, eta_m=0.85, t_launch=3e-6)
    for i in range(len(m)):
        s = roofline(flops[i], byts[i], F, W, eta_c=0.7, eta_m=0.85, t_launch=3e-6)
        assert r.time[i] == pytest.approx(s.time)
        assert r.bound[i] == s.bound
    assert list(r.bound) == ["memory", "memory", "memory", "compute"]


def test_expression_matches_numeric() -> None:
    vals = {
        "flops": 1e12,
        "hbm_bytes": 1e9,
        "net_bytes": 1e8,
        "net_bw": 5e10,
        "peak_flops": F,
        "mem_bw": W,
        "eta_c": 0.7,
        "eta_m": 0.85,
        "t_launch": 4e-6,
    }
    e = expression()
    got = float(sp.N(e.subs({sym(k): v for k, v in vals.items()})))
    r = roofline(1e12, 1e9, F, W, eta_c=0.7, eta_m=0.85, t_launch=4e-6, net_bytes=1e8, net_bw=5e10)
    assert got == pytest.approx(r.time)


@given(st.floats(1e3, 1e15), st.floats(1e3, 1e12), st.floats(1.01, 10))
def test_time_at_least_each_term_and_monotone(flops: float, byts: float, k: float) -> None:
    r = roofline(flops, byts, F, W, t_launch=1e-6)
    assert r.time >= max(r.compute, r.memory) + 1e-6 - 1e-18
    assert roofline(flops * k, byts, F, W, t_launch=1e-6).time >= r.time
    assert roofline(flops, byts, F, W * k, t_launch=1e-6).time <= r.time
