"""Reading the user's files, once for every kind: catalog entries, plans, validation cases,
accuracy tables and Hugging Face configs all come through :func:`read_text` and :func:`read_file`.

Whatever the bytes, the result is the parsed document or one :class:`~llmcost.errors.CatalogError`
line naming the file and what is wrong: not UTF-8, larger than :data:`MAX_BYTES`, a syntax error,
nesting deeper than :data:`MAX_DEPTH`, more than :data:`MAX_NODES` values once YAML aliases are
expanded (an alias bomb loads cheaply but expands without bound on output), or an integer past
64 bits (thousands of digits included). Every entry, plan and case file llmcost ships is far
inside these limits (at most ~4,000 values, 5 levels deep).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from llmcost.errors import CatalogError

MAX_BYTES = 64 * 2**20
"""Largest input file read (64 MiB)."""
MAX_DEPTH = 64
"""Deepest nesting of mappings and lists in a document."""
MAX_NODES = 250_000
"""Most values a document may hold, each YAML alias counted as often as it is referenced."""
INT_LIMIT = 2**63
"""Integers in a document lie within +-2^63 (int64)."""
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_text(path: Path) -> str:
    """The file's text: UTF-8 (a BOM allowed), at most :data:`MAX_BYTES`; one line otherwise."""
    try:
        with Path(path).open("rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except OSError as e:
        raise CatalogError(f"{path}: cannot read ({e.strerror or e})") from None
    if len(raw) > MAX_BYTES:
        raise CatalogError(f"{path}: larger than {MAX_BYTES // 2**20} MiB; an input file is far smaller")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise CatalogError(
            f"{path}: not UTF-8 text (byte 0x{raw[e.start]:02x} at offset {e.start}); save it as UTF-8"
        ) from None


def read_file(path: Path, as_json: bool | None = None) -> Any:
    """Parse a YAML or JSON file (JSON by its ``.json`` suffix unless ``as_json`` says) within the
    module's limits; a syntax error becomes one line naming the file and position."""
    path = Path(path)
    text = read_text(path)
    is_json = path.suffix == ".json" if as_json is None else as_json
    try:
        data = json.loads(text) if is_json else yaml.load(text, Loader=_Loader)
    except json.JSONDecodeError as e:
        raise CatalogError(f"{path}: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        pos = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or "malformed YAML"
        raise CatalogError(f"{path}: invalid YAML{pos}: {problem}") from None
    except RecursionError:
        raise CatalogError(f"{path}: nested deeper than {MAX_DEPTH} levels; flatten it") from None
    except ValueError as e:  # Python's int-str digit limit, an impossible YAML date
        if "integer string conversion" in str(e):
            raise CatalogError(
                f"{path}: an integer of thousands of digits is past the 64-bit range (+-2^63); "
                "no count llmcost prices is that large"
            ) from None
        raise CatalogError(f"{path}: invalid value ({e})") from None
    check_document(data, str(path))
    return data


def check_document(data: Any, where: str) -> None:
    """Walk ``data`` without recursion: depth, expanded size and integer range within the limits."""
    stack: list[tuple[Any, int, str]] = [(data, 0, "")]
    nodes = 0
    while stack:
        v, depth, key = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            raise CatalogError(
                f"{where}: more than {MAX_NODES:,} values once YAML aliases are expanded; "
                "an input file holds far fewer (an alias bomb?)"
            )
        if depth > MAX_DEPTH:
            raise CatalogError(f"{where}: nested deeper than {MAX_DEPTH} levels{_at(key)}; flatten it")
        if isinstance(v, dict):
            stack += [(x, depth + 1, f"{key}.{k}" if key else str(k)) for k, x in v.items()]
            stack += [(k, depth + 1, key) for k in v if not isinstance(k, str)]
        elif isinstance(v, list):
            stack += [(x, depth + 1, key) for x in v]
        elif isinstance(v, int) and not isinstance(v, bool) and not -INT_LIMIT <= v < INT_LIMIT:
            digits = len(str(abs(v)))
            raise CatalogError(
                f"{where}: an integer of {digits} digits{_at(key)} is past the 64-bit range (+-2^63); "
                "no count llmcost prices is that large"
            )


def _at(key: str) -> str:
    return f" at key '{key}'" if key else ""
