"""Union-find over integer codes (align/union_find.py)."""

from __future__ import annotations

import numpy as np

from toolcall_cli.align.union_find import union_find


def test_union_find_long_chain() -> None:
    n = 200_000
    u = np.arange(n - 1)
    v = u + 1
    rng = np.random.default_rng(0)
    perm = rng.permutation(n - 1)
    roots = union_find(u[perm], v[perm], n)
    assert (roots == 0).all()
    two = union_find(np.array([0, 2]), np.array([1, 3]), 4)
    assert two.tolist() == [0, 0, 2, 2]
