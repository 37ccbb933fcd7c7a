"""\
What it does
  Flags tool-call arguments that are not a JSON object and names the damage: cut off (a
  prefix of JSON: it stops, unbalanced, at its end), comments, Python literals (`'single
  quotes'`, `True`, `None`), trailing commas, unquoted keys, double encoding (a JSON string
  holding JSON), a non-object value, or malformed (complete arguments with a stray character,
  e.g. `{"path": "a.txt"", "mode": "r"}`: named with its position). It says whether a repair
  (json_repair) recovers an object; a repair that would invent keys the text never names is
  no repair. It also reports a text-protocol block (`<tool_call>…</tool_call>`) that was not
  valid JSON and was read leniently (the event marked `block_invalid`): what was broken and
  what the call was read as. Empty arguments are accepted as `{}`.

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

from toolcall_cli.diagnose.kit.call_label import call_label
from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import objects
from toolcall_cli.diagnose.rules.protocol.call_rows import call_rows, per_call, row_mask
from toolcall_cli.model.cells import text
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.jsonio import try_loads
from toolcall_cli.model.jsonscan import cut_prefix, first_error, looks_json
from toolcall_cli.model.quoting.aim import Aim
from toolcall_cli.tools.builtins import free_text_reason

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
    yield from _invalid_blocks(ctx, calls)
    calls = calls[calls["args"].notna()]
    keep = [
        a.get("args_type", "string") == "string"
        and free_text_reason(a, tool, args) is None  # custom tools, ReAct, raw code: by design
        and not _lenient_block(a)  # reported once, as the block it came from
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
            repair = "a repair closes it but the cut-off values are lost"
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
            aim=Aim(key="arguments"),
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
    from json_repair import repair_json  # slow to import: only when a call needs repairing

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
    if cut_prefix(s) is not None:
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
    if not looks_json(s):
        return Damage("malformed", None)
    return Damage(_malformed(s), _honest(s, _repair(s)))


def _malformed(s: str) -> str:
    """ "malformed", with the stray character and its position when the decoder names one."""
    err = first_error(s)
    if err is None or not err[1]:
        return "malformed"
    pos, ch = err
    return f"malformed: a stray {ch!r} at character {pos + 1} of complete arguments"


def _honest(s: str, repaired: Any | None) -> Any | None:
    """The repaired value, or None when it carries a key the text never names (a repair that
    invents keys recovers nothing the model sent)."""
    if isinstance(repaired, dict) and any(
        f'"{k}"' not in s and f"'{k}'" not in s for k in repaired
    ):
        return None
    return repaired


def _lenient_block(a: dict[str, Any]) -> bool:
    """A complete text-protocol block that was not JSON and was read leniently (a block cut
    at the end of the text is a cut, reported on its arguments)."""
    return a.get("block_invalid") is True and not a.get("truncated")


def _invalid_blocks(ctx: DiagnoseContext, calls: Any) -> Iterator[Finding]:
    """Text-protocol blocks that were not valid JSON and were read leniently."""
    bad = calls[row_mask(calls, [_lenient_block(a) for a in calls["_attrs"].tolist()])]
    attrs_of = dict(zip(bad.index.tolist(), bad["_attrs"].tolist(), strict=True))
    args_of = dict(zip(bad.index.tolist(), objects(bad, "args"), strict=True))
    tool_of = dict(zip(bad.index.tolist(), objects(bad, "tool"), strict=True))
    for cid, labels in per_call(bad):
        a = attrs_of[labels[0]]
        tool = text(tool_of[labels[0]])
        args = text(args_of[labels[0]])
        tag = a.get("tag") or "tool-call"
        broken = a.get("block_error") or "not valid JSON"
        read = a.get("block_repair") or "read leniently"
        got = f"name {tool!r}" if tool else "no name"
        got += f" and arguments {_clip(args)}" if args else " and no arguments"
        yield make(
            RULE,
            ctx,
            f"the <{tag}> block of {call_label(cid, tool)} is not valid JSON ({broken}); "
            f"it was {read} as {got}: nothing the block did not say was added",
            labels,
            call_ids=[cid or None],
            extra={"damage": "invalid block", "repairable": bool(tool), "block": tag},
            aim=Aim(key="arguments", needle=f"<{tag}>"),
        )


def _clip(s: str, limit: int = 80) -> str:
    return s if len(s) <= limit else s[: limit - 1] + "…"
