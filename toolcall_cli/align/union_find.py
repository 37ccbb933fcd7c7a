"""Union-find over integer node codes, with numpy: the connected components that trace
alignment (align/keys.py) and store bucketing (store/buckets.py) are built from."""

from __future__ import annotations

import numpy as np


def union_find(u: np.ndarray, v: np.ndarray, n: int) -> np.ndarray:
    """Root (smallest member) of each of *n* nodes' component, given edges *u*–*v*: hook roots
    to the smaller one, compress, until nothing changes (a few rounds of whole-array steps)."""
    labels = np.arange(n, dtype=np.int64)
    mask = u != v
    u, v = u[mask], v[mask]
    while True:
        lu, lv = labels[u], labels[v]
        lo = np.minimum(lu, lv)
        new = labels.copy()
        np.minimum.at(new, lu, lo)
        np.minimum.at(new, lv, lo)
        while True:  # pointer jumping until every node points at a root
            jumped = new[new]
            if np.array_equal(jumped, new):
                break
            new = jumped
        if np.array_equal(new, labels):
            return labels
        labels = new
