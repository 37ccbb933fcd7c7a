"""The replay settings line `tools:` says where the tool definitions really came from."""

from __future__ import annotations

from tests.conftest import FIXTURES
from tests.replay.replay_helpers import QUERY_DB, frame
from toolcall_cli.replay.settings import tools_in_words
from toolcall_cli.sources import parse_file
from toolcall_cli.tools.registry import registry_from_paths, registry_from_session


def test_an_mcp_tools_list_is_named_as_such() -> None:
    # the recorded MCP session declares its tools in two tools/list responses, no request
    events = parse_file(FIXTURES / "mcp" / "session_2025-11-25.jsonl")
    words = tools_in_words(registry_from_session(events))
    assert words == "5 tools declared in the MCP server's tools/list response"


def test_a_request_and_a_tools_list_are_both_named() -> None:
    declares = {"kind": "system", "session_id": "s1", "detail": "tools declared"}
    events = frame(
        [
            {**declares, "source": "messages", "attrs": {"tools": [QUERY_DB]}},
            {**declares, "source": "mcp", "attrs": {"tools": [QUERY_DB]}},
        ]
    )
    assert tools_in_words(registry_from_session(events)) == (
        "1 tool declared in the session's request (its tools list) "
        "and the MCP server's tools/list response"
    )


def test_a_tools_file_and_no_tools_keep_their_words() -> None:
    path = FIXTURES / "replay" / "booking" / "tools_new.json"
    assert tools_in_words(registry_from_paths([path])) == f"4 tools from {path}"
    assert tools_in_words(None).startswith("none: ")
