"""JSON text shape for the TR and PR rules: balance, cut-off detection, repair classification.

Arguments and tool results travel as text. These helpers tell a cut-off document (brackets or a
string left open) from other malformed JSON, name the kind of damage (comments, Python
literals, double encoding, ...) and say whether `json_repair` can recover an object.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from json_repair import repair_json

from toolcall_cli.core.jsonio import try_loads

_PAIRS = {"}": "{", "]": "["}
_COMMENT = re.compile(r"(^|[^:\"'\w])//|/\*")
_PY_LITERAL = re.compile(r"(^|[\s:\[,{(])(True|False|None)(?=\s*[,}\]])|'[^'\"]*'\s*:")
_TRAILING_COMMA = re.compile(r",\s*[}\]]")
_UNQUOTED_KEY = re.compile(r"[{,]\s*[A-Za-z_][\w-]*\s*:")


@dataclass(frozen=True, slots=True)
class Shape:
    """Bracket balance of a JSON-like text: what is still open at its end."""

    open: tuple[str, ...]  # unclosed "{" / "[" (outermost first)
    in_string: bool  # the text ends inside a double-quoted string
    overclosed: bool  # a closer without its opener (malformed, not cut)

    @property
    def unbalanced(self) -> bool:
        """Something is left open at the end (the signature of a cut)."""
        return bool(self.open) or self.in_string


def shape(text: str) -> Shape:
    """Scan *text* for open brackets and strings (escapes respected)."""
    stack: list[str] = []
    in_str = esc = over = False
    for ch in text:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"':
            in_str = True
        elif ch in "{[":
            stack.append(ch)
        elif ch in "}]":
            if stack and stack[-1] == _PAIRS[ch]:
                stack.pop()
            else:
                over = True
    return Shape(open=tuple(stack), in_string=in_str, overclosed=over)


def looks_json(text: str | None) -> bool:
    """The text starts like a JSON object or array."""
    return bool(text) and text.lstrip()[:1] in ("{", "[")  # type: ignore[union-attr]


def parses(text: str | None) -> bool:
    """The whole text is one JSON document."""
    if text is None:
        return False
    return try_loads(text) is not None or text.strip() == "null"


def cut_json(text: str | None) -> Shape | None:
    """The shape of *text* when it is a JSON object/array cut off before its end, else None."""
    if not looks_json(text) or parses(text):
        return None
    sh = shape(text.strip())  # type: ignore[union-attr]
    return sh if sh.unbalanced and not sh.overclosed else None


def depth(obj: Any) -> int:
    """Nesting depth of parsed JSON (a scalar is 0, {} or [] is 1)."""
    if isinstance(obj, dict):
        return 1 + max((depth(v) for v in obj.values()), default=0)
    if isinstance(obj, list):
        return 1 + max((depth(v) for v in obj), default=0)
    return 0


@dataclass(frozen=True, slots=True)
class Damage:
    """Why an arguments text is not a JSON object, and whether a repair recovers one."""

    kind: str  # "cut off" | "comments" | "python literals" | "double-encoded" | ...
    repaired: Any | None  # the recovered object, or None when no repair exists

    @property
    def repairable(self) -> bool:
        """A repair yields a non-empty object or array."""
        return isinstance(self.repaired, dict | list) and bool(self.repaired)


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "array" if isinstance(value, list) else "null"


def _repair(text: str) -> Any | None:
    try:
        got = repair_json(text, return_objects=True)
    except (ValueError, RecursionError, IndexError):  # json_repair gives up on pathological text
        return None
    return got if isinstance(got, dict | list) and got else None


def damage(text: str) -> Damage | None:
    """Classify arguments that are not a JSON object; None when they are one (or empty)."""
    s = text.strip()
    if not s:
        return None
    parsed = try_loads(s)
    if isinstance(parsed, dict):
        return None
    if isinstance(parsed, str):
        inner = try_loads(parsed)
        if isinstance(inner, dict | list):
            return Damage("double-encoded", inner)
        return Damage("a JSON string, not an object", None)
    if parsed is not None or s == "null":
        return Damage(f"a JSON {_json_type(parsed)}, not an object", None)
    if cut_json(s) is not None:
        return Damage("cut off", _repair(s))
    if _COMMENT.search(s):
        return Damage("comments", _repair(s))
    if _PY_LITERAL.search(s):
        try:
            lit = ast.literal_eval(s)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            lit = None
        return Damage("python literals", lit if isinstance(lit, dict) else _repair(s))
    if _TRAILING_COMMA.search(s):
        return Damage("trailing comma", _repair(s))
    if _UNQUOTED_KEY.search(s):
        return Damage("unquoted keys", _repair(s))
    return Damage("malformed", _repair(s) if looks_json(s) else None)
