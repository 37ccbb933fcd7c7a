"""Who cancelled a call, when, and the evidence: per `cancelled` call either the user's abort
marker (:mod:`toolcall_cli.align.aborted`: Codex `turn_aborted`, Claude Code's interrupt) or the
client's own withdrawal (an `mcp_cancelled` event: MCP `notifications/cancelled`).

A call shown as cancelled says by whom and when; the evidence line proves it. The time is the
cancelling event's corrected time (None when that event has no clock, as messages have none).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import pyarrow as pa

from toolcall_cli.align.arrays import NAT, EventArrays, first_by

#: `cancelled_by` of a call whose turn the user aborted, and of one the client withdrew.
BY_USER: Final = "user"
BY_CLIENT: Final = "client"
#: The kind that records a client's withdrawal of a call (OUTCOME_KINDS makes it `cancelled`).
CLIENT_CANCEL_KIND: Final = "mcp_cancelled"


def client_cancel_rows(
    rows: np.ndarray, grp: np.ndarray, n: int, is_cancel: np.ndarray, ts: np.ndarray
) -> np.ndarray:
    """Per call (0..n-1) the position of its first client-cancel event (the earliest, then by
    position), -1 for none. *rows*/*grp*: the calls' event positions and call of each;
    *is_cancel*: per row whether it is a client-cancel event; *ts*: per event, ns or NAT."""
    t = ts[rows]
    isnat = t == NAT
    first = first_by(np.where(is_cancel, grp, -1), n, [isnat, np.where(isnat, 0, t)])
    return np.where(first >= 0, rows[np.maximum(first, 0)], -1)


def cancellation_columns(
    a: EventArrays, detail: pa.Array, ts: np.ndarray, *, user: np.ndarray, client: np.ndarray
) -> dict[str, Any]:
    """Columns `cancelled_by` (object), `cancelled_origin`, `cancelled_note` (Arrow text) and
    `cancelled_ns` (int64, NAT for none) per call, from the events' *detail* (Arrow text) and
    corrected times *ts*. *user*: per call the position of the abort marker that cancelled
    it, else -1; *client*: the position of the client's cancel event that did, else -1 (where
    both are given the client's wins: the call's own event is the closer evidence)."""
    pos = np.where(client >= 0, client, user)
    none = pos < 0
    by = np.full(len(pos), None, dtype=object)
    by[user >= 0] = BY_USER
    by[client >= 0] = BY_CLIENT
    take = pa.array(np.maximum(pos, 0), mask=none)
    at = np.where(none, NAT, ts[np.maximum(pos, 0)]) if len(ts) else np.full(len(pos), NAT)
    return {
        "cancelled_by": by,
        "cancelled_origin": a.origin.take(take),
        "cancelled_note": detail.take(take),
        "cancelled_ns": at.astype(np.int64),
    }
