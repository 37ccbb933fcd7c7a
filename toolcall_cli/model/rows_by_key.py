"""Row labels per key: "which rows carry this id" on a large table, without a groupby.

`RowsByKey` indexes one column once (a DataFrame groupby over Arrow strings costs seconds at a
million events); diagnose's rules and the batch replay (`replay.batch`) look rows up in it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

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

    def groups(self) -> Iterator[tuple[Any, list[int]]]:
        """(value, its row labels) per value, values in order of first appearance — what a
        ``groupby(sort=False)`` gives, without a frame per group."""
        for key, k in self._code.items():
            yield key, self._labels[self._start[k] : self._end[k]].tolist()

    def first_of(self, keys: Sequence[Any], n: int) -> list[int]:
        """The first *n* labels (in frame order) of the rows carrying any of *keys*."""
        found: list[int] = []
        for key in dict.fromkeys(keys):
            found.extend(self.labels(key))
        return sorted(found)[:n]
