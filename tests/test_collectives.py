"""Collectives: golden expressions, placement, nccl-tests conventions, topologies, physics properties."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcost.catalog import get_hardware
from llmcost.collectives import cost as C
from llmcost.collectives import formulas as F
from llmcost.errors import PlanError, UserError
from llmcost.hardware import hardware_from_dict

GOLDEN = Path(__file__).parent / "golden" / "collective_expressions.txt"


def _golden_text() -> str:
    lines = [f"{sh.name}: {sp.sstr(F.expression(sh))}" for sh in F.generated_shapes()]
    return "\n".join(lines) + "\n"


def test_golden_expressions() -> None:
    """The printed expression of every algorithm shape is pinned (LLMCOST_UPDATE_GOLDEN=1 rewrites it)."""
    text = _golden_text()
    if os.environ.get("LLMCOST_UPDATE_GOLDEN"):
        GOLDEN.write_text(text)
    assert GOLDEN.read_text() == text


def test_golden_covers_every_algorithm() -> None:
    names = GOLDEN.read_text()
    for op, algos in C.ALGORITHMS.items():
        for a in algos:
            assert f"{op}__{a}__" in names


def test_ring_all_reduce_is_textbook() -> None:
    """Single-level ring AR = 2(p-1)α + 2(p-1)/p · S/min(κ_p·ηW, B_p) + t0 (MPICH / NCCL ring; the
    protocol's bandwidth factor and cap are 1 and ∞ for Simple, which leaves the textbook form)."""
    sh = C.Shape("all_reduce", "ring", ("switch",))
    S, t0 = sp.Symbol("S", positive=True, real=True), sp.Symbol("t_0", positive=True, real=True)
    d, W, eta, a = (sp.Symbol(n, positive=True, real=True) for n in ("d_0", "W_0", "eta_0", "alpha_0"))
    kp, bp = (sp.Symbol(n, positive=True, real=True) for n in ("kappa_p", "B_p"))
    expr = F.expression(sh)
    assert sp.simplify(expr - (t0 + 2 * (d - 1) * a + 2 * (d - 1) / d * S / sp.Min(kp * eta * W, bp))) == 0
    simple = expr.subs({kp: 1, bp: sp.oo})
    assert sp.simplify(simple - (t0 + 2 * (d - 1) * a + 2 * (d - 1) / d * S / (eta * W))) == 0


def test_busbw_factors() -> None:
    assert C.busbw_factor("all_reduce", 8) == pytest.approx(1.75)
    assert C.busbw_factor("all_gather", 8) == C.busbw_factor("reduce_scatter", 8) == pytest.approx(0.875)
    assert C.busbw_factor("all_to_all", 4) == pytest.approx(0.75)
    assert C.busbw_factor("broadcast", 8) == C.busbw_factor("send_recv", 2) == 1.0


def test_placement_tiers() -> None:
    h100 = get_hardware("h100-sxm")
    assert [(lv.tier.key, lv.d) for lv in C.placement(h100, 8)] == [("scale_up", 8)]
    assert [(lv.tier.key, lv.d) for lv in C.placement(h100, 16)] == [("scale_up", 8), ("scale_out", 2)]
    assert [(lv.tier.key, lv.d) for lv in C.placement(h100, 4, 1)] == [("scale_out", 4)]
    assert [(lv.tier.key, lv.d) for lv in C.placement(h100, 5, 5)] == [("scale_up", 5)]
    pcie = get_hardware("h100-pcie")
    assert [lv.d for lv in C.placement(pcie, 16)] == [2, 4, 2]  # bridge pair, PCIe node, network: 3 levels
    with pytest.raises(PlanError):
        C.placement(h100, 1)
    with pytest.raises(PlanError):
        C.placement(h100, 12, 8)


def test_user_errors() -> None:
    h100 = get_hardware("h100-sxm")
    with pytest.raises(UserError):
        C.collective(h100, "allreduceX", 1e6, 8)
    with pytest.raises(UserError):
        C.collective(h100, "all_gather", 1e6, 8, algo="tree")
    with pytest.raises(PlanError):
        C.collective(get_hardware("a100-sxm4-80gb"), "all_reduce", 1e6, 8, algo="nvls")
    assert C.collective(h100, "allreduce", 1e6, 8, algo="nvls").algo == "in_network"


def test_nvls_matches_nccl_1455_series() -> None:
    """NVLS busbw grows with n as 2(n-1)/(n+1) (switch reduction moves S(n+1)/n per device)."""
    h100 = get_hardware("h100-sxm")
    bus = [
        float(C.collective(h100, "all_reduce", 4 * 2**30, n, algo="nvls").busbw) / 1e9 for n in (5, 6, 7, 8)
    ]
    assert bus == sorted(bus)
    for got, meas in zip(bus, (420, 440, 460, 480), strict=True):  # NVIDIA/nccl #1455
        assert got == pytest.approx(meas, rel=0.05)


def _fake(topology: str, **tier: object) -> object:
    base = {
        "id": f"fake-{topology}",
        "name": "fake",
        "vendor": "x",
        "type": "gpu",
        "sources": ["test"],
        "compute": {"bf16": "1000 TFLOPS"},
        "memory": {"capacity": "192 GiB", "bandwidth": "5 TB/s"},
        "tdp": "750 W",
        "node": {"devices": 8},
        "fabric": {
            "scale_up": {"name": "up", "devices": 8, "latency": "2 us", "topology": topology, **tier},
            "scale_out": {
                "name": "nic",
                "devices": None,
                "bandwidth": "400 Gbit/s",
                "latency": "10 us",
                "topology": "rail_fat_tree",
            },
        },
        "efficiency": {
            k: {"value": 1.0, "source": "test"} for k in ("compute", "memory", "scale_up", "scale_out")
        },
    }
    return hardware_from_dict(base, where="test")


def test_mesh_uses_all_links_only_for_multi_link_algorithms() -> None:
    """MI300X-like mesh: 7 links x 64 GB/s; a 2-rank group or a one-peer-per-step algorithm gets one link."""
    mesh = _fake("mesh", bandwidth="448 GB/s", links=7, link_bandwidth="64 GB/s")
    big = 8 * 2**30
    ring8 = C.collective(mesh, "all_reduce", big, 8, algo="ring")
    assert float(ring8.busbw) == pytest.approx(448e9, rel=3e-3)
    ring2 = C.collective(mesh, "all_reduce", big, 2, algo="ring")
    assert float(ring2.busbw) == pytest.approx(64e9, rel=3e-3)
    rd8 = C.collective(mesh, "all_reduce", big, 8, algo="rabenseifner")
    assert float(rd8.busbw) == pytest.approx(64e9, rel=3e-3)
    a2a = C.collective(mesh, "all_to_all", big, 8, algo="direct")
    assert float(a2a.busbw) == pytest.approx(448e9, rel=3e-3)
    switch = _fake("switch", bandwidth="448 GB/s")
    assert float(C.collective(switch, "all_reduce", big, 2, algo="ring").busbw) == pytest.approx(
        448e9, rel=3e-3
    )


def test_torus_bidirectional_rings() -> None:
    """Torus: a ring group over m dimensions uses 2m links (both directions of each ring)."""
    torus = _fake("torus", bandwidth="270 GB/s", link_bandwidth="45 GB/s", torus_dims=3)
    big = 8 * 2**30
    r4 = C.collective(torus, "all_gather", big, 4, algo="ring")  # one axis of 4
    assert float(r4.busbw) == pytest.approx(90e9, rel=3e-3)
    r8 = C.collective(torus, "all_gather", big, 8, algo="ring")  # 4 x 2: two axes
    assert float(r8.busbw) == pytest.approx(180e9, rel=3e-3)


def test_hierarchical_three_levels_and_sweep_vectorized() -> None:
    pcie = get_hardware("h100-pcie")
    sizes = np.logspace(3, 10, 15)
    res = C.costs(pcie, "all_reduce", sizes, 16)
    for r in res:
        scal = [float(C.costs(pcie, "all_reduce", float(s), 16, algos=[r.algo])[0].time) for s in sizes[::5]]
        np.testing.assert_allclose(r.time[::5], scal)
    top = C.best(res)
    assert top.time.shape == sizes.shape and len(top.algo) == len(sizes)


def test_crossover_solves_equal_cost() -> None:
    h100 = get_hardware("h100-sxm")
    levels = C.placement(h100, 16)
    va = C.values(h100, levels, 1.0, "ring", "simple")
    vb = C.values(h100, levels, 1.0, "tree", "simple")
    roots = F.crossover(
        C.shape("all_reduce", "ring", levels), C.shape("all_reduce", "tree", levels), va, vals_b=vb
    )
    assert len(roots) == 1
    ring, tree = C.costs(h100, "all_reduce", roots[0], 16, algos=["ring", "tree"], protocol="simple")
    assert float(ring.time) == pytest.approx(float(tree.time), rel=1e-6)


HW = ["h100-sxm", "a100-sxm4-80gb", "h800-sxm", "h100-pcie"]
sizes = st.floats(1.0, 2.0**36)
ops = st.sampled_from(C.OPS)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(HW), ops, st.sampled_from([2, 4, 8, 16, 64]), sizes, st.floats(1.01, 100))
def test_time_grows_with_size(hw_id: str, op: str, gpus: int, size: float, k: float) -> None:
    hw = get_hardware(hw_id)
    for a, b in zip(C.costs(hw, op, size, gpus), C.costs(hw, op, size * k, gpus), strict=True):
        assert float(b.time) > float(a.time)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(HW), ops, st.sampled_from([2, 8, 16, 64]), sizes, st.floats(1.01, 10), st.integers(0, 1)
)
def test_time_falls_with_bandwidth(hw_id: str, op: str, gpus: int, size: float, k: float, tier: int) -> None:
    hw = get_hardware(hw_id)
    key = hw.fabric[min(tier, len(hw.fabric) - 1)].key
    bw = hw.raw["fabric"][key]["bandwidth"]
    faster = hw.with_overrides(
        {"fabric": {key: {"bandwidth": f"{float(bw.split()[0]) * k} {bw.split()[1]}"}}}
    )
    for a, b in zip(C.costs(hw, op, size, gpus), C.costs(faster, op, size, gpus), strict=True):
        assert float(b.time) <= float(a.time) * (1 + 1e-12)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(HW), ops, st.sampled_from([2, 4, 8, 16, 64]), sizes)
def test_busbw_within_link_rate_except_in_network(hw_id: str, op: str, gpus: int, size: float) -> None:
    hw = get_hardware(hw_id)
    line = max(t.bandwidth for t in hw.fabric)
    for r in C.costs(hw, op, size, gpus):
        if r.algo != "in_network":
            assert float(r.busbw) <= line * (1 + 1e-9), r.algo


def test_in_network_busbw_can_exceed_link_rate() -> None:
    r = C.collective(get_hardware("h100-sxm"), "all_reduce", 8 * 2**30, 8, algo="in_network")
    assert float(r.busbw) > 450e9


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(HW), ops, st.sampled_from([2, 4, 8, 16, 64]), sizes)
def test_auto_never_slower_than_ring(hw_id: str, op: str, gpus: int, size: float) -> None:
    """auto (fastest algorithm-protocol pair) never loses to ring-Simple, nor to any forced protocol."""
    hw = get_hardware(hw_id)
    auto = C.collective(hw, op, size, gpus)
    first = "ring" if "ring" in C.ALGORITHMS[op] else C.ALGORITHMS[op][0]
    assert float(auto.time) <= float(C.collective(hw, op, size, gpus, algo=first, protocol="simple").time)
    assert float(auto.time) <= float(C.collective(hw, op, size, gpus, algo=first).time)
    for pr in C.PROTOCOLS:
        try:
            forced = C.collective(hw, op, size, gpus, protocol=pr)
        except PlanError:
            continue
        assert float(auto.time) <= float(forced.time) * (1 + 1e-12)


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(HW),
    st.sampled_from(["all_reduce", "all_gather", "broadcast"]),
    st.sampled_from([2, 8, 16, 64]),
    sizes,
    st.floats(1.01, 100),
    st.sampled_from(C.PROTOCOLS),
)
def test_each_protocol_grows_with_size(
    hw_id: str, op: str, gpus: int, size: float, k: float, pr: str
) -> None:
    hw = get_hardware(hw_id)
    try:
        a = C.collective(hw, op, size, gpus, algo="ring", protocol=pr)
    except PlanError:
        return
    b = C.collective(hw, op, size * k, gpus, algo="ring", protocol=pr)
    assert float(b.time) > float(a.time)


# --- NCCL protocols (LL / LL128 / Simple, tuning.cc) ------------------------------------------------
def test_nvlink_small_messages_use_ll_large_simple() -> None:
    """NCCL on one NVLink node: LL for small messages, LL128 in between, Simple for large (tuning.cc
    latencies 6.6+0.6/step, 14+1.9/step, 8.4+3.4/step against bandwidth x0.5 / x0.92 / x1)."""
    sizes = np.array([2.0**k for k in range(8, 34)])
    for hw_id in ("h100-sxm", "a100-sxm4-80gb", "b200"):
        ring = C.collective(get_hardware(hw_id), "all_reduce", sizes, 8, algo="ring")
        protos = [str(p) for p in ring.protocol]
        assert protos[0] == "ll" and protos[-1] == "simple", hw_id
        assert "ll128" in protos, hw_id
        order = {"ll": 0, "ll128": 1, "simple": 2}
        assert [order[p] for p in protos] == sorted(order[p] for p in protos), hw_id  # LL -> LL128 -> Simple
    h100 = get_hardware("h100-sxm")
    small = C.collective(h100, "all_reduce", 4096, 8)
    assert small.protocol in ("ll", "ll128") and small.algo in ("ring", "tree")
    big = C.collective(h100, "all_reduce", 4 * 2**30, 8)
    assert big.protocol == "simple"


def test_protocol_figures_are_nccl_tuning_constants() -> None:
    """One NVLink node, catalog NVLink latency = tuning.cc Ring/Simple 3.4 us: the ring all-reduce at
    each protocol is baseLat + 2(p-1) x hwLat (+ bytes at x0.5 / x0.92 of the Simple bandwidth)."""
    h100 = get_hardware("h100-sxm")
    assert h100.fabric[0].latency == pytest.approx(C.NCCL["hw_lat_us"]["nvlink"]["ring"]["simple"] * 1e-6)
    tiny = 1.0
    for pr, (base, step) in {"ll": (6.6, 0.6), "ll128": (14.0, 1.9), "simple": (8.4, 3.4)}.items():
        r = C.collective(h100, "all_reduce", tiny, 8, algo="ring", protocol=pr)
        assert float(r.time) == pytest.approx((base + 14 * step) * 1e-6, rel=1e-4), pr
    big = 2.0**33
    simple = C.collective(h100, "all_reduce", big, 8, algo="ring", protocol="simple")
    ll128 = C.collective(h100, "all_reduce", big, 8, algo="ring", protocol="ll128")
    assert float(ll128.busbw) == pytest.approx(0.92 * float(simple.busbw), rel=1e-3)
    ll = C.collective(h100, "all_reduce", big, 8, algo="ring", protocol="ll")
    assert float(ll.busbw) == pytest.approx(min(0.5 * float(simple.busbw), 141e9), rel=1e-3)  # llMaxBw Hopper
    # two nodes: tree chains 8 GPUs in the node (7 steps) and crosses the network log2(2) = 1 time
    v = C.values(h100, C.placement(h100, 16), 1.0, "tree", "ll")
    assert (v["h_0"], v["h_1"]) == (7.0, 1.0)
    assert v["alpha_1"] == pytest.approx(5.0e-6 * 10 / 14)  # NET tree LL scaled by the 10 us catalog step
    assert v["t_0"] == pytest.approx(6.8e-6)


def test_protocol_availability() -> None:
    """LL128 needs NVLink inside the node; NVLS, non-NCCL algorithms, p2p and non-NCCL platforms run Simple."""
    h100, l4, tpu = get_hardware("h100-sxm"), get_hardware("l4"), get_hardware("tpu-v5p")
    lv = C.placement(h100, 16)
    assert C.protocols(h100, "all_reduce", "ring", lv) == ("ll", "ll128", "simple")
    assert C.protocols(h100, "all_reduce", "in_network", lv) == ("simple",)
    assert C.protocols(h100, "all_reduce", "rabenseifner", lv) == ("simple",)
    assert C.protocols(h100, "send_recv", "direct", lv) == ("simple",)
    assert C.protocols(l4, "all_reduce", "ring", C.placement(l4, 8)) == ("ll", "simple")
    assert C.protocols(tpu, "all_reduce", "ring", C.placement(tpu, 8)) == ("simple",)
    with pytest.raises(PlanError):
        C.collective(l4, "all_reduce", 1e6, 8, algo="ring", protocol="ll128")
    with pytest.raises(PlanError):
        C.collective(h100, "all_reduce", 1e6, 8, algo="nvls", protocol="ll")
    with pytest.raises(UserError):
        C.collective(h100, "all_reduce", 1e6, 8, protocol="ll256")
    assert C.collective(h100, "all_reduce", 1e3, 8, protocol="ll").protocol == "ll"
    # TPU ICI: unchanged Simple model (catalog alpha, t_0 = 8.4 us)
    v = C.values(tpu, C.placement(tpu, 8), 1.0, "ring", "simple")
    assert v["t_0"] == C.T0 and v["alpha_0"] == tpu.fabric[0].latency


def test_cli_collective_protocol(cli) -> None:  # type: ignore[no-untyped-def]
    r = cli("collective", "all_reduce", "--size", "4KiB", "--gpus", "8", "--format", "json")
    rows = json.loads(r.out)
    top = next(x for x in rows if x["fastest"])
    assert top["protocol"] == "ll"
    r = cli("collective", "all_reduce", "--size", "4KiB", "--protocol", "simple", "--format", "json")
    assert {x["protocol"] for x in json.loads(r.out)} == {"simple"}
    r = cli("collective", "all_reduce", "--size", "4KiB", "--protocol", "ll128")
    assert r.code == 0 and "ll128" in r.out and "protocol" in r.out
    r = cli("collective", "all_reduce", "--gpus", "8", "--sweep", "1KiB:1GiB", "--format", "json")
    protos = [x["protocol"] for x in json.loads(r.out)]
    assert protos[0] == "ll" and protos[-1] == "simple"
    r = cli("collective", "all_reduce", "--protocol", "ll256")
    assert r.code == 2 and "protocol" in r.err
    r = cli("explain", "collective", "all_reduce", "--size", "4KiB", "--gpus", "16")
    assert r.code == 0 and "ll protocol" in r.out and "kappa_p" in r.out and "B_p" in r.out


# --- CLI --------------------------------------------------------------------------------------------
def test_cli_collective_table_marks_fastest(cli) -> None:  # type: ignore[no-untyped-def]
    r = cli("collective", "all_reduce", "--size", "1GiB", "--gpus", "64", "--hw", "h100-sxm")
    assert r.code == 0, r.err
    assert "*" in r.out and "busbw" in r.out and "in_network" in r.out


def test_cli_collective_json_sweep_crossover(cli) -> None:  # type: ignore[no-untyped-def]
    r = cli("collective", "all_gather", "--size", "64MiB", "--gpus", "16", "--format", "json")
    rows = json.loads(r.out)
    assert sum(x["fastest"] for x in rows) == 1 and all(x["time_s"] > 0 for x in rows)
    r = cli("collective", "all_reduce", "--gpus", "16", "--sweep", "1KiB:1GiB", "--format", "json")
    rows = json.loads(r.out)
    assert len(rows) == 21 and rows[0]["size"] == 1024
    r = cli("collective", "all_reduce", "--gpus", "16", "--crossover", "ring,tree", "--format", "json")
    assert r.code == 0, r.err
    assert 1e6 < json.loads(r.out)[0]["size"] < 1e9


def test_cli_collective_errors(cli) -> None:  # type: ignore[no-untyped-def]
    for args in (
        ["bogus"],
        ["all_reduce", "--gpus", "1"],
        ["all_reduce", "--algo", "zzz"],
        ["all_reduce", "--hw", "h1000"],
        ["all_reduce", "--size", "-3GiB"],
        ["all_reduce", "--gpus", "12"],
    ):
        r = cli("collective", *args)
        assert r.code == 2, args
        assert "Traceback" not in r.err and r.err.strip()


def test_cli_explain(cli) -> None:  # type: ignore[no-untyped-def]
    r = cli("explain", "collective", "all_reduce", "--algo", "ring", "--gpus", "16")
    assert r.code == 0, r.err
    assert "alpha_1" in r.out and "T = " in r.out and "MPICH" in r.out
    r = cli("explain", "collective", "all_reduce", "--algo", "ring", "--latex")
    assert r.code == 0 and "\\frac" in r.out


def test_placement_rejects_impossible_layouts() -> None:
    """A node larger than the host and its scale-up domain, or a group that leaves a partial domain, is an error."""
    from llmcost.catalog import get_hardware
    from llmcost.collectives.cost import placement
    from llmcost.errors import PlanError

    h100 = get_hardware("h100-sxm")
    with pytest.raises(PlanError, match="exceeds h100-sxm's host of 8"):
        placement(h100, 16, 16)
    with pytest.raises(PlanError, match="e.g. 6 or 4"):
        placement(h100, 12)
    with pytest.raises(PlanError, match="whole 'scale_out' groups of 6144"):
        placement(get_hardware("tpu-v5p"), 100000)
    levels = placement(get_hardware("gb200"), 144, 72)  # NVL72: the NVLink domain is larger than a 4-GPU host
    assert [lv.d for lv in levels] == [72, 2]


def test_a_switched_domain_is_filled_evenly_where_the_job_is_not_a_multiple_of_it() -> None:
    """128 GPUs on NVL72 racks run 64 per rack: a TP2 data-parallel group of 64 holds 32 per rack
    (was refused: 36 per rack leave a partial one); a torus slice (TPU v5p) keeps refusing."""
    from llmcost.catalog import get_hardware
    from llmcost.collectives.cost import placement
    from llmcost.errors import PlanError

    nvl = get_hardware("gb200-nvl72")
    assert [(lv.tier.key, lv.d) for lv in placement(nvl, 64, 2)] == [("scale_up", 32), ("scale_out", 2)]
    assert [(lv.tier.key, lv.d) for lv in placement(nvl, 128, 4)] == [("scale_up", 64), ("scale_out", 2)]
    assert [lv.d for lv in placement(nvl, 144, 4)] == [72, 2]  # a multiple of the rack: unchanged
    assert [lv.d for lv in placement(nvl, 256, 4)] == [64, 4]  # the fewest racks, alike
    for gpus in (76, 100, 148):  # no share in whole 4-GPU trays over the fewest racks
        with pytest.raises(PlanError, match="groups of 72"):
            placement(nvl, gpus, 4)
    with pytest.raises(PlanError, match="whole 'scale_out' groups of 6144"):
        placement(get_hardware("tpu-v5p"), 100000)


def test_auto_uses_only_what_nccl_runs_on_gpus() -> None:
    """On NCCL/RCCL platforms auto chooses among ring, tree and NVLS (all-reduce) or ring / direct;
    elsewhere every modelled algorithm competes. Named algorithms stay available."""
    a100, tpu = get_hardware("a100-sxm4-80gb"), get_hardware("tpu-v5p")
    for size in (4e3, 1e6, 2**30):
        assert C.collective(a100, "all_reduce", size, 8).algo in C.NCCL_ALGORITHMS["all_reduce"]
        assert C.collective(a100, "all_gather", size, 64).algo == "ring"
    assert C.collective(a100, "all_reduce", 2**30, 8, algo="rabenseifner").algo == "rabenseifner"
    assert set(C.auto_algorithms(tpu, "all_reduce", C.placement(tpu, 8))) >= {"ring", "recursive_doubling"}


@pytest.mark.parametrize(
    ("op", "spelling", "algo"),
    [
        ("all_reduce", "Ring", "ring"),
        ("all_reduce", "Tree", "tree"),
        ("all_reduce", "NVLS", "in_network"),
        ("all_reduce", "NVLSTree", "in_network"),
        ("all_reduce", "CollNetDirect", "in_network"),
        ("all_reduce", "COLLNETCHAIN", "in_network"),
        ("all_gather", "PAT", "recursive_doubling"),
        ("reduce_scatter", "pat", "recursive_halving"),
    ],
)
def test_nccl_algo_spellings(op: str, spelling: str, algo: str) -> None:
    """NCCL_ALGO names are accepted in any case (NCCL env docs: Ring, Tree, NVLS, NVLSTree,
    CollNetDirect, CollNetChain, PAT)."""
    from llmcost.collectives.cost import normalize_algo

    assert normalize_algo(op, spelling) == algo


def test_pat_is_named_where_nccl_does_not_run_it() -> None:
    from llmcost.collectives.cost import normalize_algo

    with pytest.raises(UserError, match="PAT for all_gather and reduce_scatter only"):
        normalize_algo("all_reduce", "PAT")


def test_deepep_low_latency_is_named_not_auto() -> None:
    """DeepEP's low-latency all-to-all: chosen by name only (auto keeps what NCCL runs), on NVIDIA
    GPUs only; inside one node its time is the two kernels, one NVLink write and its signal, and
    the 7/8 of the bytes bound to other GPUs at the NVLink rate."""
    from llmcost.kernels.roofline import T_KERNEL

    hw = get_hardware("h800-sxm")
    size = 128 * 8 * 7392.0
    auto = {r.algo for r in C.costs(hw, "all_to_all", size, 16, 8)}
    assert "deepep_low_latency" not in auto
    (r,) = C.costs(hw, "all_to_all", size, 8, 8, ["deepep_ll"])
    up = hw.fabric[0]
    expect = 2 * T_KERNEL + 2 * up.latency + size * 7 / 8 / (up.efficiency * up.bandwidth)
    assert float(r.time) == pytest.approx(expect, rel=1e-12)
    (r16,) = C.costs(hw, "all_to_all", size, 16, 8, ["deepep_low_latency"])
    assert float(r16.time) > float(r.time)  # half the copies now cross the 400G NIC
    with pytest.raises(PlanError, match="runs on NVIDIA GPUs"):
        C.costs(get_hardware("mi300x"), "all_to_all", size, 8, 8, ["deepep_low_latency"])


def test_deepep_normal_two_hop_bounds() -> None:
    """DeepEP normal dispatch: inside a node the NVLink buffers bound it; across 8 nodes with node-limited
    routing (at most 4 per token) the RDMA hop does; named only, NVIDIA only."""
    from llmcost.collectives import cost as C

    h800 = get_hardware("h800-sxm")
    size = 4096 * 7392.0
    intra = C.collective(h800, "all_to_all", size, 8, 8, algo="deepep_normal")
    inter = C.collective(h800, "all_to_all", size, 64, 8, algo="deepep_normal")
    nvl = h800.fabric[0].bandwidth * h800.fabric[0].efficiency
    ranks = 8 * (1 - (7 / 8) ** 8)
    assert float(intra.time) == pytest.approx(2 * 4e-6 + 2 * h800.fabric[0].latency + size * ranks / nvl)
    net = h800.fabric[-1].bandwidth * h800.fabric[-1].efficiency
    f = 1 - 0.75**8
    remote = 4 * f - 0.5 * f
    assert float(inter.time) == pytest.approx(2 * 4e-6 + 2 * h800.fabric[-1].latency + size * remote / net)
    assert C.collective(h800, "all_to_all", size, 8, 8).algo != "deepep_normal"
    with pytest.raises(PlanError, match="NVIDIA"):
        C.collective(get_hardware("mi300x"), "all_to_all", size, 8, 8, algo="deepep_normal")


def test_star_is_two_steps_and_the_hub_link_carries_p_minus_1_buffers() -> None:
    """Star (TPI-LLM hub) all-reduce on one level: t_0 + 2α + 2(p-1)·S/(ηW), every protocol Simple."""
    hw = get_hardware("macbook-pro-m1-max")
    tier = hw.fabric[0]
    for p in (2, 4, 8):
        r = C.collective(hw, "all_reduce", 16384.0, p, algo="star")
        expect = C.T0 + 2 * tier.latency + 2 * (p - 1) * 16384.0 / (tier.efficiency * tier.bandwidth)
        assert float(r.time) == pytest.approx(expect, rel=1e-12)
        assert r.protocol == "simple"
    assert C.normalize_algo("all_reduce", "parameter_server") == "star"
    with pytest.raises(UserError, match="has no algorithm 'star'"):
        C.normalize_algo("all_gather", "star")


def test_star_joins_auto_off_nccl_only() -> None:
    """NCCL runs no star: on GPUs auto keeps NCCL's algorithms; on a laptop or CPU auto compares
    star too, and picks it at 8 ranks for a small buffer (2 latency steps against log2 8 = 3)."""
    h100, mac, epyc = get_hardware("h100-sxm"), get_hardware("macbook-pro-m1-max"), get_hardware("epyc-9654")
    assert "star" not in C.auto_algorithms(h100, "all_reduce", C.placement(h100, 8))
    for size in (4.0, 16384.0, 2.0**30):
        assert C.collective(h100, "all_reduce", size, 8).algo != "star"
    assert "star" in C.auto_algorithms(epyc, "all_reduce", C.placement(epyc, 4, 1))
    assert C.collective(mac, "all_reduce", 16384.0, 8).algo == "star"
    assert C.collective(mac, "all_reduce", 2.0**30, 8).algo != "star"  # the hub link is the bottleneck


def test_cli_collective_star(cli) -> None:  # type: ignore[no-untyped-def]
    r = cli(
        "collective",
        "all_reduce",
        "--hw",
        "macbook-pro-m1-max",
        "--gpus",
        "4",
        "--size",
        "16KiB",
        "--algo",
        "star",
    )
    assert r.code == 0 and "star" in r.out
    bad = cli("collective", "all_gather", "--algo", "star")
    assert bad.code == 2 and len(bad.err.strip().splitlines()) == 1


@pytest.mark.parametrize("hw_id", ["h100-sxm", "mi300x", "tpu-v5p", "epyc-9654", "gb200-nvl72"])
@pytest.mark.parametrize("op", ["all_reduce", "all_gather", "reduce_scatter", "all_to_all", "send_recv"])
def test_auto_time_is_the_collective_commands_time(hw_id: str, op: str) -> None:
    """The arrays-of-plans path (``auto_time``, training and searches) and ``llmcost collective``'s
    (``collective``: the fastest algorithm and protocol, named) give the same bits."""
    from llmcost.collectives.cost import auto_time, collective

    hw = get_hardware(hw_id)
    sizes = np.array([4.0, 1e3, 3e5, 7e7, 2e10])
    for gpus, gpn in ((2, None), (8, None), (64, None), (64, 4)):
        if op == "send_recv" and gpus != 2:
            continue
        try:
            want = collective(hw, op, sizes, gpus, gpn).time
        except (PlanError, UserError):
            continue
        assert np.array_equal(auto_time(hw, op, sizes, gpus, gpn), want)
        assert auto_time(hw, op, 5e6, gpus, gpn) == collective(hw, op, 5e6, gpus, gpn).time
