"""\
What it does
  Fires for a tool result whose tool_call_id matches no call made before it in the same
  conversation: the id is unknown, or the call only comes later. Results answering a call
  with an empty id by position (directly after it) are left to FL003.

Why it matters
  Providers reject a tool message that answers nothing ("messages with role 'tool' must be
  a response to a preceeding message with 'tool_calls'", Anthropic "unexpected tool_use_id
  found in tool_result blocks"). It usually means history was trimmed between a call and
  its result, or the middleware rewrote the id. Results that carry no id at all (text
  transcripts such as "tool: ..." lines or ReAct "Observation:") cannot be paired by id and
  are not reported.

Example
  messages[5] role=tool tool_call_id=call_9, but no assistant message before it has a
  tool call with id call_9 (the message that had it was rolled out of the window).

Fix
  Trim history in whole round trips (an assistant tool_calls message together with all its
  tool results), and inject results with the exact id of the call they answer.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import objects
from toolcall_cli.diagnose.rules.orphans.pairing import (
    call_lookup,
    conversation_index,
    positional_results,
)
from toolcall_cli.model.cells import text
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.quoting.aim import Aim
from toolcall_cli.model.words import NO_ID

RULE = rule(
    "OR002",
    "result-without-call",
    Severity.error,
    "a tool result whose tool_call_id matches no earlier call",
    doc=__doc__,
)


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """Results whose id matches no earlier call of their conversation."""
    idx = conversation_index(ctx)
    consumed = positional_results(ctx).results
    seen: set[tuple[str, str]] = set()
    res = idx.results
    cols = [objects(res, c) for c in ("tool_call_id", "session_id", "source")]
    for i, raw_id, raw_sid, source, seq in zip(
        res.index.tolist(), *cols, res["seq"].tolist(), strict=True
    ):
        if text(raw_id) is None:
            continue  # transcript formats carry no id at all: nothing to pair by
        cid = text(raw_id) or ""
        sid = text(raw_sid) or ""
        if i in consumed or (sid, cid) in seen:
            continue
        look = call_lookup(ctx)
        if look.earlier(source, raw_sid, raw_id, seq):
            continue
        local = look.by_source.get((str(source), cid))
        if cid in look.ids and local is None:
            continue  # the call is only in another source: nothing to say about this conversation
        seen.add((sid, cid))
        why = "its call only comes later" if local is not None else "no call has this id"
        shown = cid or NO_ID
        yield make(
            RULE,
            ctx,
            f"tool result for {shown} answers no earlier call: {why}",
            [i] if local is None else [i, local],
            call_ids=[cid] if cid else [],
            aim=Aim(key="tool_call_id", needle=cid or None),
        )
