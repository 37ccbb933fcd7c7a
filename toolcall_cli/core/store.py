"""The store: the event table as Parquet under `./.toolcall/`, in correlation buckets.

Layout 4: `manifest.json`, `keys.parquet` (key -> component, align/buckets.py) and
`events/bucket=NN/<part>.parquet` + `.index` (core/store_layout.py has every path and column).
The manifest's `files` records each ingested input (by a hash of its absolute path, so
re-ingesting a file replaces its events): path, source, counts. `parts` records each data
file: its bucket, rows, and the inputs it holds rows of (core/store_write.py places them).

Inside a part, rows are sorted by trace_id, tool_call_id, session_id (nulls last) and written in
row groups of `ROW_GROUP` rows with min/max statistics and an id index, so a one-trace read
touches a row group or two. Hidden columns `_file` (the input's key) and `_row` (the row's
position in its input) restore the order the inputs were read in: whole-store and selected
reads come back as the flat layouts gave them, so outputs do not depend on buckets.

Older flat layouts (`events/<key>.parquet`, 1–3) are read as they are; the next ingest moves
their rows into buckets.

Crash safety: an ingest stages its files (`*.new`), commits by renaming a manifest that lists
them under `"pending"` into place, then renames them and removes the parts no longer named. A
crash before the commit leaves the old store (the next ingest sweeps the staged files); one
after it is rolled forward by the next reader: no reader sees half an ingest.
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
from typing import TYPE_CHECKING, Any

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from toolcall_cli.core import store_index
from toolcall_cli.core.atomic import atomic_write
from toolcall_cli.core.events import COLUMNS, EVENTS_SCHEMA_VERSION, concat_frames, empty_frame
from toolcall_cli.core.store_layout import KEYS_FILE, bucket_dir, buckets_of
from toolcall_cli.errors import InputError

if TYPE_CHECKING:
    from toolcall_cli.core.store_write import InputPart

MANIFEST = "manifest.json"
_LOCK = ".lock"  # held (flock) by the one ingest writing the store
_STAGED = ".new"  # suffix of events staged by an ingest that has not committed yet
_ENTRY_KEYS = {"path": str, "source": str, "events": int, "unparsed": int}
LAYOUT = 4  # bucketed parts (core/store_layout.py) of sorted, row-grouped, indexed files
ROW_GROUP = 8_192
ROW = "_row"  # hidden column: the event's position in the adapter's table
FILE = "_file"  # hidden column of a part holding several inputs: the row's input key
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
    parts = data.get("parts", {})
    ok = ok and isinstance(parts, dict)
    for key, entry in parts.items() if isinstance(parts, dict) else ():
        ok = (
            ok
            and _KEY.fullmatch(str(key)) is not None
            and isinstance(entry, dict)
            and isinstance(entry.get("bucket"), int)
            and 0 <= entry["bucket"] < buckets_of(data)
            and isinstance(entry.get("rows"), int)
            and isinstance(entry.get("inputs"), list)
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
            where = _part_dir(store, manifest, key)
            for name in (f"{key}.parquet", f"{key}{store_index.SUFFIX}"):
                staged = where / f"{name}{_STAGED}"
                if staged.exists():
                    os.replace(staged, where / name)
                elif name.endswith(".parquet") and not (where / name).exists():
                    # never commit a manifest that names events nobody can read
                    raise InputError(
                        f"store {store}: the committed events of {key} are missing",
                        hint="delete the store and re-ingest",
                    )
        keys = store / f"{KEYS_FILE}{_STAGED}"
        if manifest.get("pending_keys") and keys.exists():
            os.replace(keys, store / KEYS_FILE)
        done = {k: v for k, v in manifest.items() if k not in ("pending", "pending_keys")}
        _atomic_write(store / MANIFEST, _manifest_bytes(done))
    except OSError as e:
        raise InputError(
            f"store {store} holds an unfinished ingest that cannot be completed: {e}",
            hint="make the store writable, or delete it and re-ingest",
        ) from None
    return done


def _part_dir(store: Path, manifest: dict[str, Any], part: str) -> Path:
    """The directory holding *part*: its bucket's (layout 4) or the flat `events/`."""
    entry = manifest.get("parts", {}).get(part)
    return store / "events" if entry is None else bucket_dir(store, "events", entry["bucket"])


def is_bucketed(manifest: dict[str, Any]) -> bool:
    """Whether the store has the bucketed layout (4); older ones are read as they are."""
    return "parts" in manifest or not manifest["files"]


def _manifest_bytes(manifest: dict[str, Any]) -> bytes:
    return orjson.dumps(manifest, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)


def _sweep(store: Path) -> None:
    """Remove leftovers of interrupted ingests (uncommitted staged files, temp files)."""
    (store / f"{KEYS_FILE}{_STAGED}").unlink(missing_ok=True)
    events = store / "events"
    if not events.is_dir():
        return
    for pattern in (f"*{_STAGED}", ".*.tmp", f"bucket=*/*{_STAGED}", "bucket=*/.*.tmp"):
        for leftover in events.glob(pattern):
            leftover.unlink(missing_ok=True)


def stage_table(directory: Path, key: str, table: pa.Table) -> None:
    """Write *table* (sorted, with `_row`) as part *key*'s staged data file and id index in
    *directory* (a bucket's)."""
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
    _atomic_write(directory / f"{key}.parquet{_STAGED}", data.to_pybytes())
    _atomic_write(directory / f"{key}{store_index.SUFFIX}{_STAGED}", index)


def sort_rows(table: pa.Table) -> pa.Table:
    """*table* (with `_row`) in storage order: by its trace keys, then input position."""
    if table.num_rows <= 1:
        return table
    order = (*_SORT_KEYS, FILE, ROW) if FILE in table.column_names else (*_SORT_KEYS, ROW)
    return table.sort_by([(k, "ascending", "at_end") for k in order])


def part_of(key: str, entry: dict[str, Any]) -> str:
    """The part (data file key) holding input *key*'s events: its own, or a merged one."""
    return str(entry.get("part", key))


def part_keys(manifest: dict[str, Any]) -> list[str]:
    """Each data file the manifest names, once, in the order of the inputs it holds."""
    return list(dict.fromkeys(part_of(k, manifest["files"][k]) for k in sorted(manifest["files"])))


def part_paths(
    store: Path, manifest: dict[str, Any], buckets: set[int] | None = None
) -> list[Path]:
    """The store's data files (only those of *buckets* when given, in a bucketed store)."""
    if not is_bucketed(manifest):
        return [store / "events" / f"{k}.parquet" for k in part_keys(manifest)]
    parts = manifest["parts"]
    return [
        bucket_dir(store, "events", parts[k]["bucket"]) / f"{k}.parquet"
        for k in sorted(parts, key=lambda k: (parts[k]["bucket"], k))
        if buckets is None or parts[k]["bucket"] in buckets
    ]


def write_files(store: Path, parts: Iterable[InputPart]) -> list[StoredFile]:
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


def _write_locked(store: Path, parts: Iterable[InputPart]) -> list[StoredFile]:
    from toolcall_cli.core.store_write import BucketWriter, legacy_tables, remove_unnamed

    manifest = read_manifest(store)
    _sweep(store)
    buckets = buckets_of(manifest)
    writer = BucketWriter(store, manifest.get("parts", {}), buckets)
    written: list[StoredFile] = []
    try:
        if not is_bucketed(manifest):  # an older layout: its rows move into buckets now
            for table in legacy_tables(store, manifest):
                writer.add(table)
        for path, source, events in parts:
            key = file_key(path)
            if key in manifest["files"]:
                writer.replace_input(key)
            try:  # a streamed input's chunks: each is written before the next is parsed
                n_rows, n_bad = writer.add_events(key, events)
            except OSError as e:  # disk full, read-only file system: an input problem
                raise InputError(f"cannot write the store {store}: {e.strerror or e}") from None
            stored = StoredFile(key, str(path), source, n_rows - n_bad, n_bad)
            manifest["files"][key] = {
                "path": stored.path,
                "source": source,
                "events": stored.events,
                "unparsed": stored.unparsed,
            }
            written.append(stored)
            del events  # a large input's events are written before the next input is parsed
            pa.default_memory_pool().release_unused()  # and Arrow hands their pages back
        pending = writer.finish()
    except BaseException:
        # a part that fails to parse (parts may be produced lazily, one file at a time) or to
        # write: nothing was committed, so the staged files of the parts before it go
        with suppress(OSError):
            _sweep(store)
        raise
    manifest["files"] = {k: {f: v[f] for f in _ENTRY_KEYS} for k, v in manifest["files"].items()}
    manifest["schema_version"] = EVENTS_SCHEMA_VERSION
    manifest["layout"] = LAYOUT
    manifest["parts"] = writer.parts
    manifest["buckets"] = buckets
    manifest["pending"] = pending
    manifest["pending_keys"] = writer.keymap_changed
    try:
        _atomic_write(store / MANIFEST, _manifest_bytes(manifest))  # the commit point
    except OSError as e:
        raise InputError(f"cannot write the store {store}: {e.strerror or e}") from None
    remove_unnamed(store, _roll_forward(store, manifest))
    return written


def load_events(store: Path, *, filters: list[tuple[str, str, Any]] | None = None) -> pd.DataFrame:
    """All stored events (optionally filtered on columns via Parquet predicate push-down)."""
    manifest = read_manifest(store)
    if not manifest["files"]:
        raise InputError(
            f"the store {store} is empty", hint="run `toolcall ingest PATH...` first, or pass PATHs"
        )
    if not is_bucketed(manifest):
        paths = part_paths(store, manifest)
        return concat_frames([to_events(read_file(pf, filters=filters), pf) for pf in paths])
    return tables_to_events(
        [_read_whole(pf, filters) for pf in part_paths(store, manifest)], str(store)
    )


def _read_whole(pf: Path, filters: Any = None) -> pa.Table:
    try:
        return pq.read_table(pf, filters=filters)
    except (OSError, pa.ArrowException) as e:
        raise InputError(
            f"store file {pf} is unreadable: {e}", hint="re-ingest its input"
        ) from None


def tables_to_events(tables: list[pa.Table], where: str) -> pd.DataFrame:
    """Whole rows of bucketed parts as one event table, in the order the inputs were read
    (inputs by key, each in its own order): the order a flat store gave, so outputs agree."""
    tables = [t for t in tables if t.num_rows]
    if not tables:
        return empty_frame()
    for t in tables:
        check_schema(t.schema, where)
    try:
        one = pa.concat_tables(tables, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
        raise _damaged(where, str(e).splitlines()[0][:200]) from None
    if FILE in one.column_names and one.num_rows > 1:
        one = one.take(pc.sort_indices(one, [(FILE, "ascending"), (ROW, "ascending")]))
    return to_events(_drop_hidden(one), where)


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
        order = [(FILE, "ascending"), (ROW, "ascending")] if FILE in table.column_names else None
        idx = pc.sort_indices(table, order) if order else pc.sort_indices(table.column(ROW))
        table = table.take(idx)
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


def data_files(store: Path) -> list[Path]:
    """The live data files of the store (what its manifest names), in reader order."""
    return part_paths(store, read_manifest(store))
