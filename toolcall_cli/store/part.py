"""One store file as a selective read sees it: its id index (or its scanned id columns), the
row groups read so far, and the rows a selection matches among them.

A store file with an id index (store/index.py) is never scanned: each round looks the new ids
up in the index and reads just the row groups that hold them. A file whose index no longer
matches it (rewritten by hand, damaged) has its id columns read in full and only the row groups
where they matched read whole (store/read_selection.py drives the rounds).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from toolcall_cli.errors import InputError
from toolcall_cli.store.bucket_writer import normalise
from toolcall_cli.store.index import IdIndex
from toolcall_cli.store.layout import buckets_of
from toolcall_cli.store.manifest import part_paths, read_manifest
from toolcall_cli.store.read import buckets_of_ids, check_schema, read_file, row_groups_of
from toolcall_cli.store.wanted import KEYS, Wanted


def unreadable(pf: Path, e: Exception) -> InputError:
    """The error of a store file pyarrow cannot open or read."""
    return InputError(f"store file {pf} is unreadable: {e}", hint="re-ingest its input")


class StorePart:
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
            raise unreadable(pf, e) from None
        self.read: set[int] = set()  # row groups read whole
        self._tables: list[pa.Table] = []
        self._keys: pa.Table | None = None
        self._whole: pa.Table | None = None
        if self.index is None:  # scan: one row group is read whole, else the id columns
            if self.groups <= 1:
                self._whole = raw_rows(pf)
                self.read = set(range(self.groups))
            self._keys = self._whole if self._whole is not None else read_file(pf, columns=KEYS)

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
            raise unreadable(self.pf, e) from None
        self.read |= set(new)
        self._keys = None

    def keys(self) -> pa.Table:
        """The id columns of the rows at hand."""
        if self._keys is None:
            if not self._tables:
                return pa.table({c: pa.array([], pa.large_string()) for c in KEYS})
            self._keys = pa.concat_tables(self._tables).select(KEYS)
        return self._keys

    def matched(self, want: Wanted) -> pa.Table:
        """The id columns of the rows at hand that *want* matches."""
        keys = self.keys()
        return keys.filter(want.mask(keys))

    def rows(self, want: Wanted) -> pa.Table:
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
            raw = raw_rows(self.pf, groups)
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


def raw_rows(pf: Path, groups: list[int] | None = None) -> pa.Table:
    """Rows of store file *pf* as stored (hidden columns kept), optionally only *groups*."""
    try:
        with pq.ParquetFile(pf) as file:  # closed at once: stores hold thousands of files
            if groups is None:
                return file.read(use_threads=False)
            return file.read_row_groups(groups, use_threads=False)
    except (OSError, pa.ArrowException) as e:
        raise unreadable(pf, e) from None


def parts_of(store: Path, ids: dict[str, set[str]]) -> list[StorePart]:
    """The store files that can hold the selection: its ids' buckets, when the key map knows
    them (a bucket holds whole components), else every file."""
    manifest = read_manifest(store)
    if not manifest["files"]:
        raise InputError(
            f"the store {store} is empty", hint="run `toolcall ingest PATH...` first, or pass PATHs"
        )
    n = buckets_of(manifest)
    buckets = buckets_of_ids(store, ids, n)
    return [StorePart(pf) for pf in part_paths(store, manifest, buckets or None)]
