"""SC004 similar-tool-names: near names across files, and the near-pair search itself."""

from __future__ import annotations

from tests.conftest import FIXTURES
from toolcall_cli.lint import lint_paths
from toolcall_cli.lint.rules.similar_tool_names import near_pairs, one_edit


def test_near_names_across_files() -> None:
    reg = FIXTURES / "schemas" / "registry"
    near = [f for f in lint_paths([reg / "a.json", reg / "b.json"]).findings if f.code == "SC004"]
    assert len(near) == 1 and "equal ignoring case" in near[0].message


def test_near_names() -> None:
    assert one_edit("get_user", "get_users") and one_edit("abc", "abd") and one_edit("abc", "ac")
    assert not one_edit("ab", "ba") and not one_edit("abc", "abc") and not one_edit("a", "abc")
    pairs = near_pairs(["get_user", "list_orders", "get_users", "GET_USER", "ab", "ba"])
    assert pairs == {("get_user", "get_users"), ("get_user", "GET_USER")}
