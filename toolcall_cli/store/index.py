"""The id index of a store file: which row groups hold each trace, call, request and session id.

Ingest writes it beside each event file as `<key>.index`, a small Parquet file with one row
per distinct (id, row group) pair, sorted by id (`<column>\\x1f<value>`) and cut into chunks
whose first ids ("fences") are kept in the file's metadata. A one-trace read looks its ids up
there, reads the one chunk each id can be in, and opens only the event row groups it names,
instead of scanning the id columns of every row.

The id-less pcap responses (they join their request by TCP stream) are indexed by capture: the
metadata maps each capture path (the origin before `#frame=`) to the row groups holding them.

An index answers a superset: every row group holding a row with that id, never fewer. The
reader filters the rows itself, so a lookup can only cost reads, never events. The index names
its event file by a random token (also written into the event file's metadata), its size, rows
and row groups; an index that does not match (an older toolcall re-ingested the input, a file
was rewritten by hand) is ignored and the reader scans, so a stale index cannot hide events.
"""

from __future__ import annotations

import bisect
import secrets
from collections.abc import Iterable
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from toolcall_cli.errors import InputError
from toolcall_cli.model.events import WIRE_SOURCES

#: The id columns indexed, so looked up without a scan.
INDEXED = ("trace_id", "tool_call_id", "request_id", "session_id")
SUFFIX = ".index"  # `<key>.index` beside `<key>.parquet`
META = b"toolcall.index"  # metadata key, in the event file (token) and in the index (JSON)
INDEX_VERSION = 1
CHUNK = 4_096  # index rows per chunk: one id lookup reads one chunk (rarely two)
_SEP = "\x1f"
_FRAME = "#frame="


def new_token() -> str:
    """A fresh token naming one written event file."""
    return secrets.token_hex(8)


def with_token(table: pa.Table, token: str) -> pa.Table:
    """*table* carrying *token* in its schema metadata (so in the Parquet file written from it)."""
    meta = dict(table.schema.metadata or {})
    meta[META] = token.encode()
    return table.replace_schema_metadata(meta)


def _key(col: str, value: str) -> str:
    return f"{col}{_SEP}{value}"


def _captures(table: pa.Table, groups: pa.Array) -> dict[str, list[int]]:
    """Capture path → row groups of the id-less responses captured on the wire."""
    mask = pc.and_kleene(
        pc.and_kleene(
            pc.is_in(table["source"], value_set=pa.array(WIRE_SOURCES)),
            pc.equal(table["kind"], "http_response"),
        ),
        pc.is_null(table["tool_call_id"]),
    )
    sub = pa.table({"origin": table["origin"], "group": groups}).filter(mask)
    if not sub.num_rows:
        return {}
    # the capture is the origin before its last `#frame=` (as `str.rsplit(_FRAME, 1)[0]`)
    cap = pc.replace_substring_regex(
        sub["origin"], pattern=f"(?s)^(.*){_FRAME}.*$", replacement=r"\1"
    )
    pairs = pa.table({"cap": cap, "group": sub["group"]}).group_by(["cap", "group"]).aggregate([])
    out: dict[str, list[int]] = {}
    for name, group in zip(pairs["cap"].to_pylist(), pairs["group"].to_pylist(), strict=True):
        out.setdefault(str(name), []).append(int(group))
    return {k: sorted(v) for k, v in sorted(out.items())}


def _entries(column: pa.ChunkedArray, groups: np.ndarray, n_groups: int, col: str) -> pa.Table:
    """The distinct (key, group) pairs of one id column, sorted; numeric work on dictionary
    codes ranked by value, so strings are only touched once per distinct value."""
    enc = pc.dictionary_encode(column.combine_chunks())
    valid = pc.is_valid(enc).to_numpy(zero_copy_only=False)
    rank = np.empty(len(enc.dictionary), dtype=np.int64)
    order = pc.sort_indices(enc.dictionary).to_numpy()
    rank[order] = np.arange(len(order))
    codes = enc.indices.to_numpy(zero_copy_only=False)[valid].astype(np.int64)
    pairs = np.sort(rank[codes] * n_groups + groups[valid])
    pairs = pairs[np.r_[True, pairs[1:] != pairs[:-1]]] if len(pairs) else pairs
    values = enc.dictionary.cast(pa.large_string()).take(pa.array(order[pairs // n_groups]))
    prefix = pa.scalar(f"{col}{_SEP}", pa.large_string())
    keys = pc.binary_join_element_wise(prefix, values, pa.scalar("", pa.large_string()))
    return pa.table({"key": keys, "group": pa.array((pairs % n_groups).astype(np.int32))})


def build(table: pa.Table, group_rows: list[int], *, token: str, data_size: int) -> bytes:
    """The index (Parquet bytes) of *table* as written in row groups of *group_rows* rows."""
    n_groups = max(len(group_rows), 1)
    groups = np.repeat(np.arange(len(group_rows), dtype=np.int64), group_rows)
    # keys sort by column name first (no column name is a prefix of another)
    parts = [_entries(table[col], groups, n_groups, col) for col in sorted(INDEXED)]
    index = pa.concat_tables(parts).combine_chunks()
    fences = index["key"].take(np.arange(0, index.num_rows, CHUNK)).to_pylist()
    meta = {
        "version": INDEX_VERSION,
        "token": token,
        "data_size": data_size,
        "rows": table.num_rows,
        "row_groups": len(group_rows),
        "fences": fences,
        "captures": _captures(table, pa.array(groups)),
    }
    index = index.replace_schema_metadata({META: orjson.dumps(meta)})
    sink = pa.BufferOutputStream()
    pq.write_table(index, sink, compression="zstd", row_group_size=CHUNK)
    return bytes(sink.getvalue().to_pybytes())


def _fences_ok(fences: Any) -> bool:
    """Fences are the sorted first keys of the chunks; anything else cannot be searched."""
    return (
        isinstance(fences, list)
        and all(isinstance(f, str) for f in fences)
        and all(a <= b for a, b in pairwise(fences))
    )


def _captures_ok(captures: Any) -> bool:
    return isinstance(captures, dict) and all(
        isinstance(groups, list) and all(isinstance(g, int) for g in groups)
        for groups in captures.values()
    )


class IdIndex:
    """An opened, validated index of one event file; lookups give row group numbers."""

    def __init__(self, path: Path, meta: dict[str, Any]) -> None:
        self.path = path
        self._fences: list[str] = list(meta["fences"])
        self._captures: dict[str, list[int]] = dict(meta["captures"])
        self._chunks: dict[int, pa.Table] = {}

    @classmethod
    def open(cls, data: Path, data_file: pq.ParquetFile) -> IdIndex | None:
        """The index of event file *data*, or None when there is none or it does not match."""
        path = data.with_suffix(SUFFIX)
        try:
            token = (data_file.schema_arrow.metadata or {}).get(META)
            if token is None or not path.exists():
                return None
            meta = orjson.loads((pq.read_schema(path).metadata or {})[META])
            md = data_file.metadata
            ok = (
                isinstance(meta, dict)
                and meta.get("version") == INDEX_VERSION
                and meta.get("token") == token.decode()
                and meta.get("data_size") == data.stat().st_size
                and meta.get("rows") == md.num_rows
                and meta.get("row_groups") == md.num_row_groups
                and _fences_ok(meta.get("fences"))
                and _captures_ok(meta.get("captures"))
            )
        except (OSError, KeyError, ValueError, pa.ArrowException):
            return None
        return cls(path, meta) if ok else None

    def _chunk(self, i: int) -> pa.Table:
        if i not in self._chunks:
            try:
                with pq.ParquetFile(self.path) as index:  # not held open between lookups
                    self._chunks[i] = index.read_row_group(i, use_threads=False)
            except (OSError, pa.ArrowException) as e:
                raise InputError(
                    f"store index {self.path} is unreadable: {e}", hint="re-ingest its input"
                ) from None
        return self._chunks[i]

    def _span(self, lo: str, hi: str) -> range:
        """The chunks that can hold keys in [lo, hi]."""
        end = bisect.bisect_right(self._fences, hi)
        return range(max(bisect.bisect_left(self._fences, lo) - 1, 0), end)

    def groups(self, col: str, values: Iterable[str]) -> set[int]:
        """Row groups holding a row whose *col* is one of *values*."""
        keys = sorted({_key(col, v) for v in values})
        chunks = sorted({i for k in keys for i in self._span(k, k)})
        out: set[int] = set()
        want = pa.array(keys, type=pa.string())
        for i in chunks:
            t = self._chunk(i)
            out.update(t["group"].filter(pc.is_in(t["key"], value_set=want)).to_pylist())
        return out

    def capture_groups(self, names: Iterable[str]) -> set[int]:
        """Row groups holding id-less responses of the captures *names* (their origins start
        with `<name>#frame=`)."""
        out: set[int] = set()
        for name in names:
            for cap, groups in self._captures.items():
                if cap == name or cap.startswith(f"{name}{_FRAME}"):
                    out.update(groups)
        return out

    def values(self, col: str) -> pa.Array:
        """Every distinct non-empty value of *col* in the file (for "unknown id" hints)."""
        lo = f"{col}{_SEP}"
        hi = f"{col}{chr(ord(_SEP) + 1)}"
        parts = [pa.array([], pa.large_string())]
        for i in self._span(lo, hi):
            keys = self._chunk(i)["key"]
            parts.append(keys.filter(pc.starts_with(keys, lo)).combine_chunks())
        keys = pc.unique(pa.concat_arrays(parts))
        values = pc.utf8_slice_codeunits(keys, len(lo))  # the prefix is ASCII
        return values.filter(pc.not_equal(values, ""))
