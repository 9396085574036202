"""Test-time scaling: golden expressions, generated code, Kinetics reproduction, properties, accuracy, CLI."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcost.catalog import get_hardware
from llmcost.errors import PlanError, UserError
from llmcost.kernels.roofline import T_KERNEL
from llmcost.tts import accuracy as A
from llmcost.tts import formulas as F
from llmcost.tts import primitives as P
from llmcost.tts import query as T

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).parent / "golden" / "tts_expressions.txt"
H100 = get_hardware("h100-sxm")
B200 = get_hardware("b200")
CTX: dict[str, T.Context] = {}


def run(model: str = "qwen3-1.7b", hw=H100, **kw) -> T.TTSResult:  # noqa: ANN001
    plan = T.TTSPlan(**{"samples": 4, "prompt_len": 200, "gen_len": 1024, **kw})
    key = f"{model}/{hw.id}/{plan.infer}"
    if key not in CTX:
        CTX[key] = T.prepare(model, hw, plan)
    return T.cost(model, hw, plan, CTX[key])


# ------------------------------------------------------------------------------ formulas
def test_golden_expressions() -> None:
    """Every tts expression is pinned (LLMCOST_UPDATE_GOLDEN=1 rewrites the file)."""
    text = "\n".join(f"{k}: {sp.sstr(F.expression(k))}" for k in F.FORMULAS) + "\n"
    if os.environ.get("LLMCOST_UPDATE_GOLDEN"):
        GOLDEN.write_text(text)
    assert GOLDEN.read_text() == text


def test_generated_module_is_current() -> None:
    assert F.GENERATED.read_text() == F.generated_source(), "run python -m llmcost.tts.formulas"


@settings(max_examples=60, deadline=None)
@given(li=st.integers(0, 300), lo=st.integers(1, 300), b=st.one_of(st.integers(1, 700), st.just(math.inf)))
def test_keys_attended_is_the_exact_sum(li: int, lo: int, b: float) -> None:
    from llmcost.tts import _generated as G

    brute = sum(min(b, li + t) for t in range(1, lo + 1))
    assert G.pairs__parallel(float(b), float(li), float(lo), 1.0) == pytest.approx(brute, rel=1e-12)


def test_closed_form_is_the_sum_of_graph_decode_steps() -> None:
    """f_pair·ΣK and k_pos·reads equal the graph's attention FLOPs / KV bytes summed step by step."""
    r = run("qwen3-1.7b", samples=1, prompt_len=50, gen_len=200, strategy="sequential")
    g = r.prims.groups[0]
    ev1 = T.prepare("qwen3-1.7b", H100, r.plan).ev1
    ctx = 50 + np.arange(1, 201, dtype=float)
    attn = {"kinds": ("attention",), "micro_batch": 1.0}
    fl = P.quantity_sum(g.shape, ev1.vals, math.inf, P.FLOPS, ctx=ctx, **attn) * g.count
    fl0 = P.quantity_sum(g.shape, ev1.vals, math.inf, P.FLOPS, ctx=0.0, **attn) * g.count
    assert float(np.sum(fl - fl0)) == pytest.approx(r.totals["attention_flops"], rel=1e-12)
    assert r.totals["kv_read_bytes"] == pytest.approx(g.k_pos * float(np.sum(ctx)), rel=1e-12)


def test_kinetics_dense_cost_reproduced() -> None:
    """Kinetics cost_model/utils.py dense_cost with P = f_tok/2 (the graph's matmul parameters)."""
    r = run("qwen3-8b", hw=B200, samples=32, prompt_len=100, gen_len=8192)
    s = T.prepare("qwen3-8b", B200, r.plan).spec
    P, n, L, Li = r.prims.f_tok / 2, 32, 8192, 100
    hd = s.head_dim * s.num_layers
    comp = (2 * P * L + 2 * (2 * Li + L) * L * s.num_heads * hd) * n
    mem = 2 * (2 * Li + L * n) * L * s.num_kv_heads * hd * 562.5
    assert r.intensity == 562.5
    assert r.eflops == pytest.approx(comp + mem, rel=2e-4)  # bytes: (K, V) x bf16 folded into the 2


def test_intensity_conventions() -> None:
    assert T.intensity(B200, "kinetics")[0] == pytest.approx(4.5e15 / 8e12)
    assert T.intensity(H100, "plan", "bf16")[0] == pytest.approx(H100.peak["bf16"] / H100.memory_bandwidth)
    assert T.intensity(H100, "300")[0] == 300.0
    with pytest.raises(UserError):
        T.intensity(H100, "fast")


# ------------------------------------------------------------------------------ validation
def test_tts_validation_cases(capsys: pytest.CaptureFixture[str]) -> None:
    from llmcost.validation.cases import run as run_cases

    results, summary = run_cases([ROOT / "validation" / "tts.yaml"])
    with capsys.disabled():
        print("\n  tts validation: id, metric, measured, predicted, error")
        for c in results:
            print(f"  {c.id:24s} {c.metric:18s} {c.measured:.4g} {c.predicted:.4g} {c.error:+.2%}")
    assert summary["tts"]["evaluated"] == 6
    for c in results:
        assert abs(c.error) <= 0.10, c.id
        assert abs(c.error) <= c.tolerance, c.id


# ------------------------------------------------------------------------------ physics
@settings(max_examples=25, deadline=None)
@given(strategy=st.sampled_from(T.STRATEGIES), n=st.integers(1, 24), lo=st.integers(64, 4096))
def test_cost_grows_with_samples_and_length(strategy: str, n: int, lo: int) -> None:
    a = run(strategy=strategy, samples=n, gen_len=lo)
    for b in (
        run(strategy=strategy, samples=n + 1, gen_len=lo),
        run(strategy=strategy, samples=n, gen_len=lo + 64),
    ):
        ma, mb = a.metrics(), b.metrics()
        for k in ("eflops_per_query", "flops_per_query", "bytes_per_query", "latency_s", "kv_cache_gib"):
            assert mb[k] >= ma[k] * (1 - 1e-9), k


@settings(max_examples=30, deadline=None)
@given(
    strategy=st.sampled_from(T.STRATEGIES),
    n=st.integers(1, 16),
    lo=st.integers(16, 4096),
    topk=st.integers(1, 512),
    block=st.sampled_from([1, 16, 64]),
    li=st.integers(0, 2000),
)
def test_sparse_attention_never_costs_more(
    strategy: str, n: int, lo: int, topk: int, block: int, li: int
) -> None:
    dense = run(strategy=strategy, samples=n, gen_len=lo, prompt_len=li)
    sparse = run(strategy=strategy, samples=n, gen_len=lo, prompt_len=li, sparse=T.Sparse(topk, block))
    assert sparse.eflops <= dense.eflops * (1 + 1e-12)
    assert sparse.flops <= dense.flops * (1 + 1e-12)
    # latency: sparse may add the top-k selection kernel: a launch per step plus its reads, at
    # most one key summary per block of every position dense attention reads (block = 1 scores
    # every key, which Kinetics' eFLOPs idealize away but the latency model charges), plus its
    # compute: the roofline's 2-norm prices a kernel at up to its compute and memory times added,
    # the selection's FLOPs being part of the sparse plan's attention FLOPs.
    hw = H100
    selection = sparse.totals["steps"] * T_KERNEL + dense.totals["kv_read_bytes"] / block / (
        hw.memory_bandwidth * hw.memory_efficiency
    )
    selection += sparse.totals["attention_flops"] / (hw.peak["bf16"] * hw.attention_efficiency("bf16"))
    assert sparse.latency["total"] <= dense.latency["total"] * (1 + 1e-9) + selection
    assert sparse.metrics()["kv_cache_gib"] == pytest.approx(dense.metrics()["kv_cache_gib"])


def test_sparse_cuts_the_kv_term_of_long_generations() -> None:
    dense = run("qwen3-8b", samples=8, gen_len=16384)
    sparse = run("qwen3-8b", samples=8, gen_len=16384, sparse=T.parse_sparse("topk=256"))
    assert sparse.totals["kv_read_bytes"] < 0.1 * dense.totals["kv_read_bytes"]
    assert sparse.latency["total"] < dense.latency["total"]


def test_shared_prompt_counted_once() -> None:
    r = run("qwen3-8b", samples=16, prompt_len=4000, gen_len=512)
    k = sum(g.k_pos for g in r.prims.groups)
    assert r.metrics()["kv_cache_gib"] * 2**30 == pytest.approx(k * (4000 + 16 * 512))
    gen = T.Generation(samples=16.0, gen_len=512.0, w_step=0.0, intensity=r.intensity)
    unshared = T.query_totals(r.prims, replace(r.plan, sparse=T.Sparse(10**6)), gen)
    assert unshared["kv_read_bytes"] == pytest.approx(k * 16 * (4000 * 512 + 512 * 513 / 2))
    assert r.totals["kv_read_bytes"] == pytest.approx(k * (4000 * 512 + 16 * 512 * 513 / 2))
    assert (
        "dense used"
        in run("qwen3-8b", samples=16, prompt_len=4000, gen_len=512, sparse=T.Sparse(10**6)).notes[0]
    )


def test_one_sample_strategies_agree() -> None:
    costs = [run(strategy=s, samples=1).metrics() for s in T.STRATEGIES]
    for m in costs[1:]:
        for k in ("eflops_per_query", "flops_per_query", "latency_s"):
            assert m[k] == pytest.approx(costs[0][k], rel=1e-9), k


def test_step_sampling_is_accurate(monkeypatch: pytest.MonkeyPatch) -> None:
    a = run("qwen3-1.7b", samples=4, gen_len=3000, strategy="beam", beam_step=100)
    monkeypatch.setattr(T, "STEP_SAMPLES", 10**6)
    b = run("qwen3-1.7b", samples=4, gen_len=3000, strategy="beam", beam_step=100)
    assert a.latency["decode"] == pytest.approx(b.latency["decode"], rel=5e-3)


def test_verifier_adds_cost_and_sliding_window_model() -> None:
    a, b = run(), run(verifier="qwen3-0.6b")
    assert b.flops > a.flops and b.latency["total"] > a.latency["total"]
    w = run("gpt-oss-20b", samples=4)
    assert any(not math.isinf(g.window) for g in w.prims.groups)


def test_plan_errors() -> None:
    with pytest.raises(UserError, match="strategy"):
        run(strategy="tree")
    with pytest.raises(PlanError, match="does not fit"):
        run("qwen3-32b", samples=64, gen_len=32768)
    with pytest.raises(UserError, match="topk"):
        T.parse_sparse("block=16")
    with pytest.raises(PlanError):
        T.cost("qwen3-8b", H100, T.TTSPlan(infer=replace(T.TTSPlan().infer, pp=2)))


# ------------------------------------------------------------------------------ accuracy
@settings(max_examples=40, deadline=None)
@given(p=st.floats(0, 1), n=st.integers(1, 200), fm=st.floats(0.1, 1))
def test_pass_at_n_non_decreasing(p: float, n: int, fm: float) -> None:
    assert A.pass_at_n(float(n + 1), p, fm) >= A.pass_at_n(float(n), p, fm) - 1e-15
    assert 0 <= A.pass_at_n(float(n), p, fm) <= fm + 1e-12


def test_majority_model() -> None:
    assert A.majority(1, 0.3) == pytest.approx(0.3)
    assert A.majority(3, 0.4, 1.0) == pytest.approx(0.4**3 + 3 * 0.4**2 * 0.6)  # binomial: c > N/2
    assert A.majority(15, 0.7, 1.0) > A.majority(5, 0.7, 1.0)
    assert A.majority(15, 0.3, 0.05) > A.majority(15, 0.3, 1.0)  # scattered wrong answers help


@settings(max_examples=30, deadline=None)
@given(p=st.floats(0.01, 0.99), eps=st.floats(1e-4, 0.2))
def test_saturation_is_the_first_small_gain(p: float, eps: float) -> None:
    n = A.saturation(p, 1.0, eps)
    gain = lambda k: float(A.pass_at_n(k + 1.0, p) - A.pass_at_n(float(k), p))  # noqa: E731
    assert gain(n) < eps * (1 + 1e-9)
    if n > 0:
        assert gain(n - 1) >= eps * (1 - 1e-9)


def test_accuracy_files(tmp_path: Path) -> None:
    y = tmp_path / "acc.yaml"
    y.write_text("qwen3-8b: {1024: 0.2, 4096: 0.4}\n")
    t = A.load(y)
    assert t.lookup("qwen3-8b", 2048).p == pytest.approx(0.3)
    assert t.lookup("qwen3-8b", 8192) is None
    c = tmp_path / "acc.csv"
    c.write_text("model,gen_len,p,strategy\nqwen3-8b,1024,0.2,\nqwen3-8b,1024,0.1,beam\n")
    t = A.load(c)
    assert t.lookup("qwen3-8b", 1024, "beam").p == 0.1 and t.lookup("qwen3-8b", 1024, "majority").p == 0.2
    c.write_text("model,gen_len,p\nqwen3-8b,1024,1.5\n")
    with pytest.raises(UserError):
        A.load(c)
    assert A.pareto([3, 1, 2, 4], [0.5, 0.2, 0.5, 0.9]) == [1, 2, 3]


# ------------------------------------------------------------------------------ CLI
def test_cli_tts(cli) -> None:  # noqa: ANN001
    r = cli(
        "tts", "qwen3-1.7b", "--hw", "h100-sxm", "--samples", "4", "--gen-len", "2048", "--format", "json"
    )
    assert r.code == 0, r.err
    m = json.loads(r.out)
    for k in T.METRICS:
        assert m[k] > 0
    r = cli("tts", "qwen3-1.7b", "--strategy", "beam", "--sparse-attention", "topk=16,block=32", "--explain")
    assert r.code == 0 and "eflops = c_comp + c_mem*intensity" in r.out
    r = cli("tts", "qwen3-1.7b", "--strategy", "best", "--samples", "2")
    assert r.code == 2 and r.err.count("\n") == 1 and "did you mean" in r.err
    r = cli("tts", "qwen3-1.7b", "--sparse-attention", "topk")
    assert r.code == 2 and r.err.count("\n") == 1


def test_cli_search_tts(cli, tmp_path: Path) -> None:  # noqa: ANN001
    acc = tmp_path / "a.yaml"
    acc.write_text(
        "- {model: qwen3-1.7b, gen_len: 1024, p: 0.2}\n- {model: qwen3-1.7b, gen_len: 4096, p: 0.4}\n"
        "- {model: qwen3-0.6b, gen_len: 1024, p: 0.1}\n- {model: qwen3-0.6b, gen_len: 4096, p: 0.2}\n"
    )
    r = cli(
        "search",
        "tts",
        "--models",
        "qwen3-1.7b,qwen3-0.6b",
        "--hw",
        "h100-sxm",
        "--budget-eflops",
        "1e15",
        "--gen-lens",
        "1024,2048,4096",
        "--samples",
        "1,4,16",
        "--accuracy",
        str(acc),
        "--pareto",
        "--format",
        "json",
    )
    assert r.code == 0, r.err
    out = json.loads(r.out)
    assert set(out) >= {"plans_evaluated", "elapsed_s", "rejected", "plans"}
    assert out["plans_evaluated"] == 2 * 4 * 3 * 3
    accs = [e["metrics"]["accuracy"] for e in out["plans"]]
    costs = [e["metrics"]["eflops_per_query"] for e in out["plans"]]
    assert accs == sorted(accs) and costs == sorted(costs) and max(costs) <= 1e15
    assert out["saturation"][0]["n_star"] >= 1
    r = cli("search", "tts", "--models", "qwen3-0.6b", "--budget-seconds", "5", "--pareto")
    assert r.code == 2 and "--accuracy" in r.err
    r = cli("search", "tts", "--models", "qwen3-0.6b", "--budget-seconds", "5", "--budget-usd", "1")
    assert r.code == 2
    r = cli(
        "search",
        "tts",
        "--models",
        "qwen3-0.6b",
        "--hw",
        "b200",
        "--budget-seconds",
        "20",
        "--format",
        "table",
    )
    assert r.code == 0 and "plans evaluated" in r.out


def test_runtime_path_does_not_import_sympy() -> None:
    code = (
        "import sys; from llmcost.cli import main\n"
        "try:\n    main(['tts', 'qwen3-0.6b', '--format', 'json'])\nexcept SystemExit:\n    pass\n"
        "assert 'sympy' not in sys.modules, 'sympy imported'"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_beam_accuracy_needs_beam_rows(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Beam candidates are not independent samples: generic pass@1 rows give beam no accuracy."""
    from llmcost.tts.accuracy import load

    f = tmp_path / "acc.yaml"
    f.write_text("- {model: m, gen_len: 1024, p: 0.3}\n- {model: m, gen_len: 1024, p: 0.5, strategy: beam}\n")
    table = load(f)
    assert table.lookup("m", 1024, "best_of_n").p == 0.3
    assert table.lookup("m", 1024, "beam").p == 0.5
    f.write_text("- {model: m, gen_len: 1024, p: 0.3}\n")
    assert load(f).lookup("m", 1024, "beam") is None
