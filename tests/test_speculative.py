"""Speculative decoding (plan key ``speculative``): the verification pass, the draft passes, the
accepted tokens per step, memory, the search and the errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llmcost.catalog import get_hardware
from llmcost.errors import PlanError, UserError
from llmcost.inference import serve as I
from llmcost.inference.plan import MTP_ACCEPTANCE, accepted_per_step, speculation_of
from llmcost.search import infer as SI

H100 = get_hardware("h100-sxm")
B200 = get_hardware("b200")


def run(model: str = "llama-3.1-8b", hw=H100, **kw):  # noqa: ANN001, ANN003, ANN201
    base = {"batch": 4, "prompt_len": 512, "output_len": 64}
    return I.cost(model, hw, I.plan_from_dict({**base, **kw}))


def test_step_is_verification_plus_drafts_over_accepted_tokens() -> None:
    """TPOT = (T_verify(k + 1 tokens) + k·T_draft) / n_acc, every term at each step's context."""
    r = run(speculative={"method": "eagle", "tokens": 3, "acceptance_length": 2.5})
    t_ver = np.asarray(r.decode.time, dtype=float)
    t_draft = np.asarray(r.draft.time, dtype=float)
    assert r.tpot == pytest.approx(np.mean(t_ver + 3 * t_draft) / 2.5, rel=1e-12)
    assert r.e2e == pytest.approx(r.ttft + 63 * r.tpot, rel=1e-12)


def test_without_speculation_nothing_changes() -> None:
    """No ``speculative``: no draft phase, and the figures of a plan that never had the key."""
    a, b = run(), run(speculative=None)
    assert a.draft is None and (a.ttft, a.tpot, a.e2e) == (b.ttft, b.tpot, b.e2e)


def test_verification_reads_the_kv_cache_once() -> None:
    """k + 1 query tokens per sequence: k + 1 times the attention FLOPs, the KV cache read once."""
    base = run(batch=1, prompt_len=8192, output_len=2)
    spec = run(
        batch=1,
        prompt_len=8192,
        output_len=2,
        speculative={"method": "ngram", "tokens": 3, "acceptance_rate": 0.5},
    )
    att = [next(o for o in r.decode.ops if o.kind == "attention") for r in (base, spec)]
    assert float(np.mean(att[1].flops)) == pytest.approx(4 * float(np.mean(att[0].flops)))
    assert float(np.mean(att[1].hbm_bytes)) < 1.1 * float(np.mean(att[0].hbm_bytes))


def test_nothing_accepted_is_never_faster() -> None:
    """Acceptance length 1 (every draft rejected): the verification and drafts cost, nothing gained."""
    base = run()
    for method in ("ngram", "eagle"):
        r = run(speculative={"method": method, "tokens": 4, "acceptance_length": 1.0})
        assert r.tpot >= base.tpot


@settings(max_examples=25, deadline=None)
@given(st.floats(0.0, 0.98), st.floats(0.0, 0.02), st.integers(1, 6))
def test_higher_acceptance_never_slower(rate: float, more: float, k: int) -> None:
    lo = run(speculative={"method": "eagle", "tokens": k, "acceptance_rate": rate})
    hi = run(speculative={"method": "eagle", "tokens": k, "acceptance_rate": rate + more})
    assert hi.tpot <= lo.tpot and hi.e2e <= lo.e2e


def test_accepted_tokens_geometric_and_default_mtp() -> None:
    """(1 − α^(k+1)) / (1 − α) (Leviathan et al. 2023 eq. 1); k + 1 at α = 1; mtp defaults to 0.85."""
    assert accepted_per_step(speculation_of({"method": "mtp", "tokens": 1})) == pytest.approx(
        1 + MTP_ACCEPTANCE
    )
    full = speculation_of({"method": "eagle", "tokens": 4, "acceptance_rate": 1.0})
    assert accepted_per_step(full) == 5.0
    assert accepted_per_step(speculation_of({"method": "ngram", "tokens": 2, "acceptance_rate": 0.0})) == 1.0
    assert accepted_per_step(None) == 1.0


def test_mtp_draft_memory_and_ngram_none() -> None:
    """The MTP module's own layer (and its KV cache) is resident; prompt lookup holds nothing."""
    kw = {"tp": 8, "ep": 8, "gpus": 8, "weights": "fp8", "batch": 8, "prompt_len": 1024, "output_len": 64}
    base = run("deepseek-v3", B200, **kw)
    mtp = run("deepseek-v3", B200, speculative={"method": "mtp", "tokens": 2}, **kw)
    ngram = run(
        "deepseek-v3", B200, speculative={"method": "ngram", "tokens": 2, "acceptance_rate": 0.5}, **kw
    )
    assert mtp.memory["weights"] > base.memory["weights"] and mtp.memory["kv_cache"] > base.memory["kv_cache"]
    assert ngram.memory["weights"] == base.memory["weights"] and ngram.draft is None
    bf16 = run("deepseek-v3", B200, speculative={"method": "mtp", "tokens": 2, "weights": "bf16"}, **kw)
    assert bf16.memory["weights"] > mtp.memory["weights"]  # the draft module held in bf16
    assert any("speculative mtp" in n for n in mtp.notes)


def test_search_with_speculation_is_the_single_plan() -> None:
    """``search infer --speculative``: every plan costs the same bits alone, and carries the key."""
    space = SI.InferSpace(
        prompt_len=1024,
        output_len=16,
        gpus=(8,),
        batch=(1, 8),
        weights=("fp8",),
        activations=(None,),
        kv_cache=(None,),
        speculative=speculation_of({"method": "mtp", "tokens": 2, "acceptance_length": 2.4}),
    )
    plans, cols, _, n = SI.search_space("deepseek-v3", [B200], space)
    assert n
    for i in range(n):
        p = plans[i]
        assert p["speculative"] == {"method": "mtp", "tokens": 2, "acceptance_length": 2.4}
        if not cols["fits"][i]:
            continue
        m = I.cost("deepseek-v3", B200, I.plan_from_dict(SI.plan_keys(p))).metrics()
        for k in ("ttft_s", "tpot_s", "output_tokens_per_s_per_gpu", "memory_gib_per_gpu"):
            assert m[k] == float(cols[k][i]), (k, p)


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ({"method": "mtp", "tokens": 2}, "no multi-token-prediction layers"),
        ({"method": "eagle", "tokens": 2}, "needs acceptance_rate"),
        ({"method": "eagel", "tokens": 2, "acceptance_rate": 0.5}, "did you mean 'eagle'"),
        ({"method": "eagle", "tokens": 2, "acceptance_length": 4}, "from 1 to 3"),
        ({"method": "eagle", "tokens": 0, "acceptance_rate": 0.5}, "tokens"),
        ({"method": "eagle", "tokens": 2, "acceptance_rate": 0.5, "acceptance_length": 2}, "not both"),
        ({"method": "eagle", "tokens": 2, "acceptance": 0.5}, "unknown key"),
        ("mtp", "expected a mapping"),
    ],
)
def test_bad_speculation_is_one_clear_error(value: object, words: str) -> None:
    with pytest.raises((UserError, PlanError)) as e:
        run(speculative=value)
    assert words in str(e.value)


def test_cli_speculative_flags(cli) -> None:  # noqa: ANN001
    args = ["infer", "llama-3.1-8b", "--batch", "4", "--output-len", "32"]
    ok = cli(*args, "--speculative", "eagle:3", "--acceptance-rate", "0.7")
    assert ok.code == 0 and "speculative eagle" in ok.out + ok.err
    for bad in (["--speculative", "eagle"], ["--acceptance-rate", "0.5"], ["--speculative", "mtp:2"]):
        r = cli(*args, *bad)
        assert r.code == 2 and "Traceback" not in r.err and len(r.err.strip().splitlines()) == 1, bad
    r = cli(
        "search",
        "infer",
        "llama-3.1-8b",
        "--gpus",
        "1",
        "--speculative",
        "ngram:3",
        "--acceptance-rate",
        "0.6",
    )
    assert r.code == 0, r.err
