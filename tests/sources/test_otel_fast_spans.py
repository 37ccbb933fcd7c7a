"""The spans only the per-span mappers read are built from a block's columns
(`fast_spans`) exactly as the per-span reader (`otlp_json._span`) builds them from the
block's records: the same Span, the same counted problems, on every OTLP/JSON fixture, the
bench generator's file and edge shapes; spans with events are left to it."""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.json as pj
import pytest

from fixtures.gen.otel.bench import spans as bench_spans
from tests.conftest import FIXTURES
from tests.sources.test_otel_fastpath import _same, _slow
from toolcall_cli.sources import parse_file
from toolcall_cli.sources.otel import fast, fast_spans, otlp_json
from toolcall_cli.sources.otel.fast_columns import span_columns
from toolcall_cli.sources.otel.model import Batch

_TRACE = "0af7651916cd43dd8448eb211c80319c"


def _kv(key: str, value: dict[str, Any]) -> dict[str, Any]:
    return {"key": key, "value": value}


def _span(n: int, attrs: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "traceId": _TRACE,
        "spanId": f"{n + 1:016x}",
        "parentSpanId": "00f067aa0ba902b7",
        "name": f"chat m{n}",
        "kind": 3,
        "startTimeUnixNano": str(1_740_787_200_000_000_000 + n * 1000),
        "endTimeUnixNano": str(1_740_787_200_000_500_000 + n * 1000),
        "attributes": [_kv("gen_ai.operation.name", {"stringValue": "chat"}), *attrs],
        **extra,
    }


def _edge_file(path: Path) -> Path:
    """Model-call spans of every shape the column build reads, and one it leaves alone."""
    msgs = orjson.dumps([{"role": "user", "parts": [{"type": "text", "content": "hi"}]}]).decode()
    calls = [
        {"role": "assistant", "parts": [{"type": "tool_call", "name": "f", "arguments": {}}]},
        {"role": "assistant", "parts": [{"type": "text", "content": "a"}]},
    ]
    out = orjson.dumps(calls).decode()  # a tool call with no id; several messages
    spans = [
        _span(0, [_kv("gen_ai.input.messages", {"stringValue": msgs})]),
        _span(1, [_kv("gen_ai.output.messages", {"stringValue": out})], parentSpanId=None),
        _span(2, [], parentSpanId="AAAAAAAAAAE="),  # base64 parent id
        _span(3, [], parentSpanId="0000000000000000"),  # all zeros: counted
        _span(4, [], parentSpanId="not an id"),
        _span(5, [], status={"code": 2, "message": "boom"}),
        _span(6, [_kv("gen_ai.usage.input_tokens", {"intValue": "abc"})]),  # counted
        _span(7, [_kv("gen_ai.usage.input_tokens", {"intValue": "12"})], status={"code": 1}),
        _span(8, [_kv("gen_ai.request.model", {})]),  # an empty AnyValue
        _span(9, [{"value": {"stringValue": "no key"}}]),  # counted
        _span(
            10,
            [
                _kv("gen_ai.request.model", {"stringValue": "a"}),
                _kv("gen_ai.request.model", {"stringValue": "b"}),
            ],
        ),
        _span(
            11,
            [
                _kv("gen_ai.usage.output_tokens", {"doubleValue": 3.5}),
                _kv("gen_ai.agent.name", {"boolValue": True}),
                _kv("db.statement", {"intValue": "x"}),
            ],
        ),
        _span(12, [_kv("gen_ai.system", {"stringValue": "openai", "intValue": "1"})]),
        _span(13, [], name=None),
        _span(14, [], events=[{"name": "exception", "timeUnixNano": "1740787200000000000"}]),
        _span(
            15,
            [
                _kv(
                    "gen_ai.response.finish_reasons",
                    {"arrayValue": {"values": [{"stringValue": "stop"}]}},
                ),
                _kv(
                    "gen_ai.system_instructions",
                    {"kvlistValue": {"values": [{"key": "a", "value": {"intValue": "1"}}]}},
                ),
                _kv("gen_ai.tool.definitions", {"arrayValue": {"values": [{"intValue": "x"}]}}),
            ],
        ),
        _span(
            16,
            [_kv("llm.input_messages.0.message.role", {"stringValue": "user"})],
        ),
    ]
    for s in spans:
        if s.get("parentSpanId", "") is None:
            del s["parentSpanId"]
        if s.get("name", "") is None:
            del s["name"]
    doc = {
        "resourceSpans": [
            {
                "resource": {"attributes": [_kv("service.name", {"stringValue": "svc"})]},
                "scopeSpans": [{"scope": {"name": "s"}, "spans": spans}],
            }
        ]
    }
    path.write_bytes(orjson.dumps(doc) + b"\n")
    return path


def _compare(path: Path) -> tuple[int, int]:
    """Each block's slow spans both ways; (spans built from columns, spans left alone)."""
    data = path.read_bytes()
    table = pj.read_json(pa.BufferReader(data))
    cols = span_columns(table, str(path), 0)
    assert cols is not None
    at = np.flatnonzero(cols.slow)
    origins = cols.origins(at)[0].to_pylist()
    built = Batch()
    made = fast_spans.spans(cols, at, origins, built)
    records: list[Any] = fast_spans.strip(cols.spans.take(pa.array(at)).to_pylist())  # type: ignore[assignment]
    want: Counter[str] = Counter()
    for j, (i, rec) in enumerate(zip(at.tolist(), records, strict=True)):
        one = Batch()
        ref = otlp_json._span(rec, origins[j], *cols.service_scope(i), one)
        got = made[j]
        if got is not None:
            assert dataclasses.astuple(got) == dataclasses.astuple(ref), origins[j]
            want += one.problems
    assert built.problems == want
    return sum(s is not None for s in made), sum(s is None for s in made)


def test_edge_shapes_build_as_the_per_span_reader(tmp_path: Path) -> None:
    f = _edge_file(tmp_path / "edge.jsonl")
    assert _compare(f) == (16, 1)  # the span with events is left to the per-span reader


def test_edge_shapes_give_the_per_span_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = _edge_file(tmp_path / "edge.jsonl")
    assert fast.read(f, str(f)) is not None
    got = parse_file(f, source="otel")
    _same(got, _slow(f, monkeypatch))
    assert got["kind"].tolist().count("tool_call") == 1


def test_bench_spans_build_as_the_per_span_reader(tmp_path: Path) -> None:
    assert _compare(bench_spans(tmp_path / "b.jsonl", 600, per_line=100)) == (10, 0)


@pytest.mark.parametrize(
    "path", sorted((FIXTURES / "otel").glob("*/traces.otlp.jsonl")), ids=lambda p: p.parent.name
)
def test_fixtures_build_as_the_per_span_reader(path: Path) -> None:
    # every generated trace file is regular: were one refused, this comparison would test
    # nothing, so a refusal fails here rather than skipping
    assert fast.read(path, str(path)) is not None, "the column-wise path refused the file"
    built, left = _compare(path)
    assert built + left > 0
