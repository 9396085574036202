"""``train --breakdown`` (issue 15 §1): one plan's operators of one layer per layer shape, as the step
costs them. The per-operator figures are the rows the step sums (:func:`llmcost.training.compute.layer_cost`
keeps them), so their sums are the step's layer times bit for bit."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from llmcost import api
from llmcost.training import step as TS
from llmcost.training.compute import rowsum
from llmcost.training.layers import ModelLayers, layer_table
from llmcost.training.plan import check, operator_breakdown, operator_rows, plan_columns

PLANS: list[tuple[str, dict[str, Any]]] = [
    ("llama-3.1-8b", {"gpus": 8, "tp": 2, "global_batch": 16, "seq_len": 4096, "recompute": "selective"}),
    (
        "llama-3.1-8b",
        {"gpus": 8, "tp": 4, "pp": 2, "global_batch": 16, "recompute": "full", "precision": "fp8"},
    ),
    ("llama-3.1-8b", {"gpus": 8, "tp": 2, "global_batch": 16, "recompute": "op", "tp_overlap": True}),
    ("mixtral-8x7b", {"gpus": 16, "tp": 2, "ep": 4, "pp": 2, "global_batch": 32}),
    ("gemma-2-2b", {"gpus": 4, "cp": 2, "global_batch": 8, "seq_len": 8192, "attention": "materialized"}),
    (
        "deepseek-v2",
        {"gpus": 128, "tp": 2, "ep": 8, "pp": 8, "global_batch": 128, "zero": 1, "recompute": "full"},
    ),
]


def _step_table(rep: Any) -> Any:
    """The step's layer table of the report's plan: the configuration :func:`TS.evaluate` costs."""
    spec, hw, plan = rep.spec, rep.hardware, rep.result.layout.plan
    lay = check(spec, plan, hw)
    p, _ = TS.costed_plans(spec, hw, plan_columns(lay), lay.seq, lay.global_batch, plan.gpus_per_node)
    return layer_table(spec, hw, ModelLayers.of(spec), p)[0]


def _report(model: str, keys: dict[str, Any]) -> Any:
    return api.train(model, "h100-sxm", **keys)


@pytest.mark.parametrize(("model", "keys"), PLANS, ids=[f"{m}-{i}" for i, (m, _) in enumerate(PLANS)])
def test_operator_times_sum_to_the_steps_layer_times(model: str, keys: dict[str, Any]) -> None:
    rep = _report(model, keys)
    lt = _step_table(rep)
    shapes = operator_breakdown(rep.spec, rep.result.layout.plan, rep.hardware)
    layers, io = shapes[:-1], shapes[-1]
    assert len(layers) == lt.t_f.shape[0] and io.stack == "io"
    for j, s in enumerate(layers):
        assert rowsum(s.fwd.time)[0] == lt.t_f[j, 0]
        assert rowsum(s.bwd.time)[0] == lt.t_b[j, 0]
        rc = np.broadcast_to(np.asarray(s.t_op_rc, dtype=float), s.fwd.time.shape)
        assert rowsum(rc)[0] == lt.t_rc[j, 0]
        for g, field in (("tp", "t_tp"), ("cp", "t_cp"), ("ep", "t_ep")):
            got = sum((float(t[0]) for o, t in s.comm if o.group == g), 0.0)
            assert got == getattr(lt, field)[j, 0]
    assert rowsum(io.fwd.time)[0] == lt.io_f[1, 1, 0] and rowsum(io.bwd.time)[0] == lt.io_b[1, 1, 0]
    # the rows (numbers) say the same, in the same order
    rows = operator_rows(shapes)
    labels = list(dict.fromkeys(r["layer"] for r in rows))
    assert len(labels) == len(shapes)
    for j, label in enumerate(labels[:-1]):
        for phase, want in (("forward", lt.t_f), ("backward", lt.t_b), ("forward", lt.t_rc)):
            col = "recompute_s" if want is lt.t_rc else "time_s"
            t = [r[col] for r in rows if r["phase"] == phase and r["layer"] == label]
            assert rowsum(np.array(t)) == want[j, 0]


def test_one_stage_step_is_its_layers_and_io() -> None:
    """With one pipeline stage, the step's per-micro-batch forward / backward / recompute times are
    the layer count x the per-operator sums plus the io rows."""
    rep = _report("llama-3.1-8b", {"gpus": 8, "tp": 2, "global_batch": 16, "recompute": "selective"})
    rows = operator_rows(operator_breakdown(rep.spec, rep.result.layout.plan, rep.hardware))
    v = rep.result.values
    for key, col in (("t_fwd", "time_s"), ("t_rc", "recompute_s")):
        phase = [r for r in rows if r["phase"] == "forward"]
        want = sum(r["layers"] * r[col] for r in phase)
        assert np.isclose(v[key], want, rtol=1e-12, atol=0.0), key
    back = sum(r["layers"] * r["time_s"] for r in rows if r["phase"] == "backward")
    assert np.isclose(v["t_bwd"], back, rtol=1e-12, atol=0.0)
    r0 = next(r for r in rows if r["op"] == "qkv_proj" and r["phase"] == "forward")
    assert r0["flops_per_s"] == r0["flops"] / r0["time_s"] and r0["bound"] in ("compute", "memory", "latency")


def test_breakdown_leaves_the_result_unchanged() -> None:
    keys = {"gpus": 8, "tp": 2, "global_batch": 16, "recompute": "op"}
    a = _report("llama-3.1-8b", keys).as_dict()
    rep = _report("llama-3.1-8b", keys)
    operator_breakdown(rep.spec, rep.result.layout.plan, rep.hardware)
    assert rep.as_dict() == a


TRAIN = ["train", "llama-3.1-8b", "--hw", "h100-sxm", "--gpus", "8", "--tp", "2", "--global-batch", "16"]


def test_cli_breakdown_table_and_json(cli) -> None:
    r = cli(*TRAIN, "--breakdown")
    assert r.code == 0, r.err
    for word in ("qkv_proj", "attention", "down_proj", "backward", "lm_head", "attn_allreduce"):
        assert word in r.out
    r = cli(*TRAIN, "--breakdown", "--format", "json")
    assert r.code == 0, r.err
    rows = json.loads(r.out)
    assert {"layer", "phase", "op", "kind", "flops", "hbm_bytes", "time_s", "flops_per_s", "bound"} <= set(
        rows[0]
    )
    assert {r["phase"] for r in rows} == {"forward", "backward", "exposed"}


def test_cli_breakdown_with_plot(cli, tmp_path) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "t.png"
    r = cli(*TRAIN, "--breakdown", "--plot", str(out))
    assert r.code == 0, r.err
    assert "qkv_proj" in r.out and out.read_bytes().startswith(b"\x89PNG")


def test_breakdown_and_emit_are_exclusive(cli) -> None:
    r = cli(*TRAIN, "--breakdown", "--emit", "megatron")
    assert r.code == 2 and "--breakdown" in r.err
