"""\
What it does
  Reports a tool_call_id that several conversations carry (the same id in two sessions or two
  files) when an event of another source carries it too and no agreeing key (session or
  trace id) says which conversation it belongs to: the event was attributed by its time
  window alone, or left unlinked.

Why it matters
  Ids repeat: open models emit call_0, call_1 in every conversation, eval sets reuse ids
  across sessions, and two incident bundles in one directory share nothing. toolcall keeps
  ids scoped (one conversation, or sources whose keys agree), so nothing is joined by the
  coincidence; but a middleware line or a capture that names only the id cannot be placed,
  and its latency, outcome or rejection is missing from the call it belongs to.

Example
  sessions s-paris and s-nice both call get_weather as call_0; middleware.log:1 says
  "tool_call.received call_0" with no session_id or trace_id: it is left unlinked.

Fix
  Log the session id (or the trace id) with every tool-call event in the middleware, nginx
  ($http_x_session_id) and the tool service headers (X-Session-ID); have the model gateway
  issue globally unique call ids (e.g. call_<uuid>) instead of per-conversation counters.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.words import plural

RULE = rule(
    "IN003",
    "ambiguous-call-id",
    Severity.warning,
    "one tool_call_id used in several conversations, so events carrying it could not be "
    "attributed by id alone",
    doc=__doc__,
)


@CLASSIFIERS.register(RULE.code)
def ambiguous_call_ids(ctx: DiagnoseContext) -> Iterator[Finding]:
    """One finding per reused id that left another source's events unattributed or placed
    by time only (ids resolved by session or trace say nothing)."""
    found: tuple[Any, ...] = getattr(ctx.timeline, "ambiguous", ())
    for amb in found:
        if not (amb.unlinked or amb.by_time):
            continue
        loose = amb.unlinked or amb.by_time
        how = "left unlinked" if amb.unlinked else "attributed by time window only"
        n = len(loose)
        yield make(
            RULE,
            ctx,
            f"tool_call_id {amb.tool_call_id} is used in "
            f"{plural(amb.conversations, 'conversation')}; "
            f"{n} event{'s' if n != 1 else ''} of other sources carrying it "
            f"{'were' if n != 1 else 'was'} {how}",
            [*amb.samples, *loose[:2]],
            call_ids=[amb.tool_call_id],
            session_id=None,
            trace_id=None,
            extra={
                "conversations": amb.conversations,
                "unlinked": len(amb.unlinked),
                "by_time": len(amb.by_time),
            },
        )
