"""``--emit FRAMEWORK`` (:mod:`llmcost.launch`): a known plan gives each framework's expected flags, every
flag written is in its framework's sourced table, refusals are one line and exit code 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from llmcost.errors import UserError
from llmcost.launch import INFER, TRAIN, Target, render, table

TRAIN_PLAN = {
    "gpus": 64, "tp": 2, "pp": 4, "dp": 2, "cp": 4, "ep": 1, "sp": True, "zero": 1, "distributed_optimizer": False,
    "micro_batch": 1, "global_batch": 512, "seq_len": 8192, "recompute": "full", "schedule": "interleaved",
    "virtual_stages": 2, "precision": "fp8", "overlap_dp": True, "tp_overlap": True, "fp8_recipe": "current",
}  # fmt: skip
INFER_PLAN = {
    "tp": 4, "dp": 2, "ep": 8, "batch": 64, "weights": "fp8", "kv_cache": "fp8", "prompt_len": 1024,
    "output_len": 256, "schedule": "continuous", "prefill_chunk": 2048,
}  # fmt: skip
T = Target("x", "org/model", 8, ("head",))

GOLDEN = {
    "megatron": """# head
# 64 GPUs (8 nodes x 8); Megatron derives data-parallel size 2 from the world size
MEGATRON_ARGS=(
    --tensor-model-parallel-size 2
    --pipeline-model-parallel-size 4
    --num-virtual-stages-per-pipeline-rank 2
    --context-parallel-size 4
    --sequence-parallel
    --tp-comm-overlap
    --recompute-granularity full
    --recompute-method uniform
    --recompute-num-layers 1
    --micro-batch-size 1
    --global-batch-size 512
    --seq-length 8192
    --bf16
    --fp8-format hybrid
    --fp8-recipe tensorwise
    --use-distributed-optimizer
    --overlap-grad-reduce
    --overlap-param-gather
)""",
    "torchtitan": """# head
# 64 GPUs (8 nodes x 8): NGPU=64 across the nodes
# ZeRO-1 / distributed optimizer: FSDP2 shards gradients too; the nearest, ZeRO-2 (no reshard after forward)
# interleaved: 2 stages per rank come from the layer split points
[parallelism]
data_parallel_replicate_degree = 1
data_parallel_shard_degree = 2
fsdp_reshard_after_forward = "never"
tensor_parallel_degree = 2
enable_async_tensor_parallel = true
pipeline_parallel_degree = 4
pipeline_parallel_schedule = "Interleaved1F1B"
pipeline_parallel_microbatch_size = 1
context_parallel_degree = 4

[training]
local_batch_size = 256
global_batch_size = 512
seq_len = 8192
mixed_precision_param = "bfloat16"

[activation_checkpoint]
mode = "full"

[model]
converters = ["quantize.linear.float8"]

[quantize.linear.float8]
recipe_name = "tensorwise\"""",
    "nemo": """# head
# fp8 recipe current: this config scales fp8 with delayed scaling (amax history)
NEMO_OVERRIDES=(
    trainer.devices=8
    trainer.num_nodes=8
    trainer.precision=bf16
    model.micro_batch_size=1
    model.global_batch_size=512
    model.tensor_model_parallel_size=2
    model.pipeline_model_parallel_size=4
    model.virtual_pipeline_model_parallel_size=2
    +model.context_parallel_size=4
    model.sequence_parallel=true
    model.ub_tp_comm_overlap=true
    model.encoder_seq_length=8192
    model.activations_checkpoint_granularity=full
    model.activations_checkpoint_method=uniform
    model.activations_checkpoint_num_layers=1
    model.fp8=true
    model.fp8_hybrid=true
    model.optim.name=distributed_fused_adam
)""",
    "vllm": """# head
# 8 GPUs: tp 4 x pp 1 x dp 2 x cp 1
vllm serve org/model \\
    --tensor-parallel-size 4 \\
    --data-parallel-size 2 \\
    --enable-expert-parallel \\
    --quantization fp8 \\
    --kv-cache-dtype fp8 \\
    --max-num-seqs 32 \\
    --max-model-len 1280 \\
    --enable-chunked-prefill \\
    --max-num-batched-tokens 2048""",
    "sglang": """# head
# 8 GPUs: tp 4 x pp 1 x dp 2 x cp 1
python -m sglang.launch_server \\
    --model-path org/model \\
    --tp-size 8 \\
    --dp-size 2 \\
    --enable-dp-attention \\
    --ep-size 8 \\
    --quantization fp8 \\
    --kv-cache-dtype fp8_e4m3 \\
    --max-running-requests 64 \\
    --context-length 1280 \\
    --chunked-prefill-size 2048""",
    "trtllm": """# head
# 8 GPUs: tp 4 x pp 1 x dp 2 x cp 1
# weights fp8: serve an fp8 checkpoint (TensorRT Model Optimizer); TensorRT-LLM reads it from the checkpoint
cat > extra_llm_api_options.yaml <<'EOF'
enable_attention_dp: true
kv_cache_config:
  dtype: fp8
EOF
trtllm-serve org/model \\
    --tp_size 8 \\
    --ep_size 8 \\
    --max_batch_size 32 \\
    --max_seq_len 1280 \\
    --enable_chunked_prefill \\
    --max_num_tokens 2048 \\
    --extra_llm_api_options extra_llm_api_options.yaml""",
}


@pytest.mark.parametrize("fw", sorted(GOLDEN))
def test_golden(fw: str) -> None:
    plan = TRAIN_PLAN if fw in TRAIN else INFER_PLAN
    assert render(fw, plan, T) == GOLDEN[fw]


def test_deepspeed_config_reads_as_json() -> None:
    """DeepSpeed reads its config file with hjson: the ``//`` lines are comments, the rest is JSON."""
    plan = {**TRAIN_PLAN, "precision": "bf16", "zero": 3, "offload": "nvme+params", "pp": 1, "cp": 1, "tp": 1}
    text = render("deepspeed", plan, T)
    body = "\n".join(line for line in text.splitlines() if not line.startswith("//"))
    assert json.loads(body) == {
        "train_batch_size": 512,
        "train_micro_batch_size_per_gpu": 1,
        "gradient_accumulation_steps": 256,
        "bf16": {"enabled": True},
        "zero_optimization": {
            "stage": 3,
            "overlap_comm": True,
            "offload_optimizer": {"device": "nvme"},
            "offload_param": {"device": "nvme"},
        },
    }
    assert "// recompute full: checkpoint in the model code" in text
    assert "// offload nvme: add nvme_path" in text


@pytest.mark.parametrize("fw", [*TRAIN, *INFER])
def test_every_flag_is_sourced(fw: str) -> None:
    """Each framework's table gives every name a source URL (docs page or source file at a tag or commit)."""
    for name, url in table(fw).items():
        assert url.startswith("https://"), (fw, name)
        assert "/blob/main/" not in url, (fw, name)


def test_unsourced_flag_is_refused() -> None:
    from llmcost.launch.common import Lines

    with pytest.raises(KeyError):
        Lines({"--a": "https://x"}).add("--b")


@pytest.mark.parametrize(
    ("fw", "plan", "words"),
    [
        ("megatorn", TRAIN_PLAN, "did you mean 'megatron'"),
        ("vllm", TRAIN_PLAN, "a serving engine"),
        ("torchtitan", {**TRAIN_PLAN, "precision": "fp16"}, "precision fp16"),
        ("deepspeed", TRAIN_PLAN, "precision fp8"),
        ("nemo", {**TRAIN_PLAN, "precision": "fp4"}, "precision fp4"),
    ],
)
def test_refusals(fw: str, plan: dict, words: str) -> None:
    from llmcost.api import emit

    with pytest.raises(UserError, match=words):
        emit(plan, fw)


def test_no_equivalent_is_a_comment() -> None:
    plan = {**TRAIN_PLAN, "schedule": "zero_bubble", "recompute": "op", "offload": "nvme", "zero": 2}
    text = render("megatron", plan, T)
    assert "# schedule zero_bubble: no Megatron-LM argument" in text
    assert "# recompute op" in text and "# offload nvme" in text
    assert "--data-parallel-sharding-strategy optim_grads\n" in text


def test_api_costed_report_header() -> None:
    import llmcost

    rep = llmcost.infer("llama-3.1-70b", "h100-sxm", tp=4, batch=16)
    text = llmcost.emit(rep, "vllm")
    assert text.startswith("# llmcost ") and "# predicted: TTFT" in text
    assert "vllm serve meta-llama/Llama-3.1-70B \\" in text


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "llmcost", *args], capture_output=True, text=True, timeout=120
    )


def test_cli_train_emit_and_errors() -> None:
    base = ["train", "llama-3.1-8b", "--hw", "h100-sxm", "--gpus", "8", "--zero", "1"]
    ok = _cli(*base, "--emit", "megatron")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("# llmcost") and "MEGATRON_ARGS=(" in ok.stdout and "┃" not in ok.stdout
    doc = json.loads(_cli(*base, "--emit", "nemo", "-f", "json").stdout)
    assert "NEMO_OVERRIDES=(" in doc["emit"]
    for bad, words in (
        (["--emit", "megatorn"], "did you mean 'megatron'"),
        (["--emit", "vllm"], "serving engine"),
    ):
        p = _cli(*base, *bad)
        assert p.returncode == 2 and words in p.stderr and "Traceback" not in p.stderr
    p = _cli(*base, "--emit", "megatron", "-f", "csv")
    assert p.returncode == 2 and "--format" in p.stderr


def test_cli_infer_emit() -> None:
    p = _cli("infer", "llama-3.1-70b", "--tp", "4", "--emit", "sglang")
    assert p.returncode == 0 and "--model-path meta-llama/Llama-3.1-70B" in p.stdout
    p = _cli("infer", "llama-3.1-70b", "--tp", "4", "--emit", "deepspeed")
    assert p.returncode == 2 and "training framework" in p.stderr


def test_cli_search_emit() -> None:
    args = ["search", "train", "llama-3.1-8b", "--gpus", "8", "--top", "3", "-q"]
    p = _cli(*args, "--emit", "torchtitan")
    assert p.returncode == 0 and "[parallelism]" in p.stdout and "# predicted: step" in p.stdout
    doc = json.loads(_cli(*args, "--precision", "bf16", "--emit", "deepspeed", "-f", "json").stdout)
    assert all("train_micro_batch_size_per_gpu" in plan["emit"] for plan in doc["plans"])
    p = _cli("search", "infer", "llama-3.1-8b", "--top", "2", "-q", "--emit", "vllm")
    assert p.returncode == 0 and p.stdout.count("vllm serve") == 1
