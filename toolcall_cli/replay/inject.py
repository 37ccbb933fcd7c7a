"""Stage 5, `inject`: the tool result goes right after its assistant `tool_calls` message and
carries the call's id.

Codes: ``result-out-of-order`` (OR004: the result does not directly follow its assistant
message block), ``result-id-mismatch`` (a result in this call's place carries no id or another
call's id). Skips: ``no-messages`` (the call is not in a recorded conversation), ``no-result``
(no tool result recorded — the `observed` column says what happened instead).
"""

from __future__ import annotations

from typing import Final

from toolcall_cli.replay.base import ReplayContext, ToolCall, Verdict, failed, passed, skipped

name: Final = "inject"


def check(call: ToolCall, ctx: ReplayContext) -> Verdict:
    """Judge where and with which id the call's tool result was injected."""
    res = call.result
    if res is None:
        if "tool_call" not in call.kinds:
            return skipped(name, "no-messages", "the call is not in a recorded conversation")
        return skipped(name, "no-result", "no tool result recorded for this call")
    if (res.tool_call_id or "") != call.tool_call_id:
        got = repr(res.tool_call_id) if res.tool_call_id else "no tool_call_id"
        return failed(
            name,
            "result-id-mismatch",
            f"the tool result at {res.origin} carries {got}, expected {call.tool_call_id!r}",
        )
    if res.follows_call is False:
        return failed(
            name,
            "result-out-of-order",
            f"the tool result at {res.origin} does not directly follow its assistant "
            "tool_calls message",
        )
    return passed(name)
