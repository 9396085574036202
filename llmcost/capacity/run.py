"""``llmcost fit`` on a resolved model and device: training or serving, every option or one count."""

from __future__ import annotations

from typing import Any

from llmcost.capacity.fit import OPTIONS, FitReport, check_limit
from llmcost.errors import UserError
from llmcost.hardware import Hardware


def run_fit(
    spec: Any,
    hw: Hardware,
    mode: str,
    gpus: int | None,
    max_devices: int | None,
    options: Any,
    keys: dict[str, Any],
) -> FitReport:
    """:func:`llmcost.api.fit` on a resolved model and device."""
    from llmcost import checks
    from llmcost.capacity import serving, training

    if mode not in ("train", "infer"):
        raise UserError(f"fit mode '{mode}': use train or infer")
    for k in ("seq_len", "global_batch", "batch", "prompt_len", "output_len"):
        if keys.get(k) is not None:
            keys = {**keys, k: checks.finite_int(keys[k], "--" + k.replace("_", "-"))}
    rep = FitReport(spec.name, hw.id, mode, keys)
    mod: Any = training if mode == "train" else serving
    cap = int(spec.max_position_embeddings or 131072)
    if gpus is not None:
        n = checks.finite_int(gpus, "--gpus")
        if options:  # each option asked for: what fits under it
            rows = [mod.on_count(spec, hw, n, keys, cap, o) for o in options]
            rep.on_count = {"gpus": n, "options": rows}
        else:
            rep.on_count = mod.on_count(spec, hw, n, keys, cap)
        return rep
    chosen = tuple(options) if options else (OPTIONS if mode == "train" else serving.FORMATS)
    rep.options = mod.fit_options(spec, hw, keys, check_limit(max_devices), chosen)
    return rep
