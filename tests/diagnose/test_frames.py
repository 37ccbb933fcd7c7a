"""The rules' cheap readers of small tables give what the pandas forms they replace give."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from toolcall_cli.align import align
from toolcall_cli.diagnose.kit.frames import SMALL_TABLE, first_rows, objects
from toolcall_cli.sources import ingest_paths

BUNDLE = Path("fixtures/incidents/flooding-model-loop")


@pytest.fixture(scope="module")
def aligned() -> pd.DataFrame:
    files = [p for p in sorted(BUNDLE.iterdir()) if p.name != "expected.json"]
    return align(ingest_paths(files).events).events


def _mixed() -> pd.DataFrame:
    """Every dtype the event table and the rules' derived columns hold, with nulls."""
    return pd.DataFrame(
        {
            "text": pd.array(["a", None, "a", None], dtype="string"),
            "str": pd.Series(["x", None, "x", None], dtype="str"),
            "n": pd.array([1, None, 1, None], dtype="Int64"),
            "f": [1.5, np.nan, 1.5, np.nan],
            "ts": pd.to_datetime(pd.Series(["2024-01-01", None, "2024-01-01", None]), utc=True),
            "obj": pd.Series(["k", None, "k", np.nan], dtype=object),
            "i": [1, 2, 1, 2],
        }
    )


def test_objects_is_astype_object_with_nulls_as_none(aligned: pd.DataFrame) -> None:
    for frame in (aligned, _mixed(), aligned.iloc[:0]):
        for col in frame.columns:
            s = frame[col]
            expected = s.astype(object).where(s.notna(), None).tolist()
            got = objects(frame, col)
            assert [type(v) for v in got] == [type(v) for v in expected], col
            assert got == expected, col


@pytest.mark.parametrize(
    "columns",
    [
        ["session_id", "tool_call_id"],
        ["source", "kind", "tool"],
        ["trace", "call"],
        ["tool_call_id", "http_status"],
        ["tool", "duration_ms"],
    ],
)
def test_first_rows_is_drop_duplicates(aligned: pd.DataFrame, columns: list[str]) -> None:
    expected = aligned.drop_duplicates(columns)
    assert len(expected) < len(aligned)  # the table repeats these keys: the test can fail
    pd.testing.assert_frame_equal(first_rows(aligned, columns), expected)


def test_first_rows_counts_nulls_as_equal_like_pandas() -> None:
    mixed = _mixed()
    for a in mixed.columns:
        for b in mixed.columns:
            if a != b:
                expected = mixed.drop_duplicates([a, b])
                pd.testing.assert_frame_equal(first_rows(mixed, [a, b]), expected)
    pd.testing.assert_frame_equal(first_rows(mixed.iloc[:0], ["text", "n"]), mixed.iloc[:0])


def test_first_rows_of_a_big_table_is_pandas_own() -> None:
    big = pd.DataFrame({"a": np.arange(SMALL_TABLE + 1) % 7, "b": np.arange(SMALL_TABLE + 1) % 3})
    pd.testing.assert_frame_equal(first_rows(big, ["a", "b"]), big.drop_duplicates(["a", "b"]))
