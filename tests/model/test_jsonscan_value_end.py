"""`value_end`: where the JSON value starting at an index ends, for every kind of value."""

from __future__ import annotations

import pytest

from toolcall_cli.model.jsonscan import value_end


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ('{"a": [1, "}"]} tail', 0, 15),  # a closer inside a string does not count
        ('x {"a": {"b": 1}}, 2', 2, 17),
        ('{"a": [1, 2', 0, 11),  # never closes: the end of text
        ('"a\\"b", 3', 0, 6),  # an escaped quote does not end the string
        ('"cut \\', 0, 6),  # a string cut after a backslash: the end of text
        ('"open', 0, 5),
        ("true, 1", 0, 4),
        ("12.5}", 0, 4),
        ("null ", 0, 4),
        (", 1", 0, 0),  # no value here: an empty span
        ("ab", 2, 2),  # at the end of text
    ],
)
def test_value_end(text: str, start: int, end: int) -> None:
    assert value_end(text, start) == end
