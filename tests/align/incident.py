"""A synthetic multi-source incident as event frames (built with build_frame), for the skew math.

Session S1 holds two traces: T1 (chat POST through nginx; calls c1 and c2 seen by messages,
middleware, nginx and pcap) and T2 (call c3, rejected by the middleware). pcap's clock runs
`pcap_skew_ms` ahead and nginx's `nginx_skew_ms`. Times are in ms after T0.
"""

from __future__ import annotations

from typing import Any

import orjson
import pandas as pd

from toolcall_cli.model.events import build_frame, concat_frames

T0 = pd.Timestamp("2026-11-30T03:00:00Z")


def _t(ms: float) -> pd.Timestamp:
    return T0 + pd.Timedelta(milliseconds=ms)


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    cols = sorted({k for r in rows for k in r})
    data: dict[str, list[Any]] = {c: [r.get(c) for r in rows] for c in cols}
    if "attrs" in data:
        data["attrs"] = [orjson.dumps(a).decode() if a is not None else None for a in data["attrs"]]
    return build_frame(data)


def incident(*, pcap_skew_ms: float = 2300.0, nginx_skew_ms: float = 0.0) -> pd.DataFrame:
    """The whole incident as one event table."""
    msgs: list[dict[str, Any]] = []
    mw: list[dict[str, Any]] = []
    ng: list[dict[str, Any]] = []
    pc: list[dict[str, Any]] = []
    msgs.append({"kind": "user", "detail": "weather and news?", "session_id": "S1"})
    ng.append(
        {
            "ts": _t(3000 + nginx_skew_ms),
            "kind": "http_access",
            "detail": "POST /v1/chat/completions HTTP/1.1",
            "trace_id": "T1",
            "session_id": "S1",
            "request_id": "R1",
            "duration_ms": 3000.0,
            "http_status": 200,
            "attrs": {"path": "/v1/chat/completions", "method": "POST"},
        }
    )
    frame = 1
    for i, (cid, tool, start, svc) in enumerate(
        (("c1", "get_weather", 200, 300), ("c2", "search", 900, 950))
    ):
        msgs.append(
            {
                "kind": "tool_call",
                "tool_call_id": cid,
                "tool": tool,
                "args": "{}",
                "session_id": "S1",
            }
        )
        mw += [
            {
                "ts": _t(start),
                "kind": "mw_received",
                "tool_call_id": cid,
                "tool": tool,
                "trace_id": "T1",
                "session_id": "S1",
            },
            {
                "ts": _t(start + 20),
                "kind": "mw_request",
                "tool_call_id": cid,
                "tool": tool,
                "trace_id": "T1",
                "session_id": "S1",
                "detail": f"POST /tools/{tool}",
            },
            {
                "ts": _t(start + 20 + svc + 1),
                "kind": "mw_response",
                "tool_call_id": cid,
                "tool": tool,
                "trace_id": "T1",
                "session_id": "S1",
                "attrs": {"call_id": cid},
            },
            {
                "ts": _t(start + 20 + svc + 11),
                "kind": "mw_injected",
                "tool_call_id": cid,
                "tool": tool,
                "trace_id": "T1",
                "session_id": "S1",
            },
        ]
        pc += [
            {
                "ts": _t(start + 20.4 + pcap_skew_ms),
                "kind": "http_request",
                "tool_call_id": cid,
                "tool": tool,
                "trace_id": "T1",
                "origin": f"cap.pcap#frame={frame}",
                "detail": f"POST /tools/{tool}",
                "attrs": {"stream": i, "frame": frame, "uri": f"/tools/{tool}"},
            },
            {
                "ts": _t(start + 20.4 + svc + pcap_skew_ms),
                "kind": "http_response",
                "http_status": 200,
                "duration_ms": float(svc),
                "origin": f"cap.pcap#frame={frame + 1}",
                "attrs": {"stream": i, "frame": frame + 1, "call_id": cid},
            },
        ]
        frame += 2
        ng.append(
            {
                "ts": _t(start + 20.6 + svc + nginx_skew_ms),
                "kind": "http_access",
                "detail": f"POST /tools/{tool} HTTP/1.1",
                "tool_call_id": cid,
                "trace_id": "T1",
                "duration_ms": float(svc),
                "http_status": 200,
                "tool": tool,
            }
        )
        msgs.append(
            {
                "kind": "tool_result",
                "tool_call_id": cid,
                "tool": tool,
                "detail": "ok",
                "session_id": "S1",
            }
        )
    # T2: same session, no shared ids; its response names c1 (a wrong call_id must not merge).
    mw += [
        {
            "ts": _t(5000),
            "kind": "mw_received",
            "tool_call_id": "c3",
            "tool": "send_email",
            "trace_id": "T2",
            "session_id": "S1",
        },
        {
            "ts": _t(5010),
            "kind": "mw_rejected",
            "tool_call_id": "c3",
            "tool": "send_email",
            "trace_id": "T2",
            "session_id": "S1",
            "detail": "missing required field to",
            "attrs": {"rule": "schema", "call_id": "c1"},
        },
    ]
    msgs.append(
        {
            "kind": "tool_call",
            "tool_call_id": "",
            "tool": "lookup",
            "args": "{}",
            "session_id": "S1",
        }
    )
    msgs.append({"kind": "assistant_text", "detail": "done", "session_id": "S1"})
    parts = []
    for src, rows, prefix in (
        ("messages", msgs, "m.json#/messages/"),
        ("middleware", mw, "mw.jsonl:"),
        ("nginx", ng, "access.log:"),
        ("pcap", pc, None),
    ):
        for n, r in enumerate(rows):
            r["source"] = src
            r["seq"] = n
            r.setdefault("origin", f"{prefix}{n}")
        parts.append(_frame(rows))
    return concat_frames(parts)
