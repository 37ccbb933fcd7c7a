"""Objects written back as JSON text column-wise: exactly what orjson writes for each row."""

from __future__ import annotations

import random

import orjson
import pyarrow as pa

from toolcall_cli.sources._shared.json_text import struct_json
from toolcall_cli.sources._shared.textlog import as_string


def dumped(arr: pa.Array) -> list[str | None]:
    return [None if v is None else orjson.dumps(v).decode() for v in arr.to_pylist()]


def test_objects_of_text_ints_bools_and_objects_match_orjson() -> None:
    rnd = random.Random(3)
    texts = ["Mozilla/5.0", 'q"uo\\te', "tab\tnl\n", "ünï ✓", "\u2028", "\x01\x1f", None, ""]
    rows = [
        None
        if i % 17 == 0
        else {
            "user-agent": rnd.choice(texts),
            "n": rnd.choice([1, -5, None, 2**62]),
            "ok": rnd.choice([True, False, None]),
            "inner": rnd.choice([{"x": "1", "y": 2}, None, {"x": None, "y": None}]),
            'k"ey': "v",
        }
        for i in range(3000)
    ]
    arr = pa.array(rows)
    assert struct_json(arr, as_string) is not None  # written column-wise, not per row
    assert as_string(arr).to_pylist() == dumped(arr)
    part = arr.slice(7, 500)  # a slice keeps its offset into the children
    assert as_string(part).to_pylist() == dumped(part)


def test_floats_and_lists_are_left_to_the_row_writer() -> None:
    floats = pa.array([{"a": 1.0}, {"a": 1e20}, None])
    lists = pa.array([{"a": ["x"]}, {"a": None}])
    assert struct_json(floats, as_string) is None
    assert struct_json(lists, as_string) is None
    assert as_string(floats).to_pylist() == dumped(floats)  # "1.0", "1e20": orjson's digits
    assert as_string(lists).to_pylist() == dumped(lists)
