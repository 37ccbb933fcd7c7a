"""\
What it does
  Flags tool-call arguments whose JSON stops before it closes (a brace, bracket or string
  left open), or that are empty while the completion stopped with `finish_reason: "length"`.
  It fires even when a router rewrote `finish_reason` to `tool_calls` or `stop`.

Why it matters
  The completion ran out of output tokens mid-call; whatever runs the call gets partial
  arguments or a parse error, and the model never learns why.

Example
  `{"query": "flights from SFO to` with `finish_reason: "length"`.

Fix
  Raise `max_tokens` (or `max_completion_tokens`) for tool-calling turns, keep tool
  arguments small, and treat `finish_reason: "length"` as a failed call, not as a call.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolcall_cli.core.cells import text
from toolcall_cli.core.events import OBSERVED_CALL_KINDS
from toolcall_cli.core.findings import Finding, Severity, rule
from toolcall_cli.core.jsonscan import cut_json
from toolcall_cli.diagnose import CLASSIFIERS
from toolcall_cli.diagnose.base import DiagnoseContext
from toolcall_cli.diagnose.call_label import call_label
from toolcall_cli.diagnose.finding_builder import make
from toolcall_cli.diagnose.frames import with_attrs

RULE = rule(
    "TR003",
    "arguments-truncated",
    Severity.error,
    "arguments JSON cut off (unbalanced), often with finish_reason: length",
    doc=__doc__,
)


def _finish_reason(a: dict[str, Any]) -> str | None:
    fr = a.get("finish_reason")
    return str(fr) if fr is not None else None


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """TR003: one finding per call whose arguments stop before the JSON closes."""
    ev = with_attrs(ctx)
    calls = ev[ev["kind"].isin(OBSERVED_CALL_KINDS) & ev["args"].notna()]
    seen: set[str] = set()
    for idx, raw, a, raw_id, raw_tool in zip(
        calls.index,
        calls["args"],
        calls["_attrs"],
        calls["tool_call_id"],
        calls["tool"],
        strict=True,
    ):
        if a.get("args_type", "string") != "string":
            continue
        args = str(raw)
        reason = _finish_reason(a)
        sh = cut_json(args)
        if sh is None and not (reason == "length" and not args.strip()):
            continue
        cid = text(raw_id)
        key = cid or f"#{idx}"
        if key in seen:
            continue
        seen.add(key)
        tool = text(raw_tool)
        what = (
            "are empty"
            if sh is None
            else f"stop with {''.join(sh.open) + chr(34) * sh.in_string!r} still open"
        )
        if a.get("stop_word"):  # a text-protocol block cut by the request's stop sequence
            why = f"the completion stopped at the stop sequence {a['stop_word']!r} mid-block"
        elif reason == "length":
            why = 'the completion ended with finish_reason "length" (output token limit)'
        elif reason in ("tool_calls", "stop", "function_call"):
            why = f'finish_reason says "{reason}", so a router or SDK probably rewrote "length"'
        else:
            why = "the completion was probably cut by its output token limit"
        yield make(
            RULE,
            ctx,
            f"the arguments of {call_label(cid, tool)} {what}: {why}",
            [idx],
            call_ids=[cid or None],
            extra={"finish_reason": reason, "chars": len(args)},
        )
