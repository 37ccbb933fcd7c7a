"""Correlation buckets: events split so that no key joins two buckets.

Rows that share any key value (`trace_id`, `session_id`, `tool_call_id`, `request_id`, taken
raw, before alignment scopes them) are one component; components are dealt into buckets,
largest first onto the lightest bucket, so tasks are even. Alignment only ever joins rows
that share a key, so every trace lies inside one bucket and diagnosing the buckets apart gives
the findings of diagnosing them together. Rows with no key at all go to bucket 0.
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

KEY_COLUMNS = ("trace_id", "session_id", "tool_call_id", "request_id")


def bucket_rows(events: pd.DataFrame, buckets: int) -> list[np.ndarray]:
    """Row positions of *events* per bucket (at most *buckets*; none empty, in row order)."""
    import numpy as np
    import pandas as pd

    if buckets <= 1 or len(events) == 0:
        return [np.arange(len(events))]
    codes = [np.asarray(pd.factorize(events[c], use_na_sentinel=True)[0]) for c in KEY_COLUMNS]
    return split_rows(bucket_of_rows(codes, buckets), buckets)


def split_rows(row_bucket: np.ndarray, buckets: int) -> list[np.ndarray]:
    """Row positions per bucket, empty buckets left out."""
    import numpy as np

    order = np.argsort(row_bucket, kind="stable")
    bounds = np.searchsorted(row_bucket[order], np.arange(buckets + 1))
    parts = [order[bounds[b] : bounds[b + 1]] for b in range(buckets)]
    return [p for p in parts if len(p)]


def bucket_of_rows(codes: list[np.ndarray], buckets: int) -> np.ndarray:
    """Each row's bucket, from integer key codes per column (-1: no value)."""
    import numpy as np
    import pandas as pd

    from toolcall_cli.align.keys import label_rows

    # rows repeat their keys (a call's events carry the same ids): label each distinct key
    # combination once, then spread the labels back, so the union-find sees far fewer rows
    combo = np.zeros(len(codes[0]), dtype=np.int64)
    for c in codes:
        combo = pd.factorize(combo * (int(c.max(initial=-1)) + 2) + (c + 1))[0].astype(np.int64)
    first = np.empty(int(combo.max(initial=-1)) + 1, dtype=np.int64)
    first[combo[::-1]] = np.arange(len(combo) - 1, -1, -1)
    label = label_rows([c[first] for c in codes])[combo]
    del combo, first
    keyed = label >= 0
    comp = pd.factorize(label[keyed])[0] if keyed.any() else np.array([], dtype=np.int64)
    sizes = np.bincount(comp) if len(comp) else np.array([], dtype=np.int64)
    load = [(0, b) for b in range(buckets)]
    bucket_of = np.zeros(len(sizes), dtype=np.int64)
    for c in np.argsort(-sizes, kind="stable"):
        used, b = heapq.heappop(load)
        bucket_of[c] = b
        heapq.heappush(load, (used + int(sizes[c]), b))
    row_bucket = np.zeros(len(label), dtype=np.int64)
    row_bucket[keyed] = bucket_of[comp]
    return row_bucket
