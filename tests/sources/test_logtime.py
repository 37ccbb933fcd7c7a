"""Timestamp parsing for line logs: the one-cast path agrees with the general one."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pytest

from toolcall_cli.sources._shared.logtime import parse_times

ZONED = [
    "2025-03-01T00:00:00Z",
    "2025-03-01T10:00:00.123+05:30",
    "2025-12-31T23:59:59.999999999Z",
    "1999-01-01T00:00:00-00:00",
    "2025-03-01 00:00:00Z",
    "2025-03-01T00:00:00+0100",
    "2025-03-01T00:00:00+01",
    "2025-03-01T00:00Z",
    "2024-02-29T00:00:00Z",
]
OTHERS = [
    "2025-03-01T00:00:00",  # naive: takes --tz
    "2025-03-01T00:00:00,5Z",
    "2025-03-01T00:00:00 UTC",
    " 2025-03-01T00:00:00Z",
    "1740830400123",
    "17/May/2015:10:05:03 +0200",
    "2025-02-29T00:00:00Z",  # no such day
    "2025-03-01T24:00:00Z",
    "nonsense",
]


@pytest.mark.parametrize("value", ZONED + OTHERS)
def test_whole_column_cast_agrees_with_the_general_path(value: str) -> None:
    alone = parse_times(pa.array([value, value]), "Europe/Berlin")  # no null: the cast is tried
    mixed = parse_times(pa.array([value, None]), "Europe/Berlin")  # a null: the general path
    assert alone[0] == mixed[0] or (pd.isna(alone[0]) and pd.isna(mixed[0]))


def test_naive_values_are_not_taken_as_utc() -> None:
    got = parse_times(pa.array(["2025-03-01T12:00:00"] * 3), "Europe/Berlin")
    assert got[0] == pd.Timestamp("2025-03-01T11:00:00", tz="UTC")


def test_a_long_column_without_any_time() -> None:
    got = parse_times(pa.nulls(5000, pa.large_string()), "UTC")
    assert len(got) == 5000 and got.isna().all() and str(got.dtype) == "datetime64[ns, UTC]"


@pytest.mark.parametrize(
    "text",
    [
        "10/Oct/0999:13:55:36 +0000",
        "0999-10-10T13:55:36Z",
        "2999-10-10T13:55:36Z",
        "0500-01-01 10:00",
    ],
)
def test_a_year_nanoseconds_cannot_hold_is_no_time_not_a_wrapped_one(text: str) -> None:
    got = parse_times(pa.array([text, "2024-01-01T10:00:00Z"]), "UTC").tolist()
    assert got[0] is pd.NaT
    assert got[1] == pd.Timestamp("2024-01-01T10:00:00Z")
