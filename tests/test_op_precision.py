"""Per-operator-group precision in inference plans (plan key ``op_precision``, ``--op-precision``)."""

from __future__ import annotations

import pytest

from llmcost.catalog import get_hardware
from llmcost.errors import UserError
from llmcost.inference import serve as I
from llmcost.inference.plan import OP_GROUPS, op_precision_of

H100 = get_hardware("h100-sxm")
BASE = {"tp": 2, "batch": 4, "prompt_len": 512, "output_len": 32, "weights": "fp8", "activations": "fp8"}


def run(**keys: object) -> I.InferenceResult:
    return I.cost("llama-3.1-8b", H100, I.plan_from_dict({**BASE, **keys}))


def test_parsing_accepts_a_format_or_weights_and_activations() -> None:
    """One format means what ``weights: FORMAT`` alone means in a plan (activations bf16 unless
    the weights are 16-bit); a mapping states both."""
    assert op_precision_of({"ffn": "FP8", "attention": "bfloat16"}) == (
        ("attention", "bf16", "bf16"),
        ("ffn", "fp8", "bf16"),
    )
    assert op_precision_of({"ffn": {"weights": "fp8", "activations": "fp8"}}) == (("ffn", "fp8", "fp8"),)
    assert op_precision_of({"experts": {"weights": "int4", "activations": "bf16"}}) == (
        ("experts", "int4", "bf16"),
    )
    assert op_precision_of(None) == () and op_precision_of({}) == ()
    assert op_precision_of(op_precision_of({"lm_head": "bf16"})) == (("lm_head", "bf16", "bf16"),)


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ({"atention": "bf16"}, "did you mean 'attention'"),
        ({"ffn": "fp9"}, "op_precision.ffn"),
        ({"ffn": {"activations": "bf16"}}, "op_precision.ffn"),
        (["attention"], "expected a mapping"),
    ],
)
def test_bad_values_name_the_key(value: object, words: str) -> None:
    with pytest.raises(UserError, match=words):
        op_precision_of(value)


def test_the_plans_own_formats_change_nothing() -> None:
    """Naming every group in the plan's formats costs bit for bit what the plan alone costs."""
    same = {g: {"weights": "fp8", "activations": "fp8"} for g in OP_GROUPS}
    a, b = run(), run(op_precision=same)
    assert (a.ttft, a.tpot) == (b.ttft, b.tpot)
    assert a.memory == b.memory


def test_bf16_attention_projections_add_their_weight_bytes() -> None:
    """An fp8 plan with bf16 attention projections holds 1 byte more per projection weight
    (QKV and O of every layer, split over tp) and decodes slower."""
    spec = I.spec_of("llama-3.1-8b")
    h, q, kv = spec.hidden_size, spec.q_dim, spec.kv_dim
    extra = spec.num_layers * (h * (q + 2 * kv) + q * h) / BASE["tp"]  # 2 - 1 bytes per weight
    a, b = run(), run(op_precision={"attention": "bf16"})
    assert b.memory["weights"] - a.memory["weights"] == pytest.approx(extra, rel=1e-9)
    assert b.tpot > a.tpot and b.ttft > a.ttft


def test_cli_names_a_bad_group_and_exits_2(cli) -> None:  # noqa: ANN001
    r = cli("infer", "llama-3.1-8b", "--op-precision", "atention=bf16")
    assert r.code == 2 and "did you mean 'attention'" in r.err and "Traceback" not in r.err
    r = cli("infer", "llama-3.1-8b", "--op-precision", "attention")
    assert r.code == 2 and "GROUP=FORMAT" in r.err
