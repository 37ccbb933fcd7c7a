"""Column-wise lookups the OR, PR, TR and TM rules share on a large store.

`RowsByKey` answers "which rows carry this id" without a DataFrame groupby over Arrow strings
(which costs seconds at a million events); `attr_list` / `has_key` read one attrs field over a
frame as a plain list / boolean mask; `objects` turns a column into a plain list with None for
nulls, so rule loops never touch pandas scalars.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.diagnose.base import DiagnoseContext

__all__ = [
    "RowsByKey",
    "attr_list",
    "has_key",
    "isin_set",
    "objects",
    "rows_by_call",
    "rows_of_calls",
]


class RowsByKey:
    """Row labels of a frame per value of one column (nulls left out), in frame order."""

    def __init__(self, values: pd.Series) -> None:
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
        labels = values.index.to_numpy()
        keep = codes >= 0
        codes, labels = codes[keep], labels[keep]
        order = np.argsort(codes, kind="stable")
        self._labels = labels[order]
        bounds = np.searchsorted(codes[order], np.arange(len(uniques) + 1), side="left")
        self._start = bounds[:-1].tolist()
        self._end = bounds[1:].tolist()
        self._code = {u: k for k, u in enumerate(uniques.tolist())}

    def __contains__(self, key: object) -> bool:
        return key in self._code

    def get(self, key: Any) -> np.ndarray | None:
        """The labels of the rows whose value is *key* (None when there are none)."""
        k = self._code.get(key)
        if k is None:
            return None
        return self._labels[self._start[k] : self._end[k]]

    def labels(self, key: Any) -> list[int]:
        """`get` as a list of ints ([] when there are none)."""
        got = self.get(key)
        return [] if got is None else got.tolist()

    def first_of(self, keys: Sequence[Any], n: int) -> list[int]:
        """The first *n* labels (in frame order) of the rows carrying any of *keys*."""
        found: list[int] = []
        for key in dict.fromkeys(keys):
            found.extend(self.labels(key))
        return sorted(found)[:n]


def rows_by_call(ctx: DiagnoseContext) -> RowsByKey:
    """Labels of the event-table rows per tool_call_id (built once per context)."""
    return ctx.memo("rows_by_call_id", lambda: RowsByKey(ctx.events()["tool_call_id"]))


def rows_of_calls(ctx: DiagnoseContext, ids: Iterable[str | None]) -> RowsByKey:
    """Labels of the event-table rows per tool_call_id, for the named ids only (one hashed
    pass over the column; cheaper than indexing every id when findings are few)."""
    col = ctx.events()["tool_call_id"]
    return RowsByKey(col[isin_set(col, {i for i in ids if i is not None})])


def objects(rows: pd.DataFrame, col: str) -> list[Any]:
    """A column as a plain list, nulls as None (an absent column gives all None)."""
    if col not in rows.columns:
        return [None] * len(rows)
    s = rows[col]
    return s.astype(object).where(s.notna(), None).tolist()


def attr_list(rows: pd.DataFrame, key: str) -> list[Any]:
    """One attrs key of every row of a `with_attrs` frame, as a list (None where absent)."""
    return [a.get(key) for a in rows["_attrs"].tolist()]


def has_key(rows: pd.DataFrame, key: str) -> np.ndarray:
    """Boolean mask: the row's parsed attrs hold *key* (text prefilter, then the dict)."""
    raw = rows["attrs"]
    maybe = raw.str.contains(f'"{key}"', regex=False).fillna(False).to_numpy(dtype=bool)
    out = np.zeros(len(rows), dtype=bool)
    where = np.flatnonzero(maybe)
    if len(where):
        parsed = rows["_attrs"].to_numpy()[where]
        out[where] = [key in a for a in parsed]
    return out


def isin_set(values: pd.Series, wanted: set[str] | frozenset[str]) -> np.ndarray:
    """Boolean mask: the string cell is in *wanted* (nulls never are). Hashes on the Arrow
    side: `Series.isin` with a large list converts the list element by element."""
    if not len(values) or not wanted:
        return np.zeros(len(values), dtype=bool)
    arr = pa.array(values.array) if hasattr(values.array, "__arrow_array__") else None
    if arr is None or not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        return values.isin(list(wanted)).fillna(False).to_numpy(dtype=bool)
    pool = pa.array([w for w in wanted if isinstance(w, str)], type=arr.type)
    return pc.is_in(arr, value_set=pool).fill_null(False).to_numpy(zero_copy_only=False)
