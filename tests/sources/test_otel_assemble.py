"""sorted_union: one file's tables in time order (timeless rows last), then build order, with
text columns gathered slice by slice — held to a plain Python sort of the same rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from toolcall_cli.sources.otel import assemble

_MAX = np.iinfo(np.int64).max


def _part(rng: np.random.Generator, n: int, tag: int) -> pd.DataFrame:
    ts = pd.Series(pd.to_datetime(rng.integers(0, 50, n), unit="s", utc=True))
    ts = ts.mask(rng.random(n) < 0.1)  # some rows without a time
    words = [f"v{x}" if x % 7 else None for x in rng.integers(0, 1000, n)]
    text = pa.chunked_array([pa.array(words[: n // 2], pa.large_string()),
                             pa.array(words[n // 2 :], pa.large_string())])  # fmt: skip
    return pd.DataFrame(
        {"ts": ts, "part": tag, "row": np.arange(n), "text": pd.arrays.ArrowStringArray(text)}
    )


@pytest.mark.parametrize("seed", range(12))
def test_sorted_union_is_time_then_build_order(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(assemble, "_SLICES", 3)  # several slices even on small tables
    rng = np.random.default_rng(seed)
    sizes = [int(n) for n in rng.integers(0, 40, 5)]
    parts = [_part(rng, n, i) for i, n in enumerate(sizes)]
    orders = [None if i % 2 == 0 else rng.permutation(n) * 3 for i, n in enumerate(sizes)]
    want = []
    for p, o in zip(parts, orders, strict=True):
        ts = np.where(p["ts"].isna(), _MAX, p["ts"].array.asi8)
        rank = np.arange(len(p)) if o is None else o
        texts = p["text"].astype(object).where(p["text"].notna(), None)
        want += [
            (int(t), int(pt), int(rk), int(r), x)
            for t, pt, rk, r, x in zip(ts, p["part"], rank, p["row"], texts, strict=True)
        ]
    want.sort(key=lambda w: w[:3])
    got = assemble.sorted_union([p.copy() for p in parts], orders)
    assert list(zip(got["part"], got["row"], strict=True)) == [(w[1], w[3]) for w in want]
    got_texts = got["text"].astype(object).where(got["text"].notna(), None).tolist()
    assert got_texts == [w[4] for w in want]
    assert got["seq"].tolist() == list(range(len(want)))
