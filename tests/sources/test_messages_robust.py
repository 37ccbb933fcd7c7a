"""messages adapter: hostile inputs never crash, and sniff stays at 0 for other formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.messages import ADAPTER
from toolcall_cli.sources.messages.text_protocols import extract_calls


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_deeply_nested_json_is_one_unparsed_row(tmp_path: Path) -> None:
    p = write(tmp_path, "deep.json", "[" * 200_000 + "]" * 200_000)
    assert ADAPTER.sniff(p.read_bytes()[:65536], p) == 0
    df = ADAPTER.parse(p, ParseOptions())
    assert list(df["kind"]) == ["unparsed"]
    assert len(df.iloc[0]["detail"]) == 2000


def test_deep_arguments_object_does_not_crash(tmp_path: Path) -> None:
    deep = "[" * 600 + "]" * 600
    p = write(
        tmp_path,
        "c.json",
        '{"messages": [{"role": "assistant", "tool_calls": [{"id": "x", '
        f'"function": {{"name": "f", "arguments": {deep}}}}}]}}]}}',
    )
    df = ADAPTER.parse(p, ParseOptions())
    row = df[df["kind"] == "tool_call"].iloc[0]
    assert row["tool_call_id"] == "x"
    assert json.loads(row["attrs"])["args_type"] == "unserialisable"


@pytest.mark.parametrize("text", ["", "[]", "   \n"])
def test_empty_inputs_give_no_events(tmp_path: Path, text: str) -> None:
    assert len(ADAPTER.parse(write(tmp_path, "e.json", text), ParseOptions())) == 0


@pytest.mark.parametrize(
    "text",
    [
        # a tool-definition file (lint owns it)
        '[{"type": "function", "function": {"name": "get_weather", '
        '"parameters": {"type": "object"}}}]',
        # Anthropic / MCP tool lists
        '{"tools": [{"name": "a", "input_schema": {"type": "object"}}]}',
        '{"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "a", "inputSchema": {}}]}}',
        # BFCL data line (carries role/content inside "question")
        '{"id": "simple_python_0", "question": [[{"role": "user", "content": "x"}]], '
        '"function": [{"name": "f", "parameters": {"type": "dict"}}]}\n',
        # middleware JSON lines
        '{"ts": "2024-01-01T00:00:00Z", "level": "warn", "event": "tool_call.rejected", '
        '"tool_call_id": "c1", "reason": "schema"}\n'
        '{"ts": "2024-01-01T00:00:01Z", "level": "info", "event": "tool_call.received", '
        '"tool_call_id": "c2"}\n',
        # logfmt / nginx
        "ts=2024-01-01T00:00:00Z level=info "
        'msg="tool call cancelled because tool-call flooding was detected"\n',
        '10.0.0.1 - - [01/Jan/2024:00:00:00 +0000] "POST /tools/search HTTP/1.1" 200 12 '
        '"-" "curl"\n',
    ],
)
def test_other_formats_score_zero(tmp_path: Path, text: str) -> None:
    p = write(tmp_path, "x.json", text)
    assert ADAPTER.sniff(p.read_bytes(), p) == 0


def test_pcap_magic_scores_zero(tmp_path: Path) -> None:
    p = tmp_path / "x.pcap"
    p.write_bytes(b"\xd4\xc3\xb2\xa1" + b"\x00" * 60)
    assert ADAPTER.sniff(p.read_bytes(), p) == 0


def test_sniff_reads_only_the_head(tmp_path: Path) -> None:
    msgs = [{"role": "user", "content": "x" * 1000}] * 200
    p = write(tmp_path, "big.json", json.dumps({"messages": msgs}))
    assert p.stat().st_size > 65536
    assert ADAPTER.sniff(p.read_bytes()[:65536], p) >= 60


def test_several_tagged_calls_and_pipe_tags() -> None:
    text = (
        '<tool_call>{"name": "a", "arguments": "{\\"x\\": 1}"}</tool_call> and '
        '<|tool_call|>[{"name": "b", "parameters": {"y": [1, 2]}}, '
        '{"name": "c", "arguments": {}}]'
    )
    found = [(c.tool, c.args) for c in extract_calls(text)]
    assert found == [("a", '{"x": 1}'), ("b", '{"y": [1, 2]}'), ("c", "{}")]


def test_jsonl_mixed_with_garbage(tmp_path: Path) -> None:
    p = write(
        tmp_path,
        "m.jsonl",
        '[{"role": "user", "content": "a"}]\nnot json\n\n'
        '{"messages": [{"role": "user", "content": "b"}]}\n',
    )
    df = ADAPTER.parse(p, ParseOptions())
    assert list(df["kind"]) == ["user", "unparsed", "user"]
    # a label names the line its conversation is on, as the origins do
    assert list(df["session_id"].fillna("-")) == ["m:1", "-", "m:4"]
