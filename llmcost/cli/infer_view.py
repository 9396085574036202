"""What ``llmcost infer`` prints: the result as a table or a document, per-operator rows, and the
``--explain`` expressions with the plan's values."""

from __future__ import annotations

from typing import Any

from llmcost.cli.explaining import Explanation
from llmcost.units import GIB


def ops_rows(r: Any, table: bool) -> list[dict[str, Any]]:
    """One row per operator of both phases (``--breakdown``): time, FLOPs, bytes and bound."""
    import numpy as np

    from llmcost.units import fmt_time

    rows = []
    names = (
        ("prefill", "decode") if r.plan.schedule == "static" else ("step with a prefill chunk", "decode step")
    )
    phases = [(names[0], r.prefill), (names[1], r.decode)] + (
        [(f"draft x{r.plan.speculative.tokens}", r.draft)] if r.draft is not None else []
    )
    for phase, ph in phases:
        for o in ph.ops:
            t = float(np.mean(o.time)) * o.count
            bound = str(np.atleast_1d(o.bound)[-1])
            row = {
                "phase": phase,
                "group": o.group,
                "op": o.name,
                "kind": o.kind,
                "count": o.count,
                "bound": bound,
            }
            if table:
                row |= {
                    "time": fmt_time(t),
                    "GFLOP": float(np.mean(o.flops)) * o.count / 1e9,
                    "MB": float(np.mean(o.hbm_bytes)) * o.count / 1e6,
                }
            else:
                row |= {
                    "time_s": t,
                    "flops": float(np.mean(o.flops)) * o.count,
                    "hbm_bytes": float(np.mean(o.hbm_bytes)) * o.count,
                }
            rows.append(row)
    return rows


def views(model: str, rep: Any, fmt: str) -> tuple[dict[str, Any], Any, str]:
    """(table data, machine data, title) of one inference result (an
    :class:`llmcost.api.InferReport`); the machine data is its ``as_dict()``."""
    from llmcost.units import fmt_time

    r, hardware, plan = rep.result, rep.hardware, rep.result.plan
    m = r.metrics()
    mem = {k: v / GIB for k, v in r.memory.items()}
    table: dict[str, Any] = {
        "TTFT": fmt_time(r.ttft),
        "TPOT": fmt_time(r.tpot),
        "end-to-end latency": fmt_time(r.e2e),
        "output tokens/s": m["output_tokens_per_s"],
        "output tokens/s per GPU": m["output_tokens_per_s_per_gpu"],
        "prefill tokens/s per GPU": m["input_tokens_per_s_per_gpu"],
        "memory GiB per GPU": {k: round(v, 2) for k, v in mem.items()},
        "largest batch that fits": r.max_batch,
        "USD per 1M output tokens": m["usd_per_million_output_tokens"],
        (
            "J per output token (TDP)" if r.draw is None else f"J per output token ({r.draw:.0f} W mean draw)"
        ): m["joules_per_output_token"],
        "precision": f"weights {r.formats[0]}, activations {r.formats[1]}, KV {r.formats[2]}; math "
        f"{r.math[0]} (GEMM) / {r.math[1]} (attention)"
        + "".join(f"; {g} {w}" + (f"/{a}" if a != w else "") for g, w, a in plan.op_precision),
    }
    title = (
        f"{model} on {r.gpus} x {hardware.id} (tp {plan.tp}, pp {plan.pp}, dp {plan.dp}, cp {plan.cp}, "
        f"ep {plan.ep}), batch {r.batch}, {plan.prompt_len} in / {plan.output_len} out"
    )
    out = rep.as_dict()
    return table, out if fmt != "csv" else [out], title


# ----------------------------------------------------------------------------------- explain
def _value(e: Any, vals: dict[str, float]) -> float:
    """``e`` at ``vals`` (an infinite window as sympy's oo)."""
    import sympy as sp

    sub = {s: sp.Float(vals[s.name]) if vals[s.name] != float("inf") else sp.oo for s in e.free_symbols}
    return float(e.subs(sub))


def _explain_group(ex: Explanation, phase: str, g: Any, vals: dict[str, float]) -> None:
    """The nonzero FLOPs (bytes of a collective) and HBM bytes of each operator of one layer group."""
    import sympy as sp

    from llmcost.cli.formula_index import location
    from llmcost.graph import ops as G

    label = f"{phase} {g.name}"
    ex.add(
        f"-- {phase} layer group {g.name} x{g.count} (per layer, per GPU):",
        label,
        f"{location(G.layer_ops)}('{g.shape}')",
    )
    for op in G.layer_ops(g.shape):
        expr, q = (op.size, "size") if op.kind == "collective" else (op.flops, "flops")
        e = sp.sympify(expr)
        if e == 0:
            continue
        ex.add(f"   {op.name}.{q} = {e} = {_value(e, vals):.4g}")
        if op.kind != "collective":
            hb = sp.sympify(op.hbm_bytes)
            ex.add(f"   {op.name}.hbm_bytes = {hb} = {_value(hb, vals):.4g}")


def explain(model: str, hw: Any, plan: Any, r: Any) -> Explanation:
    """The expressions behind TTFT and TPOT with the plan's values substituted, each with the
    function that builds it."""
    from llmcost.cli.formula_index import location
    from llmcost.graph import ops as G
    from llmcost.inference import formulas as IF
    from llmcost.inference import serve as I
    from llmcost.inference.plan import per_replica
    from llmcost.kernels import roofline

    ev = I.Evaluator(I.spec_of(model), hw, plan)
    ex = Explanation()
    if plan.schedule == "continuous":
        ex.add(
            f"continuous batching: T_step = {IF.cb_step()};  TPOT = {IF.cb_tpot()};  TTFT = {IF.cb_ttft()};  "
            f"share f = {IF.cb_prefill_share()}",
            "TTFT, TPOT",
            location(I.serve_continuous),
        )
    else:
        ex.add(
            "TTFT = (m + p - 1)/p * T_prefill + (p - 1) * T_p2p;  TPOT = mean over decode steps of T_decode(ctx) "
            "+ (p - 1) * T_p2p;  T_phase = sum_groups count * sum_ops T_op",
            "TTFT, TPOT",
            location(I.serve),
        )
    if plan.speculative is not None:
        ex.add(
            f"speculative {plan.speculative.method}: T_step = "
            f"{IF.cb_step() if plan.schedule == 'continuous' else IF.decode_step()} with T_decode verifying "
            f"k + 1 = {plan.speculative.tokens + 1} tokens per sequence (n_dec), tokens per step "
            f"{IF.accepted_tokens()}; the decode operators below are shown at n_dec = 1",
            "speculative",
            location(I.serve_continuous if plan.schedule == "continuous" else I.serve),
        )
    ex.add(
        f"T_op = {roofline.expression()}  (per operator; collectives: llmcost collective)",
        "T_op",
        location(roofline.expression),
    )
    ex.add(
        f"values: tp={plan.tp} pp={plan.pp} dp={plan.dp} cp={plan.cp} ep={plan.ep} batch/replica="
        f"{per_replica(r.batch, plan.dp)} prompt={plan.prompt_len} output={plan.output_len}; math {r.math[0]} "
        f"(GEMM) / {r.math[1]} (attention); peak {ev.peak_mm / 1e12:.1f} / {ev.peak_attn / 1e12:.1f} TFLOP/s, "
        f"eta_c={hw.compute_efficiency}, W_hbm={hw.memory_bandwidth / 1e12:.2f} TB/s, eta_m={hw.memory_efficiency}"
        + "".join(
            f"; {g} GEMMs at {w}/{a} (op_precision: their b_w, b_a and peak replace the plan's)"
            for g, w, a in plan.op_precision
        )
    )
    m = max(1, min(per_replica(r.batch, plan.dp), plan.pp))
    for phase, work in (
        ("forward", {"seq": plan.prompt_len, "ctx": plan.prompt_len}),
        ("decode", {"seq": 1, "ctx": plan.prompt_len + plan.output_len // 2}),
    ):
        vals = dict(ev.vals, micro_batch=per_replica(r.batch, plan.dp) / m, **work)
        for g in G.layer_groups(ev.spec, phase)[:3]:
            vals["window"] = G.window_value(g.window)
            _explain_group(ex, phase, g, vals)
    return ex


# ------------------------------------------------------------------------------ disaggregation
def deployment_views(model: str, dep: Any, fmt: str) -> tuple[dict[str, Any], Any, str]:
    """(table data, machine data, title) of a disaggregated deployment
    (:class:`llmcost.inference.disagg.Deployment`)."""
    from llmcost.units import fmt_time

    m = dep.metrics()
    p, d = dep.prefill, dep.decode

    def pool(r: Any, hw: Any) -> str:
        q = r.plan
        return (
            f"{r.gpus} x {hw.id} (tp {q.tp}, pp {q.pp}, dp {q.dp}, ep {q.ep}, cp {q.cp}), batch {r.batch}, "
            f"{'/'.join(r.formats)}"
        )

    table: dict[str, Any] = {
        "prefill pool": pool(p, dep.prefill_hw),
        "decode pool": pool(d, dep.decode_hw),
        "TTFT (prefill + KV write)": f"{fmt_time(m['ttft_s'])} ({fmt_time(p.ttft)} + {fmt_time(m['kv_transfer_s'])})",
        "TPOT": fmt_time(m["tpot_s"]),
        "end-to-end latency": fmt_time(m["e2e_latency_s"]),
        "KV write per prefill GPU and batch": f"{m['kv_transfer_bytes_per_gpu'] / 1e6:.4g} MB over {dep.nics} NIC(s)",
        "requests/s: prefill pool, decode pool": f"{m['prefill_requests_per_s']:.4g}, {m['decode_requests_per_s']:.4g} "
        f"(bound by the {m['bound_by']})",
        "output tokens/s": m["output_tokens_per_s"],
        "output tokens/s per GPU": m["output_tokens_per_s_per_gpu"],
        "GPUs": m["gpus"],
        "USD per 1M output tokens": m["usd_per_million_output_tokens"],
        "memory GiB per GPU (prefill, decode)": f"{p.memory['total'] / GIB:.1f}, {d.memory['total'] / GIB:.1f}",
    }
    title = (
        f"{model} disaggregated, {d.plan.prompt_len} in / {d.plan.output_len} out: "
        f"{p.gpus} prefill + {d.gpus} decode GPUs"
    )
    drop_p = ("tpot_s", "output_tokens_per_s", "output_tokens_per_s_per_gpu", "output_tokens_per_s_per_user",
              "usd_per_million_output_tokens", "joules_per_output_token")  # fmt: skip
    drop_d = ("ttft_s", "e2e_latency_s", "input_tokens_per_s_per_gpu")  # the decode pool never prefills
    machine = {
        **m,
        "prefill": {k: v for k, v in p.metrics().items() if k not in drop_p}
        | {"gpus": p.gpus, "batch": p.batch, "hardware": dep.prefill_hw.id},
        "decode": {k: v for k, v in d.metrics().items() if k not in drop_d}
        | {"gpus": d.gpus, "batch": d.batch, "hardware": dep.decode_hw.id},
    }
    return table, machine if fmt != "csv" else [m], title


def deployment_notes(dep: Any) -> list[str]:
    """The notes of both pools (once each) and what the composition assumes."""
    notes = [
        "disaggregated: each prefill GPU writes its shard of the batch's prompt KV cache to the decode pool by "
        "RDMA (rdma_write), overlapping the next batch's prefill but not the first token; the slower pool sets "
        "the request rate; queueing is not modelled"
    ]
    for n in dep.prefill.notes + dep.decode.notes:
        if n not in notes and not n.startswith("disaggregated:"):
            notes.append(n)
    return notes
