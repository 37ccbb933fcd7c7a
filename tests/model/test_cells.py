"""model/cells: one reading of a cell as text and of the attrs cell as a dict."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from toolcall_cli.model.cells import attrs_of, text


@pytest.mark.parametrize("null", [None, pd.NA, math.nan, pd.NaT])
def test_every_null_is_none(null: object) -> None:
    assert text(null) is None


def test_values_become_their_text() -> None:
    assert text("") == ""
    assert text("call_1") == "call_1"
    assert text(200) == "200"


@pytest.mark.parametrize("cell", [None, pd.NA, "", "not json", "[1, 2]", '"a"'])
def test_attrs_of_anything_but_an_object_is_empty(cell: object) -> None:
    assert attrs_of(cell) == {}


def test_attrs_of_an_object() -> None:
    assert attrs_of('{"status": "ok", "n": 2}') == {"status": "ok", "n": 2}
