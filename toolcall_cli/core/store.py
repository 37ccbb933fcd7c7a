"""The store: the event table as Parquet under `./.toolcall/`, one file per ingested input.

Layout::

    .toolcall/manifest.json          {"schema_version": N, "files": {key: {...}}}
    .toolcall/events/<key>.parquet   events of one input file
    .toolcall/events/<key>.index     its id index (layout 3; see core/store_index.py)

The key is a hash of the input's absolute path, so re-ingesting a file replaces its events.

Layout inside a file (manifest `"layout": 2`): rows are sorted by trace_id, tool_call_id,
session_id (nulls last) and written in row groups of `ROW_GROUP` rows with min/max statistics,
so a read filtered on one trace's keys touches a row group or two, not the whole file. A hidden
column `_row` keeps each event's position in its input: :func:`read_file` restores that order
and drops the column, so readers see the table exactly as the adapter returned it. Files
without `_row` (layout 1) are read as they are. Layout 3 adds the id index beside each file:
which row groups hold each trace, call, request and session id; files without a matching index
(layouts 1 and 2) are scanned instead.

Crash safety: every file is written under a temporary name and renamed. An ingest first
stages each input's events as `<key>.parquet.new` (its index as `<key>.index.new`), then
commits by renaming a manifest that lists them under `"pending"` into place, then renames the
staged files over the old ones.
A crash before the commit leaves the previous store as it was (the staged files are swept
by the next ingest); a crash after it is rolled forward by the next reader, so a reader never
sees one input's new events beside another's old ones.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from toolcall_cli.core import store_compact, store_index
from toolcall_cli.core.atomic import atomic_write
from toolcall_cli.core.events import COLUMNS, EVENTS_SCHEMA_VERSION, concat_frames, empty_frame
from toolcall_cli.errors import InputError

MANIFEST = "manifest.json"
_LOCK = ".lock"  # held (flock) by the one ingest writing the store
_STAGED = ".new"  # suffix of events staged by an ingest that has not committed yet
_ENTRY_KEYS = {"path": str, "source": str, "events": int, "unparsed": int}
LAYOUT = 3  # sorted, row-grouped event files with a `_row` column and an id index (see above)
ROW_GROUP = 8_192
ROW = "_row"  # hidden column: the event's position in the adapter's table
FILE = "_file"  # hidden column of a merged part (core/store_compact.py): the input's key
_HIDDEN = (ROW, FILE)
_SORT_KEYS = ("trace_id", "tool_call_id", "session_id")
_KEY = re.compile(r"[0-9a-f]{20}")  # what file_key() makes, and all a manifest may name


@dataclass(frozen=True, slots=True)
class StoredFile:
    """One input recorded in the store."""

    key: str
    path: str
    source: str
    events: int
    unparsed: int


def file_key(path: Path) -> str:
    """Stable key of an input file (its resolved path)."""
    return hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:20]


def _atomic_write(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(target, data)


def read_manifest(store: Path) -> dict[str, Any]:
    """The manifest, checked for the schema version; an empty one when there is no store."""
    mf = store / MANIFEST
    if not mf.exists():
        return {"schema_version": EVENTS_SCHEMA_VERSION, "files": {}}
    try:
        data = orjson.loads(mf.read_bytes())
    except (OSError, orjson.JSONDecodeError) as e:
        raise InputError(
            f"store manifest {mf} is unreadable: {e}", hint="delete the store and re-ingest"
        ) from None
    version = data.get("schema_version") if isinstance(data, dict) else None
    if version != EVENTS_SCHEMA_VERSION:
        raise InputError(
            f"store {store} was written with event schema version {version!r}; "
            f"this toolcall reads version {EVENTS_SCHEMA_VERSION}",
            hint=f"re-ingest the evidence (rm -r {store} && toolcall ingest ...)",
        )
    _check_entries(mf, data)
    if data.get("pending"):
        data = _roll_forward(store, data)
    return data


def _check_entries(mf: Path, data: dict[str, Any]) -> None:
    """A manifest of the right version but the wrong shape is refused, not half-read.

    Keys become file names under `events/`, so only the store's own (`file_key`) are taken:
    a key such as `../../x` would make a reader rename or read files outside the store.
    """
    files = data.get("files")
    pending = data.get("pending", [])
    ok = isinstance(files, dict) and isinstance(pending, list)
    keys = [*(files if isinstance(files, dict) else ()), *(pending if ok else ())]
    for key in keys:
        if not (isinstance(key, str) and _KEY.fullmatch(key)):
            raise InputError(
                f"store manifest {mf} names {str(key)[:80]!r}, which is not a store key",
                hint="delete the store and re-ingest",
            )
    for entry in files.values() if isinstance(files, dict) else ():
        ok = (
            ok
            and isinstance(entry, dict)
            and all(isinstance(entry.get(k), t) for k, t in _ENTRY_KEYS.items())
            and (_KEY.fullmatch(str(entry.get("part", "0" * 20))) is not None)
        )
    if not ok:
        raise InputError(f"store manifest {mf} is malformed", hint="delete the store and re-ingest")


def _no_symlinks(store: Path) -> None:
    """Refuse to write through a symlink inside the store: a symlinked `events/` (say, one
    that came with an incident bundle) would make an ingest sweep and rename files elsewhere."""
    for part in (store / "events", store / MANIFEST, store / _LOCK):
        if part.is_symlink():
            raise InputError(
                f"the store {store} holds a symlink ({part.name}); refusing to write through it",
                hint="ingest into a fresh --store",
            )


def _roll_forward(store: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    """Finish a committed ingest: move its staged event files into place."""
    _no_symlinks(store)
    try:
        for key in manifest["pending"]:
            for name in (f"{key}.parquet", f"{key}{store_index.SUFFIX}"):
                staged = store / "events" / f"{name}{_STAGED}"
                if staged.exists():
                    os.replace(staged, store / "events" / name)
                elif name.endswith(".parquet") and not (store / "events" / name).exists():
                    # never commit a manifest that names events nobody can read
                    raise InputError(
                        f"store {store}: the committed events of {key} are missing",
                        hint="delete the store and re-ingest",
                    )
        done = {k: v for k, v in manifest.items() if k != "pending"}
        _atomic_write(store / MANIFEST, _manifest_bytes(done))
    except OSError as e:
        raise InputError(
            f"store {store} holds an unfinished ingest that cannot be completed: {e}",
            hint="make the store writable, or delete it and re-ingest",
        ) from None
    return done


def _manifest_bytes(manifest: dict[str, Any]) -> bytes:
    return orjson.dumps(manifest, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)


def _sweep(store: Path) -> None:
    """Remove leftovers of interrupted ingests (uncommitted staged files, temp files)."""
    events = store / "events"
    if not events.is_dir():
        return
    for leftover in (*events.glob(f"*{_STAGED}"), *events.glob(".*.tmp")):
        leftover.unlink(missing_ok=True)


def _stage(store: Path, path: Path, source: str, df: pd.DataFrame, schema: pa.Schema) -> StoredFile:
    """Write one input's data file and id index as staged (uncommitted) files."""
    key = file_key(path)
    stage_table(store, key, _sorted_table(df, schema))
    n_bad = int((df["kind"] == "unparsed").sum())
    return StoredFile(
        key=key, path=str(path), source=source, events=len(df) - n_bad, unparsed=n_bad
    )


def stage_table(store: Path, key: str, table: pa.Table) -> None:
    """Write *table* (sorted, with `_row`) as part *key*'s staged data file and id index."""
    token = store_index.new_token()
    table = store_index.with_token(table, token)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd", row_group_size=ROW_GROUP)
    data = sink.getvalue()
    md = pq.ParquetFile(pa.BufferReader(data)).metadata
    index = store_index.build(
        table,
        [md.row_group(g).num_rows for g in range(md.num_row_groups)],
        token=token,
        data_size=data.size,
    )
    _atomic_write(store / "events" / f"{key}.parquet{_STAGED}", data.to_pybytes())
    _atomic_write(store / "events" / f"{key}{store_index.SUFFIX}{_STAGED}", index)


def sort_rows(table: pa.Table) -> pa.Table:
    """*table* (with `_row`) in storage order: by its trace keys, then input position."""
    if table.num_rows <= 1:
        return table
    return table.sort_by([(k, "ascending", "at_end") for k in (*_SORT_KEYS, ROW)])


def part_of(key: str, entry: dict[str, Any]) -> str:
    """The part (data file key) holding input *key*'s events: its own, or a merged one."""
    return str(entry.get("part", key))


def part_keys(manifest: dict[str, Any]) -> list[str]:
    """Each data file the manifest names, once, in the order of the inputs it holds."""
    return list(dict.fromkeys(part_of(k, manifest["files"][k]) for k in sorted(manifest["files"])))


def part_paths(store: Path, manifest: dict[str, Any]) -> list[Path]:
    """The store's data files, in the order readers concatenate them."""
    return [store / "events" / f"{k}.parquet" for k in part_keys(manifest)]


def write_files(store: Path, parts: Iterable[tuple[Path, str, pd.DataFrame]]) -> list[StoredFile]:
    """Write each (input path, source, events) part, replacing earlier events of that input.

    *parts* is read one at a time (a generator may parse each file as it is asked for), and
    all of them are committed together at the end: a failure on any part commits none.
    """
    with _writer_lock(store):
        return _write_locked(store, parts)


@contextmanager
def _writer_lock(store: Path) -> Iterator[None]:
    """One ingest writes a store at a time: parts are parsed while their predecessors sit
    staged, and a second writer would sweep them (and overwrite the manifest) meanwhile."""
    try:
        store.mkdir(parents=True, exist_ok=True)
        _no_symlinks(store)
        fd = os.open(store / _LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as e:
        raise InputError(f"cannot write the store {store}: {e.strerror or e}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise InputError(
                f"the store {store} is being written by another toolcall ingest",
                hint="wait for it to finish, or ingest into another --store",
            ) from None
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _write_locked(store: Path, parts: Iterable[tuple[Path, str, pd.DataFrame]]) -> list[StoredFile]:
    manifest = read_manifest(store)
    _sweep(store)
    written: list[StoredFile] = []
    replaced: dict[str, set[str]] = {}  # merged part -> its inputs this ingest re-reads
    schema = pa.Schema.from_pandas(empty_frame(), preserve_index=False)
    try:
        for path, source, df in parts:
            try:
                stored = _stage(store, path, source, df, schema)
            except OSError as e:  # disk full, read-only file system: an input problem
                raise InputError(f"cannot write the store {store}: {e.strerror or e}") from None
            old = manifest["files"].get(stored.key)
            if old is not None and part_of(stored.key, old) != stored.key:
                replaced.setdefault(part_of(stored.key, old), set()).add(stored.key)
            manifest["files"][stored.key] = {
                "path": stored.path,
                "source": source,
                "events": stored.events,
                "unparsed": stored.unparsed,
            }
            written.append(stored)
            del df  # this part's events go before the next part is parsed
            pa.default_memory_pool().release_unused()  # and Arrow hands their pages back
        # a merged part keeps the other inputs' events but drops the old ones of these
        restaged = store_compact.restage_without(store, manifest, replaced)
    except BaseException:
        # a part that fails to parse (parts may be produced lazily, one file at a time) or to
        # write: nothing was committed, so the staged files of the parts before it go
        with suppress(OSError):
            _sweep(store)
        raise
    manifest["schema_version"] = EVENTS_SCHEMA_VERSION
    manifest["layout"] = LAYOUT
    manifest["pending"] = [w.key for w in written] + restaged
    try:
        _atomic_write(store / MANIFEST, _manifest_bytes(manifest))  # the commit point
    except OSError as e:
        raise InputError(f"cannot write the store {store}: {e.strerror or e}") from None
    store_compact.remove_unnamed(store, _roll_forward(store, manifest))
    return written


def load_events(store: Path, *, filters: list[tuple[str, str, Any]] | None = None) -> pd.DataFrame:
    """All stored events (optionally filtered on columns via Parquet predicate push-down)."""
    manifest = read_manifest(store)
    if not manifest["files"]:
        raise InputError(
            f"the store {store} is empty", hint="run `toolcall ingest PATH...` first, or pass PATHs"
        )
    frames = [to_events(read_file(pf, filters=filters), pf) for pf in part_paths(store, manifest)]
    return concat_frames(frames)


def check_schema(schema: pa.Schema, pf: Path | str) -> None:
    """An event file must hold every event column with a type of the right family; a file
    rewritten with other columns is damaged input (exit 3), not a bug."""
    have = {f.name: f.type for f in schema}
    for field in _expected_schema():
        got = have.get(field.name)
        if got is None:
            raise _damaged(pf, f"it has no column {field.name!r}")
        if _family(got) != _family(field.type):
            raise _damaged(pf, f"column {field.name!r} is {got}, not {field.type}")


def to_events(table: pa.Table, pf: Path | str) -> pd.DataFrame:
    """Rows of store file *pf* as the event table (its schema checked first)."""
    check_schema(table.schema, pf)
    try:
        return table.to_pandas().astype(COLUMNS)
    except (ValueError, TypeError, KeyError, pa.ArrowException) as e:
        raise _damaged(pf, str(e).splitlines()[0][:200]) from None


def _damaged(pf: Path | str, why: str) -> InputError:
    return InputError(f"store file {pf} is damaged: {why}", hint="re-ingest its input")


def _family(t: pa.DataType) -> str:
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "text"
    if pa.types.is_timestamp(t):
        return "time"
    if pa.types.is_integer(t):
        return "int"
    if pa.types.is_floating(t):
        return "float"
    if pa.types.is_null(t):
        return "null"
    return str(t)


@lru_cache(maxsize=1)
def _expected_schema() -> pa.Schema:
    return pa.Schema.from_pandas(empty_frame(), preserve_index=False)


def _sorted_table(df: pd.DataFrame, schema: pa.Schema) -> pa.Table:
    """The events as Arrow, sorted by their trace keys, with their input position in `_row`."""
    table = pa.Table.from_pandas(df.astype(COLUMNS), schema=schema, preserve_index=False)
    return sort_rows(table.append_column(ROW, pa.array(np.arange(len(df), dtype=np.int64))))


def read_file(
    pf: Path,
    *,
    columns: list[str] | None = None,
    filters: Any = None,
    row_groups: list[int] | None = None,
) -> pa.Table:
    """One store file (optionally only *columns*, only *row_groups*, rows filtered with Parquet
    push-down).

    A whole-row read comes back in the input's order without the hidden `_row` column; a read
    of named columns comes back in storage order (sorted by trace keys).
    """
    try:
        if row_groups is not None:
            with pq.ParquetFile(pf) as file:  # closed at once: stores hold thousands of files
                table = file.read_row_groups(row_groups, columns=columns)
            if filters is not None:
                table = table.filter(filters)
        else:
            table = pq.read_table(pf, columns=columns, filters=filters)
    except (OSError, pa.ArrowException) as e:
        raise InputError(
            f"store file {pf} is unreadable: {e}", hint="re-ingest its input"
        ) from None
    if ROW not in table.column_names:
        return table
    return input_order(table) if columns is None else _drop_hidden(table)


def input_order(table: pa.Table) -> pa.Table:
    """Whole rows read from a store file, back in their input's order without `_row`."""
    if ROW not in table.column_names:
        return table
    if table.num_rows > 1:
        table = table.take(pc.sort_indices(table.column(ROW)))
    return _drop_hidden(table)


def _drop_hidden(table: pa.Table) -> pa.Table:
    return table.drop_columns([c for c in _HIDDEN if c in table.column_names])


def row_groups_of(pf: Path, positions: np.ndarray) -> list[int]:
    """The row groups of store file *pf* that hold the rows at storage *positions*."""
    md = pq.read_metadata(pf)
    starts = np.cumsum([0] + [md.row_group(g).num_rows for g in range(md.num_row_groups)])
    return sorted({int(g) for g in np.searchsorted(starts, positions, side="right") - 1})


def stored_files(store: Path) -> list[StoredFile]:
    """The inputs recorded in the store."""
    manifest = read_manifest(store)
    return [
        StoredFile(key=k, **{f: v[f] for f in _ENTRY_KEYS})
        for k, v in sorted(manifest["files"].items())
    ]
