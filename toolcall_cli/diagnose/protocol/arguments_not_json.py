"""\
What it does
  Flags tool-call arguments that are not a JSON object and names the damage: cut off,
  comments, Python literals (`'single quotes'`, `True`, `None`), trailing commas, unquoted
  keys, double encoding (a JSON string holding JSON), or a non-object value. It says whether
  a repair (json_repair) recovers an object. Empty arguments are accepted as `{}`.

Why it matters
  The middleware's prescreen rejects the call, or a lenient SDK passes a half-parsed object
  to the tool; replaying the history to some providers fails outright.

Example
  `{'city': 'Paris', 'units': None}` from a model imitating Python.

Fix
  Use strict/structured outputs for tool calls, repair arguments at the edge and log the
  repair, and return a tool error that quotes the parse error so the model can retry.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from toolcall_cli.core.cells import text
from toolcall_cli.core.findings import Finding, Severity, rule
from toolcall_cli.core.jsonio import try_loads
from toolcall_cli.core.jsonscan import cut_json, looks_json
from toolcall_cli.diagnose import CLASSIFIERS
from toolcall_cli.diagnose.base import DiagnoseContext
from toolcall_cli.diagnose.call_label import call_label
from toolcall_cli.diagnose.finding_builder import make
from toolcall_cli.diagnose.frames import objects
from toolcall_cli.diagnose.protocol.call_rows import call_rows, per_call, row_mask
from toolcall_cli.diagnose.protocol.tool_names import BUILTIN_TOOLS

RULE = rule(
    "PR001",
    "arguments-not-json",
    Severity.error,
    "arguments that do not parse (says whether a repair exists)",
    doc=__doc__,
)


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """PR001: one finding per call whose string arguments are not a JSON object."""
    calls = call_rows(ctx)
    calls = calls[calls["args"].notna()]
    code_tools = set(BUILTIN_TOOLS.values())
    keep = [
        a.get("args_type", "string") == "string"
        and a.get("input_format") != "freeform"  # custom tools take free text by design
        and not (a.get("protocol") == "react" and not looks_json(args))
        and not (tool in code_tools and not looks_json(args))  # raw code, by design
        for a, args, tool in zip(
            calls["_attrs"].tolist(),
            calls["args"].astype(str).tolist(),
            objects(calls, "tool"),
            strict=True,
        )
    ]
    kept = calls[row_mask(calls, keep)]
    args_of = dict(zip(kept.index.tolist(), objects(kept, "args"), strict=True))
    tool_of = dict(zip(kept.index.tolist(), objects(kept, "tool"), strict=True))
    for cid, labels in per_call(kept):
        hurt = damage(str(args_of[labels[0]]))
        if hurt is None:
            continue
        if hurt.kind == "cut off":
            repair = "a repair closes it but the cut-off values are lost (see TR003)"
        elif hurt.repairable:
            keys = (
                ", ".join(map(str, list(hurt.repaired)[:5]))
                if isinstance(hurt.repaired, dict)
                else "an array"
            )
            repair = f"a repair recovers it ({keys})"
        else:
            repair = "no repair recovers an object"
        tool = text(tool_of[labels[0]])
        yield make(
            RULE,
            ctx,
            f"the arguments of {call_label(cid, tool)} are not a JSON object: {hurt.kind}; "
            f"{repair}",
            labels,
            call_ids=[cid or None],
            extra={"damage": hurt.kind, "repairable": hurt.repairable},
        )


_COMMENT = re.compile(r"(^|[^:\"'\w])//|/\*")

_PY_LITERAL = re.compile(r"(^|[\s:\[,{(])(True|False|None)(?=\s*[,}\]])|'[^'\"]*'\s*:")

_TRAILING_COMMA = re.compile(r",\s*[}\]]")

_UNQUOTED_KEY = re.compile(r"[{,]\s*[A-Za-z_][\w-]*\s*:")


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
    from json_repair import repair_json  # ~20 ms to import: only when a call needs repairing

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
