"""Dealing an in-memory event table into parts (store/buckets.py `deal_rows`): whole components
of the store's key graph, so no key, and no capture's request and answer, is split."""

from __future__ import annotations

import numpy as np
import pandas as pd

from toolcall_cli.store.buckets import deal_rows, key_table

KEYS = ("trace_id", "session_id", "tool_call_id", "request_id")


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
    df = pd.DataFrame(rows, dtype="string[pyarrow]")
    df["source"] = "middleware"
    df["origin"] = [f"mw.log:{i + 1}" for i in range(len(df))]
    df["attrs"] = "{}"
    return df


def _where(parts: list[np.ndarray]) -> dict[int, int]:
    return {int(r): p for p, rows in enumerate(parts) for r in rows}


def test_every_row_once_and_no_key_in_two_parts() -> None:
    events = _events()
    parts = deal_rows(key_table(events), 4)
    together = np.sort(np.concatenate(parts))
    assert together.tolist() == list(range(len(events)))
    owner: dict[tuple[str, str], int] = {}
    for p, rows in enumerate(parts):
        assert rows.tolist() == sorted(rows.tolist())  # each part in row order
        for col in KEYS:
            for value in events[col].iloc[rows].dropna():
                assert owner.setdefault((col, value), p) == p
    # rows 0-2 share c1 and r1; rows 3-4 share s2: each group lands in one part
    where = _where(parts)
    assert where[0] == where[1] == where[2]
    assert where[3] == where[4]


def test_components_are_dealt_evenly_largest_first() -> None:
    # components {0,1,2}, {3,4}, {5} one to a part, then the keyless row {6} onto the lightest
    assert sorted(len(r) for r in deal_rows(key_table(_events()), 3)) == [2, 2, 3]


def test_a_captures_request_and_its_id_less_answer_stay_together() -> None:
    """The four raw key columns alone would split these: the answer carries no id, only its
    TCP stream (the store's `p:` key)."""
    events = _events().iloc[:2].copy()
    events["source"] = "pcap"
    events["origin"] = ["cap.pcap#frame=1", "cap.pcap#frame=2"]
    events.loc[1, KEYS] = None
    events["attrs"] = '{"stream": 7}'
    other = _events().iloc[3:5]
    table = key_table(pd.concat([events, other], ignore_index=True))
    where = _where(deal_rows(table, 2))
    assert where[0] == where[1] and where[2] == where[3] and where[0] != where[2]


def test_one_part_is_everything() -> None:
    events = _events()
    [rows] = deal_rows(key_table(events), 1)
    assert rows.tolist() == list(range(len(events)))
