"""prescreen: id unique and non-empty, name registered (did-you-mean), arguments JSON."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.replay.replay_helpers import ctx, registry, tc
from toolcall_cli.replay import prescreen


def test_valid_call_passes() -> None:
    v = prescreen.check(tc(), ctx(reg=registry()))
    assert (v.verdict, v.code) == ("pass", "ok")


def test_empty_id_fails() -> None:
    v = prescreen.check(tc(cid=""), ctx(reg=registry()))
    assert (v.verdict, v.code) == ("fail", "empty-id")


def test_duplicate_id_in_session_fails_and_names_first() -> None:
    c = ctx(reg=registry())
    assert prescreen.check(tc("c1", origin="a.json#/1"), c).verdict == "pass"
    v = prescreen.check(tc("c1", origin="a.json#/5"), c)
    assert (v.verdict, v.code) == ("fail", "duplicate-id")
    assert "a.json#/1" in v.reason


def test_same_id_in_another_session_is_fine() -> None:
    c = ctx(reg=registry())
    prescreen.check(tc("c1"), c)
    assert prescreen.check(tc("c1", session_id="s2"), c).verdict == "pass"


def test_unknown_tool_suggests_near_name() -> None:
    v = prescreen.check(tc(tool="query_dbx"), ctx(reg=registry()))
    assert (v.verdict, v.code) == ("fail", "unknown-tool")
    assert "did you mean 'query_db'" in v.reason


def test_unknown_tool_without_near_name_lists_registry() -> None:
    v = prescreen.check(tc(tool="launch_rocket"), ctx(reg=registry()))
    assert v.code == "unknown-tool" and "did you mean" not in v.reason
    assert "query_db" in v.detail


def test_case_only_difference_is_its_own_code() -> None:
    v = prescreen.check(tc(tool="Query_DB"), ctx(reg=registry()))
    assert (v.verdict, v.code) == ("fail", "tool-name-case")
    assert "'query_db'" in v.reason


def test_without_registry_names_are_not_checked() -> None:
    assert prescreen.check(tc(tool="anything"), ctx()).verdict == "pass"


@pytest.mark.parametrize(
    ("args", "kind"),
    [
        ('{"user_id": "u1", // who\n "x": 1}', "comments"),
        ("{'user_id': 'u1', 'ok': True, 'n': None}", "python-literals"),
        ('{"user_id": "u1", "date_range": {"start": "2024-05', "cut-off"),
        ('{\\"user_id\\": \\"u1\\"}', "double-encoded"),
        ("", "empty"),
    ],
)
def test_invalid_json_says_which_repair(args: str, kind: str) -> None:
    v = prescreen.check(tc(args=args), ctx(reg=registry()))
    assert (v.verdict, v.code) == ("fail", "arguments-not-json")
    assert f"repair exists ({kind})" in v.reason


def test_invalid_json_without_repair() -> None:
    v = prescreen.check(tc(args="not json at all"), ctx(reg=registry()))
    assert v.code == "arguments-not-json"
    assert "no repair exists" in v.reason


def test_double_encoded_string_value_is_not_an_object() -> None:
    v = prescreen.check(tc(args='"{\\"user_id\\": \\"u1\\"}"'), ctx(reg=registry()))
    assert (v.verdict, v.code) == ("fail", "arguments-not-object")
    assert "double-encoded" in v.reason and '"user_id":"u1"' in v.reason


def test_json_array_is_not_an_object() -> None:
    v = prescreen.check(tc(args="[1, 2]"), ctx())
    assert v.code == "arguments-not-object"


def test_calls_recorded_without_ids_skip_the_id_checks() -> None:
    """Text protocols, legacy function_call, Gemini: the sources record no id (null), and
    prescreen asks the evidence, not a protocol list (the real fixtures: test_prescreen_evidence,
    test_messages_open_model_calls)."""
    c = ctx(reg=registry())
    for protocol in ("react", "tagged", "harmony", "function-tag", "mistral", "legacy_function"):
        call = replace(tc(cid="", protocol=protocol), id_recorded=False)
        assert prescreen.check(call, c).verdict == "pass", protocol
    assert prescreen.check(tc(cid="", protocol="openai"), c).code == "empty-id"
