"""The quick coercion (`cli/_coerce.py`) gives what typer's own coercion gives, for every
parameter of the app and every kind of value: the same result, or the same error."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer._click import Context
from typer._coercion import build_runtime_param

from toolcall_cli.cli._coerce import QuickCoercion
from toolcall_cli.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
GROUP = typer.main.get_command(app)


def _params() -> list[tuple[str, Any, Any]]:
    out = [("toolcall", GROUP, p) for p in GROUP.get_params(Context(GROUP))]
    for name, command in GROUP.commands.items():  # type: ignore[attr-defined]
        ctx = Context(command, parent=Context(GROUP))
        out += [(name, command, p) for p in command.get_params(ctx)]
    return out


PARAMS = _params()


def _values(param: Any) -> list[Any]:
    """Values a run can hand this parameter: defaults, typed text, good and bad."""
    ann = param.type_descriptor.annotation
    leaf = getattr(ann, "__args__", (ann,))[0]
    values: list[Any] = [None, param.default, "", "x", " x ", "-", "1", "0", "2.5", "true"]
    if isinstance(leaf, type) and issubclass(leaf, Enum):
        values += [m for m in leaf] + [str(m.value) for m in leaf]
        values += [str(m.value).upper() for m in leaf]
    files = [
        ROOT / "fixtures/schemas/openai_tools.json",
        ROOT / "fixtures/incidents/flooding-model-loop",
        ROOT / "no/such/file",
    ]
    values += files + [str(f) for f in files] + [1, 0, 7, 2.5, True]
    # `--store`'s parser refuses URLs (any scheme, a bare one) and takes other text as a path
    values += ["memory://toolcall/x", "file:///tmp/x", "ftp://host/x", "s3://", "::"]
    if param.nargs == -1 or param.multiple:
        values = [None, (), *((v,) for v in values if v is not None)]
        values.append(tuple(str(f) for f in files[:2]))
    return values


def _outcome(coercion: Any, value: Any, param: Any, ctx: Context) -> tuple[str, Any]:
    try:
        return ("value", coercion.coerce(value, param=param, ctx=ctx))
    except Exception as e:  # the error itself is the result to compare
        return ("error", (type(e).__name__, str(e)))


@pytest.mark.parametrize(
    ("command", "param"),
    [(name, p) for name, _, p in PARAMS],
    ids=[f"{name}-{p.name}" for name, _, p in PARAMS],
)
def test_quick_coercion_equals_typers(command: str, param: Any) -> None:
    owner = next(c for n, c, p in PARAMS if p is param)
    ctx = Context(owner)
    quick, full = QuickCoercion(param), build_runtime_param(param.type_descriptor)
    for value in _values(param):
        assert _outcome(quick, value, param, ctx) == _outcome(full, value, param, ctx), value


def test_every_parameter_kind_is_probed() -> None:
    # the app's parameters are str, bool, int, float, Path, enums and lists of str/Path
    kinds = {repr(p.type_descriptor.annotation) for _, _, p in PARAMS}
    assert "<class 'pathlib.Path'>" in kinds and "list[pathlib.Path]" in kinds
    assert {"<class 'str'>", "<class 'bool'>", "<class 'int'>", "list[str]"} <= kinds
