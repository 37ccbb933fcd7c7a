"""Evidence quoting: the exact raw line, compact JSON at a pointer, frame summaries, lines."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pandas as pd
import pytest

from toolcall_cli.core.events import build_frame
from toolcall_cli.diagnose.evidence import clear_cache, evidence, locate, quote, resolve_pointer


@pytest.fixture(autouse=True)
def _fresh() -> None:
    clear_cache()


def test_line_origin_quotes_the_raw_line(tmp_path: Path) -> None:
    log = tmp_path / "mw.log"
    log.write_text('{"a": 1}\n  raw   line\twith tabs  \n{"c": 3}\n')
    assert quote(f"{log}:2") == "  raw   line\twith tabs  "
    assert quote(f"{log}:9") == ""
    gz = tmp_path / "mw.log.gz"
    gz.write_bytes(gzip.compress(b"first\nsecond\n"))
    assert quote(f"{gz}:2") == "second"


def test_pointer_origins_quote_compact_json(tmp_path: Path) -> None:
    calls = [{"id": "c/1", "function": {"name": "w"}}]
    doc = {
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "tool_calls": calls}]
    }
    f = tmp_path / "conv.json"
    f.write_text(json.dumps(doc, indent=2))
    assert quote(f"{f}#/messages/1/tool_calls/0") == '{"id":"c/1","function":{"name":"w"}}'
    assert quote(f"{f}#/messages/0/content") == "hi"
    assert quote(f"{f}#/messages/7") == ""
    jl = tmp_path / "convs.jsonl"
    jl.write_text('{"messages": []}\n{"messages": [{"role": "tool", "content": "42"}]}\n')
    assert quote(f"{jl}:2#/messages/0") == '{"role":"tool","content":"42"}'


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
    ev = evidence(rows)
    assert len(ev) == 2  # one entry per distinct origin
    assert ev[0].text.startswith("frame 7 of cap.pcap: ") and "POST /tools/w" in ev[0].text
    assert ev[1].text == "mw_request w tool_call_id=c2 POST /tools/w"
    assert evidence(pd.DataFrame()) == ()


def test_locate_maps_pointers_to_lines(tmp_path: Path) -> None:
    f = tmp_path / "conv.json"
    f.write_text('{\n  "messages": [\n    {"role": "user"},\n    {"role": "tool"}\n  ]\n}\n')
    loc = locate(f"{f}#/messages/1")
    assert (loc.path, loc.line, loc.pointer) == (str(f), 4, "/messages/1")
    assert locate(f"{f}:9").line == 9
    y = tmp_path / "cassette.yaml"
    y.write_text("interactions:\n- request:\n    body: x\n")
    assert locate(f"{y}#/interactions/0/request/body").line == 3
    assert locate(f"{tmp_path}/c.pcap#frame=2").line is None
