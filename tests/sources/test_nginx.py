"""nginx adapter: fixtures → http_access events (keys, UTC times, attrs); bad lines → unparsed."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from tests.conftest import FIXTURES, ROOT, attrs, run_cli
from toolcall_cli.errors import InputError, UsageError
from toolcall_cli.sources._shared.files import read_head
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.middleware import ADAPTER as MIDDLEWARE
from toolcall_cli.sources.nginx import ADAPTER

FX = FIXTURES / "nginx"


def parse(path: Path, **opts: Any) -> pd.DataFrame:
    return ADAPTER.parse(path, ParseOptions(**opts))


def utc(text: str) -> pd.Timestamp:
    return pd.Timestamp(text, tz="UTC")


@pytest.mark.parametrize("sample", ADAPTER.samples)
def test_claims_its_samples_and_middleware_does_not(sample: str) -> None:
    path = ROOT / sample
    head = read_head(path, 65536)
    assert ADAPTER.sniff(head, path) >= 60
    assert MIDDLEWARE.sniff(head, path) == 0


def test_combined() -> None:
    df = parse(FX / "combined.log")
    assert list(df["kind"]) == ["http_access"] * 6
    assert list(df["seq"]) == [1, 2, 3, 4, 5, 6]
    assert list(df["http_status"]) == [200, 200, 200, 404, 400, 502]
    assert list(df["size"]) == [1834, 512, 498, 153, 0, 166]
    assert df["tool"].tolist()[1:4] == ["get_weather", "get_weather", "search_flights"]
    assert pd.isna(df["tool"][0])
    assert df["ts"][0] == utc("2025-03-01T12:00:00")
    assert df["client"][3] == "10.0.0.7"
    assert df["detail"][2] == "POST /tools/get_weather?retry=1 HTTP/1.1"
    assert df["detail"][4] == "-"  # a connection that sent no request line
    a = attrs(df["attrs"][3])
    assert a == {
        "method": "GET",
        "path": "/tools/search_flights",
        "protocol": "HTTP/1.1",
        "referer": "https://app.example.com/chat",
        "user_agent": "Mozilla/5.0 (X11; Linux x86_64)",
        "remote_user": "alice",
    }
    assert df["origin"][1] == f"{FX / 'combined.log'}:2"


def test_combined_trailing_fields() -> None:
    df = parse(FX / "combined_trailing.log")
    assert list(df["trace_id"].fillna("")) == ["tr-100", "tr-100", "tr-100", ""]
    assert list(df["session_id"].fillna("")) == ["sess-1", "sess-1", "sess-1", ""]
    assert list(df["tool_call_id"].fillna("")) == ["", "call_abc123", "call_def456", "call_ghi789"]
    assert list(df["request_id"].fillna("")) == ["req-1", "req-2", "", ""]
    assert list(df["duration_ms"]) == pytest.approx([1204.0, 81.0, 2.0, 30001.0])
    first, third, fourth = (attrs(df["attrs"][i]) for i in (0, 2, 3))
    assert first["upstream_response_time"] == "1.198"
    assert first["upstream_status"] == "200"
    assert third["cache"] == "MISS"
    assert "upstream_status" not in third  # us="-" is empty
    assert fourth["extra"] == ["10.1.2.3"]


def test_custom_format_needs_its_format() -> None:
    fmt = (FX / "custom_format.format.txt").read_text()
    df = parse(FX / "custom_format.log", nginx_format=fmt)
    assert (df["kind"] == "http_access").all()
    assert list(df["trace_id"].fillna("")) == ["tr-200", "tr-200", "tr-200", ""]
    assert list(df["tool_call_id"]) == ["call_w1", "call_w2", "call_h1", "call_h2"]
    assert list(df["request_id"]) == ["7f3c2a9e01", "7f3c2a9e02", "7f3c2a9e03", "7f3c2a9e04"]
    assert list(df["ts"]) == [utc(f"2025-03-01T11:00:0{s}") for s in (1, 2, 3, 9)]
    assert attrs(df["attrs"][0])["upstream_connect_time"] == "0.001"
    # without the format the same lines still parse as combined, the keys stay in attrs
    plain = parse(FX / "custom_format.log")
    assert plain["trace_id"].isna().all()
    assert attrs(plain["attrs"][0])["xt"] == "tr-200"


def test_json_escape() -> None:
    df = parse(FX / "json_escape.log")
    assert list(df["kind"]) == ["http_access"] * 3
    assert list(df["http_status"]) == [200, 200, 500]
    assert list(df["ts"]) == [utc(f"2025-03-01T12:00:0{s}") for s in (0, 1, 2)]
    assert list(df["tool_call_id"].fillna("")) == ["", "call_j1", "call_j2"]
    assert df["request_id"][0] == "a1b2c3"
    assert df["duration_ms"][2] == pytest.approx(300.0)
    a = attrs(df["attrs"][2])
    assert a["user_agent"] == 'Weird "quoted" agent\u0007'  # escapes survive the vectorised attrs
    assert a["upstream_status"] == "500"
    assert "referer" not in a  # escape=json writes "" for an empty variable


def test_time_zones_become_utc() -> None:
    df = parse(FX / "tz.log")
    assert list(df["ts"]) == [
        utc("2015-05-17T08:05:03"),
        utc("2015-05-17T08:05:03"),
        utc("2019-01-22T00:26:14"),
        utc("2025-01-01T09:59:59"),
    ]


def test_bad_lines_are_unparsed_rows(tmp_path: Path) -> None:
    good = (FX / "combined.log").read_text().splitlines()[0]
    p = tmp_path / "access.log"
    p.write_text(f"{good}\nnot an access line\n\n{good}\r\n" + "x" * 5000 + "\n", encoding="utf-8")
    df = parse(p)
    assert list(df["kind"]) == ["http_access", "unparsed", "http_access", "unparsed"]
    assert list(df["seq"]) == [1, 2, 4, 5]  # blank line 3 is not a record
    bad = df[df["kind"] == "unparsed"]
    assert bad["detail"].iloc[0] == "not an access line"
    assert len(bad["detail"].iloc[1]) == 2000
    assert attrs(bad["attrs"].iloc[0])["reason"]
    assert bad["ts"].isna().all()


def test_gzip_and_decompression_cap(tmp_path: Path) -> None:
    p = tmp_path / "access.log.gz"
    p.write_bytes(gzip.compress((FX / "combined.log").read_bytes()))
    assert ADAPTER.sniff(read_head(p, 65536), p) >= 60
    assert len(parse(p)) == 6
    with pytest.raises(InputError):
        parse(p, max_decompressed=100)


def test_empty_file(tmp_path: Path) -> None:
    p = tmp_path / "empty.log"
    p.write_bytes(b"")
    assert len(parse(p)) == 0
    assert ADAPTER.sniff(b"", p) == 0


def test_bad_time_zone_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        parse(FX / "combined.log", tz="Mars/Olympus")


@pytest.mark.parametrize(
    "head",
    [
        b'[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]',
        b"\xd4\xc3\xb2\xa1\x02\x00\x04\x00" + bytes(range(256)) * 4,
        b"\x0a\x0d\x0d\x0a\x1c\x00\x00\x00\x4d\x3c\x2b\x1a" + bytes(200),
        bytes((i * 7919) % 256 for i in range(4096)),
    ],
    ids=["messages-array", "pcap", "pcapng", "random"],
)
def test_negative_heads_score_zero(head: bytes) -> None:
    assert ADAPTER.sniff(head, Path("x")) == 0
    assert MIDDLEWARE.sniff(head, Path("x")) == 0


@pytest.mark.parametrize(
    ("name", "events"),
    [("combined.log", 6), ("combined_trailing.log", 4), ("json_escape.log", 3), ("tz.log", 4)],
)
def test_cli_ingest(name: str, events: int) -> None:
    res = run_cli(["ingest", "--no-store", "--format", "json", str(FX / name)])
    assert res.exit_code == 0, res.stderr
    summary = json.loads(res.stdout)["summary"]
    assert [(f["source"], f["events"], f["unparsed"]) for f in summary["files"]] == [
        ("nginx", events, 0)
    ]
    assert summary["by_source"] == {"nginx": {"http_access": events}}


def test_cli_nginx_format_end_to_end() -> None:
    fmt = (FX / "custom_format.format.txt").read_text()
    args = [
        "ingest",
        "--no-store",
        "--format",
        "jsonl",
        "--nginx-format",
        fmt,
        str(FX / "custom_format.log"),
    ]
    res = run_cli(args)
    assert res.exit_code == 0, res.stderr
    rows = [json.loads(line) for line in res.stdout.splitlines() if line.strip()]
    assert [r["trace_id"] for r in rows] == ["tr-200", "tr-200", "tr-200", None]
    assert rows[0]["tool_call_id"] == "call_w1" and rows[0]["tool"] == "get_weather"


def test_cli_bad_nginx_format_is_a_usage_error() -> None:
    res = run_cli(
        ["ingest", "--no-store", "--nginx-format", "no variables here", str(FX / "combined.log")]
    )
    assert res.exit_code == 2
    assert "log_format" in res.stderr
