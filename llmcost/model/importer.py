"""Turn a local Hugging Face ``config.json`` into a catalog model entry.

``llmcost model import PATH [--name ID]`` calls :func:`import_config`; the caller writes the
returned mapping as YAML into a user catalog directory.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from llmcost.errors import CatalogError
from llmcost.files import read_file
from llmcost.model.config import from_config

_ID_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
_RESERVED = ("id", "name", "family", "sources", "official_params", "notes")


def _slug(text: str) -> str:
    """Lower-case id from a repo or folder name: 'meta-llama/Llama-3.1-8B' -> 'llama-3.1-8b'."""
    last = text.rstrip("/").split("/")[-1]
    return re.sub(r"[^a-z0-9._-]+", "-", last.lower()).strip("-._")


def _default_id(path: Path, cfg: dict[str, Any]) -> str:
    """Id from ``_name_or_path``, else the folder holding ``config.json``, else the file stem."""
    candidates = [cfg.get("_name_or_path")]
    candidates.append(path.resolve().parent.name if path.name == "config.json" else path.stem)
    for c in candidates:
        if isinstance(c, str) and _slug(c):
            return _slug(c)
    return "imported-model"


def _read_json(path: Path) -> dict[str, Any]:
    cfg = read_file(path, as_json=True)
    if not isinstance(cfg, dict):
        raise CatalogError(f"{path}: expected a JSON object of config keys, got {type(cfg).__name__}")
    return cfg


def import_config(path: str, name: str | None = None) -> dict[str, Any]:
    """Read a Hugging Face ``config.json`` at ``path`` and return a catalog entry.

    The entry is ``id`` (``name`` if given), ``name``, ``sources`` (naming the file) and
    then every key of the config verbatim. The config is validated with
    :func:`llmcost.model.config.from_config`, so an unsupported ``model_type`` or a missing
    key raises :class:`CatalogError` naming the file and the field.
    """
    p = Path(path)
    cfg = _read_json(p)
    entry_id = name if name is not None else _default_id(p, cfg)
    if not _ID_RE.match(entry_id):
        raise CatalogError(
            f"--name {entry_id!r} is not a valid model id; expected lower-case letters, digits, '.', '-', '_'"
        )
    clash = [k for k in _RESERVED if k in cfg]
    if clash:
        raise CatalogError(f"{p}: key '{clash[0]}' is reserved for llmcost in a catalog entry; remove it")
    from_config(cfg, where=str(p))
    entry: dict[str, Any] = {
        "id": entry_id,
        "name": cfg.get("_name_or_path") or entry_id,
        "sources": [f"imported from {p.resolve()}"],
    }
    entry.update(cfg)
    return entry
