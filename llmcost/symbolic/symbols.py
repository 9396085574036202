"""Named sympy symbols with a unit and a docstring each: the vocabulary of every cost expression.

A :class:`SymbolRegistry` maps a name to a :class:`SymbolInfo` (unit, description, LaTeX
form) and a sympy ``Symbol`` (positive real, so expressions simplify as the physics allows).
:data:`REGISTRY` is the project-wide registry; training / inference / test-time-scaling
authors add their own names with :func:`define` (a second definition of a name must agree
with the first)::

    from llmcost.symbolic.symbols import define, sym
    define("n_micro", "1", "micro-batches per step (m)", latex="m")
    m = sym("n_micro")

Per-level families (one symbol per fabric level of a collective: ``W_0, W_1, ...``) are
declared once with :func:`define_family` and materialised with :func:`level`.

Notation follows the Megatron-LM papers (Narayanan et al. 2021, Korthikanti et al. 2022:
model dims ``L, h, a = n_q, ...``; plan knobs ``t, p, d, ...``), the roofline (Williams et al.
2009: hardware ``F, W_hbm``, achieved fractions ``η``) and the α-β-γ collective model
(Thakur, Rabenseifner, Gropp 2005 §2).
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp


@dataclass(frozen=True)
class SymbolInfo:
    """What a symbol means: its name in code, unit (SI), description and LaTeX form."""

    name: str
    unit: str
    doc: str
    latex: str
    integer: bool = False


class SymbolRegistry:
    """Name -> (sympy Symbol, SymbolInfo). Names are valid Python identifiers (they become
    argument names of generated numpy functions)."""

    def __init__(self) -> None:
        self._info: dict[str, SymbolInfo] = {}
        self._sym: dict[str, sp.Symbol] = {}
        self._families: dict[str, SymbolInfo] = {}

    def define(
        self, name: str, unit: str, doc: str, *, latex: str | None = None, integer: bool = False
    ) -> sp.Symbol:
        """Register ``name`` (idempotent when the definition is the same) and return its Symbol."""
        if not name.isidentifier():
            raise ValueError(f"symbol name {name!r} must be a Python identifier")
        info = SymbolInfo(name, unit, doc, latex or name, integer)
        old = self._info.get(name)
        if old is not None:
            if old != info:
                raise ValueError(f"symbol {name!r} already defined differently: {old}")
            return self._sym[name]
        s = sp.Symbol(name, positive=True, real=True)
        self._info[name] = info
        self._sym[name] = s
        return s

    def define_family(self, base: str, unit: str, doc: str, *, latex: str | None = None) -> None:
        """Declare a per-level family: ``level(base, k)`` gives ``base_k`` with ``{k}`` filled in ``doc``."""
        self._families[base] = SymbolInfo(base, unit, doc, latex or base)

    def level(self, base: str, k: int) -> sp.Symbol:
        """Symbol ``base_k`` of a family declared with :meth:`define_family`."""
        fam = self._families[base]
        return self.define(f"{base}_{k}", fam.unit, fam.doc.format(k=k), latex=f"{fam.latex}_{{{k}}}")

    def sym(self, name: str) -> sp.Symbol:
        """The Symbol registered as ``name`` (KeyError naming the known ones otherwise)."""
        try:
            return self._sym[name]
        except KeyError:
            raise KeyError(f"unknown symbol {name!r}; known: {', '.join(sorted(self._sym))}") from None

    def info(self, name: str) -> SymbolInfo:
        """The :class:`SymbolInfo` of ``name``."""
        return self._info[name]

    def latex_names(self) -> dict[sp.Symbol, str]:
        """``symbol_names`` mapping for ``sympy.latex``."""
        return {self._sym[n]: i.latex for n, i in self._info.items()}

    def __contains__(self, name: object) -> bool:
        return name in self._info

    def names(self) -> list[str]:
        """All registered names, sorted."""
        return sorted(self._info)


REGISTRY = SymbolRegistry()
define = REGISTRY.define
define_family = REGISTRY.define_family
level = REGISTRY.level
sym = REGISTRY.sym
info = REGISTRY.info

# --- model dimensions (Megatron-LM notation: Narayanan 2021, Korthikanti 2022) -------------------
define("n_layers", "1", "number of transformer layers (L)", latex="L", integer=True)
define("d_model", "1", "hidden size (h = d_model)", latex="h", integer=True)
define("n_q", "1", "query heads", latex="n_q", integer=True)
define("n_kv", "1", "key/value heads (MHA n_kv = n_q, MQA 1, GQA in between)", latex="n_{kv}", integer=True)
define("d_head", "1", "head dimension", latex="d_h", integer=True)
define("d_ff", "1", "dense FFN intermediate size (f)", latex="f", integer=True)
define("vocab", "1", "(padded) vocabulary size (V)", latex="V", integer=True)
define("seq", "token", "sequence length (s)", latex="s", integer=True)
define("micro_batch", "sequence", "micro-batch size in sequences (b)", latex="b", integer=True)
define("n_experts", "1", "routed experts (E)", latex="E", integer=True)
define("top_k", "1", "experts per token (k)", latex="k", integer=True)

# --- plan knobs ----------------------------------------------------------------------------------
define("tp", "1", "tensor-parallel degree (t)", latex="t", integer=True)
define("pp", "1", "pipeline-parallel degree (p)", latex="p", integer=True)
define("dp", "1", "data-parallel degree (d)", latex="d", integer=True)
define("cp", "1", "context-parallel degree (c)", latex="c", integer=True)
define("ep", "1", "expert-parallel degree (e)", latex="e", integer=True)

# --- hardware figures ----------------------------------------------------------------------------
define("peak_flops", "FLOP/s", "dense peak compute at the math precision used (F)", latex="F")
define("mem_bw", "B/s", "peak HBM bandwidth (W_hbm)", latex="W_{hbm}")
define("eta_c", "1", "achieved fraction of peak compute (η_c)", latex=r"\eta_c")
define("eta_m", "1", "achieved fraction of peak memory bandwidth (η_m)", latex=r"\eta_m")
define("t_launch", "s", "per-kernel launch / latency floor", latex=r"t_{launch}")
define("gemm_units", "1", "streaming multiprocessors / compute units running GEMM tiles (U)", latex="U")
define("tile_m", "1", "rows of a GEMM output tile (T_m)", latex="T_m")
define("tile_n", "1", "columns of a GEMM output tile (T_n)", latex="T_n")
define("k0", "1", "per-tile fixed cost of a GEMM in reduction elements (k_0)", latex="k_0")

define("flops_per_exp", "1", "dense 16-bit tensor FLOPs per exp2 result, per SM and clock (R)", latex="R")
define("d_qk", "1", "query / key head dimension of an attention (d_qk)", latex="d_{qk}")
define("d_v_head", "1", "value head dimension of an attention (d_v)", latex="d_v")
define("attn_s0", "token", "fused attention's fixed cost per query block, in keys (s_0)", latex="s_0")

# --- GEMM shape ----------------------------------------------------------------------------------
define("gemm_m", "1", "rows of one GEMM (m)", latex="m")
define("gemm_n", "1", "columns of one GEMM (n)", latex="n")
define("gemm_k", "1", "reduction length of one GEMM (k)", latex="k")
define("gemm_g", "1", "GEMMs launched together (batch, grouped experts; g)", latex="g")

# --- roofline operands ---------------------------------------------------------------------------
define("flops", "FLOP", "floating-point operations of one operator", latex=r"\mathrm{FLOPs}")
define("hbm_bytes", "B", "bytes moved to/from HBM by one operator", latex=r"\mathrm{bytes}")
define(
    "net_bytes",
    "B",
    "bytes one device sends over the network for one operator",
    latex=r"\mathrm{bytes}_{net}",
)
define("net_bw", "B/s", "network bandwidth per device for the operator's traffic", latex=r"W_{net}")

# --- collectives (α-β-γ model of Thakur, Rabenseifner, Gropp 2005 §2) -----------------------------
define("S", "B", "collective size: the full buffer per rank, nccl-tests convention", latex="S")
define("t_0", "s", "fixed software latency of one collective (NCCL baseLat)", latex="t_0")
define(
    "kappa",
    "1",
    "algorithm bandwidth efficiency relative to ring (NCCL tuning.cc constants)",
    latex=r"\kappa",
)
define_family("d", "1", "ranks of the group at fabric level {k}", latex="d")
define_family("W", "B/s", "bandwidth per device, one direction, at level {k} (all links)", latex="W")
define_family("w", "B/s", "bandwidth of one link, one direction, at level {k}", latex="w")
define_family(
    "eta", "1", "achieved fraction of line rate at level {k} (ring busbw / line rate)", latex=r"\eta"
)
define_family("alpha", "s", "per-step latency at level {k}", latex=r"\alpha")
define_family("q", "B", "bytes in flight per peer per step at level {k} (p2p chunk pipeline)", latex="q")
define_family("m", "1", "torus dimensions the group spans at level {k}", latex="m")
