"""The pcap event builder held to committed event tables: of every capture and HAR among the
fixtures, of the shared corpus's captures (read in place), and of seeded hostile message tables
(non-ASCII and repeated headers, pipelining, interim, surplus and unmatched answers, odd JSON
bodies, LLM bodies, encoded bodies). A table's golden is every row (unparsed ones too), each
column as JSON, times to the nanosecond."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pandas as pd
import pytest

from tests.conftest import CORPUS, FIXTURES, GOLDEN_DIR, IN_CI, ROOT, normalise
from tests.sources.pcap_parsed import parsed
from toolcall_cli.model.events import COLUMNS
from toolcall_cli.sources.pcap import events as pcap_events
from toolcall_cli.sources.pcap.http import BODY_CAP, MESSAGE_COLUMNS, NULL_NS
from toolcall_cli.sources.pcap.tshark import AGGREGATOR

Message = dict[str, Any]
_RECORDINGS = (".pcap", ".pcapng", ".pcap.gz", ".pcapng.gz", ".har")


def _found(top: Path) -> list[str]:
    return sorted(
        str(p.relative_to(top))
        for p in top.rglob("*")
        if p.is_file() and p.name.endswith(_RECORDINGS)
    )


_FIXTURES = _found(FIXTURES)
_CAPTURES = _found(CORPUS / "pcap") if CORPUS.is_dir() else []


def table_text(frame: pd.DataFrame) -> str:
    """*frame* as JSON lines: every row, the columns in schema order, `ts` in ISO 8601 to ns."""
    df = frame.astype(object).where(frame.notna(), None)
    df["ts"] = [None if pd.isna(t) else t.isoformat() for t in frame["ts"]]
    lines = [
        orjson.dumps({c: rec[c] for c in COLUMNS}, default=str).decode()
        for rec in df.to_dict(orient="records")
    ]
    return normalise("".join(f"{line}\n" for line in lines))


def _check(name: str, frame: pd.DataFrame, *, update: bool) -> None:
    path = GOLDEN_DIR / "events" / "pcap" / f"{name}.txt"
    text = table_text(frame)
    if update or not path.exists():
        if not update and IN_CI:
            pytest.fail(f"golden {path} is missing; run pytest --update-goldens and review it")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert text == path.read_text(encoding="utf-8"), f"event table {name} differs from its golden"


@pytest.mark.parametrize("name", [n for n in _FIXTURES if not n.endswith(".har")])
@pytest.mark.tshark
def test_fixture_capture(tshark: str, update_goldens: bool, name: str) -> None:
    _check(f"fixtures/{name}", parsed(FIXTURES / name).frame, update=update_goldens)


@pytest.mark.parametrize("name", [n for n in _FIXTURES if n.endswith(".har")])
def test_fixture_har(update_goldens: bool, name: str) -> None:
    _check(f"fixtures/{name}", parsed(FIXTURES / name).frame, update=update_goldens)


@pytest.mark.parametrize("name", _CAPTURES or ["(corpus missing)"])
@pytest.mark.tshark
@pytest.mark.corpus
def test_corpus_capture(corpus: Path, tshark: str, update_goldens: bool, name: str) -> None:
    _check(f"corpus/{name}", parsed(corpus / "pcap" / name).frame, update=update_goldens)


def test_goldens_cover_every_recording() -> None:
    # a recording without a golden would be created, not checked, outside CI: every one listed
    # here has one, and no golden is left over from a recording that is gone
    root = GOLDEN_DIR / "events" / "pcap"
    fixtures = sorted(
        str(p.relative_to(root / "fixtures"))[:-4] for p in (root / "fixtures").rglob("*.txt")
    )
    assert fixtures == _FIXTURES
    if _CAPTURES:
        corpus = sorted(
            str(p.relative_to(root / "corpus"))[:-4] for p in (root / "corpus").rglob("*.txt")
        )
        assert corpus == _CAPTURES
    assert len(_FIXTURES) >= 20 and ROOT in FIXTURES.parents


def _message(rnd: random.Random, frame: int, streams: int) -> Message:
    is_req = rnd.random() < 0.55
    stream = rnd.choice([*range(streams), None]) if rnd.random() < 0.95 else None
    lines = [("POST /tools/x HTTP/1.1" if is_req else "HTTP/1.1 200 OK") + "\\r\\n"]
    for _ in range(rnd.randint(0, 6)):
        lines.append(rnd.choice(_HEADER_LINES)(rnd))
    body = rnd.choice(_REQUEST_BODIES if is_req else _RESPONSE_BODIES)(rnd)
    if rnd.random() < 0.08:  # gzip (sometimes not really)
        lines.append("Content-Encoding: gzip\\r\\n")
        body = gzip.compress(body, mtime=0) if rnd.random() < 0.8 else body
    code = rnd.choice([200, 200, 200, 100, 101, 103, 404, 0, None])
    return {
        "frame": frame,
        "ts_ns": NULL_NS if rnd.random() < 0.05 else 1_700_000_000_000_000_000 + frame * 1000,
        "stream": stream,
        "is_request": is_req,
        "src": rnd.choice(["10.0.0.1:5000", None, "[::1]:80"]),
        "dst": rnd.choice(["10.0.0.9:8080", None]),
        "method": rnd.choice(["POST", "GET", "", None]) if is_req else "",
        "uri": rnd.choice(_URIS) if is_req else "",
        "version": rnd.choice(["HTTP/1.1", "", None]),
        "code": None if is_req else code,
        "phrase": None if is_req else rnd.choice(["OK", "", None, "Continue"]),
        "request_in": None if is_req else rnd.choice([None, frame - 1, frame - 2, 1]),
        "hdr": AGGREGATOR.join(lines),
        "body": body,
        "flags": rnd.choice([None, None, None, {"body_lossy": True}, {"malformed": True}]),
    }


_HEADER_LINES = [
    lambda r: f"X-Tool-Call-ID: call_{r.randint(0, 9)}\\r\\n",
    lambda r: "x-tool-call-id:   \\r\\n",  # empty: the next one counts
    lambda r: f"X-Trace-ID: t{r.randint(0, 3)}  \\r\\n",
    lambda r: "traceparent: 00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-01\\r\\n",
    lambda r: "traceparent: 00-nothex-01\\r\\n",
    lambda r: f"X-Session-ID: s{r.randint(0, 2)}\\r\\n",
    lambda r: "X-Request-ID: r\u00e9q\u00a0\\r\\n",  # non-ASCII, no-break space at the end
    lambda r: "Ho\u017ft: not-a-host\\r\\n",  # long s: not "host"
    lambda r: "\u00a0Host: spaced\\r\\n",
    lambda r: "Host: api.example\\r\\n",
    lambda r: "Content-Type: application/json\\r\\n",
    lambda r: "Content-Type: text/event-stream\\r\\n",
    lambda r: "content-type: APPLICATION/JSON; charset=utf-8\\r\\n",
    lambda r: "Transfer-Encoding: chunked\\r\\n",
    lambda r: 'X-Original-ID: o"1\\\\\\r\\n',  # quote and backslash in a value
    lambda r: "X-Request-Timestamp: 1700000000000\\r\\n",
    lambda r: "no colon here\\r\\n",
    lambda r: ": empty name\\r\\n",
]
_URIS = [
    "/tools/get_weather",
    "http://h:1/tools/search?q=1",
    "/tools/a\u00a0b",
    "/v1/chat/completions",
    "/v1/messages?beta=1",
    "/other",
    "",
    None,
]


def _dump(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode()


_REQUEST_BODIES = [
    lambda r: b"",
    lambda r: _dump({"function": "get_weather", "arguments": {"city": "Z\u00fcrich"}}),
    lambda r: _dump({"function": "other_tool", "arguments": '{"a": 1}'}),
    lambda r: _dump({"function": {"name": "nested", "arguments": [1, 2]}}),
    lambda r: _dump({"tool": "t", "arguments": 3.5}),
    lambda r: _dump({"name": 7}),
    lambda r: _dump(
        {
            "messages": [
                {"role": "user", "content": "hi"},
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": f"c{r.randint(0, 2)}", "function": {"name": "f", "arguments": "{}"}}
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": "ok"},
            ],
            "tools": [{"type": "function", "function": {"name": "f"}}],
        }
    ),
    lambda r: b"  [1, 2]",
    lambda r: b"{not json",
    lambda r: b"plain text",
]
_RESPONSE_BODIES = [
    lambda r: b"",
    lambda r: _dump({"status": "success", "data": {"n": 1}, "message": "", "call_id": "c1"}),
    lambda r: _dump({"status": {"code": 1}, "data": [], "call_id": 5, "timestamp": 1.5}),
    lambda r: _dump({"data": "", "message": "line\nbreak \u2028", "timestamp": "2025-01-01"}),
    lambda r: _dump({"status": None, "data": 0, "call_id": ""}),
    lambda r: _dump(
        {"choices": [{"index": 0, "message": {"tool_calls": [{"id": "c9", "function": {}}]}}]}
    ),
    lambda r: _dump({"error": {"message": "rate limited", "type": "rate_limit"}}),
    lambda r: b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"s1"}]}}]}\n',
    lambda r: b"<html>",
    lambda r: b"{broken",
]


@pytest.mark.parametrize("seed", range(12))
def test_hostile_message_tables(update_goldens: bool, seed: int) -> None:
    rnd = random.Random(seed)
    rows = [_message(rnd, f, streams=1 + seed % 4) for f in range(1, 300)]
    msgs = pd.DataFrame({c: pd.Series([r[c] for r in rows], dtype=object) for c in MESSAGE_COLUMNS})
    df = pcap_events.events(msgs, f"cap{seed}.pcap", cap=1 << 16)
    _check(f"tables/seed{seed}", df, update=update_goldens)
    kinds = set(df["kind"])
    assert {"http_request", "http_response"} <= kinds
    assert len(df) >= len(rows)


def test_pairing_cases(update_goldens: bool) -> None:
    """Pipelined requests, an interim answer, a 101, a surplus and an unmatched answer."""
    plan = [
        (1, True, None, None),
        (2, True, None, None),
        (3, False, 100, None),
        (4, False, 200, None),
        (5, False, 101, None),
        (6, False, 200, 2),  # nobody waiting: request_in names frame 2 (surplus)
        (7, False, 200, 99),  # nobody waiting, no such request (unmatched)
        (8, True, None, None),
    ]
    rows = [
        {
            **dict.fromkeys(MESSAGE_COLUMNS),
            "frame": f,
            "ts_ns": f * 1_000_000,
            "stream": 0,
            "is_request": req,
            "code": code,
            "request_in": rin,
            "hdr": "",
            "body": b"",
        }
        for f, req, code, rin in plan
    ]
    msgs = pd.DataFrame({c: pd.Series([r[c] for r in rows], dtype=object) for c in MESSAGE_COLUMNS})
    df = pcap_events.events(msgs, "pairs.pcap", cap=BODY_CAP)
    _check("tables/pairs", df, update=update_goldens)
    attrs = [json.loads(a) for a in df["attrs"]]
    assert [a.get("response_frame") for a in attrs[:2]] == [4, 5]
    assert [a.get("request_frame") for a in attrs[2:7]] == [1, 1, 2, 2, None]
    assert attrs[5]["surplus_response"] and attrs[6]["unmatched_response"]
    assert attrs[7]["no_response"]
    assert np.isnan(df["duration_ms"].iloc[6])
