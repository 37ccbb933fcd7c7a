"""Correlation buckets (store/bucket_rows.py): no key value is split between two buckets."""

from __future__ import annotations

import numpy as np
import pandas as pd

from toolcall_cli.store.bucket_rows import KEY_COLUMNS, bucket_rows


def _events() -> pd.DataFrame:
    rows = [
        {"trace_id": "t1", "session_id": "s1", "tool_call_id": "c1", "request_id": None},
        {"trace_id": None, "session_id": None, "tool_call_id": "c1", "request_id": "r1"},
        {"trace_id": None, "session_id": None, "tool_call_id": None, "request_id": "r1"},
        {"trace_id": "t2", "session_id": "s2", "tool_call_id": "c2", "request_id": None},
        {"trace_id": "t3", "session_id": "s2", "tool_call_id": "c3", "request_id": None},
        {"trace_id": "t4", "session_id": None, "tool_call_id": None, "request_id": None},
        {"trace_id": None, "session_id": None, "tool_call_id": None, "request_id": None},
    ]
    return pd.DataFrame(rows, dtype="string[pyarrow]")


def test_every_row_once_and_no_key_in_two_buckets() -> None:
    events = _events()
    buckets = bucket_rows(events, 4)
    together = np.sort(np.concatenate(buckets))
    assert together.tolist() == list(range(len(events)))
    owner: dict[tuple[str, str], int] = {}
    for b, rows in enumerate(buckets):
        for col in KEY_COLUMNS:
            for value in events[col].iloc[rows].dropna():
                assert owner.setdefault((col, value), b) == b
    # rows 0-2 share c1 and r1; rows 3-4 share s2: each group lands in one bucket
    where = {int(r): b for b, rows in enumerate(buckets) for r in rows}
    assert where[0] == where[1] == where[2]
    assert where[3] == where[4]
    assert where[6] == 0  # a row with no key at all goes to the first bucket


def test_components_are_dealt_evenly_largest_first() -> None:
    events = _events()
    sizes = sorted(len(r) for r in bucket_rows(events, 3))
    # components {0,1,2}, {3,4}, {5} one to a bucket; the keyless row joins bucket 0
    assert sizes == [1, 2, 4]


def test_one_bucket_is_everything() -> None:
    events = _events()
    [rows] = bucket_rows(events, 1)
    assert rows.tolist() == list(range(len(events)))
