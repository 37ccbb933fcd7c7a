"""broadcast() gives exactly `values.take(indices)` (its one-buffer sizing changes no value)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from toolcall_cli.sources._shared.textlog import broadcast


@pytest.mark.parametrize("seed", range(6))
def test_broadcast_equals_take(seed: int) -> None:
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 40))
    texts = ["{" + "é" * int(rng.integers(0, 3)) + "x" * int(rng.integers(0, 400)) + "}"]
    texts += ["{" + "y" * int(rng.integers(0, 400)) + "}" for _ in range(k - 1)]
    values = pa.array(texts, pa.large_string())
    # the rows favour the longest values: the row-weighted mean is above the plain one
    weights = np.array([len(t) for t in texts], float) ** 3 + 1
    idx = rng.choice(k, int(rng.integers(1, 5000)), p=weights / weights.sum())
    got = broadcast(values, idx)
    assert got.type == pa.large_string()
    assert got.equals(values.take(pa.array(idx)))


def test_broadcast_of_a_slice_nulls_and_nothing() -> None:
    values = pa.array(["a", "bbbbbbbb", "cc", "dddddddddddddddd"], pa.large_string()).slice(1)
    idx = np.array([2, 2, 0, 1, 2])
    assert broadcast(values, idx).to_pylist() == [values[i].as_py() for i in idx]
    with_null = pa.array(["a", None], pa.large_string())
    assert broadcast(with_null, np.array([1, 0])).to_pylist() == [None, "a"]
    assert broadcast(values, np.array([], np.int64)).to_pylist() == []
