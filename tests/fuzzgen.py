"""A seeded generator of ``llmcost`` invocations over every command, option and input file kind.

Every command and option comes from the click tree itself, so a new one is fuzzed without
being listed here. Values are drawn from pools (good ids, typos, edge numbers, junk) and from
input files written once per run: plan files, ``--catalog`` directories, validation files,
Hugging Face configs and model files, broken in every way the issue names (not UTF-8, nested
100k deep, integers of thousands of digits, YAML alias bombs, wrong types, counts past int64).

Each invocation runs in-process (typer's ``CliRunner`` isolation around :func:`llmcost.cli.main`)
under a wall-clock budget; the outcome is bad when the exit code is not 0 or 2, when anything
escapes ``main`` (a traceback) or when the budget runs out (a hang).

``python -m tests.fuzzgen --n 12000`` runs a sweep outside the suite and prints the counts.
"""

from __future__ import annotations

import copy
import json
import random
import signal
import sys
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

INTS = ["1", "2", "4", "8", "16", "64", "0", "-1", "3", "1024", "65536", "4294967296", "9223372036854775807",
        "9223372036854775808", "1e30", "10000000", "abc", "", "nan", "2.5", "18446744073709551616"]  # fmt: skip
FLOATS = ["0.5", "1", "0", "-1", "nan", "inf", "1e308", "1e-300", "2.8", "abc", "1e400"]
STRS = ["", "x", "abc", "-", ",", "1,2", "nan", "1e30", "a=b", "=", ":", "\u00e9\u00e9", "\x00"]
SIZES = ["1GiB", "8MiB", "1e9", "1e308", "1e400", "-1", "0", "abc", "1KiB:8GiB", "1e30", "64"]
LISTS = [
    "1",
    "1,2,4",
    "8",
    "2",
    "0",
    "-1",
    "1,,2",
    "4294967296",
    "9223372036854775808",
    "1e30",
    "abc",
    "1,2,3,4,5,6,7,8",
]
HW = ["h100-sxm", "b200", "mi300x", "tpu-v5p", "l40s", "h100", "h100-sxmm", "nope", "gb200", "xeon-8480"]
MODELS = ["llama-3.1-8b", "qwen3-0.6b", "llama-3.2-1b", "deepseek-v3", "mixtral-8x7b", "flan-t5-xxl",
          "llama-3.1-8c", "gpt3-175b", "nope", "gpt-oss-20b"]  # fmt: skip
FORMATS = ["table", "json", "yaml", "csv", "xml"]
OPS = [
    "all_reduce",
    "all_gather",
    "reduce_scatter",
    "broadcast",
    "all_to_all",
    "send_recv",
    "allreduce",
    "bogus",
]
WORDS = {  # option (or argument) name -> typical values
    "jobs": ["1", "2", "0", "300", "x"],
    "plot": ["{dir}/fig.png", "{dir}/fig.svg", "fig.pdf", "{dir}/missing/fig.png", ""],
    "html": ["{dir}/page.html", "page.htm", "{dir}/missing/page.html", "{dir}", "", "\x00"],
    "hw": HW + ["h100-sxm,mi300x", "h100-sxm,,b200"],
    "model": MODELS,
    "models": ["qwen3-0.6b", "qwen3-0.6b,qwen3-1.7b", "llama-3.1-8c", ",", "flan-t5-xxl"],
    "format": FORMATS,
    "op": OPS,
    "zero": ["0", "1", "2", "3", "fsdp", "4", "distopt", "0,1,2,3", "x"],
    "recompute": ["none", "selective", "full", "op", "bogus", "none,full"],
    "schedule": ["1f1b", "interleaved", "gpipe", "zero_bubble", "static", "continuous", "x"],
    "precision": ["bf16", "fp16", "fp8", "fp4", "fp9", "bf16,fp8"],
    "weights": ["bf16", "fp8", "int4", "fp4", "fp9", "bf16,fp8"],
    "activations": ["bf16", "fp8", "int8", "fp9"],
    "kv_cache": ["bf16", "fp8", "int4", "x"],
    "strategy": ["best_of_n", "majority", "sequential", "beam", "bogus"],
    "strategies": ["best_of_n", "majority,beam", "bogus"],
    "speculative": ["mtp:3", "eagle:4", "ngram:2", "mtp", "mtp:0", "mtp:4294967296", "x:y"],
    "algo": ["auto", "ring", "tree", "rdma_write", "deepep_low_latency", "RING", "bogus"],
    "protocol": ["auto", "ll", "ll128", "simple", "x"],
    "size": SIZES,
    "sweep": ["1KiB:8GiB", "1:1e308", "8GiB:1KiB", "x", "1KiB:1e400", "1:2"],
    "crossover": ["ring,tree", "ring", "ring,bogus", ","],
    "stack": ["torchtitan:2025", "megatron-lm:2021", "nemo", "x:y", "torchtitan:99999999999999999999"],
    "objective": ["throughput", "cost", "memory", "mfu", "latency", "bogus"],
    "axes": ["tokens_per_s,memory_gib_per_gpu", "bogus", ","],
    "fit": ["tokens20", "approach3", "epoch", "x"],
    "intensity": ["kinetics", "100", "nan", "-1", "x"],
    "sparse_attention": ["topk=64", "topk=64,block=16,local=128", "topk=0", "topk=x", "bogus"],
    "op_precision": ["attention=bf16", "ffn=fp8", "bogus=fp8", "attention"],
    "prefill_pool": ["hw=h100-sxm,tp=8,batch=4", "tp=2", "tp=4294967296", "bogus=1", "hw=nope", ""],
    "tokens": ["15T", "1e12", "-1", "nan", "1e400", "15X", "1e30"],
    "flops": ["5.76e23", "1e400", "-1", "nan", "abc", "1e60"],
    "gpu_hours": ["1000", "-5", "nan", "1e300"],
    "max_ttft": ["1s", "50ms", "0", "-1s", "nan", "x"],
    "max_tpot": ["50ms", "1s", "0", "x"],
    "max_latency": ["10s", "x", "0"],
    "verifier": ["qwen3-0.6b", "nope", ""],
    "name": ["my-model", "BAD NAME", "", "x"],
    "samples": ["8", "1,2,4", "4,,8", "0", "4294967296", "x"] + INTS[:6],
    "gen_lens": ["1024", "1024,4096", "0", "x", "4294967296"],
    "out": ["{dir}"],
    "packing": ["document", "causal", "none", "bins", ""],
}
SKIP = {"write", "write_bands"}  # they rewrite the shipped catalog
SLOW = {"cross_validate"}  # minutes over the shipped cases: only with case files given
PATHS = {
    "plan": "plan",
    "accuracy": "accuracy",
    "path": "hf",
    "files": "cases",
    "out": "dir",
    "seq_len_dist": "seqdist",
}


# --- input files ----------------------------------------------------------------------------------
def _deep(n: int) -> str:
    return "[" * n + "]" * n


_BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
    for p, c in zip("abcdefgh", "bcdefghi", strict=True)
)
BROKEN = {  # name -> raw bytes; valid as no kind of input
    "not_utf8.yaml": b"\xff\xfe tp: 1\n",
    "not_utf8.json": b'{"tp": "\xff"}',
    "latin1.yaml": "tp: 1 # caf\u00e9\n".encode("latin-1"),
    "deep.json": _deep(100_000).encode(),
    "deep.yaml": ("a: " + _deep(100_000)).encode(),
    "deep_block.yaml": "".join(" " * i + "- \n" for i in range(0, 3000, 1)).encode(),
    "bigint.json": ('{"tp": ' + "9" * 5000 + "}").encode(),
    "bigint.yaml": ("tp: " + "9" * 5000 + "\n").encode(),
    "bigint4000.yaml": ("tp: " + "9" * 4000 + "\n").encode(),
    "bomb.yaml": _BOMB.encode(),
    "empty.yaml": b"",
    "null.yaml": b"null\n",
    "scalar.json": b"42",
    "nul.yaml": b"tp: 1\x00\n",
    "bad_syntax.yaml": b"tp: [1, 2\n",
    "bad_syntax.json": b'{"tp": 1,}',
    "tab.yaml": b"tp:\t\t- 1\n\t- 2\n",
}
PLANS = [
    {1: 2}, {"tp": [1, 2]}, {"tp": "abc"}, {"tp": {"a": 1}}, {"plan": "abc"}, {"batch": True},
    {"seq_len": 1e19}, {"prompt_len": 2**40}, {"output_len": 4294967296}, {"weights": 5}, {"tp": 2},
    {"cluster": 5}, {"cluster": {"gpus": "x"}}, {"batch": 2**63}, {"batch": 1e30}, {"gpus": 2**64},
    {"tp": -1}, {"tp": 1.5}, {None: 1}, {"plan": {"tp": 2, "batch": 4}}, {"plan": [1]},
    {"global_batch": 10**20, "gpus": 8}, {"micro_batch": 0}, {"stack": 5}, {"stack": "x:y"},
    {"schedule": ["1f1b"]}, {"speculative": 5}, {"prefill_chunk": -3}, {"decode_attention": 1},
    {"recompute": None}, {"zero": "fsdp", "gpus": 8}, {"gpus_per_node": 2**70}, {"tp": float("nan")},
]  # fmt: skip
SEQ_DISTS = [
    [[512, 0.7], [8192, 0.3]], [[1024, 1]], [], [[0, 1]], [[512, -1]], [[512, "x"]], [[512]], {"a": 1},
    [[2**40, 1]], [[512, 1e400]], [[512, 1], [512, 1]], [[n, 1] for n in range(1, 70)], [[512, 0]],
]  # fmt: skip
_CFG = {
    "model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 256,
    "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 4,
    "num_key_value_heads": 2, "vocab_size": 1000, "max_position_embeddings": 4096,
}  # fmt: skip
CFG_MUTATIONS = [
    {}, {"num_hidden_layers": 1e19}, {"num_hidden_layers": 10**19}, {"num_hidden_layers": -1},
    {"num_hidden_layers": "abc"}, {"num_hidden_layers": [1]}, {"hidden_size": 0}, {"model_type": [1]},
    {"model_type": 5}, {"model_type": "foo"}, {"vocab_size": 2**63}, {"intermediate_size": 1e30},
    {"num_attention_heads": 0}, {"hidden_size": None}, {"num_key_value_heads": 3}, {"aliases": 5},
    {"aliases": [[1]]}, {"id": {"a": 1}}, {"id": 5}, {"max_position_embeddings": 2**62},
    {"num_local_experts": 10**12, "num_experts_per_tok": 2, "model_type": "mixtral"},
    {"hidden_size": 2**40}, {"rope_scaling": "x"}, {"tie_word_embeddings": "maybe"},
    {"sliding_window": -5}, {"head_dim": 1e30}, {"vocab_size": 1.5},
]  # fmt: skip
HW_MUTATIONS = [
    {}, {"aliases": 5}, {"aliases": [[1]]}, {"aliases": {"a": 1}}, {"id": 5}, {"id": {"a": 1}},
    {"base": "fuzz-hw"}, {"base": 5}, {"base": "nope"}, {"compute": "x"}, {"compute": {"bf16": "1e400 TFLOPS"}},
    {"compute": {"bf16": 5}}, {"memory": {"capacity": "-1 GiB"}}, {"memory": 5},
    {"node": {"devices": 2**63}}, {"node": {"devices": 0}}, {"fabric": []}, {"tdp": "x"},
    {"price": {"usd_per_hour": "nan"}}, {"efficiency": {"compute": {"value": 5}}},
    {"fabric": {"scale_up": {"devices": 1e30, "bandwidth": "1 GB/s"}}}, {"name": [1, 2]},
]  # fmt: skip
CASE = {
    "id": "fz-1", "kind": "infer", "hardware": "h100-sxm", "model": "llama-3.1-8b",
    "plan": {"tp": 1, "batch": 1, "prompt_len": 128, "output_len": 8}, "metric": {"name": "ttft_s", "value": 0.05},
}  # fmt: skip
CASE_MUTATIONS = [
    {}, {"id": {"a": 1}}, {"id": [1]}, {"id": 5}, {"plan": "abc"}, {"plan": [1]}, {"tolerance": [1]},
    {"tolerance": "x"}, {"kind": ["infer"]}, {"kind": "trian"}, {"hardware": 5}, {"hardware": ["h100-sxm"]},
    {"model": {"a": 1}}, {"metric": {"name": 5, "value": 1}}, {"metric": {"name": "ttft_s", "value": "x"}},
    {"metric": {"name": "bogus", "value": 1.0}}, {"cluster": 5}, {"cluster": {"gpus": 2**63}},
    {"plan": {"batch": 2**63}}, {"plan": {"output_len": 4294967296}}, {"stack": 5}, {"stack": {"framework": 1}},
    {"hardware_overrides": 5}, {"hardware_overrides": {"memory": {"capacity": "x"}}}, {"source": [1]},
    {"kind": "collective", "collective": 5}, {"kind": "collective", "collective": {"op": 5, "size_bytes": 1e400}},
    {"kind": "train", "plan": {1: 2}}, {"kind": "tts", "tts": "x"}, {"metric": 5},
]  # fmt: skip


def _dump(path: Path, data: Any) -> str:
    if path.suffix == ".json":
        path.write_text(json.dumps(data))
    else:
        path.write_text(yaml.safe_dump(data, sort_keys=False))
    return str(path)


def write_inputs(root: Path, rng: random.Random) -> dict[str, list[str]]:
    """Write every input file kind under ``root``; returns kind -> paths."""
    out: dict[str, list[str]] = {
        "plan": [],
        "cases": [],
        "hf": [],
        "catalog": [],
        "accuracy": [],
        "dir": [],
        "seqdist": [],
    }
    root.mkdir(parents=True, exist_ok=True)
    broken = []
    for name, raw in BROKEN.items():
        (root / name).write_bytes(raw)
        broken.append(str(root / name))
    for i, p in enumerate(PLANS):
        out["plan"].append(_dump(root / f"plan{i}.{'json' if i % 3 == 0 and None not in p else 'yaml'}", p))
    for i, m in enumerate(CASE_MUTATIONS):
        out["cases"].append(_dump(root / f"cases{i}.yaml", [{**CASE, **m}]))
    for i, m in enumerate(CFG_MUTATIONS):
        sub = root / f"hf{i}"
        sub.mkdir(exist_ok=True)
        out["hf"].append(_dump(sub / "config.json", {**_CFG, **m}))
        out["hf"].append(_dump(root / f"model{i}.yaml", {**_CFG, **m}))
    base_hw = yaml.safe_load((Path(__file__).resolve().parents[1] / "hardware" / "h100-sxm.yaml").read_text())
    for i, m in enumerate(HW_MUTATIONS):
        d = root / f"cat{i}"
        (d / "hardware").mkdir(parents=True, exist_ok=True)
        (d / "models").mkdir(exist_ok=True)
        hw = {**copy.deepcopy(base_hw), "id": "fuzz-hw", "aliases": ["fz"], **m}
        _dump(d / "hardware" / "fuzz-hw.yaml", hw)
        _dump(
            d / "models" / "fuzz-model.yaml",
            {**_CFG, "id": "fuzz-model", **CFG_MUTATIONS[i % len(CFG_MUTATIONS)]},
        )
        if i % 4 == 0:
            (d / "hardware" / "broken.yaml").write_bytes(rng.choice(list(BROKEN.values())))
        if i % 4 == 1:
            (d / "models" / "broken.yaml").write_bytes(rng.choice(list(BROKEN.values())))
        if i % 4 == 2:
            (d / "loose.yaml").write_bytes(rng.choice(list(BROKEN.values())))
        out["catalog"].append(str(d))
    out["accuracy"] = [_dump(root / "acc0.yaml", [{"model": "qwen3-0.6b", "gen_len": 1024, "p": 0.2}]),
                       _dump(root / "acc1.yaml", {"qwen3-0.6b": {1024: "x"}}), _dump(root / "acc2.yaml", [{1: 2}])]  # fmt: skip
    out["dir"] = [str(root / "outdir"), str(root / "plan1.yaml")]
    for i, d in enumerate(SEQ_DISTS):
        out["seqdist"].append(_dump(root / f"seqdist{i}.{'json' if i % 3 == 0 else 'yaml'}", d))
    (root / "seqdist.csv").write_text("length,weight\n512,0.7\n8192,0.3\n")
    (root / "seqdist_bad.csv").write_text("length,weight\n512,x\n")
    out["seqdist"] += [str(root / "seqdist.csv"), str(root / "seqdist_bad.csv")]
    for k in ("plan", "cases", "hf", "accuracy", "seqdist"):
        out[k] += broken
    out["broken"] = broken
    return out


# --- invocations ----------------------------------------------------------------------------------
@dataclass
class Param:
    """One option or argument of a command, as click declares it."""

    name: str
    opts: list[str]
    kind: str  # "flag" | "int" | "float" | "path" | "str"
    argument: bool
    required: bool
    multiple: bool


def commands() -> dict[tuple[str, ...], list[Param]]:
    """Every leaf command of the CLI with its parameters, from the click tree."""
    import typer

    from llmcost.cli import app

    found: dict[tuple[str, ...], list[Param]] = {}

    def walk(cmd: Any, path: tuple[str, ...]) -> None:
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, (*path, name))
            return
        params = []
        for p in cmd.params:
            if p.name == "help":
                continue
            tname = str(p.bare_type()).lower()
            kind = "flag" if getattr(p, "is_flag", False) else next(
                (k for k in ("int", "float", "path") if k in tname), "str"
            )  # fmt: skip
            arg = p.param_type_name == "argument"
            longs = [o for o in p.opts if o.startswith("--")]
            name = longs[0][2:].replace("-", "_") if longs else p.name
            opts = list(p.opts) + list(p.secondary_opts or [])
            params.append(
                Param(name, opts, kind, arg, p.required, p.multiple or p.nargs == -1 or "list" in tname)
            )
        found[path] = params

    walk(typer.main.get_command(app), ())
    return found


def _value(p: Param, files: dict[str, list[str]], rng: random.Random) -> str:
    name = p.name
    if name in PATHS and (p.kind == "path" or name in ("plan", "accuracy")):
        return rng.choice(files[PATHS[name]] + ["/nonexistent/x.yaml"])
    if name == "model" and rng.random() < 0.3:
        return rng.choice(files["hf"] + files["broken"])
    if name in WORDS and rng.random() < 0.85:
        return rng.choice(WORDS[name]).replace("{dir}", files["dir"][0])
    if p.kind == "int":
        return rng.choice(INTS)
    if p.kind == "float":
        return rng.choice(FLOATS)
    if name in ("gpus", "tp", "pp", "cp", "ep", "dp", "micro_batch", "virtual_stages", "batch"):
        return rng.choice(LISTS)
    return rng.choice(STRS + INTS[:4])


def invocation(
    cmds: dict[tuple[str, ...], list[Param]],
    files: dict[str, list[str]],
    rng: random.Random,
    quick: bool = False,
) -> list[str]:
    """One random argument list: a command, its required arguments and options, some other options.
    ``quick``: validate always reads given case files (the shipped ones take seconds); calibrate always does."""
    path = rng.choice(sorted(cmds))
    params = cmds[path]
    args: list[str] = []
    if rng.random() < 0.25:
        args += ["--catalog", rng.choice(files["catalog"])]
    args += list(path)
    need_files = path[0] == "calibrate" or (quick and path[0] == "validate")
    given = False
    for p in params:
        if p.argument and (p.required or need_files or rng.random() < 0.5):
            n = rng.randint(1, 2) if p.multiple else 1
            args += [_value(p, files, rng) for _ in range(n)]
            given = True
        elif p.required and not p.argument and rng.random() < 0.97:
            args += [rng.choice(p.opts), _value(p, files, rng)]
    opts = [p for p in params if not p.argument and not p.required and p.name not in SKIP]
    if path[0] in ("validate", "calibrate") and not given:
        opts = [p for p in opts if p.name not in SLOW]
    for p in rng.sample(opts, k=min(len(opts), rng.choice([0, 1, 2, 2, 3, 4, 6]))):
        if p.kind == "flag":
            args.append(rng.choice(p.opts))
        else:
            args += [rng.choice(p.opts), _value(p, files, rng)]
    if rng.random() < 0.03:  # usage errors: unknown option, missing value, stray argument
        args.insert(rng.randint(0, len(args)), rng.choice(["--bogus", "-z", "stray", "--hw"]))
    return args


# --- running ----------------------------------------------------------------------------------------
class Hang(BaseException):
    """Raised by the alarm when an invocation runs past its budget."""


@dataclass
class Outcome:
    args: list[str]
    code: int
    err: str
    seconds: float
    problem: str | None  # None when fine, else "traceback" / "exit N" / "hang"


def _alarm(signum: int, frame: Any) -> None:
    raise Hang()


def run_one(args: list[str], budget_s: float) -> Outcome:
    """Run ``llmcost ARGS`` in-process under ``budget_s`` seconds of wall clock."""
    from typer.testing import CliRunner

    from llmcost import catalog
    from llmcost.cli import main

    catalog.set_user_dirs([])
    code, problem, tb = 0, None, ""
    t0 = time.perf_counter()
    old = signal.signal(signal.SIGALRM, _alarm)
    runner = CliRunner(env={"COLUMNS": "120", "LLMCOST_CATALOG": None})
    with runner.isolation() as (out, err, _):
        signal.setitimer(signal.ITIMER_REAL, budget_s)
        try:
            main(list(args))
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except Hang:
            code, problem = -1, "hang"
        except BaseException:  # noqa: BLE001 - the point: anything escaping main is a traceback
            code, problem, tb = 1, "traceback", traceback.format_exc(limit=-3)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
            sys.stdout.flush()
            sys.stderr.flush()
        stderr = err.getvalue().decode("utf-8", "replace")
    if problem is None and code not in (0, 2):
        problem = f"exit {code}"
    if problem is None and code == 2 and (not stderr.startswith("error: ") or stderr.count("\n") != 1):
        problem = "not one line"
    return Outcome(args, code, tb or stderr[-600:], time.perf_counter() - t0, problem)


def sweep(n: int, seed: int, root: Path, budget_s: float, quick: bool = False) -> Iterator[Outcome]:
    """``n`` seeded invocations over the inputs written under ``root``."""
    rng = random.Random(seed)
    files = write_inputs(root, rng)
    cmds = commands()
    for _ in range(n):
        yield run_one(invocation(cmds, files, rng, quick), budget_s)


def main() -> None:
    import argparse
    import collections
    import tempfile

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget", type=float, default=20.0)
    a = ap.parse_args()
    counts: collections.Counter[str] = collections.Counter()
    bad: list[Outcome] = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for o in sweep(a.n, a.seed, Path(tmp), a.budget):
            counts[o.problem or f"exit {o.code}"] += 1
            if o.problem:
                bad.append(o)
                print(f"{o.problem}: {' '.join(o.args)}\n    {o.err.strip().splitlines()[-1:]}", flush=True)
    print(f"{a.n} invocations in {time.perf_counter() - t0:.0f} s: {dict(counts)}")


if __name__ == "__main__":
    main()
