"""Hardware entries: a catalog YAML mapping checked and turned into SI numbers.

The file format is documented in docs/CATALOG.md. :func:`hardware_from_dict` is the one
place a hardware mapping is validated; every error names the file, the key and what was
expected. Unit strings are parsed by :mod:`llmcost.units`.
"""

from __future__ import annotations

import copy
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from llmcost.errors import CatalogError, UserError
from llmcost.units import parse

DTYPES = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4", "int4")
ATTENTION_FAMILIES = ("flash1", "flash2", "flash3", "cudnn")
"""Fused-attention kernel families a catalog entry may give a figure for (``efficiency.attention_<family>``)."""
FA1_SHARE_OF_FA2 = 0.53
"""FlashAttention-1's rate as a share of FlashAttention-2's on the same device: the ratio of the
midpoints of the FA2 abstract's A100 utilization ranges, FA1 "25-40%" and FA2 "50-73%" of the
theoretical maximum, 0.325 / 0.615 (Dao 2023, arXiv 2307.08691), to two places."""

FAMILY_FALLBACK: dict[str, tuple[tuple[str, float], ...]] = {
    "flash1": (("flash1", 1.0), ("flash2", FA1_SHARE_OF_FA2)),
    "flash2": (("flash2", 1.0),),
    "flash3": (("flash3", 1.0),),
    "cudnn": (("cudnn", 1.0),),
}
"""Which figure a family reads when the entry lacks its own, and at what share of it:
FlashAttention-1 (and Triton kernels of its design) reads :data:`FA1_SHARE_OF_FA2` of FlashAttention-2's
figure on the same device ("around 2x speedup compared to FlashAttention", Dao 2023, arXiv
2307.08691). FA2's gain is work partitioning and
fewer non-matmul FLOPs, not new instructions (neither uses Hopper's WGMMA / TMA), so the ratio carries
to Hopper, where FA2 alone is measured. The others read only their own, else ``attention``."""
DEVICE_TYPES = ("gpu", "tpu", "npu", "rdu", "lpu", "cpu", "system")
TOPOLOGIES = ("switch", "mesh", "torus", "ring", "fat_tree", "rail_fat_tree", "rail_only", "wan")
"""Fabric tier topologies; ``wan``: a wide-area link between sites (each site's uplink;
:attr:`Hardware.wan_site`)."""
NETWORK_TOPOLOGIES = ("fat_tree", "rail_fat_tree", "rail_only")
"""Topologies of a scale-out network tier (NICs and switches), also the values of ``--network`` / plan
key ``network`` (:meth:`Hardware.with_network`): a full-bisection fat tree, the same wired rail by rail
(NIC i of every node on leaf i, NVIDIA DGX SuperPOD), and ``rail_only``: rails with no spine between
them (Wang et al., "Rail-only", arXiv 2307.12169), so traffic between different local indices is
forwarded inside the scale-up domain first (:mod:`llmcost.collectives.formulas`)."""
CONFIDENCE = ("high", "medium", "low")


@dataclass(frozen=True)
class FabricTier:
    """One level of the interconnect (scale-up domain, scale-out network, ...).

    ``bandwidth`` is per device and one direction, in bytes/s; ``latency`` is the alpha
    term (seconds per message or per algorithm step) at this tier.
    """

    key: str
    name: str
    devices: int | None
    bandwidth: float
    latency: float
    topology: str
    in_network_reduction: bool
    links: int | None
    link_bandwidth: float | None
    torus_dims: int | None
    efficiency: float
    efficiency_source: str
    slow_nics: SlowNics | None = None
    """Heterogeneous NICs at this tier (catalog ``slow_nics``): devices past the first ``after`` of a
    job sit on a slower NIC (:meth:`Hardware.slow_nic_view`)."""


@dataclass(frozen=True)
class SlowNics:
    """``fabric.<tier>.slow_nics: {after, bandwidth, latency?, efficiency?, name?, source}``: a job's
    devices past the first ``after`` reach the tier through a slower NIC (e.g. RoCE or TCP Ethernet
    beside InfiniBand, Holmes, arXiv 2312.03549): ``bandwidth`` per device one way, its own
    ``latency`` and ``efficiency`` (default: the tier's)."""

    after: int
    bandwidth: float
    latency: float | None
    efficiency: float | None


@dataclass(frozen=True)
class GemmShape:
    """A device's GEMM shape figures (catalog ``gemm``; :mod:`llmcost.kernels.gemm`): ``units``
    (SMs / CUs that each run one output tile at a time), the output tile ``tile_m x tile_n`` of its
    large-GEMM kernels, ``k0`` (a tile's fixed cost in reduction elements) and ``flops_per_exp``
    (dense 16-bit tensor FLOPs per exponential, per SM and clock: :mod:`llmcost.kernels.attention`),
    ``collective_sms`` (SMs an NCCL collective holds while it runs: :func:`llmcost.training.base.comm_share`)
    and ``attention_s0`` (a fused attention kernel's fixed cost per query block in keys, forward and
    backward: :func:`llmcost.kernels.attention.length_factor`)."""

    units: int
    tiles: tuple[tuple[int, int], ...]
    k0: float
    flops_per_exp: float | None = None
    collective_sms: int | None = None
    attention_s0: tuple[float, float] | None = None


@dataclass(frozen=True)
class Hardware:
    """A device (or a system built from one) with every figure in SI units."""

    id: str
    name: str
    vendor: str
    type: str
    peak: dict[str, float]
    memory_capacity: float
    memory_usable: float
    memory_bandwidth: float
    fabric: tuple[FabricTier, ...]
    node_devices: int
    tdp: float
    price_per_hour: float | None
    compute_efficiency: float
    memory_efficiency: float
    raw: dict[str, Any] = field(repr=False, compare=False)
    where: str = field(default="", repr=False, compare=False)
    compute_efficiency_by_dtype: dict[str, float] = field(default_factory=dict, compare=False)
    """``efficiency.compute_<dtype>`` (e.g. ``compute_fp8``): GEMMs in that datatype; others use ``compute``."""
    attention_efficiency_value: float | None = field(default=None, compare=False)
    """``efficiency.attention``: fused attention kernels (FlashAttention-class); None = the GEMM figure."""
    train_efficiency_value: float | None = field(default=None, compare=False)
    """``efficiency.compute_train``: 16-bit GEMMs sustained in a training step; None = ``compute``."""
    train_efficiency_by_dtype: dict[str, float] = field(default_factory=dict, compare=False)
    """``efficiency.compute_train_<dtype>`` (e.g. ``compute_train_fp8``): that datatype's training GEMMs."""
    expert_memory_efficiency_value: float | None = field(default=None, compare=False)
    """``efficiency.memory_experts``: the weight stream of the routed experts' grouped GEMMs at serving
    token counts; None = ``memory``."""
    gemm_shape: GemmShape | None = field(default=None, compare=False)
    throttle: dict[str, float] = field(default_factory=dict, compare=False)
    """``throttle: {compute_w, memory_w, wait_w, exponent}``: draws at the maximum SM clock (compute-bound
    kernels may draw above ``tdp``) and the exponent of the compute rate in the step's overshoot of the
    limit (:func:`llmcost.economics.power.sustained_rate`); empty = compute runs at its figures whatever
    the step draws."""
    power: dict[str, float] = field(default_factory=dict, compare=False)
    """Measured draw (W) by kind of work, from ``power: {idle_w, memory_bound_w, compute_bound_w}``
    (each ``{value, source}``); a kind not given is drawn at ``tdp`` (the upper bound). ``static_w``:
    the draw under load that does not follow the SM clock (the power-cap model's ``P_s``)."""
    """``gemm``: what the GEMM shape efficiency reads (:mod:`llmcost.kernels.gemm`); None = every
    shape runs at the sustained rate."""
    attention_efficiency_by_family: dict[str, float] = field(default_factory=dict, compare=False)
    """``efficiency.attention_<family>`` (:data:`ATTENTION_FAMILIES`): what one fused-attention kernel
    family reaches on this device where it differs from ``attention`` (e.g. FlashAttention-2 on Hopper)."""
    attention_bwd_efficiency_value: float | None = field(default=None, compare=False)
    """``efficiency.attention_bwd``: the backward of the device's default fused-attention kernel where it
    is measured apart from ``attention``; None = ``attention`` for both passes (also under a family
    figure, :meth:`for_attention_family`)."""

    def gemm_efficiency(self, dtype: str | None = None) -> float:
        """Sustained fraction of the dense peak a large GEMM in ``dtype`` reaches: ``efficiency.compute_<dtype>``
        when the entry has it, else ``efficiency.compute`` (docs/CATALOG.md)."""
        if dtype is not None and dtype in self.compute_efficiency_by_dtype:
            return self.compute_efficiency_by_dtype[dtype]
        return self.compute_efficiency

    def train_gemm_efficiency(self, dtype: str | None = None) -> float:
        """Sustained fraction of the peak the GEMMs of a training step reach: ``efficiency.compute_train``
        for 16-bit GEMMs and ``efficiency.compute_train_<dtype>`` for others when the entry has them
        (figures fitted on training runs, docs/CATALOG.md), else :meth:`gemm_efficiency`."""
        if self.train_efficiency_value is not None and dtype in (None, "bf16", "fp16"):
            return self.train_efficiency_value
        if dtype is not None and dtype in self.train_efficiency_by_dtype:
            return self.train_efficiency_by_dtype[dtype]
        return self.gemm_efficiency(dtype)

    def node_share(self, ranks: Any) -> Any:
        """Devices of one node sharing its host memory, host link budget and NVMe among ``ranks`` per
        node (a number or an array): ``max(1, min(ranks, node devices))``."""
        import numpy as np

        out = np.maximum(1, np.minimum(ranks, self.node_devices or 1))
        return int(out) if np.ndim(out) == 0 else out

    def host_capacity(self, tier: str) -> float | None:
        """Bytes per node of an offload tier: ``host_memory.capacity`` (``cpu``) or
        ``host_memory.nvme_capacity`` (``nvme``); None where the catalog does not give it."""
        from llmcost.units import parse

        host = self.raw.get("host_memory") or {}
        v = host.get({"cpu": "capacity", "nvme": "nvme_capacity"}[tier])
        return None if not v else float(parse(v, "bytes", what=f"{self.id} host_memory"))

    def host_bandwidths(self, *, need_nvme: bool) -> tuple[float, float, float | None]:
        """(device-host link per device, host memory, node NVMe) bandwidths of ``host_memory``, the one
        reader of them; PlanError naming what is missing (NVMe only when ``need_nvme``). On unified
        memory (:attr:`unified_memory`) with no link figure, NVMe reads land in the device's own
        memory: the drive's read bandwidth is the link and the device memory the host memory."""
        from llmcost.errors import PlanError
        from llmcost.units import parse

        host = self.raw.get("host_memory") or {}
        if (
            need_nvme
            and self.unified_memory
            and host.get("nvme_bandwidth")
            and not host.get("link_bandwidth")
        ):
            # one memory for CPU and accelerator: storage reads land in it, the drive is the only link
            nvme = parse(host["nvme_bandwidth"], "bandwidth", what=f"{self.id} host_memory.nvme_bandwidth")
            return nvme, self.memory_bandwidth, nvme
        if not host.get("link_bandwidth") or not host.get("bandwidth"):
            raise PlanError(
                f"{self.id} has no host_memory link_bandwidth / bandwidth in the catalog; offload needs them"
            )
        link = parse(host["link_bandwidth"], "bandwidth", what=f"{self.id} host_memory.link_bandwidth")
        hbw = parse(host["bandwidth"], "bandwidth", what=f"{self.id} host_memory.bandwidth")
        nvme = None
        if need_nvme:
            if not host.get("nvme_bandwidth"):
                raise PlanError(
                    f"{self.id} has no host_memory.nvme_bandwidth in the catalog; NVMe offload needs it"
                )
            nvme = parse(host["nvme_bandwidth"], "bandwidth", what=f"{self.id} host_memory.nvme_bandwidth")
        return link, hbw, nvme

    @property
    def unified_memory(self) -> bool:
        """``memory.unified``: one memory shared by the CPU and the accelerator (Apple silicon, phone
        SoCs, CPUs themselves): weights streamed from storage land in it directly."""
        return bool((self.raw.get("memory") or {}).get("unified", False))

    def collective_sm_share(self) -> float:
        """Share of the SMs an overlapped collective holds: ``gemm.collective_sms`` over ``gemm.units``;
        0 where the entry does not say."""
        g = self.gemm_shape
        return 0.0 if g is None or g.collective_sms is None else self.sm_share(g.collective_sms)

    def sm_share(self, sms: float) -> float:
        """Share of the device's SMs (``gemm.units``) that ``sms`` of them are; 0 where the entry does
        not say how many it has."""
        g = self.gemm_shape
        return 0.0 if g is None or not g.units else min(1.0, sms / g.units)

    def expert_memory_efficiency(self) -> float:
        """Fraction of the peak bandwidth the routed experts' grouped GEMMs stream their weights at:
        ``efficiency.memory_experts`` when the entry has it, else ``efficiency.memory``."""
        v = self.expert_memory_efficiency_value
        return self.memory_efficiency if v is None else v

    def attention_efficiency(self, dtype: str | None = None) -> float:
        """Fraction of the peak a fused (FlashAttention-class) attention kernel reaches:
        ``efficiency.attention`` when the entry has it, else :meth:`gemm_efficiency` of ``dtype``."""
        if self.attention_efficiency_value is not None:
            return self.attention_efficiency_value
        return self.gemm_efficiency(dtype)

    def for_attention_family(self, family: str | None) -> Hardware:
        """This device as a stack running fused-attention ``family`` sees it: ``attention`` becomes
        ``attention_<family>`` (or the first family of its :data:`FAMILY_FALLBACK` chain the entry
        has, at that link's share); unchanged when the entry has none. The one place a stack's kernel choice meets the
        catalog."""
        for fam, share in FAMILY_FALLBACK.get(family or "", ()):
            if fam in self.attention_efficiency_by_family:
                value = self.attention_efficiency_by_family[fam] * share
                return replace(self, attention_efficiency_value=value, attention_bwd_efficiency_value=None)
        return self

    def with_overrides(self, overrides: dict[str, Any] | None) -> Hardware:
        """A copy with ``overrides`` deep-merged into the entry (same keys as the YAML)."""
        if not overrides:
            return self
        if not isinstance(overrides, dict):
            raise UserError(f"hardware overrides for '{self.id}' must be a mapping of catalog keys")
        over = normalize_overrides(overrides, self.id)
        merged = deep_merge(self.raw, over)
        mem = over.get("memory") or {}
        if "capacity" in mem and "usable" not in mem:  # a new capacity makes the old usable figure stale
            merged["memory"].pop("usable", None)
        return hardware_from_dict(merged, where=f"{self.where} (with overrides)")

    def assumed_efficiencies(self) -> list[str]:
        """Efficiency figures the catalog took from a sibling device rather than a measurement
        of this one (their source says "assumed"), for a low-confidence note in outputs."""
        eff = self.raw.get("efficiency") or {}
        return [
            k
            for k, v in eff.items()
            if isinstance(v, dict) and str(v.get("source", "")).lower().startswith("assumed")
        ]

    def assumed_note(self) -> str | None:
        """One line naming the efficiency figures assumed from a sibling device (None if none)."""
        keys = self.assumed_efficiencies()
        if not keys:
            return None
        return (
            f"{self.id}: efficiency figures assumed from a sibling device, not measured on it: "
            f"{', '.join(keys)} (llmcost hw show {self.id})"
        )

    def peak_flops(self, dtype: str) -> float:
        """Dense peak FLOP/s at ``dtype``; a clear error when the device lacks it."""
        if dtype not in self.peak:
            have = ", ".join(d for d in DTYPES if d in self.peak)
            raise UserError(f"{self.id} has no {dtype} compute; it supports {have}")
        return self.peak[dtype]

    def network_tiers(self) -> tuple[FabricTier, ...]:
        """The scale-out tiers: those of a network topology (:data:`NETWORK_TOPOLOGIES`) or unbounded."""
        return tuple(t for t in self.fabric if t.devices is None or t.topology in NETWORK_TOPOLOGIES)

    def with_network(self, topology: str | None) -> Hardware:
        """This device with every scale-out tier of ``topology`` (:data:`NETWORK_TOPOLOGIES`; None: as the
        catalog has it). UserError for another value or a device with no scale-out tier."""
        if topology is None:
            return self
        if topology not in NETWORK_TOPOLOGIES:
            from llmcost.errors import did_you_mean

            raise UserError(
                f"network '{topology}': use one of {', '.join(NETWORK_TOPOLOGIES)}{did_you_mean(str(topology), NETWORK_TOPOLOGIES)}"
            )
        tiers = self.network_tiers()
        if not tiers:
            raise UserError(f"{self.id} has no scale-out network tier to set the network topology of")
        if tiers[0] is self.fabric[0]:
            raise UserError(
                f"{self.id}: its innermost tier is the network; a network topology needs a scale-up tier below it"
            )
        if all(t.topology == topology for t in tiers):
            return self
        return self.with_overrides({"fabric": {t.key: {"topology": topology} for t in tiers}})

    def wan_site(self) -> int | None:
        """Devices per site where the fabric has a WAN tier (topology ``wan``): those of the tier just
        inside it (1 when it is the innermost); None without one."""
        for i, t in enumerate(self.fabric):
            if t.topology == "wan":
                return (self.fabric[i - 1].devices or 1) if i else 1
        return None

    def with_wan(self, site: int, bandwidth: float, latency: float) -> Hardware:
        """This entry with its devices in sites of ``site`` joined by a WAN tier (key ``wan``): each
        site's uplink carries ``bandwidth`` B/s one way, shared by its devices (the tier's per-device
        figure is ``bandwidth / site``), with a one-way ``latency`` s per step; the unbounded tier
        becomes the site (or goes, when the site is a domain of an inner tier). UserError when the
        site does not fill whole domains of the tiers inside it. :func:`wan_tier` builds the tier."""
        raw = copy.deepcopy(self.raw)
        fabric = {k: v for k, v in raw["fabric"].items() if v.get("topology") != "wan"}
        bounded = [t for t in self.fabric if t.devices is not None and t.topology != "wan"]
        too_big = [t for t in bounded if t.devices > site]
        inner = max((t.devices for t in bounded if t.devices <= site), default=1)
        if too_big or site % inner:
            raise UserError(
                f"--wan: a site of {site} devices must hold whole '{(too_big or bounded)[0].key}' domains of "
                f"{(too_big or bounded)[0].devices if too_big else inner} {self.id} devices"
            )
        for t in self.fabric:
            if t.devices is None and t.topology != "wan":
                if site > inner:
                    fabric[t.key] = {**fabric[t.key], "devices": site}
                else:
                    del fabric[t.key]
        if site > inner and not any(t.devices is None and t.topology != "wan" for t in self.fabric):
            raise UserError(f"--wan: {self.id} has no tier joining {inner} devices into a site of {site}")
        raw["fabric"] = {**fabric, "wan": wan_tier(site, bandwidth, latency)}
        raw["efficiency"] = {**raw.get("efficiency", {}), "wan": dict(WAN_EFFICIENCY)}
        return hardware_from_dict(raw, where=f"{self.where} (with a WAN between sites of {site})")

    def slow_nic_view(self) -> tuple[int, Hardware] | None:
        """(devices on the tier's own NIC, this entry with the slow NICs in their place) where a tier
        has ``slow_nics``; None without. A data-parallel collective of a job larger than ``after``
        has ranks on both NICs and a ring moves at its slowest link, so it is priced on the view."""
        hit = _SLOW_VIEWS.get(id(self))
        if hit is not None and hit[0]() is self:
            return hit[1]
        slow = [t for t in self.fabric if t.slow_nics is not None]
        out = None
        if slow:
            t, sn = slow[0], slow[0].slow_nics
            assert sn is not None
            tier: dict[str, Any] = {"bandwidth": f"{sn.bandwidth!r} B/s", "slow_nics": None}
            if sn.latency is not None:
                tier["latency"] = f"{sn.latency!r} s"
            eff = {
                "value": sn.efficiency if sn.efficiency is not None else t.efficiency,
                "source": "slow_nics",
            }
            view = self.with_overrides({"fabric": {t.key: tier}, "efficiency": {t.key: eff}})
            out = (sn.after, view)
        _SLOW_VIEWS[id(self)] = (weakref.ref(self), out)
        return out

    def tier(self, key: str) -> FabricTier:
        """The fabric tier named ``key``."""
        for t in self.fabric:
            if t.key == key:
                return t
        raise UserError(
            f"{self.id} has no fabric tier '{key}'; tiers: {', '.join(t.key for t in self.fabric)}"
        )


# Flat datasheet-style keys accepted in overrides (the validation case format uses them),
# mapped to the catalog key and the unit their number is in.
_FLAT_KEYS: dict[str, tuple[tuple[str, ...], str]] = {
    **{f"{d}_tflops": (("compute", d), "TFLOPS") for d in DTYPES},
    **{f"{d}_dense_tflops": (("compute", d), "TFLOPS") for d in DTYPES},
    **{f"{d}_tops": (("compute", d), "TOPS") for d in ("int8", "int4")},
    **{f"{d}_dense_tops": (("compute", d), "TOPS") for d in ("int8", "int4")},
    "hbm_capacity_gib": (("memory", "capacity"), "GiB"),
    "hbm_usable_gib": (("memory", "usable"), "GiB"),
    "hbm_bandwidth_tbps": (("memory", "bandwidth"), "TB/s"),
    "tdp_w": (("tdp",), "W"),
}
_ENTRY_KEYS = [
    "id",
    "name",
    "vendor",
    "type",
    "aliases",
    "architecture",
    "released",
    "compute",
    "compute_note",
    "memory",
    "cache",
    "fabric",
    "node",
    "pcie",
    "host_memory",
    "tdp",
    "power",
    "throttle",
    "price",
    "efficiency",
    "gemm",
    "network",
    "sources",
    "confidence",
    "notes",
    "based_on",
]


def normalize_overrides(overrides: dict[str, Any], hw_id: str) -> dict[str, Any]:
    """Turn flat datasheet keys (``bf16_tflops: 800``) into catalog keys; reject unknown keys."""
    out: dict[str, Any] = {}
    for key, value in overrides.items():
        if key in _FLAT_KEYS:
            path, unit = _FLAT_KEYS[key]
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise UserError(
                    f"hardware override '{key}' for {hw_id}: expected a number in {unit}, got {value!r}"
                )
            node = out
            for part in path[:-1]:
                node = node.setdefault(part, {})
            node[path[-1]] = f"{value} {unit}"
        elif key in _ENTRY_KEYS:
            out = deep_merge(out, {key: value})
        else:
            from llmcost.errors import did_you_mean

            raise UserError(
                f"hardware override '{key}' for {hw_id} is not a catalog key{did_you_mean(key, [*_ENTRY_KEYS, *_FLAT_KEYS])}"
            )
    return out


def deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """Mappings merge key by key (recursively); any other value in ``over`` replaces."""
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = deep_merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


class _Reader:
    """Typed access to a nested mapping with errors that name file and key."""

    def __init__(self, data: dict[str, Any], where: str) -> None:
        self.data = data
        self.where = where

    def fail(self, key: str, expected: str, got: object = None) -> CatalogError:
        tail = f", got {got!r}" if got is not None else ""
        return CatalogError(f"{self.where}: key '{key}': expected {expected}{tail}")

    def get(self, path: str, required: bool = True) -> Any:
        node: Any = self.data
        for part in path.split("."):
            if not isinstance(node, dict) or part not in node or node[part] is None:
                if required:
                    raise CatalogError(f"{self.where}: missing required key '{path}'")
                return None
            node = node[part]
        return node

    def text(self, path: str, required: bool = True) -> str | None:
        v = self.get(path, required)
        if v is None:
            return None
        if not isinstance(v, (str, int, float)) or isinstance(v, bool):
            raise self.fail(path, "text", v)
        return str(v)

    def quantity(self, path: str, dim: str, required: bool = True) -> float | None:
        v = self.get(path, required)
        if v is None:
            return None
        try:
            return parse(v, dim, what=f"{self.where}: key '{path}'")
        except UserError as e:
            raise CatalogError(str(e)) from None

    def integer(self, path: str, required: bool = True, minimum: int = 1) -> int | None:
        v = self.get(path, required)
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
            raise self.fail(path, f"an integer >= {minimum}", v)
        return v

    def fraction(self, path: str) -> float:
        v = self.get(path)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= 1:
            raise self.fail(path, "a fraction in (0, 1]", v)
        return float(v)

    def choice(self, path: str, choices: tuple[str, ...], required: bool = True) -> str | None:
        v = self.get(path, required)
        if v is None:
            return None
        if v not in choices:
            raise self.fail(path, "one of " + ", ".join(choices), v)
        return str(v)

    def boolean(self, path: str, default: bool = False) -> bool:
        v = self.get(path, required=False)
        if v is None:
            return default
        if not isinstance(v, bool):
            raise self.fail(path, "true or false", v)
        return v


def _efficiency(r: _Reader, key: str) -> tuple[float, str]:
    value = r.fraction(f"efficiency.{key}.value")
    source = r.text(f"efficiency.{key}.source")
    assert source is not None
    if not source.strip():
        raise r.fail(f"efficiency.{key}.source", "where the figure came from")
    return value, source


_SLOW_VIEWS: dict[int, tuple[Any, Any]] = {}
""":meth:`Hardware.slow_nic_view` by id of the entry, with a weak reference proving the id."""


def _slow_nics(r: _Reader, p: str, spec: dict[str, Any]) -> SlowNics | None:
    """``<tier>.slow_nics`` (docs/CATALOG.md), checked; None when absent."""
    sn = spec.get("slow_nics")
    if sn is None:
        return None
    q = f"{p}.slow_nics"
    if not isinstance(sn, dict) or set(sn) - {
        "after",
        "bandwidth",
        "latency",
        "efficiency",
        "name",
        "source",
    }:
        raise r.fail(q, "a mapping {after, bandwidth, latency, efficiency, name, source}", sn)
    bw = r.quantity(f"{q}.bandwidth", "bandwidth")
    if not r.text(f"{q}.source") or bw is None or bw <= 0:
        raise r.fail(q, "a positive bandwidth and the source of the figure", sn)
    eff = sn.get("efficiency")
    if eff is not None and (isinstance(eff, bool) or not isinstance(eff, (int, float)) or not 0 < eff <= 1):
        raise r.fail(f"{q}.efficiency", "a fraction in (0, 1]", eff)
    return SlowNics(
        after=r.integer(f"{q}.after") or 1,
        bandwidth=bw,
        latency=r.quantity(f"{q}.latency", "time", required=False),
        efficiency=None if eff is None else float(eff),
    )


def _tier(r: _Reader, key: str, spec: Any) -> FabricTier:
    p = f"fabric.{key}"
    if not isinstance(spec, dict):
        raise r.fail(p, "a mapping with name, devices, bandwidth, latency, topology", spec)
    eff, eff_src = _efficiency(r, key)
    devices = r.get(f"{p}.devices", required=False)
    if devices is not None:
        devices = r.integer(f"{p}.devices")
    bw = r.quantity(f"{p}.bandwidth", "bandwidth")
    assert bw is not None
    if bw <= 0:
        raise r.fail(f"{p}.bandwidth", "a positive bandwidth", spec.get("bandwidth"))
    return FabricTier(
        key=key,
        name=r.text(f"{p}.name") or key,
        devices=devices,
        bandwidth=bw,
        latency=r.quantity(f"{p}.latency", "time") or 0.0,
        topology=r.choice(f"{p}.topology", TOPOLOGIES) or "switch",
        in_network_reduction=r.boolean(f"{p}.in_network_reduction"),
        links=r.integer(f"{p}.links", required=False),
        link_bandwidth=r.quantity(f"{p}.link_bandwidth", "bandwidth", required=False),
        torus_dims=r.integer(f"{p}.torus_dims", required=False),
        efficiency=eff,
        efficiency_source=eff_src,
        slow_nics=_slow_nics(r, p, spec),
    )


def _peaks(r: _Reader) -> dict[str, float]:
    """``compute``: dense peak per datatype (FLOP/s); datatypes without a positive peak left out."""
    compute = r.get("compute")
    if not isinstance(compute, dict) or not compute:
        raise r.fail("compute", "a mapping of datatype to dense peak such as {bf16: '989.4 TFLOPS'}", compute)
    peak: dict[str, float] = {}
    for dtype, v in compute.items():
        if dtype not in DTYPES:
            raise r.fail(f"compute.{dtype}", "a datatype among " + ", ".join(DTYPES))
        if v is None:
            continue
        q = r.quantity(f"compute.{dtype}", "flops")
        assert q is not None
        if q > 0:
            peak[dtype] = q
    if not peak:
        raise r.fail("compute", "at least one datatype with a positive peak")
    return peak


@dataclass(frozen=True)
class _Memory:
    """``memory``: capacity and usable bytes, bandwidth in bytes/s."""

    capacity: float
    usable: float
    bandwidth: float


def _memory(r: _Reader) -> _Memory:
    """``memory``: usable defaults to the capacity and may not exceed it."""
    cap = r.quantity("memory.capacity", "bytes")
    assert cap is not None
    usable = r.quantity("memory.usable", "bytes", required=False) or cap
    if usable > cap:
        raise r.fail(
            "memory.usable", f"at most memory.capacity ({r.get('memory.capacity')})", r.get("memory.usable")
        )
    mem_bw = r.quantity("memory.bandwidth", "bandwidth")
    assert mem_bw is not None
    r.boolean("memory.unified")
    return _Memory(cap, usable, mem_bw)


def _fabric(r: _Reader) -> tuple[FabricTier, ...]:
    """``fabric``: the tiers, innermost first; one unbounded tier at most, group sizes increasing."""
    fabric_raw = r.get("fabric")
    if not isinstance(fabric_raw, dict) or not fabric_raw:
        raise r.fail(
            "fabric", "an ordered mapping of tiers such as {scale_up: {...}, scale_out: {...}}", fabric_raw
        )
    # Tiers are ordered by group size (innermost first, the unbounded tier last), so the
    # order of the YAML mapping does not matter.
    tiers = tuple(
        sorted(
            (_tier(r, k, v) for k, v in fabric_raw.items()),
            key=lambda t: float("inf") if t.devices is None else t.devices,
        )
    )
    if tiers[0].topology == "rail_only":
        raise r.fail(
            f"fabric.{tiers[0].key}.topology",
            "a scale-out tier above a scale-up domain: rail_only joins the same local index of many domains",
            "rail_only",
        )
    for inner, outer in zip(tiers[:-1], tiers[1:], strict=True):
        if inner.devices is None:
            raise r.fail(
                f"fabric.{inner.key}.devices",
                f"a device count: only one tier may be unbounded, and '{outer.key}' is too",
            )
        if outer.devices == inner.devices:
            raise r.fail(
                f"fabric.{outer.key}.devices", f"more devices than tier '{inner.key}' ({inner.devices})"
            )
    return tiers


def _price_per_hour(r: _Reader) -> float | None:
    """``price.usd_per_hour``: USD per device-hour, None when not given."""
    if r.get("price", required=False) is None:
        return None
    v = r.get("price.usd_per_hour", required=False)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
        raise r.fail("price.usd_per_hour", "a positive number of USD per device-hour", v)
    return float(v)


# ``host_memory`` keys (docs/CATALOG.md) and the dimension each is written in. They are read only by
# offload plans (``llmcost.training.data_parallel.offload_time``); here each one present is checked.
_HOST_MEMORY_KEYS = {
    "capacity": "bytes",
    "bandwidth": "bandwidth",
    "link_bandwidth": "bandwidth",
    "nvme_capacity": "bytes",
    "nvme_bandwidth": "bandwidth",
}


def _check_host_memory(r: _Reader, data: dict[str, Any]) -> None:
    """``host_memory``: optional; each key it gives must parse in its unit (none is required)."""
    host = data.get("host_memory")
    if host is None:
        return
    if not isinstance(host, dict):
        raise r.fail("host_memory", "a mapping of host memory / NVMe figures", host)
    for key, dim in _HOST_MEMORY_KEYS.items():
        if host.get(key) is not None:
            r.quantity(f"host_memory.{key}", dim)


@dataclass(frozen=True)
class _OptionalEfficiencies:
    """The optional efficiency figures of an entry (docs/CATALOG.md)."""

    by_dtype: dict[str, float]
    attention: float | None
    attention_by_family: dict[str, float]
    train: float | None
    train_by_dtype: dict[str, float]
    memory_experts: float | None = None
    attention_bwd: float | None = None


def _optional_efficiency(r: _Reader, data: dict[str, Any], key: str) -> float | None:
    """``efficiency.<key>`` when the entry gives it (checked, with its source), else None."""
    eff_raw = data.get("efficiency") if isinstance(data.get("efficiency"), dict) else {}
    return _efficiency(r, key)[0] if eff_raw.get(key) is not None else None


def _optional_family(r: _Reader, data: dict[str, Any], prefix: str, names: Sequence[str]) -> dict[str, float]:
    """``{name: efficiency.<prefix>_<name>}`` for the names the entry gives."""
    found = {n: _optional_efficiency(r, data, f"{prefix}_{n}") for n in names}
    return {n: v for n, v in found.items() if v is not None}


def _optional_efficiencies(r: _Reader, data: dict[str, Any]) -> _OptionalEfficiencies:
    """The optional figures: per-datatype GEMM efficiency, fused-attention efficiency (and per
    kernel family), the GEMMs of a training step (16-bit and per datatype), and the measured
    best-case GEMM rate kept for reference when ``compute`` is a sustained figure (checked, not used)."""
    _optional_efficiency(r, data, "gemm_peak")
    return _OptionalEfficiencies(
        by_dtype=_optional_family(r, data, "compute", DTYPES),
        attention=_optional_efficiency(r, data, "attention"),
        attention_by_family=_optional_family(r, data, "attention", ATTENTION_FAMILIES),
        train=_optional_efficiency(r, data, "compute_train"),
        train_by_dtype=_optional_family(r, data, "compute_train", DTYPES),
        memory_experts=_optional_efficiency(r, data, "memory_experts"),
        attention_bwd=_optional_efficiency(r, data, "attention_bwd"),
    )


NETWORK_KEYS = ("parts", "nics_per_node", "source")


def _check_network(r: _Reader, data: dict[str, Any], node_devices: int) -> None:
    """``network: {parts, nics_per_node, source}`` (optional): the part set of the bill of materials
    (an id of hardware/network/parts.yaml) and the scale-out NICs of one node (default: one per device)."""
    sec = data.get("network")
    if sec is None:
        return
    if not isinstance(sec, dict) or set(sec) - set(NETWORK_KEYS):
        raise r.fail("network", f"a mapping with keys among {', '.join(NETWORK_KEYS)}", sec)
    if sec.get("parts") is not None:
        r.text("network.parts")
    n = r.integer("network.nics_per_node", required=False)
    if n is not None and n > max(node_devices, 1) * 8:
        raise r.fail("network.nics_per_node", f"at most 8 per device ({8 * max(node_devices, 1)})", n)


POWER_KEYS = ("idle_w", "memory_bound_w", "compute_bound_w", "static_w")
"""Draws of a ``power`` section: by kind of work, and ``static_w``, the draw under load that does not
follow the SM clock (what a power cap cannot save, :func:`llmcost.economics.power.capped`)."""


def _power(r: _Reader, data: dict[str, Any], tdp: float) -> dict[str, float]:
    """``power: {idle_w, memory_bound_w, compute_bound_w, static_w}``, each ``{value: W, source}``
    with ``0 < value <= tdp`` and ``static_w`` below ``compute_bound_w`` (checked); empty when the
    entry has no ``power`` section."""
    sec = data.get("power")
    if sec is None:
        return {}
    if not isinstance(sec, dict) or set(sec) - set(POWER_KEYS):
        raise r.fail("power", f"a mapping with keys among {', '.join(POWER_KEYS)}", sec)
    out: dict[str, float] = {}
    for k, e in sec.items():
        v = e.get("value") if isinstance(e, dict) else None
        if not isinstance(e, dict) or not e.get("source") or isinstance(v, bool):
            raise r.fail(f"power.{k}", "{value: W, source: ...}", e)
        if not isinstance(v, (int, float)) or not 0 < v <= tdp:
            raise r.fail(f"power.{k}", f"watts above 0 and at most the tdp ({tdp:g} W)", v)
        out[k] = float(v)
    if out.get("static_w", 0.0) >= out.get("compute_bound_w", tdp):
        raise r.fail("power.static_w", "watts below compute_bound_w (or the tdp)", out["static_w"])
    return out


THROTTLE_KEYS = ("compute_w", "memory_w", "wait_w", "exponent")
"""Keys of a ``throttle`` section: draws (W) at the maximum SM clock of compute-bound kernels, memory-bound
kernels and a device waiting in a kernel (exposed communication, bubbles), and the rate exponent."""


def _throttle(r: _Reader, data: dict[str, Any], tdp: float) -> dict[str, float]:
    """``throttle: {compute_w, exponent, memory_w?, wait_w?}``, each ``{value, source}``: ``compute_w``
    above 0 (it may exceed the tdp: that is what the limit throttles), the other draws at most
    ``compute_w``, ``exponent`` in (0, 2]; empty when the entry has no section."""
    sec = data.get("throttle")
    if sec is None:
        return {}
    if (
        not isinstance(sec, dict)
        or set(sec) - set(THROTTLE_KEYS)
        or not {"compute_w", "exponent"} <= set(sec)
    ):
        raise r.fail(
            "throttle",
            f"a mapping with compute_w, exponent and optionally {', '.join(THROTTLE_KEYS[1:3])}",
            sec,
        )
    out: dict[str, float] = {}
    for k, e in sec.items():
        v = e.get("value") if isinstance(e, dict) else None
        if (
            not isinstance(e, dict)
            or not e.get("source")
            or isinstance(v, bool)
            or not isinstance(v, (int, float))
        ):
            raise r.fail(f"throttle.{k}", "{value: number, source: ...}", e)
        out[k] = float(v)
    if not 0 < out["exponent"] <= 2:
        raise r.fail("throttle.exponent", "a number in (0, 2]", out["exponent"])
    if not 0 < out["compute_w"] <= 10 * tdp:
        raise r.fail(
            "throttle.compute_w", f"watts above 0 (at most 10x the tdp, {10 * tdp:g} W)", out["compute_w"]
        )
    for k in ("memory_w", "wait_w"):
        if k in out and not 0 < out[k] <= out["compute_w"]:
            raise r.fail(
                f"throttle.{k}", f"watts above 0 and at most compute_w ({out['compute_w']:g} W)", out[k]
            )
    return out


def _gemm_shape(r: _Reader, data: dict[str, Any]) -> GemmShape | None:
    """``gemm: {units, tiles: [[m, n], ...], k_overhead, source}`` when the entry gives it (checked)."""
    if data.get("gemm") is None:
        return None
    if not isinstance(data["gemm"], dict):
        raise r.fail("gemm", "a mapping {units, tiles: [[m, n], ...], k_overhead, source}", data["gemm"])
    unknown = set(data["gemm"]) - {
        "units",
        "tiles",
        "k_overhead",
        "flops_per_exp",
        "collective_sms",
        "attention_s0",
        "source",
    }
    if unknown:
        raise r.fail(
            "gemm",
            "keys units, tiles, k_overhead, flops_per_exp, collective_sms, attention_s0, source",
            sorted(unknown),
        )
    tiles = r.get("gemm.tiles")
    if not (
        isinstance(tiles, list)
        and tiles
        and all(
            isinstance(t, list)
            and len(t) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in t)
            for t in tiles
        )
    ):
        raise r.fail("gemm.tiles", "a list of output tiles [[rows, columns], ...]", tiles)
    k0 = r.get("gemm.k_overhead")
    if isinstance(k0, bool) or not isinstance(k0, (int, float)) or not 0 <= k0 < 1e5:
        raise r.fail("gemm.k_overhead", "a number of reduction elements >= 0", k0)
    r.text("gemm.source")
    units = r.integer("gemm.units")
    assert units is not None
    fpe = data["gemm"].get("flops_per_exp")
    if fpe is not None and (isinstance(fpe, bool) or not isinstance(fpe, (int, float)) or not 0 < fpe < 1e5):
        raise r.fail(
            "gemm.flops_per_exp", "a positive number (tensor FLOPs per exp2 result per SM and clock)", fpe
        )
    csm = data["gemm"].get("collective_sms")
    if csm is not None and (isinstance(csm, bool) or not isinstance(csm, int) or not 0 <= csm < units):
        raise r.fail("gemm.collective_sms", f"an integer of SMs below units ({units})", csm)
    return GemmShape(
        units=units,
        tiles=tuple((t[0], t[1]) for t in tiles),
        k0=float(k0),
        flops_per_exp=None if fpe is None else float(fpe),
        collective_sms=csm,
        attention_s0=_attention_s0(r, data["gemm"].get("attention_s0")),
    )


def _attention_s0(r: _Reader, s0: Any) -> tuple[float, float] | None:
    """``gemm.attention_s0: [forward, backward]`` (keys, each >= 0) when given."""
    if s0 is None:
        return None
    ok = isinstance(s0, list) and len(s0) == 2
    ok = ok and all(isinstance(x, (int, float)) and not isinstance(x, bool) and 0 <= x < 1e6 for x in s0)
    if not ok:
        raise r.fail(
            "gemm.attention_s0", "[forward, backward]: keys of fixed cost per query block, each >= 0", s0
        )
    return float(s0[0]), float(s0[1])


def hardware_from_dict(data: dict[str, Any], *, where: str) -> Hardware:
    """Validate a resolved hardware mapping (``base`` already merged) and build :class:`Hardware`."""
    if not isinstance(data, dict):
        raise CatalogError(f"{where}: expected a mapping of hardware keys, got {type(data).__name__}")
    r = _Reader(data, where)
    hid = r.text("id")
    assert hid is not None
    peak = _peaks(r)
    mem = _memory(r)
    tiers = _fabric(r)
    sources = r.get("sources")
    if not isinstance(sources, list) or not sources:
        raise r.fail("sources", "a non-empty list of where the figures came from", sources)
    r.choice("type", DEVICE_TYPES)
    r.choice("confidence", CONFIDENCE, required=False)
    price_per_hour = _price_per_hour(r)
    c_eff, _ = _efficiency(r, "compute")
    m_eff, _ = _efficiency(r, "memory")
    opt = _optional_efficiencies(r, data)
    node_devices = r.integer("node.devices", required=False) or 1
    _check_host_memory(r, data)
    _check_network(r, data, node_devices)
    tdp = r.quantity("tdp", "power")
    assert tdp is not None
    return Hardware(
        id=hid,
        name=r.text("name") or hid,
        vendor=r.text("vendor") or "",
        type=str(data["type"]),
        peak=peak,
        memory_capacity=mem.capacity,
        memory_usable=mem.usable,
        memory_bandwidth=mem.bandwidth,
        fabric=tiers,
        node_devices=node_devices,
        tdp=tdp,
        price_per_hour=price_per_hour,
        compute_efficiency=c_eff,
        memory_efficiency=m_eff,
        raw=data,
        where=where,
        compute_efficiency_by_dtype=opt.by_dtype,
        attention_efficiency_value=opt.attention,
        attention_efficiency_by_family=opt.attention_by_family,
        attention_bwd_efficiency_value=opt.attention_bwd,
        train_efficiency_value=opt.train,
        train_efficiency_by_dtype=opt.train_by_dtype,
        expert_memory_efficiency_value=opt.memory_experts,
        gemm_shape=_gemm_shape(r, data),
        power=_power(r, data, tdp),
        throttle=_throttle(r, data, tdp),
    )


WAN_EFFICIENCY = {
    "value": 1.0,
    "source": "--wan: the bandwidth given is what a site's cross-site traffic attains; no efficiency applied",
}
"""The efficiency of a WAN tier built from ``--wan``: the figure given is the attained one."""


def wan_tier(site: int, bandwidth: float, latency: float) -> dict[str, Any]:
    """A catalog ``fabric.wan`` mapping (docs/CATALOG.md): sites of ``site`` devices, each site's
    uplink ``bandwidth`` B/s one way shared by its devices, one-way ``latency`` s."""
    return {
        "name": f"WAN between sites of {site} devices ({bandwidth * 8 / 1e9:.4g} Gbit/s per site, {latency * 1e3:.4g} ms)",
        "devices": None,
        "bandwidth": f"{bandwidth / site!r} B/s",
        "latency": f"{latency!r} s",
        "topology": "wan",
    }


def parse_wan(text: str) -> tuple[int, float, float]:
    """``--wan SITE,BANDWIDTH,LATENCY`` (e.g. ``8,10 Gbit/s,40 ms``): devices per site, each site's
    WAN bandwidth one way (B/s) and the one-way latency (s); UserError naming what is wrong."""
    parts = [x.strip() for x in str(text).split(",")]
    usage = "--wan: expected SITE_DEVICES,BANDWIDTH,LATENCY such as '8,10 Gbit/s,40 ms'"
    if len(parts) != 3 or not parts[0].isdigit() or int(parts[0]) < 1:
        raise UserError(f"{usage}, got '{text}'")
    bw = parse(parts[1], "bandwidth", what="--wan bandwidth")
    lat = parse(parts[2], "time", what="--wan latency")
    if not bw > 0 or not lat >= 0 or bw == float("inf") or lat == float("inf"):
        raise UserError(f"{usage}: a positive bandwidth and a latency >= 0, got '{text}'")
    return int(parts[0]), float(bw), float(lat)
