"""\
What it does
  Flags tool-call arguments cut off at their end (a prefix of JSON: a brace, bracket or
  string left open where the text stops), or empty, when something shows the output was
  truncated: `finish_reason: "length"` (Anthropic `max_tokens`), the output tokens used
  reaching the request's budget, or a text-protocol block (`<tool_call>`, `<function=…>`,
  Harmony) that the text ends inside or that the request's stop sequence cut, or a
  `finish_reason` of `tool_calls`/`stop` on a completion whose last call is the cut one
  (the end of the output is cut: a router or SDK rewrote "length"). Arguments
  that only look open because of a stray quote are malformed, not cut (PR001); cut
  arguments with no such evidence are left to PR001 "cut off", since blaming the token
  limit needs proof.

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

from toolcall_cli.diagnose.kit.call_label import call_label
from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import with_attrs
from toolcall_cli.model.cells import text
from toolcall_cli.model.events import OBSERVED_CALL_KINDS
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.jsonscan import cut_prefix
from toolcall_cli.model.quoting.aim import Aim

RULE = rule(
    "TR003",
    "arguments-truncated",
    Severity.error,
    "arguments JSON cut off (unbalanced), with truncation evidence (finish_reason: length, …)",
    doc=__doc__,
)


def _finish_reason(a: dict[str, Any]) -> str | None:
    fr = a.get("finish_reason", a.get("stop_reason"))
    return str(fr) if fr is not None else None


#: Finish reasons that say the output token limit stopped the completion.
LENGTH_REASONS = frozenset({"length", "max_tokens", "MAX_TOKENS", "max_output_tokens"})


def truncation_evidence(a: dict[str, Any], *, last: bool) -> str | None:
    """Why the output is known to have been cut, in words; None without evidence. *last*: the
    call is the last thing its completion wrote."""
    reason = _finish_reason(a)
    if a.get("stop_word"):  # a text-protocol block cut by the request's stop sequence
        return f"the completion stopped at the stop sequence {a['stop_word']!r} mid-block"
    if reason in LENGTH_REASONS:
        return f'the completion ended with finish_reason "{reason}" (output token limit)'
    used, budget = _int(a.get("output_tokens")), _int(a.get("max_output_tokens"))
    if used is not None and budget is not None and used >= budget:
        return f"the completion used {used} output tokens of a budget of {budget}"
    if a.get("truncated"):
        closing = a.get("cut_before") or "its closing tag"
        return f"the text ends inside the {a.get('tag') or 'call'} block, before {closing}"
    if reason in ("tool_calls", "stop", "function_call") and last and used is None:
        return (
            f'finish_reason says "{reason}", but the completion ends inside these arguments, '
            'so a router or SDK probably rewrote "length"'
        )
    return None


def _last_calls(calls: Any) -> set[Any]:
    """Labels of the calls that end their assistant message (highest `call_index`)."""
    best: dict[tuple[Any, Any], tuple[int, Any]] = {}
    for label, sid, a in zip(calls.index, calls["session_id"], calls["_attrs"], strict=True):
        turn = a.get("turn", a.get("msg_index"))
        k = a.get("call_index")
        if turn is None or not isinstance(k, int):
            continue
        key = (sid, turn)
        if key not in best or k >= best[key][0]:
            best[key] = (k, label)
    return {label for _, label in best.values()}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """TR003: one finding per call whose arguments stop before the JSON closes, with evidence
    that the output was truncated."""
    ev = with_attrs(ctx)
    calls = ev[ev["kind"].isin(OBSERVED_CALL_KINDS) & ev["args"].notna()]
    seen: set[str] = set()
    last = _last_calls(calls)
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
        sh = cut_prefix(args)
        if sh is None and args.strip():
            continue
        why = truncation_evidence(a, last=idx in last)
        if why is None:
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
        yield make(
            RULE,
            ctx,
            f"the arguments of {call_label(cid, tool)} {what}: {why}",
            [idx],
            call_ids=[cid or None],
            extra={"finish_reason": _finish_reason(a), "chars": len(args)},
            aim=Aim(key="arguments", tail=True),  # where the arguments were cut
        )
