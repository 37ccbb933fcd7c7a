"""Parameter coercion without pydantic for the values toolcall's options take.

typer 0.29 coerces every parameter, defaults included, through a pydantic ``TypeAdapter``
built on first use: importing pydantic and building the adapters of a command's ~30 parameters
is a large share of a quick command's start-up (`toolcall rules FL001`). Almost every value a
run sees is a default (None, an enum member, a `Path`), a plain string, or a string for an
option's own parser (`--store`), and typer's own pydantic-free helpers (`coerce_cli_choice`,
`coerce_cli_path`) or the parser decide those. So each parameter gets a
:class:`QuickCoercion`, which answers those values the way typer's adapter would and hands
anything else — a bool or a number typed on the command line, a value a check rejects — to
typer's own coercion, which then gives its own result or its own error message.
`tests/cli/test_coerce.py` checks both against typer's for every parameter of the app.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Any, Final, get_args, get_origin

# typer's own (pydantic-free) helpers; typer is pinned to 0.29.x in pyproject.toml
from typer._coercion import build_runtime_param
from typer._param_types import coerce_cli_choice, coerce_cli_path

#: "no quick answer: ask typer".
_ASK_TYPER: Final = object()


class QuickCoercion:
    """A typer parameter's runtime coercion, pydantic only for values it cannot decide."""

    def __init__(self, param: Any) -> None:
        self._descriptor = param.type_descriptor
        self._typer: Any = None  # typer's pydantic-based coercion, built when first needed

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        """The coerced *value*, exactly as typer's coercion returns it."""
        quick = self._quick(value, param, ctx)
        if quick is not _ASK_TYPER:
            return quick
        if self._typer is None:
            self._typer = build_runtime_param(self._descriptor)
        return self._typer.coerce(value, param=param, ctx=ctx)

    def _quick(self, value: Any, param: Any, ctx: Any) -> Any:
        multi = param.multiple or param.nargs == -1
        if value is None:  # typer: missing → () for a multi-value parameter, else None
            return () if multi else None
        annotation = self._descriptor.annotation
        info = self._descriptor.parameter_info
        if info.parser is not None:
            if multi:
                return _ASK_TYPER
            if isinstance(annotation, type) and isinstance(value, annotation):
                return value  # the parser made the value: typer's check is the identity
            if not isinstance(value, str):
                return _ASK_TYPER
            # typer's adapter is the parser behind a pydantic BeforeValidator: its errors pass
            # through as raised, but for the ValueErrors and AssertionErrors pydantic rewords
            try:
                return info.parser(value)
            except (ValueError, AssertionError):
                return _ASK_TYPER
        if self._descriptor.file_annotation is not None:
            return _ASK_TYPER
        if get_origin(annotation) is list:
            if not multi or not isinstance(value, (list, tuple)):
                return _ASK_TYPER
            (item_type,) = get_args(annotation)
            items = [_leaf(item_type, info, v, param, ctx) for v in value]
            return _ASK_TYPER if any(i is _ASK_TYPER for i in items) else items
        if multi:
            return _ASK_TYPER
        return _leaf(annotation, info, value, param, ctx)


def _leaf(annotation: Any, info: Any, value: Any, param: Any, ctx: Any) -> Any:
    """One value of a str, enum, Path or number parameter, or `_ASK_TYPER`."""
    try:
        if annotation is str:
            return value if isinstance(value, str) else _ASK_TYPER
        if annotation is bool:
            return value if isinstance(value, bool) else _ASK_TYPER
        if isinstance(annotation, type) and issubclass(annotation, Enum):
            return coerce_cli_choice(
                value, choices=list(annotation), case_sensitive=info.case_sensitive, ctx=ctx
            )
        if isinstance(annotation, type) and issubclass(annotation, Path):
            if not isinstance(value, (str, Path)) or value == "" or info.path_type is not None:
                return _ASK_TYPER
            path = value if isinstance(value, annotation) else annotation(value)
            return coerce_cli_path(path, info, path_type=annotation, param=param, ctx=ctx)
        if annotation in (int, float) and type(value) is annotation:
            low, high = info.min, info.max
            in_range = (low is None or value >= low) and (high is None or value <= high)
            return value if in_range else _ASK_TYPER
    except Exception:  # a value typer rejects: typer's coercion gives its own message
        return _ASK_TYPER
    return _ASK_TYPER


def install(params: list[Any]) -> None:
    """Give each typer parameter of a command its quick coercion (see the module docstring)."""
    for param in params:
        if getattr(param, "_runtime_param", False) is None:
            # typer builds `_runtime_param` lazily when it is None; a set one is used as is
            param._runtime_param = QuickCoercion(param)
