"""otel attribute mappers on hand-made spans: one convention per test."""

from __future__ import annotations

from pathlib import Path

import orjson
import pandas as pd

from tests.conftest import attrs
from tests.sources.otel_docs import T0, TRACE, span, traces, value, write
from toolcall_cli.sources import parse_file
from toolcall_cli.tools.registry import declared_tools


def rows(df: pd.DataFrame, kind: str) -> pd.DataFrame:
    return df[df["kind"] == kind]


def test_genai_parts_and_finish_reason(tmp_path: Path) -> None:
    inp = [
        {"role": "user", "parts": [{"type": "text", "content": "hi"}]},
        {"role": "assistant", "parts": [
            {"type": "tool_call", "id": "c1", "name": "f", "arguments": {"a": 1}},
            {"type": "tool_call", "id": "c2", "name": "g", "arguments": '{"b": 2}'},
        ]},
        {"role": "tool", "parts": [
            {"type": "tool_call_response", "id": "c1", "response": {"ok": True}},
            {"type": "tool_call_response", "id": "c2", "response": "done"},
        ]},
    ]  # fmt: skip
    out = [{"role": "assistant", "parts": [{"type": "text", "content": "bye"}],
             "finish_reason": "stop"}]  # fmt: skip
    doc = traces(
        span(1, "invoke_agent a", {"gen_ai.operation.name": "invoke_agent",
                                   "gen_ai.conversation.id": "conv-1"}),
        span(2, "chat m", {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
                           "gen_ai.input.messages": orjson.dumps(inp).decode(),
                           "gen_ai.output.messages": orjson.dumps(out).decode()}, kind=3),
    )  # fmt: skip
    df = parse_file(write(tmp_path, doc))
    assert df["kind"].tolist() == [
        "user", "tool_call", "tool_call", "tool_result", "tool_result", "assistant_text",
    ]  # fmt: skip
    calls = rows(df, "tool_call")
    assert calls["args"].tolist() == ['{"a":1}', '{"b": 2}']  # strings stay verbatim
    assert attrs(calls.iloc[0])["args_from"] == "object"
    res = rows(df, "tool_result")
    assert res["detail"].tolist() == ['{"ok":true}', "done"]
    assert attrs(rows(df, "assistant_text").iloc[0])["finish_reason"] == "stop"
    assert set(df["session_id"]) == {"conv-1"}  # from the agent span of the same trace
    assert set(df["trace_id"]) == {TRACE}
    assert attrs(df.iloc[0])["provider"] == "openai"


def test_history_resent_is_emitted_once(tmp_path: Path) -> None:
    first = [{"role": "user", "parts": [{"type": "text", "content": "q"}]}]
    call = {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "f",
                                            "arguments": {}}]}  # fmt: skip
    result = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1",
                                         "response": "r"}]}  # fmt: skip
    answer = {"role": "assistant", "parts": [{"type": "text", "content": "a"}]}
    doc = traces(
        span(1, "chat", {"gen_ai.operation.name": "chat",
                         "gen_ai.input.messages": orjson.dumps(first).decode(),
                         "gen_ai.output.messages": orjson.dumps([call]).decode()}),
        span(2, "chat", {"gen_ai.operation.name": "chat",
                         "gen_ai.input.messages": orjson.dumps([*first, call, result]).decode(),
                         "gen_ai.output.messages": orjson.dumps([answer]).decode()},
             start_ms=20, end_ms=30),
    )  # fmt: skip
    df = parse_file(write(tmp_path, doc))
    assert df["kind"].tolist() == ["user", "tool_call", "tool_result", "assistant_text"]
    ts = df["ts"].astype("int64").tolist()
    assert ts[2] < ts[3]  # the result was sent when the second call started


def test_execute_tool_error_and_exception(tmp_path: Path) -> None:
    exc = {"name": "exception", "timeUnixNano": "1764583200005000000", "attributes": [
        {"key": "exception.type", "value": {"stringValue": "TimeoutError"}},
        {"key": "exception.message", "value": {"stringValue": "tool timed out after 5s"}},
    ]}  # fmt: skip
    doc = traces(
        span(1, "execute_tool f", {"gen_ai.operation.name": "execute_tool",
                                   "gen_ai.tool.call.id": "c9", "error.type": "TimeoutError"},
             status={"code": 2}, events=[exc]),
    )  # fmt: skip
    df = parse_file(write(tmp_path, doc))
    assert df["kind"].tolist() == ["http_request", "http_response"]
    resp = rows(df, "http_response").iloc[0]
    assert resp["tool"] == "f"  # from the span name when gen_ai.tool.name is absent
    assert resp["status"] == "error"
    assert resp["detail"] == "tool timed out after 5s"
    assert attrs(resp)["error_type"] == "TimeoutError"
    assert attrs(resp)["content_captured"] is False
    assert resp["duration_ms"] == 10.0


def test_chat_without_content_is_marked(tmp_path: Path) -> None:
    doc = traces(span(1, "chat m", {"gen_ai.operation.name": "chat",
                                    "gen_ai.response.finish_reasons": ["tool_calls"]}))  # fmt: skip
    df = parse_file(write(tmp_path, doc))
    assert df["kind"].tolist() == ["system"]
    a = attrs(df.iloc[0])
    assert a["content_captured"] is False
    assert a["finish_reason"] == "tool_calls"


def test_openinference_tools_are_declared(tmp_path: Path) -> None:
    tool = {"type": "function", "function": {"name": "get_weather", "parameters": {}}}
    doc = traces(
        span(1, "ChatCompletion", {
            "openinference.span.kind": "LLM", "session.id": "s-1",
            "llm.tools.0.tool.json_schema": orjson.dumps(tool).decode(),
            "llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.contents.0.message_content.type": "text",
            "llm.input_messages.0.message.contents.0.message_content.text": "hello",
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.tool_calls.0.tool_call.id": "c1",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "get_weather",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": "{}",
        }),
        span(2, "get_weather", {"openinference.span.kind": "TOOL", "tool.name": "get_weather",
                                "tool.id": "c1", "input.value": "{}", "output.value": "sunny"},
             start_ms=20, end_ms=25),
    )  # fmt: skip
    df = parse_file(write(tmp_path, doc))
    assert df["kind"].tolist() == ["system", "user", "tool_call", "http_request", "http_response"]
    assert rows(df, "user")["detail"].tolist() == ["hello"]
    assert [objs for _, objs in declared_tools(df)] == [[tool]]
    assert rows(df, "http_response")["detail"].tolist() == ["sunny"]
    assert set(df["session_id"]) == {"s-1"}


def test_legacy_flattened_attributes(tmp_path: Path) -> None:
    doc = traces(span(1, "chat", {
        "gen_ai.system": "openai",
        "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "q",
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.finish_reason": "tool_calls",
        "gen_ai.completion.0.tool_calls.0.id": "c1",
        "gen_ai.completion.0.tool_calls.0.name": "f",
        "gen_ai.completion.0.tool_calls.0.arguments": '{"x": 1}',
    }))  # fmt: skip
    df = parse_file(write(tmp_path, doc))
    assert df["kind"].tolist() == ["user", "tool_call"]
    call = rows(df, "tool_call").iloc[0]
    assert (call["tool"], call["tool_call_id"], call["args"]) == ("f", "c1", '{"x": 1}')
    assert attrs(call)["finish_reason"] == "tool_calls"
    assert attrs(call)["provider"] == "openai"


def test_mcp_tools_call(tmp_path: Path) -> None:
    doc = traces(span(1, "tools/call get_weather", {
        "mcp.method.name": "tools/call", "gen_ai.tool.name": "get_weather",
        "jsonrpc.request.id": 7, "mcp.session.id": "mcp-s", "gen_ai.operation.name": "execute_tool",
    }, kind=3), span(2, "tools/list", {"mcp.method.name": "tools/list"}))  # fmt: skip
    df = parse_file(write(tmp_path, doc))
    assert df["kind"].tolist() == ["http_request", "http_response"]
    assert set(df["request_id"]) == {"7"}
    assert set(df["session_id"]) == {"mcp-s"}
    assert attrs(df.iloc[0])["mcp_method"] == "tools/call"


def test_http_spans(tmp_path: Path) -> None:
    doc = traces(
        span(1, "POST", {"http.request.method": "POST", "url.path": "/tools/search",
                         "http.response.status_code": 503}, kind=3),
        span(2, "GET", {"http.method": "get", "http.target": "/health?x=1",
                        "http.status_code": 200}, kind=2, start_ms=20, end_ms=21),
        span(3, "internal", {"http.request.method": "GET"}, kind=1),  # not client/server
    )  # fmt: skip
    df = parse_file(write(tmp_path, doc))
    assert df["kind"].tolist() == ["http_request", "http_response"] * 2
    first = rows(df, "http_response").iloc[0]
    assert (first["tool"], first["http_status"], first["status"]) == ("search", 503, "error")
    second = rows(df, "http_request").iloc[1]
    assert attrs(second)["method"] == "GET"
    assert attrs(second)["path"] == "/health"


def test_unclaimed_failed_span_keeps_its_exception(tmp_path: Path) -> None:
    exc = {"name": "exception", "attributes": [
        {"key": "exception.type", "value": {"stringValue": "KeyError"}},
        {"key": "exception.message", "value": {"stringValue": "'city'"}}]}  # fmt: skip
    doc = traces(span(1, "work", {}, status={"code": "STATUS_CODE_ERROR"}, events=[exc]))
    df = parse_file(write(tmp_path, doc))
    assert df["kind"].tolist() == ["system"]
    assert df["detail"].tolist() == ["'city'"]
    assert df["status"].tolist() == ["error"]


def test_log_events_grouped_by_span(tmp_path: Path) -> None:
    def rec(name: str, body: dict, ms: int) -> dict:
        return {
            "timeUnixNano": str(T0 + ms * 1_000_000),
            "eventName": name,
            "traceId": TRACE,
            "spanId": "00000000000000aa",
            "body": value(body),
        }

    doc = {"resourceLogs": [{"resource": {}, "scopeLogs": [{"logRecords": [
        rec("gen_ai.user.message", {"content": "q"}, 0),
        rec("gen_ai.tool.message", {"content": "r", "id": "c0"}, 1),
        rec("gen_ai.choice", {"finish_reason": "stop"}, 2),
        {"eventName": "something.else", "body": {"stringValue": "x"}},
    ]}]}]}  # fmt: skip
    df = parse_file(write(tmp_path, doc))
    assert df["kind"].tolist() == ["user", "tool_result", "assistant_text"]
    assert rows(df, "tool_result")["tool_call_id"].tolist() == ["c0"]
