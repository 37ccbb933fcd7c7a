"""\
What it does
  Fires for a tool result that answers an earlier call but is not in the block of tool
  messages directly after the assistant message carrying that call (a user or assistant
  message came in between, or it follows another call's block).

Why it matters
  Chat APIs require every result to follow its tool_calls message immediately ("tool_use
  ids were found without tool_result blocks immediately after"); the request fails, or the
  model attributes the result to the wrong call.

Example
  messages[2] assistant tool_calls=[call_1]; messages[3] user "any news?"; messages[4]
  role=tool tool_call_id=call_1.

Fix
  Inject each result right after its assistant message, before appending any new user or
  assistant message; queue late results instead of appending them at the end.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
    pass

RULE = rule(
    "OR004",
    "result-out-of-order",
    Severity.error,
    "a tool result not directly after its assistant tool_calls block",
    doc=__doc__,
)


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """Results of an earlier call that do not directly follow its assistant message."""
    import numpy as np

    idx = conversation_index(ctx)
    res = idx.results
    if not len(res):
        return
    late = np.flatnonzero([a.get("follows_call") is False for a in res["_attrs"].tolist()])
    consumed = positional_results(ctx).results
    seen: set[tuple[str, str]] = set()
    sub = res.iloc[late]
    cols = [objects(sub, c) for c in ("tool_call_id", "session_id", "source")]
    for i, raw_id, raw_sid, source, seq, attrs in zip(
        sub.index.tolist(), *cols, sub["seq"].tolist(), sub["_attrs"].tolist(), strict=True
    ):
        cid = text(raw_id) or ""
        sid = text(raw_sid) or ""
        if i in consumed or (sid, cid) in seen or not cid:
            continue
        look = call_lookup(ctx)
        if not look.earlier(source, raw_sid, raw_id, seq):
            continue  # OR002's case
        seen.add((sid, cid))
        at_call = look.by_source.get((str(source), cid))
        where = attrs.get("msg_index")
        at = f" (message {where})" if where is not None else ""
        yield make(
            RULE,
            ctx,
            f"tool result for {cid}{at} is not directly after the assistant message that called it",
            [i] if at_call is None else [i, at_call],
            call_ids=[cid],
            aim=Aim(key="tool_call_id", needle=cid),  # a call row has "id": the needle finds it
        )
