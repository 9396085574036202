"""Network design: the bill of materials per topology, rail-only collectives, --network on train /
search train, and the network validation metrics."""

from __future__ import annotations

import json

import pytest

from llmcost.catalog import get_hardware
from llmcost.collectives.cost import collective
from llmcost.economics import _generated as E
from llmcost.economics.network import bill, cost_ratio, tiers
from llmcost.errors import CatalogError, UserError
from llmcost.hardware import hardware_from_dict


@pytest.mark.parametrize(
    ("endpoints", "radix", "expected"),
    [
        (64, 64, 1),
        (65, 64, 2),
        (2048, 64, 2),
        (2049, 64, 3),
        (65536, 64, 3),
        (65537, 64, 4),
        (800, 40, 2),
        (801, 40, 3),
    ],
)
def test_tiers_are_the_fewest_that_fit(endpoints: int, radix: int, expected: int) -> None:
    """E <= 2(k/2)^t: one switch k ports, two tiers k²/2, three k³/4 (Al-Fares et al. 2008)."""
    assert tiers(endpoints, radix) == expected


def test_clos_counts_match_published_tables() -> None:
    """k-ary fat tree: 5k²/4 switches for k³/4 hosts (Al-Fares 2008); DeepSeek ISCA 2025 (arXiv 2505.09343) topology table: FT2
    2,048 endpoints 96 switches, FT3 65,536 endpoints 5,120 switches, MPFT (8 planes of FT2) 768."""
    assert E.network__clos_switches(net_endpoints=65536, net_radix=64, net_tiers=3) == 5120
    assert E.network__clos_switches(net_endpoints=2048, net_radix=64, net_tiers=2) == 96
    assert E.network__rail_switches(net_endpoints=16384, net_radix=64, net_rails=8, net_tiers=2) == 768
    assert E.network__links(net_endpoints=65536, net_tiers=3) == 3 * 65536


def test_bill_reproduces_the_price_sheet_it_is_sourced_from() -> None:
    """The ndr-400g prices come from E. Cheah's 2024 sheet: its 1,024- and 32,768-GPU rows (switches
    $1,728,000 and $92,160,000; connectors and cables $2,621,440 and $124,518,400) come back."""
    hw = get_hardware("h100-sxm")
    for gpus, total in ((1024, 1_728_000 + 2_621_440), (32768, 92_160_000 + 124_518_400)):
        b = bill(hw, gpus, "fat_tree")
        assert b is not None and b.cost_usd == pytest.approx(total)


def test_rail_only_drops_a_tier_and_cuts_cost() -> None:
    """With 8-GPU domains and 64-port switches a rail-only network needs two tiers up to 16,384 GPUs
    where a fat tree needs three past 2,048: 0.642 of the cost; a rail-optimized fat tree bills as a
    fat tree."""
    hw = get_hardware("dgx-h100-superpod")
    ft, ro = bill(hw, 16384, "fat_tree"), bill(hw, 16384, "rail_only")
    assert ft is not None and ro is not None
    assert (ft.tiers, ro.tiers, ro.rails, ro.switches) == (3, 2, 8, 768)
    assert ro.transceivers == 2 * ro.cables == 4 * 16384
    assert cost_ratio(hw, 16384, "rail_only") == pytest.approx(0.6423, abs=1e-4)
    assert bill(hw, 16384, "rail_fat_tree").cost_usd == ft.cost_usd  # type: ignore[union-attr]
    for n in (512, 4096, 8192, 16384, 32768):
        a, b = bill(hw, n, "fat_tree"), bill(hw, n, "rail_only")
        assert b.tiers <= a.tiers and b.cost_usd <= a.cost_usd  # type: ignore[union-attr,operator]


def test_larger_scale_up_domains_cut_more() -> None:
    """72-GPU NVLink domains make rails of few ports: one switch per rail at 4,608 GPUs."""
    hw = get_hardware("gb200-nvl72")
    b = bill(hw, 4608, "rail_only")
    assert b is not None and (b.rails, b.tiers, b.switches) == (72, 1, 72)
    assert cost_ratio(hw, 4608, "rail_only") < 0.3


def test_bill_share_of_price_and_none_cases() -> None:
    hw = get_hardware("h100-sxm")
    b = bill(hw, 4096, price_h=hw.price_per_hour)
    assert b is not None and b.usd_per_device_hour == pytest.approx(b.cost_usd / (4096 * 6 * 8760))  # type: ignore[operator]
    assert b.share_of_price == pytest.approx(b.usd_per_device_hour / hw.price_per_hour)  # type: ignore[operator]
    assert bill(hw, 8) is None  # one NVLink domain: no scale-out network


def test_fire_flyer_one_nic_per_node() -> None:
    """Fire-Flyer 2: one 200 Gb/s NIC per 8 GPUs, 40-port HDR switches, no public prices."""
    hw = get_hardware("fire-flyer-2")
    b = bill(hw, 1024)
    assert b is not None
    assert (b.endpoints, b.link_rate_gbps, b.parts, b.radix, b.rails) == (128, 200.0, "hdr-200g", 40, 1)
    assert b.cost_usd is None
    assert bill(hw, 1024, "rail_only").switches == b.switches  # type: ignore[union-attr]  # one NIC: one rail


def test_rail_only_collectives() -> None:
    """Rings, trees and hierarchical all-to-all cost as on a fat tree; flat all-to-alls forward the
    bytes for another local index through NVLink (never faster); one rank per node shares a rail."""
    hw = get_hardware("h100-sxm")
    ro = hw.with_network("rail_only")
    for op, algo in (("all_reduce", "auto"), ("all_gather", "ring"), ("all_to_all", "hierarchical")):
        assert (
            collective(ro, op, 1e8, 64, 8, algo=algo).time == collective(hw, op, 1e8, 64, 8, algo=algo).time
        )
    for algo in ("direct", "pairwise", "deepep_low_latency"):
        assert (
            collective(ro, "all_to_all", 1e8, 64, 8, algo=algo).time
            > collective(hw, "all_to_all", 1e8, 64, 8, algo=algo).time
        )
        assert (
            collective(ro, "all_to_all", 1e8, 64, 1, algo=algo).time
            == collective(hw, "all_to_all", 1e8, 64, 1, algo=algo).time
        )
    slow = (
        collective(ro, "all_to_all", 1e8, 64, 8, algo="direct").time
        / collective(hw, "all_to_all", 1e8, 64, 8, algo="direct").time
    )
    assert slow < 1.01  # NVLink at 9x the NIC hides the forward


def test_with_network_and_catalog_checks() -> None:
    hw = get_hardware("dgx-h100-superpod")
    assert [t.topology for t in hw.with_network("rail_only").network_tiers()] == ["rail_only", "rail_only"]
    assert hw.with_network(None) is hw
    with pytest.raises(UserError, match="use one of fat_tree, rail_fat_tree, rail_only"):
        hw.with_network("dragonfly")
    raw = {**get_hardware("h100-sxm").raw}
    raw["fabric"] = {**raw["fabric"], "scale_up": {**raw["fabric"]["scale_up"], "topology": "rail_only"}}
    with pytest.raises(CatalogError, match="rail_only"):
        hardware_from_dict(raw, where="test")
    raw = {**get_hardware("h100-sxm").raw, "network": {"nics_per_node": 0}}
    with pytest.raises(CatalogError, match="nics_per_node"):
        hardware_from_dict(raw, where="test")


def test_train_reports_the_network(cli) -> None:  # noqa: ANN001
    res = cli(
        "train", "llama-3.1-70b", "--hw", "dgx-h100-superpod", "--gpus", "4096", "--tp", "8", "--pp", "4",
        "--network", "rail_only", "-f", "json",
    )  # fmt: skip
    assert res.code == 0, res.err
    out = json.loads(res.out)
    net = out["network"]
    assert net["topology"] == "rail_only" and net["switches"] == 192
    assert net["network_cost_ratio"] == pytest.approx(0.6423, abs=1e-4)
    assert net["network_step_time_ratio"] == 1.0  # dense: TP in NVLink, DP / PP on one rail
    assert out["plan"]["network"] == "rail_only"


def test_bad_network_is_one_line(cli) -> None:  # noqa: ANN001
    res = cli("train", "llama-3.1-8b", "--hw", "h100-sxm", "--gpus", "16", "--network", "torus")
    assert res.code == 2 and "Traceback" not in res.err
    assert "network 'torus': use one of fat_tree, rail_fat_tree, rail_only" in res.err
    assert len(res.err.strip().splitlines()) == 1


def test_search_train_carries_the_bill() -> None:
    from llmcost import api

    rep = api.search_train(
        "llama-3.1-8b", "h100-sxm", gpus=4096, tp=8, pp=1, global_batch=4096, top=1, network="rail_only"
    )
    doc = rep.as_dict()
    assert [b["topology"] for b in doc["network"]] == ["rail_only"]
    assert doc["network"][0]["devices"] == 4096


def test_network_cases_meet_their_tolerance() -> None:
    """validation/network.yaml: DeepSeek's multi-plane fat tree (0.585 of a three-layer tree's cost
    per endpoint) and the rail-only paper's equal step time for a dense plan."""
    from llmcost.validation.cases import load_cases, run_case, shipped_files

    cases = [c for c in load_cases(shipped_files()) if c["kind"] == "network"]
    results = {r.id: r for r in map(run_case, cases)}
    assert results["deepseek-mpft-vs-ft3-16k-network-cost"].predicted == pytest.approx(0.6423, abs=1e-4)
    assert results["railonly-dense-step-time-gpt3-175b-1536"].predicted == 1.0
    assert all(abs(r.error) <= r.tolerance for r in results.values())  # type: ignore[arg-type,operator]


def test_network_case_refuses_other_metrics() -> None:
    from llmcost.validation.network import evaluate_case

    case = {"id": "x", "kind": "network", "model": "llama-3.1-8b", "cluster": {"gpus": 64}, "plan": {}}
    pred = evaluate_case({**case, "metric": {"name": "mfu", "value": 0.5}}, get_hardware("h100-sxm"))
    assert pred.value is None and "not a network metric" in (pred.reason or "")
