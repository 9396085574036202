"""Find, load and resolve catalog entries: shipped hardware/ and models/, plus user directories.

Search order (later wins for the same id): the shipped catalog, then ``LLMCOST_CATALOG``
directories (``:``-separated), then ``--catalog`` directories. A directory may hold
``hardware/`` and ``models/`` subdirectories, or entry files directly; a loose file with a
``compute`` or ``base`` key is hardware, anything else a model. Files are ``.yaml``,
``.yml`` or ``.json`` (a Hugging Face ``config.json`` is a model entry).

Files are read lazily: an id whose file is named after it is found without parsing the rest.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from llmcost.errors import CatalogError, UnknownIdError, UserError
from llmcost.files import read_file
from llmcost.hardware import Hardware, deep_merge, hardware_from_dict

ENV_VAR = "LLMCOST_CATALOG"
_SUFFIXES = (".yaml", ".yml", ".json")
__all__ = ["read_file"]  # the one file reader (llmcost.files), imported from here by older code


def shipped_root() -> Path:
    """Directory holding the shipped ``hardware/``, ``models/`` and ``validation/``.

    In a wheel they live in ``llmcost/_data``; in a source checkout (or an editable
    install) they are the repository's top-level directories.
    """
    here = Path(__file__).resolve().parent
    packaged = here / "_data"
    if (packaged / "hardware").is_dir():
        return packaged
    return here.parent


def user_dirs(extra: Iterable[str | Path] = ()) -> list[Path]:
    """User catalog directories: ``LLMCOST_CATALOG`` then ``extra`` (``--catalog``), checked to exist."""
    dirs: list[Path] = []
    env = os.environ.get(ENV_VAR, "")
    sources = [(p, ENV_VAR) for p in env.split(os.pathsep) if p.strip()]
    sources += [(str(p), "--catalog") for p in extra]
    for p, origin in sources:
        path = Path(p).expanduser()
        if not path.is_dir():
            raise UserError(
                f"{origin}: '{p}' is not a directory; give a folder holding hardware/ or models/ files"
            )
        dirs.append(path)
    return dirs


def _entry_files(root: Path) -> Iterable[Path]:
    if root.is_dir():
        for p in sorted(root.iterdir()):
            if p.is_file() and p.suffix in _SUFFIXES and not p.name.startswith("."):
                yield p


_NAMES = ("model_type", "base", "name", "type", "vendor")


def _check_entry(d: dict[str, Any], path: Path) -> None:
    """The keys every entry shares, of the type the catalog reads them as: string keys, ``aliases``
    a list of names, ``model_type`` / ``base`` / ``name`` / ``type`` / ``vendor`` text."""
    bad = next((k for k in d if not isinstance(k, str)), None)
    if bad is not None:
        raise CatalogError(f"{path}: key {bad!r} is not a name; keys are text such as hidden_size")
    al = d.get("aliases")
    if al is not None and (not isinstance(al, list) or not all(isinstance(a, (str, int)) for a in al)):
        raise CatalogError(
            f"{path}: key 'aliases': expected a list of names such as [h100], got {str(al)[:40]!r}"
        )
    for k in _NAMES:
        if d.get(k) is not None and not isinstance(d[k], str):
            raise CatalogError(
                f"{path}: key '{k}': expected text, got {type(d[k]).__name__} {str(d[k])[:40]!r}"
            )


@dataclass
class _Source:
    """An entry file with its declared id (from the file) and aliases, loaded on demand."""

    path: Path
    kind: str  # "hardware" | "model"
    _data: dict[str, Any] | None = None

    @property
    def data(self) -> dict[str, Any]:
        if self._data is None:
            d = read_file(self.path)
            if not isinstance(d, dict):
                raise CatalogError(f"{self.path}: expected a mapping of keys, got {type(d).__name__}")
            _check_entry(d, self.path)
            self._data = d
        return self._data

    @property
    def id(self) -> str:
        v = self.data.get("id")
        if v is None:
            return self.path.stem if self.path.name != "config.json" else self.path.parent.name
        if not isinstance(v, str) or not v.strip():
            raise CatalogError(f"{self.path}: key 'id': expected a non-empty name, got {v!r}")
        return v


class Catalog:
    """The merged hardware and model catalogs for one set of user directories."""

    def __init__(self, extra_dirs: Sequence[str | Path] = ()) -> None:
        self.roots = [shipped_root(), *user_dirs(extra_dirs)]
        self._files: dict[str, list[_Source]] = {"hardware": [], "model": []}
        for i, root in enumerate(self.roots):
            shipped = i == 0
            for kind, sub in (("hardware", "hardware"), ("model", "models")):
                self._files[kind] += [_Source(p, kind) for p in _entry_files(root / sub)]
            if not shipped:
                for p in _entry_files(root):
                    src = _Source(p, "model")
                    if "compute" in src.data or "base" in src.data:
                        src.kind = "hardware"
                    self._files[src.kind].append(src)
        self._index: dict[str, dict[str, _Source]] = {}

    # -- indexing ---------------------------------------------------------------------
    def _full_index(self, kind: str) -> dict[str, _Source]:
        if kind not in self._index:
            idx: dict[str, _Source] = {}
            aliases: dict[str, _Source] = {}
            for src in self._files[kind]:  # later roots override earlier ones
                idx[src.id] = src
                for a in src.data.get("aliases") or []:
                    aliases[str(a)] = src
            for a, src in aliases.items():
                idx.setdefault(a, src)
            self._index[kind] = idx
        return self._index[kind]

    def _find(self, kind: str, name: str) -> _Source:
        if len(self.roots) == 1:  # shipped only: files are named after their id
            for src in self._files[kind]:
                if src.path.stem == name and src.id == name:
                    return src
        idx = self._full_index(kind)
        if name in idx:
            return idx[name]
        low = {k.lower(): v for k, v in idx.items()}
        if name.lower() in low:
            return low[name.lower()]
        raise UnknownIdError(kind, name, self.ids(kind))

    def resolve(self, kind: str, name: str) -> str:
        """The entry id an id or alias of ``kind`` names (:class:`UnknownIdError` otherwise)."""
        return self._find(kind, name).id

    def ids(self, kind: str) -> list[str]:
        """Entry ids (not aliases) of ``kind``, sorted."""
        return sorted({src.id for src in self._files[kind]})

    # -- hardware ---------------------------------------------------------------------
    def hardware_raw(self, name: str, _seen: tuple[str, ...] = ()) -> tuple[dict[str, Any], str]:
        """The resolved mapping of hardware ``name`` (``base`` merged in) and its file."""
        src = self._find("hardware", name)
        data = dict(src.data)
        data.setdefault("id", src.id)
        base = data.pop("base", None)
        if base is not None:
            if not isinstance(base, str):
                raise CatalogError(f"{src.path}: key 'base': expected a hardware id, got {base!r}")
            if base in _seen or base == data["id"]:
                raise CatalogError(f"{src.path}: key 'base': '{base}' refers back to itself")
            base_data, _ = self.hardware_raw(base, (*_seen, data["id"]))
            base_data.pop("aliases", None)
            data = deep_merge(base_data, data)
            data["based_on"] = base
        return data, str(src.path)

    def hardware_entry(self, name: str) -> tuple[dict[str, Any], str]:
        """Hardware ``name``'s own mapping as its file holds it (``base`` not merged) and its file."""
        src = self._find("hardware", name)
        return dict(src.data), str(src.path)

    def hardware(self, name: str) -> Hardware:
        """The validated :class:`Hardware` for an id or alias."""
        data, where = self.hardware_raw(name)
        return hardware_from_dict(data, where=where)

    def all_hardware(self) -> list[Hardware]:
        return [self.hardware(i) for i in self.ids("hardware")]

    # -- models -----------------------------------------------------------------------
    def model_config(self, name: str) -> tuple[dict[str, Any], str]:
        """The raw model entry (Hugging Face config keys plus llmcost keys) and its file."""
        src = self._find("model", name)
        data = dict(src.data)
        data.setdefault("id", src.id)
        return data, str(src.path)


@lru_cache(maxsize=8)
def _catalog(extra: tuple[str, ...], env: str) -> Catalog:
    return Catalog(extra)


_extra_dirs: tuple[str, ...] = ()


def set_user_dirs(dirs: Sequence[str | Path]) -> None:
    """Set the ``--catalog`` directories for this process (the CLI calls this once)."""
    global _extra_dirs
    _extra_dirs = tuple(str(d) for d in dirs)


def catalog(dirs: Sequence[str | Path] | None = None) -> Catalog:
    """The catalog for ``dirs`` (default: the process's ``--catalog`` directories)."""
    key = tuple(str(d) for d in dirs) if dirs is not None else _extra_dirs
    return _catalog(key, os.environ.get(ENV_VAR, ""))


def get_hardware(name: str, dirs: Sequence[str | Path] | None = None) -> Hardware:
    """Hardware by id or alias; :class:`UnknownIdError` with suggestions otherwise."""
    return catalog(dirs).hardware(name)


def hardware_ids(dirs: Sequence[str | Path] | None = None) -> list[str]:
    return catalog(dirs).ids("hardware")


def get_model_config(name: str, dirs: Sequence[str | Path] | None = None) -> dict[str, Any]:
    """The raw config mapping of a model id (see :mod:`llmcost.model.config` to normalize it)."""
    return catalog(dirs).model_config(name)[0]


def model_ids(dirs: Sequence[str | Path] | None = None) -> list[str]:
    return catalog(dirs).ids("model")
