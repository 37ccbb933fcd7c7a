"""otel readers on the fixtures the real libraries made: exact events per kind, ids, sessions,
and every encoding of one export giving the same events."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import orjson
import pandas as pd
import pytest

from tests.conftest import FIXTURES
from toolcall_cli.sources import ingest_paths, parse_file

OTEL = FIXTURES / "otel"
LOOP_TRACE = "036652a04b9193a33c02f6de6bb4d984"
HEALTHY_TRACE = "b199c812c349ca3f32e4ec7ce55ed82b"


def kinds(df: pd.DataFrame) -> dict[str, int]:
    return dict(Counter(df["kind"].tolist()))


LOOP = {
    "system": 1, "user": 1, "tool_call": 4, "http_request": 4, "http_response": 4,
    "tool_result": 4, "assistant_text": 1,
}  # fmt: skip
HEALTHY = {
    "system": 1, "user": 1, "tool_call": 1, "http_request": 1, "http_response": 1,
    "tool_result": 1, "assistant_text": 1,
}  # fmt: skip

CASES = [
    ("genai_loop/traces.otlp.jsonl", LOOP, "conv-genai-loop", LOOP_TRACE),
    ("genai_healthy/traces.otlp.jsonl", HEALTHY, "conv-genai-healthy", HEALTHY_TRACE),
    (
        "genai_unanswered/traces.otlp.jsonl",
        {
            "system": 2,
            "user": 1,
            "tool_call": 2,
            "http_request": 1,
            "http_response": 1,
            "tool_result": 1,
        },
        "conv-genai-unanswered",
        "748f5b8f3b9a2e63858d0cd25a84e30c",
    ),
    (
        "openinference_loop/traces.otlp.jsonl",
        {**LOOP, "system": 2},  # the system prompt and the declared tools
        "conv-openinference-loop",
        "656a701386e37f83bb7867bae9502594",
    ),
    (
        "legacy_loop/traces.otlp.jsonl",
        {**LOOP, "system": 2},
        "conv-legacy-loop",
        "94906b904f959dbda29811666ac5a018",
    ),
    (
        "legacy_loop/logs.otlp.jsonl",
        {"system": 1, "user": 1, "tool_call": 4, "tool_result": 4, "assistant_text": 1},
        None,  # the log events carry no conversation id
        "94906b904f959dbda29811666ac5a018",
    ),
    ("encodings/genai_loop.otlp.pb", LOOP, "conv-genai-loop", LOOP_TRACE),
    ("encodings/genai_loop.otlp.pb.zst", LOOP, "conv-genai-loop", LOOP_TRACE),
    ("encodings/genai_loop.tempo.json", LOOP, "conv-genai-loop", LOOP_TRACE),
    ("encodings/genai_loop.jaeger.json", LOOP, "conv-genai-loop", LOOP_TRACE),
    (
        "encodings/legacy_healthy_logs.otlp.pb",
        {"system": 1, "user": 1, "tool_call": 1, "tool_result": 1, "assistant_text": 1},
        None,
        "c4942cee1cc6e7ca51fff789c3a51eaa",
    ),
]


@pytest.mark.parametrize(("name", "expected", "session", "trace"), CASES)
def test_reader_events(
    name: str, expected: dict[str, int], session: str | None, trace: str
) -> None:
    df = parse_file(OTEL / name)
    assert kinds(df) == expected
    assert set(df["source"]) == {"otel"}
    assert set(df["trace_id"].dropna()) == {trace}
    assert set(df["session_id"].dropna()) == ({session} if session else set())
    assert df["ts"].notna().all()
    assert df["seq"].tolist() == list(range(len(df)))


def _core(df: pd.DataFrame) -> list[tuple[object, ...]]:
    cols = ["kind", "tool", "tool_call_id", "args", "trace_id", "session_id", "status"]
    rows = df[cols].astype(object).where(df[cols].notna(), None)
    us = (df["ts"].astype("int64") // 1000).tolist()  # Jaeger keeps µs
    return [(*r, t) for r, t in zip(rows.itertuples(index=False), us, strict=True)]


@pytest.mark.parametrize(
    "name",
    [
        "genai_loop.otlp.pb",
        "genai_loop.otlp.pb.zst",
        "genai_loop.tempo.json",
        "genai_loop.jaeger.json",
    ],
)
def test_every_encoding_gives_the_same_events(name: str) -> None:
    want = _core(parse_file(OTEL / "genai_loop/traces.otlp.jsonl"))
    assert _core(parse_file(OTEL / "encodings" / name)) == want


def test_loop_calls_and_results() -> None:
    df = parse_file(OTEL / "genai_loop/traces.otlp.jsonl")
    calls = df[df["kind"] == "tool_call"]
    assert calls["tool_call_id"].tolist() == [f"call_loop_{i}" for i in range(1, 5)]
    assert set(calls["tool"]) == {"get_weather"}
    assert set(calls["args"]) == {'{"city":"Paris"}'}  # the convention's object, as compact text
    runs = df[df["kind"] == "http_response"]
    assert set(runs["status"]) == {"ok"}
    assert (runs["duration_ms"] > 0).all()
    results = df[df["kind"] == "tool_result"]
    assert results["tool_call_id"].tolist() == calls["tool_call_id"].tolist()
    first = orjson.loads(results["attrs"].iloc[0])
    assert first["follows_call"] is True
    assert len(first["span_id"]) == 16


def test_origins_point_into_the_document() -> None:
    df = parse_file(OTEL / "genai_loop/traces.otlp.jsonl")
    call = df[df["kind"] == "tool_call"]["origin"].iloc[0]
    base = f"{OTEL / 'genai_loop/traces.otlp.jsonl'}:1#/resourceSpans/0/scopeSpans/0/spans/"
    assert call.startswith(base)
    assert call.endswith("/value/stringValue/0/parts/0")
    from toolcall_cli.model.quoting import Quoter
    from toolcall_cli.model.redact import DEFAULT_REDACTOR

    quoter = Quoter([OTEL / "genai_loop/traces.otlp.jsonl"], DEFAULT_REDACTOR)
    assert '"call_loop_1"' in quoter.quote(call)  # evidence quotes the message part itself


def test_json_lines_origins_carry_the_line(tmp_path: Path) -> None:
    src = (OTEL / "genai_healthy/traces.otlp.jsonl").read_text().strip()
    logs = (OTEL / "legacy_healthy/logs.otlp.jsonl").read_text().strip()
    f = tmp_path / "mixed.jsonl"
    f.write_text(f"{src}\n{logs}\n")
    df = parse_file(f)
    lines = {o.split("#", 1)[0].rsplit(":", 1)[1] for o in df["origin"]}
    assert lines == {"1", "2"}


def test_span_delivered_twice_in_one_file_is_one_span(tmp_path: Path) -> None:
    line = (OTEL / "genai_loop/traces.otlp.jsonl").read_text().strip()
    f = tmp_path / "retried.jsonl"
    f.write_text(f"{line}\n{line}\n")
    assert kinds(parse_file(f)) == LOOP


def test_json_and_protobuf_of_one_export_in_a_directory() -> None:
    result = ingest_paths([OTEL / "dedupe"])
    assert [len(f.frame) for f in result.files] == [7, 7]
    assert kinds(result.events) == HEALTHY


def test_content_capture_off_is_recorded() -> None:
    df = parse_file(OTEL / "legacy_healthy/traces.otlp.jsonl")
    req = df[df["kind"] == "http_request"]
    assert req["args"].isna().all()  # never invented
    resp = orjson.loads(df[df["kind"] == "http_response"]["attrs"].iloc[0])
    assert resp["content_captured"] is False


def test_span_in_two_files_of_one_store_ingest_is_stored_once(tmp_path: Path) -> None:
    from tests.conftest import run_cli
    from toolcall_cli.store.read import load_events

    store = tmp_path / "store"
    res = run_cli(["ingest", str(OTEL / "dedupe"), "--store", str(store), "-f", "json"])
    assert res.exit_code == 0, res.output
    stored = load_events(store)
    assert kinds(stored) == HEALTHY
    assert set(stored["origin"].str.split("#").str[0].str.rsplit(":", n=1).str[0]) == {
        str(OTEL / "dedupe" / "traces.otlp.jsonl")
    }  # the first file read keeps the span, the protobuf copy adds nothing


def test_redeliveries_keeps_new_rows_of_a_known_span() -> None:
    from toolcall_cli.sources import Redeliveries

    frame = parse_file(OTEL / "genai_loop/traces.otlp.jsonl")
    seen = Redeliveries()
    assert len(seen.drop(frame.iloc[:5])) == 5
    rest = seen.drop(frame)
    assert len(rest) == len(frame) - 5
    assert rest["origin"].tolist() == frame["origin"].iloc[5:].tolist()


def test_redeliveries_count_identical_rows_of_one_span() -> None:
    from toolcall_cli.sources import Redeliveries

    frame = parse_file(OTEL / "genai_loop/traces.otlp.jsonl")
    seen = Redeliveries()
    assert len(seen.drop(frame.iloc[[0]])) == 1
    twice = frame.iloc[[0, 0]].reset_index(drop=True)
    assert len(seen.drop(twice)) == 1  # the first copy was delivered, the second is new
    assert len(seen.drop(twice)) == 0


def test_redeliveries_of_one_file_remember_nothing() -> None:
    from toolcall_cli.sources import Redeliveries

    frame = parse_file(OTEL / "genai_loop/traces.otlp.jsonl")
    once = Redeliveries(remember=False)  # one input file: no later file to compare with
    assert len(once.drop(frame)) == len(frame)
    assert len(once.drop(frame)) == len(frame)
    assert not once.seen.size
