"""The store: the event table as Parquet under `./.toolcall/`, in correlation buckets; this
module writes it (one ingest at a time, all or nothing).

Layout 4: `manifest.json` (store/manifest.py), `keys.parquet` (key -> component,
store/buckets.py) and `events/bucket=NN/<part>.parquet` + `.index` (store/layout.py has
every path and column; store/bucket_writer.py places rows into parts). Reading is
store/read.py.

Inside a part, rows are sorted by trace_id, tool_call_id, session_id (nulls last) and written in
row groups of `ROW_GROUP` rows (store/part_files.py) with min/max statistics and an id index,
so a one-trace read touches a row group or two.

Crash safety: an ingest stages its files (`*.new`), commits by renaming a manifest that lists
them under `"pending"` into place, then renames them and removes the parts no longer named. A
crash before the commit leaves the old store (the next ingest sweeps the staged files); one
after it is rolled forward by the next reader: no reader sees half an ingest.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa

from toolcall_cli.errors import InputError
from toolcall_cli.model.events import EVENTS_SCHEMA_VERSION
from toolcall_cli.store.layout import KEYS_FILE, LAYOUT, buckets_of
from toolcall_cli.store.manifest import (
    ENTRY_KEYS,
    LOCK,
    MANIFEST,
    STAGED,
    StoredFile,
    file_key,
    manifest_bytes,
    no_symlinks,
    read_manifest,
    roll_forward,
    write_atomic,
)

if TYPE_CHECKING:
    from toolcall_cli.store.bucket_writer import InputPart


def sweep(store: Path) -> None:
    """Remove leftovers of interrupted ingests (uncommitted staged files, temp files)."""
    (store / f"{KEYS_FILE}{STAGED}").unlink(missing_ok=True)
    events = store / "events"
    if not events.is_dir():
        return
    for pattern in (f"*{STAGED}", ".*.tmp", f"bucket=*/*{STAGED}", "bucket=*/.*.tmp"):
        for leftover in events.glob(pattern):
            leftover.unlink(missing_ok=True)


def write_files(store: Path, parts: Iterable[InputPart]) -> list[StoredFile]:
    """Write each (input path, source, events) part, replacing earlier events of that input.

    *parts* is read one at a time (a generator may parse each file as it is asked for), and
    all of them are committed together at the end: a failure on any part commits none.
    """
    with writer_lock(store):
        return _write_locked(store, parts)


@contextmanager
def writer_lock(store: Path) -> Iterator[None]:
    """One ingest writes a store at a time: parts are parsed while their predecessors sit
    staged, and a second writer would sweep them (and overwrite the manifest) meanwhile."""
    try:
        store.mkdir(parents=True, exist_ok=True)
        no_symlinks(store)
        fd = os.open(store / LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
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
    from toolcall_cli.store.bucket_writer import BucketWriter, remove_unnamed

    manifest = read_manifest(store)
    sweep(store)
    buckets = buckets_of(manifest)
    writer = BucketWriter(store, manifest["parts"], buckets)
    written: list[StoredFile] = []
    try:
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
            sweep(store)
        raise
    manifest["files"] = {k: {f: v[f] for f in ENTRY_KEYS} for k, v in manifest["files"].items()}
    manifest["schema_version"] = EVENTS_SCHEMA_VERSION
    manifest["layout"] = LAYOUT
    manifest["parts"] = writer.parts
    manifest["buckets"] = buckets
    manifest["pending"] = pending
    manifest["pending_keys"] = writer.keymap_changed
    try:
        write_atomic(store / MANIFEST, manifest_bytes(manifest))  # the commit point
    except OSError as e:
        raise InputError(f"cannot write the store {store}: {e.strerror or e}") from None
    remove_unnamed(store, roll_forward(store, manifest))
    return written
