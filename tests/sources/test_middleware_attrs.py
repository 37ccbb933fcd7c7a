"""attrs built once per distinct row: the same text as json_objects() over every row."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

from toolcall_cli.sources._shared.attrs_text import AttrFields, _row_codes, attrs_text
from toolcall_cli.sources._shared.textlog import json_objects

N = 20_000


def column(values: list[object], typ: pa.DataType = pa.large_string()) -> pa.Array:
    return pa.array(values, typ)


def repeating(seed: int = 1) -> AttrFields:
    rnd = random.Random(seed)
    pick = rnd.choice
    return [
        ("event", column([pick(["a.received", "a.request", 'q"uote']) for _ in range(N)]), "str"),
        ("level", column(["info"] * N), "str"),  # on every row: written first
        ("reason", column([pick([None, None, "bad\\thing", "tab\tx"]) for _ in range(N)]), "str"),
        ("rule", column([None] * N), "str"),  # never present
        ("count", column([pick([None, 1, 2.5]) for _ in range(N)], pa.float64()), "num"),
        ("flag", column([pick([None, True, False]) for _ in range(N)], pa.bool_()), "num"),
    ]


def test_repeating_rows_are_built_once_each() -> None:
    fields = repeating()
    assert _row_codes(fields, N) is not None  # the deduplicated path is the one tested
    assert attrs_text(fields, N).equals(json_objects(fields, N))


def test_every_member_sparse_keeps_the_layout() -> None:
    fields = [f for f in repeating(2) if f[0] != "level"]
    assert _row_codes(fields, N) is not None
    assert attrs_text(fields, N).equals(json_objects(fields, N))


@pytest.mark.parametrize("extra", ["unique", "nested"])
def test_rows_that_do_not_repeat_take_the_plain_path(extra: str) -> None:
    fields = repeating(3)
    if extra == "unique":
        fields.append(("id", column([f"call_{i}" for i in range(N)]), "str"))
    else:
        nested = pa.array([{"k": i % 3} for i in range(N)])
        fields.append(("meta", nested, "json"))
    assert _row_codes(fields, N) is None
    assert attrs_text(fields, N).equals(json_objects(fields, N))
