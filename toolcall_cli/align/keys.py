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
from typing import Any

import numpy as np
import orjson
import pandas as pd

from toolcall_cli.core.events import STR

_TRACEPARENT = re.compile(r"^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$", re.IGNORECASE)


def attr(events: pd.DataFrame, name: str) -> pd.Series:
    """One field of the `attrs` JSON as text (null where absent); parses only rows naming it."""
    out = pd.Series(pd.array([None] * len(events), dtype=STR), index=events.index)
    attrs = events["attrs"]
    hit = attrs.str.contains(f'"{name}"', regex=False).fillna(False).astype(bool)
    if not hit.any():
        return out
    vals: list[str | None] = []
    for text in attrs[hit]:
        try:
            obj = orjson.loads(text)
        except orjson.JSONDecodeError:
            vals.append(None)
            continue
        v = obj.get(name) if isinstance(obj, dict) else None
        vals.append(None if v is None or isinstance(v, dict | list) else str(v))
    out[hit] = pd.array(vals, dtype=STR)
    return out


def _nonempty(s: pd.Series) -> pd.Series:
    s = s.astype(STR).str.strip()
    return s.where(s.notna() & (s != ""))


def traceparent_ids(events: pd.DataFrame) -> pd.Series:
    """The trace id inside `attrs.traceparent` (lower-cased), null when absent or malformed."""
    tp = attr(events, "traceparent")
    return tp.str.extract(_TRACEPARENT, expand=False).str.lower().astype(STR)


def pcap_pairs(events: pd.DataFrame) -> pd.Series:
    """A key shared by a pcap request and its response: file, TCP stream, position in stream."""
    out = pd.Series(pd.array([None] * len(events), dtype=STR), index=events.index)
    http = events["source"].eq("pcap") & events["kind"].isin(["http_request", "http_response"])
    if not http.any():
        return out
    sub = events.loc[http, ["origin", "kind", "seq"]].copy()
    sub["stream"] = attr(events.loc[http], "stream")
    sub = sub[sub["stream"].notna()]
    if sub.empty:
        return out
    sub["file"] = sub["origin"].str.rsplit("#frame=", n=1).str[0]
    sub = sub.sort_values(["file", "stream", "seq"], kind="stable")
    sub["n"] = sub.groupby(["file", "stream", "kind"], observed=True).cumcount().astype(str)
    out[sub.index] = ("px:" + sub["file"] + "|" + sub["stream"] + "|" + sub["n"]).astype(STR)
    return out


#: Positions in :func:`key_columns`.
_TC, _TR, _TP, _RQ, _PX = (0, 1), 2, 3, (4,), 5


def key_columns(events: pd.DataFrame) -> list[pd.Series]:
    """The namespaced linking keys of every event (one Series per key kind, null = none)."""
    tc = _nonempty(events["tool_call_id"])
    orig = _nonempty(attr(events, "x_original_id"))
    tr = _nonempty(events["trace_id"])
    tp = _nonempty(traceparent_ids(events))
    rq = _nonempty(events["request_id"])
    return [
        "tc:" + tc,
        "tc:" + orig,  # X-Original-ID names the call a retry stands for
        "tr:" + tr,
        "tr:" + tp,
        "rq:" + rq,
        pcap_pairs(events),
    ]


def call_keys(events: pd.DataFrame, pairs: pd.Series) -> pd.Series:
    """The call each event belongs to: its tool_call_id, or for a pcap response without one,
    the tool_call_id of the request it answers (same pairing key)."""
    tc = _nonempty(events["tool_call_id"])
    need = tc.isna() & pairs.notna()
    if need.any():
        known = pd.DataFrame(
            {"p": pairs[tc.notna() & pairs.notna()], "c": tc[tc.notna() & pairs.notna()]}
        )
        by_pair = known.drop_duplicates("p").set_index("p")["c"]
        tc = tc.copy()
        tc[need] = pairs[need].map(by_pair).astype(STR)
    return tc.astype(STR)


def _codes(cols: list[pd.Series]) -> list[np.ndarray]:
    """Integer codes of key columns in one shared space (equal text → equal code; null → -1)."""
    n = len(cols[0]) if cols else 0
    if not n:
        return [np.full(0, -1, dtype=np.int64) for _ in cols]
    joint = pd.concat([c.reset_index(drop=True) for c in cols], ignore_index=True)
    codes, _ = pd.factorize(joint, use_na_sentinel=True)
    codes = np.asarray(codes, dtype=np.int64)
    return [codes[i * n : (i + 1) * n] for i in range(len(cols))]


def components(events: pd.DataFrame, cols: list[pd.Series] | None = None) -> np.ndarray:
    """Connected-group label per event (-1 for an event with no linking key).

    Trace ids, traceparent and the pcap pairing link first. A call id (or X-Original-ID) then
    joins those groups unless they differ in both trace and session: such an id was reused by
    another conversation, it is not the same call. A request id joins groups only while they
    name at most one trace id between them (request ids such as `req-1` get reused).
    Everything runs on integer codes of the distinct key values.
    """
    n = len(events)
    cols = key_columns(events) if cols is None else cols
    if n == 0:
        return np.full(0, -1, dtype=np.int64)
    codes = _codes(cols)
    (sessions,) = _codes([_nonempty(events["session_id"])])
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
    rows = np.arange(len(labels))
    key_rows = pd.DataFrame(
        {
            "k": np.concatenate(keys),
            "g": np.tile(labels, len(keys)),
            "row": np.tile(rows, len(keys)),
        }
    )
    key_rows = key_rows[key_rows["k"] >= 0]
    # Only a key spread over several groups (or loose rows) can clash: check just those.
    spread = key_rows.groupby("k")["g"].agg(["nunique", "min"])
    spread = spread[(spread["nunique"] > 1) | (spread["min"] < 0)]
    key_rows = key_rows[key_rows["k"].isin(spread.index)]
    if key_rows.empty:
        return np.zeros(0, dtype=np.int64)
    own = pd.DataFrame(
        {
            "g": np.tile(labels, len(attrs)),
            "row": np.tile(rows, len(attrs)),
            "a": np.concatenate(attrs),
        }
    )
    own = own[own["a"] >= 0]
    by_group = own[own["g"] >= 0][["g", "a"]].drop_duplicates()
    named = pd.concat(
        [
            key_rows[key_rows["g"] >= 0][["k", "g"]].merge(by_group, on="g")[["k", "a"]],
            key_rows[["k", "row"]].merge(own[["row", "a"]], on="row")[["k", "a"]],
        ]
    )
    counts = named.drop_duplicates().groupby("k")["a"].size()
    return counts[counts > 1].index.to_numpy(dtype=np.int64)


def _label(cols: list[np.ndarray]) -> np.ndarray:
    """Union-find over integer key codes: rows sharing any code share a label (-1: no key)."""
    n = len(cols[0])
    keys = np.concatenate(cols)
    rows = np.tile(np.arange(n), len(cols))
    has = keys >= 0
    keys, rows = keys[has], rows[has]
    out = np.full(n, -1, dtype=np.int64)
    if not len(keys):
        return out
    order = np.argsort(rows, kind="stable")
    rows, keys = rows[order], keys[order]
    # The first key of each row is its anchor; every other key of the row hooks onto it.
    uniq_rows, first_at = np.unique(rows, return_index=True)
    anchors = keys[first_at]
    anchor_of_entry = anchors[np.searchsorted(uniq_rows, rows)]
    roots = _union_find(anchor_of_entry, keys, int(keys.max()) + 1)
    out[uniq_rows] = roots[anchors]
    return out


def _union_find(u: np.ndarray, v: np.ndarray, n: int) -> np.ndarray:
    """Root (smallest member) of each node's component: hook roots to the smaller one, compress."""
    labels = np.arange(n, dtype=np.int64)
    mask = u != v
    u, v = u[mask], v[mask]
    while True:
        lu, lv = labels[u], labels[v]
        lo = np.minimum(lu, lv)
        new = labels.copy()
        np.minimum.at(new, lu, lo)
        np.minimum.at(new, lv, lo)
        while True:  # pointer jumping until every node points at a root
            jumped = new[new]
            if np.array_equal(jumped, new):
                break
            new = jumped
        if np.array_equal(new, labels):
            return labels
        labels = new


def trace_keys(events: pd.DataFrame, groups: np.ndarray) -> pd.Series:
    """The `trace` column: per group its (most common) trace_id, else first tool_call_id, else
    the event's session_id; events without any key take their session_id."""
    tr = _nonempty(events["trace_id"])
    tc = _nonempty(events["tool_call_id"])
    g = pd.Series(groups, index=events.index)
    keyed = g >= 0
    name: dict[Any, str] = {}
    with_tr = pd.DataFrame({"g": g[keyed & tr.notna()], "v": tr[keyed & tr.notna()]})
    if not with_tr.empty:
        counts = with_tr.groupby(["g", "v"], observed=True).size().reset_index(name="n")
        counts = counts.sort_values(["g", "n", "v"], ascending=[True, False, True], kind="stable")
        name.update(counts.drop_duplicates("g").set_index("g")["v"].astype(str).to_dict())
    order = events.sort_values(["ts", "seq"], kind="stable", na_position="last").index
    with_tc = pd.DataFrame({"g": g[order], "v": tc[order]})
    with_tc = with_tc[(with_tc["g"] >= 0) & with_tc["v"].notna() & ~with_tc["g"].isin(list(name))]
    if not with_tc.empty:
        name.update(with_tc.drop_duplicates("g").set_index("g")["v"].astype(str).to_dict())
    sess = _nonempty(events["session_id"])
    with_s = pd.DataFrame({"g": g[order], "v": sess[order]})
    with_s = with_s[(with_s["g"] >= 0) & with_s["v"].notna() & ~with_s["g"].isin(list(name))]
    if not with_s.empty:
        name.update(with_s.drop_duplicates("g").set_index("g")["v"].astype(str).to_dict())
    out = g.map(name).astype(STR)
    return out.fillna(sess).astype(STR)
