"""What ``llmcost tts`` prints: one query's result as a table or a document, and the ``--explain``
closed forms with the query's values."""

from __future__ import annotations

from typing import Any

from llmcost.cli.explaining import Explanation
from llmcost.units import GIB


def _table(r: Any, m: dict[str, Any]) -> dict[str, Any]:
    from llmcost.units import fmt_time

    t = r.totals
    return {
        "eFLOPs (Kinetics)": m["eflops_per_query"],
        "FLOPs": m["flops_per_query"],
        "bytes moved": m["bytes_per_query"],
        "bytes by part": {
            "weights": t["weight_bytes"],
            "KV reads": t["kv_read_bytes"],
            "activations": t["activation_bytes"],
            "prefill": r.prefill[1],
            "verifier": r.verifier["bytes"] if r.verifier else 0.0,
        },
        "FLOPs by part": {
            "linear": t["linear_flops"],
            "attention": t["attention_flops"],
            "prefill": r.prefill[0],
            "verifier": r.verifier["flops"] if r.verifier else 0.0,
        },
        "intensity I (FLOP/B)": f"{r.intensity:.1f} ({r.intensity_note})",
        "latency": fmt_time(m["latency_s"]),
        "latency by part": {k: fmt_time(v) for k, v in r.latency.items() if k != "total"},
        "KV cache GiB (query, resident)": m["kv_cache_gib"],
        "memory GiB per GPU": {k: round(v / GIB, 2) for k, v in r.memory.items()},
        "generated tokens": int(m["generated_tokens"]),
        "USD per query": m["usd_per_query"],
        "J per query": m["joules_per_query"],
    }


def views(model: str, rep: Any, fmt: str) -> tuple[dict[str, Any], Any, str]:
    """(table data, machine data, title) of one query's result (an :class:`llmcost.api.TTSReport`);
    the machine data is its ``as_dict()`` (CSV: its scalar entries)."""
    r, hardware = rep.result, rep.hardware
    plan = r.plan
    sp = f", {plan.sparse.describe()}" if plan.sparse else ""
    title = (
        f"{model} on {r.devices} x {hardware.id}: {plan.strategy}, N={plan.samples}, "
        f"{plan.prompt_len} in / {plan.gen_len} out{sp}"
    )
    out = rep.as_dict()
    machine = out if fmt != "csv" else [{k: v for k, v in out.items() if not isinstance(v, (dict, list))}]
    return _table(r, r.metrics()), machine, title


# ----------------------------------------------------------------------------------- explain
def _values(r: Any) -> dict[str, float]:
    """The query's value of each symbol the printed closed forms use."""
    p = r.plan
    return {
        "n_samples": p.samples,
        "l_in": p.prompt_len,
        "l_out": p.gen_len,
        "intensity": r.intensity,
        "f_tok": r.prims.f_tok,
        "beam_width": min(p.beam_width, p.samples),
        "beam_step": min(p.beam_step, p.gen_len),
        "budget": float("inf"),
    }


def _names(r: Any, vals: dict[str, float]) -> list[str]:
    """The formulas of this strategy (adds the dense group's f_pair, k_pos to ``vals`` when shown)."""
    p = r.plan
    seq = p.strategy == "sequential"
    names = [
        "linear_flops",
        "pairs__sequential" if seq else "pairs__parallel",
        "reads__sequential"
        if seq
        else ("reads__beam_shared" if p.strategy == "beam" else "reads__parallel_shared"),
        "eflops",
    ]
    if not seq and p.strategy != "beam" and len(r.prims.groups) == 1 and p.sparse is None:
        g = r.prims.groups[0]
        vals |= {"f_pair": g.f_pair, "k_pos": g.k_pos}
        names.append("eflops__dense_parallel")
    return names


def explain(r: Any) -> Explanation:
    """The closed forms behind the figures with this query's values substituted, each with the
    function that builds it (imports sympy)."""
    import sympy as sp

    from llmcost.cli.explaining import builder_of
    from llmcost.tts import formulas as F

    p = r.plan
    ex = Explanation()
    ex.add(f"I = {r.intensity:.1f} FLOP/B: {r.intensity_note}")
    ex.add(f"f_tok = {r.prims.f_tok:.4g} FLOPs per generated token (graph decode ops at context 0, tp 1)")
    for g in r.prims.groups:
        ex.add(
            f"group {g.name} x{g.count}: f_pair = {g.f_pair:.4g} FLOP per (query, key), k_pos = "
            f"{g.k_pos:.4g} B per position, window {g.window}"
        )
    vals = _values(r)
    names = _names(r, vals)
    vals |= {"c_comp": r.totals["decode_flops"], "c_mem": r.totals["kv_read_bytes"]}
    for name in names:
        e = F.expression(name)
        sub = {
            s: sp.oo if vals.get(s.name) == float("inf") else sp.Float(vals[s.name])
            for s in e.free_symbols
            if s.name in vals
        }
        val = e.subs(sub)
        line = f"{name} = {e}  = {float(val):.4g}" if val.is_number else f"{name} = {e}"
        ex.add(line, name, builder_of(f"tts.{name}"))
    usd, energy = builder_of("tts.usd"), builder_of("tts.energy")
    ex.add(f"usd = {F.expression('usd')}  [{usd}];  energy = {F.expression('energy')}  [{energy}]")
    ex.builders |= {"usd": usd, "energy": energy}
    seq = p.strategy == "sequential"
    ex.add(
        "latency = prefill (graph forward, batch 1) + sum over decode steps of the graph decode ops "
        f"(batch {1 if seq else p.samples}) + shared-prompt attention + verifier prefill"
    )
    return ex
