"""The streamed train search (issue 14) against the exhaustive evaluation it replaced: the same plans
in the same order with the same figures, the same counts, whatever the chunk size, the prefill,
the memory pruning and the number of processes; :class:`Stream` against top-K and Pareto over
every row at once."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcost.catalog import get_hardware, get_model_config
from llmcost.model.config import from_config
from llmcost.search import chunks as CH
from llmcost.search import common as C
from llmcost.search import run
from llmcost.search import train as ST


def _exhaustive(spec: Any, hw: Any, space: Any, top: int, pareto: tuple[str, str] | None) -> dict[str, Any]:
    """The search as it was before streaming: every plan costed at once (no memo, no pruning), then
    the constraints, then top-K or the Pareto front over all rows."""
    grid = ST.enumerate_space(spec, hw, space)
    hw = ST.stacked(space, hw)[1]
    out = ST.evaluate_grid(spec, hw, grid, space.seq_len, space.global_batch, space.gpus_per_node)
    rej: Counter[str] = Counter(grid.rejected)
    ok = run._constraints(out, {}, rej)
    if pareto:
        idx = C.pareto_front(
            out[pareto[0]], out[pareto[1]], ok, pareto[0] in run.MAXIMIZE, pareto[1] in run.MAXIMIZE
        )
    else:
        idx = C.top_k(out["tokens_per_s"], ok, True, top)
    plans = [ST.plan_dict(grid, int(i), space.global_batch, space.seq_len, None, space.stack) for i in idx]
    metrics = [{k: float(out[k][i]) for k in run.TRAIN_METRICS if k in out} for i in idx]
    return {
        "n": len(grid),
        "feasible": int(ok.sum()),
        "rejected": C.reasons(rej),
        "plans": plans,
        "metrics": metrics,
    }


def _streamed(
    spec: Any, hw: Any, space: Any, top: int, pareto: tuple[str, str] | None, jobs: int = 1
) -> dict[str, Any]:
    res = run.train_search(
        spec, hw, space, tokens=None, objective="throughput", top=top, pareto=pareto,
        min_throughput=None, max_memory_gib=None, show_progress=False, jobs=jobs,
    )  # fmt: skip
    return {
        "n": res.plans_evaluated,
        "feasible": res.feasible,
        "rejected": res.rejected,
        "plans": [p["plan"] for p in res.plans],
        "metrics": [
            {k: v for k, v in p["metrics"].items() if k not in ("band", "band_runs_max_gpus", "evidence_mfu")}
            for p in res.plans
        ],
    }


@pytest.fixture(scope="module")
def gpt3() -> Any:
    return from_config(get_model_config("gpt3-13b"), where="gpt3-13b")


@pytest.fixture(scope="module")
def mixtral() -> Any:
    return from_config(get_model_config("mixtral-8x7b"), where="mixtral-8x7b")


@pytest.mark.parametrize("chunk", [97, 1 << 16])
@pytest.mark.parametrize("pareto", [None, ("tokens_per_s", "memory_gib_per_gpu")])
def test_streamed_search_is_the_exhaustive_one(gpt3: Any, chunk: int, pareto: Any, monkeypatch: Any) -> None:
    """Chunks of 97 candidates (a few parents each) or one chunk: bit-identical to the full evaluation,
    including plans that fall back to FlashAttention and plans set aside for their memory."""
    hw = get_hardware("a100-sxm4-80gb")
    space = ST.TrainSpace(gpus=(64,), global_batch=128, seq_len=2048, precision=("bf16",))
    monkeypatch.setattr(run, "CHUNK", chunk)
    want = _exhaustive(gpt3, hw, space, 25, pareto)
    assert want["feasible"] < want["n"]  # some plans do not fit: the pruning is exercised
    assert _streamed(gpt3, hw, space, 25, pareto) == want


def test_streamed_moe_search_is_the_exhaustive_one(mixtral: Any, monkeypatch: Any) -> None:
    hw = get_hardware("h100-sxm")
    space = ST.TrainSpace(gpus=(32,), global_batch=64, seq_len=4096, recompute=("selective", "full"))
    monkeypatch.setattr(run, "CHUNK", 500)
    assert _streamed(mixtral, hw, space, 40, None) == _exhaustive(mixtral, hw, space, 40, None)


@pytest.mark.parametrize("stack", ["torchtitan:2025", "megatron-lm:2021"])
def test_streamed_search_under_a_stack_is_the_exhaustive_one(gpt3: Any, stack: str, monkeypatch: Any) -> None:
    """A stack changes the device the plans are costed on (its attention kernel): the configurations
    costed ahead of the chunks are costed on that device too."""
    hw = get_hardware("h100-sxm")
    space = ST.TrainSpace(gpus=(16,), global_batch=64, seq_len=2048, stack=stack)
    monkeypatch.setattr(run, "CHUNK", 400)
    assert _streamed(gpt3, hw, space, 20, None) == _exhaustive(gpt3, hw, space, 20, None)


@pytest.mark.skipif(not CH.can_fork(), reason="--jobs forks worker processes (POSIX)")
@pytest.mark.parametrize("pareto", [None, ("mfu", "memory_gib_per_gpu")])
def test_jobs_give_the_same_result_bit_for_bit(gpt3: Any, pareto: Any, monkeypatch: Any) -> None:
    hw = get_hardware("h100-sxm")
    space = ST.TrainSpace(gpus=(32, 64), global_batch=256, seq_len=2048)
    monkeypatch.setattr(run, "CHUNK", 2000)
    assert _streamed(gpt3, hw, space, 30, pareto, jobs=3) == _streamed(gpt3, hw, space, 30, pareto, jobs=1)


def test_jobs_out_of_range_is_one_clear_line(cli) -> None:  # type: ignore[no-untyped-def]
    r = cli("search", "train", "llama-3.1-8b", "--gpus", "8", "--jobs", "0")
    assert r.code == 2 and "--jobs" in r.err and "1 to" in r.err and "Traceback" not in r.err


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.integers(0, 6), min_size=1, max_size=60),
    other=st.data(),
    cuts=st.lists(st.integers(1, 60), max_size=6),
    top=st.integers(1, 8),
    maximize=st.booleans(),
)
def test_stream_keeps_what_one_pass_over_all_rows_keeps(values, other, cuts, top, maximize) -> None:  # type: ignore[no-untyped-def]
    """Ties included (few distinct values): top-K and the Pareto front over chunks folded in order are
    the rows, in the order, that :func:`top_k` / :func:`pareto_front` give over every row."""
    n = len(values)
    x = np.array(values, dtype=float)
    y = np.array(other.draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)), dtype=float)
    ok = np.array(other.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    ids = np.arange(n)
    bounds = sorted({0, n, *(c for c in cuts if c < n)})
    for axes in (None, ("x", "y")):
        s = C.Stream("x", maximize, top, axes, (maximize, False))
        for a, b in zip(bounds, bounds[1:], strict=False):
            s.add({"x": x[a:b], "y": y[a:b], "id": ids[a:b]}, ok[a:b])
        got = s.result().get("id", np.zeros(0, dtype=int))
        want = C.pareto_front(x, y, ok, maximize, False) if axes else C.top_k(x, ok, maximize, top)
        assert got.tolist() == want.tolist()
