"""ToolRegistry: loading, duplicates, did-you-mean (BFCL types: test_dialect.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.replay.replay_helpers import QUERY_DB, SEND_EMAIL, frame, registry
from toolcall_cli.errors import UsageError
from toolcall_cli.tools.registry import registry_from_paths, registry_from_session


def test_duplicate_names_across_files_name_both(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps([QUERY_DB]))
    b.write_text(json.dumps([SEND_EMAIL, QUERY_DB]))
    with pytest.raises(UsageError) as e:
        registry_from_paths([a, b])
    assert "a.json" in e.value.message and "b.json" in e.value.message
    assert e.value.exit_code == 2


def test_registry_from_files(tmp_path: Path) -> None:
    f = tmp_path / "tools.json"
    f.write_text(json.dumps({"tools": [QUERY_DB, SEND_EMAIL]}))
    reg = registry_from_paths([f])
    assert reg.names() == ["query_db", "send_email"]
    assert "tools.json" in reg.tools["query_db"].location


def test_suggestions() -> None:
    reg = registry()
    assert reg.case_match("QUERY_DB") == "query_db"
    assert reg.suggest("query_dbx") == ["query_db"]
    assert reg.suggest("Send_Email")[0] == "send_email"
    assert reg.suggest("zzz") == []


def test_session_tools_merge_repeats_and_note_conflicts() -> None:
    sysev = {"source": "messages", "kind": "system", "session_id": "s1", "detail": "tools declared"}
    same = frame(
        [
            {**sysev, "attrs": {"tools": [QUERY_DB]}},
            {**sysev, "attrs": {"tools": [QUERY_DB, SEND_EMAIL]}},
        ]
    )
    reg = registry_from_session(same)
    assert reg is not None and reg.names() == ["query_db", "send_email"] and reg.source == "session"
    assert reg.notes == ()
    changed = {
        "type": "function",
        "function": {"name": "query_db", "parameters": {"type": "object"}},
    }
    later = registry_from_session(
        frame([{**sysev, "attrs": {"tools": [QUERY_DB]}}, {**sysev, "attrs": {"tools": [changed]}}])
    )
    assert later is not None and "required" in later.tools["query_db"].schema  # the first one
    assert len(later.notes) == 1 and "declared again with another schema" in later.notes[0]
    with pytest.raises(UsageError):  # twice in one declaration
        registry_from_session(frame([{**sysev, "attrs": {"tools": [QUERY_DB, changed]}}]))
    assert registry_from_session(frame([{**sysev, "attrs": {}}])) is None
