"""Inference cost model: generated code, physics properties, plan errors, CLI and validation cases."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcost.catalog import get_hardware
from llmcost.errors import PlanError, UserError
from llmcost.graph import _generated as gen
from llmcost.inference import serve as I
from llmcost.validation import inference as IV

ROOT = Path(__file__).resolve().parents[1]
H100 = get_hardware("h100-sxm")


def run(model: str = "llama-3.1-8b", hw=H100, **plan) -> I.InferenceResult:  # noqa: ANN001
    base = {"batch": 1, "prompt_len": 512, "output_len": 32}
    base.update(plan)
    return I.cost(model, hw, I.plan_from_dict(base))


def test_generated_module_is_current() -> None:
    from llmcost.graph import formulas as F

    assert F.GENERATED.read_text() == F.generated_source(), "run python -m llmcost.graph.formulas"


def test_composition_module_is_current() -> None:
    from llmcost.inference import formulas as F

    assert F.GENERATED.read_text() == F.generated_source(), "run python -m llmcost.inference.formulas"


def test_composition_formulas_are_the_documented_arithmetic() -> None:
    """The generated composition functions evaluate the formulas of the module docstring."""
    from llmcost.inference import _generated as C

    m = C.micro_batches(b_rep=7, pp=3)
    assert m == 3 and C.micro_batch(b_rep=7, pp=3) == 7 / 3 and C.micro_batches(b_rep=1, pp=4) == 1
    assert C.ttft(n_mb=3, pp=4, t_prefill=2.0, t_hop=0.5) == (3 + 4 - 1) / 4 * 2.0 + 3 * 0.5
    assert C.tpot(t_steps=6.0, n_steps=4) == 1.5 and C.e2e(ttft=1.0, t_steps=6.0) == 7.0
    assert C.hop_bytes(micro_batch=2.0, seq=10, cp=2, d_model=8, b_r=2.0) == 2 * 10 / 2 * 8 * 2
    total = C.memory__total(m_weights=1.0, m_kv=2.0, m_act=3.0, m_reserved=4.0)
    assert total == 10.0 and C.memory__weights(m_layers=8.0, pp=2, m_io=1.0, m_norm=0.5, m_draft=0.5) == 6.0
    assert C.memory__kv_cache(m_kv_all=8.0, pp=4, m_kv_draft=1.0) == 3.0
    # speculative decoding: k drafts, acceptance α (Leviathan et al. 2023 eq. 1), k draft passes per step
    assert C.accepted_tokens(alpha=0.5, n_draft=2) == pytest.approx(1 + 0.5 + 0.25)
    assert C.decode_step(t_decode=2.0, pp=3, t_hop=0.5, n_draft=3, t_draft=0.25) == 2.0 + 2 * 0.5 + 3 * 0.25
    assert C.decode_time(t_iters=12.0, n_acc=3.0, n_steps=10) == 4.0
    assert C.decode_time(t_iters=12.0, n_acc=3.0, n_steps=2) == 6.0  # at least one step
    assert C.joules_per_token(devices=8, tdp_w=700.0, s_per_tok=1e-3) == pytest.approx(5.6)


def test_scalar_and_array_evaluation_identical() -> None:
    fn, names, _ = gen.FUNCTIONS["decode__std__dense"]
    ev = I.Evaluator(I.spec_of("llama-3.1-8b"), H100, I.Plan(batch=4))
    ctx = np.array([17.0, 1000.0, 4096.0])
    vals = dict(ev.vals, micro_batch=4.0, seq=1.0, window=np.inf, ctx=ctx)
    arr = fn(*(vals[n] for n in names))
    for j, c in enumerate(ctx):
        one = fn(*(dict(vals, ctx=float(c))[n] for n in names))
        for a, s in zip(arr, one, strict=True):
            assert np.broadcast_to(a, ctx.shape)[j] == s
    ph_arr = I._decode(ev, 4.0, ctx, 512)
    for j, c in enumerate(ctx):
        assert float(ph_arr.time[j]) == float(I._decode(ev, 4.0, float(c), 512).time)


def test_metrics_use_readme_names() -> None:
    m = run().metrics()
    for k in IV.METRICS:
        assert k in m and m[k] > 0
    r = run(output_len=100)
    assert r.e2e == pytest.approx(r.ttft + 99 * r.tpot)


@settings(max_examples=25, deadline=None)
@given(b=st.integers(1, 64), p=st.integers(16, 4096), o=st.integers(2, 64), bw=st.floats(3.4, 20))
def test_more_bandwidth_never_slower(b: int, p: int, o: int, bw: float) -> None:
    fast = H100.with_overrides({"hbm_bandwidth_tbps": bw})
    a, z = run(batch=b, prompt_len=p, output_len=o), run(hw=fast, batch=b, prompt_len=p, output_len=o)
    assert z.ttft <= a.ttft and z.tpot <= a.tpot


@settings(max_examples=25, deadline=None)
@given(b=st.integers(1, 32), p=st.integers(16, 8192), tp=st.sampled_from([1, 2, 4, 8]))
def test_time_at_least_roofline_minimum(b: int, p: int, tp: int) -> None:
    r = run("llama-3.1-8b", batch=b, prompt_len=p, output_len=2, tp=tp)
    flops = sum(o.count * float(np.max(o.flops)) for o in r.prefill.ops)
    weights = sum(o.count * float(np.max(o.weight_bytes)) for o in r.prefill.ops)
    assert r.ttft >= flops / H100.peak["bf16"]
    assert r.ttft >= weights / H100.memory_bandwidth
    assert r.tpot >= weights / H100.memory_bandwidth


@settings(max_examples=20, deadline=None)
@given(b=st.integers(1, 60), p=st.integers(16, 2048))
def test_memory_grows_with_batch(b: int, p: int) -> None:
    a, z = run(batch=b, prompt_len=p), run(batch=b + 1, prompt_len=p)
    assert z.memory["total"] > a.memory["total"] and z.memory["kv_cache"] > a.memory["kv_cache"]


@pytest.mark.parametrize("model", ["llama-3.1-8b", "deepseek-v2", "gemma-2-9b", "mixtral-8x7b", "t5-v1_1-xl"])
def test_decode_time_non_decreasing_in_context(model: str) -> None:
    ev = I.Evaluator(I.spec_of(model), get_hardware("h200-sxm"), I.Plan(batch=8, tp=1, prompt_len=16))
    ctx = np.linspace(1, 32768, 64)
    t = np.asarray(I._decode(ev, 8.0, ctx, 16).time)
    assert np.all(np.diff(t) >= -1e-15)


def test_largest_batch_fits_and_next_does_not() -> None:
    r = run("llama-3.1-70b", tp=4, batch=8, prompt_len=2048, output_len=512)
    assert r.max_batch > 8
    run("llama-3.1-70b", tp=4, batch=r.max_batch, prompt_len=2048, output_len=512)
    with pytest.raises(PlanError, match="does not fit"):
        run("llama-3.1-70b", tp=4, batch=r.max_batch + 1, prompt_len=2048, output_len=512)


@pytest.mark.parametrize(
    "plan,match",
    [
        ({"tp": 3}, "heads do not divide"),
        ({"tp": 8, "gpus": 4}, "GPUs but"),
        ({"pp": 5}, "layers do not divide"),
        ({"ep": 2, "dp": 2}, "mixture-of-experts"),
        ({"batch": 1, "dp": 2}, "leaves some of the 2 dp replicas idle"),
        ({"weights": "fp4", "activations": "fp4"}, "no fp4 compute"),
        ({"weights": "bf16", "activations": "fp8"}, "not a supported GEMM"),
    ],
)
def test_plan_errors(plan: dict, match: str) -> None:
    with pytest.raises(PlanError, match=match):
        run(**plan)


def test_precision_effects() -> None:
    bf = run("llama-3.1-70b", tp=4, batch=1, output_len=8)
    w4 = run("llama-3.1-70b", tp=4, batch=1, output_len=8, weights="int4", activations="bf16")
    f8 = run("llama-3.1-70b", tp=4, batch=1, output_len=8, weights="fp8", activations="fp8")
    assert w4.math == ("bf16", "bf16") and f8.math[0] == "fp8"
    assert w4.tpot < f8.tpot < bf.tpot  # decode is weight-read bound
    assert w4.memory["weights"] < f8.memory["weights"] < bf.memory["weights"]
    with pytest.raises(UserError):
        run(weights="int3")


def test_parallelism_terms_present() -> None:
    names = {o.name for o in run("mixtral-8x7b", tp=2, dp=2, ep=2, batch=4).decode.ops}
    assert {"attn_allreduce", "ffn_allreduce", "ep_dispatch", "ep_combine"} <= names
    r = I.cost(
        "llama-3.1-70b",
        H100,
        I.plan_from_dict({"tp": 8, "cp": 2, "batch": 1, "prompt_len": 65536, "output_len": 2}),
    )
    assert any(o.name.startswith("cp_ring") for o in r.prefill.ops)
    pp = run("llama-3.1-70b", tp=4, pp=2, batch=8)
    one = run("llama-3.1-70b", tp=8, batch=8)
    assert pp.memory["weights"] == pytest.approx(one.memory["weights"], rel=0.1)


def test_cli_json_and_errors(cli) -> None:  # noqa: ANN001
    r = cli(
        "infer",
        "llama-3.1-8b",
        "--hw",
        "h100-sxm",
        "--batch",
        "4",
        "--prompt-len",
        "256",
        "--output-len",
        "16",
        "--format",
        "json",
    )
    assert r.code == 0, r.err
    data = json.loads(r.out)
    assert set(IV.METRICS) <= set(data)
    r = cli("infer", "llama-3.1-70b", "--hw", "h100-sxm", "--tp", "3")
    assert r.code == 2 and "tp 3" in r.err and "\n" not in r.err.strip()
    r = cli("infer", "llama-3.1-8b", "--breakdown")
    assert r.code == 0 and "attention" in r.out and "memory" in r.out
    r = cli("infer", "llama-3.1-8b", "--explain", "--output-len", "4")
    assert r.code == 0 and "qkv_proj.flops" in r.out


def test_cli_plan_file(cli, tmp_path: Path) -> None:  # noqa: ANN001
    f = tmp_path / "plan.yaml"
    f.write_text("tp: 2\nbatch: 8\nprompt_len: 128\noutput_len: 8\nweights: fp8\nactivations: fp8\n")
    r = cli("infer", "llama-3.1-8b", "--plan", str(f), "--format", "json")
    assert r.code == 0, r.err
    assert json.loads(r.out)["gpus"] == 2


# ------------------------------------------------------------------------------ validation
def _results() -> list:
    from llmcost.validation.cases import run as vrun

    results, _ = vrun([ROOT / "validation" / "inference.yaml"])
    return results


def test_inference_validation_cases() -> None:
    """Every public case is evaluated or carries a reason; the table is printed (pytest -s)."""
    results = _results()
    assert len(results) == 35
    print(f"\n{'id':26} {'metric':28} {'measured':>10} {'predicted':>10} {'error':>8}")
    for r in results:
        pred = "-" if r.predicted is None else f"{r.predicted:10.4g}"
        err = r.reason if r.error is None else f"{100 * r.error:+7.1f}%"
        print(f"{r.id:26} {r.metric:28} {r.measured:10.4g} {pred:>10} {err}")
        assert r.predicted is not None or r.reason
    errs = [abs(r.error) for r in results if r.error is not None]
    print(f"median |error| {100 * statistics.median(errs):.1f}% over {len(errs)} cases")
    assert len(errs) >= 30


def test_inference_validation_median_goal() -> None:
    """Goal (issue 4), first half: median |error| <= 20% over the public inference cases."""
    results = _results()
    errs = [abs(r.error) for r in results if r.error is not None]
    assert statistics.median(errs) <= 0.20


@pytest.mark.xfail(
    reason="issue-4 goal, second half, not met: batch-1 TTFT/TPOT of inf-01, inf-03-isl128, "
    "inf-14, inf-15-*, inf-16-* are 16-52% fast (see the validation table); strict, so meeting the "
    "goal fails this marker and it becomes a plain assertion",
    strict=True,
)
def test_inference_validation_latency_goal() -> None:
    """Goal (issue 4), second half: dense TTFT/TPOT on H100/A100 within 15%."""
    results = _results()
    lat = [r for r in results if r.metric in ("ttft_s", "tpot_s") and r.error is not None]
    assert all(abs(r.error) <= 0.15 for r in lat)


def test_ep_not_dividing_experts_costs_the_busiest_rank() -> None:
    """ep need not divide E: the busiest rank holds ceil(E/ep) expert slots (EPLB-style redundancy)."""
    hw = get_hardware("h100-sxm")
    plan = dict(dp=3, ep=3, batch=3, prompt_len=128, output_len=4)
    r = I.cost("mixtral-8x7b", hw, I.Plan(**plan))
    assert any("ceil(8/3) = 3" in n for n in r.notes)
    r4 = I.cost("mixtral-8x7b", hw, I.Plan(dp=4, ep=4, batch=4, prompt_len=128, output_len=4))
    # 3 resident experts per rank at ep 3 vs 2 at ep 4 (same dense part)
    assert r.memory["weights"] > r4.memory["weights"]
    with pytest.raises(PlanError, match="exceeds the 8 experts"):
        I.cost("mixtral-8x7b", hw, I.Plan(dp=16, ep=16, batch=16, prompt_len=128, output_len=4))


def test_disaggregated_decode_pool_rate_is_batch_over_tpot() -> None:
    hw = get_hardware("h100-sxm")
    r = I.cost("llama-3.1-8b", hw, I.Plan(batch=8, prompt_len=512, output_len=64, disaggregated=True))
    assert r.metrics()["output_tokens_per_s"] == pytest.approx(8 / r.tpot)
    colo = I.cost("llama-3.1-8b", hw, I.Plan(batch=8, prompt_len=512, output_len=64))
    assert colo.metrics()["output_tokens_per_s"] == pytest.approx(8 * 64 / colo.e2e)


@pytest.mark.parametrize("pp", [1, 2, 4])
def test_largest_batch_is_exact_with_pipeline(pp: int) -> None:
    """Memory is only piecewise affine in the batch when pp > 1: the largest batch must fit, one more must not."""
    from llmcost.catalog import get_hardware
    from llmcost.inference.serve import (
        Evaluator,
        Plan,
        _micro,
        _prefill,
        device_memory,
        largest_batch,
        spec_of,
    )

    hw = get_hardware("h100-sxm")
    plan = Plan(tp=4, pp=pp, batch=None, prompt_len=1024, output_len=64, weights="int4")
    ev = Evaluator(spec_of("llama-3.1-70b"), hw, plan)

    def total(b: int) -> float:
        return float(device_memory(ev, float(b), _prefill(ev, b / _micro(b, pp), 1024))["total"])

    best = largest_batch(ev)
    assert best > 0
    assert total(best) <= hw.memory_usable < total(best + 1)


def _one_by_one(model: str, hw, plans: list[I.Plan]) -> None:  # noqa: ANN001
    """``serve`` on one Evaluator holding ``plans`` (array fields) gives each plan's bits alone."""
    spec = I.spec_of(model)
    keys = ("tp", "pp", "dp", "ep", "batch", "weights", "activations", "kv_cache")
    many = I.Plan(
        **{
            k: np.array([getattr(p, k) for p in plans], dtype=object if k in keys[5:] else None) for k in keys
        },
        cp=plans[0].cp,
        prompt_len=plans[0].prompt_len,
        output_len=plans[0].output_len,
    )
    ev = I.Evaluator(spec, hw, many)
    r = I.serve(ev, many.batch // many.dp)
    neck = I.bottleneck_phase(ev, many.batch // many.dp)
    for j, p in enumerate(plans):
        ev1 = I.Evaluator(spec, hw, p)
        one = I.serve(ev1, p.batch // p.dp)
        for k in ("ttft", "tpot", "e2e"):
            assert float(one[k]) == float(r[k][j]), (k, p)
        for k, v in one["memory"].items():
            assert float(v) == float(np.broadcast_to(r["memory"][k], (len(plans),))[j]), (k, p)
        alone = I.dominant(one["decode"] if p.output_len > 1 else one["prefill"])
        assert I.dominant(neck.at(j)) == alone, p


@pytest.mark.parametrize(
    ("model", "hw", "shared", "layouts"),
    [
        (
            "llama-3.1-70b",
            "h100-sxm",
            {},
            [(1, 1, 1, 1), (2, 2, 2, 1), (4, 1, 2, 1), (8, 1, 1, 1), (2, 4, 1, 1)],
        ),
        (
            "llama-3.1-8b",
            "h100-sxm",
            {"cp": 2, "prompt_len": 8192},
            [(1, 1, 1, 1), (2, 1, 2, 1), (4, 2, 1, 1)],
        ),
        ("mixtral-8x7b", "l40s", {"output_len": 1}, [(2, 1, 2, 4), (4, 1, 2, 8), (1, 2, 4, 2)]),
        ("deepseek-v3", "h200-sxm", {"output_len": 9}, [(8, 1, 1, 8), (4, 1, 4, 16), (2, 1, 8, 16)]),
        ("flan-t5-xxl", "h100-sxm", {}, [(1, 1, 1, 1), (4, 2, 1, 1)]),
    ],
)
def test_several_plans_at_once_are_each_plan_alone(model: str, hw: str, shared: dict, layouts: list) -> None:
    """The search's evaluation (one Evaluator, plans on the last axis) is the single-plan one."""
    fmts = [("bf16", None, None), ("int4", None, "fp8"), ("fp8", "fp8", None)]
    base = {"prompt_len": 512, "output_len": 17, **shared}
    plans = [
        I.Plan(tp=tp, pp=pp, dp=dp, ep=ep, batch=dp * b, weights=w, activations=a, kv_cache=kv, **base)
        for (tp, pp, dp, ep) in layouts
        for (w, a, kv) in fmts
        for b in (1, 3, 16)
    ]
    _one_by_one(model, get_hardware(hw), plans)


def test_rule_masks_are_check_plan() -> None:
    """Each validity rule is written once: ``first_broken`` on arrays of plans names, for every
    plan, the rule whose message ``check_plan`` raises for that plan alone."""
    seen: set[int] = set()
    for model in ("mixtral-8x7b", "qwen2.5-14b", "flan-t5-xxl"):
        spec = I.spec_of(model)
        for cp in (1, 2):  # shared by the plans of one Evaluator
            grid = [
                {"tp": tp, "pp": pp, "dp": dp, "ep": ep, "batch": b, "gpus": tp * pp * dp * cp + (b == 3)}
                for tp in (1, 2, 3, 5, 8, 16)
                for pp in (1, 2, 5)
                for dp in (1, 2, 4)
                for ep in (1, 2, 4, 16)
                for b in (1, 2, 3, 4)
            ]
            cols = {k: np.array([g[k] for g in grid]) for k in grid[0]}
            firsts = I.first_broken(spec, I.Plan(cp=cp, **cols))
            assert firsts.shape == (len(grid),)
            seen |= set(firsts.tolist())
            for g, k in zip(grid, firsts.tolist(), strict=True):
                p = I.Plan(cp=cp, **g)
                assert I.first_broken(spec, p) == k
                if k < 0:
                    I.check_plan(spec, H100, p)
                    continue
                with pytest.raises(PlanError) as e:
                    I.check_plan(spec, H100, p)
                assert str(e.value) == I.RULES[k].message(spec, p)
    # every rule met but the length / node / context ones, schedule (3), speculative and decode_attention
    # (not varied here)
    assert seen >= {-1, *range(len(I.RULES) - 9)}


def test_uneven_batch_over_dp_runs_at_the_busiest_replica() -> None:
    """10 sequences on 4 replicas run as 3, 3, 2, 2: latency and memory are those of 12 (3 each),
    the output rate that of 10 sequences over that time, and a note says so."""
    r10, r12 = run(dp=4, batch=10), run(dp=4, batch=12)
    assert (r10.ttft, r10.tpot, r10.e2e) == (r12.ttft, r12.tpot, r12.e2e)
    assert r10.memory == r12.memory
    m10, m12 = r10.metrics(), r12.metrics()
    assert m10["output_tokens_per_s"] == pytest.approx(m12["output_tokens_per_s"] * 10 / 12, rel=1e-12)
    assert any("busiest sets" in n for n in r10.notes)


def test_per_replica_over_arrays() -> None:
    assert I.per_replica(np.array([10, 12, 3]), np.array([4, 4, 3])).tolist() == [3, 3, 1]


def test_prefill_chunk_bounds_the_workspace_not_the_time() -> None:
    """A chunked prefill holds one chunk's activations (so more sequences fit); its time is priced
    as one pass; a disaggregated decode pool holds a decode step's, however long the prompts."""
    base = {"batch": 64, "prompt_len": 4096, "output_len": 16}
    whole = I.cost("llama-3.1-8b", H100, I.plan_from_dict(base))
    chunk = I.cost("llama-3.1-8b", H100, I.plan_from_dict({**base, "prefill_chunk": 2048}))
    assert chunk.memory["activations"] < whole.memory["activations"] / 50
    assert (chunk.ttft, chunk.tpot) == (whole.ttft, whole.tpot)
    assert chunk.max_batch > whole.max_batch
    pool = I.cost("llama-3.1-8b", H100, I.plan_from_dict({**base, "disaggregated": True}))
    assert pool.memory["activations"] < whole.memory["activations"] / 500
    with pytest.raises(UserError, match="prefill_chunk"):
        I.plan_from_dict({**base, "prefill_chunk": 0})


def test_prefill_gemms_run_at_their_shape_efficiency() -> None:
    """Prefill matmuls get the GEMM shape efficiency training uses (llmcost.kernels.gemm): a device
    without shape figures prefills faster; decode steps (memory-bound GEMMs) are unchanged."""
    from dataclasses import replace

    plan = I.plan_from_dict(
        {"tp": 4, "batch": 1, "prompt_len": 128, "output_len": 16, "weights": "fp8", "activations": "fp8"}
    )
    shaped = I.cost("llama-2-70b", H100, plan)
    flat = I.cost("llama-2-70b", replace(H100, gemm_shape=None), plan)
    assert shaped.ttft > flat.ttft
    assert shaped.tpot == pytest.approx(flat.tpot, rel=1e-12)


def test_few_row_prefill_gemms_split_k_and_stay_memory_bound() -> None:
    """A one-token prefill costs about what a decode step does (its GEMMs split K across the idle SMs and
    stay weight-read bound; the tiles' idle rows put their compute term near the weight read, which
    the roofline's 2-norm adds: within 15%, measured 1.32x the weight read at m = 1 on the H100), and
    an encoder-decoder's 16-token prompt prefills at most 25% slower with shape figures than without
    (measured on the H100: a 16-row GEMM takes 1.3x its weight read, hardware/measured/h100-sxm.yaml)."""
    from dataclasses import replace

    one = I.cost("llama-3.1-8b", H100, I.plan_from_dict({"batch": 1, "prompt_len": 1, "output_len": 16}))
    assert one.tpot <= one.ttft <= 1.15 * one.tpot
    plan = I.plan_from_dict({"batch": 1, "prompt_len": 16, "output_len": 16})
    shaped = I.cost("t5-11b", H100, plan)
    flat = I.cost("t5-11b", replace(H100, gemm_shape=None), plan)
    assert flat.ttft <= shaped.ttft <= 1.25 * flat.ttft


def test_ep_imbalance_loads_the_busiest_rank() -> None:
    """The busiest expert-parallel rank computes and receives ep_imbalance times the mean: with
    EP the default is TensorRT-LLM's measured EPLB ratio (1.11), 1 states balanced routing, and
    without EP there is no imbalance to price."""
    from llmcost.inference.evaluator import ep_imbalance

    base = {"tp": 1, "ep": 8, "dp": 8, "gpus": 8, "batch": 64, "prompt_len": 512, "output_len": 8}
    assert ep_imbalance(I.plan_from_dict(base)) == pytest.approx(1.11)
    assert ep_imbalance(I.plan_from_dict({**base, "ep": 1, "dp": 8})) == 1.0
    hot = I.cost("mixtral-8x7b", H100, I.plan_from_dict({**base, "ep_imbalance": 2.5}))
    flat = I.cost("mixtral-8x7b", H100, I.plan_from_dict({**base, "ep_imbalance": 1.0}))
    assert hot.ttft > flat.ttft and hot.tpot > flat.tpot
    with pytest.raises(UserError, match="ep_imbalance"):
        I.plan_from_dict({**base, "ep_imbalance": 0.5})
