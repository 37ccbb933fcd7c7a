"""Writing inputs into the bucketed store (layout 4, store/layout.py).

An ingest hands its inputs to a :class:`BucketWriter` one at a time. Their rows are converted
to Arrow `FLUSH_ROWS` at a time (a big input slice by slice, thousands of small ones together)
and buffered until `WRITE_ROWS` rows or `WRITE_BYTES` bytes have gathered, so a store of
10,000 one-line logs is written as a few dozen parts, not 10,000 files, and a million-line
input as a few parts per bucket, not one per bucket and slice. A flush:

1. adds the rows' keys to the key map (store/buckets.py), which says which components the
   new rows linked or grew, and so which buckets hold rows that must move;
2. re-reads the parts of those buckets (and the parts holding old rows of a re-ingested input,
   which it leaves out), so every row is placed by its component's bucket as it is now;
3. writes the rows of each bucket as one new part, merging in the bucket's small parts once it
   holds `MAX_SMALL` of them (compaction as the store is written).

Every part written is staged (`<part>.parquet.new`); the ingest commits them all with one
manifest rename (store/write.py). Parts this ingest staged and then replaced are deleted at once;
committed parts it replaced stay named by the old manifest until the commit, then are removed.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from toolcall_cli.errors import InputError
from toolcall_cli.model.events import COLUMNS, UNPARSED, EventChunk
from toolcall_cli.store import index as store_index
from toolcall_cli.store import manifest as store_manifest
from toolcall_cli.store import part_files
from toolcall_cli.store import read as store_read
from toolcall_cli.store.layout import FILE, KEYS_FILE, ROW, bucket_dir

#: What an ingest hands `store.write.write_files` per input: (path, source, its events whole
#: or as chunks).
InputPart = tuple[Path, str, pd.DataFrame | Iterable[EventChunk]]

FLUSH_ROWS = 65_536  # rows converted to Arrow at a time (the copies on the way stay this large)
WRITE_ROWS = 1_048_576  # buffered Arrow rows that trigger a flush (one linking pass, a part
WRITE_BYTES = 32 << 20  # per bucket), or buffered Arrow bytes: a flush per FLUSH_ROWS would
# write many small parts each time and merge them again and again; a flush holds about three
# copies of the buffer, so the byte cap keeps a large agent session's ingest under 1 GiB at no
# cost in CPU time
SMALL_ROWS = 8_192  # a part under one row group is small: merged once a bucket holds MAX_SMALL
MAX_SMALL = 4
KEYMAP_ROW_GROUP = 8_192  # a one-trace lookup reads the key map's row group per key, no more


def new_part_key() -> str:
    """A fresh part key (the same shape as an input's key: 20 hex digits)."""
    return secrets.token_hex(10)


def part_file(store_dir: Path, bucket: int, part: str) -> Path:
    """The data file of *part* in *bucket*."""
    return bucket_dir(store_dir, "events", bucket) / f"{part}.parquet"


def read_keymap(store_dir: Path) -> Any:
    """The store's key map (align.buckets.KeyMap), empty when it has none."""
    from toolcall_cli.store.buckets import KeyMap

    path = store_dir / KEYS_FILE
    if not path.exists():
        return KeyMap.empty()
    try:
        table = pq.read_table(path)
        keys = table["key"].combine_chunks().cast(pa.large_string())
        return KeyMap(keys, table["label"].combine_chunks().cast(pa.large_string()))
    except (OSError, KeyError, pa.ArrowException) as e:
        raise InputError(
            f"store key map {path} is unreadable: {e}", hint="delete the store and re-ingest"
        ) from None


def input_table(inputs: list[tuple[str, pd.DataFrame, int | np.ndarray]]) -> pa.Table:
    """Inputs' events (key, frame, row of the frame's first event in its input, or every
    row's) as one store table: the event columns, `_file` and `_row`. Small inputs are
    converted together: one conversion costs as much as thousands of rows."""
    frames = [df for _, df, _ in inputs]
    df = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
    table = pa.Table.from_pandas(
        df.astype(COLUMNS), schema=store_read.expected_schema(), preserve_index=False
    )
    sizes = [len(f) for f in frames]
    keys = pa.DictionaryArray.from_arrays(
        pa.array(np.repeat(np.arange(len(inputs), dtype=np.int32), sizes)),
        pa.array([k for k, _, _ in inputs], pa.large_string()),
    ).cast(pa.large_string())
    if all(isinstance(first, int) for _, _, first in inputs):
        starts = np.repeat(np.cumsum([0, *sizes[:-1]]), sizes)
        firsts = np.repeat(np.array([first for _, _, first in inputs], dtype=np.int64), sizes)
        rows = np.arange(len(df), dtype=np.int64) - starts + firsts
    else:  # a streamed input's held-back rows name their own positions
        rows = np.concatenate(
            [EventChunk(f, first).positions() for (_, f, first) in inputs]
            or [np.empty(0, np.int64)]
        )
    return table.append_column(FILE, keys).append_column(ROW, pa.array(rows))


def normalise(table: pa.Table, part: str) -> pa.Table:
    """A part read back with the event columns, `_file` and `_row`, in the one schema parts
    are written in."""
    names = [f.name for f in store_read.expected_schema()]
    schema = pa.schema(
        [
            *store_read.expected_schema(),
            pa.field(FILE, pa.large_string()),
            pa.field(ROW, pa.int64()),
        ]
    )
    try:
        return table.select([*names, FILE, ROW]).cast(schema)
    except (KeyError, pa.ArrowException) as e:
        raise store_read.damaged(part, str(e).splitlines()[0][:200]) from None


class BucketWriter:
    """The parts of one ingest as it goes: which are live, which it staged, its key map."""

    def __init__(self, store_dir: Path, parts: dict[str, dict[str, Any]], buckets: int) -> None:
        self.store_dir = store_dir
        self.buckets = buckets
        self.parts = dict(parts)  # part -> {"bucket", "rows", "inputs"}: the live set
        self.staged: set[str] = set()  # parts written by this ingest (not committed yet)
        self.keymap = read_keymap(store_dir)
        self.keymap_changed = False
        self._buffer: list[pa.Table] = []
        # inputs not converted yet: (key, frame, where its rows sit in the input)
        self._frames: list[tuple[str, pd.DataFrame, int | np.ndarray]] = []
        self._framed = 0  # their rows
        self._buffered = 0  # rows in _buffer
        self._buffered_bytes = 0
        self._dirty: set[str] = set()  # parts holding rows of inputs being replaced
        self._removed: set[str] = set()  # those inputs

    def replace_input(self, key: str) -> None:
        """Input *key* is being ingested again: its rows in the store go at the next flush."""
        self._removed.add(key)
        self._dirty |= {p for p, e in self.parts.items() if key in e["inputs"]}

    def add(self, table: pa.Table) -> None:
        """Rows carried over (an older layout's parts, as :func:`normalise` gives them)."""
        self._buffer.append(table)
        self._buffered += table.num_rows
        self._buffered_bytes += table.nbytes
        if self._buffered >= WRITE_ROWS or self._buffered_bytes >= WRITE_BYTES:
            self.flush()

    def add_input(self, key: str, df: pd.DataFrame, *, at: int | np.ndarray = 0) -> None:
        """One input's events (an adapter's frame, or one chunk of a streamed input whose rows
        sit at *at*: see `EventChunk`), converted slice by slice: a big input's copies on the
        way to Arrow (dtypes, Arrow) stay one slice large."""
        for lo in range(0, max(len(df), 1), FLUSH_ROWS):
            piece = df.iloc[lo : lo + FLUSH_ROWS]
            place = at + lo if isinstance(at, int) else at[lo : lo + FLUSH_ROWS]
            self._frames.append((key, piece, place))
            self._framed += len(piece)
            if self._framed >= FLUSH_ROWS:
                self._convert()

    def _convert(self) -> None:
        """The frames gathered so far, as one store table in the buffer."""
        if self._frames:
            table = input_table(self._frames)
            self._frames, self._framed = [], 0
            self.add(table)

    def add_events(self, key: str, events: pd.DataFrame | Iterable[EventChunk]) -> tuple[int, int]:
        """One input's events, whole or as the chunks a streaming adapter hands on (each is
        added before the next is parsed); (rows, unparsed rows) added."""
        chunks = [EventChunk(events)] if isinstance(events, pd.DataFrame) else events
        rows = unparsed = 0
        for chunk in chunks:
            rows += len(chunk.frame)
            unparsed += int((chunk.frame["kind"] == UNPARSED).sum())
            self.add_input(key, chunk.frame, at=chunk.at)
            del chunk
        return rows, unparsed

    def read_part(self, part: str) -> pa.Table:
        entry = self.parts[part]
        pf = part_file(self.store_dir, int(entry["bucket"]), part)
        if part in self.staged:
            pf = pf.with_name(pf.name + store_manifest.STAGED)
        try:
            table = pq.read_table(pf)
        except (OSError, pa.ArrowException) as e:
            raise InputError(f"store file {pf} is unreadable: {e}", hint="re-ingest") from None
        store_read.check_schema(table.schema, pf)
        table = normalise(table, part)
        if part in self._dirty:
            keep = pc.invert(pc.is_in(table[FILE], value_set=pa.array(sorted(self._removed))))
            table = table.filter(keep)
        return table

    def drop_part(self, part: str) -> None:
        entry = self.parts.pop(part)
        if part in self.staged:  # never committed: gone at once
            self.staged.discard(part)
            pf = part_file(self.store_dir, int(entry["bucket"]), part)
            for f in (pf, pf.with_suffix(".index")):
                f.with_name(f.name + store_manifest.STAGED).unlink(missing_ok=True)

    def flush(self) -> None:
        """Place the buffered rows (and the rows they move) into their buckets' parts."""
        from toolcall_cli.store.buckets import bucket_array, link, row_keys

        if self._frames:
            self._buffer.append(input_table(self._frames))
        batch = self._buffer
        self._buffer, self._frames, self._framed = [], [], 0
        self._buffered = self._buffered_bytes = 0
        moved: set[int] = set()
        anchors: list[pa.Array] = []
        if batch:
            keys = row_keys(pa.concat_tables(batch))
            self.keymap, moved = link(self.keymap, keys, self.buckets)
            self.keymap_changed = True
            anchors.append(keys[0])
        reread = sorted(self._dirty | {p for p, e in self.parts.items() if e["bucket"] in moved})
        tables = [*batch, *(self.read_part(p) for p in reread)]
        for p in reread:
            self.drop_part(p)
        self._dirty, self._removed = set(), set()
        if reread:  # the moved rows' keys (the batch's are known already)
            anchors.append(row_keys(pa.concat_tables(tables[len(batch) :]))[0])
        tables = [t for t in tables if t.num_rows]
        if not tables:
            return
        rows = pa.concat_tables(tables)
        anchor = pa.concat_arrays([a.cast(pa.large_string()) for a in anchors])
        buckets = bucket_array(self.keymap.label_of(anchor), self.buckets)
        # one sort by bucket, then a slice per bucket (not a filter of every row per bucket)
        order = np.argsort(buckets, kind="stable")
        rows, buckets = rows.take(pa.array(order)), buckets[order]
        starts = np.flatnonzero(np.r_[True, buckets[1:] != buckets[:-1]])
        for lo, hi in zip(starts, [*starts[1:], len(buckets)], strict=True):
            self.write_bucket(int(buckets[lo]), rows.slice(int(lo), int(hi - lo)))

    def write_bucket(self, bucket: int, rows: pa.Table) -> None:
        small = sorted(
            p
            for p, e in self.parts.items()
            if e["bucket"] == bucket and int(e["rows"]) < SMALL_ROWS
        )
        if len(small) >= MAX_SMALL:  # compaction: the bucket's small parts join this write
            rows = pa.concat_tables([rows, *(self.read_part(p) for p in small)])
            for p in small:
                self.drop_part(p)
        part = new_part_key()
        target = part_file(self.store_dir, bucket, part)
        try:
            part_files.stage_table(target.parent, part, part_files.sort_rows(rows))
        except OSError as e:
            why = e.strerror or e
            raise InputError(f"cannot write the store {self.store_dir}: {why}") from None
        inputs = sorted(set(rows[FILE].unique().to_pylist()))
        self.parts[part] = {"bucket": bucket, "rows": rows.num_rows, "inputs": inputs}
        self.staged.add(part)

    def finish(self) -> list[str]:
        """Flush what is left and stage the key map; the parts to commit."""
        self.flush()
        if self.keymap_changed:
            sink = pa.BufferOutputStream()
            pq.write_table(
                self.keymap.to_table(), sink, compression="zstd", row_group_size=KEYMAP_ROW_GROUP
            )
            store_manifest.write_atomic(
                self.store_dir / f"{KEYS_FILE}{store_manifest.STAGED}", sink.getvalue().to_pybytes()
            )
        return sorted(self.staged)


def remove_unnamed(store_dir: Path, manifest: dict[str, Any]) -> None:
    """Delete data files and indexes the committed *manifest* no longer names."""
    named = {p.stem for p in store_manifest.part_paths(store_dir, manifest)}
    suffixes = (".parquet", store_index.SUFFIX)
    for pattern in (f"bucket=*/*{x}" for x in suffixes):
        for f in (store_dir / "events").glob(pattern):
            if f.stem not in named and store_manifest.STORE_KEY.fullmatch(f.stem):
                f.unlink(missing_ok=True)
