"""``llmcost hw list|show`` and ``llmcost model list|show|import``: the catalogs."""

from pathlib import Path
from typing import Annotated, Any

import typer

from llmcost.cli.options import FormatOpt, complete_hardware, complete_model
from llmcost.report import check_format, emit
from llmcost.units import GIB, TERA

hw_app = typer.Typer(help="The hardware catalog: accelerators, CPUs and systems.", no_args_is_help=True)
model_app = typer.Typer(help="The model catalog: shapes and parameter counts.", no_args_is_help=True)


def _hw_row(hw: Any) -> dict[str, Any]:
    up = hw.fabric[0]
    out = hw.fabric[-1] if len(hw.fabric) > 1 else None
    return {
        "id": hw.id,
        "name": hw.name,
        "type": hw.type,
        "bf16_tflops": hw.peak.get("bf16", hw.peak.get("fp16", 0.0)) / TERA or None,
        "fp8_tflops": hw.peak.get("fp8", 0.0) / TERA or None,
        "fp4_tflops": hw.peak.get("fp4", 0.0) / TERA or None,
        "memory_gib": hw.memory_capacity / GIB,
        "memory_tbps": hw.memory_bandwidth / TERA,
        "scale_up_gbps": up.bandwidth / 1e9,
        "scale_up_devices": up.devices,
        "scale_out_gbit": out.bandwidth * 8 / 1e9 if out else None,
        "tdp_w": hw.tdp,
        "usd_per_hour": hw.price_per_hour,
    }


@hw_app.command("list")
def hw_list(fmt: FormatOpt = "table") -> None:
    """List the hardware catalog (dense peaks; bandwidths one direction per device)."""
    from llmcost.catalog import catalog

    check_format(fmt)
    rows = [_hw_row(h) for h in catalog().all_hardware()]
    emit(
        rows,
        fmt,
        title="Hardware catalog (dense peak TFLOP/s; memory GiB, TB/s; scale-up GB/s one direction; NIC Gbit/s)",
        notes=[] if fmt != "table" else ["Details and sources: llmcost hw show ID"],
    )


@hw_app.command("show")
def hw_show(
    hw_id: Annotated[str, typer.Argument(metavar="ID", autocompletion=complete_hardware)],
    fmt: FormatOpt = "table",
) -> None:
    """Show one hardware entry as resolved (systems merged over their base), with sources."""
    from llmcost.catalog import catalog

    check_format(fmt)
    cat = catalog()
    raw, where = cat.hardware_raw(hw_id)
    cat.hardware(hw_id)  # validate before printing
    emit(raw, fmt, title=f"{raw.get('name', hw_id)}  ({where})")


def _model_row(model_id: str) -> dict[str, Any]:
    from llmcost.catalog import get_model_config
    from llmcost.model.config import from_config
    from llmcost.model.params import count_params

    cfg = get_model_config(model_id)
    spec = from_config(cfg, where=f"models/{model_id}")
    counts = count_params(spec)
    moe = spec.moe
    return {
        "id": model_id,
        "model_type": cfg.get("model_type"),
        "params_total": counts.total,
        "params_active": counts.active,
        "total_b": counts.total / 1e9,
        "active_b": counts.active / 1e9,
        "layers": spec.num_layers + spec.num_encoder_layers,
        "hidden": spec.hidden_size,
        "heads": spec.num_heads,
        "kv_heads": spec.num_kv_heads,
        "attention": spec.attention_type + (" + window" if spec.sliding_layers else ""),
        "experts": f"{moe.top_k}/{moe.num_experts}" if moe else None,
        "context": spec.max_position_embeddings,
    }


@model_app.command("list")
def model_list(fmt: FormatOpt = "table") -> None:
    """List the model catalog with parameter counts computed from each config."""
    from llmcost.catalog import model_ids

    check_format(fmt)
    rows = [_model_row(m) for m in model_ids()]
    if fmt == "table":
        for r in rows:
            del r["params_total"], r["params_active"]
    emit(rows, fmt, title="Model catalog (parameters in billions, computed from the config)")


@model_app.command("show")
def model_show(
    model_id: Annotated[str, typer.Argument(metavar="ID", autocompletion=complete_model)],
    fmt: FormatOpt = "table",
) -> None:
    """Show one model entry: its config keys and the parameter counts computed from them."""
    from dataclasses import asdict

    from llmcost.catalog import catalog
    from llmcost.model.config import from_config
    from llmcost.model.params import count_params

    check_format(fmt)
    cfg, where = catalog().model_config(model_id)
    counts = count_params(from_config(cfg, where=where))
    out = dict(cfg)
    out["computed_params"] = asdict(counts)
    emit(out, fmt, title=f"{cfg.get('name', cfg['id'])}  ({where})")


@model_app.command("import")
def model_import(
    path: Annotated[Path, typer.Argument(help="A Hugging Face config.json on disk.")],
    name: Annotated[str | None, typer.Option("--name", help="Catalog id (default: the folder name).")] = None,
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", help="Write <id>.yaml into this catalog directory instead of printing."),
    ] = None,
    fmt: FormatOpt = "yaml",
) -> None:
    """Turn a local Hugging Face config.json into a catalog entry (printed, or written with --out)."""
    from llmcost.errors import UserError
    from llmcost.model.importer import import_config
    from llmcost.report import render

    check_format(fmt)
    entry = import_config(str(path), name)
    if out_dir is None:
        emit(entry, fmt)
        return
    if not out_dir.is_dir():
        raise UserError(
            f"--out: '{out_dir}' is not a directory; create it or name an existing catalog folder"
        )
    target = out_dir / f"{entry['id']}.yaml"
    target.write_text(render(entry, "yaml") + "\n", encoding="utf-8")
    print(f"wrote {target} (use it with --catalog {out_dir})")


def register(app: typer.Typer) -> None:
    app.add_typer(hw_app, name="hw")
    app.add_typer(model_app, name="model")
