"""The event table as flat arrays for alignment: integer codes instead of text, int64 times.

Alignment works on a million events, so every step reads these arrays (computed once)
instead of grouping, merging and mapping text columns. A :class:`Coded` column holds one
integer code per row (-1 = null) and the distinct values; equal text gives equal codes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

#: int64 value of NaT.
NAT = np.iinfo(np.int64).min


def arrow(col: pd.Series | pa.Array | pa.ChunkedArray) -> pa.Array:
    """A text column as one Arrow large_string array (zero-copy for Arrow-backed columns)."""
    if isinstance(col, pd.Series):
        arr = col.array
        col = (
            arr.__arrow_array__()
            if hasattr(arr, "__arrow_array__")
            else pa.array(col.astype(object).where(col.notna(), None), from_pandas=True)
        )
    if isinstance(col, pa.ChunkedArray):  # one chunk: no copy
        col = col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()
    if not pa.types.is_large_string(col.type):
        col = col.cast(pa.large_string())
    return col


@dataclass(frozen=True, slots=True)
class Coded:
    """One integer code per row (-1 = null) and the distinct values the codes index."""

    codes: np.ndarray
    values: pa.Array

    def mask(self, names: Iterable[str]) -> np.ndarray:
        """Rows whose value is one of *names*."""
        table = np.zeros(len(self.values) + 1, dtype=bool)  # the extra slot: code -1 (null)
        wanted = set(names)
        for i, v in enumerate(self.values.to_pylist()):
            table[i] = v in wanted
        return table[self.codes]

    def lookup(self, mapping: Mapping[str, float], default: float) -> np.ndarray:
        """Per row the value *mapping* gives its text (*default* for null or unmapped)."""
        table = np.full(len(self.values) + 1, default, dtype=float)
        for i, v in enumerate(self.values.to_pylist()):
            table[i] = mapping.get(v, default)
        return table[self.codes]

    def ranks(self) -> np.ndarray:
        """Per value its position in text order (for sorting by the text)."""
        order = np.asarray(pc.array_sort_indices(self.values), dtype=np.int64)
        out = np.empty(len(order), dtype=np.int64)
        out[order] = np.arange(len(order))
        return out

    def text(self, rows: np.ndarray | None = None) -> pa.Array:
        """The text of each row (or of the code array *rows*), null where the code is -1."""
        codes = self.codes if rows is None else rows
        return self.values.take(pa.array(codes, mask=codes < 0))


def encode(arr: pa.Array) -> Coded:
    """Dictionary-encode a string array."""
    enc = pc.dictionary_encode(arr)
    codes = np.asarray(enc.indices.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
    return Coded(codes, enc.dictionary)


def nonempty(arr: pa.Array, *, strip: bool = True) -> pa.Array:
    """Text stripped of surrounding whitespace (kept as is with strip=False); blank → null."""
    trimmed = pc.utf8_trim_whitespace(arr)
    blank = pc.equal(trimmed, "")
    return pc.if_else(blank, pa.scalar(None, arr.type), trimmed if strip else arr)


def timestamps(col: pd.Series) -> np.ndarray:
    """A UTC datetime column as int64 nanoseconds (NAT for null)."""
    return np.asarray(pd.DatetimeIndex(col).as_unit("ns").asi8, dtype=np.int64)


def to_datetime(ns: np.ndarray) -> pd.Series:
    """int64 nanoseconds (NAT = null) as a UTC datetime column."""
    return pd.Series(pd.DatetimeIndex(ns.view("M8[ns]")).tz_localize("UTC"))


def attr_fields(attrs: pa.Array, names: Iterable[str]) -> dict[str, pa.Array]:
    """Fields of the `attrs` JSON text as text (null where absent, or an object or list).

    Only rows whose text names a field are parsed, each once however many fields it names.
    """
    names = list(names)
    # one pass over all the text; then each name only over the rows that named one
    either = "|".join(re.escape(n) for n in names)
    any_hit = true_mask(pc.match_substring_regex(attrs, f'"(?:{either})"'))
    rows = np.flatnonzero(any_hit)
    texts = attrs.take(pa.array(rows))
    hits = {name: true_mask(pc.match_substring(texts, f'"{name}"')) for name in names}
    parsed: list[object] = []
    for text in texts.to_pylist():
        try:
            parsed.append(orjson.loads(text))
        except orjson.JSONDecodeError:
            parsed.append(None)
    out: dict[str, pa.Array] = {}
    for name in names:
        sel = hits[name]
        vals = []
        for obj in (o for o, s in zip(parsed, sel, strict=True) if s):
            v = obj.get(name) if isinstance(obj, dict) else None
            vals.append(None if v is None or isinstance(v, dict | list) else str(v))
        at = np.full(len(attrs), -1, dtype=np.int64)
        at[rows[sel]] = np.arange(len(vals))
        out[name] = pa.array(vals, type=pa.large_string()).take(pa.array(at, mask=at < 0))
    return out


def true_mask(mask: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A boolean Arrow result as a numpy mask (null = False)."""
    return np.asarray(pc.fill_null(mask, False).to_numpy(zero_copy_only=False), dtype=bool)


def group_min(groups: np.ndarray, values: np.ndarray, n: int, empty: int) -> np.ndarray:
    """Per group (0..n-1) the smallest of *values* (int64), *empty* where a group has none."""
    out = np.full(n, empty, dtype=np.int64)
    if len(groups):
        np.minimum.at(out, groups, values)
    return out


def group_max(groups: np.ndarray, values: np.ndarray, n: int, empty: int) -> np.ndarray:
    """Per group (0..n-1) the largest of *values* (int64), *empty* where a group has none."""
    out = np.full(n, empty, dtype=np.int64)
    if len(groups):
        np.maximum.at(out, groups, values)
    return out


def first_by(groups: np.ndarray, n: int, keys: Sequence[np.ndarray]) -> np.ndarray:
    """Per group (0..n-1) the row that sorts first by *keys* (int arrays, most significant
    first), then by position; -1 for a group without rows. *groups* holds a group per row
    (-1: none). A lexicographic minimum by successive filtering: no sort."""
    top = np.iinfo(np.int64).max
    pos = np.flatnonzero(groups >= 0)
    for key in keys:
        g, v = groups[pos], key[pos].astype(np.int64)
        pos = pos[v == group_min(g, v, n, top)[g]]
    first = group_min(groups[pos], pos, n, top)
    return np.where(first == top, -1, first)


@dataclass(frozen=True, slots=True)
class EventArrays:
    """The columns alignment reads, once: times, small categoricals and the id columns.

    Id columns are stripped and blank ids are null, as every linking rule wants them."""

    n: int
    ts: np.ndarray  # int64 ns, NAT for null
    seq: np.ndarray
    duration_ms: np.ndarray  # float, NaN for null
    source: Coded
    kind: Coded
    tool_call_id: Coded
    trace_id: Coded
    request_id: Coded
    request_id_raw: Coded  # blank = null, but not stripped
    session_id: Coded
    session_id_raw: Coded  # "" = null, else as is
    origin: pa.Array
    attrs: pa.Array


def _ids(text: pa.Array, *, check: bool = False) -> tuple[Coded, bool]:
    """An id column stripped, blank = null, encoded; with *check*, also whether stripping
    changed nothing (then the column as written has the same codes)."""
    trimmed = pc.utf8_trim_whitespace(text)
    unchanged = check and pc.all(pc.equal(trimmed, text)).as_py() is not False
    return encode(pc.if_else(pc.equal(trimmed, ""), pa.scalar(None, text.type), trimmed)), unchanged


def _blank_null(text: pa.Array) -> pa.Array:
    return pc.if_else(pc.equal(text, ""), pa.scalar(None, text.type), text)


def event_arrays(events: pd.DataFrame) -> EventArrays:
    """The arrays of *events* (an event table)."""
    rq_text, sess_text = arrow(events["request_id"]), arrow(events["session_id"])
    (rq, rq_same), (sess, sess_same) = _ids(rq_text, check=True), _ids(sess_text, check=True)
    # the session as written (only "" is no session), for listing each session's traces
    sess_raw = sess if sess_same else encode(_blank_null(sess_text))
    return EventArrays(
        n=len(events),
        ts=timestamps(events["ts"]),
        seq=np.asarray(events["seq"].to_numpy(dtype=np.int64)),
        duration_ms=np.asarray(events["duration_ms"].to_numpy(dtype=float, na_value=np.nan)),
        source=encode(arrow(events["source"])),
        kind=encode(arrow(events["kind"])),
        tool_call_id=_ids(arrow(events["tool_call_id"]))[0],
        trace_id=_ids(arrow(events["trace_id"]))[0],
        request_id=rq,
        request_id_raw=rq if rq_same else encode(nonempty(rq_text, strip=False)),
        session_id=sess,
        session_id_raw=sess_raw,
        origin=arrow(events["origin"]),
        attrs=arrow(events["attrs"]),
    )
