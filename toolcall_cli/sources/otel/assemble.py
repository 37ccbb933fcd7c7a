"""One file's event tables → one table in time order, column by column.

A large trace file's rows arrive as several tables (the conversation rows, the per-span rows,
one table per block of the column-wise path). Concatenating them and then sorting would hold
three copies of every row at the peak; here the sort order is computed from the time and
build-order keys alone (16 bytes a row), and each column is gathered in that order straight
from its pieces — Arrow text columns one at a time — and its pieces released
before the next column, so the peak is about one copy plus one column.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import pyarrow as pa

from toolcall_cli.model.events import concat_frames

_NAT = np.iinfo(np.int64).min
#: Output slices a text column is gathered in (the peak holds one slice's joined inputs).
_SLICES = 8
#: Slices gathered between two returns of freed memory to the OS (see `_gather_text`).
RELEASE_SLICES = 4


def sorted_union(parts: list[pd.DataFrame], orders: Sequence[np.ndarray | None]) -> pd.DataFrame:
    """*parts* as one table ordered by `ts` (timeless rows last), then by build order: the
    part, then the row's place in it — its position, or its key in *orders* when that gives
    the part's own order (any increasing keys). `seq` is the final position. Empties
    *parts* (its tables are released as their columns are copied)."""
    own = [*orders, *([None] * (len(parts) - len(orders)))]
    kept = [(p, o) for p, o in zip(parts, own, strict=True) if len(p)]
    parts[:] = [p for p, _ in kept]
    own = [o for _, o in kept]
    del kept
    if not parts:
        return concat_frames([])
    # build order first (each part by its own keys, parts one after another), then a stable
    # sort by time: both inputs are a few sorted runs (a block's requests, then its
    # responses), which numpy's stable sort merges in near-linear time
    starts = np.cumsum([0, *(len(p) for p in parts)])
    build = np.concatenate(
        [
            np.arange(a, b) if o is None else a + np.argsort(o, kind="stable")
            for a, b, o in zip(starts[:-1], starts[1:], own, strict=True)
        ]
    )
    ts = np.concatenate([p["ts"].array.asi8 for p in parts])[build]
    ts = np.where(ts == _NAT, np.iinfo(np.int64).max, ts)  # NaT sorts last
    order = build[np.argsort(ts, kind="stable")]
    del build, ts
    names = [*parts[0].columns, *(["seq"] if "seq" not in parts[0].columns else [])]
    # `seq` is not gathered: it is the final position, written below
    columns = {c: [p[c] for p in parts] for c in names if c != "seq"}
    parts.clear()
    out: dict[str, object] = {}
    plans: dict[tuple[int, ...], _Plan] = {}
    for c in names:
        if c == "seq":
            out[c] = np.arange(len(order), dtype=np.int64)
            continue
        out[c] = _gather(columns.pop(c), order, plans)
        # the pieces' many small buffers are free now; without this the allocator keeps them
        # and every column's new contiguous buffer adds to the resident set
        pa.default_memory_pool().release_unused()
    return pd.DataFrame(out, copy=False)


#: How a text column of given chunk sizes is gathered: per output slice, the chunks it joins,
#: the rows it takes from the joined chunks, and the chunks no later slice reads.
_Plan = list[tuple[list[int], pa.Array, list[int]]]


def _gather(
    pieces: list[pd.Series], order: np.ndarray, plans: dict[tuple[int, ...], _Plan]
) -> pd.Series:
    """The rows *order* names of the column whose parts are *pieces* (emptied: the pieces are
    let go as they are copied). *plans* caches the text gather plans by chunk sizes: most
    columns of a file's parts are chunked alike, and a plan costs a few passes over *order*."""
    dtype = pieces[0].dtype
    arrays = [s.array for s in pieces]
    pieces.clear()
    if all(isinstance(a, pd.arrays.ArrowStringArray) for a in arrays):
        chunks = [ch for a in arrays for ch in a._pa_array.chunks]
        arrays.clear()
        kind = chunks[0].type if chunks else pa.large_string()
        if all(ch.null_count == len(ch) for ch in chunks):  # e.g. `instance`: nothing to move
            return pd.Series(pd.arrays.ArrowStringArray(pa.nulls(len(order), kind)), dtype=dtype)
        chunks = [ch if ch.type == kind else ch.cast(kind) for ch in chunks]
        sizes = tuple(len(c) for c in chunks)
        plan = plans.get(sizes)
        if plan is None:
            plan = plans[sizes] = _plan(np.array(sizes, dtype=np.int64), order)
        return pd.Series(pd.arrays.ArrowStringArray(_gather_text(chunks, plan, kind)), dtype=dtype)
    first = arrays[0]
    if all(type(a) is type(first) and a.dtype == dtype for a in arrays):
        # array-level: a Series' take also gathers (then drops) an index of the taken labels
        joined = type(first)._concat_same_type(arrays)
        arrays.clear()
        return pd.Series(joined.take(order), copy=False)
    whole = pd.concat([pd.Series(a, copy=False) for a in arrays], ignore_index=True)
    arrays.clear()
    return whole.take(order).reset_index(drop=True)


def _plan(sizes: np.ndarray, order: np.ndarray) -> _Plan:
    """The gather plan of chunks of *sizes* in *order*: the output in `_SLICES` slices, each
    joining only the chunks it reads (Arrow's take over many chunks is several times slower
    than over one), and a chunk let go after the last slice that reads it."""
    n = len(order)
    starts = np.r_[0, np.cumsum(sizes)]
    owner = np.repeat(np.arange(len(sizes)), sizes)[order]  # the chunk each output row reads
    last = np.full(len(sizes), -1, dtype=np.int64)
    np.maximum.at(last, owner, np.arange(n))
    plan: _Plan = []
    step = max(1, -(-n // _SLICES))
    for a in range(0, n, step):
        b = min(n, a + step)
        own = owner[a:b]
        need = np.flatnonzero(np.bincount(own, minlength=len(sizes)))
        base = np.zeros(len(sizes), dtype=np.int64)
        base[need] = np.r_[0, np.cumsum(sizes[need])[:-1]]
        rows = pa.array(order[a:b] - starts[own] + base[own])
        plan.append(
            (need.tolist(), rows, np.flatnonzero((last < b) & ((last >= a) | (a == 0))).tolist())
        )
    return plan


def _gather_text(chunks: list[pa.Array], plan: _Plan, kind: pa.DataType) -> pa.ChunkedArray:
    """A text column's rows by *plan* (see `_plan`), from its *chunks* (emptied), one slice of
    the output at a time, so the peak is about one copy of the column, not the pieces plus a
    joined copy plus the result."""
    live: list[pa.Array | None] = list(chunks)
    chunks.clear()
    out: list[pa.Array] = []
    for k, (need, rows, done) in enumerate(plan):
        joined = pa.concat_arrays([live[i] for i in need])
        out.append(joined.take(rows))
        del joined
        for i in done:
            live[i] = None
        # the freed slices back to the OS every fourth slice: each return makes the next
        # slices fault their pages in again, so returning after every slice costs CPU and
        # system time, while returning only once per column raises the peak
        if k % RELEASE_SLICES == RELEASE_SLICES - 1:
            pa.default_memory_pool().release_unused()
    return pa.chunked_array(out, type=kind)
