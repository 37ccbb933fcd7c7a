"""A mitmproxy `HTTPFlow` as a HAR entry, so the HAR builder makes its events.

mitmproxy's own `savehar` addon writes the same mapping: request and response line, headers in
order (repeats kept), bodies, `startedDateTime` and `time` from the flow's timestamps, and
`timings.send/wait/receive` from the message timestamps. Two things differ from an exported
HAR: bodies stay exactly as sent (`raw_content`, base64) with their `content-encoding`, so
pcap's decoder inflates them under its caps rather than mitmproxy's uncapped decoder; and a
flow's error (`flow.error.msg`) is the entry's `_error`. WebSocket messages become
`_webSocketMessages` frames.
"""

from __future__ import annotations

import base64
from typing import Any, Final

from toolcall_cli.sources.har.entries import ENCODED_BODIES

#: Longest WebSocket message kept as text (the HAR builder cuts `detail` again).
_WS_TEXT: Final = 4096


def http_entry(flow: Any) -> dict[str, Any]:
    """The HAR entry of one `mitmproxy.http.HTTPFlow` (duck-typed: 11.x and 12.x alike)."""
    req = flow.request
    entry: dict[str, Any] = {
        ENCODED_BODIES: True,
        "request": {
            "method": req.method,
            "url": req.url,
            "httpVersion": req.http_version,
            "headers": _headers(req.headers),
            "postData": _body(req.raw_content),
        },
    }
    resp = flow.response
    if resp is not None:
        entry["response"] = {
            "status": resp.status_code,
            "statusText": resp.reason,
            "httpVersion": resp.http_version,
            "headers": _headers(resp.headers),
            "content": _body(resp.raw_content),
        }
        end = resp.timestamp_end or resp.timestamp_start
        if end is not None and req.timestamp_start is not None:
            entry["time"] = (end - req.timestamp_start) * 1000.0
        entry["timings"] = _timings(req, resp)
    if flow.error is not None:
        entry["_error"] = str(flow.error.msg)
    peer = getattr(flow.server_conn, "peername", None)
    if peer:
        entry["serverIPAddress"] = str(peer[0])
    client = getattr(flow.client_conn, "peername", None)
    if client:
        entry["connection"] = f"{client[0]}:{client[1]}"
    if getattr(flow, "websocket", None) is not None:
        entry["_webSocketMessages"] = [_ws(m) for m in flow.websocket.messages]
    return entry


def started_ns(flow: Any) -> int | None:
    """The request's start as epoch nanoseconds (None when the flow has none)."""
    t = flow.request.timestamp_start
    return round(t * 1e9) if isinstance(t, int | float) else None


def _headers(headers: Any) -> list[dict[str, str]]:
    # fields are the raw (name, value) byte pairs, in order; latin-1 as HTTP/1 sends them
    return [{"name": k.decode("latin-1"), "value": v.decode("latin-1")} for k, v in headers.fields]


def _body(raw: bytes | None) -> dict[str, Any]:
    if not raw:
        return {"size": 0}
    return {"size": len(raw), "text": base64.b64encode(raw).decode("ascii"), "encoding": "base64"}


def _timings(req: Any, resp: Any) -> dict[str, float]:
    spans = {
        "send": (req.timestamp_start, req.timestamp_end),
        "wait": (req.timestamp_end, resp.timestamp_start),
        "receive": (resp.timestamp_start, resp.timestamp_end),
    }
    return {
        name: round((b - a) * 1000.0, 3)
        for name, (a, b) in spans.items()
        if a is not None and b is not None and b >= a
    }


def _ws(message: Any) -> dict[str, Any]:
    content: bytes = message.content
    text = message.is_text
    return {
        "type": "send" if message.from_client else "receive",
        "time": message.timestamp,
        "opcode": 1 if text else 2,
        "data": (
            content[:_WS_TEXT].decode("utf-8", "replace")
            if text
            else base64.b64encode(content[:_WS_TEXT]).decode("ascii")
        ),
    }
