"""PR010 stale-tool-list on real SDK recordings (a call after tools/list_changed before the
client refetched, and its negatives), the model's schema against the server's, and silence on
the corpus conversations and the other MCP and wire fixtures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS, FIXTURES, need_module
from toolcall_cli.diagnose import diagnose_events
from toolcall_cli.model.findings import Finding
from toolcall_cli.sources import ingest_paths

RULES = FIXTURES / "rules" / "PR010"
MCP_SESSION = FIXTURES / "mcp" / "session_2025-06-18.jsonl"


def pr010(*paths: Path) -> list[Finding]:
    result = ingest_paths(list(paths))
    inputs = tuple(str(f.path) for f in result.files)
    report = diagnose_events(result.events, select=["PR010"], inputs=inputs)
    return [f for f in report.findings if f.code == "PR010"]


def test_the_call_after_the_change_is_named_with_what_changed() -> None:
    (f,) = pr010(RULES / "positive.jsonl")
    assert f.tool_call_ids == ("5",)  # the `add` sent with the old arguments
    assert dict(f.extra)["change"] == "parameters added: c; required added: c"
    assert f.severity.value == "warning"
    texts = [e.text for e in f.evidence]
    assert any("notifications/tools/list_changed" in t for t in texts)
    assert any("Field required" in t for t in texts)  # what the server said to the stale call


def _chat_with_add(tmp_path: Path, schema: dict[str, Any]) -> Path:
    """The model's side of the MCP fixture session: its chat declared `add` with *schema*."""
    doc = {
        "session_id": "session_2025-06-18",
        "tools": [{"type": "function", "function": {"name": "add", "parameters": schema}}],
        "messages": [
            {"role": "user", "content": "2+3?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'},
                    }
                ],
            },
        ],
    }
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(doc))
    return path


SERVER_ADD = {
    "properties": {"a": {"title": "A", "type": "integer"}, "b": {"title": "B", "type": "integer"}},
    "required": ["a", "b"],
    "type": "object",
    "title": "addArguments",
}


def test_the_model_saw_another_schema_than_the_server_declared(tmp_path: Path) -> None:
    old = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    (f,) = pr010(_chat_with_add(tmp_path, old), MCP_SESSION)
    assert dict(f.extra) == {
        "view": "model-vs-server",
        "change": "parameters added: b; required added: b",
    }
    assert f.tool == "add"


def test_the_same_schema_on_both_sides_is_silent(tmp_path: Path) -> None:
    # key order differs from the server's text: the fingerprint is canonical
    same = dict(reversed(list(SERVER_ADD.items())))
    assert pr010(_chat_with_add(tmp_path, same), MCP_SESSION) == []


@pytest.mark.parametrize(
    "path",
    [
        RULES / "negative.jsonl",  # refetched after the change, then called with the new schema
        FIXTURES / "mcp" / "session_2025-11-25.jsonl",  # a tool added, the list refetched
        FIXTURES / "mcp" / "session_2026-07-28.jsonl",
        FIXTURES / "har" / "playwright_double_submit.har",  # the model's lists only
        FIXTURES / "mitm" / "reverse_double_submit.mitm",
    ],
    ids=lambda p: p.name,
)
def test_silent_on_fixtures_without_a_stale_list(path: Path) -> None:
    if path.suffix == ".mitm":
        need_module("mitmproxy", install="pip install 'toolcall[mitm]' or make mitm")
    assert pr010(path) == []


@pytest.mark.corpus
def test_silent_on_the_corpus_conversations(corpus: Path) -> None:
    files = sorted(
        p
        for p in (CORPUS / "conversations").rglob("*")
        if p.is_file() and not p.name.startswith(("LICENSE", "PROVENANCE"))
    )
    assert len(files) > 40
    assert pr010(*files) == []
