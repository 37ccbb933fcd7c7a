"""Python call syntax as BFCL's prompt mode answers: `[get_weather(city="Paris"), f(1)]`.

Parsed with :mod:`ast` (never evaluated): each call's dotted name, and its keyword
arguments as a JSON object; positional arguments take the declared parameter names when
the tool is known, else `_0`, `_1`… A value that is not a literal keeps its source text.
"""

from __future__ import annotations

import ast
from typing import Any

from toolcall_cli.sources.messages.rows import safe_dump

#: Longer answers are not parsed (ast on megabytes of model text is slow and never a call).
MAX_CHARS = 100_000


def parse_python_calls(
    text: str, param_order: dict[str, list[str]]
) -> list[tuple[str | None, str | None, dict[str, Any]]] | None:
    """(name, arguments JSON, attrs) per call; None when *text* is not a list of calls."""
    src = text.strip()
    if not src or len(src) > MAX_CHARS or "(" not in src:
        return None
    try:
        tree = ast.parse(src, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    body = tree.body
    nodes = body.elts if isinstance(body, ast.List | ast.Tuple) else [body]
    if not nodes or not all(isinstance(n, ast.Call) for n in nodes):
        return None
    out: list[tuple[str | None, str | None, dict[str, Any]]] = []
    for node in nodes:
        assert isinstance(node, ast.Call)
        name = ast.unparse(node.func)
        args: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        order = param_order.get(name, [])
        for i, a in enumerate(node.args):
            key = order[i] if i < len(order) else f"_{i}"
            args[key] = _value(a, extra)
            extra["positional"] = True
        for kw in node.keywords:
            args[kw.arg or "**"] = _value(kw.value, extra)
        out.append((name, safe_dump(args), extra))
    return out


def _value(node: ast.expr, extra: dict[str, Any]) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        extra["non_literal"] = True
        return ast.unparse(node)
