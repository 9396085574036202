"""Software-stack profiles: every fact sourced, lookups never fail, year ranges disjoint."""

from __future__ import annotations

import ast
from itertools import combinations
from pathlib import Path

import pytest

from llmcost import stacks as S


@pytest.mark.parametrize("p", S.PROFILES, ids=lambda p: p.label)
def test_every_field_has_a_source(p: S.Profile) -> None:
    assert set(p.sources) == set(S.FIELDS)
    assert all(isinstance(v, str) and v.strip() for v in p.sources.values())


@pytest.mark.parametrize("p", S.PROFILES, ids=lambda p: p.label)
def test_non_default_fields_have_a_real_source(p: S.Profile) -> None:
    for name in S.FIELDS:
        if getattr(p, name) != S.DEFAULTS[name]:
            assert not p.sources[name].startswith("default:"), (
                f"{p.label}.{name} differs from the default unsourced"
            )


@pytest.mark.parametrize("p", S.PROFILES, ids=lambda p: p.label)
def test_profile_shape(p: S.Profile) -> None:
    assert p.framework == p.framework.lower()
    assert p.years[0] <= p.years[1]
    assert p.notes.strip()


def test_year_ranges_do_not_overlap_within_a_framework() -> None:
    for a, b in combinations(S.PROFILES, 2):
        if a.framework == b.framework:
            assert a.years[1] < b.years[0] or b.years[1] < a.years[0], (a.label, b.label)


def test_required_frameworks_present() -> None:
    need = {
        "megatron-lm",
        "megatron-deepspeed",
        "deepspeed",
        "gpt-neox",
        "megatron-core",
        "nemo",
        "megatron-bridge",
        "torchtitan",
        "llm-foundry",
        "maxtext",
        "t5x",
        "pathways",
        "colossal-ai",
        "meta-internal",
    }
    assert need <= set(S.frameworks())
    assert {p.years[0] for p in S.PROFILES if p.framework == "megatron-lm"} == {2019, 2020, 2021, 2022, 2023}


def test_megatron_lm_history() -> None:
    by_year = {y: S.profile_for("megatron-lm", y)[0] for y in range(2019, 2024)}
    assert not by_year[2020].fused_bias_act and by_year[2021].fused_bias_act
    assert (
        not by_year[2021].sequence_parallel
        and by_year[2022].sequence_parallel
        and by_year[2022].selective_recompute
    )
    assert by_year[2023].attention_opt_in == "flash2" and by_year[2020].attention_opt_in is None
    assert not any(p.dp_overlap for p in by_year.values())


def test_profile_for_known_framework() -> None:
    p, note = S.profile_for("megatron-lm", 2022)
    assert (p.framework, p.years, note) == ("megatron-lm", (2022, 2022), None)
    p, note = S.profile_for("  TorchTitan ", 2025)
    assert p.framework == "torchtitan" and p.contains(2025) and note is None
    p, note = S.profile_for("composer", 2023)  # alias
    assert p.framework == "llm-foundry" and note is None


def test_profile_for_out_of_range_year_uses_nearest() -> None:
    p, note = S.profile_for("megatron-lm", 2030)
    assert p.years == (2023, 2023) and note and "nearest" in note
    p, note = S.profile_for("deepspeed", 2010)
    assert p.years[0] == 2020 and note


def test_profile_for_unknown_framework_is_not_an_error() -> None:
    p, note = S.profile_for("my-homegrown-trainer", 2021)
    assert p == S.default_for_year(2021)
    assert note and "unknown stack" in note and "\n" not in note


def test_profile_for_no_stack() -> None:
    p, note = S.profile_for(None, None)
    assert p == S.default_for_year(S.CURRENT_YEAR) and p.framework == "megatron-core"
    assert note and p.label in note
    p, note = S.profile_for(None, 2020)
    assert p.framework == "megatron-lm" and p.contains(2020) and note


def test_default_for_year_covers_every_year() -> None:
    for y in range(2015, 2031):
        assert S.default_for_year(y).framework in S.frameworks()
    assert S.default_for_year(2022).framework == "megatron-lm"
    assert S.default_for_year(2025).framework == "megatron-core"


def test_module_is_self_contained() -> None:
    tree = ast.parse(Path(S.__file__).read_text())
    mods = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    mods += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert all(not m.startswith("llmcost") or m == "llmcost.errors" for m in mods if m)


def test_profiles_are_frozen() -> None:
    p = S.PROFILES[0]
    with pytest.raises(AttributeError):
        p.dp_overlap = True  # type: ignore[misc]
    with pytest.raises(TypeError):
        p.sources["attention"] = "x"  # type: ignore[index]


def test_deepspeed_engine_history() -> None:
    """DeepSpeed's PipelineEngine runs 1F1B only (TrainSchedule); ZeRO-3 prefetched only from v0.6.0
    (2022); no context parallelism before DeepSpeed-Ulysses (2023-08)."""
    for name, year in (("deepspeed", 2021), ("megatron-deepspeed", 2022), ("gpt-neox", 2022)):
        assert S.profile_for(name, year)[0].schedules == ("1f1b",)
    ds21, ds22 = S.profile_for("deepspeed", 2021)[0], S.profile_for("deepspeed", 2022)[0]
    assert ds21.zero3_prefetch is False and ds22.zero3_prefetch is True
    assert ds21.context_parallel is False and "v0.10.2" in ds21.sources["context_parallel"]
