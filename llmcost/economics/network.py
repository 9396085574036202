"""The scale-out network's bill of materials (runtime: no sympy): switches, NICs, transceivers and
cables of a full-bisection fat tree, the same wired rail by rail, or a rail-only network, and their
capital cost, through the generated ``network__*`` formulas of :mod:`llmcost.economics.formulas`.

A bill is a pure function of the topology, the NIC ports ``E`` (devices x NICs per device), the rails
(NICs of one scale-up domain), the switch radix and the part set's prices
(``hardware/network/parts.yaml``; docs/CATALOG.md "Network bill of materials"). Only switched
networks are billed: a torus or mesh is a scale-up fabric, priced with its system. A rail-optimized
fat tree has the switches and links of a fat tree (only the leaf wiring differs), so both bill alike.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from functools import cache
from typing import Any

from llmcost.economics import _generated as E
from llmcost.errors import CatalogError, UserError
from llmcost.hardware import NETWORK_TOPOLOGIES, Hardware

LIFE_YEARS = 6.0
"""Years the network's capital cost is spread over: Microsoft extended the useful life of its server
and network equipment from four to six years in fiscal 2023 (10-Q, quarter ended 2022-12-31); Amazon
depreciates networking equipment over six years since 2022 (2022 10-K)."""
MAX_TIERS = 6
"""Most switch tiers a bill builds before refusing (a guard, not a figure: three tiers of 64-port
switches already join 65,536 ports; Al-Fares et al. 2008)."""


@dataclass(frozen=True)
class NetworkBill:
    """What a scale-out network of ``topology`` for ``devices`` devices is made of and costs (USD; None
    where the part set has no price)."""

    topology: str
    devices: int
    endpoints: int
    rails: int
    tiers: int
    radix: int
    link_rate_gbps: float
    switches: int
    nics: int
    transceivers: int
    cables: int
    parts: str
    cost_usd: float | None
    switches_usd: float | None
    links_usd: float | None
    usd_per_device_hour: float | None = None
    share_of_price: float | None = None
    life_years: float = LIFE_YEARS

    def as_dict(self) -> dict[str, Any]:
        """The bill as plain numbers (``--format json``)."""
        return asdict(self)


@cache
def part_sets() -> dict[str, dict[str, Any]]:
    """The shipped part sets (``hardware/network/parts.yaml``), by id."""
    from llmcost.catalog import shipped_root
    from llmcost.files import read_file

    path = shipped_root() / "hardware" / "network" / "parts.yaml"
    data = read_file(path)
    if not isinstance(data, dict):
        raise CatalogError(f"{path}: expected a mapping of part-set ids")
    return data


def tiers(endpoints: int, radix: int) -> int:
    """Switch tiers a full-bisection folded Clos of radix-``k`` switches needs for ``E`` ports: the
    fewest ``t`` with ``E <= 2·(k/2)^t`` (one switch: k ports; two tiers: k²/2; three: k³/4; Al-Fares
    et al., SIGCOMM 2008), in integers."""
    t, cap = 1, radix
    while endpoints > cap:
        t, cap = t + 1, cap * (radix // 2)
        if t > MAX_TIERS:
            raise UserError(
                f"{endpoints} network ports need more than {MAX_TIERS} tiers of {radix}-port switches"
            )
    return t


def _rate_gbps(hw: Hardware, nics_per_node: int) -> float:
    """Line rate of one NIC: the outermost network tier's per-device bandwidth x the devices per NIC."""
    tier = hw.network_tiers()[-1]
    return round(tier.bandwidth * 8 / 1e9 * max(hw.node_devices, 1) / nics_per_node, 3)


def _parts_for(hw: Hardware, rate: float) -> tuple[str, dict[str, Any]] | None:
    """The part set the entry names (``network.parts``), else the one of its NIC line rate."""
    sets = part_sets()
    named = (hw.raw.get("network") or {}).get("parts")
    if named is not None:
        if named not in sets:
            raise CatalogError(
                f"{hw.where}: key 'network.parts': '{named}' is not a part set ({', '.join(sets)})"
            )
        return named, sets[named]
    from llmcost.units import parse

    for pid, ps in sets.items():
        if abs(parse(ps["link_rate"], "bandwidth") * 8 / 1e9 - rate) <= 0.01 * rate:
            return pid, ps
    return None


def _usd(ps: dict[str, Any], key: str) -> float | None:
    v = (ps.get(key) or {}).get("usd")
    return None if v is None else float(v)


def hb_domain(hw: Hardware) -> int:
    """Devices of the largest tier below the scale-out network (the scale-up / high-bandwidth domain
    whose NICs are the rails)."""
    net = {t.key for t in hw.network_tiers()}
    inner = [t.devices for t in hw.fabric if t.key not in net and t.devices]
    return max(inner, default=max(hw.node_devices, 1))


def bill(
    hw: Hardware, devices: int, topology: str | None = None, price_h: float | None = None
) -> NetworkBill | None:
    """The bill of ``hw``'s scale-out network for ``devices`` devices, of ``topology`` (default: the
    outermost network tier's). None where no network is needed (the devices fit one scale-up domain),
    the topology is not a switched network, or no part set matches the NIC rate. ``price_h`` (the
    device-hour price) adds the network's cost per device-hour and its share of that price."""
    tiers_ = hw.network_tiers()
    hb = hb_domain(hw)
    if not tiers_ or devices <= hb:
        return None
    topo = topology or tiers_[-1].topology
    if topo not in NETWORK_TOPOLOGIES:
        return None
    node = max(hw.node_devices, 1)
    nics_node = int((hw.raw.get("network") or {}).get("nics_per_node") or node)
    rate = _rate_gbps(hw, nics_node)
    found = _parts_for(hw, rate)
    if found is None:
        return None
    pid, ps = found
    radix = int(ps["switch"]["radix"])
    endpoints = math.ceil(devices * nics_node / node)
    rails = max(1, math.ceil(hb * nics_node / node)) if topo == "rail_only" else 1
    t = tiers(math.ceil(endpoints / rails), radix)
    if topo == "rail_only":
        switches = E.network__rail_switches(
            net_endpoints=endpoints, net_radix=radix, net_rails=rails, net_tiers=t
        )
    else:
        switches = E.network__clos_switches(net_endpoints=endpoints, net_radix=radix, net_tiers=t)
    links = int(E.network__links(net_endpoints=endpoints, net_tiers=t))
    prices = (_usd(ps, "switch"), _usd(ps, "host_link"), _usd(ps, "switch_link"))
    cost = sw_usd = None
    if None not in prices:
        cost = float(
            E.network__capex(
                net_endpoints=endpoints, net_switches=switches, net_tiers=t,
                usd_switch=prices[0], usd_host_link=prices[1], usd_switch_link=prices[2],
            )
        )  # fmt: skip
        sw_usd = float(switches) * prices[0]  # type: ignore[operator]
    per_h = share = None
    if cost is not None:
        per_h = float(
            E.network__usd_per_device_hour(life_years=LIFE_YEARS, net_devices=devices, usd_network=cost)
        )
        if price_h:
            share = float(
                E.network__share_of_price(
                    life_years=LIFE_YEARS, net_devices=devices, usd_hour=price_h, usd_network=cost
                )
            )
    return NetworkBill(
        topology=topo,
        devices=devices,
        endpoints=endpoints,
        rails=rails,
        tiers=t,
        radix=radix,
        link_rate_gbps=rate,
        switches=int(switches),
        nics=endpoints,
        transceivers=2 * links,
        cables=links,
        parts=pid,
        cost_usd=cost,
        switches_usd=sw_usd,
        links_usd=None if cost is None or sw_usd is None else cost - sw_usd,
        usd_per_device_hour=per_h,
        share_of_price=share,
    )


def cost_ratio(hw: Hardware, devices: int, topology: str, versus: str = "fat_tree") -> float | None:
    """Network cost of ``topology`` over that of ``versus`` for the same devices (None without prices)."""
    a, b = bill(hw, devices, topology), bill(hw, devices, versus)
    if a is None or b is None or a.cost_usd is None or not b.cost_usd:
        return None
    return a.cost_usd / b.cost_usd
