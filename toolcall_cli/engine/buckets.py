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

    from toolcall_cli.align.keys import label_rows

    if buckets <= 1 or len(events) == 0:
        return [np.arange(len(events))]
    codes = [np.asarray(pd.factorize(events[c], use_na_sentinel=True)[0]) for c in KEY_COLUMNS]
    label = label_rows(codes)
    comp, first = pd.factorize(label[label >= 0]) if (label >= 0).any() else (np.array([]), [])
    sizes = np.bincount(comp) if len(comp) else np.array([], dtype=np.int64)
    load = [(0, b) for b in range(buckets)]
    bucket_of = np.zeros(len(sizes), dtype=np.int64)
    for c in np.argsort(-sizes, kind="stable"):
        used, b = heapq.heappop(load)
        bucket_of[c] = b
        heapq.heappush(load, (used + int(sizes[c]), b))
    row_bucket = np.zeros(len(events), dtype=np.int64)
    row_bucket[label >= 0] = bucket_of[comp]
    del first
    return [rows for b in range(buckets) if len(rows := np.flatnonzero(row_bucket == b))]
