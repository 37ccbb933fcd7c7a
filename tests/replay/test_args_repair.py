"""repair.classify: the kind of damage and the repaired value."""

from __future__ import annotations

import pytest

from toolcall_cli.replay.repair import classify


def test_valid_json_needs_no_repair() -> None:
    assert classify('{"a": 1}') is None
    assert classify("null") is None


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ('{"a": 1 /* one */}', "comments", {"a": 1}),
        ("{'a': False}", "python-literals", {"a": False}),
        ('{"a": [1, 2', "cut-off", {"a": [1, 2]}),
        ('{"a": "unterminated', "cut-off", {"a": "unterminated"}),
        ('"{\\"a\\": 1}', "double-encoded", {"a": 1}),
        ("", "empty", {}),
    ],
)
def test_kinds(text: str, kind: str, value: object) -> None:
    r = classify(text)
    assert r is not None
    assert (r.kind, r.value) == (kind, value)
    assert r.exists


def test_comment_markers_inside_strings_are_not_comments() -> None:
    r = classify('{"url": "http://x", }')
    assert r is not None and r.kind != "comments"


def test_hopeless_text_has_no_repair() -> None:
    r = classify("lorem ipsum")
    assert r is not None and not r.exists
