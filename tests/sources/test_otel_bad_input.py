"""otel bad input: cut streams, wrong value shapes, missing ids, absurd times — counted, never
a crash; and the value normaliser on every AnyValue type, id spelling and enum spelling."""

from __future__ import annotations

import struct
from pathlib import Path

import orjson
import pytest

from tests.conftest import FIXTURES
from tests.sources.otel_docs import span, traces, write
from toolcall_cli.model.events import UNPARSED
from toolcall_cli.sources import parse_file
from toolcall_cli.sources.otel import values

OTEL = FIXTURES / "otel"


def unparsed(df):  # type: ignore[no-untyped-def]
    bad = df[df["kind"] == UNPARSED]
    return {orjson.loads(a)["reason"]: d for a, d in zip(bad["attrs"], bad["detail"], strict=True)}


def test_truncated_protobuf_keeps_complete_messages() -> None:
    df = parse_file(OTEL / "bad/truncated.otlp.pb")
    assert (df["kind"] != UNPARSED).sum() == 7  # the whole first message (the healthy run)
    bad = df[df["kind"] == UNPARSED]
    assert len(bad) == 1
    reason = orjson.loads(bad["attrs"].iloc[0])["reason"]
    assert reason.startswith("truncated protobuf message: ")
    assert bad["origin"].iloc[0].endswith(":2")  # the second message of the stream


def test_garbage_protobuf_message_is_unparsed(tmp_path: Path) -> None:
    good = (OTEL / "dedupe/traces.otlp.pb").read_bytes()
    junk = b"\x0a\x05\xff\xff\xff\xff\xff"
    f = tmp_path / "mixed.otlp.pb"
    f.write_bytes(good + struct.pack(">I", len(junk)) + junk + good[:3])
    df = parse_file(f)
    assert (df["kind"] != UNPARSED).sum() == 7
    assert set(unparsed(df)) == {"not an OTLP message", "truncated length prefix"}


def test_wrong_shapes_missing_ids_absurd_times(tmp_path: Path) -> None:
    ok = span(1, "execute_tool f", {"gen_ai.operation.name": "execute_tool"})
    ok["attributes"] += [
        {"key": "gen_ai.tool.call.id", "value": {"intValue": "not a number"}},
        {"key": "gen_ai.tool.name", "value": {"arrayValue": {"values": "nope"}}},
        {"key": "gen_ai.tool.type", "value": {"kvlistValue": {"values": [{"value": {}}]}}},
        {"value": {"stringValue": "no key"}},
        "not an attribute",
    ]
    no_ids = span(2, "execute_tool g", {"gen_ai.operation.name": "execute_tool"})
    no_ids.pop("traceId")
    no_ids["spanId"] = "zz"
    no_ids["startTimeUnixNano"] = "12"  # 1970: not a span time
    no_ids["endTimeUnixNano"] = "9" * 30
    doc = traces(ok, no_ids)
    doc["resourceSpans"].append("not a resource")
    df = parse_file(write(tmp_path, doc))
    got = unparsed(df)
    assert got["bad_value"] == "3 attribute values of the wrong AnyValue shape"
    assert got["bad_attribute"] == "2 attributes without a key"
    assert got["missing_trace_id"] == "1 spans without a trace id"
    assert got["bad_span_id"] == "1 span ids that are not 8 bytes of hex or base64"
    assert got["bad_time"] == "2 timestamps that are not plausible times"
    assert got["resource entry is not an object"] == '"not a resource"'
    runs = df[df["kind"] == "http_request"]
    assert runs["tool"].tolist() == ["f", "g"]  # spans stay; bad values are absent, not guessed
    assert runs["tool_call_id"].isna().all()
    assert df.loc[df["tool"] == "g", "ts"].isna().all()


@pytest.mark.parametrize(
    "text",
    [
        '{"resourceSpans": "no"}',
        '{"resourceSpans": [{"scopeSpans": [{"spans": [1, null, "x"]}]}]}',
        '{"resourceLogs": [{"scopeLogs": [{"logRecords": [{"body": {"kvlistValue": 3}}]}]}]}',
        '{"data": [{"spans": [{"traceID": 5, "tags": "x", "logs": [1]}]}]}',
        '{"batches": [{"instrumentationLibrarySpans": [{"spans": [{"kind": "SPAN_KIND_X"}]}]}]}',
    ],
)
def test_odd_documents_never_crash(tmp_path: Path, text: str) -> None:
    f = tmp_path / "odd.json"
    f.write_text(text)
    df = parse_file(f, source="otel")
    assert set(df["kind"]) <= {UNPARSED, "system"}


def test_json_lines_with_a_broken_line(tmp_path: Path) -> None:
    line = (OTEL / "genai_healthy/traces.otlp.jsonl").read_text().strip()
    f = tmp_path / "t.jsonl"
    f.write_text(f'{line}\n{{"resourceSpans": [\n{{"other": 1}}\n')
    df = parse_file(f)
    assert (df["kind"] != UNPARSED).sum() == 7
    reasons = unparsed(df)
    assert any(r.startswith("not JSON") for r in reasons)
    assert "not an OTLP or Jaeger document" in reasons


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        ({"stringValue": "s"}, "s"),
        ({"intValue": "42"}, 42),
        ({"intValue": 7}, 7),
        ({"doubleValue": 1.5}, 1.5),
        ({"doubleValue": "NaN"}, None),
        ({"boolValue": True}, True),
        ({"bytesValue": "AAE="}, "AAE="),
        ({"arrayValue": {"values": [{"stringValue": "a"}, {"intValue": "1"}]}}, ["a", 1]),
        ({"arrayValue": {}}, []),
        ({"kvlistValue": {"values": [{"key": "k", "value": {"boolValue": False}}]}}, {"k": False}),
        ({}, None),
        ("plain", "plain"),
        ({"intValue": True}, values.BAD),
        ({"stringValue": 3}, values.BAD),
        ({"weird": 1}, values.BAD),
        ([1], values.BAD),
    ],
)
def test_any_value(raw: object, want: object) -> None:
    assert values.any_value(raw) == want  # BAD compares by identity


def test_ids_times_enums() -> None:
    hexid = "5B8EFFF798038103D269B633813FC60C"
    assert values.hex_id(hexid, 16) == hexid.lower()
    assert values.hex_id("W47/95gDgQPSabYzgT/GDA==", 16) == hexid.lower()  # Tempo's base64
    assert values.hex_id(bytes.fromhex("00f067aa0ba902b7"), 8) == "00f067aa0ba902b7"
    assert values.hex_id("0" * 16, 8) is None  # all-zero is invalid
    assert values.hex_id("abc", 8) is None
    assert values.nanos("1764583200000000000") == 1764583200000000000
    assert values.nanos(0) is None
    assert values.micros(1764583200000000) == 1764583200000000000
    assert [values.span_kind(k) for k in (3, "SPAN_KIND_SERVER", "client", 9, None)] == [
        "client", "server", "client", "unspecified", "unspecified",
    ]  # fmt: skip
    assert [values.status_code(c) for c in (2, "STATUS_CODE_OK", "ERROR", "?")] == [
        "error", "ok", "error", "unset",
    ]  # fmt: skip
