"""Row labels per key: "which rows carry this id" on a large store, without a groupby.

`RowsByKey` indexes one column once (a DataFrame groupby over Arrow strings costs seconds at a
million events); `rows_by_call` is the context's index by tool_call_id, `rows_of_calls` one
for a few named ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from toolcall_cli.diagnose.base import DiagnoseContext
from toolcall_cli.diagnose.frames import isin_set

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd


class RowsByKey:
    """Row labels of a frame per value of one column (nulls left out), in frame order."""

    def __init__(self, values: pd.Series) -> None:
        import numpy as np
        import pandas as pd

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
