"""What every view says beside a cancelled call: who cancelled it, when, and the evidence line
(the text timeline, its markdown and the HTML calls table say it in the same words)."""

from __future__ import annotations

from collections.abc import Sequence

from toolcall_cli.align.model import CallView
from toolcall_cli.core.words import NO_ID

#: Who cancelled a call, by `CallView.cancelled_by`.
CANCELLED_BY = {
    "user": "the user aborted its turn",
    "client": "the client cancelled it",
}


def when_cancelled(c: CallView) -> str:
    """`2025-09-10 14:00:16.100 UTC`, or "" when the cancelling event has no clock."""
    t = c.cancelled_time
    return "" if t is None else f"{t:%Y-%m-%d %H:%M:%S}.{t.microsecond // 1000:03d} UTC"


def cancelled_sentence(c: CallView) -> str | None:
    """`cancelled at 2025-09-10 14:00:16.100 UTC: the user aborted its turn at ORIGIN`, for a
    cancelled call whose cancelling event is known (None otherwise). Plain text: each view
    escapes it for its own format (the origin comes from the input)."""
    if c.outcome != "cancelled" or c.cancelled_by not in CANCELLED_BY:
        return None
    when = when_cancelled(c)
    at = f" at {c.cancelled_origin}" if c.cancelled_origin else ""
    return f"cancelled{f' at {when}' if when else ''}: {CANCELLED_BY[c.cancelled_by]}{at}"


def cancellations(calls: Sequence[CallView]) -> list[tuple[str, str]]:
    """(call name, `cancelled at …: …`) of each of *calls* whose cancellation is on record."""
    said = ((c.tool_call_id or NO_ID, cancelled_sentence(c)) for c in calls)
    return [(who, s) for who, s in said if s is not None]
