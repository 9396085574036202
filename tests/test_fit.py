"""llmcost fit (issue 13 §3): the fewest devices per memory option, and what fits on a count."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from llmcost import api
from llmcost.capacity.fit import counts, largest, smallest
from llmcost.catalog import get_hardware


@given(threshold=st.integers(1, 5000), n=st.integers(1, 300))
def test_smallest_finds_the_first_count_that_fits(threshold: int, n: int) -> None:
    cands = list(range(1, n + 1))
    got = smallest(cands, lambda c: c >= threshold)
    assert got == (threshold if threshold <= n else None)


@given(threshold=st.integers(0, 5000), hi=st.integers(1, 4000))
def test_largest_finds_the_last_value_that_fits(threshold: int, hi: int) -> None:
    got = largest(1, hi, lambda c: c <= threshold)
    assert got == (None if threshold < 1 else min(threshold, hi))


def test_counts_double() -> None:
    """Powers of two; past a node of another size, its multiples by powers of two."""
    assert counts(get_hardware("h100-sxm"), 64) == [1, 2, 4, 8, 16, 32, 64]
    odd = get_hardware("h100-sxm").with_overrides(
        {"node": {"devices": 6}, "fabric": {"scale_up": {"devices": 6}}}
    )
    assert counts(odd, 100) == [1, 2, 4, 6, 12, 24, 48, 96]


def test_fit_train_options_and_their_order() -> None:
    """JSON shape of the issue; more offload never needs more devices."""
    rep = api.fit("llama-3.1-70b", "h100-sxm", seq_len=2048, max_devices=64)
    opts = {(o["zero"], o["offload"]): o for o in rep.as_dict()["options"]}
    assert set(opts) >= {("3", "none"), ("3", "nvme+params"), ("0", "none")}
    for o in opts.values():
        assert {"zero", "offload", "min_devices", "plan", "metrics"} <= set(o)
    n = {k: o["min_devices"] for k, o in opts.items()}
    assert n[("3", "nvme+params")] <= n[("3", "nvme")] <= n[("3", "none")]
    assert n[("3", "cpu")] <= n[("3", "none")] <= n[("0", "none")]
    assert opts[("3", "none")]["plan"]["gpus"] == n[("3", "none")]


def test_fit_infer_and_on_count() -> None:
    rep = api.fit("llama-3.1-8b", "h100-sxm", mode="infer", batch=8, prompt_len=1024, output_len=128)
    bf16 = next(o for o in rep.options if o.option["weights"] == "bf16")
    assert bf16.min_devices == 1 and bf16.plan["batch"] == 8
    on = api.fit("llama-3.1-8b", "h100-sxm", mode="infer", gpus=1, prompt_len=1024, output_len=128).as_dict()
    assert on["largest_batch"] > 8 and on["longest_prompt_len"] > 1024


def test_fit_cli(cli) -> None:
    r = cli("fit", "llama-3.1-8b", "--hw", "h100-sxm", "--zero", "3", "--max-devices", "16")
    assert r.code == 0 and "nvme+params" in r.out and "dominated" in r.out
    r = cli("fit", "llama-3.1-8b", "--infer", "--zero", "3")
    assert r.code == 2 and "training option" in r.err
    r = cli("fit", "llama-3.1-8b", "--batch", "8")
    assert r.code == 2 and "--infer" in r.err
