"""A clean JSON-lines middleware log read in parallel blocks (the adapter's hot path).

The file is cut at line ends into blocks of at most MAX_BLOCK (one or two per CPU, none under
MIN_BLOCK); a plain file is read block by block into a few reused buffers, never whole. On a
small thread pool (numpy, pyarrow's reader and its kernels release the GIL) each block's line
ends are counted and the block is parsed by pyarrow (in one pyarrow block, so its columns need
no joining); then every block's event columns are made. Row for row the result is what one
pyarrow call over the whole file gives:

- a blank line (pyarrow would skip it, shifting the lines), a CR line end, a block
  pyarrow refuses, or key types that disagree between blocks (other than int and float, which
  pyarrow widens to float: those int columns are widened before any row is made) give None,
  and the caller reads the file as it always did;
- `attrs` objects are laid out with the whole file's set of always-present members
  (json_objects writes those first), not each block's.

The blocks' event tables are handed on one by one (`block_tables`: `toolcall ingest` redacts,
summarises and writes each before the next is made), or joined end to end (`join_blocks`).
"""

from __future__ import annotations

import itertools
import os
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd
import pyarrow as pa

from toolcall_cli.sources._shared.attrs_text import AttrFields, attrs_text
from toolcall_cli.sources._shared.jsonlines import (
    JsonColumns,
    pinned_schema,
    read_json_buffer,
    scalar_schema,
)
from toolcall_cli.sources._shared.line_blocks import LineBlocks
from toolcall_cli.sources._shared.logtime import parse_times
from toolcall_cli.sources._shared.textlog import frame, to_str_series
from toolcall_cli.sources.middleware.fields import ALIASES, resolve
from toolcall_cli.sources.middleware.rows import row_columns

#: Smallest block worth its fixed cost (each block compiles every regex of the row pipeline).
MIN_BLOCK = 8 << 20
#: Largest block: a block's event table is what a streamed ingest holds beyond the parsed file.
MAX_BLOCK = 32 << 20

T = TypeVar("T")
R = TypeVar("R")


def workers() -> int:
    """Threads to read with: the CPUs this process may run on, at most 8."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(8, cpus))


def block_bytes_for(total: int, n_workers: int) -> int:
    """One or two blocks per worker, none smaller than MIN_BLOCK nor larger than MAX_BLOCK
    (one block on one CPU, up to MAX_BLOCK)."""
    if n_workers <= 1 or total < 2 * MIN_BLOCK:
        return max(min(total, MAX_BLOCK), 1)
    if total < MIN_BLOCK * n_workers:
        return -(-total // (total // MIN_BLOCK))
    rounds = min(2, total // (MIN_BLOCK * n_workers))
    return min(MAX_BLOCK, -(-total // (n_workers * rounds)))


def split_blocks(data: bytes, size: int) -> list[tuple[int, int]]:
    """(start, end) of blocks of at least *size* bytes that end at a line end (or at EOF)."""
    out: list[tuple[int, int]] = []
    start, total = 0, len(data)
    while start < total:
        cut = start + size
        nl = data.find(b"\n", cut - 1) if cut < total else -1
        end = total if nl < 0 else nl + 1
        out.append((start, end))
        start = end
    return out


@dataclass(slots=True, eq=False)
class Block:
    """One block of the file and what has been made of it."""

    raw: pa.Buffer | None  # the block's bytes, until parsed
    lines: int = 0
    first: int = 0  # lines before this block
    parsed: JsonColumns | None = None
    columns: dict[str, Any] = field(default_factory=dict)
    fields: AttrFields = field(default_factory=list)
    full: frozenset[str] = frozenset()  # attrs members with a value on every row

    def parse(self, schemas: tuple[pa.Schema, ...], threads: bool) -> bool:
        """Count the lines, then pyarrow's columns for the block, read with the first of
        *schemas* it accepts; False when it refuses them all, or a line is blank or ends in
        CR (see _line_ends)."""
        assert self.raw is not None
        view = np.frombuffer(self.raw, np.uint8)
        newlines, clean = _line_ends(view)
        self.lines = newlines + int(view[-1] != 10)
        del view
        if not clean:
            return False
        size = self.raw.size
        # one pyarrow block per block (up to MAX_BLOCK): its columns come as one chunk each,
        # not as 1 MiB chunks that cost a copy of the whole block to join
        for schema in schemas:
            self.parsed = read_json_buffer(
                self.raw,
                self.lines,
                schema=schema,
                use_threads=threads,
                block_size=min(max(size + 1, 1 << 20), 1 << 30),
            )
            if self.parsed is not None:
                return True
        return False

    def rows(self, path: Path, tz: str) -> None:
        """Event columns but `attrs` from the parsed columns, which then go (the members
        `attrs` is made of stay, see attrs())."""
        assert self.parsed is not None
        fields = resolve(self.parsed.columns, self.lines)
        self.parsed = None
        line_no = pa.array(np.arange(self.first + 1, self.first + self.lines + 1, dtype="int64"))
        self.columns, self.fields = row_columns(fields, line_no=line_no, path=path, tz=tz)
        self.full = frozenset(k for k, v, _ in self.fields if len(v) and v.null_count == 0)

    def attrs(self, full: frozenset[str]) -> None:
        """`attrs` laid out as json_objects() lays out the whole file, whose always-present
        members are *full*: when this block has more, one extra row, non-null exactly for the
        *full* members, makes every other member sparse."""
        if self.full == full:
            attrs = attrs_text(self.fields, self.lines)
        else:
            padded: AttrFields = []
            for key, values, kind in self.fields:
                pad = values.slice(0, 1) if key in full else pa.nulls(1, values.type)
                padded.append((key, pa.concat_arrays([values, pad]), kind))
            attrs = attrs_text(padded, self.lines + 1).slice(0, self.lines)
        self.columns["attrs"] = to_str_series(attrs)
        self.fields = []


#: Bytes compared at a time when counting line ends (a small temporary, reused, cache-warm).
_STRIDE = 1 << 18


def _line_ends(view: np.ndarray) -> tuple[int, bool]:
    """The newlines in *view* (a block: it starts a line), and whether it holds no CR (a CR
    line end leaves the block path). A blank line needs no test of its own: pyarrow skips it,
    so the block has fewer rows than lines, and read_json_buffer refuses it for that. numpy
    does it without holding the GIL, a stride at a time into one reused, cache-warm mask."""
    newlines, clean = 0, True
    mask = np.empty(_STRIDE, bool)
    for at in range(0, len(view), _STRIDE):
        part = view[at : at + _STRIDE]
        hits = mask[: len(part)]
        newlines += int(np.count_nonzero(np.equal(part, 10, out=hits)))
        clean = clean and not np.count_nonzero(np.equal(part, 13, out=hits))
    return newlines, clean


def _widen(blocks: list[Block]) -> bool:
    """Int columns made float where another block has floats, as in a whole-file read
    (pyarrow widens int + float to float); text read as string in some blocks and as
    large_string in others (see scalar_schema) made large_string; False when key types
    disagree in any other way."""
    types: dict[str, set[pa.DataType]] = {}
    for b in blocks:
        assert b.parsed is not None
        for key, arr in b.parsed.columns.items():
            if not pa.types.is_null(arr.type):
                types.setdefault(key, set()).add(arr.type)
    mixed = {k: frozenset(seen) for k, seen in types.items() if len(seen) > 1}
    if any(seen not in _WIDENED for seen in mixed.values()):
        return False
    for b in blocks:
        assert b.parsed is not None
        cols = b.parsed.columns
        for k, seen in mixed.items():
            wide = _WIDENED[seen]
            if k in cols and not pa.types.is_null(cols[k].type) and cols[k].type != wide:
                cols[k] = cols[k].cast(wide, safe=False)  # rounds past 2**53, as pyarrow
    return True


#: Pairs of block types a whole-file read gives one type for, and that type.
_WIDENED: dict[frozenset[pa.DataType], pa.DataType] = {
    frozenset({pa.int64(), pa.float64()}): pa.float64(),
    frozenset({pa.string(), pa.large_string()}): pa.large_string(),
}


def _join(parts: list[dict[str, Any]], lengths: list[int], tz: str) -> dict[str, Any]:
    """The blocks' event columns joined end to end (text columns as chunked arrays, no copy)."""
    if any("ts" in p for p in parts):
        for p, n in zip(parts, lengths, strict=True):
            if "ts" not in p:
                p["ts"] = parse_times(pa.nulls(n, pa.large_string()), tz)
    out: dict[str, Any] = {}
    for name, first in parts[0].items():
        values = [p[name] for p in parts]
        if isinstance(first, np.ndarray):
            out[name] = np.concatenate(values)
        elif isinstance(first, pd.Series):
            out[name] = pd.concat(values, ignore_index=True)
        else:  # a pandas extension array (Int64 columns)
            out[name] = type(first)._concat_same_type(values)
    return out


def _map(pool: ThreadPoolExecutor | None, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
    return list(pool.map(fn, items) if pool is not None else map(fn, items))


def _pool(n: int) -> ThreadPoolExecutor | None:
    n_workers = min(workers(), n)
    return ThreadPoolExecutor(n_workers) if n_workers > 1 else None


def read_blocks(
    data: bytes, path: Path, tz: str, *, block_bytes: int | None = None
) -> pd.DataFrame | None:
    """The event table of *data* (JSON-object lines) read block by block in parallel; None
    when it has blank lines or the blocks cannot be read like one (see the module docstring)."""
    blocks = parse_blocks(data, block_bytes=block_bytes)
    return None if blocks is None else join_blocks(blocks, path, tz)


def join_blocks(blocks: list[Block], path: Path, tz: str) -> pd.DataFrame:
    """The event table of parsed *blocks*, joined end to end."""
    full = block_rows(blocks, path, tz)
    for b in blocks:
        b.attrs(full)
    lengths = [b.lines for b in blocks]
    parts = [b.columns for b in blocks]
    blocks.clear()  # the blocks' columns live on in the joined table only
    return frame(_join(parts, lengths, tz) if len(parts) > 1 else parts[0], sum(lengths))


def parse_blocks(data: bytes, *, block_bytes: int | None = None) -> list[Block] | None:
    """The blocks of *data* (JSON-object lines), parsed by pyarrow in parallel, int columns
    widened where other blocks hold floats; None as for `read_blocks`. The blocks hold no
    reference to *data*: it may go once they are parsed."""
    if not data:
        return None
    buf = pa.py_buffer(data)
    size = block_bytes or block_bytes_for(len(data), workers())
    pieces = ((buf.slice(s, e - s), None) for s, e in split_blocks(data, size))
    return _parse_all(pieces, several=size < len(data), release=None)


def parse_file_blocks(path: Path) -> list[Block] | None:
    """parse_blocks() of a plain file read block by block (a few block buffers are filled
    again and again: the file is never in memory whole); None as for `read_blocks`."""
    total = path.stat().st_size
    size = block_bytes_for(total, workers())
    reader = LineBlocks(path, size)
    return _parse_all(iter(reader), several=size < total, release=reader.release)


def _parse_all(
    pieces: Iterator[tuple[pa.Buffer, bytearray | None]],
    *,
    several: bool,
    release: Callable[[bytearray], None] | None,
) -> list[Block] | None:
    """Blocks of *pieces* parsed on a pool (when there are *several*), as many at a time as it
    has workers, the next piece read meanwhile; a piece's memory is released once parsed."""
    n_workers = workers() if several else 1
    pool = ThreadPoolExecutor(n_workers) if n_workers > 1 else None
    blocks: list[Block] = []
    schemas: tuple[pa.Schema, ...] = ()
    running: deque[Future[bool]] = deque()

    def parse(b: Block, memory: bytearray | None) -> bool:
        try:
            return b.parse(schemas, threads=pool is None)
        finally:
            b.raw = None
            if memory is not None and release is not None:
                release(memory)

    ok = True
    try:
        for raw, memory in pieces:
            if not schemas:  # the first block: JSON objects from its first byte on
                head = memoryview(raw)[: 1 << 16].tobytes()
                first_line = head.split(b"\n", 1)[0]
                narrow = pinned_schema(first_line, ALIASES["ts"])
                if narrow is None or not head.startswith(b"{"):
                    return None
                # every scalar key typed (cheaper to read); the time keys alone when a
                # block refuses those types (a column that changes type, see scalar_schema)
                wide = scalar_schema(first_line, ALIASES["ts"])
                schemas = (narrow,) if wide is None or wide == narrow else (wide, narrow)
            b = Block(raw)
            blocks.append(b)
            if pool is None:
                ok = parse(b, memory)
            else:
                running.append(pool.submit(parse, b, memory))
                while ok and len(running) >= n_workers:  # read on while the pool is full
                    ok = running.popleft().result()
            if not ok:
                break
        while running:
            ok = running.popleft().result() and ok
    finally:
        if isinstance(pieces, Generator):
            pieces.close()
        if pool is not None:
            pool.shutdown()
    if not ok or not blocks:
        return None
    for prev, b in itertools.pairwise(blocks):
        b.first = prev.first + prev.lines
    if len(blocks) > 1 and not _widen(blocks):
        return None
    return blocks


def block_rows(blocks: list[Block], path: Path, tz: str) -> frozenset[str]:
    """Every block's event columns but `attrs` (in parallel); the file's always-present attrs
    members, which `Block.attrs` lays the objects out by."""
    pool = _pool(len(blocks))
    try:
        _map(pool, lambda b: b.rows(path, tz), blocks)
    finally:
        if pool is not None:
            pool.shutdown()
    return frozenset.intersection(*(b.full for b in blocks))


def block_tables(blocks: list[Block], path: Path, tz: str) -> Iterator[tuple[int, pd.DataFrame]]:
    """(first row, event table) of each parsed block, in order, as `read_blocks` would join
    them; a block's `attrs` are made when it is asked for, and it goes once handed on."""
    full = block_rows(blocks, path, tz)
    timed = any("ts" in b.columns for b in blocks)
    blocks.reverse()
    while blocks:
        b = blocks.pop()
        b.attrs(full)
        if timed and "ts" not in b.columns:  # a block without times: null times (as _join)
            b.columns["ts"] = parse_times(pa.nulls(b.lines, pa.large_string()), tz)
        yield b.first, frame(b.columns, b.lines)
        del b
