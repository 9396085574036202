"""``llmcost fit``: the fewest devices a model trains or serves on, per memory option, or what fits
on a given count (:mod:`llmcost.capacity`)."""

from typing import Annotated, Any

import typer

from llmcost.cli.options import FormatOpt, HwOpt, ModelArg

Opt = typer.Option


def fit(
    model: ModelArg,
    hw: HwOpt = "h100-sxm",
    infer: Annotated[bool, Opt("--infer", help="Serving (a batch and context) instead of training.")] = False,
    train: Annotated[bool, Opt("--train", help="Training (the default).")] = False,
    gpus: Annotated[
        int | None,
        Opt("--gpus", help="A device count: the longest sequence and largest batch that fit on it."),
    ] = None,
    max_devices: Annotated[
        int | None, Opt("--max-devices", help="Largest count to try (default 8192).")
    ] = None,
    seq_len: Annotated[int | None, Opt("--seq-len", help="Training sequence length.")] = None,
    global_batch: Annotated[
        int | None, Opt("--global-batch", help="Training global batch (default one sequence per device).")
    ] = None,
    precision: Annotated[str | None, Opt("--precision", help="Training precision(s).")] = None,
    zero: Annotated[str | None, Opt("--zero", help="Only these ZeRO modes (0, distopt, 1, 2, 3).")] = None,
    offload: Annotated[
        str | None,
        Opt("--offload", help="Only these offload tiers (none, cpu, nvme, cpu+params, nvme+params)."),
    ] = None,
    batch: Annotated[int | None, Opt("--batch", help="Serving: concurrent sequences.")] = None,
    prompt_len: Annotated[int | None, Opt("--prompt-len", help="Serving: prompt tokens.")] = None,
    output_len: Annotated[int | None, Opt("--output-len", help="Serving: generated tokens.")] = None,
    weights: Annotated[str | None, Opt("--weights", help="Serving: only these weight formats.")] = None,
    kv_cache: Annotated[str | None, Opt("--kv-cache", help="Serving: KV-cache format.")] = None,
    fmt: FormatOpt = "table",
) -> None:
    """The fewest devices MODEL trains on for each ZeRO mode x offload tier (or, with --infer, serves
    a batch on for each weight format), with the fastest plan there and what dominates its memory;
    with --gpus N, the longest sequence and the largest batch that fit on N devices."""
    from llmcost import api
    from llmcost.cli.fit_view import emit_fit
    from llmcost.errors import UserError
    from llmcost.report import check_format

    check_format(fmt)
    if infer and train:
        raise UserError("--train and --infer: give one (training is the default)")
    mode = "infer" if infer else "train"
    keys = _keys(mode, seq_len, global_batch, precision, batch, prompt_len, output_len, kv_cache)
    options = _options(mode, zero, offload, weights)
    rep = api.fit(model, hw, mode=mode, gpus=gpus, max_devices=max_devices, options=options, **keys)
    emit_fit(rep, fmt)


def _keys(
    mode: str, seq_len: Any, global_batch: Any, precision: Any, batch: Any, prompt: Any, out: Any, kv: Any
) -> dict[str, Any]:
    """The search keys of the mode; options of the other mode refused in one line."""
    from llmcost.errors import UserError

    train = {"seq_len": seq_len, "global_batch": global_batch, "precision": precision}
    infer = {"batch": batch, "prompt_len": prompt, "output_len": out, "kv_cache": kv}
    mine, other = (train, infer) if mode == "train" else (infer, train)
    stray = [k for k, v in other.items() if v is not None]
    if stray:
        flag = "--" + stray[0].replace("_", "-")
        raise UserError(
            f"{flag} is a {'serving' if mode == 'train' else 'training'} option; "
            + ("add --infer" if mode == "train" else "drop --infer")
        )
    if mode == "infer":
        mine = {
            "batch": 1,
            "prompt_len": 1024,
            "output_len": 256,
            **{k: v for k, v in mine.items() if v is not None},
        }
    return {k: v for k, v in mine.items() if v is not None}


def _options(mode: str, zero: str | None, offload: str | None, weights: str | None) -> tuple[Any, ...] | None:
    """The options to report: (zero, offload) pairs filtered by --zero / --offload, or --weights."""
    from llmcost.capacity.fit import OPTIONS
    from llmcost.errors import UserError
    from llmcost.search.common import parse_list

    if mode == "infer":
        if zero or offload:
            raise UserError("--zero / --offload are training options; drop --infer")
        return parse_list(weights, "--weights", str.lower)
    if weights:
        raise UserError("--weights is a serving option; add --infer")
    zs = parse_list(zero, "--zero", str.lower, ("0", "distopt", "1", "2", "3"))
    offs = parse_list(offload, "--offload", str.lower, ("none", "cpu", "nvme", "cpu+params", "nvme+params"))
    chosen = tuple(o for o in OPTIONS if (zs is None or o[0] in zs) and (offs is None or o[1] in offs))
    if not chosen:
        raise UserError("no (ZeRO, offload) option left: offload needs ZeRO >= 1, parameter offload ZeRO 3")
    return chosen if (zs or offs) else None


def register(app: typer.Typer) -> None:
    """Add ``fit`` to the CLI."""
    app.command("fit")(fit)
