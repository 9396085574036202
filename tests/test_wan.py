"""WAN sites (a ``wan`` fabric tier, ``--wan SITE,BANDWIDTH,LATENCY``) and Streaming DiLoCo (plan
``sync_fragments`` / ``sync_overlap``): a job inside one site costs what it costs without the WAN,
data parallelism across sites crosses it (every step, or once per H steps with DiLoCo), and a
fragment's all-reduce overlapped with enough inner steps is hidden."""

from __future__ import annotations

import json

import pytest

import llmcost
from llmcost.catalog import get_hardware
from llmcost.collectives.cost import collective, placement
from llmcost.errors import PlanError, UserError
from llmcost.hardware import parse_wan

BASE = dict(gpus=64, tp=8, global_batch=256, seq_len=4096)
WAN = "8,10 Gbit/s,40 ms"


def test_with_wan_makes_the_site_the_tier_below_the_wan() -> None:
    h100 = get_hardware("h100-sxm")
    node_site = h100.with_wan(*parse_wan(WAN))
    assert [t.key for t in node_site.fabric] == ["scale_up", "wan"] and node_site.wan_site() == 8
    wan = node_site.tier("wan")
    assert wan.devices is None and wan.topology == "wan" and wan.efficiency == 1.0
    assert wan.bandwidth == pytest.approx(1.25e9 / 8) and wan.latency == pytest.approx(0.04)
    big = h100.with_wan(64, 1.25e9, 0.04)
    assert [(t.key, t.devices) for t in big.fabric] == [("scale_up", 8), ("scale_out", 64), ("wan", None)]
    assert big.wan_site() == 64 and h100.wan_site() is None
    for site in (4, 12):
        with pytest.raises(UserError, match="must hold whole 'scale_up' domains"):
            h100.with_wan(site, 1e9, 0.01)


@pytest.mark.parametrize(
    "text", ["8,10 Gbit/s", "x,10 Gbit/s,40 ms", "8,0 Gbit/s,40 ms", "8,10 Gbit/s,-1 ms"]
)
def test_bad_wan_is_one_line(text: str) -> None:
    with pytest.raises(UserError, match="--wan"):
        parse_wan(text)


def test_a_wan_level_is_priced_as_is_not_by_nccl() -> None:
    """A WAN level keeps its catalog latency (no NCCL hwLat scaling), the Simple protocol, and auto
    chooses among every algorithm (the job's own code): a small all-reduce over 8 sites costs at least
    two one-way latencies and at most the ring's 2(p-1)."""
    hw = get_hardware("h100-sxm").with_wan(*parse_wan(WAN))
    (level,) = placement(hw, 8, 1)
    assert level.wan and level.link is None
    r = collective(hw, "all_reduce", 1024, 8, 1)
    assert r.protocol == "simple"
    assert 2 * 0.04 <= r.time <= 2 * 7 * 0.04 + 1e-3


def test_strided_group_places_one_replica_per_site() -> None:
    """Replicas of 16 devices (two nodes) in sites of 16: their data-parallel group has one rank per
    site, so it spans the WAN alone (the stride, not the ranks per node, sets a site's share)."""
    hw = get_hardware("h100-sxm").with_wan(16, 2.5e9, 0.04)
    assert [lv.tier.key for lv in placement(hw, 4, 1, stride=16)] == ["wan"]
    assert [lv.tier.key for lv in placement(hw, 4, 1)] == ["scale_out", "wan"]


def test_a_job_inside_one_site_costs_the_same_bits() -> None:
    plain = llmcost.train("llama-3-8b", "h100-sxm", **BASE).as_dict()
    inside = llmcost.train("llama-3-8b", "h100-sxm", wan="64,10 Gbit/s,40 ms", **BASE).as_dict()
    plain.pop("network"), inside.pop("network")  # the site's fabric is billed as a site, not a fat tree
    assert inside == plain


def test_diloco_cuts_the_wan_traffic_by_h_at_equal_tokens() -> None:
    """Over a WAN the exposed data-parallel time of ordinary data parallelism is its gradient
    all-reduce every step; DiLoCo's is the outer all-reduce over H: at equal element widths the
    ratio is H (the DiLoCo paper's headline), here within 1% (latency terms aside)."""
    for h in (100, 500):
        r = llmcost.train("llama-3-8b", "h100-sxm", wan=WAN, sync_interval=h, **BASE)
        dp = r.result.ordinary_dp
        assert dp is not None and dp["iteration_time_s"] > r.result.step_time
        assert dp["dp_comm_s"] / r.result.breakdown["dp_comm"] == pytest.approx(h, rel=0.01)
        d = r.as_dict()
        assert d["ordinary_dp"] == dp and d["dp_comm_reduction"] == h
        assert any(n.startswith("WAN: 8 sites of 8 GPUs") for n in r.result.notes)


def test_replicas_must_sit_whole_in_a_site() -> None:
    with pytest.raises(PlanError, match="whole model replicas sit in a site"):
        llmcost.train("llama-3-8b", "h100-sxm", wan=WAN, gpus=64, tp=8, pp=2, global_batch=256)
    with pytest.raises(PlanError, match="do not fill whole WAN sites"):
        llmcost.train("llama-3-8b", "h100-sxm", wan="16,10 Gbit/s,40 ms", gpus=24, tp=8, global_batch=24)


def test_streaming_diloco_hides_the_fragments_it_overlaps() -> None:
    keys = dict(BASE, sync_interval=100, sync_bytes=0.5)
    plain = llmcost.train("llama-3-8b", "h100-sxm", wan=WAN, **keys).result
    frag = llmcost.train("llama-3-8b", "h100-sxm", wan=WAN, sync_fragments=4, **keys).result
    # four blocking fragments move what one sync moves, each paying its own latency
    assert plain.breakdown["dp_comm"] < frag.breakdown["dp_comm"] < 1.2 * plain.breakdown["dp_comm"]
    assert plain.values["t_outer"] / 4 < frag.values["t_frag"] < plain.values["t_outer"] / 4 * 1.2
    prev = frag.step_time
    for tau in (1, 2, 25):
        r = llmcost.train(
            "llama-3-8b", "h100-sxm", wan=WAN, sync_fragments=4, sync_overlap=tau, **keys
        ).result
        assert r.step_time <= prev
        prev = r.step_time
    v = r.values
    assert v["t_frag"] < 25 * v["t_inner"] and r.breakdown["dp_comm"] == 0.0
    assert r.step_time == pytest.approx(v["t_inner"])


def test_streaming_keys_are_checked() -> None:
    with pytest.raises(PlanError, match="need sync_interval > 1"):
        llmcost.train("llama-3-8b", "h100-sxm", sync_fragments=2, **BASE)
    with pytest.raises(PlanError, match="at most sync_interval"):
        llmcost.train("llama-3-8b", "h100-sxm", sync_interval=10, sync_fragments=4, sync_overlap=3, **BASE)
    with pytest.raises(PlanError, match="whole layers"):
        llmcost.train("llama-3-8b", "h100-sxm", sync_interval=100, sync_fragments=64, **BASE)
    with pytest.raises(PlanError, match="sync_overlap must be an integer"):
        llmcost.train("llama-3-8b", "h100-sxm", sync_interval=10, sync_overlap=-1, **BASE)


def test_search_over_a_wan_recosts_bit_for_bit() -> None:
    rep = llmcost.search_train(
        "llama-3-8b",
        "h100-sxm",
        gpus=64,
        global_batch=256,
        seq_len=4096,
        sync_interval=100,
        sync_fragments=4,
        sync_overlap=1,
        wan=WAN,
        top=5,
    ).as_dict()
    assert rep["plans"]
    for row in rep["plans"]:
        plan = row["plan"]
        assert 8 % (plan["tp"] * plan["pp"]) == 0 and plan["sync_fragments"] == 4
        again = llmcost.train("llama-3-8b", "h100-sxm", plan, wan=WAN).as_dict()
        assert again["iteration_time_s"] == row["metrics"]["iteration_time_s"]


def test_cli_wan_and_its_bad_input(cli) -> None:  # noqa: ANN001
    args = ("train", "llama-3-8b", "--gpus", "64", "--tp", "8", "--global-batch", "256")
    r = cli(*args, "--sync-interval", "100", "--wan", WAN, "--format", "json")
    assert r.code == 0, r.err
    out = json.loads(r.out)
    assert out["ordinary_dp"]["iteration_time_s"] > out["iteration_time_s"]
    bad = cli(*args, "--wan", "8,10 Gbit/s")
    assert bad.code == 2 and bad.err.startswith("error: --wan") and bad.err.count("\n") == 1, bad.err


SLOW = {"fabric": {"scale_out": {"slow_nics": {"after": 32, "bandwidth": "100 Gbit/s", "source": "test"}}}}


def test_slow_nics_pace_the_data_parallel_ring_only() -> None:
    """Part of the nodes on a 4x slower NIC (Holmes' mixed InfiniBand / RoCE jobs): a job within
    the fast nodes costs the same bits; a larger one moves its data-parallel collective at the slow
    NIC (4x the bandwidth term) while every other part of the step stays."""
    h100 = get_hardware("h100-sxm")
    mixed = h100.with_overrides(SLOW)
    keys = dict(tp=8, global_batch=256, overlap_dp=False)
    for gpus in (16, 32):
        assert llmcost.train("llama-3-8b", mixed, gpus=gpus, **keys).as_dict() == (
            llmcost.train("llama-3-8b", h100, gpus=gpus, **keys).as_dict()
        )
    fast = llmcost.train("llama-3-8b", h100, gpus=64, **keys).result
    slow = llmcost.train("llama-3-8b", mixed, gpus=64, **keys).result
    assert slow.breakdown["dp_comm"] == pytest.approx(4 * fast.breakdown["dp_comm"], rel=0.05)
    for k, v in fast.breakdown.items():
        if k != "dp_comm":
            assert slow.breakdown[k] == v, k


@pytest.mark.parametrize(
    "bad",
    [
        {"after": 32, "bandwidth": "100 Gbit/s"},
        {"after": 0, "bandwidth": "100 Gbit/s", "source": "x"},
        {"after": 32, "bandwidth": "100 Gbit/s", "source": "x", "efficiency": 2},
        {"after": 32, "bandwidth": "100 Gbit/s", "source": "x", "nics": 2},
    ],
)
def test_bad_slow_nics_is_one_line(bad: dict) -> None:
    with pytest.raises(UserError, match="slow_nics"):
        get_hardware("h100-sxm").with_overrides({"fabric": {"scale_out": {"slow_nics": bad}}})
