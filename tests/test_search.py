"""``llmcost search train | infer``: space counts, validity, the search and the single-plan commands
being one function (identical figures), ranking, Pareto fronts, JSON round trips and error paths."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from llmcost.catalog import get_hardware, get_model_config
from llmcost.errors import PlanError, UserError
from llmcost.inference import serve as I
from llmcost.model.config import from_config
from llmcost.search import common as C
from llmcost.search import infer as SI
from llmcost.search import run
from llmcost.search import train as ST
from llmcost.training import plan as TR


@pytest.fixture(scope="module")
def llama8() -> object:
    return from_config(get_model_config("llama-3.1-8b"), where="llama-3.1-8b")


@pytest.fixture(scope="module")
def h100() -> object:
    return get_hardware("h100-sxm")


# --- space -------------------------------------------------------------------------------------------
def test_train_space_count_matches_brute_force(llama8, h100) -> None:
    """Every combination the single-plan validator accepts is enumerated, and nothing else."""
    space = ST.TrainSpace(
        gpus=(8,),
        global_batch=16,
        seq_len=4096,
        zero=("0", "1"),
        recompute=("none", "full"),
        schedule=("1f1b", "interleaved", "gpipe"),
        precision=("bf16",),
    )
    grid = ST.enumerate_space(llama8, h100, space)
    brute = set()
    divs = C.divisors(8)
    for tp, pp, cp, mb in itertools.product(divs, divs, divs, C.divisors(16)):
        for z, rc, (sched, vs) in itertools.product(
            (0, 1), ("none", "full"), (("1f1b", [None]), ("gpipe", [None]), ("interleaved", range(2, 33)))
        ):
            for v in vs:
                if pp == 1 and sched != "1f1b":
                    continue  # schedules coincide without a pipeline: listed once
                plan = TR.TrainPlan(
                    gpus=8,
                    tp=tp,
                    pp=pp,
                    cp=cp,
                    micro_batch=mb,
                    global_batch=16,
                    seq_len=4096,
                    zero=z,
                    recompute=rc,
                    schedule=sched,
                    virtual_stages=v,
                    precision="bf16",
                )
                try:
                    TR.check(llama8, plan, h100)
                except PlanError:
                    continue
                brute.add((tp, pp, cp, mb, z, rc, sched, v or 1))
    got = {
        (
            int(grid.cols["tp"][i]),
            int(grid.cols["pp"][i]),
            int(grid.cols["cp"][i]),
            int(grid.cols["mb"][i]),
            ST.ZMODES[int(grid.cols["zmode"][i])][0],
            ST.RC[int(grid.cols["rc"][i])],
            ST.SCHED[int(grid.cols["sched"][i])],
            int(grid.cols["v"][i]),
        )
        for i in range(len(grid))
    }
    assert len(got) == len(grid)  # no duplicates
    assert got == brute


def test_uneven_pipeline_split_searched(h100) -> None:
    """The search and ``training.check`` share the split rule: DeepSeek-V3's 61 layers over 16 stages
    are searched, and only pp*v chunks beyond the layer count are rejected (one reason)."""
    ds = from_config(get_model_config("deepseek-v3"), where="deepseek-v3")
    space = ST.TrainSpace(
        gpus=(2048,),
        global_batch=15360,
        seq_len=4096,
        tp=(1,),
        pp=(16, 64),
        cp=(1,),
        ep=(32,),
        micro_batch=(1,),
        zero=("distopt",),
        recompute=("full",),
        schedule=("1f1b",),
        precision=("fp8",),
    )
    grid = ST.enumerate_space(ds, h100, space)
    assert set(grid.cols["pp"].tolist()) == {16}
    assert grid.rejected["fewer layers than pp*v pipeline chunks"] == 1  # pp 64 > 61 layers
    assert TR.pipeline_split_error(61, 64, 1) and TR.pipeline_split_error(61, 16, 1) is None


def test_narrowing_flags(llama8, h100) -> None:
    space = ST.TrainSpace(
        gpus=(16,),
        global_batch=32,
        seq_len=2048,
        tp=(4,),
        micro_batch=(1, 2),
        recompute=("selective",),
        precision=("fp8",),
    )
    grid = ST.enumerate_space(llama8, h100, space)
    assert len(grid) > 0
    assert set(grid.cols["tp"]) == {4} and set(grid.cols["mb"]) <= {1, 2}
    assert set(grid.cols["rc"]) == {ST.RC.index("selective")} and set(grid.cols["prec"]) == {
        ST.PREC.index("fp8")
    }


# --- the search and ``llmcost train`` are one function -------------------------------------------------
TRAIN_KEYS = (
    "iteration_time_s",
    "tokens_per_s_per_gpu",
    "model_tflops_per_gpu",
    "hardware_tflops_per_gpu",
    "mfu",
    "hfu",
    "memory_gib_per_gpu",
)


@pytest.mark.parametrize(
    "model,hw,gpus,gb,seq",
    [
        ("llama-3.1-8b", "h100-sxm", 16, 64, 4096),
        ("gpt3-175b", "a100-sxm4-80gb", 64, 64, 2048),
        ("mixtral-8x7b", "h100-sxm", 16, 32, 4096),
    ],
)
def test_train_grid_row_is_the_single_plan(model: str, hw: str, gpus: int, gb: int, seq: int) -> None:
    """``training.evaluate`` costs a plan as a length-1 grid through ``train_step.evaluate``, the
    function the search runs: every plan gives the same bits alone as inside the grid (memory and
    breakdown included), and the fit verdicts agree."""
    from llmcost.training import step as TS

    spec = from_config(get_model_config(model), where=model)
    hardware = get_hardware(hw)
    grid = ST.enumerate_space(spec, hardware, ST.TrainSpace(gpus=(gpus,), global_batch=gb, seq_len=seq))
    out = ST.evaluate_grid(spec, hardware, grid, seq, gb)
    rng = np.random.default_rng(0)
    best = np.argsort(np.where(out["fits"], out["iteration_time_s"], np.inf))[:5]
    for i in np.concatenate([best, rng.choice(len(grid), 25, replace=False)]):
        plan = TR.TrainPlan.from_mapping(ST.plan_dict(grid, int(i), gb, seq, None))
        r = TR.evaluate(spec, plan, hardware)
        assert r.metrics() == {k: float(out[k][i]) for k in TRAIN_KEYS}, plan
        assert r.breakdown == {k: float(out[k][i]) for k in TS.BREAKDOWN}
        assert r.memory == {k: float(out[f"memory_{k}"][i]) for k in TS.MEMORY}
        assert r.layout.flash == bool(out["flash"][i])
        assert (not any("does not fit" in n for n in r.notes)) == bool(out["fits"][i])


def test_tp_overlap_searched_only_when_asked(llama8, h100) -> None:
    """``--tp-overlap on,off`` adds overlapped twins of the sequence-parallel plans only; each row
    costs the same bits as ``llmcost train`` with ``tp_overlap``; the default space has none."""
    from llmcost.training import step as TS

    base = dict(
        gpus=(16,), global_batch=32, seq_len=4096, zero=("0",), recompute=("none",), precision=("bf16",)
    )
    plain = ST.enumerate_space(llama8, h100, ST.TrainSpace(**base))
    assert not plain.cols["tpo"].any()
    both = ST.enumerate_space(llama8, h100, ST.TrainSpace(**base, tp_overlap=(False, True)))
    on = both.cols["tpo"] == 1
    assert on.sum() == (plain.cols["sp"] == 1).sum() and (both.cols["sp"][on] == 1).all()
    assert len(both) == len(plain) + on.sum()
    assert both.rejected["tp overlap needs tp > 1 with sequence parallel"] == (plain.cols["sp"] == 0).sum()
    out = ST.evaluate_grid(llama8, h100, both, 4096, 32)
    rng = np.random.default_rng(1)
    for i in rng.choice(np.flatnonzero(on), 12, replace=False):
        d = ST.plan_dict(both, int(i), 32, 4096, None)
        assert d["tp_overlap"] is True
        r = TR.evaluate(llama8, TR.TrainPlan.from_mapping(d), h100)
        assert r.metrics() == {k: float(out[k][i]) for k in TRAIN_KEYS}, d
        assert r.breakdown == {k: float(out[k][i]) for k in TS.BREAKDOWN}


def test_single_plan_path_has_no_composition_of_its_own() -> None:
    """The step composition lives once (train_step); training.evaluate and the search call it."""
    import inspect

    from llmcost.training import step as TS

    src = inspect.getsource(TR.evaluate)
    assert "TS.evaluate(" in src and "pipeline__" not in src and "dp__" not in src and "collective" not in src
    assert "TS.evaluate(" in inspect.getsource(ST.evaluate_grid)
    assert not hasattr(ST, "_evaluate") and not hasattr(ST, "_memory") and not hasattr(TR, "_coll")
    assert TS.COLS == ST.COLS


def _small_train(**kw: object) -> C.SearchResult:
    spec = from_config(get_model_config("llama-3.1-8b"), where="x")
    space = ST.TrainSpace(gpus=(16,), global_batch=64, seq_len=4096)
    args = dict(
        tokens=1e12,
        objective="throughput",
        top=8,
        pareto=None,
        min_throughput=None,
        max_memory_gib=None,
        show_progress=False,
    )
    args.update(kw)
    return run.train_search(spec, get_hardware("h100-sxm"), space, **args)  # type: ignore[arg-type]


def test_top_plans_valid_fitting_sorted_and_identical() -> None:
    res = _small_train()
    assert len(res.plans) == 8 and res.plans_evaluated > 1000
    spec = from_config(get_model_config("llama-3.1-8b"), where="x")
    tps = [p["metrics"]["tokens_per_s"] for p in res.plans]
    assert tps == sorted(tps, reverse=True)
    for p in res.plans:
        r = TR.evaluate(
            spec, TR.TrainPlan.from_mapping(p["plan"]), get_hardware("h100-sxm"), check_memory=True
        )
        assert r.step_time == p["metrics"]["iteration_time_s"]
        assert all(r.metrics()[k] == p["metrics"][k] for k in TRAIN_KEYS)
        assert p["bottleneck"] in ST.BREAKDOWN


def test_pareto_front_is_exactly_the_non_dominated_set() -> None:
    rng = np.random.default_rng(3)
    x = rng.integers(0, 20, 400).astype(float)
    y = rng.integers(0, 20, 400).astype(float)
    ok = rng.random(400) > 0.2
    front = set(C.pareto_front(x, y, ok, True, False).tolist())  # maximize x, minimize y

    def dominated(i: int) -> bool:
        return any(
            ok[j] and x[j] >= x[i] and y[j] <= y[i] and (x[j] > x[i] or y[j] < y[i]) for j in range(400)
        )

    expect = {i for i in range(400) if ok[i] and not dominated(i)}
    assert front == expect


def test_train_pareto_result() -> None:
    res = _small_train(pareto=("tokens_per_s", "memory_gib_per_gpu"))
    pts = [(p["metrics"]["tokens_per_s"], p["metrics"]["memory_gib_per_gpu"]) for p in res.plans]
    for a in pts:  # no returned plan dominates another
        assert not any(b[0] >= a[0] and b[1] <= a[1] and b != a for b in pts)


def test_constraint_rejects_everything() -> None:
    with pytest.raises(UserError, match="max memory per GPU"):
        _small_train(max_memory_gib=0.01)


# --- CLI ---------------------------------------------------------------------------------------------
def test_cli_train_json_and_plan_round_trip(cli, tmp_path: Path) -> None:
    """The top plans of ``search train`` re-run one by one through ``llmcost train --plan`` JSON give
    identical metrics (one function, and JSON floats round-trip exactly)."""
    r = cli(
        "search",
        "train",
        "llama-3.1-8b",
        "--hw",
        "h100-sxm",
        "--gpus",
        "16",
        "--global-batch",
        "64",
        "--seq-len",
        "4096",
        "--top",
        "3",
        "-f",
        "json",
    )
    assert r.code == 0, r.err
    data = json.loads(r.out)
    assert set(data) >= {"plans_evaluated", "elapsed_s", "rejected", "plans"}
    assert len(data["plans"]) == 3 and data["plans_evaluated"] > 0
    for p in data["plans"]:
        assert set(p["metrics"]) >= set(TRAIN_KEYS)
        f = tmp_path / "plan.json"
        f.write_text(json.dumps({"plan": p["plan"]}))
        r2 = cli("train", "llama-3.1-8b", "--hw", "h100-sxm", "--plan", str(f), "-f", "json")
        assert r2.code == 0, r2.err
        single = json.loads(r2.out)
        assert {k: single[k] for k in TRAIN_KEYS} == {k: p["metrics"][k] for k in TRAIN_KEYS}
        assert single["tokens_per_s"] == p["metrics"]["tokens_per_s"]


def test_cli_train_table_and_csv(cli) -> None:
    r = cli(
        "search", "train", "llama-3.1-8b", "--gpus", "8", "--global-batch", "32", "--tp", "2,4", "--top", "4"
    )
    assert r.code == 0, r.err
    assert "bottleneck" in r.out and "plans evaluated" in r.out
    r = cli(
        "search", "train", "llama-3.1-8b", "--gpus", "8", "--global-batch", "32", "--tp", "4", "-f", "csv"
    )
    assert r.code == 0, r.err
    lines = r.out.strip().splitlines()
    assert lines[0].startswith("plan.gpus") and all(",4," in ln for ln in lines[1:])
    r = cli(
        "search",
        "train",
        "llama-3.1-8b",
        "--gpus",
        "8",
        "--global-batch",
        "32",
        "--tp",
        "4",
        "--tp-overlap",
        "on,off",
        "--top",
        "40",
    )
    assert r.code == 0, r.err
    assert "on+tpo" in r.out


@pytest.mark.parametrize(
    "args,msg",
    [
        (("--tp", "x"), "--tp"),
        (("--zero", "7"), "--zero"),
        (("--recompute", "sometimes"), "--recompute"),
        (("--tp", "3"), "no valid train plan"),
        (("--max-memory", "0.001"), "no valid train plan"),
        (("--objective", "nonsense"), "--objective"),
        (("--objective", "time_to_train"), "--tokens"),
        (("--tp-overlap", "maybe"), "--tp-overlap"),
        (("--sp", "maybe"), "--sp"),
    ],
)
def test_cli_train_errors(cli, args: tuple[str, ...], msg: str) -> None:
    r = cli("search", "train", "llama-3.1-8b", "--gpus", "8", "--global-batch", "32", *args)
    assert r.code == 2
    assert msg in r.err and len(r.err.strip().splitlines()) == 1


INFER_KEYS = (
    "ttft_s",
    "tpot_s",
    "e2e_latency_s",
    "output_tokens_per_s",
    "output_tokens_per_s_per_gpu",
    "input_tokens_per_s_per_gpu",
    "memory_gib_per_gpu",
)


def test_infer_grid_row_is_the_single_plan() -> None:
    """``inference.cost`` and the search run one composition (``inference.serve``) on a number or
    an array of batches: every plan gives the same bits alone as inside the search."""
    hws = [get_hardware("h100-sxm"), get_hardware("l40s")]
    space = SI.InferSpace(
        prompt_len=512,
        output_len=32,
        batch=(1, 8, 64, 512),
        weights=("bf16", "int4"),
        kv_cache=(None,),
        activations=(None,),
    )
    plans, cols, rej, n = SI.search_space("mixtral-8x7b", hws, space)
    assert n == len(plans) > 0
    hw = {h.id: h for h in hws}
    rng = np.random.default_rng(0)
    for i in rng.choice(n, 25, replace=False):
        p = plans[int(i)]
        if not cols["fits"][i]:
            with pytest.raises(PlanError):
                I.cost("mixtral-8x7b", hw[p["hardware"]], I.plan_from_dict(SI.plan_keys(p)))
            continue
        m = I.cost("mixtral-8x7b", hw[p["hardware"]], I.plan_from_dict(SI.plan_keys(p))).metrics()
        for k in (*INFER_KEYS, "output_tokens_per_s_per_user", "joules_per_output_token"):
            assert m[k] == float(cols[k][i]), (k, p)


def test_cli_infer_slo_pareto_and_round_trip(cli, tmp_path: Path) -> None:
    r = cli(
        "search",
        "infer",
        "llama-3.1-8b",
        "--hw",
        "h100-sxm,l40s",
        "--gpus",
        "2",
        "--prompt-len",
        "512",
        "--output-len",
        "64",
        "--max-tpot",
        "30ms",
        "--pareto",
        "-f",
        "json",
    )
    assert r.code == 0, r.err
    data = json.loads(r.out)
    assert data["plans"] and all(p["metrics"]["tpot_s"] <= 0.030 for p in data["plans"])
    pts = [
        (p["metrics"]["output_tokens_per_s_per_gpu"], p["metrics"]["output_tokens_per_s_per_user"])
        for p in data["plans"]
    ]
    for a in pts:
        assert not any(b[0] >= a[0] and b[1] >= a[1] and b != a for b in pts)
    p = data["plans"][0]
    f = tmp_path / "plan.yaml"
    f.write_text(json.dumps(p["plan"]))
    r2 = cli("infer", "llama-3.1-8b", "--hw", p["hardware"], "--plan", str(f), "-f", "json")
    assert r2.code == 0, r2.err
    single = json.loads(r2.out)
    assert {k: single[k] for k in INFER_KEYS} == {k: p["metrics"][k] for k in INFER_KEYS}


def test_cli_infer_errors(cli) -> None:
    r = cli("search", "infer", "llama-3.1-8b", "--max-ttft", "1us", "--batch", "1,2")
    assert r.code == 2 and "TTFT" in r.err and len(r.err.strip().splitlines()) == 1
    r = cli("search", "infer", "llama-3.1-8b", "--weights", "int3")
    assert r.code == 2 and "int3" in r.err


def _infer_plan_by_plan(model: str, hws: list, space: SI.InferSpace) -> tuple[list, object]:
    """Reference: the infer space walked one plan at a time with the single-plan checks
    (``check_plan``, ``formats_on``), each rejection counted under the first failure."""
    from collections import Counter
    from dataclasses import replace

    spec = I.spec_of(model)
    rej: Counter[str] = Counter()
    rows = []
    experts = spec.moe.num_experts if spec.moe is not None else 1
    fmts = [(w, a, kv) for w in space.weights for a in space.activations for kv in space.kv_cache]
    batches = sorted(space.batch)
    for hw in hws:
        for g in space.gpus or (hw.node_devices,):
            for tp, pp, ep in itertools.product(
                space.tp or C.divisors(g), space.pp or C.divisors(g), space.ep or C.divisors(experts)
            ):
                dp = g // (tp * pp)
                if g % (tp * pp) or (space.dp is not None and dp not in space.dp):
                    if space.tp or space.pp or space.dp:
                        rej["tp*pp*dp*cp does not equal the GPUs"] += len(fmts) * len(batches)
                    continue
                plan = I.Plan(
                    tp=tp,
                    pp=pp,
                    dp=dp,
                    ep=ep,
                    batch=None,
                    gpus=g,
                    prompt_len=space.prompt_len,
                    output_len=space.output_len,
                    gpus_per_node=space.gpus_per_node,
                )
                try:
                    I.check_plan(spec, hw, plan)
                except PlanError as e:
                    rule = next(
                        r for r in I.RULES if r.broken(spec, plan) and r.message(spec, plan) == str(e)
                    )
                    rej[rule.reason] += len(fmts) * len(batches)
                    continue
                seen = set()
                for w, a, kv in fmts:
                    try:
                        f = I.formats_on(hw, w, a, kv)
                    except PlanError as e:
                        rej[SI._reason(str(e))] += len(batches)
                        continue
                    if f.names in seen:
                        continue
                    seen.add(f.names)
                    rej["batch leaves dp replicas idle"] += 0
                    for b in batches:
                        try:
                            I.check_plan(spec, hw, replace(plan, batch=b))
                        except PlanError:
                            rej["batch leaves dp replicas idle"] += 1
                            continue
                        rows.append(
                            {
                                "hardware": hw.id,
                                "gpus": g,
                                "tp": tp,
                                "pp": pp,
                                "dp": dp,
                                "ep": ep,
                                "cp": 1,
                                "batch": b,
                                "prompt_len": space.prompt_len,
                                "output_len": space.output_len,
                                "weights": f.names[0],
                                "activations": f.names[1],
                                "kv_cache": f.names[2],
                            }
                        )
    return rows, rej


@pytest.mark.parametrize(
    ("model", "hws", "kw"),
    [
        ("mixtral-8x7b", ("h100-sxm", "l40s", "a100-sxm4-80gb"), {"gpus": (4, 8)}),
        (
            "llama-3.1-70b",
            ("h100-sxm",),
            {"tp": (2, 4, 8), "pp": (1, 2, 3), "dp": (1, 2), "batch": (1, 3, 8)},
        ),
        ("flan-t5-xxl", ("mi300x",), {"gpus": (2, 6)}),
    ],
)
def test_infer_search_applies_the_single_plan_rules(model: str, hws: tuple, kw: dict) -> None:
    """The search's masks are the single-plan rules: the same plans, in the same order, and the
    same rejection counts (in the same order) as walking the space one plan at a time."""
    space = SI.InferSpace(prompt_len=256, output_len=4, **{"batch": (1, 2, 3, 8, 64), **kw})
    hw = [get_hardware(h) for h in hws]
    plans, _, rej, n = SI.search_space(model, hw, space)
    ref_rows, ref_rej = _infer_plan_by_plan(model, hw, space)
    assert n == len(plans) == len(ref_rows) > 0
    assert [plans[i] for i in range(n)] == ref_rows
    assert list(C.reasons(rej).items()) == list(C.reasons(ref_rej).items())
    assert list(rej) == [k for k in ref_rej if k in rej]


def test_nothing_fits_leads_with_the_constraint_and_the_least_memory(cli) -> None:  # type: ignore[no-untyped-def]
    """When no plan fits, the line says what failed the valid plans and how much memory the least needs."""
    r = cli(
        "search",
        "train",
        "deepseek-v3",
        "--hw",
        "h100-sxm",
        "--gpus",
        "64",
        "--global-batch",
        "256",
        "--seq-len",
        "2048",
    )
    assert r.code == 2 and len(r.err.strip().splitlines()) == 1
    assert (
        "does not fit in memory" in r.err
        and "the least any plan needs is" in r.err
        and "GiB per GPU" in r.err
    )


def test_a_stack_bounds_the_search_to_what_it_runs() -> None:
    """Megatron-LM 2021 had no ZeRO, context or sequence parallelism and no selective
    recomputation (each with its source in llmcost.stacks): searched with that stack, no plan
    uses them; a dimension the user names is searched as asked."""
    from llmcost.search.space import stack_runs, train_space

    runs = stack_runs("megatron-lm:2021")
    assert runs == {
        "zero": ("0",),
        "schedule": ("1f1b", "interleaved"),
        "cp": (1,),
        "sp": (False,),
        "precision": ("fp16", "bf16"),
        "recompute": ("none", "full"),
    }
    assert stack_runs("torchtitan:2025") == {} and stack_runs(None) == {}
    spec = I.spec_of("llama-3.1-8b")
    hw = get_hardware("h100-sxm")
    space = train_space(spec, hw, {"gpus": 16, "stack": "megatron-lm:2021"})
    assert (space.zero, space.cp, space.sp) == (("0",), (1,), (False,))
    asked = train_space(spec, hw, {"gpus": 16, "stack": "megatron-lm:2021", "zero": "3"})
    assert asked.zero == ("3",)


def test_infer_search_with_context_parallelism_is_the_single_plan() -> None:
    """``--cp`` adds context-parallel degrees (each its own evaluator, cp being shared by the plans
    of one): every plan, uneven batches over dp included, costs the same bits alone."""
    hw = get_hardware("h100-sxm")
    space = SI.InferSpace(
        prompt_len=32768,
        output_len=8,
        gpus=(8,),
        cp=(1, 2, 4),
        batch=(1, 3, 8),
        weights=("bf16",),
        kv_cache=(None,),
        activations=(None,),
    )
    plans, cols, rej, n = SI.search_space("llama-3.1-8b", [hw], space)
    cps = {plans[i]["cp"] for i in range(n)}
    assert cps == {1, 2, 4}
    for i in range(n):
        p = plans[i]
        assert p["gpus"] == p["tp"] * p["pp"] * p["dp"] * p["cp"]
        if not cols["fits"][i]:
            continue
        m = I.cost("llama-3.1-8b", hw, I.plan_from_dict(SI.plan_keys(p))).metrics()
        for k in ("ttft_s", "tpot_s", "output_tokens_per_s_per_gpu", "memory_gib_per_gpu"):
            assert m[k] == float(cols[k][i]), (k, p)
    assert SI.bottlenecks("llama-3.1-8b", plans, np.arange(min(n, 6)))


def test_stack_precisions_the_device_lacks_are_named() -> None:
    """Megatron-LM 2020 trained in fp16 only: on a device without an fp16 peak the search says so
    (one line) instead of rejecting every plan; where both run, fp16 is left to --precision."""
    from llmcost.search.space import train_space

    spec = I.spec_of("llama-3.1-8b")
    with pytest.raises(UserError, match="megatron-lm:2020: it trains in fp16"):
        train_space(spec, get_hardware("tpu-v4"), {"gpus": 16, "stack": "megatron-lm:2020"})
    space = train_space(spec, get_hardware("h100-sxm"), {"gpus": 16, "stack": "megatron-lm:2021"})
    assert space.precision == ("bf16",)


def test_default_precision_on_a_device_without_bf16_is_fp16() -> None:
    """V100 has no bf16 peak: the default search trains in fp16 (its tensor-core format) instead of
    finding no plan."""
    from llmcost import api

    rep = api.search_train("llama-3.1-8b", "v100-sxm2-32gb", gpus=8, global_batch=64, seq_len=2048, top=1)
    assert rep.as_dict()["plans"][0]["plan"]["precision"] == "fp16"


def test_search_train_offload_is_one_tier_for_every_plan() -> None:
    """search train --offload cpu: every plan keeps its optimizer state on the host (ZeRO >= 1), and
    its row costs the same through train."""
    from llmcost import api

    rep = api.search_train(
        "llama-3.1-8b", "h100-sxm", gpus=8, global_batch=64, seq_len=2048, offload="cpu", top=1
    )
    row = rep.as_dict()["plans"][0]
    assert row["plan"]["offload"] == "cpu" and row["plan"]["zero"] in (1, 2, 3)
    again = api.train("llama-3.1-8b", "h100-sxm", row["plan"]).metrics()
    assert again["iteration_time_s"] == row["metrics"]["iteration_time_s"]
