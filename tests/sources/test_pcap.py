"""pcap adapter on the committed fixture captures: exact events, detection, compressed forms."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from fixtures.gen.make_pcap_fixtures import TOOL_CALLS
from tests.conftest import FIXTURES, ROOT
from toolcall_cli.sources import detect, parse_file, scores
from toolcall_cli.sources.pcap import ADAPTER

PCAP = FIXTURES / "pcap"
pytestmark = pytest.mark.tshark


@functools.cache
def _parse(name: str) -> pd.DataFrame:
    return parse_file(PCAP / name)


def _attrs(df: pd.DataFrame) -> list[dict[str, Any]]:
    return [json.loads(a) if isinstance(a, str) else {} for a in df["attrs"]]


def _rows(df: pd.DataFrame, kind: str) -> pd.DataFrame:
    return df[df["kind"] == kind].reset_index(drop=True)


def test_samples_are_claimed_with_the_top_score() -> None:
    for sample in ADAPTER.samples:
        path = ROOT / sample
        assert path.is_file(), sample
        sc = scores(path)
        assert sc["pcap"] == 100, sample
        assert all(v < 100 for k, v in sc.items() if k != "pcap"), (sample, sc)
        assert detect(path) == "pcap"


def test_sniff_rejects_non_captures(tmp_path: Path) -> None:
    other = tmp_path / "x.json"
    other.write_text('{"messages": []}')
    assert ADAPTER.sniff(other.read_bytes(), other) == 0
    assert ADAPTER.sniff(b"\x1f\x8b\x08\x00", other) == 0  # gzip magic alone is not a capture
    for magic in (b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\xc3\xd4", b"\x4d\x3c\xb2\xa1"):
        assert ADAPTER.sniff(magic + b"\0" * 20, other) == 100
    ng = b"\x0a\x0d\x0d\x0a" + b"\x1c\0\0\0"
    assert ADAPTER.sniff(ng + b"\x4d\x3c\x2b\x1a" + b"\0" * 16, other) == 100
    assert ADAPTER.sniff(ng + b"text" + b"\0" * 16, other) == 0  # "\n\r\r\n" alone is not pcapng


def test_tool_calls_exact_events(tshark: str) -> None:
    df = _parse("tool_calls.pcap")
    assert df["kind"].tolist() == ["http_request", "http_response"] * 3
    assert set(df["source"]) == {"pcap"}
    assert df["seq"].tolist() == list(range(6))
    req, resp = _rows(df, "http_request"), _rows(df, "http_response")
    assert req["tool_call_id"].tolist() == ["call_001", "call_002", "call_003"]
    assert resp["tool_call_id"].tolist() == ["call_001", "call_002", "call_003"]  # inherited
    assert req["tool"].tolist() == ["get_weather", "search_flights", "send_email"]
    assert resp["tool"].tolist() == ["get_weather", "search_flights", "send_email"]
    assert req["args"].tolist() == [
        '{"city": "Paris", "unit": "celsius"}',
        '{"from":"CDG","to":"JFK","date":"2026-01-15"}',
        '{"to": "ops@example.com", "subject": "Café \\"menu\\""}',  # verbatim, UTF-8 intact
    ]
    assert set(df["trace_id"]) == {"trace-abc-123"}
    assert set(df["session_id"]) == {"sess-42"}
    assert resp["status"].tolist() == ["success", "success", "error"]
    assert resp["http_status"].tolist() == [200, 200, 200]
    assert resp["duration_ms"].round(3).tolist() == [120.0, 340.0, 50.0]
    assert req["duration_ms"].isna().all()
    assert req["client"].tolist() == ["10.0.0.5:51000"] * 3
    assert resp["client"].tolist() == ["10.0.0.5:51000"] * 3
    assert str(df["ts"].iloc[0]) == "2026-01-01 10:00:00+00:00"
    ra, sa = _attrs(req), _attrs(resp)
    assert [a["call_id"] for a in sa] == ["call_001", "call_002", "call_999"]
    assert [a["data_empty"] for a in sa] == [False, False, True]
    assert sa[2]["message"] == "mailbox unavailable"
    assert sa[0]["timestamp"] == "1767261600.120"
    assert ra[0]["x_request_timestamp"] == "1767261600.000"
    assert ra[0]["method"] == "POST" and ra[0]["uri"] == "/tools/get_weather"
    assert ra[0]["content_type"] == "application/json" and ra[0]["host"] == "tools.internal"
    assert [a["frame"] for a in ra] == [4, 9, 13]
    assert [a["request_frame"] for a in sa] == [a["frame"] for a in ra]
    origins = df["origin"].tolist()
    assert origins[0] == f"{PCAP / 'tool_calls.pcap'}#frame=4"
    assert all("#frame=" in o for o in origins)
    sent = [
        json.dumps({"function": t, "arguments": a}, ensure_ascii=False).encode()
        for _, t, a, *_ in TOOL_CALLS
    ]
    assert req["size"].tolist() == [
        len(b) for b in sent
    ]  # bytes on the wire, UTF-8 counted as bytes


@pytest.mark.parametrize("name", ["tool_calls.pcapng", "tool_calls.pcap.gz"])
def test_pcapng_and_gzip_give_the_same_events(tshark: str, name: str) -> None:
    base = _parse("tool_calls.pcap").drop(columns="origin")
    other = _parse(name).drop(columns="origin")
    pd.testing.assert_frame_equal(base, other)


def test_chunked_gzip_response_is_decoded(tshark: str) -> None:
    df = _parse("chunked_gzip.pcap")
    resp = _rows(df, "http_response").iloc[0]
    a = json.loads(resp["attrs"])
    assert resp["status"] == "success" and a["call_id"] == "call_gz_1"
    assert a["content_encoding"] == "gzip" and a["transfer_encoding"] == "chunked"
    assert resp["duration_ms"] == pytest.approx(200.0)
    rows = {"rows": [{"id": i, "name": f"row {i}"} for i in range(40)]}
    assert resp["size"] > len(json.dumps(rows))  # decoded size, not the compressed one
    assert "body_truncated" not in a


def test_pipelined_requests_pair_in_order(tshark: str) -> None:
    df = _parse("pipelined.pcap")
    assert df["kind"].tolist() == ["http_request"] * 3 + ["http_response"] * 3
    resp = _rows(df, "http_response")
    assert resp["tool_call_id"].tolist() == ["call_p1", "call_p2", "call_p3"]
    assert [a["call_id"] for a in _attrs(resp)] == ["call_p1", "call_p2", "call_p3"]
    assert resp["duration_ms"].round(3).tolist() == [100.0, 190.0, 280.0]


def test_llm_api_bodies_give_tool_events(tshark: str) -> None:
    df = _parse("llm_api.pcap")
    assert df["kind"].tolist() == [
        "http_request",
        "system",
        "http_response",
        "tool_call",
        "http_request",
        "tool_result",
        "http_response",
    ]
    call = _rows(df, "tool_call").iloc[0]
    assert (call["source"], call["tool_call_id"], call["tool"]) == (
        "pcap",
        "call_llm_1",
        "get_weather",
    )
    assert call["args"] == '{"city":"Paris"}'
    ca = json.loads(call["attrs"])
    assert ca["finish_reason"] == "tool_calls" and ca["protocol"] == "openai"
    assert ca["call_index"] == 0 and ca["from"] == "response"
    result = _rows(df, "tool_result").iloc[0]
    assert result["tool_call_id"] == "call_llm_1" and result["detail"] == '{"temp_c": 11}'
    assert result["size"] == len('{"temp_c": 11}')
    assert json.loads(result["attrs"])["follows_call"] is True
    assert set(df["session_id"]) == {"sess-llm"}
    tools = json.loads(_rows(df, "system").iloc[0]["attrs"])["tools"]
    assert tools[0]["function"]["name"] == "get_weather"
    # The history resent in the second request does not duplicate the call.
    assert (df["kind"] == "tool_call").sum() == 1


def test_streamed_completion_tool_call_is_reassembled(tshark: str) -> None:
    df = _parse("llm_sse.pcap")
    assert df["kind"].tolist() == ["http_request", "http_response", "tool_call"]
    call = _rows(df, "tool_call").iloc[0]
    assert (call["tool_call_id"], call["tool"]) == ("call_sse_1", "book_flight")
    assert call["args"] == '{"flight": "AF12", "seat": "12A"}'  # fragments joined verbatim
    attrs = json.loads(call["attrs"])
    assert attrs["protocol"] == "sse" and attrs["finish_reason"] == "tool_calls"
    assert call["session_id"] == "sess-sse"
