"""A distribution of sequence lengths for a training step: plan key ``seq_len_dist`` (inline
``[[length, weight], ...]``) or ``--seq-len-dist FILE``, its checks, and the moments the step reads
(runtime: plain numpy, the formulas through :mod:`llmcost.training._generated`).

The weights say how often a sequence (document) of each length occurs (counts or shares; they are
normalized). How a step carries them is the plan's ``packing``:

* ``document`` (the default with a distribution): sequences concatenated into packs of ``seq_len``
  tokens (Megatron / torchtitan pretraining), attention masked per sequence by a variable-length
  kernel (FlashAttention ``flash_attn_varlen_func``, Transformer Engine THD): a pack keeps
  ``seqdist__doc_share`` of the causal pairs of a full pack. A sequence longer than ``seq_len`` is
  cut into ``seq_len`` pieces; a pack holds whole sequences otherwise (bin packing, Krell et al.
  2021), and packs are taken as full (their packing loss is not costed).
* ``causal``: packed, one causal mask over the whole pack (no document mask): today's uniform step.
* ``none``: no packing; every micro-batch is padded to its longest sequence (lengths past
  ``seq_len`` truncated), ``seqdist__padding_overhead`` tokens computed per real token.

With ``dynamic_cp`` (Megatron-Core dynamic context parallelism; ByteScale's data-aware sharding,
Ge et al. 2025, arXiv 2502.21231 §4), each sequence runs on the fewest context-parallel ranks whose
per-rank capacity ``seq_len/cp`` holds it (a power of two, at most ``cp``); the others run without
the ring. Activation memory is sized at ``seq_len`` tokens per micro-batch in every mode (the
longest pack or padded micro-batch; with dynamic CP the same tokens per rank).
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from llmcost import checks
from llmcost.errors import PlanError, UserError
from llmcost.training import _generated as G

PACKING = ("document", "causal", "none")
"""How a step carries a length distribution (module docstring)."""
MAX_BUCKETS = 64
"""Most lengths a distribution lists: each distinct length a padded micro-batch can take is costed
as its own micro-batch shape (a histogram of a dataset in a few dozen buckets is the intended use)."""


@dataclass(frozen=True)
class SeqDist:
    """Sequence lengths (ascending, distinct) and their shares of the sequences (summing to 1);
    ``given`` the weights as written (echoed in a costed plan)."""

    lengths: tuple[int, ...]
    weights: tuple[float, ...]
    given: tuple[float, ...]

    def pairs(self) -> list[list[Any]]:
        """The distribution as plan-key pairs ``[[length, weight], ...]``, weights as given."""
        return [[int(n), w] for n, w in zip(self.lengths, self.given, strict=True)]

    @property
    def mean(self) -> float:
        """E[l], tokens per sequence."""
        return float(np.dot(self.lengths, self.weights))


def parse(value: Any, where: str) -> SeqDist:
    """A distribution from a plan key or a file's document: a list of ``[length, weight]`` pairs
    (or a :class:`SeqDist`); one line naming ``where`` and what would be right otherwise."""
    if isinstance(value, SeqDist):
        return value
    if not isinstance(value, (list, tuple)) or not value:
        raise UserError(
            f"{where}: expected a list of [length, weight] pairs (e.g. [[512, 0.7], [8192, 0.3]]), "
            f"got {_short(value)}"
        )
    if len(value) > MAX_BUCKETS:
        raise UserError(
            f"{where}: {len(value)} lengths listed, at most {MAX_BUCKETS}; merge them into buckets"
        )
    pairs: dict[int, float] = {}
    for i, item in enumerate(value, 1):
        if not isinstance(item, (list, tuple)) or len(item) != 2:
            raise UserError(f"{where}: entry {i}: expected [length, weight], got {_short(item)}")
        n = checks.finite_int(item[0], f"{where}: entry {i} length")
        w = item[1]
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w) or w < 0:
            raise UserError(f"{where}: entry {i}: weight must be a finite number >= 0, got {_short(w)}")
        if n in pairs:
            raise UserError(f"{where}: length {n} is listed twice; give each length once")
        pairs[n] = float(w)
    total = sum(pairs.values())
    if not total > 0:
        raise UserError(f"{where}: every weight is 0; give at least one length a weight > 0")
    lengths = tuple(sorted(pairs))
    given = tuple(pairs[n] for n in lengths)
    return SeqDist(lengths, tuple(w / total for w in given), given)


def read(path: str | Path) -> SeqDist:
    """``--seq-len-dist FILE``: YAML / JSON (a list of ``[length, weight]`` pairs) or CSV (``.csv``,
    ``.txt``: one ``length,weight`` line per length, an optional header, ``#`` comments)."""
    from llmcost.files import read_file, read_text

    p = Path(path)
    where = f"--seq-len-dist {p}"
    if not p.is_file():
        raise UserError(f"{where}: no such file (give a YAML/JSON list of [length, weight] pairs or a CSV)")
    if p.suffix.lower() in (".csv", ".txt"):
        return parse(_csv_rows(read_text(p), where), where)
    return parse(read_file(p), where)


def _csv_rows(text: str, where: str) -> list[list[float]]:
    """``length,weight`` lines as number pairs (a first line that is not numbers is a header)."""
    rows: list[list[float]] = []
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    for i, row in enumerate(csv.reader(io.StringIO("\n".join(lines))), 1):
        try:
            rows.append([float(x) for x in row])
        except ValueError:
            if i == 1 and not rows:
                continue  # a header
            raise UserError(f"{where}: line {i}: expected 'length,weight', got {','.join(row)!r}") from None
    return rows


def _short(v: Any) -> str:
    r = repr(v)
    return r if len(r) <= 40 else r[:37] + "..."


# --- moments -------------------------------------------------------------------------------------------
def causal_pairs(s: Any, window: float) -> Any:
    """Causal (query, key) pairs of a sequence of ``s`` tokens with window ``window``: ``s·w − w²/2``,
    ``w = min(s, W)`` (the graph's count, :func:`llmcost.graph.ops._pairs`)."""
    w = np.minimum(s, window)
    return s * w - w * w / 2.0


def _pieces(d: SeqDist, seq: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per length: full ``seq`` pieces, remainder, tokens (a sequence past ``seq`` is cut into pieces)."""
    n = np.asarray(d.lengths, dtype=float)
    q = np.floor(n / seq)
    return q, n - q * seq, n


def kept_pairs(d: SeqDist, seq: int, window: float) -> np.ndarray:
    """Per length, the causal pairs its pieces keep under a document mask."""
    q, r, _ = _pieces(d, seq)
    return q * causal_pairs(float(seq), window) + causal_pairs(r, window)


def doc_share(d: SeqDist, seq: int, window: float) -> float:
    """``seqdist__doc_share``: the share of a pack's causal pairs a document mask keeps."""
    w = np.asarray(d.weights)
    return share_of(float(np.dot(w, kept_pairs(d, seq, window))), d.mean, seq, window)


def share_of(pairs_doc: float, len_mean: float, seq: int, window: float) -> float:
    """``seqdist__doc_share`` of packs of ``seq`` tokens holding sequences of mean length ``len_mean``
    that keep ``pairs_doc`` pairs each."""
    pack = causal_pairs(float(seq), window)
    return float(
        _formula("seqdist__doc_share", pairs_doc=pairs_doc, len_mean=len_mean, pairs_pack=pack, seq=seq)
    )


def _formula(name: str, **values: float) -> float:
    """The generated function ``name`` at ``values`` (its arguments by name)."""
    fn, names, _ = G.FUNCTIONS[name]
    return float(fn(*(values[k] for k in names)))


def pack_cv(d: SeqDist, seq: int) -> float:
    """``seqdist__pack_cv``: coefficient of variation of a pack's kept pairs (full attention)."""
    w = np.asarray(d.weights)
    reward = kept_pairs(d, seq, math.inf)
    tokens = np.asarray(d.lengths, dtype=float)
    mean_r = float(np.dot(w, reward))
    var = float(np.dot(w, (reward - mean_r / d.mean * tokens) ** 2))
    return _formula("seqdist__pack_cv", len_mean=d.mean, pairs_doc=mean_r, seq=seq, var_pairs=var)


def truncated(d: SeqDist, seq: int) -> tuple[np.ndarray, np.ndarray]:
    """(distinct lengths after truncation at ``seq``, their shares)."""
    x = np.minimum(np.asarray(d.lengths), seq)
    support = np.unique(x)
    return support, np.array([float(np.sum(np.asarray(d.weights)[x == v])) for v in support])


def padded(d: SeqDist, seq: int, batch: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lengths, share of micro-batches padded to each, share of sequences of each) for micro-batches
    of ``batch`` sequences padded to their longest, truncated at ``seq``: ``P(L ≤ x) = F(x)^b``."""
    support, p = truncated(d, seq)
    cdf = np.minimum(np.cumsum(p), 1.0)
    pad = np.diff(np.concatenate([[0.0], cdf**batch]))
    return support, pad, p


def padding_overhead(d: SeqDist, seq: int, batch: int) -> float:
    """``seqdist__padding_overhead``: tokens computed per real token when padding."""
    support, pad, p = padded(d, seq, batch)
    return _formula(
        "seqdist__padding_overhead", len_mean=float(np.dot(support, p)), len_pad=float(np.dot(support, pad))
    )


def cp_degree(length: int, capacity: int, cp: int) -> int:
    """Context-parallel ranks a sequence of ``length`` tokens runs on under dynamic CP: the smallest
    power of two whose ranks hold it at ``capacity`` tokens each, at most ``cp`` (Megatron-Core
    ``dcp_gpus_needed``, ``megatron/core/datasets/data_schedule_utils.py``, dev branch 2026)."""
    need = -(-int(length) // max(int(capacity), 1))
    return min(1 << max(need - 1, 0).bit_length(), int(cp))


@lru_cache(maxsize=4096)
def normal_max(n: int) -> float:
    """Expected maximum of ``n`` independent standard normal draws, ``∫ x·n·φ(x)·Φ(x)^(n−1) dx``
    (Harter 1961, "Expected values of normal order statistics", Biometrika 48), by quadrature; 0 for
    ``n`` = 1."""
    if n <= 1:
        return 0.0
    x = np.linspace(-12.0, 12.0, 9601)
    phi = np.exp(-x * x / 2.0) / math.sqrt(2.0 * math.pi)
    cdf = 0.5 * (1.0 + np.array([math.erf(v / math.sqrt(2.0)) for v in x]))
    f = x * n * phi * cdf ** (n - 1)
    return float(np.sum((f[1:] + f[:-1]) / 2.0) * (x[1] - x[0]))


# --- a step's micro-batch shapes -----------------------------------------------------------------------
Shares = tuple[tuple[float, float], ...]
"""Attention share kept per sliding window (``math.inf``: full attention): ``((window, share), ...)``."""


@dataclass(frozen=True)
class Variant:
    """One micro-batch shape a step is costed at: ``time``, its share of the micro-batch slots (the
    step's per-micro-batch time is the ``time``-weighted mean); ``flops``, its share of the useful
    (model) FLOPs; the tokens per sequence ``seq``; the context-parallel degree ``cp`` (None: the
    plan's); ``shares``, the causal-pair share a document mask keeps per window (None: no mask)."""

    time: float
    flops: float
    seq: int
    cp: int | None = None
    shares: Shares | None = None

    @property
    def key(self) -> tuple[Any, ...]:
        """What its operator costs depend on beyond a plan's operator configuration."""
        return (self.seq, self.shares)


@dataclass(frozen=True)
class Workload:
    """A step's sequence lengths (:class:`SeqDist`), how they are carried (``packing``, :data:`PACKING`)
    and whether context parallelism is sized per sequence (``dynamic_cp``)."""

    dist: SeqDist
    packing: str = "document"
    dynamic_cp: bool = False

    def plan_keys(self) -> dict[str, Any]:
        """The workload as train plan keys (a costed plan echoes them)."""
        return {"seq_len_dist": self.dist.pairs(), "packing": self.packing, "dynamic_cp": self.dynamic_cp}

    def tokens_per_sequence(self, seq: int) -> float:
        """Real tokens one of the step's ``global_batch`` sequences carries: a full pack, or without
        packing one sequence truncated at ``seq``."""
        if self.packing != "none":
            return float(seq)
        support, p = truncated(self.dist, seq)
        return float(np.dot(support, p))

    def balanced(self) -> bool:
        """Whether the scheduler balances the work over the data-parallel ranks (dynamic CP's does,
        ByteScale §5 / Megatron-Core ``default_dynamic_cp``), so no rank straggles."""
        return self.dynamic_cp

    @lru_cache(maxsize=256)  # noqa: B019 (a frozen, hashable workload: the cache lives with it)
    def variants(self, seq: int, cp: int, batch: int, windows: tuple[float, ...]) -> tuple[Variant, ...]:
        """The micro-batch shapes of a step at ``seq`` tokens with ``cp`` context-parallel ranks and
        ``batch`` sequences per micro-batch, for a model whose layers have ``windows``."""
        d = self.dist
        if self.packing == "causal":
            return (Variant(1.0, 1.0, seq),)
        if self.packing == "none":
            support, pad, p = padded(d, seq, batch)
            return tuple(Variant(float(a), float(b), int(x)) for x, a, b in zip(support, pad, p, strict=True))
        if self.dynamic_cp:
            return _dynamic(d, seq, cp, windows)
        return (Variant(1.0, 1.0, seq, None, tuple((w, doc_share(d, seq, w)) for w in windows)),)

    def probe(self, seq: int, windows: tuple[float, ...]) -> Variant:
        """A pack with no attention math (share 0): its time against the pack's gives the attention's."""
        return Variant(0.0, 0.0, seq, None, tuple((w, 0.0) for w in windows))

    def pack_cv(self, seq: int, batch: int) -> float:
        """Coefficient of variation of a micro-batch's attention pairs across micro-batches: packs with a
        document mask and no balancing scheduler (``seqdist__pack_cv`` over ``batch`` packs), else 0."""
        if self.packing != "document" or self.balanced():
            return 0.0
        return pack_cv(self.dist, seq) / math.sqrt(batch)


def _dynamic(d: SeqDist, seq: int, cp: int, windows: tuple[float, ...]) -> tuple[Variant, ...]:
    """Dynamic CP's shapes: the sequences (their ``seq`` pieces) grouped by the ranks they run on
    (:func:`cp_degree`), each group packed into ``k·seq/cp`` tokens over ``k`` ranks, weighted by its
    share of the tokens (the scheduler fills every rank with ``seq/cp`` tokens per micro-batch)."""
    cap = seq // cp
    q, r, _ = _pieces(d, seq)
    groups: dict[int, list[tuple[float, float]]] = {}
    for w, full, rest in zip(d.weights, q, r, strict=True):
        for length, freq in ((float(seq), w * full), (rest, w)):
            if length > 0 and freq > 0:
                groups.setdefault(cp_degree(int(length), cap, cp), []).append((length, freq))
    total = sum(n * f for g in groups.values() for n, f in g)
    out = []
    for k in sorted(groups):
        lengths, freq = (np.array(x) for x in zip(*groups[k], strict=True))
        count, tokens = float(freq.sum()), float(np.dot(lengths, freq))
        shares = tuple(
            (w, share_of(float(np.dot(freq, causal_pairs(lengths, w))) / count, tokens / count, k * cap, w))
            for w in windows
        )
        out.append(Variant(tokens / total, tokens / total, k * cap, k, shares))
    return tuple(out)


def windows_of(spec: Any) -> tuple[float, ...]:
    """The distinct sliding windows of a model's decoder layers and full attention (``math.inf``, every
    encoder layer's)."""
    return tuple(sorted({math.inf, *(math.inf if w is None else float(w) for w in spec.layer_windows)}))


def workload(dist: Any, packing: Any, dynamic_cp: Any, where: str = "plan") -> Workload | None:
    """The workload of plan keys ``seq_len_dist`` (pairs, a file path or a :class:`SeqDist`),
    ``packing`` and ``dynamic_cp``, checked; None without a distribution (a uniform step)."""
    if dist is None:
        if packing is not None or dynamic_cp:
            key = "packing" if packing is not None else "dynamic_cp"
            raise PlanError(
                f"{key} needs a sequence-length distribution (seq_len_dist / --seq-len-dist FILE)"
            )
        return None
    d = read(dist) if isinstance(dist, (str, Path)) else parse(dist, f"{where} key 'seq_len_dist'")
    mode = "document" if packing is None else packing
    if mode not in PACKING:
        raise PlanError(f"packing '{mode}': use one of {', '.join(PACKING)}")
    if not isinstance(dynamic_cp, bool):
        raise PlanError(f"dynamic_cp must be true or false, got {dynamic_cp!r}")
    if dynamic_cp and mode != "document":
        raise PlanError("dynamic_cp packs sequences with a document mask: use packing document (the default)")
    return Workload(d, mode, dynamic_cp)
