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

from toolcall_cli.core.events import concat_frames

_NAT = np.iinfo(np.int64).min


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
    names = list(parts[0].columns)
    columns: dict[str, list[pd.Series]] = {c: [p[c] for p in parts] for c in names}
    parts.clear()
    taken = pa.array(order)
    out: dict[str, object] = {}
    for c in names:
        out[c] = _gather(columns.pop(c), order, taken)
        # the pieces' many small buffers are free now; without this the allocator keeps them
        # and every column's new contiguous buffer adds to the resident set
        pa.default_memory_pool().release_unused()
    frame = pd.DataFrame(out, copy=False)
    frame["seq"] = np.arange(len(frame), dtype=np.int64)
    return frame


def _gather(pieces: list[pd.Series], order: np.ndarray, taken: pa.Array) -> pd.Series:
    """The rows *order* names of the column whose parts are *pieces* (emptied: each piece is
    let go once it is copied into the joined column, so the peak is two copies of one column,
    not three)."""
    dtype = pieces[0].dtype
    arrays = [s.array for s in pieces]
    pieces.clear()
    if all(isinstance(a, pd.arrays.ArrowStringArray) for a in arrays):
        chunks = [ch for a in arrays for ch in a._pa_array.chunks]
        arrays.clear()
        kind = chunks[0].type if chunks else pa.large_string()
        chunks = [ch if ch.type == kind else ch.cast(kind) for ch in chunks]
        # one contiguous column, then take: Arrow's take over many chunks is ~3× slower
        joined = pa.concat_arrays(chunks) if chunks else pa.array([], kind)
        chunks.clear()
        pa.default_memory_pool().release_unused()
        return pd.Series(
            pd.arrays.ArrowStringArray(pa.chunked_array([joined.take(taken)])), dtype=dtype
        )
    whole = pd.concat([pd.Series(a, copy=False) for a in arrays], ignore_index=True)
    arrays.clear()
    return whole.take(order).reset_index(drop=True)
