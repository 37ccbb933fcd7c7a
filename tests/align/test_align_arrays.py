"""The column-array layer under align, and the edge cases its vectorised paths must keep."""

from __future__ import annotations

from typing import Any

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa

from toolcall_cli.align import align
from toolcall_cli.align.arrays import attr_fields, encode, event_arrays, first_by
from toolcall_cli.model.events import build_frame

T0 = pd.Timestamp("2026-11-30T03:00:00Z")


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    cols = sorted({k for r in rows for k in r})
    data: dict[str, list[Any]] = {c: [r.get(c) for r in rows] for c in cols}
    if "attrs" in data:
        data["attrs"] = [
            orjson.dumps(a).decode() if isinstance(a, dict) else a for a in data["attrs"]
        ]
    data.setdefault("origin", [f"f.log:{i + 1}" for i in range(len(rows))])
    data.setdefault("seq", list(range(len(rows))))
    return build_frame(data)


def test_attr_fields_parse_only_rows_naming_the_field() -> None:
    attrs = pa.array(
        [
            '{"stream": 3, "uri": "/a"}',
            '{"stream": {"nested": 1}}',
            '{"other": "\\"stream\\""}',
            'not json but "stream"',
            None,
            '{"st\\u0072eam": "escaped key"}',
            '{"stream": true}',
        ],
        type=pa.large_string(),
    )
    got = attr_fields(attrs, ["stream", "uri"])
    # numbers and booleans as Python text; objects, absent keys and bad JSON are null; a key
    # spelled with an escape is not looked for
    assert got["stream"].to_pylist() == ["3", None, None, None, None, None, "True"]
    assert got["uri"].to_pylist() == ["/a", None, None, None, None, None, None]


def test_encode_and_first_by() -> None:
    enc = encode(pa.array(["b", None, "a", "b"], type=pa.large_string()))
    assert enc.codes.tolist()[1] == -1 and enc.codes[0] == enc.codes[3]
    assert enc.values.take(pa.array(enc.ranks().argsort())).to_pylist() == ["a", "b"]
    groups = np.array([0, 1, 0, 0, -1, 1])
    key = np.array([5, 2, 3, 3, 0, 2])
    # group 0: rows 2 and 3 tie on the key, the earlier row wins; row 4 has no group
    assert first_by(groups, 3, [key]).tolist() == [2, 1, -1]


def test_ids_are_stripped_and_blank_ids_ignored() -> None:
    ev = _frame(
        [
            {
                "ts": T0,
                "source": "middleware",
                "kind": "mw_received",
                "tool_call_id": " c1 ",
                "session_id": " s ",
                "request_id": " r ",
            },
            {
                "ts": T0 + pd.Timedelta(milliseconds=5),
                "source": "middleware",
                "kind": "mw_request",
                "tool_call_id": "c1",
                "session_id": "",
                "request_id": "  ",
            },
        ]
    )
    a = event_arrays(ev)
    assert a.tool_call_id.text().to_pylist() == ["c1", "c1"]
    assert a.request_id.text().to_pylist() == ["r", None]
    assert a.request_id_raw.text().to_pylist() == [" r ", None]  # blank is none, else as sent
    assert a.session_id_raw.text().to_pylist() == [" s ", None]
    tl = align(ev)
    assert tl.events["call"].tolist() == ["c1", "c1"]
    assert tl.sessions == {" s ": ("c1",)}  # the session as written
    (call,) = tl.calls
    assert call.tool_call_id == "c1" and call.phases["initiation_ms"] == 5.0
    assert call.start == T0 and call.start_ns == T0.value


def test_empty_id_call_and_request_id_named_like_a_call() -> None:
    ev = _frame(
        [
            {
                "source": "messages",
                "kind": "tool_call",
                "tool_call_id": "",
                "tool": "t",
                "session_id": "s",
                "origin": "m.json#/messages/1/tool_calls/0",
            },
            # a call whose id reads like a request key, and an access line of request "x"
            {"ts": T0, "source": "middleware", "kind": "mw_request", "tool_call_id": "rq:x"},
            {
                "ts": T0 + pd.Timedelta(seconds=1),
                "source": "nginx",
                "kind": "http_access",
                "request_id": "x",
                "duration_ms": 1000.0,
                "detail": "POST /tools/t HTTP/1.1",
            },
        ]
    )
    tl = align(ev)
    empty = [c for c in tl.calls if c.tool_call_id == ""]
    assert len(empty) == 1 and empty[0].outcome == "missing" and empty[0].start is None
    # the access line's request moment and the middleware's request are one key: an anchor
    assert tl.anchors.get("nginx") == 1
