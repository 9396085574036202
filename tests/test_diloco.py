"""DiLoCo / local SGD (plan ``sync_interval``, ``sync_bytes``): the default is ordinary data
parallelism bit for bit; with H > 1 the data-parallel line is the outer all-reduce over H, the
outer state adds 8 bytes per parameter, and what DiLoCo does not combine with is one line."""

from __future__ import annotations

import pytest

import llmcost
from llmcost.errors import PlanError
from llmcost.training import _generated as G

BASE = dict(gpus=64, tp=8, global_batch=256, seq_len=4096)


def test_sync_interval_1_is_ordinary_data_parallelism_bit_for_bit() -> None:
    plain = llmcost.train("llama-3-8b", "h100-sxm", **BASE).as_dict()
    one = llmcost.train("llama-3-8b", "h100-sxm", sync_interval=1, **BASE).as_dict()
    assert one == plain
    assert "sync_interval" not in plain["plan"] and "dp_comm_reduction" not in plain


def test_diloco_amortizes_the_outer_all_reduce_and_keeps_the_outer_state() -> None:
    plain = llmcost.train("llama-3-8b", "h100-sxm", **BASE)
    dil = llmcost.train("llama-3-8b", "h100-sxm", sync_interval=500, **BASE)
    half = llmcost.train("llama-3-8b", "h100-sxm", sync_interval=500, sync_bytes=2, **BASE)
    r, h = dil.result, half.result
    t_out = r.values["t_outer"]
    assert r.breakdown["dp_comm"] == G.dp__diloco(500, t_out) == pytest.approx(t_out / 500)
    assert 0 < h.values["t_outer"] < t_out  # half the bytes over the same group
    # everything but the data-parallel line and the optimizer memory is unchanged
    for k, v in plain.result.breakdown.items():
        if k != "dp_comm":
            assert r.breakdown[k] == v, k
    psi = 8.03e9 / 8  # parameters one tp rank holds (Llama 3 8B, tp 8), roughly
    extra = r.memory["optimizer"] - plain.result.memory["optimizer"]
    assert extra == pytest.approx(8 * psi, rel=0.01)
    assert dil.as_dict()["dp_comm_reduction"] == 500.0
    assert half.as_dict()["dp_comm_reduction"] == 1000.0
    assert dil.as_dict()["plan"]["sync_interval"] == 500
    assert any(n.startswith("DiLoCo: 8 workers") for n in r.notes)


def test_costed_diloco_plan_recosts_the_same() -> None:
    d = llmcost.train("llama-3-8b", "h100-sxm", sync_interval=100, sync_bytes=0.5, **BASE).as_dict()
    again = llmcost.train("llama-3-8b", "h100-sxm", plan=d["plan"]).as_dict()
    assert again["iteration_time_s"] == d["iteration_time_s"]


@pytest.mark.parametrize(
    ("keys", "words"),
    [
        (dict(sync_interval=10, zero=1), "zero 0"),
        (dict(sync_interval=10, distributed_optimizer=True), "zero 0"),
        (dict(sync_interval=0), "sync_interval must be an integer"),
        (dict(sync_interval=2.5), "sync_interval must be an integer"),
        (dict(sync_bytes=2), "needs sync_interval > 1"),
        (dict(sync_interval=10, sync_bytes=0.3), "whole bits"),
        (dict(sync_interval=10, sync_bytes=float("nan")), "whole bits"),
    ],
)
def test_what_diloco_refuses(keys: dict, words: str) -> None:
    with pytest.raises(PlanError, match=words):
        llmcost.train("llama-3-8b", "h100-sxm", **{**BASE, **keys})


def test_diloco_refuses_cp_and_ep() -> None:
    with pytest.raises(PlanError, match="ep 1 and cp 1"):
        llmcost.train("llama-3-8b", "h100-sxm", gpus=64, tp=8, cp=2, global_batch=256, sync_interval=10)


def test_cli_sync_interval_and_its_bad_input(cli) -> None:  # noqa: ANN001
    r = cli(
        "train", "llama-3-8b", "--gpus", "64", "--tp", "8", "--global-batch", "256", "--sync-interval", "500"
    )
    assert r.code == 0, r.err
    assert "sync_interval=500" in r.out and "DiLoCo" in r.out
    bad = cli("train", "llama-3-8b", "--gpus", "64", "--tp", "8", "--sync-interval", "4", "--zero", "1")
    assert bad.code == 2 and bad.err.startswith("error: ") and bad.err.count("\n") == 1, bad.err


def test_the_diloco_cases_predict_the_papers_500x_and_400x(cli) -> None:  # noqa: ANN001
    import json

    r = cli("validate", "validation/local-sgd.yaml", "--format", "json")
    assert r.code == 0, r.err
    cases = {c["id"]: c for c in json.loads(r.out)["cases"]}
    assert cases["diloco-2023-h500-k8-comm"]["predicted"] == 500.0
    assert cases["intellect1-diloco-h100-int8-comm"]["predicted"] == 400.0
    assert (
        cases["diloco-2023-h500-k8-comm"]["error"]
        == cases["intellect1-diloco-h100-int8-comm"]["error"]
        == 0.0
    )


def test_search_carries_diloco_and_its_rows_recost_bit_for_bit() -> None:
    """search train with sync_interval: every plan is DiLoCo (zero 0, cp 1, ep 1 by default), and each
    returned row costs the same bits through ``train`` with the plan it reports."""
    keys = dict(gpus=64, global_batch=256, seq_len=4096, sync_interval=500, sync_bytes=2)
    rep = llmcost.search_train("llama-3-8b", "h100-sxm", top=8, **keys).as_dict()
    assert rep["plans"]
    for row in rep["plans"]:
        plan = row["plan"]
        assert plan["sync_interval"] == 500 and plan["sync_bytes"] == 2.0
        assert plan["zero"] == 0 and plan["cp"] == 1 and plan["ep"] == 1
        again = llmcost.train("llama-3-8b", "h100-sxm", plan).as_dict()
        for k, v in row["metrics"].items():
            if k in again:
                assert again[k] == v, k
        assert again["dp_comm_reduction"] == 1000.0


def test_search_grid_rows_are_the_single_plan_with_diloco() -> None:
    """Random rows of a DiLoCo grid (ZeRO modes given: the DiLoCo rule rejects all but zero 0) equal
    ``training.evaluate`` of their plan dict: metrics, breakdown and memory."""
    import numpy as np

    from llmcost.catalog import get_hardware, get_model_config
    from llmcost.model.config import from_config
    from llmcost.search import train as ST
    from llmcost.training import plan as TR
    from llmcost.training import step as TS

    spec = from_config(get_model_config("llama-3.1-8b"), where="llama-3.1-8b")
    hw = get_hardware("h100-sxm")
    space = ST.TrainSpace(
        gpus=(16,),
        global_batch=64,
        seq_len=4096,
        zero=("0", "1"),
        recompute=("none", "full"),
        sync_interval=50,
    )
    grid = ST.enumerate_space(spec, hw, space)
    assert (grid.cols["sync"] == 50).all() and (grid.cols["zmode"] == 0).all()
    assert grid.rejected["DiLoCo with ZeRO or the distributed optimizer"] > 0
    assert grid.rejected["DiLoCo with cp or ep > 1"] > 0
    out = ST.evaluate_grid(spec, hw, grid, 4096, 64)
    rng = np.random.default_rng(3)
    for i in rng.choice(len(grid), 15, replace=False):
        plan = TR.TrainPlan.from_mapping(ST.plan_dict(grid, int(i), 64, 4096, None))
        r = TR.evaluate(spec, plan, hw)
        assert r.metrics()["dp_comm_reduction"] == float(out["dp_comm_reduction"][i]) == 50.0
        assert r.breakdown == {k: float(out[k][i]) for k in TS.BREAKDOWN}
        assert r.memory == {k: float(out[f"memory_{k}"][i]) for k in TS.MEMORY}


def test_cli_search_sync_interval_round_trips(cli, tmp_path) -> None:  # noqa: ANN001
    import json

    r = cli(
        "search",
        "train",
        "llama-3-8b",
        "--gpus",
        "32",
        "--global-batch",
        "128",
        "--sync-interval",
        "100",
        "--top",
        "2",
        "--format",
        "json",
    )
    assert r.code == 0, r.err
    best = json.loads(r.out)["plans"][0]
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(best["plan"]))
    t = cli("train", "llama-3-8b", "--plan", str(plan), "--format", "json")
    assert t.code == 0, t.err
    assert json.loads(t.out)["iteration_time_s"] == best["metrics"]["iteration_time_s"]
    bad = cli("search", "train", "llama-3-8b", "--gpus", "8", "--sync-bytes", "2")
    assert bad.code == 2 and "needs sync_interval > 1" in bad.err and bad.err.count("\n") == 1
