"""The column-wise lookups the rules share (rows_by_key.py, frames.py) agree with plain Python."""

from __future__ import annotations

import numpy as np
import pandas as pd

from toolcall_cli.diagnose.kit.frames import attr_list, has_key, isin_set, objects
from toolcall_cli.diagnose.rules.orphans.pairing import _pair_in
from toolcall_cli.model.rows_by_key import RowsByKey


def _strings(values: list[str | None]) -> pd.Series:
    return pd.Series(values, dtype="string[pyarrow]")


def test_rows_by_key_keeps_frame_order_and_skips_nulls() -> None:
    col = _strings(["b", "a", None, "b", "", "a", "b"])
    col.index = pd.RangeIndex(10, 17)
    idx = RowsByKey(col)
    assert idx.labels("b") == [10, 13, 16]
    assert idx.labels("a") == [11, 15]
    assert idx.labels("") == [14]
    assert idx.labels("zzz") == [] and idx.get("zzz") is None
    assert "a" in idx and None not in idx
    assert idx.first_of(["a", "b", "a"], 3) == [10, 11, 13]


def test_groups_are_what_groupby_without_sorting_gives() -> None:
    col = _strings(["b", "a", None, "b", "", "a", "b"])
    col.index = pd.RangeIndex(10, 17)
    frame = pd.DataFrame({"k": col})
    want = [(k, g.index.tolist()) for k, g in frame.groupby("k", sort=False)]
    assert (
        list(RowsByKey(col).groups()) == want == [("b", [10, 13, 16]), ("a", [11, 15]), ("", [14])]
    )


def test_isin_set_matches_python_membership() -> None:
    col = _strings(["x", None, "y", "", "z", "x"])
    wanted = {"x", "", "q"}
    want = [v is not None and v in wanted for v in col.astype(object).where(col.notna(), None)]
    assert isin_set(col, wanted).tolist() == want
    assert not isin_set(col, set()).any()
    assert isin_set(pd.Series(["x", "y"], dtype=object), {"y"}).tolist() == [False, True]


def test_has_key_reads_the_parsed_dict_not_just_the_text() -> None:
    frame = pd.DataFrame(
        {
            "attrs": _strings(['{"timestamp": 1}', '{"note": "\\"timestamp\\""}', None, "{}"]),
            "_attrs": [{"timestamp": 1}, {"note": '"timestamp"'}, {}, {}],
        }
    )
    assert has_key(frame, "timestamp").tolist() == [True, False, False, False]
    assert attr_list(frame, "timestamp") == [1, None, None, None]
    assert objects(frame, "attrs")[2] is None
    assert objects(frame, "absent") == [None] * 4


def test_pair_in_is_exact_on_both_halves() -> None:
    pool = (np.array(["s:a", "s:b", "t:x"], dtype=object), np.array(["1", "2", "1"], dtype=object))
    pairs = (
        np.array(["s:a", "s:a", "s:b", "t:x", "s:None"], dtype=object),
        np.array(["1", "2", "2", "2", "1"], dtype=object),
    )
    expected = [
        (s, i) in set(zip(pool[0], pool[1], strict=True))
        for s, i in zip(pairs[0], pairs[1], strict=True)
    ]
    assert _pair_in(pairs, pool).tolist() == expected == [True, False, True, False, False]
