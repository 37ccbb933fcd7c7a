"""Reading only what a selection needs from the store.

The selector (`--trace-id`, `--session-id`, `--tool-call-id`) is matched and the keys of the
rows found are followed (trace ids, call ids, request ids) until nothing new turns up; then
the rows matching the final filter are read whole.

A store file with an id index (layout 3, core/store_index.py) is never scanned: each round
looks the new ids up in the index and reads just the row groups that hold them, so a trace of
a few dozen events costs a few row groups however large the store. A file without one (older
layouts, or an index that no longer matches its file) is scanned as before: its id columns are
read in full and only the row groups where they matched are read whole. Both paths find the
same rows: the index names every row group holding an id, and the rows are filtered alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from toolcall_cli.align.select import HINT_IDS, hint_of
from toolcall_cli.core.events import WIRE_SOURCES, concat_frames
from toolcall_cli.core.store_index import IdIndex
from toolcall_cli.core.store_layout import buckets_of
from toolcall_cli.core.store_manifest import is_bucketed, part_paths, read_manifest
from toolcall_cli.core.store_read import (
    check_schema,
    input_order,
    load_events,
    read_file,
    row_groups_of,
    tables_to_events,
    to_events,
)
from toolcall_cli.core.store_write import buckets_of_ids, normalise
from toolcall_cli.errors import InputError, UsageError

#: Rounds of key expansion before giving up on finding more (chains longer than this are rare).
MAX_ROUNDS = 6
_LINKS = ("trace_id", "tool_call_id", "request_id")
_KEYS = ["source", "kind", "origin", "session_id", *_LINKS]
_FRAME = "#frame="


@dataclass(frozen=True, slots=True)
class ReadStats:
    """What a selective read touched: row groups in the store, row groups read whole, and
    files whose id columns had to be scanned (no usable index)."""

    row_groups: int
    row_groups_read: int
    scanned_files: int


def _unreadable(pf: Path, e: Exception) -> InputError:
    return InputError(f"store file {pf} is unreadable: {e}", hint="re-ingest its input")


class _Part:
    """One store file as the selection sees it: the rows matched so far can come from here."""

    def __init__(self, pf: Path) -> None:
        self.pf = pf
        # Opened, read and closed: a store of thousands of files must not hold a descriptor
        # per file (or two, with its index) while the selection runs.
        try:
            with pq.ParquetFile(pf) as file:
                check_schema(file.schema_arrow, pf)  # a rewritten file: exit 3, not a crash
                self.index = IdIndex.open(pf, file)
                self.groups = int(file.metadata.num_row_groups)
        except (OSError, pa.ArrowException) as e:
            raise _unreadable(pf, e) from None
        self.read: set[int] = set()  # row groups read whole
        self._tables: list[pa.Table] = []
        self._keys: pa.Table | None = None
        self._whole: pa.Table | None = None
        if self.index is None:  # scan: one row group is read whole, else the id columns
            if self.groups <= 1:
                self._whole = _raw(pf)
                self.read = set(range(self.groups))
            self._keys = self._whole if self._whole is not None else read_file(pf, columns=_KEYS)

    @property
    def scanned(self) -> bool:
        return self.index is None

    def fetch(self, ids: dict[str, set[str]]) -> None:
        """Make sure every row holding one of *ids* (column → values) is at hand."""
        if self.index is None:
            return
        want: set[int] = set()
        for col, values in ids.items():
            if values:
                want |= self.index.groups(col, values)
        self._load(want)

    def fetch_captures(self, names: set[str]) -> None:
        """Make sure the id-less responses of the captures *names* are at hand."""
        if self.index is not None and names:
            self._load(self.index.capture_groups(names))

    def _load(self, groups: set[int]) -> None:
        new = sorted(groups - self.read)
        if not new:
            return
        try:
            with pq.ParquetFile(self.pf) as file:
                self._tables.append(file.read_row_groups(new, use_threads=False))
        except (OSError, pa.ArrowException) as e:
            raise _unreadable(self.pf, e) from None
        self.read |= set(new)
        self._keys = None

    def keys(self) -> pa.Table:
        """The id columns of the rows at hand."""
        if self._keys is None:
            if not self._tables:
                return pa.table({c: pa.array([], pa.large_string()) for c in _KEYS})
            self._keys = pa.concat_tables(self._tables).select(_KEYS)
        return self._keys

    def rows(self, expr: pc.Expression) -> pa.Table:
        """The whole rows matching *expr*, with the hidden order columns (`_file`, `_row`)."""
        if self._whole is not None:
            return normalise(self._whole.filter(expr), self.pf.stem)
        if self.index is None:
            keys = self.keys()
            pos = keys.append_column("_pos", pa.array(np.arange(keys.num_rows))).filter(expr)
            if not pos.num_rows:
                return keys.slice(0, 0)
            groups = row_groups_of(self.pf, pos.column("_pos").to_numpy())
            self.read |= set(groups)
            return normalise(_raw(self.pf, groups).filter(expr), self.pf.stem)
        if not self._tables:
            return self.keys()
        return normalise(pa.concat_tables(self._tables).filter(expr), self.pf.stem)

    def known(self, col: str) -> pa.Array:
        """The distinct non-empty values of *col* in the file."""
        if self.index is not None:
            return self.index.values(col)
        values = self.keys().column(col).unique().drop_null().cast(pa.large_string())
        return values.filter(pc.not_equal(values, ""))


def _raw(pf: Path, groups: list[int] | None = None) -> pa.Table:
    """Rows of store file *pf* as stored (hidden columns kept), optionally only *groups*."""
    try:
        with pq.ParquetFile(pf) as file:  # closed at once: stores hold thousands of files
            if groups is None:
                return file.read(use_threads=False)
            return file.read_row_groups(groups, use_threads=False)
    except (OSError, pa.ArrowException) as e:
        raise _unreadable(pf, e) from None


def _parts(store: Path, ids: dict[str, set[str]]) -> list[_Part]:
    """The store files that can hold the selection: its ids' buckets, when the key map knows
    them (a bucket holds whole components), else every file."""
    manifest = read_manifest(store)
    if not manifest["files"]:
        raise InputError(
            f"the store {store} is empty", hint="run `toolcall ingest PATH...` first, or pass PATHs"
        )
    n = buckets_of(manifest)
    buckets = buckets_of_ids(store, ids, n) if is_bucketed(manifest) else set()
    return [_Part(pf) for pf in part_paths(store, manifest, buckets or None)]


def _any(parts: list[pc.Expression]) -> pc.Expression:
    return reduce(lambda a, b: a | b, parts)


def _values(tables: list[pa.Table], col: str) -> set[str]:
    out: set[str] = set()
    for t in tables:
        vals = t.column(col).unique().to_pylist()
        out |= {str(v) for v in vals if v is not None and str(v).strip()}
    return out


def load_selected(
    store: Path,
    *,
    trace_id: str | None = None,
    session_id: str | None = None,
    tool_call_id: str | None = None,
) -> pd.DataFrame:
    """Events connected to the selected ids (all events when nothing is selected)."""
    if trace_id is None and session_id is None and tool_call_id is None:
        return load_events(store)
    return read_selected(
        store, trace_id=trace_id, session_id=session_id, tool_call_id=tool_call_id
    )[0]


def load_buckets(
    store: Path,
    *,
    trace_id: str | None = None,
    session_id: str | None = None,
    tool_call_id: str | None = None,
) -> pd.DataFrame:
    """Every event of the buckets holding the selected ids: whole components, so the whole
    sessions they touch (replay's rate limiter counts a session's earlier calls). A store the
    key map cannot narrow (an older layout, an unknown id) is read as `load_selected` reads it.
    """
    manifest = read_manifest(store)
    ids = {"trace_id": trace_id, "session_id": session_id, "tool_call_id": tool_call_id}
    seeds: dict[str, set[str]] = {c: set() for c in ("trace_id", "tool_call_id", "session_id")}
    if trace_id is not None:  # as read_selected: a trace may be named by any of its ids
        for values in seeds.values():
            values.add(trace_id)
    for col in ("session_id", "tool_call_id"):
        if ids[col] is not None:
            seeds[col].add(str(ids[col]))
    found = (
        buckets_of_ids(store, seeds, buckets_of(manifest))
        if is_bucketed(manifest) and any(seeds.values())
        else set()
    )
    if not found:
        return load_selected(store, **ids)
    tables = [_raw(pf) for pf in part_paths(store, manifest, found)]
    return tables_to_events(tables, str(store))


def read_selected(
    store: Path,
    *,
    trace_id: str | None = None,
    session_id: str | None = None,
    tool_call_id: str | None = None,
) -> tuple[pd.DataFrame, ReadStats]:
    """The events connected to the selected ids, and what reading them touched."""
    f = ds.field
    seeds: list[pc.Expression] = []
    first: dict[str, set[str]] = {c: set() for c in ("trace_id", "tool_call_id", "session_id")}
    if trace_id is not None:  # a trace may be named by a trace id, a call id or a session id
        seeds += [f(c) == trace_id for c in ("trace_id", "tool_call_id", "session_id")]
        for ids in first.values():
            ids.add(trace_id)
    if session_id is not None:
        seeds.append(f("session_id") == session_id)
        first["session_id"].add(session_id)
    if tool_call_id is not None:
        seeds.append(f("tool_call_id") == tool_call_id)
        first["tool_call_id"].add(tool_call_id)
    if not seeds:
        raise UsageError("no selection: pass --trace-id, --session-id or --tool-call-id")
    expr = _any(seeds)
    parts = _parts(store, first)
    for p in parts:
        p.fetch(first)
    matched = [p.keys().filter(expr) for p in parts]
    if not any(t.num_rows for t in matched):
        _no_match(parts, trace_id=trace_id, session_id=session_id, tool_call_id=tool_call_id)
    seen: dict[str, set[str]] = {c: set() for c in _LINKS}
    for _ in range(MAX_ROUNDS):
        new = {c: _values(matched, c) - seen[c] for c in _LINKS}
        if not any(new.values()):
            break
        for c in _LINKS:
            seen[c] |= new[c]
        expr = _any([expr, *(f(c).isin(sorted(v)) for c, v in new.items() if v)])
        for p in parts:
            p.fetch(new)
        matched = [p.keys().filter(expr) for p in parts]
    expr = _with_pcap_responses(parts, matched, expr)
    tables = [p.rows(expr) for p in parts]
    stats = ReadStats(
        row_groups=sum(p.groups for p in parts),
        row_groups_read=sum(len(p.read) for p in parts),
        scanned_files=sum(p.scanned for p in parts),
    )
    return _frame(tables), stats


def _frame(tables: list[pa.Table]) -> pd.DataFrame:
    """The rows of every file as one event table in input order (one conversion to pandas)."""
    tables = [t for t in tables if t.num_rows]
    try:
        return tables_to_events(tables, "the selected store files")
    except InputError:  # files written with differing column types
        where = "the selected store files"
        return concat_frames([to_events(input_order(t), where) for t in tables])


def _no_match(
    parts: list[_Part], *, trace_id: str | None, session_id: str | None, tool_call_id: str | None
) -> None:
    """Raise the "no trace matches" usage error, with a few ids the store does know."""
    option, value, col, what = (
        ("--trace-id", trace_id, "trace_id", "trace ids")
        if trace_id is not None
        else ("--session-id", session_id, "session_id", "session ids")
        if session_id is not None
        else ("--tool-call-id", tool_call_id, "tool_call_id", "tool call ids")
    )
    known = pc.unique(pa.concat_arrays([p.known(col) for p in parts]))
    first = known.take(pc.sort_indices(known)[:HINT_IDS]).to_pylist()
    raise UsageError(f"no trace matches {option} {value}", hint=hint_of(first, len(known), what))


def _with_pcap_responses(
    parts: list[_Part], matched: list[pa.Table], expr: pc.Expression
) -> pc.Expression:
    """Add the id-less responses of the captures the selection touched: they join their request
    by TCP stream during alignment."""
    f = ds.field
    req = f("source").isin(WIRE_SOURCES) & (f("kind") == "http_request")
    origins: set[str] = set()
    for t in matched:
        origins |= {str(o) for o in t.filter(req).column("origin").to_pylist() if o}
    names = {o.rsplit(_FRAME, 1)[0] for o in origins}
    if not names:
        return expr
    for p in parts:
        p.fetch_captures(names)
    wire = f("source").isin(WIRE_SOURCES)
    base = wire & (f("kind") == "http_response") & f("tool_call_id").is_null()
    return expr | (
        base & _any([pc.starts_with(f("origin"), f"{n}{_FRAME}") for n in sorted(names)])
    )
