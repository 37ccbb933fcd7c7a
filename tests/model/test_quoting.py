"""Quoting: the exact raw line, compact JSON at a pointer, frame summaries, lines — and only
from the run's input files."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pandas as pd
import pytest

from toolcall_cli.diagnose.kit.evidence import evidence
from toolcall_cli.model.events import build_frame
from toolcall_cli.model.findings import Evidence, Finding, Location, Rule, Severity
from toolcall_cli.model.quoting import Quoter, quote_findings, resolve_pointer
from toolcall_cli.model.quoting.input_files import clear_cache
from toolcall_cli.model.redact import DEFAULT_REDACTOR, Redactor


@pytest.fixture(autouse=True)
def _fresh() -> None:
    clear_cache()


def _quoter(*files: Path) -> Quoter:
    return Quoter(files, DEFAULT_REDACTOR)


def test_line_origin_quotes_the_raw_line(tmp_path: Path) -> None:
    log = tmp_path / "mw.log"
    log.write_text('{"a": 1}\n  raw   line\twith tabs  \n{"c": 3}\n')
    gz = tmp_path / "mw.log.gz"
    gz.write_bytes(gzip.compress(b"first\nsecond\n"))
    q = _quoter(log, gz)
    assert q.quote(f"{log}:2") == "  raw   line\twith tabs  "
    assert q.quote(f"{log}:9") == ""
    assert q.quote(f"{gz}:2") == "second"


def test_pointer_origins_quote_compact_json(tmp_path: Path) -> None:
    calls = [{"id": "c/1", "function": {"name": "w"}}]
    doc = {
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "tool_calls": calls}]
    }
    f = tmp_path / "conv.json"
    f.write_text(json.dumps(doc, indent=2))
    jl = tmp_path / "convs.jsonl"
    jl.write_text('{"messages": []}\n{"messages": [{"role": "tool", "content": "42"}]}\n')
    q = _quoter(f, jl)
    assert q.quote(f"{f}#/messages/1/tool_calls/0") == '{"id":"c/1","function":{"name":"w"}}'
    assert q.quote(f"{f}#/messages/0/content") == "hi"
    assert q.quote(f"{f}#/messages/7") == ""
    assert q.quote(f"{jl}:2#/messages/0") == '{"role":"tool","content":"42"}'


def test_pointer_descends_into_json_text_and_escapes() -> None:
    doc = {"body": json.dumps({"a~b": {"x/y": [1, 2]}})}
    assert resolve_pointer(doc, "/body/a~0b/x~1y/1") == (True, 2)
    assert resolve_pointer(doc, "/body/nope") == (False, None)


def test_frame_origin_and_fallback_to_the_event(tmp_path: Path) -> None:
    gone = f"{tmp_path}/gone.log:3"
    rows = build_frame({
        "origin": [f"{tmp_path}/cap.pcap#frame=7", gone, gone],
        "source": ["pcap", "middleware", "middleware"],
        "kind": ["http_request", "mw_request", "mw_request"],
        "seq": [0, 1, 2], "tool": ["w", "w", "w"], "tool_call_id": ["c1", "c2", "c2"],
        "detail": ["POST /tools/w HTTP/1.1", "POST /tools/w", "POST /tools/w"],
    })  # fmt: skip
    cited = evidence(rows)
    assert len(cited) == 2  # one entry per distinct origin
    q = _quoter(Path(gone.rsplit(":", 1)[0]))
    ev = [q.evidence(e) for e in cited]
    assert (
        ev[0].text == "frame 7 of cap.pcap: http_request w tool_call_id=c1 POST /tools/w HTTP/1.1"
    )
    assert ev[1].text == "mw_request w tool_call_id=c2 POST /tools/w"
    assert evidence(pd.DataFrame()) == ()


def test_locate_maps_pointers_to_lines(tmp_path: Path) -> None:
    f = tmp_path / "conv.json"
    f.write_text('{\n  "messages": [\n    {"role": "user"},\n    {"role": "tool"}\n  ]\n}\n')
    y = tmp_path / "cassette.yaml"
    y.write_text("interactions:\n- request:\n    body: x\n")
    q = _quoter(f, y)
    loc = q.locate(f"{f}#/messages/1")
    assert (loc.path, loc.line, loc.pointer) == (str(f), 4, "/messages/1")
    assert q.locate(f"{f}:9").line == 9
    assert q.locate(f"{y}#/interactions/0/request/body").line == 3
    assert q.locate(f"{tmp_path}/c.pcap#frame=2").line is None


def test_an_origin_outside_the_inputs_is_never_read(tmp_path: Path) -> None:
    """A rewritten origin column (a tampered store) must not make diagnose print a local file."""
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0\n")
    doc = tmp_path / "other.json"
    doc.write_text('{\n  "k": "hidden"\n}\n')
    inputs = tmp_path / "mw.log"
    inputs.write_text("ok\n")
    q = _quoter(inputs)
    assert q.quote(f"{secret}:1") == ""
    assert q.quote(f"{doc}#/k") == ""
    assert q.locate(f"{doc}#/k").line is None
    assert q.quote(f"{tmp_path}/./mw.log:1") == "ok"  # the same input, spelled differently
    cited = Evidence(origin=f"{secret}:1", text="mw_other stand-in")
    assert q.evidence(cited).text == "mw_other stand-in"


def test_quotes_are_redacted_once_at_the_end(tmp_path: Path) -> None:
    log = tmp_path / "mw.log"
    log.write_text("Authorization: Bearer abcdefghijklmnop\n")
    rule = Rule(code="XX001", name="x", severity=Severity.info, summary="x")
    f = Finding.of(rule, "m", evidence=[Evidence(origin=f"{log}:1", text="")])
    (quoted,) = quote_findings([f], files=[log], redactor=Redactor())
    assert quoted.evidence[0].text == "Authorization: [REDACTED]"
    assert quoted.location == Location(path=str(log), line=1, pointer=None)
    (raw,) = quote_findings([f], files=[log], redactor=Redactor(enabled=False))
    assert raw.evidence[0].text == "Authorization: Bearer abcdefghijklmnop"


def test_the_event_text_is_asked_for_only_when_the_quote_needs_it(tmp_path: Path) -> None:
    log = tmp_path / "mw.log"
    log.write_text("line one\n")
    asked: list[str] = []

    def stand_in(e: Evidence) -> str:
        asked.append(e.origin)
        return "event text"

    q = Quoter([log], DEFAULT_REDACTOR, stand_in)
    assert q.evidence(Evidence(origin=f"{log}:1", text="")).text == "line one"
    assert q.evidence(Evidence(origin=f"{log}:7", text="")).text == "event text"
    frame = q.evidence(Evidence(origin=f"{tmp_path}/c.pcap#frame=3", text=""))
    assert frame.text == "frame 3 of c.pcap: event text"
    assert asked == [f"{log}:7", f"{tmp_path}/c.pcap#frame=3"]
