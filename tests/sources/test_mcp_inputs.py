"""mcp adapter on broken and unusual transcripts (written here): never a crash, always counted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from tests.conftest import attrs, run_cli
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.mcp import ADAPTER


def lines(tmp_path: Path, *items: Any, name: str = "t.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(i if isinstance(i, str) else json.dumps(i) for i in items) + "\n")
    return path


def parse(path: Path) -> pd.DataFrame:
    return ADAPTER.parse(path, ParseOptions())


def call(i: Any, name: str = "f", args: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": {"name": name, "arguments": args or {}}}  # fmt: skip


def result(i: Any, text: str = "ok", **extra: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": i,
            "result": {"content": [{"type": "text", "text": text}], **extra}}  # fmt: skip


def test_non_json_and_half_json_lines_are_unparsed(tmp_path: Path) -> None:
    path = lines(
        tmp_path,
        call(1),
        "debug: server starting",  # a stray print on stdout
        '{"jsonrpc":"2.0","id":2,"method":"tools/ca',  # cut mid-message
        '{"not": "jsonrpc"}',
        result(1),
    )
    df = parse(path)
    bad = df[df["kind"] == "unparsed"]
    assert bad["detail"].tolist() == [
        "debug: server starting",
        '{"jsonrpc":"2.0","id":2,"method":"tools/ca',
        '{"not": "jsonrpc"}',
    ]
    assert bad["origin"].tolist() == [f"{path}:2", f"{path}:3", f"{path}:4"]
    assert df.loc[df["kind"] == "tool_result", "tool_call_id"].tolist() == ["1"]
    out = run_cli(["diagnose", str(path), "--format", "json"])
    codes = [f["code"] for f in json.loads(out.stdout)["findings"]]
    assert "IN001" in codes


def test_reused_ids_and_orphan_responses_are_named(tmp_path: Path) -> None:
    path = lines(
        tmp_path,
        call(1, "a"),
        call(1, "b"),  # reused while open
        result(1, "for b"),
        call(1, "c"),  # reused after it was answered
        result(1, "for c"),
        result(9, "nobody asked"),  # a tools/call-shaped response without request
        {"jsonrpc": "2.0", "id": 10, "result": {}},  # another one, not tool-shaped
    )
    df = parse(path)
    calls = df[df["kind"] == "tool_call"]
    assert [attrs(a).get("id_reused") for a in calls["attrs"]] == [None, 1, 2]
    results = df[df["kind"] == "tool_result"]
    assert [None if pd.isna(t) else t for t in results["tool"]] == ["b", "c", None]
    assert [attrs(a).get("unmatched_response") for a in results["attrs"]] == [None, None, True]
    other = df[df["kind"] == "mcp_message"]
    assert attrs(other["attrs"].iloc[0])["unmatched_response"] is True


def test_ids_are_per_sender(tmp_path: Path) -> None:
    # the server's own request id 1 (sampling) and the client's id 1 are different requests
    sampling = {"jsonrpc": "2.0", "id": 1, "method": "sampling/createMessage", "params": {}}
    path = lines(
        tmp_path,
        call(1, "a"),
        sampling,
        {"jsonrpc": "2.0", "id": 1, "result": {"role": "assistant", "content": {}}},
        result(1, "a done"),
    )
    df = parse(path)
    res = df[df["kind"] == "tool_result"]
    assert res[["tool_call_id", "tool", "detail"]].values.tolist() == [["1", "a", "a done"]]
    msgs = df[df["kind"] == "mcp_message"]
    assert [attrs(a).get("method") for a in msgs["attrs"]] == [
        "sampling/createMessage",
        "sampling/createMessage",
    ]


def test_a_new_initialize_starts_a_new_session(tmp_path: Path) -> None:
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18"}}  # fmt: skip
    path = lines(tmp_path, init, call(1), result(1), init, call(1), result(1), name="two.jsonl")
    df = parse(path)
    assert df["session_id"].unique().tolist() == ["two:1", "two:2"]
    assert [attrs(a).get("id_reused") for a in df.loc[df["kind"] == "tool_call", "attrs"]] == [
        None,
        None,
    ]


def test_wrapped_records_with_aliases_and_text_messages(tmp_path: Path) -> None:
    path = lines(
        tmp_path,
        {"time": 1740830400.0, "dir": "send", "session_id": "s-9",
         "msg": json.dumps(call("a-1", "f", {"x": 1}))},
        {"timestamp": "2025-03-01T12:00:00.250Z", "direction": "incoming", "session_id": "s-9",
         "message": result("a-1", isError=True)},
        {"ts": "2025-03-01T12:00:01Z", "direction": "outgoing", "message": [call(2), call(3)]},
    )  # fmt: skip
    df = parse(path)
    assert df["kind"].tolist() == ["tool_call", "tool_result", "tool_call", "tool_call"]
    assert df["session_id"].tolist()[:2] == ["s-9", "s-9"]
    first, second = df.iloc[0], df.iloc[1]
    assert first["ts"] == pd.Timestamp("2025-03-01T12:00:00Z")
    assert second["duration_ms"] == 250.0
    assert (second["status"], attrs(second["attrs"])["is_error"]) == ("error", True)
    assert df["origin"].tolist()[2:] == [f"{path}:3#/0", f"{path}:3#/1"]


def test_log_lines_in_both_arrow_spellings(tmp_path: Path) -> None:
    path = tmp_path / "client.log"
    path.write_text(
        f"2025-03-01T12:00:00Z [client -> server] {json.dumps(call(7, 'g'))}\n"
        "2025-03-01T12:00:00.5Z INFO connected\n"
        f"[2025-03-01T12:00:01Z] [client ← server] {json.dumps(result(7, 'fine'))}\n"
    )
    df = parse(path)
    assert df["kind"].tolist() == ["tool_call", "unparsed", "tool_result"]
    assert df.loc[df["kind"] == "tool_result", "duration_ms"].tolist() == [1000.0]
    assert attrs(df["attrs"].iloc[2])["direction"] == "server->client"


def test_odd_params_do_not_crash(tmp_path: Path) -> None:
    path = lines(
        tmp_path,
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": "oops"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": 5,
         "arguments": [1, 2]}},
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 77}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "error": "bare string error"},
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}},
    )  # fmt: skip
    df = parse(path)
    assert df["kind"].tolist() == [
        "tool_call",
        "tool_call",
        "mcp_progress",
        "mcp_cancelled",
        "tool_result",
        "mcp_message",
    ]
    assert df["tool"].iloc[1] is pd.NA
    assert attrs(df["attrs"].iloc[1])["args_type"] == "list"
    assert pd.isna(df["tool_call_id"].iloc[2]) and pd.isna(df["tool_call_id"].iloc[3])
    assert df["status"].iloc[4] == "error"
    assert df["detail"].iloc[5] == "JSON-RPC error -32700: Parse error"


def test_inspector_history_in_a_wrapper(tmp_path: Path) -> None:
    path = tmp_path / "history.json"
    doc = {"history": [
        {"request": json.dumps(call(1, "add", {"a": 1})), "response": json.dumps(result(1, "2"))},
        {"request": {"jsonrpc": "2.0", "method": "notifications/initialized"}},
        {"request": "not json"},
    ]}  # fmt: skip
    path.write_text(json.dumps(doc))
    assert ADAPTER.sniff(path.read_bytes(), path) == 94
    df = parse(path)
    assert df["kind"].tolist() == ["tool_call", "tool_result", "mcp_message", "unparsed"]
    assert df["origin"].tolist()[:2] == [f"{path}#/0/request", f"{path}#/0/response"]
