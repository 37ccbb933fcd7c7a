"""A clean JSON-lines middleware log read in parallel blocks (the adapter's hot path).

The file is cut at line ends into one or two blocks per CPU (none under MIN_BLOCK). On a small
thread pool (pyarrow's readers and kernels release the GIL) each block is scanned for line
ends, parsed by pyarrow and turned into event columns; the blocks' columns are then joined.
Row for row the result is what one pyarrow call over the whole file gives:

- a blank line, a block pyarrow refuses, or key types that disagree between blocks (other than
  int and float, which pyarrow widens to float: those int blocks are redone as floats) give
  None, and the caller reads the file as it always did;
- `attrs` objects are laid out with the whole file's set of always-present members
  (json_objects writes those first), not each block's: blocks that differ are laid out again.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd
import pyarrow as pa

from toolcall_cli.sources._shared.attrs_text import AttrFields, attrs_text
from toolcall_cli.sources._shared.jsonlines import JsonColumns, pinned_schema, read_json_buffer
from toolcall_cli.sources._shared.logtime import parse_times
from toolcall_cli.sources._shared.textlog import frame, to_str_series
from toolcall_cli.sources.middleware.fields import ALIASES, resolve
from toolcall_cli.sources.middleware.rows import row_columns

#: Smallest block worth its fixed cost (each block compiles every regex of the row pipeline).
MIN_BLOCK = 8 << 20

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
    """One or two blocks per worker, none smaller than MIN_BLOCK (one block on one CPU)."""
    if n_workers <= 1 or total < 2 * MIN_BLOCK:
        return max(total, 1)
    if total < MIN_BLOCK * n_workers:
        return -(-total // (total // MIN_BLOCK))
    rounds = min(2, total // (MIN_BLOCK * n_workers))
    return -(-total // (n_workers * rounds))


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
class _Block:
    """One block of the file and what has been made of it."""

    start: int
    end: int
    lines: int = 0
    first: int = 0  # lines before this block
    parsed: JsonColumns | None = None
    columns: dict[str, Any] = field(default_factory=dict)
    fields: AttrFields = field(default_factory=list)
    full: frozenset[str] = frozenset()  # attrs members with a value on every row

    def scan(self, data: bytes) -> bool:
        """Count the lines; False when one is blank (pyarrow would skip it, shifting lines)."""
        start, end = self.start, self.end
        self.lines = data.count(b"\n", start, end) + (data[end - 1] != 10)
        return data[start] != 10 and data.find(b"\n\n", start, end) < 0

    def parse(self, buf: pa.Buffer, schema: pa.Schema, threads: bool) -> bool:
        """pyarrow's columns for the block; False when it refuses them."""
        size = self.end - self.start
        # in pyarrow's own 1 MiB blocks: one block of the whole costs more CPU, not less (its
        # builders grow through the whole block), although no chunks are joined afterwards
        self.parsed = read_json_buffer(
            buf.slice(self.start, size), self.lines, schema=schema, use_threads=threads
        )
        return self.parsed is not None

    def rows(self, path: Path, tz: str) -> None:
        """Event columns (attrs laid out for this block alone) from the parsed columns."""
        assert self.parsed is not None
        fields = resolve(self.parsed.columns, self.lines)
        line_no = pa.array(np.arange(self.first + 1, self.first + self.lines + 1, dtype="int64"))
        self.columns, self.fields = row_columns(fields, line_no=line_no, path=path, tz=tz)
        self.columns["attrs"] = to_str_series(attrs_text(self.fields, self.lines))
        self.full = frozenset(k for k, v, _ in self.fields if len(v) and v.null_count == 0)

    def relayout(self, full: frozenset[str]) -> None:
        """attrs laid out as json_objects() lays out the whole file: one extra row, non-null
        exactly for the file-wide *full* members, makes every other member sparse."""
        padded: AttrFields = []
        for key, values, kind in self.fields:
            pad = values.slice(0, 1) if key in full else pa.nulls(1, values.type)
            padded.append((key, pa.concat_arrays([values, pad]), kind))
        attrs = attrs_text(padded, self.lines + 1).slice(0, self.lines)
        self.columns["attrs"] = to_str_series(attrs)


def _widen(blocks: list[_Block]) -> list[_Block] | None:
    """Blocks whose int columns must become float as in a whole-file read (pyarrow widens
    int + float to float); None when key types disagree in any other way."""
    types: dict[str, set[pa.DataType]] = {}
    for b in blocks:
        assert b.parsed is not None
        for key, arr in b.parsed.columns.items():
            if not pa.types.is_null(arr.type):
                types.setdefault(key, set()).add(arr.type)
    mixed = {k for k, seen in types.items() if len(seen) > 1}
    if any(types[k] != {pa.int64(), pa.float64()} for k in mixed):
        return None
    redo = []
    for b in blocks:
        assert b.parsed is not None
        cols = b.parsed.columns
        ints = [k for k in mixed if k in cols and cols[k].type == pa.int64()]
        for k in ints:
            cols[k] = cols[k].cast(pa.float64(), safe=False)  # rounds past 2**53, as pyarrow does
        if ints:
            redo.append(b)
    return redo


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


def read_blocks(
    data: bytes, path: Path, tz: str, *, block_bytes: int | None = None
) -> pd.DataFrame | None:
    """The event table of *data* (JSON-object lines) read block by block in parallel; None
    when it has blank lines or the blocks cannot be read like one (see the module docstring)."""
    schema = pinned_schema(data[: 1 << 16].split(b"\n", 1)[0], ALIASES["ts"])
    if schema is None or not data:
        return None
    size = block_bytes or block_bytes_for(len(data), workers())
    blocks = [_Block(s, e) for s, e in split_blocks(data, size)]
    buf = pa.py_buffer(data)
    n_workers = min(workers(), len(blocks))
    pool = ThreadPoolExecutor(n_workers) if n_workers > 1 else None
    try:
        if not all(b.scan(data) for b in blocks):  # (C loops: no threads needed)
            return None
        for prev, b in itertools.pairwise(blocks):
            b.first = prev.first + prev.lines

        refused: list[_Block] = []

        def work(b: _Block) -> bool:
            if not b.parse(buf, schema, threads=pool is None):
                refused.append(b)  # the others need not build rows that will be thrown away
            if refused:
                return False
            b.rows(path, tz)
            return True

        if not all(_map(pool, work, blocks)):
            return None
        redo = _widen(blocks) if len(blocks) > 1 else []
        if redo is None:
            return None
        full = frozenset.intersection(*(b.full for b in blocks))

        def fix(b: _Block) -> None:
            if b in redo:
                b.rows(path, tz)
            if b.full != full:
                b.relayout(full)

        _map(pool, fix, [b for b in blocks if b in redo or b.full != full])
        lengths = [b.lines for b in blocks]
        parts = [b.columns for b in blocks]
        blocks.clear()  # the parsed columns go before the table is assembled
        redo.clear()
        return frame(_join(parts, lengths, tz) if len(parts) > 1 else parts[0], sum(lengths))
    finally:
        if pool is not None:
            pool.shutdown()
