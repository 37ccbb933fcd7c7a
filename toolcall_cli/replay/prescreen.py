"""Stage 1, `prescreen`: the id is unique, the name is registered, the arguments are JSON.

Calls without ids by design skip the id checks: their middleware pairs calls and results by
position, not by id. They are the calls whose evidence records no id at all, as FL003 has it:
the legacy ``function_call``, every text protocol (ReAct, tagged blocks, Harmony,
``<function=>``, Mistral, bare JSON), a Gemini ``functionCall``, a BFCL result, a SWE-agent
action. The evidence says so, not a list of protocols that must follow every new one; an id
sent as ``""`` is ``empty-id``.

Codes: ``empty-id``, ``duplicate-id`` (FL003), ``unknown-tool`` (PR002), ``tool-name-case``
(PR003), ``arguments-not-json`` (PR001; the reason says whether json-repair can fix it and
what kind of damage it is), ``arguments-not-object`` (a JSON value that is not an object,
e.g. a double-encoded string). Arguments that are free text by design (a custom tool's
free-form input, a ReAct action in prose, raw code: `tools.builtins`) pass, as PR001 has it.
"""

from __future__ import annotations

from typing import Final

from toolcall_cli.model.jsonio import dumps, try_loads
from toolcall_cli.replay.base import (
    ReplayContext,
    ToolCall,
    Verdict,
    failed,
    passed,
    session_key,
    shorten,
)
from toolcall_cli.replay.repair import Repair, classify, double_encoded

name: Final = "prescreen"

_KIND_TEXT: Final = {
    "empty": "the arguments are empty",
    "double-encoded": "the arguments are a JSON object encoded twice (escaped into a string)",
    "comments": "the arguments contain comments",
    "python-literals": "the arguments use Python literals (True/False/None or single quotes)",
    "cut-off": "the arguments are cut off (unbalanced brackets or an unterminated string)",
    "malformed": "the arguments are malformed JSON",
}


def check(call: ToolCall, ctx: ReplayContext) -> Verdict:
    """Id unique in the session (and not empty), name registered, arguments a JSON object."""
    verdict = _check_id(call, ctx) if call.id_recorded else None  # id-less by design
    return verdict or _check_name(call, ctx) or _check_args(call)


def _check_id(call: ToolCall, ctx: ReplayContext) -> Verdict | None:
    seen = ctx.seen_ids.setdefault(session_key(call), {})
    cid = call.tool_call_id
    if not cid:
        return failed(name, "empty-id", "the tool call has an empty tool_call_id")
    first = seen.setdefault(cid, call.origin)
    if first != call.origin:
        return failed(
            name, "duplicate-id", f"duplicate tool_call_id {cid!r} (first used at {first})"
        )
    return None


def _check_name(call: ToolCall, ctx: ReplayContext) -> Verdict | None:
    reg = ctx.registry
    tool = call.tool or ""
    if reg is None or tool in reg:
        return None
    if not tool:
        return failed(name, "unknown-tool", "the tool call names no tool")
    hint = reg.suggest(tool)
    case = reg.case_match(tool)
    if case is not None:
        return failed(
            name,
            "tool-name-case",
            f"unknown tool {tool!r}: names are case-sensitive; did you mean {case!r}?",
        )
    mean = f"; did you mean {' or '.join(repr(h) for h in hint)}?" if hint else ""
    return failed(name, "unknown-tool", f"unknown tool {tool!r}{mean}", detail=_known(reg.names()))


def _known(names: list[str]) -> str:
    shown = ", ".join(names[:20])
    return f"registered tools: {shown}{' …' if len(names) > 20 else ''}"


def _check_args(call: ToolCall) -> Verdict:
    if not call.args_recorded:
        return passed(name, "ok (arguments not recorded; not checked)")
    if call.free_text:  # as PR001: not JSON by design, nothing to parse
        return passed(name, f"ok ({call.free_text}: free text by design, not JSON)")
    if call.args_type not in (None, "string") and call.args_type != "object":
        return failed(
            name, "arguments-not-object", f"the arguments were sent as a JSON {call.args_type}"
        )
    damage = classify(call.args)
    if damage is not None:
        return failed(
            name, "arguments-not-json", _repair_text(damage), detail=(call.args or "")[:2000]
        )
    value = try_loads(call.args)
    if isinstance(value, dict):
        return passed(name, "ok" if call.args_type is None else "ok (arguments sent as an object)")
    inner = double_encoded(value)
    if inner is not None:
        return failed(
            name,
            "arguments-not-object",
            f"{_KIND_TEXT['double-encoded']}; repair exists (double-encoded): {_short(inner)}",
        )
    kind = type(value).__name__ if value is not None else "null"
    return failed(name, "arguments-not-object", f"the arguments are a JSON {kind}, not an object")


def _repair_text(r: Repair) -> str:
    what = _KIND_TEXT.get(r.kind, "the arguments are not JSON")
    if not r.exists:
        return f"invalid JSON in arguments: {what}; no repair exists"
    lossy = " (values after the cut are lost)" if r.kind == "cut-off" else ""
    return f"invalid JSON in arguments: {what}; repair exists ({r.kind}){lossy}: {_short(r.value)}"


def _short(value: object, limit: int = 160) -> str:
    return shorten(dumps(value), limit)
