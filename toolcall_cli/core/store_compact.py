"""Compaction: merging a store's many small data files into a few large ones.

A store gets one data file (a *part*) per ingested input, so a directory of 10,000 one-event
logs leaves 10,000 Parquet files and indexes, and every reader opens each of them. When an
ingest leaves more than `MAX_PARTS` parts whose median holds fewer than `TARGET_ROWS` rows,
the small parts are merged into parts of about `TARGET_ROWS` rows.

A merged part is written like any other (rows sorted by trace keys in row groups, with its id
index) under a fresh key, with a hidden `_file` column naming each row's input, and `_row`
numbering the rows of its inputs one after another (in key order), so a whole read comes back
in the order the separate files were read in. Each input keeps its manifest entry (path,
source, counts), with `"part"` naming the file that holds its events.

Crash safety is the ingest's: the merged parts are staged, one manifest rename commits them
(listed under `"pending"`, rolled forward by the next reader), and only then are the merged-away
files removed; a crash before the commit leaves the old parts, which the manifest still names.
Re-ingesting an input that lives in a merged part rewrites that part without its old rows.
"""

from __future__ import annotations

import hashlib
import statistics
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from toolcall_cli.core import store, store_index
from toolcall_cli.errors import InputError

MAX_PARTS = 64  # a store with more parts than this is compacted when they are small
TARGET_ROWS = 65_536  # rows a merged part aims for (8 row groups)


def _rows(entry: dict[str, Any]) -> int:
    return int(entry["events"]) + int(entry["unparsed"])


def _part_rows(manifest: dict[str, Any]) -> dict[str, int]:
    """Rows of each part (in reader order), summed over the inputs it holds."""
    rows: dict[str, int] = {}
    for key in sorted(manifest["files"]):
        entry = manifest["files"][key]
        part = store.part_of(key, entry)
        rows[part] = rows.get(part, 0) + _rows(entry)
    return rows


def needs_compaction(manifest: dict[str, Any]) -> bool:
    """More than `MAX_PARTS` parts whose median is small."""
    rows = _part_rows(manifest)
    return len(rows) > MAX_PARTS and statistics.median(rows.values()) < TARGET_ROWS


def _groups(manifest: dict[str, Any]) -> list[list[str]]:
    """Runs of adjacent small parts, each of about `TARGET_ROWS` rows (runs of one are left)."""
    groups: list[list[str]] = [[]]
    total = 0
    for part, n in _part_rows(manifest).items():
        if n >= TARGET_ROWS:
            continue
        if total + n > TARGET_ROWS and groups[-1]:
            groups.append([])
            total = 0
        groups[-1].append(part)
        total += n
    return [g for g in groups if len(g) > 1]


def _members(manifest: dict[str, Any], part: str) -> list[str]:
    return [k for k in sorted(manifest["files"]) if store.part_of(k, manifest["files"][k]) == part]


def _input_rows(store_dir: Path, part: str, keep: set[str] | None = None) -> pa.Table:
    """Part *part*'s rows in their input order, each with `_file`, without `_row`."""
    pf = store_dir / "events" / f"{part}.parquet"
    table = pq.read_table(pf)
    store.check_schema(table.schema, pf)
    if store.ROW not in table.column_names:  # an older layout: rows are in input order
        table = table.append_column(store.ROW, pa.array(np.arange(table.num_rows)))
    if store.FILE not in table.column_names:
        table = table.append_column(store.FILE, pa.array([part] * table.num_rows, pa.string()))
    if keep is not None:
        table = table.filter(pc.is_in(table[store.FILE], value_set=pa.array(sorted(keep))))
    table = table.take(pc.sort_indices(table[store.ROW])).drop_columns([store.ROW])
    names = [f.name for f in store._expected_schema()]
    return table.select([*names, store.FILE]).cast(
        pa.schema([*store._expected_schema(), pa.field(store.FILE, pa.string())])
    )


def _stage_merged(store_dir: Path, key: str, tables: list[pa.Table]) -> None:
    merged = pa.concat_tables(tables)
    merged = merged.append_column(store.ROW, pa.array(np.arange(merged.num_rows, dtype=np.int64)))
    store.stage_table(store_dir, key, store.sort_rows(merged))


def _merged_key(parts: list[str]) -> str:
    """A key for a merged part: not any input's (those hash a path), and stable per content."""
    return hashlib.sha256(("merged:" + ",".join(parts)).encode()).hexdigest()[:20]


def restage_without(
    store_dir: Path, manifest: dict[str, Any], replaced: dict[str, set[str]]
) -> list[str]:
    """Stage each merged part of *replaced* again without the rows of the inputs re-ingested
    (whose entries *manifest* already points at their own new files); the parts staged."""
    staged = []
    for part in sorted(replaced):
        keep = set(_members(manifest, part))
        if not keep:
            continue  # nothing left in it: removed once the ingest commits
        try:
            _stage_merged(store_dir, part, [_input_rows(store_dir, part, keep)])
        except OSError as e:
            raise InputError(f"cannot write the store {store_dir}: {e.strerror or e}") from None
        staged.append(part)
    return staged


def remove_unnamed(store_dir: Path, manifest: dict[str, Any]) -> None:
    """Delete data files and indexes the committed *manifest* no longer names (merged away)."""
    named = set(store.part_keys(manifest))
    for suffix in (".parquet", store_index.SUFFIX):
        for f in (store_dir / "events").glob(f"*{suffix}"):
            if f.stem not in named and store._KEY.fullmatch(f.stem):
                f.unlink(missing_ok=True)


def compact(store_dir: Path) -> int:
    """Merge the store's small parts when it holds too many; the number of parts merged away.

    Takes the writer lock, so it fails like an ingest (InputError) while another one writes.
    """
    with store._writer_lock(store_dir):
        manifest = store.read_manifest(store_dir)
        if not needs_compaction(manifest):
            return 0
        store._sweep(store_dir)
        merged: list[str] = []
        before = len(_part_rows(manifest))
        try:
            for group in _groups(manifest):
                key = _merged_key(group)
                _stage_merged(store_dir, key, [_input_rows(store_dir, p) for p in group])
                _staged_hook(key)
                for part in group:
                    for member in _members(manifest, part):
                        manifest["files"][member]["part"] = key
                merged.append(key)
        except BaseException:
            store._sweep(store_dir)  # nothing committed: the old parts stay named
            raise
        manifest["pending"] = merged
        try:
            store._atomic_write(store_dir / store.MANIFEST, store._manifest_bytes(manifest))
        except OSError as e:
            store._sweep(store_dir)
            raise InputError(f"cannot write the store {store_dir}: {e.strerror or e}") from None
        done = store._roll_forward(store_dir, manifest)
        remove_unnamed(store_dir, done)
        return before - len(_part_rows(done))


def _staged_hook(key: str) -> None:
    """Called after each merged part is staged; tests raise here to simulate a crash."""
