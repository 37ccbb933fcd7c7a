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
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.align.select import HINT_IDS, hint_of
from toolcall_cli.core import store_fs
from toolcall_cli.core.events import WIRE_SOURCES, concat_frames
from toolcall_cli.core.store_index import IdIndex
from toolcall_cli.core.store_layout import buckets_of
from toolcall_cli.core.store_manifest import is_bucketed, part_paths, read_manifest
from toolcall_cli.core.store_read import (
    buckets_of_ids,
    check_schema,
    input_order,
    load_events,
    read_file,
    row_groups_of,
    tables_to_events,
    to_events,
)
from toolcall_cli.core.store_write import normalise
from toolcall_cli.errors import InputError, UsageError

#: Rounds of key expansion before giving up on finding more (chains longer than this are rare).
MAX_ROUNDS = 6
_LINKS = ("trace_id", "tool_call_id", "request_id")
_KEYS = ["source", "kind", "origin", "session_id", *_LINKS]
_FRAME = "#frame="


@dataclass(frozen=True, slots=True)
class ReadStats:
    """What a selective read touched: the data files it opened, their row groups, the row
    groups it read whole, and the files whose id columns had to be scanned (no usable index)."""

    files: tuple[str, ...]
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
            with store_fs.parquet_file(pf) as file:
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
            with store_fs.parquet_file(self.pf) as file:
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

    def matched(self, want: _Want) -> pa.Table:
        """The id columns of the rows at hand that *want* matches."""
        keys = self.keys()
        return keys.filter(want.mask(keys))

    def rows(self, want: _Want) -> pa.Table:
        """The whole rows *want* matches, with the hidden order columns (`_file`, `_row`)."""
        if self._whole is not None:
            return normalise(self._whole.filter(want.mask(self._whole)), self.pf.stem)
        if self.index is None:
            keys = self.keys()
            pos = keys.append_column("_pos", pa.array(np.arange(keys.num_rows)))
            pos = pos.filter(want.mask(keys))
            if not pos.num_rows:
                return keys.slice(0, 0)
            groups = row_groups_of(self.pf, pos.column("_pos").to_numpy())
            self.read |= set(groups)
            raw = _raw(self.pf, groups)
            return normalise(raw.filter(want.mask(raw)), self.pf.stem)
        if not self._tables:
            return self.keys()
        rows = pa.concat_tables(self._tables)
        return normalise(rows.filter(want.mask(rows)), self.pf.stem)

    def known(self, col: str) -> pa.Array:
        """The distinct non-empty values of *col* in the file."""
        if self.index is not None:
            return self.index.values(col)
        values = self.keys().column(col).unique().drop_null().cast(pa.large_string())
        return values.filter(pc.not_equal(values, ""))


def _raw(pf: Path, groups: list[int] | None = None) -> pa.Table:
    """Rows of store file *pf* as stored (hidden columns kept), optionally only *groups*."""
    try:
        with store_fs.parquet_file(pf) as file:  # closed at once: stores hold thousands of files
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


@dataclass(slots=True)
class _Want:
    """What a selection matches: rows whose id columns hold one of *ids* (column -> values),
    and the id-less wire responses of the captures *captures* (they join their request by TCP
    stream). Evaluated with compute kernels on the rows at hand, not as a dataset expression,
    so a one-trace read never loads Arrow's dataset and query engine."""

    ids: dict[str, set[str]]
    captures: set[str]

    def mask(self, table: pa.Table) -> pa.ChunkedArray:
        """Which rows of *table* (holding the `_KEYS` columns) the selection matches."""
        hit = pa.chunked_array([pa.array(np.zeros(table.num_rows, dtype=bool))])
        for col, values in self.ids.items():
            if values:
                want = pa.array(sorted(values), pa.large_string())
                hit = pc.or_(hit, pc.is_in(table[col], value_set=want))
        if self.captures:
            wire = pc.and_(
                pc.is_in(table["source"], value_set=pa.array(WIRE_SOURCES, pa.large_string())),
                pc.equal(table["kind"], "http_response"),
            )
            idless = pc.and_(wire, pc.is_null(table["tool_call_id"]))
            of = pa.chunked_array([pa.array(np.zeros(table.num_rows, dtype=bool))])
            for name in sorted(self.captures):
                of = pc.or_(of, pc.starts_with(table["origin"], f"{name}{_FRAME}"))
            hit = pc.or_(hit, pc.fill_null(pc.and_(idless, of), False))
        return pc.fill_null(hit, False)


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


def load_sessions(
    store: Path,
    *,
    trace_id: str | None = None,
    session_id: str | None = None,
    tool_call_id: str | None = None,
) -> pd.DataFrame:
    """The events connected to the selected ids through any key, session ids included: the
    whole sessions the selection touches (replay's rate limiter counts a session's earlier
    calls), read through the id index like one trace, not the whole of its bucket."""
    return _read_connected(store, trace_id, session_id, tool_call_id, (*_LINKS, "session_id"))[0]


def read_selected(
    store: Path,
    *,
    trace_id: str | None = None,
    session_id: str | None = None,
    tool_call_id: str | None = None,
) -> tuple[pd.DataFrame, ReadStats]:
    """The events connected to the selected ids, and what reading them touched."""
    return _read_connected(store, trace_id, session_id, tool_call_id, _LINKS)


def _read_connected(
    store: Path,
    trace_id: str | None,
    session_id: str | None,
    tool_call_id: str | None,
    links: tuple[str, ...],
) -> tuple[pd.DataFrame, ReadStats]:
    """The events connected to the selected ids through the key columns *links*."""
    first: dict[str, set[str]] = {c: set() for c in ("trace_id", "tool_call_id", "session_id")}
    if trace_id is not None:  # a trace may be named by a trace id, a call id or a session id
        for ids in first.values():
            ids.add(trace_id)
    if session_id is not None:
        first["session_id"].add(session_id)
    if tool_call_id is not None:
        first["tool_call_id"].add(tool_call_id)
    if not any(first.values()):
        raise UsageError("no selection: pass --trace-id, --session-id or --tool-call-id")
    want = _Want({c: set(v) for c, v in first.items()}, set())
    parts = _parts(store, first)
    for p in parts:
        p.fetch(first)
    matched = [p.matched(want) for p in parts]
    if not any(t.num_rows for t in matched):
        _no_match(parts, trace_id=trace_id, session_id=session_id, tool_call_id=tool_call_id)
    seen: dict[str, set[str]] = {c: set() for c in links}
    for _ in range(MAX_ROUNDS):
        new = {c: _values(matched, c) - seen[c] for c in links}
        if not any(new.values()):
            break
        for c in links:
            seen[c] |= new[c]
            want.ids.setdefault(c, set()).update(new[c])
        for p in parts:
            p.fetch(new)
        matched = [p.matched(want) for p in parts]
    _with_pcap_responses(parts, matched, want)
    tables = [p.rows(want) for p in parts]
    stats = ReadStats(
        files=tuple(str(p.pf) for p in parts),
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


def _with_pcap_responses(parts: list[_Part], matched: list[pa.Table], want: _Want) -> None:
    """Add the id-less responses of the captures the selection touched to *want*: they join
    their request by TCP stream during alignment."""
    origins: set[str] = set()
    for t in matched:
        wire = pc.is_in(t["source"], value_set=pa.array(WIRE_SOURCES, pa.large_string()))
        req = pc.fill_null(pc.and_(wire, pc.equal(t["kind"], "http_request")), False)
        origins |= {str(o) for o in t.filter(req).column("origin").to_pylist() if o}
    names = {o.rsplit(_FRAME, 1)[0] for o in origins}
    if not names:
        return
    for p in parts:
        p.fetch_captures(names)
    want.captures |= names
