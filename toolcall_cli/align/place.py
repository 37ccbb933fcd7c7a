"""Message events have no clock: they take their place from the events of their call.

A `tool_call` message sits at the earliest clocked event of its call; a `tool_result` at the
injection (`mw_injected`, else the wire's `tool_result` that carried it back to the model, else
the call's last clocked event). Other message events stay without a time; for ordering only
they sit just after the message before them (or before the first placed one), so message
order is kept inside the timeline. Times are int64 nanoseconds (NAT = none).
"""

from __future__ import annotations

import numpy as np

from toolcall_cli.align.arrays import NAT, EventArrays, encode, group_max, group_min
from toolcall_cli.model.events import UNCLOCKED_SOURCES
from toolcall_cli.model.origins import record_of

_NONE = np.iinfo(np.int64).max


def place_messages(a: EventArrays, calls: np.ndarray, ts: np.ndarray) -> np.ndarray:
    """`ts_corrected` with message tool calls and results placed by their call."""
    msg = a.source.mask(UNCLOCKED_SOURCES)
    if not msg.any():
        return ts
    clocked = (ts != NAT) & (calls >= 0)
    if not clocked.any():
        return ts
    n = int(calls.max()) + 1
    c, t = calls[clocked], ts[clocked]
    first = group_min(c, t, n, _NONE)
    last = group_max(c, t, n, NAT)
    kinds = a.kind.mask
    inj = group_min(
        c[kinds(["mw_injected"])[clocked]], t[kinds(["mw_injected"])[clocked]], n, _NONE
    )
    back = kinds(["tool_result"])[clocked]
    sent = group_min(c[back], t[back], n, _NONE)
    inj = np.where(inj != _NONE, inj, np.where(sent != _NONE, sent, last))
    first[first == _NONE] = NAT
    out = ts.copy()
    is_call = msg & kinds(["tool_call"]) & (calls >= 0)
    is_res = msg & kinds(["tool_result"]) & (calls >= 0)
    out[is_call] = first[calls[is_call]]
    out[is_res] = inj[calls[is_res]]
    return out


def sort_times(a: EventArrays, ts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A time for ordering only, and a tie-break bump: an unplaced message event follows the
    message before it (bump +1: after that instant's events) or, before the first placed one,
    precedes the message after it (bump −1)."""
    st = ts.copy()
    bump = np.zeros(a.n, dtype=np.int64)
    rows = np.flatnonzero(a.source.mask(UNCLOCKED_SOURCES))
    if not len(rows):
        return st, bump
    # per record, not per file: a messages JSONL line is a conversation of its own
    files = encode(record_of(a.origin.take(rows))).codes
    order = np.lexsort((rows, a.seq[rows], files))
    rows, files = rows[order], files[order]
    t = ts[rows]
    m = len(rows)
    pos = np.arange(m)
    starts = np.r_[True, files[1:] != files[:-1]]
    grp_start = np.maximum.accumulate(np.where(starts, pos, 0))
    ends = np.r_[files[1:] != files[:-1], True]
    grp_end = np.minimum.accumulate(np.where(ends, pos, m)[::-1])[::-1]
    placed = t != NAT
    fwd_at = np.maximum.accumulate(np.where(placed, pos, -1))
    has_fwd = fwd_at >= grp_start
    back_at = np.minimum.accumulate(np.where(placed, pos, m)[::-1])[::-1]
    has_back = back_at <= grp_end
    st[rows] = np.where(
        has_fwd, t[np.maximum(fwd_at, 0)], np.where(has_back, t[np.minimum(back_at, m - 1)], NAT)
    )
    bump[rows[~placed & has_fwd]] = 1
    bump[rows[~placed & ~has_fwd & has_back]] = -1
    return st, bump
