"""Correlation keys and union-find: which events belong to one trace (DESIGN §3 alignment).

Events sharing a `tool_call_id`, a `trace_id` or a `request_id` are one trace; so are events
linked by `X-Original-ID` (the id a retried call was first sent with), by the trace id inside
a W3C `traceparent`, and a pcap response with the request it answers (same TCP stream, n-th
response ↔ n-th request). `session_id` never merges traces: it only lists a session's traces.
A `call_id` a tool service answered with is NOT a key — a wrong one must not glue two traces.
Empty ids are ignored. The union-find runs over the distinct key values with numpy.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.align.arrays import (
    NAT,
    Coded,
    EventArrays,
    encode,
    first_by,
    nonempty,
    true_mask,
)
from toolcall_cli.align.scope import ScopedIds, original_codes
from toolcall_cli.align.union_find import union_find
from toolcall_cli.model.events import WIRE_SOURCES

_TRACEPARENT = re.compile(r"^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$", re.IGNORECASE)


#: Positions in :func:`link_codes`.
_TC, _TR, _TP, _RQ, _PX = (0, 1), 2, 3, (4,), 5

#: The `attrs` fields linking uses.
LINK_ATTRS = ("x_original_id", "traceparent", "stream")


def traceparent_ids(traceparent: pa.Array) -> pa.Array:
    """The trace id inside `attrs.traceparent` (lower-cased), null when absent or malformed."""
    rows = np.flatnonzero(np.asarray(traceparent.is_valid().to_numpy(zero_copy_only=False)))
    ids: list[str | None] = []
    for text in traceparent.take(pa.array(rows)).to_pylist():
        m = _TRACEPARENT.match(text)
        ids.append(m.group(1).lower() if m else None)
    at = np.full(len(traceparent), -1, dtype=np.int64)
    at[rows] = np.arange(len(rows))
    return pa.array(ids, type=pa.large_string()).take(pa.array(at, mask=at < 0))


def pcap_pairs(a: EventArrays, stream: pa.Array) -> Coded:
    """A key shared by a captured request and its response: file, TCP stream, position in stream
    (the n-th request and the n-th response, by seq)."""
    http = a.source.mask(WIRE_SOURCES) & a.kind.mask(["http_request", "http_response"])
    http &= true_mask(stream.is_valid())
    rows = np.flatnonzero(http)
    codes = np.full(a.n, -1, dtype=np.int64)
    if not len(rows):
        return Coded(codes, pa.array([], type=pa.large_string()))
    take = pa.array(rows)
    origin = a.origin.take(take)
    file = pc.struct_field(pc.extract_regex(origin, r"(?s)^(?P<f>.*)#frame="), [0])
    file = pc.if_else(file.is_null(), origin, file)  # the text before the last "#frame="
    strm = stream.take(take)
    # position of each row among the rows of its file, stream and kind, by seq
    f, st = encode(file), encode(strm)
    group = (f.codes * len(st.values) + st.codes) * len(a.kind.values) + a.kind.codes[rows]
    order = np.lexsort((np.arange(len(rows)), a.seq[rows], group))
    g = group[order]
    starts = np.flatnonzero(np.diff(g, prepend=-1) != 0)
    n = np.arange(len(g)) - np.repeat(starts, np.diff(np.r_[starts, len(g)]))
    nth = np.empty(len(g), dtype=np.int64)
    nth[order] = n
    lit = [pa.scalar(t, pa.large_string()) for t in ("px:", "|", "")]
    text = pc.binary_join_element_wise(
        lit[0], file, lit[1], strm, lit[1], pa.array(nth).cast(pa.large_string()), lit[2]
    )
    key = encode(text)
    codes[rows] = key.codes
    return Coded(codes, key.values)


def _joint(base: Coded, extra: pa.Array) -> list[np.ndarray]:
    """Codes of *base* and of the text column *extra* in one space (equal text → equal code;
    null → -1): *extra*'s text found in *base* takes its code, new text codes after them."""
    known = np.asarray(
        pc.index_in(extra, value_set=base.values).fill_null(-1).to_numpy(zero_copy_only=False),
        dtype=np.int64,
    )
    new = encode(pc.if_else(pc.greater_equal(known, 0), pa.scalar(None, extra.type), extra))
    codes = np.where(new.codes >= 0, new.codes + len(base.values), known)
    return [base.codes, codes]


def link_codes(
    a: EventArrays, fields: dict[str, pa.Array], pairs: Coded, scoped: ScopedIds | None = None
) -> list[np.ndarray]:
    """The linking keys of every event as integer codes, one array per key kind (-1 = none):
    tool_call_id, X-Original-ID (the call a retry stands for), trace_id, traceparent,
    request_id, pcap pairing. Codes of different key kinds never collide, except that a
    tool_call_id and an X-Original-ID (or a trace_id and a traceparent id) with equal text
    are one key. With *scoped* (align/scope.py), call ids are its scoped codes."""
    orig = nonempty(fields["x_original_id"])
    tp = nonempty(traceparent_ids(fields["traceparent"]))
    calls = _joint(a.tool_call_id, orig)
    if scoped is not None:
        calls = [scoped.codes.codes, original_codes(scoped, calls[1])]
    spaces = [
        calls,
        _joint(a.trace_id, tp),
        [a.request_id.codes],
        [pairs.codes],
    ]
    out: list[np.ndarray] = []
    shift = 0
    for space in spaces:
        out += [np.where(c >= 0, c + shift, -1) for c in space]
        shift += max((int(c.max()) + 1 for c in space if len(c)), default=0)
    return out


def call_codes(a: EventArrays, pairs: Coded) -> np.ndarray:
    """The call each event belongs to (a code of `a.tool_call_id`): its tool_call_id, or for a
    pcap response without one, the tool_call_id of the request it answers (same pairing key)."""
    tc = a.tool_call_id.codes
    need = (tc < 0) & (pairs.codes >= 0)
    if not need.any():
        return tc
    known = np.flatnonzero((tc >= 0) & (pairs.codes >= 0))
    by_pair = np.full(len(pairs.values), -1, dtype=np.int64)
    uniq, first = np.unique(pairs.codes[known], return_index=True)
    by_pair[uniq] = tc[known[first]]
    out = tc.copy()
    out[need] = by_pair[pairs.codes[need]]
    return out


def components(a: EventArrays, codes: list[np.ndarray]) -> np.ndarray:
    """Connected-group label per event (-1 for an event with no linking key).

    Trace ids, traceparent and the pcap pairing link first. A call id (or X-Original-ID) then
    joins those groups unless they differ in both trace and session: such an id was reused by
    another conversation, it is not the same call. A request id joins groups only while they
    name at most one trace id between them (request ids such as `req-1` get reused).
    Everything runs on integer codes of the distinct key values.
    """
    if a.n == 0:
        return np.full(0, -1, dtype=np.int64)
    sessions = a.session_id.codes
    traces = [codes[_TR], codes[_TP]]
    labels = _label([codes[_TR], codes[_TP], codes[_PX]])
    for idx, need_session_clash in ((_TC, True), (_RQ, False)):
        keys = [codes[i] for i in idx]
        bad = _clashes(labels, keys, traces)
        if need_session_clash:
            bad = np.intersect1d(bad, _clashes(labels, keys, [sessions]))
        ok = [np.where(np.isin(k, bad), -1, k) for k in keys]
        # Group labels and key codes live in separate ranges of one node space.
        shift = int(labels.max()) + 1 if len(labels) else 0
        labels = _label([labels, *(np.where(k >= 0, k + shift, -1) for k in ok)])
    return labels


def _clashes(labels: np.ndarray, keys: list[np.ndarray], attrs: list[np.ndarray]) -> np.ndarray:
    """Key codes whose rows (with the groups they are in) carry more than one attr value."""
    k = np.concatenate(keys)
    g = np.tile(labels, len(keys))
    row = np.tile(np.arange(len(labels)), len(keys))
    ok = k >= 0
    k, g, row = k[ok], g[ok], row[ok]
    if not len(k):
        return np.zeros(0, dtype=np.int64)
    # Only a key spread over several groups (or loose rows) can clash: check just those.
    top = int(k.max()) + 1
    lo = np.full(top, np.iinfo(np.int64).max, dtype=np.int64)
    hi = np.full(top, np.iinfo(np.int64).min, dtype=np.int64)
    np.minimum.at(lo, k, g)
    np.maximum.at(hi, k, g)
    spread = (lo < 0) | (lo != hi)
    sel = spread[k]
    k, g, row = k[sel], g[sel], row[sel]
    if not len(k):
        return np.zeros(0, dtype=np.int64)
    a_all = np.concatenate(attrs)
    a_grp = np.tile(labels, len(attrs))
    has = a_all >= 0
    # the attr values of each group: distinct (group, value), sorted by group
    width = int(a_all.max()) + 1 if len(a_all) else 1
    both = has & (a_grp >= 0)
    packed = np.unique(a_grp[both] * width + a_all[both])
    gv = (packed // width, packed % width)
    named_k: list[np.ndarray] = []
    named_a: list[np.ndarray] = []
    in_group = g >= 0
    first = np.searchsorted(gv[0], g[in_group], side="left")
    count = np.searchsorted(gv[0], g[in_group], side="right") - first
    named_k.append(np.repeat(k[in_group], count))
    at = (
        np.repeat(first, count)
        + np.arange(count.sum())
        - np.repeat(np.cumsum(count) - count, count)
    )
    named_a.append(gv[1][at])
    # and each row's own values
    for col in attrs:
        own = col[row] >= 0
        named_k.append(k[own])
        named_a.append(col[row[own]])
    pairs = np.unique(np.concatenate(named_k) * width + np.concatenate(named_a))
    keys_, counts = np.unique(pairs // width, return_counts=True)
    return keys_[counts > 1].astype(np.int64)


def label_rows(cols: list[np.ndarray]) -> np.ndarray:
    """Rows sharing a code in any of *cols* (integer codes, -1 none; each column its own code
    space) share a label; -1 for a row with no code."""
    shifted, shift = [], 0
    for c in cols:
        shifted.append(np.where(c >= 0, c + shift, -1))
        shift += int(c.max()) + 1 if len(c) and c.max() >= 0 else 0
    return _label(shifted)


def _label(cols: list[np.ndarray]) -> np.ndarray:
    """Union-find over integer key codes: rows sharing any code share a label (-1: no key)."""
    n = len(cols[0])
    cols = [c for c in cols if n and c.max() >= 0]  # key kinds no row has add nothing
    if not cols:
        return np.full(n, -1, dtype=np.int64)
    # The first key of each row is its anchor; every other key of the row hooks onto it.
    anchor = cols[0]
    for c in cols[1:]:
        anchor = np.where(anchor >= 0, anchor, c)
    if len(cols) == 1:  # no links: each key is its own group
        return anchor.astype(np.int64, copy=True)
    u = np.concatenate([anchor[c >= 0] for c in cols[1:]])
    v = np.concatenate([c[c >= 0] for c in cols[1:]])
    top = max(int(anchor.max()), int(v.max()) if len(v) else -1) + 1
    roots = union_find(u, v, top)
    return np.where(anchor >= 0, roots[np.maximum(anchor, 0)], -1)


def trace_keys(a: EventArrays, groups: np.ndarray) -> Coded:
    """The `trace` column: per group its (most common) trace_id, else first tool_call_id, else
    the event's session_id; events without any key take their session_id."""
    n = a.n
    ngroups = int(groups.max()) + 1 if n else 0
    tr, tc, sess = a.trace_id, a.tool_call_id, a.session_id
    if not ngroups:
        return sess
    # where each group's name comes from: (0 trace / 1 call / 2 session, code); -1 unnamed
    src = np.full(ngroups, -1, dtype=np.int64)
    code = np.full(ngroups, -1, dtype=np.int64)
    with_tr = (groups >= 0) & (tr.codes >= 0)
    if with_tr.any():
        ntr = len(tr.values)
        which, pair = pd.factorize(groups[with_tr] * ntr + tr.codes[with_tr])  # hashing, no sort
        counts = np.bincount(which, minlength=len(pair))
        pair = np.asarray(pair)
        g, v = pair // ntr, pair % ntr
        best = np.lexsort((tr.ranks()[v], -counts, g))
        g, v = g[best], v[best]
        first = np.r_[True, g[1:] != g[:-1]]
        src[g[first]], code[g[first]] = 0, v[first]
    isnat = a.ts == NAT
    by_time = [isnat, np.where(isnat, 0, a.ts), a.seq]  # the first event by (ts, seq)
    for kind, col in ((1, tc), (2, sess)):
        open_ = src[np.maximum(groups, 0)] < 0
        cand = np.where((groups >= 0) & open_ & (col.codes >= 0), groups, -1)
        at = first_by(cand, ngroups, by_time)
        named = at >= 0
        src[named], code[named] = kind, col.codes[at[named]]
    # one text space: trace ids, then call ids, then session ids (equal text: one code)
    base = np.array([0, len(tr.values), len(tr.values) + len(tc.values)], dtype=np.int64)
    space = encode(pa.concat_arrays([c.values for c in (tr, tc, sess)]))
    gi = np.maximum(groups, 0)
    row_code = np.where(sess.codes >= 0, sess.codes + base[2], -1)
    has = (groups >= 0) & (src[gi] >= 0)
    row_code = np.where(has, base[np.maximum(src[gi], 0)] + code[gi], row_code)
    return Coded(np.where(row_code >= 0, np.append(space.codes, -1)[row_code], -1), space.values)
