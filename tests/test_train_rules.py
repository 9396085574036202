"""Training validity rules are written once (``training.RULES``): each predicate gives the same verdict
on one plan as on arrays of plans, ``training.check`` raises the first rule a plan breaks, and
``llmcost search train`` rejects every plan of its space under that same rule (counts included)."""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest

from llmcost import rules as R
from llmcost.catalog import get_hardware, get_model_config
from llmcost.errors import PlanError
from llmcost.inference import serve as I
from llmcost.model.config import from_config
from llmcost.search import train as ST
from llmcost.training import plan as TR
from llmcost.training.base import model_layers

MODELS = ("llama-3.1-8b", "mixtral-8x7b", "deepseek-v3", "gpt3-175b")


def _spec(model: str) -> object:
    return from_config(get_model_config(model), where=model)


def _hardware(hw: str) -> object:
    """A catalog entry; ``ID+wan``: in sites of 8 devices joined by a WAN (10 Gbit/s, 40 ms)."""
    if hw.endswith("+wan"):
        return get_hardware(hw.removesuffix("+wan")).with_wan(8, 1.25e9, 0.04)
    return get_hardware(hw)


def _random_fields(rng: np.random.Generator, n: int, hw: object) -> dict[str, np.ndarray]:
    def pick(values: list[int]) -> np.ndarray:
        return rng.choice(np.array(values, dtype=np.int64), n)

    return dict(
        gpus=pick([1, 2, 4, 8, 12, 16, 64, 96]),
        tp=pick([1, 2, 3, 4, 5, 8, 16, 32]),
        pp=pick([1, 2, 3, 4, 16, 64]),
        dp=pick([1, 2, 3, 4, 8]),
        cp=pick([1, 2, 3, 4]),
        ep=pick([1, 2, 3, 4, 8, 16, 64]),
        node=pick([1, 4, 8]),
        seq=pick([1000, 2048, 4096]),
        sched=pick(list(range(len(TR.SCHEDULES)))),
        v=pick([1, 2, 3, 40]),
        mb=pick([1, 2, 3, 4]),
        gb=pick([1, 6, 16, 64, 96]),
        zero=pick([0, 1, 2, 3]),
        distopt=pick([0, 1]).astype(bool),
        prec=pick(list(range(len(TR.PRECISIONS)))),
        sp=pick([-1, 0, 1]),
        tpo=pick([0, 1, 2]),  # 0 none, 1 tp_overlap, 2 tp_fused_rs
        offload=pick(list(range(len(TR.OFFLOAD)))),
        rc=pick(list(range(len(TR.RECOMPUTE)))),
        sync=pick([1, 1, 100]),
    )


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("hw", ["h100-sxm", "a100-sxm4-80gb", "h100-sxm+wan"])
def test_rule_array_and_scalar_forms_agree(model: str, hw: str) -> None:
    """Every rule (and the search's dedups) on 400 random plans at once equals the rule on each
    plan alone (a bool, and a one-line message when broken); ``first_broken`` agrees too."""
    spec, hardware = _spec(model), _hardware(hw)
    rng = np.random.default_rng(hash((model, hw)) % 2**32)
    cols = _random_fields(rng, 400, hardware)
    arrays = TR.RuleFields(**cols, hw=hardware, dp_given=False)
    rules = [r for r, _ in ST.CHECKS]
    verdicts = {r.reason: np.broadcast_to(r.broken(spec, arrays), (400,)) for r in rules}
    firsts = R.first_broken(TR.RULES, spec, arrays)
    for i in range(400):
        one = TR.RuleFields(**{k: v[i].item() for k, v in cols.items()}, hw=hardware, dp_given=bool(i % 2))
        for r in rules:
            b = r.broken(spec, one)
            assert isinstance(b, (bool, np.bool_)), (r.reason, b)
            assert bool(b) == bool(verdicts[r.reason][i]), (r.reason, one)
            if b and r in TR.RULES:
                msg = r.message(spec, one)
                assert msg and "\n" not in msg
        assert R.first_broken(TR.RULES, spec, one) == firsts[i]
    never = {r.reason for r in TR.RULES if not verdicts[r.reason].any()}
    # what the model makes impossible: dense models have no experts, MoE models need no MoE, MLA
    # has no KV-head constraint, RoPE models no learned position table, dense MHA/GQA models take
    # every recompute policy
    ctx = "context longer than the learned position table"
    op = "recompute op outside a dense attention block"
    wan = set() if hw.endswith("+wan") else {"GPUs do not fill whole WAN sites", "a replica spans WAN sites"}
    assert never <= {
        "experts do not divide by ep",
        R.EP_NEEDS_MOE.reason,
        R.KV_HEADS.reason,
        ctx,
        op,
        *wan,
    }, never


def test_rules_ordered_by_search_level_and_shared_with_inference() -> None:
    """The search can apply the rules level by level only if no rule reads a later dimension than a
    rule after it; the heads / KV-heads / MoE rules are inference's objects, not copies."""
    levels = [lv for _, lv in ST.CHECKS]
    assert levels == sorted(levels)
    assert len({r.reason for r in TR.RULES}) == len(TR.RULES)
    for shared in (R.HEADS, R.KV_HEADS, R.EP_NEEDS_MOE):
        assert shared in TR.RULES and shared in I.RULES


SPACES = [
    (
        "llama-3.1-8b",
        "h100-sxm",
        dict(
            gpus=(8,),
            global_batch=16,
            seq_len=4096,
            ep=(1, 2),
            zero=("0", "distopt", "3"),
            recompute=("none",),
            schedule=("1f1b", "interleaved", "gpipe"),
            precision=("bf16", "fp4"),
            sp=(True, False),
            tp_overlap=(False, True),
        ),
    ),
    (
        "mixtral-8x7b",
        "a100-sxm4-80gb",
        dict(
            gpus=(12, 16, 24),
            global_batch=24,
            seq_len=1022,
            tp=(1, 2, 3, 8),
            cp=(1, 2),
            ep=(1, 2, 3, 8),
            zero=("1", "3"),
            recompute=("full",),
            schedule=("1f1b", "interleaved"),
            virtual_stages=(2, 16),
            precision=("bf16", "fp8"),
            gpus_per_node=8,
        ),
    ),
    (  # DiLoCo: what it does not combine with is rejected under its rules
        "mixtral-8x7b",
        "h100-sxm",
        dict(
            gpus=(16,),
            global_batch=32,
            seq_len=4096,
            tp=(2, 8),
            cp=(1, 2),
            ep=(1, 2),
            zero=("0", "distopt", "1"),
            recompute=("full",),
            schedule=("1f1b", "interleaved"),
            precision=("bf16",),
            sync_interval=100,
        ),
    ),
    (  # WAN sites of 8: whole replicas in a site, data parallelism across sites
        "llama-3.1-8b",
        "h100-sxm+wan",
        dict(
            gpus=(8, 12, 32),
            global_batch=32,
            seq_len=4096,
            tp=(2, 4, 16),
            pp=(1, 2, 4),
            cp=(1, 2),
            zero=("0",),
            recompute=("full",),
            schedule=("1f1b",),
            precision=("bf16",),
            gpus_per_node=4,
        ),
    ),
]


def _declared(spec: object, hw: object, space: ST.TrainSpace):
    """The search's declared space, plan by plan, as (TrainPlan, sp requested)."""
    from llmcost.search.common import divisors

    n_layers = len(model_layers(spec))
    experts = spec.moe.num_experts if spec.is_moe else 1
    narrowed = space.tp is not None or space.pp is not None or space.cp is not None
    for g in space.gpus:
        degs = [given or divisors(g) for given in (space.tp, space.pp, space.cp)]
        for tp, pp, cp in itertools.product(*degs):
            if g % (tp * pp * cp) and not narrowed:
                continue
            for ep, (sc, v), mb in itertools.product(
                space.ep or (divisors(experts) if spec.is_moe else [1]),
                ST._schedules(space, pp, n_layers),
                space.micro_batch or divisors(space.global_batch),
            ):
                for z, rc, prec, sp, tpo in itertools.product(
                    space.zero, space.recompute, space.precision, space.sp or (None,), space.tp_overlap
                ):
                    zero, distopt = ST.ZMODES[ST.ZMODE_NAMES.index(z)]
                    yield TR.TrainPlan(
                        gpus=g,
                        tp=tp,
                        pp=pp,
                        cp=cp,
                        ep=ep,
                        sp=sp,
                        zero=zero,
                        distributed_optimizer=distopt,
                        micro_batch=mb,
                        global_batch=space.global_batch,
                        seq_len=space.seq_len,
                        recompute=rc,
                        schedule=TR.SCHEDULES[sc],
                        virtual_stages=v if TR.SCHEDULES[sc] == "interleaved" else None,
                        precision=prec,
                        tp_overlap=tpo,
                        gpus_per_node=space.gpus_per_node,
                        sync_interval=space.sync_interval,
                    )


def _verdict(spec: object, plan: TR.TrainPlan, hw: object) -> str:
    try:
        TR.check(spec, plan, hw)
    except PlanError as e:
        return str(e)
    return "ok"


@pytest.mark.parametrize("model,hw,kw", SPACES)
def test_check_raises_the_rule_the_search_rejects_under(model: str, hw: str, kw: dict) -> None:
    """Plan by plan over a search space: ``training.check`` raises exactly the message of the first
    rule the plan breaks in the search's order, accepts the plans the search keeps, and treats a
    plan the search skips as a duplicate like its twin; the per-rule counts equal the search's
    rejection counts and the kept plans its grid."""
    spec, hardware = _spec(model), _hardware(hw)
    space = ST.TrainSpace(**kw)
    grid = ST.enumerate_space(spec, hardware, space)
    dedups = {r.reason for r in ST.DEDUPS.values()}
    counts: Counter[str] = Counter()
    kept = 0
    for plan in _declared(spec, hardware, space):
        fields = TR.rule_fields(spec, plan, hardware)
        # rule by rule, stopping at the first broken (a rule may assume the earlier ones hold)
        k = next((k for k, (r, _) in enumerate(ST.CHECKS) if r.broken(spec, fields)), -1)
        rule = ST.CHECKS[k][0] if k >= 0 else None
        if rule is None:
            TR.check(spec, plan, hardware)  # accepted
            kept += 1
            continue
        counts[rule.reason] += 1
        if rule.reason in dedups:  # the same plan as its twin (1f1b; sp off): check treats both alike
            twin = (
                replace(plan, schedule="1f1b", virtual_stages=None)
                if plan.pp == 1
                else replace(plan, sp=False)
            )
            assert _verdict(spec, plan, hardware) == _verdict(spec, twin, hardware)
            continue
        with pytest.raises(PlanError) as e:
            TR.check(spec, plan, hardware)
        assert str(e.value) == rule.message(spec, fields)
    assert kept == len(grid)
    assert +counts == +Counter(grid.rejected)
    if hw.endswith("+wan"):
        assert {"GPUs do not fill whole WAN sites", "a replica spans WAN sites"} <= set(counts)
    elif kw.get("sync_interval", 1) > 1:
        assert {"DiLoCo with cp or ep > 1", "DiLoCo with ZeRO or the distributed optimizer"} <= set(counts)
    else:
        assert len(counts) >= 8  # the space exercises many rules
