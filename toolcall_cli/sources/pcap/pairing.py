"""Requests and responses paired per TCP stream, in order, for all messages at once.

HTTP/1.1 answers in request order, so per stream the k-th final response takes the oldest
request still waiting, when one is. tshark's single-pass ``http.request_in`` points at the
*latest* request of the stream, which is wrong for pipelined requests, so order decides and
``request_in`` only places a surplus response (none waiting: a duplicate or injected
answer). An interim 1xx response (not 101) links to the waiting request without taking it.

The number waiting after each message is a walk (+1 a request, -1 a final response) that
stays at zero when a response finds nobody waiting: that walk minus its running minimum
(Lindley's recursion), so it is prefix sums per stream, not a queue per message. The
surplus responses, rare, are placed one by one.
"""

from __future__ import annotations

import numpy as np


def pair(
    streams: np.ndarray,
    is_request: np.ndarray,
    codes: np.ndarray,
    frames: np.ndarray,
    request_in: np.ndarray,
) -> tuple[np.ndarray, dict[int, str]]:
    """``peer`` (index of the paired message, -1 for none) and flags by row.

    *streams*: an integer per distinct stream (a missing stream is one more); *codes* and
    *request_in*: float, NaN when missing."""
    n = len(frames)
    peer = np.full(n, -1, dtype=np.int64)
    if n == 0:
        return peer, {}
    is_req = np.asarray(is_request, bool)
    interim = (codes >= 100) & (codes < 200) & (codes != 101)
    step = np.where(is_req, 1, np.where(interim, 0, -1)).astype(np.int64)
    order = np.argsort(streams, kind="stable")
    s, st = streams[order], step[order]
    start = np.ones(n, bool)
    start[1:] = s[1:] != s[:-1]
    group = np.cumsum(start) - 1
    first = np.flatnonzero(start)
    walk = np.cumsum(st)
    walk -= (walk - st)[first][group]  # prefix sums restart with each stream
    # the running minimum of each stream alone: later streams are shifted below earlier ones
    shift = group * (2 * n + 2)
    low = np.minimum(np.minimum.accumulate(walk - shift) + shift, 0)
    waiting = walk - low  # requests waiting after each message
    before = np.zeros(n, np.int64)
    before[1:] = waiting[:-1]
    before[start] = 0
    resp = ~is_req[order]
    linked = resp & (before > 0)
    takes = linked & (st < 0)
    taken: np.ndarray = np.cumsum(takes)
    taken_before: np.ndarray = taken - takes - (taken - takes)[first][group]
    # requests of each stream in order; the c-th taking response takes the c-th request
    req_rank_base = np.cumsum(~resp) - (~resp)
    base = req_rank_base[first][group]
    req_sorted = order[~resp]
    target = req_sorted[base[linked] + taken_before[linked]]
    peer[order[linked]] = target
    peer[target[takes[linked]]] = order[takes]
    flags: dict[int, str] = {}
    lone = np.sort(order[resp & (before <= 0)])
    if len(lone):
        _place_surplus(lone, streams, is_req, frames, request_in, peer, flags)
    return peer, flags


def _place_surplus(
    lone: np.ndarray,
    streams: np.ndarray,
    is_req: np.ndarray,
    frames: np.ndarray,
    request_in: np.ndarray,
    peer: np.ndarray,
    flags: dict[int, str],
) -> None:
    """A response with nobody waiting: the last earlier request of its stream in the frame
    ``request_in`` names (a surplus answer), else it stays unmatched."""
    for i in lone.tolist():
        rin = request_in[i]
        if rin != rin:  # NaN: tshark named no request
            flags[i] = "unmatched_response"
            continue
        hits = np.flatnonzero(is_req[:i] & (frames[:i] == rin) & (streams[:i] == streams[i]))
        if len(hits):
            peer[i] = hits[-1]
            flags[i] = "surplus_response"
        else:
            flags[i] = "unmatched_response"
