"""`--format otlp` writes OTLP/JSON lines opentelemetry-proto reads, in the source trace ids;
`--otlp-endpoint` posts the same as OTLP/HTTP protobuf to a real receiver on loopback."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import orjson
import pytest
from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.logs.v1.logs_pb2 import LogsData
from opentelemetry.proto.trace.v1.trace_pb2 import TracesData

from tests.conftest import FIXTURES, run_cli
from toolcall_cli.render.otlp_post import _proto_json

LOOP = FIXTURES / "otel" / "genai_loop" / "traces.otlp.jsonl"
SOURCE_TRACE = "036652a04b9193a33c02f6de6bb4d984"


def export(*args: str) -> list[dict[str, Any]]:
    res = run_cli(["diagnose", *args, "-f", "otlp", "--fail-on", "never"])
    assert res.exit_code == 0, res.output
    return [orjson.loads(line) for line in res.stdout.splitlines()]


def spans_of(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        s
        for d in docs
        for r in d.get("resourceSpans", ())
        for ss in r["scopeSpans"]
        for s in ss["spans"]
    ]


def span_attrs(span: dict[str, Any]) -> dict[str, Any]:
    return {a["key"]: next(iter(a["value"].values())) for a in span["attributes"]}


def source_span_ids() -> dict[str, str]:
    """span name → span id of the fixture's own spans."""
    doc = orjson.loads(LOOP.read_bytes().splitlines()[0])
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    return {s["spanId"]: s["name"] for s in spans}


def test_lines_parse_as_otlp_and_keep_the_source_trace() -> None:
    docs = export(str(LOOP))
    assert [("resourceSpans" in d, "resourceLogs" in d) for d in docs] == [
        (True, False),
        (False, True),
    ]
    traces = json_format.ParseDict(_proto_json(docs[0]), TracesData())
    logs = json_format.ParseDict(_proto_json(docs[1]), LogsData())
    spans = traces.resource_spans[0].scope_spans[0].spans
    assert {s.trace_id.hex() for s in spans} == {SOURCE_TRACE}
    assert all(len(s.span_id) == 8 for s in spans)
    calls = [s for s in spans_of(docs) if s["name"].startswith("toolcall.call")]
    assert [span_attrs(c)["gen_ai.tool.call.id"] for c in calls] == [
        f"call_loop_{i}" for i in range(1, 5)
    ]
    known = source_span_ids()
    # each call hangs under its execute_tool span of the source trace
    assert {known[c["parentSpanId"]] for c in calls} == {"execute_tool get_weather"}
    (record,) = logs.resource_logs[0].scope_logs[0].log_records
    assert record.severity_text == "ERROR" and record.body.string_value.startswith("FL001")


def test_finding_span_names_the_finding_and_links_the_offending_spans() -> None:
    (finding,) = [s for s in spans_of(export(str(LOOP))) if s["name"] == "FL001 model-loop"]
    a = span_attrs(finding)
    assert a["toolcall.finding.code"] == "FL001"
    assert a["toolcall.finding.severity"] == "error"
    assert a["gen_ai.tool.call.id"] == "call_loop_1"
    assert len(a["toolcall.finding.id"]) >= 8
    assert finding["status"]["code"] == 2
    assert finding["traceId"] == SOURCE_TRACE
    known = source_span_ids()
    assert known[finding["parentSpanId"]] == "execute_tool get_weather"
    assert len(finding["links"]) == 4
    assert all(link["spanId"] in known for link in finding["links"])
    # one event per evidence item: the four calls and the result the model got after the first
    assert [e["name"] for e in finding["events"]] == ["toolcall.evidence"] * 5
    texts = [str(e["attributes"][1]["value"]) for e in finding["events"]]
    assert '"role":"tool"' in texts[1]


def test_messages_evidence_gets_a_stable_hashed_trace() -> None:
    path = str(FIXTURES / "otel" / "as_messages" / "genai_loop.messages.json")
    first, second = export(path), export(path)
    assert first == second
    spans = spans_of(first)
    assert {len(s["traceId"]) for s in spans} == {32}
    assert "FL001 model-loop" in {s["name"] for s in spans}


def test_timeline_exports_calls_and_phases() -> None:
    res = run_cli(["timeline", str(LOOP), "-f", "otlp"])
    assert res.exit_code == 0, res.output
    spans = spans_of([orjson.loads(x) for x in res.stdout.splitlines()])
    names = [s["name"] for s in spans]
    assert names.count("toolcall.call get_weather") == 4
    assert "phase tool service" in names


class Receiver(BaseHTTPRequestHandler):
    """An OTLP/HTTP receiver: decodes each protobuf body with opentelemetry-proto."""

    got: ClassVar[list[tuple[str, Any]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        assert self.headers["Content-Type"] == "application/x-protobuf"
        if self.path == "/otlp/v1/traces":
            msg: Any = ExportTraceServiceRequest()
        elif self.path == "/otlp/v1/logs":
            msg = ExportLogsServiceRequest()
        else:
            self.send_response(404)
            self.end_headers()
            return
        msg.ParseFromString(body)
        self.got.append((self.path, msg))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[tuple[str, list[tuple[str, Any]]]]:
    Receiver.got = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/otlp", Receiver.got
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_endpoint_receives_the_same_spans_and_logs(receiver: tuple[str, list]) -> None:
    url, got = receiver
    res = run_cli(
        ["diagnose", str(LOOP), "--otlp-endpoint", url, "--fail-on", "never", "-f", "json"]
    )
    assert res.exit_code == 0, res.output
    assert "posted 17 spans" in res.stderr
    assert [p for p, _ in got] == ["/otlp/v1/traces", "/otlp/v1/logs"]
    posted = json_format.MessageToDict(got[0][1])["resourceSpans"][0]["scopeSpans"][0]["spans"]
    written = spans_of(export(str(LOOP)))
    assert [s["name"] for s in posted] == [s["name"] for s in written]
    assert {bytes.fromhex(s["traceId"]) for s in written} == {
        s.trace_id for s in got[0][1].resource_spans[0].scope_spans[0].spans
    }


def test_endpoint_path_to_traces_is_taken_as_its_base(receiver: tuple[str, list]) -> None:
    url, got = receiver
    res = run_cli(
        ["diagnose", str(LOOP), "--otlp-endpoint", url + "/v1/traces", "--fail-on", "never"]
    )
    assert res.exit_code == 0, res.output
    assert [p for p, _ in got] == ["/otlp/v1/traces", "/otlp/v1/logs"]


def test_remote_endpoint_is_refused_before_reading(tmp_path: Any) -> None:
    res = run_cli(
        ["diagnose", str(tmp_path / "absent"), "--otlp-endpoint", "http://192.0.2.1:4318"]
    )
    assert res.exit_code == 2
    assert "not a loopback address" in res.stderr and "--allow-remote" in res.stderr


def test_closed_endpoint_is_an_environment_error() -> None:
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    res = run_cli(["diagnose", str(LOOP), "--otlp-endpoint", f"http://127.0.0.1:{port}"])
    assert res.exit_code == 4
    assert "cannot post to the OTLP endpoint" in res.stderr
