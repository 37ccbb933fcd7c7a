"""Why arguments text is not JSON, and whether a repair exists (json-repair) — PR001's "what kind".

Kinds, checked in this order:

- ``empty`` — no text at all (some providers mean ``{}``);
- ``double-encoded`` — a JSON object escaped into a string (``"{\\"a\\": 1}"`` or ``{\\"a\\": 1}``);
- ``comments`` — ``//`` or ``/* */`` comments around otherwise valid JSON;
- ``python-literals`` — a Python dict repr: ``True``/``False``/``None``, single quotes;
- ``cut-off`` — unbalanced brackets or an unterminated string at the end (a JSON prefix: output
  cut at a token limit);
- ``malformed`` — anything else json-repair can still turn into a value.

When none applies there is no repair.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

import json_repair

from toolcall_cli.model.jsonio import try_loads
from toolcall_cli.model.jsonscan import cut_prefix, looks_json, scan

_COMMENT = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.S)


@dataclass(frozen=True, slots=True)
class Repair:
    """What is wrong with arguments text and the value a repair gives (None: no repair)."""

    kind: str
    value: Any | None

    @property
    def exists(self) -> bool:
        """True when a repair produced a value."""
        return self.value is not None


def _strip_comments(text: str) -> str:
    return _COMMENT.sub(lambda m: m.group() if m.group().startswith('"') else "", text)


def _unbalanced(text: str) -> bool:
    """Brackets left open or a string left unterminated (outside strings only)."""
    brackets = scan(text)
    return brackets.in_string or brackets.depth > 0


def _json_repair(text: str) -> Any | None:
    try:
        val = json_repair.repair_json(text, return_objects=True)
    except (ValueError, RecursionError):  # json-repair gives up on some pathological inputs
        return None
    return None if val == "" else val


def double_encoded(value: Any) -> Any | None:
    """The object inside a JSON string value that itself holds JSON (else None)."""
    if isinstance(value, str):
        inner = try_loads(value)
        if isinstance(inner, dict | list):
            return inner
    return None


def classify(text: str | None) -> Repair | None:
    """None when *text* parses as JSON; else the kind of damage and the repaired value."""
    if text is not None and (try_loads(text) is not None or text.strip() == "null"):
        return None
    s = (text or "").strip()
    if not s:
        return Repair("empty", {})
    if '\\"' in s:
        cand = s[1:] if s.startswith('"') else s
        cand = cand[:-1] if cand.endswith('"') and not cand.endswith('\\"') else cand
        val = try_loads(cand.replace('\\"', '"'))
        if val is not None:
            return Repair("double-encoded", val)
    stripped = _strip_comments(s)
    if stripped != s and try_loads(stripped) is not None:
        return Repair("comments", try_loads(stripped))
    try:
        lit = ast.literal_eval(s)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        lit = None
    if isinstance(lit, dict | list):
        return Repair("python-literals", lit)
    # a stray quote leaves brackets "open" too: a cut is a JSON prefix (PR001's rule)
    if _unbalanced(s) and (not looks_json(s) or cut_prefix(s) is not None):
        return Repair("cut-off", _json_repair(s))
    return Repair("malformed", _json_repair(s))
