"""Option values coerced without pydantic, for a fast start (issue 14).

Typer >= 0.29 coerces every parameter through a pydantic ``TypeAdapter``, and importing pydantic
(with its plugin lookup through ``importlib.metadata``) costs more than a whole costing. The values
our options take -- a string, a flag, an integer, a plain decimal, a path, lists of those -- are coerced
here to what typer's adapter returns; anything else (a malformed number, an exponent without a
mantissa, ...) goes to typer's own adapter, so values and error messages stay typer's.
:func:`install` does nothing on a typer without that adapter layer.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, get_args, get_origin

# What both int() / float() and pydantic read alike: no sign but '-', no spaces, underscores or
# leading zeros, at most 18 digits (well inside both parsers' limits).
_INT = re.compile(r"0|-?[1-9][0-9]{0,17}")
_FLOAT = re.compile(r"-?(?:0|[1-9][0-9]{0,17})(?:\.[0-9]{1,17})?(?:[eE]-?[1-9][0-9]?)?")
MISS = object()  # no fast value: typer's adapter decides


def fast_value(annotation: Any, value: Any) -> Any:
    """``value`` coerced to ``annotation`` (str, bool, int, float, Path or a list of one of them) as
    typer's pydantic adapter would, or :data:`MISS` where only that adapter can say."""
    if get_origin(annotation) is list:
        if not isinstance(value, (list, tuple)):
            return MISS
        (item,) = get_args(annotation)
        out = [fast_value(item, v) for v in value]
        return MISS if any(v is MISS for v in out) else out
    kind = type(value)
    if annotation is str or annotation is bool:
        return value if kind is annotation else MISS
    if annotation is int:
        if kind is int:
            return value
        return int(value) if kind is str and _INT.fullmatch(value) else MISS
    if annotation is float:
        if kind is float:
            return value
        return float(value) if kind is str and _FLOAT.fullmatch(value) else MISS
    if annotation is Path:
        return Path(value) if kind is str and value else MISS
    return MISS


def fast_kind(annotation: Any, info: Any) -> bool:
    """Whether a parameter (its annotation and typer ``ParameterInfo``) takes the fast coercion:
    a plain type, no parser, bounds or choices of its own."""
    if get_origin(annotation) is list:
        args = get_args(annotation)
        annotation = args[0] if len(args) == 1 else None
    plain = annotation in (str, bool, int, float, Path)
    own = (info.parser, info.min, info.max, info.clamp, getattr(info, "path_type", None))
    return plain and not any(own)


def install() -> None:
    """Route typer's parameter coercion through :func:`fast_value` first (typer >= 0.29)."""
    try:
        from typer import core
        from typer._coercion import RuntimeParam, build_runtime_param
        from typer._param_types import coerce_cli_path
    except ImportError:  # an older typer: it coerces without pydantic
        return
    if getattr(core, "build_runtime_param", None) is not build_runtime_param:
        return

    class FastParam(RuntimeParam):  # type: ignore[misc]
        """Coercion by :func:`fast_value`, else by typer's adapter for ``descriptor`` (a plain
        subclass: making it a dataclass too would cost a start a millisecond)."""

        def __init__(self, descriptor: Any) -> None:
            super().__init__(descriptor.parameter_info, descriptor.annotation)
            object.__setattr__(self, "descriptor", descriptor)

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            v = fast_value(self.annotation, value)
            if v is MISS:
                return build_runtime_param(self.descriptor)._coerce_value(value, param=param, ctx=ctx)
            if (
                self.annotation is Path
                or get_origin(self.annotation) is list
                and get_args(self.annotation)[0] is Path
            ):
                info = self.parameter_info
                if any("\x00" in str(p) for p in (v if isinstance(v, list) else [v])):
                    from llmcost.errors import UserError

                    name = (getattr(param, "opts", None) or [param.name])[0]
                    raise UserError(f"{name}: a path cannot hold a NUL byte")
                if isinstance(v, list):
                    return [coerce_cli_path(p, info, path_type=Path, param=param, ctx=ctx) for p in v]
                return coerce_cli_path(v, info, path_type=Path, param=param, ctx=ctx)
            return v

    def runtime_param(descriptor: Any) -> Any:
        try:
            fast = descriptor.file_annotation is None and fast_kind(
                descriptor.annotation, descriptor.parameter_info
            )
            return FastParam(descriptor) if fast else build_runtime_param(descriptor)
        except Exception:  # noqa: BLE001 (a typer whose internals moved: its own coercion, as without us)
            return build_runtime_param(descriptor)

    core.build_runtime_param = runtime_param
