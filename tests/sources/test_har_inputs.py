"""har adapter on the shapes real exports take and on broken ones (built here, in tmp_path)."""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from tests.conftest import attrs
from toolcall_cli.sources import har as har_pkg
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.har import ADAPTER
from toolcall_cli.sources.har import stream as har_stream

T = "2025-03-01T12:00:00.000Z"
CHAT = "https://api.example.test/v1/chat/completions"


def entry(
    url: str = CHAT,
    *,
    method: str = "POST",
    body: Any = None,
    status: int = 200,
    content: dict[str, Any] | None = None,
    headers: list[dict[str, str]] | None = None,
    started: str = T,
    time: Any = 120.5,
    **extra: Any,
) -> dict[str, Any]:
    req: dict[str, Any] = {"method": method, "url": url, "httpVersion": "HTTP/2",
                           "headers": headers or []}  # fmt: skip
    if body is not None:
        text = body if isinstance(body, str) else json.dumps(body)
        req["postData"] = {"mimeType": "application/json", "text": text}
    return {
        "startedDateTime": started,
        "time": time,
        "request": req,
        "response": {
            "status": status,
            "statusText": "",
            "headers": [],
            "content": content if content is not None else {"size": 0},
        },
        "timings": {
            "blocked": -1,
            "dns": -1,
            "connect": -1,
            "send": 0.1,
            "wait": 100.0,
            "receive": 20.4,
        },
        **extra,
    }


def write(tmp_path: Path, entries: list[Any], *, pages: int = 1, name: str = "x.har") -> Path:
    doc = {
        "log": {
            "version": "1.2",
            "creator": {"name": "test", "version": "1"},
            "pages": [{"id": f"page_{k}", "title": f"p{k}"} for k in range(pages)],
            "entries": entries,
        }
    }
    path = tmp_path / name
    path.write_text(json.dumps(doc, indent=1))
    return path


def parse(path: Path) -> pd.DataFrame:
    return ADAPTER.parse(path, ParseOptions())


def of(df: pd.DataFrame, kind: str) -> pd.DataFrame:
    return df[df["kind"] == kind]


COMPLETION = {
    "id": "chatcmpl-1",
    "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": None, "tool_calls": [{"id": "call_b64", "type":
        "function", "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'}}]}}],
}  # fmt: skip


def test_base64_content_is_decoded_and_read_as_an_llm_answer(tmp_path: Path) -> None:
    text = base64.b64encode(json.dumps(COMPLETION).encode()).decode()
    content = {"size": 300, "mimeType": "application/json", "text": text, "encoding": "base64"}
    df = parse(write(tmp_path, [entry(body={"messages": []}, content=content)]))
    calls = of(df, "tool_call")
    assert calls[["tool_call_id", "tool", "args"]].values.tolist() == [
        ["call_b64", "get_weather", '{"city":"Oslo"}']
    ]
    assert of(df, "http_response")["size"].tolist() == [len(json.dumps(COMPLETION))]


def test_streamed_sse_body_yields_the_call(tmp_path: Path) -> None:
    chunks = [
        {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_sse",
          "function": {"name": "search", "arguments": '{"q":'}}]}}]},
        {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0,
          "function": {"arguments": '"x"}'}}]}, "finish_reason": "tool_calls"}]},
    ]  # fmt: skip
    sse = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    content = {"size": len(sse), "mimeType": "text/event-stream", "text": sse}
    df = parse(write(tmp_path, [entry(body={"messages": [], "stream": True}, content=content)]))
    call = of(df, "tool_call").iloc[0]
    assert (call["tool_call_id"], call["tool"], call["args"]) == ("call_sse", "search", '{"q":"x"}')
    assert attrs(call["attrs"])["protocol"] == "sse"


def test_anthropic_messages_body(tmp_path: Path) -> None:
    answer = {"type": "message", "stop_reason": "tool_use", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"k": 1}}]}  # fmt: skip
    content = {"size": 1, "mimeType": "application/json", "text": json.dumps(answer)}
    url = "https://api.anthropic.test/v1/messages"
    df = parse(write(tmp_path, [entry(url, body={"messages": []}, content=content)]))
    assert of(df, "tool_call")[["tool_call_id", "tool", "args"]].values.tolist() == [
        ["toolu_1", "lookup", '{"k":1}']
    ]


def test_sanitized_export_without_content_keeps_sizes(tmp_path: Path) -> None:
    # DevTools' "Export HAR (sanitized)": no cookies, no Authorization; here no bodies either
    e = entry(content={"size": 512, "mimeType": "application/json"})
    e["request"].pop("postData", None)
    e["request"]["bodySize"] = 64
    df = parse(write(tmp_path, [e]))
    req, resp = of(df, "http_request").iloc[0], of(df, "http_response").iloc[0]
    assert (req["size"], resp["size"]) == (64, 512)
    assert attrs(resp["attrs"])["body_omitted"] is True
    assert len(df) == 2


def test_correlation_headers_become_keys(tmp_path: Path) -> None:
    headers = [
        {"name": "x-session-id", "value": "s-1"},
        {"name": "X-Request-ID", "value": "r-1"},
        {"name": "traceparent", "value": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},
        {"name": "X-Tool-Call-ID", "value": "call_h"},
    ]
    df = parse(write(tmp_path, [entry("https://t.test/tools/get_weather", headers=headers)]))
    row = of(df, "http_request").iloc[0]
    assert (row["session_id"], row["request_id"], row["trace_id"], row["tool_call_id"]) == (
        "s-1", "r-1", "0af7651916cd43dd8448eb211c80319c", "call_h"
    )  # fmt: skip
    assert row["tool"] == "get_weather"
    # the response inherits its request's keys
    assert of(df, "http_response")["tool_call_id"].tolist() == ["call_h"]


def test_websocket_messages_are_events(tmp_path: Path) -> None:
    ws = [
        {"type": "send", "time": 1740830400.5, "opcode": 1, "data": '{"prompt":"hi"}'},
        {"type": "receive", "time": 1740830401.25, "opcode": 1, "data": '{"delta":"hello"}'},
    ]
    e = entry("wss://chat.test/socket", method="GET", status=101, _webSocketMessages=ws)
    df = parse(write(tmp_path, [e]))
    msgs = of(df, "ws_message")
    assert [attrs(a)["direction"] for a in msgs["attrs"]] == ["send", "receive"]
    assert msgs["ts"].tolist() == [
        pd.Timestamp("2025-03-01T12:00:00.5Z"),
        pd.Timestamp("2025-03-01T12:00:01.25Z"),
    ]
    assert msgs["detail"].tolist() == ['{"prompt":"hi"}', '{"delta":"hello"}']
    assert msgs["origin"].iloc[1].endswith("#/log/entries/0/_webSocketMessages/1")
    assert df["kind"].tolist() == ["http_request", "http_response", "ws_message", "ws_message"]


def test_pages_with_many_entries(tmp_path: Path) -> None:
    es = [
        entry(f"https://t.test/a/{k}", method="GET", pageref=f"page_{k % 40}") for k in range(400)
    ]
    df = parse(write(tmp_path, es, pages=40))
    assert len(of(df, "http_request")) == 400 and len(of(df, "http_response")) == 400
    assert attrs(df["attrs"].iloc[-1])["pageref"] == "page_39"


@pytest.mark.parametrize("bad", [-5, 1e300, "abc", None, float("nan")])
def test_absurd_time_is_no_duration(tmp_path: Path, bad: Any) -> None:
    df = parse(write(tmp_path, [entry(time=bad)]))
    resp = of(df, "http_response").iloc[0]
    assert pd.isna(resp["duration_ms"]) and pd.isna(resp["ts"])
    if bad is not None:
        assert "time_invalid" in attrs(resp["attrs"])
    assert of(df, "http_request")["ts"].tolist() == [pd.Timestamp(T)]


def test_missing_fields_and_failed_requests(tmp_path: Path) -> None:
    no_request = {"startedDateTime": T, "time": 1}
    not_object = ["an entry", 3]
    failed = entry("https://t.test/x", status=0)
    failed["response"]["_error"] = "net::ERR_CONNECTION_REFUSED"  # where Chrome puts it
    bad_start = entry("https://t.test/y", method="GET", started="yesterday")
    df = parse(write(tmp_path, [no_request, not_object, failed, bad_start]))
    unparsed = of(df, "unparsed")
    assert [attrs(a)["reason"] for a in unparsed["attrs"]] == [
        "entry without a request url",
        "entry is not an object",
    ]
    assert unparsed["origin"].str.endswith(("#/log/entries/0", "#/log/entries/1")).all()
    reqs = of(df, "http_request")
    assert attrs(reqs["attrs"].iloc[0])["failed"] == "net::ERR_CONNECTION_REFUSED"
    assert attrs(reqs["attrs"].iloc[0])["no_response"] is True
    assert pd.isna(reqs["ts"].iloc[1]) and "started_invalid" in attrs(reqs["attrs"].iloc[1])
    assert len(of(df, "http_response")) == 1


def test_non_json_bodies_are_flagged_not_parsed(tmp_path: Path) -> None:
    content = {"size": 9, "mimeType": "application/json", "text": "<html>oops"}
    df = parse(write(tmp_path, [entry(body="{not json", content=content)]))
    assert attrs(of(df, "http_response")["attrs"].iloc[0])["body_not_json"] is True
    assert attrs(of(df, "http_request")["attrs"].iloc[0])["body_not_json"] is True
    assert set(df["kind"]) == {"http_request", "http_response"}


def test_cut_file_keeps_the_entries_before_the_cut(tmp_path: Path) -> None:
    path = write(tmp_path, [entry(f"https://t.test/{k}", method="GET") for k in range(5)])
    text = path.read_text()
    path.write_text(text[: text.index('"https://t.test/4"')])
    df = parse(path)
    assert len(of(df, "http_request")) == 4
    cut = of(df, "unparsed")
    assert len(cut) == 1 and attrs(cut["attrs"].iloc[0])["reason"].startswith(
        "not a readable HAR after 4 entries"
    )


def test_not_a_har_when_forced(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text('{"log": {"version": "1.2"}}')
    df = parse(path)
    assert of(df, "unparsed")["detail"].tolist() == ["no log.entries"]
    path.write_text("[1, 2")
    assert len(of(parse(path), "unparsed")) == 1


def test_gzip_har(tmp_path: Path) -> None:
    plain = write(tmp_path, [entry(body={"messages": []})])
    gz = tmp_path / "x.har.gz"
    gz.write_bytes(gzip.compress(plain.read_bytes()))
    a, b = parse(plain), parse(gz)
    assert a["kind"].tolist() == b["kind"].tolist()
    assert ADAPTER.sniff(gzip.decompress(gz.read_bytes())[:65536], gz) == 98


def test_small_chunks_and_batches_give_the_same_events(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    history: list[dict[str, Any]] = []
    es = []
    for k in range(6):  # each chat request resends the history: calls counted once
        history += [
            {"role": "assistant", "tool_calls": [{"id": f"c{k}", "type": "function",
             "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": f"c{k}", "content": "ok"},
        ]  # fmt: skip
        es.append(entry(body={"messages": list(history)}))
    path = write(tmp_path, es)
    whole = parse(path)
    monkeypatch.setattr(har_stream, "CHUNK", 97)
    monkeypatch.setattr(har_pkg, "BATCH_ENTRIES", 2)
    pieces = parse(path)
    cols = ["kind", "tool_call_id", "origin", "ts", "size"]
    assert pieces[cols].equals(whole[cols])
    assert len(of(whole, "tool_call")) == 6 and len(of(whole, "tool_result")) == 6
