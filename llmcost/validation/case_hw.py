"""The device a validation case ran on: its catalog entry with the case's overrides (imported by
the evaluators and the error bands without the case registry)."""

from __future__ import annotations

from typing import Any

from llmcost.hardware import Hardware


def case_hardware(case: dict[str, Any]) -> Hardware:
    """The case's hardware with ``hardware_overrides`` deep-merged, widened to its cluster.

    A case's ``cluster.gpus_per_node`` describes the machine the measurement ran on. When it
    exceeds the catalog host and its innermost (scale-up) domain (e.g. a 16-GPU DGX-2 run
    named as V100 SXM2, whose catalog host is the 8-GPU DGX-1), the host and that domain are
    widened to it, as an explicit ``hardware_overrides`` would; nothing else changes.
    """
    from llmcost.catalog import get_hardware

    hw = get_hardware(str(case["hardware"])).with_overrides(case.get("hardware_overrides") or None)
    gpn = (case.get("cluster") or {}).get("gpus_per_node")
    inner = hw.fabric[0]
    if isinstance(gpn, int) and not isinstance(gpn, bool) and gpn > max(hw.node_devices, inner.devices or 0):
        hw = hw.with_overrides({"node": {"devices": gpn}, "fabric": {inner.key: {"devices": gpn}}})
    return hw
