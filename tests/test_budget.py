"""Training budgets: Chinchilla fits, FLOP counts, time and cost, the budget command."""

from __future__ import annotations

import json

import pytest

from llmcost.economics import budget as B
from llmcost.errors import UserError


def test_tokens20_is_chinchilla() -> None:
    o = B.compute_optimal(5.76e23, "tokens20")
    assert o.tokens_per_param == pytest.approx(20)
    assert o.params == pytest.approx(69.3e9, rel=0.01)  # Chinchilla 70B on 1.4T tokens


def test_approach3_closed_form_matches_reference() -> None:
    """formulas.md §7.2 worked check: N_opt ≈ 3.2e10, D/N ≈ 93 at the Gopher budget."""
    o = B.compute_optimal(5.76e23, "approach3")
    assert o.params == pytest.approx(3.2e10, rel=0.03)
    assert o.tokens_per_param == pytest.approx(93, rel=0.03)
    assert 6 * o.params * o.tokens == pytest.approx(5.76e23)


def test_epoch_refit_near_20_tokens_per_param() -> None:
    assert 15 < B.compute_optimal(1e24, "epoch").tokens_per_param < 30


def test_optimum_minimizes_loss_on_the_budget() -> None:
    c = 1e23
    o = B.compute_optimal(c, "epoch")
    for k in (0.7, 1.4):
        n = o.params * k
        assert B.loss(n, c / (6 * n), "epoch") >= o.loss


def test_counts_and_errors() -> None:
    assert B.parse_count("15T") == 15e12 and B.parse_count("70B") == 70e9 and B.parse_count("3e23") == 3e23
    with pytest.raises(UserError):
        B.parse_count("lots")
    with pytest.raises(UserError):
        B.compute_optimal(1e23, "kaplan")
    assert B.run_time(1e24, 1000, 1e15, 0.5) == pytest.approx(2e6)


def test_budget_cli(cli) -> None:
    r = cli("budget", "--flops", "5.76e23", "--format", "json")
    assert r.code == 0 and json.loads(r.out)["tokens_per_param"] == pytest.approx(20)
    r = cli(
        "budget",
        "--model",
        "chinchilla-70b",
        "--tokens",
        "1.4T",
        "--hw",
        "h100-sxm",
        "--gpus",
        "1024",
        "--format",
        "json",
    )
    out = json.loads(r.out)
    assert out["total_flops"] == pytest.approx(5.76e23, rel=0.05)  # Hoffmann et al. 2022 Table 4
    assert out["time_to_train_s"] > 0 and out["cost_usd"] > 0
    r = cli("budget", "--gpu-hours", "1e6")
    assert r.code == 2 and "--hw" in r.err
