"""What every view says beside a cancelled call: who cancelled it, when, and the evidence line
(the text timeline, its markdown and the HTML calls table say it in the same words)."""

from __future__ import annotations

from collections.abc import Sequence

from toolcall_cli.align.model import CallView
from toolcall_cli.model.words import NO_ID

#: Who cancelled a call, by `CallView.cancelled_by`.
CANCELLED_BY = {
    "user": "the user aborted its turn",
    "client": "the client cancelled it",
}


def when_cancelled(c: CallView) -> str:
    """`2025-09-10 14:00:16.100 UTC`, or "" when the cancelling event has no clock."""
    t = c.cancelled_time
    return "" if t is None else f"{t:%Y-%m-%d %H:%M:%S}.{t.microsecond // 1000:03d} UTC"


#: What a cancelled call's outcome label says, by who cancelled it.
CANCELLED_LABEL = {
    "user": "cancelled: the user aborted the turn",
    "client": "cancelled by the client",
}


def _quoted_note(c: CallView) -> str:
    """` ("turn aborted: interrupted")`: the cancelling event's own words, which name its
    kind (Codex's `turn_aborted` event, Claude Code's `[Request interrupted by user]` turn, an
    MCP client's reason); "" when it has none."""
    note = " ".join((c.cancelled_note or "").split())
    if len(note) > 80:
        note = note[:79] + "…"
    return f' ("{note}")' if note else ""


def cancelled_label(c: CallView) -> str | None:
    """`cancelled: the user aborted the turn ("[Request interrupted by user]")` or `cancelled
    by the client ("timed out after 1.0s")` for a cancelled call whose cancelling event is
    known; None otherwise (the outcome's generic label applies)."""
    if c.outcome != "cancelled" or c.cancelled_by not in CANCELLED_LABEL:
        return None
    return CANCELLED_LABEL[c.cancelled_by] + _quoted_note(c)


def cancelled_sentence(c: CallView) -> str | None:
    """`cancelled at 2025-09-10 14:00:16.100 UTC: the user aborted its turn ("turn aborted:
    interrupted") at ORIGIN`, for a
    cancelled call whose cancelling event is known (None otherwise). Plain text: each view
    escapes it for its own format (the origin comes from the input)."""
    if c.outcome != "cancelled" or c.cancelled_by not in CANCELLED_BY:
        return None
    when = when_cancelled(c)
    at = f" at {c.cancelled_origin}" if c.cancelled_origin else ""
    why = CANCELLED_BY[c.cancelled_by] + _quoted_note(c)
    return f"cancelled{f' at {when}' if when else ''}: {why}{at}"


def cancellations(calls: Sequence[CallView]) -> list[tuple[str, str]]:
    """(call name, `cancelled at …: …`) of each of *calls* whose cancellation is on record."""
    said = ((c.tool_call_id or NO_ID, cancelled_sentence(c)) for c in calls)
    return [(who, s) for who, s in said if s is not None]


def unanswered(calls: Sequence[CallView]) -> tuple[int, int]:
    """(calls without a result, calls cancelled) of *calls*, for a trace's header: a cancelled
    call is counted apart, never as lost (the user aborted its turn, which OR001 leaves
    alone, or the client withdrew it, which OR001 reports with breakpoint `cancelled`)."""
    cancelled = sum(c.outcome == "cancelled" for c in calls)
    return sum(c.outcome != "result" for c in calls) - cancelled, cancelled


def cancelled_count(cancelled: int) -> str:
    """`, 2 cancelled` for a header, "" for none (most traces: their header stays as it was)."""
    return f", {cancelled} cancelled" if cancelled else ""
