"""Offload tiers (issue 13 §1): what each tier holds, what it costs, and that it must fit."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcost import api
from llmcost.catalog import get_hardware
from llmcost.errors import PlanError
from llmcost.hardware import Hardware

MODEL = "llama-3.1-8b"
PLAN = {"gpus": 8, "zero": 3, "recompute": "full", "global_batch": 16, "seq_len": 2048, "micro_batch": 1}


def _train(offload: str, hw: str | Hardware = "h100-sxm", **keys: object) -> api.TrainReport:
    return api.train(MODEL, hw, {**PLAN, "offload": offload, **keys})


def _with_host(hw: Hardware, **host: str) -> Hardware:
    """``hw`` with its host_memory figures replaced."""
    from dataclasses import replace

    raw = copy.deepcopy(hw.raw)
    raw["host_memory"] = {**raw["host_memory"], **host}
    return replace(hw, raw=raw)


def test_each_tier_holds_what_it_holds() -> None:
    """cpu / nvme: gradients and optimizer state leave the device (ZeRO-Offload); +params: the
    parameter shards too (ZeRO-Infinity), leaving the gathered layers."""
    none, cpu, params = (_train(o).result.memory for o in ("none", "cpu", "nvme+params"))
    assert cpu["gradients"] == cpu["optimizer"] == 0 < none["gradients"]
    assert cpu["weights"] == none["weights"] > 0 == params["weights"]
    assert params["buffers"] > 0  # the layers in flight stay on the device


def test_a_slower_tier_is_never_faster() -> None:
    t = {
        o: _train(o).metrics()["iteration_time_s"]
        for o in ("none", "cpu", "nvme", "cpu+params", "nvme+params")
    }
    assert t["none"] <= t["cpu"] <= t["nvme"]
    assert t["cpu"] <= t["cpu+params"] <= t["nvme+params"]


@settings(max_examples=15, deadline=None)
@given(tb=st.floats(0.01, 100))
def test_more_host_memory_never_fits_less(tb: float) -> None:
    """The offloaded state per node must fit the tier; more capacity never refuses a plan that fitted."""
    hw = get_hardware("h100-sxm")
    small, big = (_with_host(hw, capacity=f"{x} TB") for x in (tb, tb * 2))
    fits = []
    for h in (small, big):
        try:
            _train("cpu", h)
            fits.append(True)
        except PlanError:
            fits.append(False)
    assert fits[1] or not fits[0]


def test_offloaded_state_must_fit_the_node() -> None:
    hw = _with_host(get_hardware("h100-sxm"), capacity="100 GB")
    with pytest.raises(PlanError, match="offloaded state needs"):
        _train("cpu", hw)


def test_parameter_offload_needs_zero3() -> None:
    with pytest.raises(PlanError, match="ZeRO-3"):
        _train("cpu+params", zero=1)


def test_streamed_weights_trade_memory_for_time() -> None:
    """weights_tier host / nvme: two layers resident, each step at least its weights over the link;
    a slower tier is never faster."""
    keys = {"batch": 1, "prompt_len": 128, "output_len": 16}
    r = {t: api.infer(MODEL, "h100-sxm", {**keys, "weights_tier": t}).result for t in ("hbm", "host", "nvme")}
    assert r["host"].memory["weights"] < r["hbm"].memory["weights"] / 4  # embedding and head stay
    assert r["hbm"].tpot < r["host"].tpot < r["nvme"].tpot
    layers_gb = 2 * 8.0e9 * 0.97  # ~8B parameters in bf16, mostly in the decoder layers
    assert r["host"].tpot >= 0.9 * layers_gb / 63e9 - 1e-3  # h100-sxm's Gen5 x16 host link
    assert any("streamed from host" in n for n in r["host"].notes)


def test_kv_cache_on_the_host_and_model_switch_time() -> None:
    """kv_tier host: two layers of KV resident, each attention reads its cache over the link; the model
    switch time is the weights over the host link (SN40L's DDR-to-HBM copy)."""
    keys = {"batch": 8, "prompt_len": 8192, "output_len": 64}
    hbm = api.infer(MODEL, "h100-sxm", keys).result
    host = api.infer(MODEL, "h100-sxm", {**keys, "kv_tier": "host"}).result
    assert host.memory["kv_cache"] < hbm.memory["kv_cache"] / 8 and host.tpot > hbm.tpot
    kv_step = (
        8 * (8192 + 32) * 32 * 8 * 128 * 2 * 2
    )  # sequences x context x layers x kv heads x dim x (k, v) x bf16
    assert host.tpot >= 0.9 * kv_step / 63e9
    assert hbm.metrics()["model_switch_s"] == pytest.approx(hbm.memory["weights"] / 63e9)
    assert "model_switch_s" not in api.infer(MODEL, "l4", {"batch": 1}).metrics()  # no host link figure


def test_activation_offload_moves_the_checkpoints_to_the_host() -> None:
    """offload_activations: two layers' worth stay on the device, the rest on the host, and the
    transfer beyond the compute is added to the step (never faster)."""
    keys = {**PLAN, "zero": 1, "recompute": "selective", "seq_len": 4096}
    on = _train("cpu", offload_activations=True, **keys).result
    off = _train("cpu", **keys).result
    assert on.memory["activations"] < off.memory["activations"] / 8
    assert on.row["memory_activations_host"] > 0 == off.row["memory_activations_host"]
    assert on.step_time >= off.step_time


def _layer_offload(n: int, **keys: object) -> api.TrainReport:
    plan = {"gpus": 8, "zero": 1, "recompute": "none", "global_batch": 16, "seq_len": 4096, "micro_batch": 2}
    return api.train(MODEL, "gb200", {**plan, "offload_layers": n, **keys})


def test_layer_offload_keeps_the_other_layers_and_one_in_flight() -> None:
    """offload_layers N (Megatron-Core cpu_offloading_num_layers): N of the 32 layers' activations on
    the host, 32 - N + 1 layers' worth on the device; more layers offloaded never hold more on the
    device; the transfer beyond the compute is added to the step (never faster)."""
    none, some, most = (_layer_offload(n).result for n in (0, 8, 30))
    acts = none.memory["activations"]
    assert some.memory["activations"] == pytest.approx(acts * 25 / 32)
    assert most.memory["activations"] == pytest.approx(acts * 3 / 32)
    assert some.row["memory_activations_host"] == pytest.approx(acts * 7 / 32)
    assert none.step_time <= some.step_time <= most.step_time
    assert any(n.startswith("activation offload: 8 layers'") for n in some.notes)
    assert not any(n.startswith("activation offload") for n in none.notes)


@pytest.mark.parametrize(
    ("keys", "says"),
    [
        ({"offload_layers": 32}, "has 32 layers; offload fewer"),
        ({"offload_layers": -1}, "layer count >= 0"),
        ({"offload_layers": 4, "pp": 2}, "needs pp 1"),
        ({"offload_layers": 4, "recompute": "selective"}, "needs recompute none"),
        ({"offload_layers": 4, "offload_activations": True}, "set one"),
    ],
)
def test_layer_offload_where_megatron_core_refuses_it_is_refused(keys: dict, says: str) -> None:
    n = keys.pop("offload_layers")
    with pytest.raises(PlanError, match=says):
        _layer_offload(n, **keys)


def test_layer_offload_launch_configs() -> None:
    """NeMo sets model.cpu_offloading_num_layers; Megatron-LM, DeepSpeed and torchtitan say why not."""
    rep = _layer_offload(8)
    assert "cpu_offloading_num_layers" in api.emit(rep, "nemo")
    for framework in ("megatron", "deepspeed", "torchtitan"):
        assert "offload" in api.emit(rep, framework)
