"""Bad input gets one clear line and exit code 2, never a traceback (the project standard): NaN, inf,
negative and zero sizes, impossible placements and contexts, inconsistent flag combinations,
malformed validation cases. Also the notes and consistency fixes found with them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

FILES = {
    "nan_plan.yaml": "tp: .nan\n",
    "inf_plan.json": '{"tp": 1e400}',
    "acc_typo.yaml": "- {model: llama-3.1-8c, gen_len: 1024, p: 0.2}\n",
    "bad_kind.yaml": (
        "- {id: k1, kind: trian, hardware: h100-sxm, model: llama-3.1-8b, plan: {tp: 1},"
        " metric: {name: step_time_s, value: 1.0}}\n"
    ),
    "nan_metric.yaml": (
        "- {id: m1, kind: collective, hardware: h100-sxm, collective: {op: all_reduce, size_bytes: 1e9,"
        " gpus: 8}, metric: {name: busbw_gbps, value: .nan}}\n"
    ),
}

BAD = [
    # 1. NaN / inf plan values
    (["infer", "llama-3.1-8b", "--plan", "{nan_plan.yaml}"], ["tp", "integer"]),
    (["infer", "llama-3.1-8b", "--plan", "{inf_plan.json}"], ["tp", "integer"]),
    (["train", "llama-3.2-1b", "--gpus", "8", "--plan", "{nan_plan.yaml}"], ["tp", "integer"]),
    # 2. counts: negative, NaN, inf, zero, junk
    (["train", "llama-3.2-1b", "--gpus", "8", "--tokens", "-5e12"], ["--tokens", "> 0"]),
    (["train", "llama-3.2-1b", "--gpus", "8", "--tokens", "0"], ["--tokens", "> 0"]),
    (["budget", "--model", "llama-3.1-8b", "--tokens", "-1e12"], ["--tokens", "> 0"]),
    (["budget", "--model", "llama-3.1-8b", "--tokens", "nan"], ["--tokens", "finite"]),
    (["budget", "--model", "llama-3.1-8b", "--tokens", "1e400"], ["--tokens", "finite"]),
    (["search", "train", "llama-3.2-1b", "--tokens", "-1e12"], ["--tokens", "> 0"]),
    (["search", "train", "llama-3.2-1b", "--tokens", "nan"], ["--tokens", "finite"]),
    # 3. budget flags
    (["budget", "--flops", "1e23", "--hw", "h100-sxm", "--gpus", "-8"], ["--gpus", ">= 1"]),
    (["budget", "--flops", "1e23", "--hw", "h100-sxm", "--gpus", "0"], ["--gpus", ">= 1"]),
    (["budget", "--gpu-hours", "-5", "--hw", "h100-sxm"], ["--gpu-hours", "> 0"]),
    (["budget", "--model", "llama-3.1-8b", "--tokens", "1T", "--gpus", "8"], ["--gpus", "--hw"]),
    (["budget", "--flops", "1e23", "--model", "llama-3.1-8b", "--tokens", "1T"], ["--model", "--flops"]),
    (["budget", "--flops", "1e23", "--tokens", "1T"], ["--tokens", "--model"]),
    # 4. train checks its options before "does not fit" (70B does not fit on 8 GPUs unsharded)
    (["train", "llama-3.1-70b", "--gpus", "8", "--tokens", "15X"], ["--tokens", "not a count"]),
    (["train", "llama-3.1-70b", "--gpus", "8", "--tokens", "-1T"], ["--tokens", "> 0"]),
    (["train", "llama-3.1-70b", "--gpus", "8", "--gpus-per-node", "0"], ["gpus_per_node", ">= 1"]),
    # 5. context past a learned position table
    (["infer", "gpt3-175b", "--tp", "8", "--prompt-len", "8192"], ["2048", "learned position"]),
    (["train", "gpt3-175b", "--gpus", "1024", "--tp", "8", "--seq-len", "32768"], ["seq_len", "2048"]),
    (["tts", "gpt3-175b", "--tp", "8", "--gen-len", "4096"], ["context", "2048"]),
    # 6. ranks per host: one check everywhere
    (["infer", "llama-3.1-8b", "--tp", "8", "--gpus-per-node", "3"], ["nodes of 3", "gpus_per_node"]),
    (["infer", "llama-3.1-8b", "--tp", "2", "--gpus-per-node", "16"], ["16", "host of 8"]),
    (["train", "llama-3.2-1b", "--gpus", "16", "--gpus-per-node", "16"], ["16", "host of 8"]),
    (["search", "infer", "llama-3.1-8b", "--gpus-per-node", "0"], ["--gpus-per-node", ">= 1"]),
    (["search", "train", "llama-3.2-1b", "--gpus-per-node", "0"], ["--gpus-per-node", ">= 1"]),
    (["collective", "all_reduce", "--gpus", "16", "--gpus-per-node", "16"], ["16", "host of 8"]),
    # 7. float options
    (["search", "train", "llama-3.2-1b", "--min-throughput", "nan"], ["--min-throughput", "finite"]),
    (["search", "train", "llama-3.2-1b", "--min-throughput", "-1"], ["--min-throughput", "> 0"]),
    (["search", "train", "llama-3.2-1b", "--max-memory", "-1"], ["--max-memory", "> 0"]),
    (["search", "train", "llama-3.2-1b", "--max-memory", "nan"], ["--max-memory", "finite"]),
    (["search", "train", "llama-3.2-1b", "--max-memory", "0"], ["--max-memory", "> 0"]),
    (["search", "infer", "llama-3.1-8b", "--min-throughput", "-5"], ["--min-throughput", "> 0"]),
    (["search", "infer", "llama-3.1-8b", "--max-ttft", "0"], ["--max-ttft", "> 0"]),
    (["search", "tts", "--models", "qwen3-0.6b", "--budget-seconds", "nan"], ["--budget-seconds", "finite"]),
    (
        ["search", "tts", "--models", "qwen3-0.6b", "--budget-seconds", "5", "--epsilon", "-1"],
        ["--epsilon", "> 0"],
    ),
    (
        ["search", "tts", "--models", "qwen3-0.6b", "--budget-seconds", "5", "--epsilon", "nan"],
        ["--epsilon", "finite"],
    ),
    (["tts", "qwen3-0.6b", "--intensity", "nan"], ["intensity", "finite"]),
    (["budget", "--flops", "1e23", "--mfu", "nan"], ["--mfu", "finite"]),
    # 8. search tts: nothing valid, --top, accuracy rows naming unknown models
    (
        ["search", "tts", "--models", "flan-t5-xxl", "--hw", "h100-sxm", "--budget-usd", "0.1"],
        ["no valid tts plan", "encoder-decoder"],
    ),
    (["search", "tts", "--models", "qwen3-0.6b", "--budget-seconds", "5", "--top", "0"], ["--top"]),
    (
        [
            "search",
            "tts",
            "--models",
            "llama-3.1-8b",
            "--budget-seconds",
            "5",
            "--accuracy",
            "{acc_typo.yaml}",
        ],
        ["llama-3.1-8c", "did you mean", "llama-3.1-8b"],
    ),
    # 9. validation files
    (["validate", "{bad_kind.yaml}"], ["trian", "did you mean", "train"]),
    (["validate", "{nan_metric.yaml}"], ["metric.value", "finite"]),
    (["validate", "--cross-validate", "{bad_kind.yaml}"], ["trian", "did you mean", "train"]),
    (["calibrate", "{nan_metric.yaml}"], ["metric.value", "finite"]),
    (["calibrate", "no-such-file.yaml"], ["no-such-file.yaml", "does not exist"]),
    # 9b. MoE load imbalance below the mean
    (
        ["train", "mixtral-8x7b", "--gpus", "64", "--ep", "8", "--ep-imbalance", "0.5"],
        ["ep_imbalance", ">= 1"],
    ),
    (["search", "train", "mixtral-8x7b", "--gpus", "64", "--ep-imbalance", "0.5"], ["ep_imbalance", ">= 1"]),
    (["train", "mixtral-8x7b", "--gpus", "64", "--ep-overlap"], ["ep_overlap", "ep > 1"]),
    (
        ["train", "mixtral-8x7b", "--gpus", "64", "--ep", "8", "--pp", "2", "--ep-overlap"],
        ["ep_overlap", "interleaved"],
    ),
    # 10. stacks and run figures
    (
        ["train", "llama-3.2-1b", "--gpus", "8", "--stack", "torchtitan:soon"],
        ["stack", "year must be an integer"],
    ),
    (
        ["search", "train", "llama-3.2-1b", "--gpus", "8", "--stack", "x:y"],
        ["stack", "year must be an integer"],
    ),
    (["train", "llama-3.2-1b", "--gpus", "8", "--zero", "1", "--goodput", "1.5"], ["goodput", "(0, 1]"]),
    (["train", "llama-3.2-1b", "--gpus", "8", "--zero", "1", "--goodput", "0"], ["goodput", "(0, 1]"]),
    # 11. messages
    (["search", "train", "llama-3.2-1b", "--precision", "fp4"], ["h100-sxm has no fp4 compute", "bf16"]),
    (["search", "infer", "llama-3.1-8b", "--weights", "fp9"], ["--weights", "fp9", "bf16"]),
    (["search", "train", "llama-3.2-1b", "--gpus", "8,,"], ["--gpus", "empty item"]),
    (
        ["search", "tts", "--models", "qwen3-0.6b", "--budget-seconds", "5", "--samples", "4,,8"],
        ["--samples"],
    ),
    (
        ["tts", "qwen3-0.6b", "--strategy", "beam", "--beam-width", "16", "--samples", "8"],
        ["--beam-width 16", "--samples 8"],
    ),
    (
        ["tts", "qwen3-0.6b", "--strategy", "beam", "--beam-step", "8000", "--gen-len", "4096"],
        ["--beam-step 8000", "--gen-len 4096"],
    ),
]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    out = {}
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
        out["{" + name + "}"] = str(tmp_path / name)
    return out


@pytest.mark.parametrize(("args", "words"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_is_one_line_exit_2(cli, files, args: list[str], words: list[str]) -> None:  # noqa: ANN001
    r = cli(*[files.get(a, a) for a in args])
    assert r.code == 2, (r.code, r.out[-400:], r.err)
    assert "Traceback" not in r.err + r.out
    assert r.err.startswith("error: ") and r.err.count("\n") == 1, r.err
    for w in words:
        assert w in r.err, (w, r.err)
    assert "is not valid (" not in r.err  # no doubled wrapper around an already-clear message


def test_case_numbers_that_are_not_finite_are_reasons_not_tracebacks(cli, tmp_path: Path) -> None:  # noqa: ANN001
    """A case with a NaN plan key or an infinite GPU count is reported (predicted None with the
    one-line reason), like every other case the model cannot evaluate."""
    cases = [
        {
            "id": "nan-tp",
            "kind": "infer",
            "hardware": "h100-sxm",
            "model": "llama-3.1-8b",
            "plan": {"tp": float("nan")},
            "metric": {"name": "ttft_s", "value": 0.1},
        },
        {
            "id": "inf-gpus",
            "kind": "collective",
            "hardware": "h100-sxm",
            "collective": {"op": "all_reduce", "size_bytes": 1e9, "gpus": float("inf")},
            "metric": {"name": "busbw_gbps", "value": 400.0},
        },
    ]
    f = tmp_path / "cases.yaml"
    f.write_text(yaml.safe_dump(cases))
    r = cli("validate", str(f), "--format", "json")
    assert r.code == 0 and "Traceback" not in r.err, r.err
    out = {c["id"]: c for c in json.loads(r.out)["cases"]}
    assert out["nan-tp"]["predicted"] is None and "integer" in out["nan-tp"]["reason"]
    assert out["inf-gpus"]["predicted"] is None and "integer" in out["inf-gpus"]["reason"]


def test_rope_context_past_max_positions_is_a_note(cli) -> None:  # noqa: ANN001
    r = cli("infer", "llama-3.1-8b", "--tp", "8", "--prompt-len", "140000", "--output-len", "16")
    assert r.code == 0, r.err
    assert "max_position_embeddings 131072" in r.out and "extrapolate" in r.out


def test_sp_with_tp_1_is_noted(cli) -> None:  # noqa: ANN001
    r = cli("train", "llama-3.2-1b", "--gpus", "8", "--sp", "--tp", "1")
    assert r.code == 0, r.err
    assert "--sp has no effect with tp 1" in r.out


def test_model_files_accepted_everywhere(cli, tmp_path: Path) -> None:  # noqa: ANN001
    from llmcost.catalog import get_model_config

    f = tmp_path / "m.yaml"
    f.write_text(yaml.safe_dump(get_model_config("qwen3-0.6b")))
    for args in (
        ("train", str(f), "--gpus", "8"),
        ("infer", str(f)),
        ("tts", str(f), "--samples", "2", "--gen-len", "1024"),
        ("budget", "--model", str(f), "--tokens", "1T"),
    ):
        r = cli(*args, "--format", "json")
        assert r.code == 0, (args, r.err)


def test_accuracy_rows_outside_models_are_noted(cli, tmp_path: Path) -> None:  # noqa: ANN001
    acc = tmp_path / "a.yaml"
    acc.write_text(
        "- {model: qwen3-0.6b, gen_len: 1024, p: 0.1}\n- {model: qwen3-1.7b, gen_len: 1024, p: 0.2}\n"
    )
    r = cli(
        "search", "tts", "--models", "qwen3-0.6b", "--budget-seconds", "60", "--gen-lens", "1024",
        "--samples", "1,2", "--accuracy", str(acc),
    )  # fmt: skip
    assert r.code == 0, r.err
    assert "qwen3-1.7b not used (not in --models)" in " ".join(r.out.split())


def test_validate_details_are_key_value_with_few_digits(cli) -> None:  # noqa: ANN001
    from llmcost.cli.validate_cmd import _detail

    assert (
        _detail({"step_time_s": 3.4641234567890123, "algorithm": "ring"})
        == "step_time_s=3.464, algorithm=ring"
    )
