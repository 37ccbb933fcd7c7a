"""Per-call outcome and phase latencies (DESIGN §3) against the SLA.

Phases: initiation (call received → request sent), tool service (request → response),
injection (response → result injected) and end to end (the chat request that carried the call,
from its start to its completion; without one, the call's first to last clocked event).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.align.aborted import aborted_positions, markers_of
from toolcall_cli.align.arrays import (
    NAT,
    Coded,
    EventArrays,
    arrow,
    attr_fields,
    first_by,
    group_max,
    group_min,
    to_datetime,
    true_mask,
)
from toolcall_cli.align.cancelled import (
    CLIENT_CANCEL_KIND,
    cancellation_columns,
    client_cancel_rows,
)
from toolcall_cli.align.model import PHASES, CallView
from toolcall_cli.align.views import build_views
from toolcall_cli.model.config import Sla
from toolcall_cli.model.events import (
    ACCESS_START,
    CALL_SIDE_KINDS,
    OUTCOME_KINDS,
    PHASE_BOUND_KINDS,
    SELF_REPORTED_SOURCES,
    UNCLOCKED_SOURCES,
)

_SLACK = 1_000_000_000  # ns: one second
_NONE = np.iinfo(np.int64).max
_SEP = "\x1f"
_CHAT = r"/chat/completions|/v1/messages|/v1/responses|/api/chat|/generateContent"


def _ms(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a − b in ms rounded to µs (NaN where either is NAT)."""
    return np.asarray(((to_datetime(a) - to_datetime(b)).dt.total_seconds() * 1000.0).round(3))


def _timedelta_ns(ms: np.ndarray) -> np.ndarray:
    """Milliseconds (NaN = none) as int64 ns, NAT for none — pandas' own conversion."""
    return np.asarray(pd.to_timedelta(ms, unit="ms").as_unit("ns").asi8)


def _minus(ts: np.ndarray, delta: np.ndarray) -> np.ndarray:
    return np.where((ts != NAT) & (delta != NAT), ts - delta, NAT)


@dataclass(frozen=True, slots=True)
class _Calls:
    """The calls as groups of event rows: `rows` (event positions) and `group` (the call of
    each, 0..n-1 in order of first appearance); per call its call and trace codes."""

    rows: np.ndarray
    group: np.ndarray
    call: np.ndarray
    trace: np.ndarray
    n: int


def _groups(a: EventArrays, calls: np.ndarray, trace: Coded) -> _Calls:
    """One call per (tool_call_id, trace) that a call-side event shows: one id in two traces
    (reused by another conversation) is two calls."""
    rows = np.flatnonzero(calls >= 0)
    key = calls[rows] * (len(trace.values) + 1) + trace.codes[rows] + 1
    group, uniq = pd.factorize(key)
    keep = np.zeros(len(uniq), dtype=bool)
    keep[group[a.kind.mask(CALL_SIDE_KINDS)[rows]]] = True
    new_id = np.cumsum(keep) - 1
    sel = keep[group]
    uniq = np.asarray(uniq)[keep]
    nt = len(trace.values) + 1
    return _Calls(rows[sel], new_id[group[sel]], uniq // nt, uniq % nt - 1, int(keep.sum()))


def _chat_spans(
    a: EventArrays, detail: pa.Array, trace: Coded, ts: np.ndarray, pairs: Coded
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(trace, start, end) of every chat request seen by nginx or on the wire."""
    http = np.flatnonzero(a.kind.mask(["http_access", "http_request"]) & (ts != NAT))
    chat = np.zeros(a.n, dtype=bool)
    chat[http] = _contains_chat(detail.take(pa.array(http)))
    # The JSON fields are read only where the raw text could name a chat path.
    rows = http[~chat[http]]
    attrs = a.attrs.take(pa.array(rows))
    rows = rows[true_mask(pc.match_substring_regex(attrs, _CHAT + r"|\\"))]  # or escaped
    if len(rows):
        take = pa.array(rows)
        fields = attr_fields(a.attrs.take(take), ("uri", "path"))
        parts = [pc.fill_null(c, "") for c in (detail.take(take), fields["uri"], fields["path"])]
        target = pc.binary_join_element_wise(*parts, pa.scalar(" ", pa.large_string()))
        chat[rows] = true_mask(pc.match_substring_regex(target, _CHAT))
    ng = np.flatnonzero(chat & a.kind.mask(["http_access"]))
    dur = np.where(np.isnan(a.duration_ms[ng]), 0.0, a.duration_ms[ng])
    spans = [(trace.codes[ng], _minus(ts[ng], _timedelta_ns(dur)), ts[ng])]
    req = np.flatnonzero(chat & a.kind.mask(["http_request"]) & (pairs.codes >= 0))
    resp = np.flatnonzero(a.kind.mask(["http_response"]) & (pairs.codes >= 0))
    if len(req) and len(resp):
        uniq, first = np.unique(pairs.codes[resp], return_index=True)
        end_of = np.full(len(pairs.values), NAT, dtype=np.int64)
        end_of[uniq] = ts[resp[first]]
        spans.append((trace.codes[req], ts[req], end_of[pairs.codes[req]]))
    tr, start, end = (np.concatenate(c) for c in zip(*spans, strict=True))
    ok = (tr >= 0) & (end != NAT)
    return tr[ok], start[ok], end[ok]


def _contains_chat(text: pa.Array) -> np.ndarray:
    """Whether each text contains a chat API path."""
    return true_mask(pc.match_substring_regex(text, _CHAT))


def _end_to_end(
    trace: np.ndarray,
    first: np.ndarray,
    fallback: np.ndarray,
    spans: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> np.ndarray:
    """The chat request around each call (its duration), else the call's first → last event.

    nginx logs a request when it completes (time = end); a log stamped at the start instead
    still names the same request, as a second choice. An access log's second-resolution time
    may fall just before the call's events, hence the slack. Among several candidates the
    latest start wins (then the last seen)."""
    s_tr, s_start, s_end = spans
    if not len(s_tr):
        return fallback
    order = np.lexsort((np.arange(len(s_tr)), s_start, s_tr))
    s_tr, s_start, s_end = s_tr[order], s_start[order], s_end[order]
    calls = np.flatnonzero((trace >= 0) & (first != NAT))
    lo = np.searchsorted(s_tr, trace[calls], side="left")
    hi = np.searchsorted(s_tr, trace[calls], side="right")
    count = hi - lo
    call_of = np.repeat(calls, count)
    span = np.repeat(lo, count) + (
        np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count)
    )
    f, st, en = first[call_of], s_start[span], s_end[span]
    dur = en - st
    as_end = (st <= f) & (en + _SLACK >= f)
    as_start = (en - _SLACK <= f) & (en + dur + _SLACK >= f)
    best = [np.full(len(trace), -1, dtype=np.int64) for _ in range(2)]
    np.maximum.at(best[0], call_of[as_end], span[as_end])
    np.maximum.at(best[1], call_of[as_start], span[as_start])
    chosen = np.where(best[0] >= 0, best[0], best[1])
    has = chosen >= 0
    out = fallback.copy()
    out[has] = _ms(s_end[chosen[has]], s_start[chosen[has]])
    return out


def call_views(
    events: pd.DataFrame,
    a: EventArrays,
    calls: np.ndarray,
    trace: Coded,
    ts: np.ndarray,
    pairs: Coded,
    sla: Sla,
) -> tuple[CallView, ...]:
    """One CallView per call: every non-empty tool_call_id that a call-side event carries,
    and every `tool_call` whose id is empty, ordered by start (then trace and origin)."""
    g = _groups(a, calls, trace)
    rows, grp, n = g.rows, g.group, g.n
    kind = a.kind.codes[rows]
    kinds = {k: i for i, k in enumerate(a.kind.values.to_pylist())}
    t = ts[rows]
    clk = (t != NAT) & ~a.source.mask(UNCLOCKED_SOURCES)[rows]

    def kmin(k: str, times: np.ndarray = t) -> np.ndarray:
        sel = clk & (kind == kinds.get(k, -2)) & (times != NAT)
        return group_min(grp[sel], times[sel], n, _NONE)

    access_start = np.full(len(rows), NAT, dtype=np.int64)
    acc = kind == kinds.get("http_access", -2)
    access_start[acc] = _minus(t[acc], _timedelta_ns(a.duration_ms[rows[acc]]))
    mins = {
        k: kmin(k) for k in {k for ks in PHASE_BOUND_KINDS.values() for k in ks} - {ACCESS_START}
    }
    mins[ACCESS_START] = kmin("http_access", access_start)
    bound: dict[str, np.ndarray] = {}
    for name, ks in PHASE_BOUND_KINDS.items():
        col = np.full(n, _NONE, dtype=np.int64)
        for k in reversed(ks):
            col = np.where(mins[k] != _NONE, mins[k], col)
        bound[name] = np.where(col != _NONE, col, NAT)
    lo = group_min(grp[clk], t[clk], n, _NONE)
    lo = np.where(lo != _NONE, lo, NAT)
    # end to end without a chat request seen: the call's first → last event of a source that
    # observes the round trip (an agent's own log times its tools and its user, not a request)
    rt = clk & ~a.source.mask(SELF_REPORTED_SOURCES)[rows]
    rt_lo = group_min(grp[rt], t[rt], n, _NONE)
    rt_hi = group_max(grp[rt], t[rt], n, NAT)
    count = np.bincount(grp[rt], minlength=n)
    phases = {
        "initiation_ms": _ms(bound["request"], bound["received"]),
        "service_ms": _ms(bound["response"], bound["request"]),
        "injection_ms": _ms(bound["injected"], bound["response"]),
    }
    fallback = np.where(count >= 2, _ms(rt_hi, rt_lo), np.nan)
    first = np.where(bound["received"] != NAT, bound["received"], lo)
    detail = arrow(events["detail"])
    spans = _chat_spans(a, detail, trace, ts, pairs)
    phases["end_to_end_ms"] = _end_to_end(g.trace, first, fallback, spans)
    # the call's first event: its tool_call, then the earliest, then by seq
    isnat = t == NAT
    tc_last = kind != kinds.get("tool_call", -2)
    first_row = rows[first_by(grp, n, [tc_last, isnat, np.where(isnat, 0, t), a.seq[rows]])]
    tool, session = arrow(events["tool"]), arrow(events["session_id"])
    named = {}
    for name, col in (("tool", tool), ("session_id", session)):
        has = true_mask(col.is_valid())[rows]
        at = group_min(grp[has], rows[has], n, _NONE)
        named[name] = col.take(pa.array(at, mask=at == _NONE))
    outcome = np.full(n, "missing", dtype=object)
    for o, k in reversed(OUTCOME_KINDS):
        hit = np.zeros(n, dtype=bool)
        hit[grp[kind == kinds.get(k, -2)]] = True
        outcome[hit] = o
    # a call left without an outcome whose turn the user aborted was cancelled, not lost
    aborted, markers = aborted_positions(events, a)
    per_row = markers_of(rows, aborted, markers)
    marker_of = np.full(n, -1, dtype=np.int64)  # per call, the abort marker's position
    marker_of[grp[per_row >= 0]] = per_row[per_row >= 0]
    user_stopped = (marker_of >= 0) & (outcome == "missing")
    client = client_cancel_rows(rows, grp, n, kind == kinds.get(CLIENT_CANCEL_KIND, -2), ts)
    cancel = cancellation_columns(
        a,
        detail,
        ts,
        user=np.where(user_stopped, marker_of, -1),
        client=np.where(outcome == "cancelled", client, -1),  # a late result wins
    )
    outcome[user_stopped] = "cancelled"
    ids = a.tool_call_id.values.take(pa.array(g.call))
    if pc.any(pc.match_substring(ids, _SEP)).as_py():
        ids = pc.list_element(pc.split_pattern(ids, _SEP, max_splits=1), 0)
    cols = {
        "tool_call_id": ids,
        "tool": named["tool"],
        "trace": trace.values.take(pa.array(g.trace, mask=g.trace < 0)),
        "session_id": named["session_id"],
        "outcome": outcome,
        "origin": a.origin.take(pa.array(first_row)),
        "start": lo,
        "trace_code": g.trace,
        **cancel,
        **phases,
    }
    empty = _empty_id_calls(events, a, trace, ts, (aborted, markers), detail)
    both = {
        k: pa.concat_arrays([v, empty[k]]) if isinstance(v, pa.Array) else np.r_[v, empty[k]]
        for k, v in cols.items()
    }
    return build_views({**both, "trace_ranks": trace.ranks()}, sla)


def _empty_id_calls(
    events: pd.DataFrame,
    a: EventArrays,
    trace: Coded,
    ts: np.ndarray,
    user_aborts: tuple[np.ndarray, np.ndarray],
    detail: pa.Array,
) -> dict[str, Any]:
    """Tool calls sent with an empty id: each is its own call, and nothing can answer it
    (`cancelled` when the user aborted its turn: *user_aborts* holds such calls' positions,
    sorted, and the positions of the markers that aborted them)."""
    raw = arrow(events["tool_call_id"])
    rows = np.flatnonzero(
        a.kind.mask(["tool_call"]) & true_mask(pc.equal(pc.utf8_trim_whitespace(raw), ""))
    )
    take = pa.array(rows)
    marker = markers_of(rows, *user_aborts)
    stopped = marker >= 0
    none = np.full(len(rows), -1, dtype=np.int64)  # no client can withdraw a call without id
    return {
        "tool_call_id": pa.array([""] * len(rows), type=pa.large_string()),
        "tool": arrow(events["tool"]).take(take),
        "trace": trace.text().take(take),
        "session_id": arrow(events["session_id"]).take(take),
        "outcome": np.where(stopped, "cancelled", "missing").astype(object),
        "origin": a.origin.take(take),
        **cancellation_columns(a, detail, ts, user=marker, client=none),
        "start": ts[rows],
        "trace_code": trace.codes[rows],
        **{p: np.full(len(rows), np.nan) for p in PHASES},
    }
