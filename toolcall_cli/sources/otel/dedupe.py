"""The same span delivered in several files (JSON and protobuf sinks of one collector, a
retrying exporter writing two files) is one span: later deliveries' rows are dropped.

Within a file `Batch.dedupe` already keeps the first delivery; this is the cross-file step:
`drop_redelivered` where the files' tables are joined (diagnose on PATHs), `Redeliveries`
file by file as `toolcall ingest` writes each file to the store before reading the next (it
remembers 8 bytes per row, a hash, not the rows). The conversation recorded twice (span
attributes and the per-message log events of the same chat span) is the same case: both
carry the span id.
Rows are matched on what the span said (trace, span, kind, call id, tool, arguments, detail),
so two different rows of one span both stay. Each row's key is one 64-bit hash built column
by column (each distinct text hashed once), so a million rows cost array operations, not a
million Python tuples.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.model.origins import files_of
from toolcall_cli.sources.otel.hexkeys import quoted_words
from toolcall_cli.sources.otel.rows import SOURCE

_KEY: Final = ("trace_id", "kind", "tool_call_id", "tool", "args", "detail")
_NULL: Final = np.uint64(0x9E3779B97F4A7C15)  # the hash of an absent value


def drop_redelivered(events: pd.DataFrame) -> pd.DataFrame:
    """*events* without the otel rows a file earlier in the table already delivered."""
    mine = (events["source"] == SOURCE).fillna(False).to_numpy()
    if not mine.any():
        return events
    sub = events.loc[mine]
    file = files_of(sub["origin"])
    said, has_span = _said(sub)
    # occurrence number of each row within its (file, key): the n-th row of a span in a later
    # file is a repeat when an earlier file already had an n-th identical row
    file_no = pd.factorize(file)[0]
    n = pd.Series(said).groupby([file_no, said], sort=False).cumcount().to_numpy(np.uint64)
    key = pd.Series(_mix(said, n), index=sub.index)
    files = pd.Series(file_no, index=sub.index)
    repeat = has_span & (files != files.groupby(key, sort=False).transform("first")).to_numpy()
    if not repeat.any():
        return events
    # a delivery that knew the session (spans) lends it to the kept one that did not (logs)
    known = sub["session_id"].groupby(key, sort=False).transform("first")
    out = events.copy()
    fill = has_span & sub["session_id"].isna().to_numpy() & known.notna().to_numpy()
    out.loc[sub.index[fill], "session_id"] = known[fill]
    drop = np.zeros(len(events), dtype=bool)
    drop[np.flatnonzero(mine)[repeat]] = True
    return out.loc[~drop].reset_index(drop=True)


def _said(sub: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(hash of what each row of a span said — `_KEY` columns and the span id —, whether the
    row names its span). Chunk by chunk: joining a million-row text column would copy it."""
    found = [quoted_words(ch, '"span_id":"') for ch in _chunks(sub["attrs"])]
    span = np.concatenate([w for w, _ in found]) if found else np.empty(0, np.uint64)
    has_span = np.concatenate([ok for _, ok in found]) if found else np.empty(0, bool)
    out = np.where(has_span, span, _NULL)
    for name in _KEY:
        hashed = [_hashed(ch) for ch in _chunks(sub[name])]
        out = _mix(out, np.concatenate(hashed) if hashed else np.empty(0, np.uint64))
    return out, has_span


def _chunks(col: pd.Series) -> list[pa.Array]:
    """The column's Arrow chunks as large strings (no copy when they already are)."""
    arr = pa.array(col.astype("string"), from_pandas=True)
    chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
    return [ch if ch.type == pa.large_string() else ch.cast(pa.large_string()) for ch in chunks]


def _hashed(values: pa.Array) -> np.ndarray:
    """One uint64 per value (each distinct text hashed once; nulls hash to `_NULL`)."""
    enc = pc.dictionary_encode(values)
    distinct = enc.dictionary.to_numpy(zero_copy_only=False).astype(object)
    table = np.append(pd.util.hash_array(distinct, categorize=False), _NULL)
    codes = enc.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
    return table[codes]  # -1 (null) takes the last entry


def _mix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """An order-dependent combination of two hash columns (splitmix64's finaliser)."""
    with np.errstate(over="ignore"):
        x = (a * np.uint64(0x100000001B3)) ^ (b + _NULL)
        x ^= x >> np.uint64(30)
        x *= np.uint64(0xBF58476D1CE4E5B9)
        x ^= x >> np.uint64(27)
        x *= np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


@dataclass
class Redeliveries:
    """The otel rows earlier files of one ingest delivered, as hashes; `drop` removes a later
    file's repeats. (The session a repeat knows cannot be lent to a row already written; the
    trace id still joins them.)"""

    seen: np.ndarray = field(default_factory=lambda: np.empty(0, np.uint64))
    #: False when no later file can come (one input file): nothing is remembered, and a
    #: million rows are not hashed for a comparison that never happens
    remember: bool = True

    def drop(self, frame: pd.DataFrame) -> pd.DataFrame:
        """*frame* (one file's events) without the otel rows an earlier file delivered."""
        if not self.remember and not self.seen.size:
            return frame
        mine = (frame["source"] == SOURCE).fillna(False).to_numpy()
        if not mine.any():
            return frame
        # only the key columns, and no copy at all when every row is ours (a large trace file)
        said, has_span = _said(frame if mine.all() else frame.loc[mine, [*_KEY, "attrs"]])
        said = said[has_span]
        if not said.size:
            return frame
        hashes = _mix(said, _occurrence(said))
        repeat = _known(hashes, self.seen)
        both = np.sort(np.concatenate([self.seen, hashes]))  # sorted: numpy's hash-based
        self.seen = both[np.r_[True, both[1:] != both[:-1]]]  # unique/union1d is slower
        if not repeat.any():
            return frame
        drop = np.zeros(len(frame), dtype=bool)
        drop[np.flatnonzero(mine)[has_span][repeat]] = True
        return frame.loc[~drop].reset_index(drop=True)


def _known(keys: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """Which *keys* are in *seen* (sorted, distinct): a binary search each."""
    if not seen.size:
        return np.zeros(len(keys), dtype=bool)
    at = np.minimum(np.searchsorted(seen, keys), seen.size - 1)
    return seen[at] == keys


def _occurrence(keys: np.ndarray) -> np.ndarray:
    """For each key, how many equal keys come before it (0 for the first)."""
    order = np.argsort(keys, kind="stable")
    ranked = keys[order]
    start = np.r_[True, ranked[1:] != ranked[:-1]]
    run_start = np.maximum.accumulate(np.where(start, np.arange(len(keys)), 0))
    out = np.empty(len(keys), np.uint64)
    out[order] = (np.arange(len(keys)) - run_start).astype(np.uint64)
    return out
