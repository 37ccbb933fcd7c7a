"""The pcap event builder as it was before it went column-wise: one Python pass per message.

Kept as the reference that the column-wise :func:`toolcall_cli.sources.pcap.events.events`
must agree with, column for column (tests/sources/test_pcap_columnwise.py). The LLM rows,
header parsing and body decoding it calls are the package's own.
"""

from __future__ import annotations

import hashlib
import re
from collections import deque
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from toolcall_cli.model.events import build_frame, concat_frames
from toolcall_cli.model.jsonio import dumps, try_loads
from toolcall_cli.sources.pcap.body import is_llm, sse_completion, tool_request, tool_response
from toolcall_cli.sources.pcap.events import _HEADERS, _KEYS, SOURCE
from toolcall_cli.sources.pcap.http import NULL_NS, decode_body, headers
from toolcall_cli.sources.pcap.llm_rows import extra_frame, llm_rows, placed_rows
from toolcall_cli.sources.pcap.llm_rows import timestamps as _ts

_TRACEPARENT = re.compile(r"^\s*[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}", re.IGNORECASE)
_TOOL_PATH = re.compile(r"^(?:https?://[^/]+)?/tools/([^/?#\s]+)")


def _pylist(col: pd.Series) -> list[Any]:
    """The column's values as Python objects, every missing one (None, NaN, NA) as None."""
    return col.astype(object).where(col.notna(), None).tolist()


def row_wise_events(msgs: pd.DataFrame, path: str, *, cap: int) -> pd.DataFrame:
    """The event table for a message table (capture order)."""
    n = len(msgs)
    found = headers(msgs["hdr"].tolist(), list(_HEADERS.values()))
    h = {k: found[name] for k, name in _HEADERS.items()}
    h["trace_id"] = [
        x or _trace_from_parent(t) for x, t in zip(h["x_trace"], h["traceparent"], strict=True)
    ]
    bodies: list[bytes] = msgs["body"].tolist()
    flags: list[dict[str, Any]] = [dict(f) if f else {} for f in msgs["flags"].tolist()]
    for i in (i for i, e in enumerate(h["content_encoding"]) if e):
        bodies[i], extra = decode_body(bodies[i], h["content_encoding"][i], cap=cap)
        flags[i].update(extra)
    frames, ts_ns = msgs["frame"].tolist(), msgs["ts_ns"].tolist()
    streams, codes = _pylist(msgs["stream"]), _pylist(msgs["code"])
    is_req, methods, uris = (
        msgs["is_request"].tolist(),
        _pylist(msgs["method"]),
        _pylist(msgs["uri"]),
    )
    versions, phrases = _pylist(msgs["version"]), _pylist(msgs["phrase"])
    srcs, dsts = _pylist(msgs["src"]), _pylist(msgs["dst"])
    peer, pflags = _pair(streams, is_req, codes, frames, _pylist(msgs["request_in"]))
    for i, f in pflags.items():
        flags[i][f] = True
    objs = [_json(b, ct) for b, ct in zip(bodies, h["content_type"], strict=True)]
    for i, ct in enumerate(h["content_type"]):
        if not is_req[i] and bodies[i] and "event-stream" in (ct or "").lower():
            objs[i] = sse_completion(bodies[i])
    llm = [isinstance(o, dict) and is_llm(u, o) for o, u in zip(objs, uris, strict=True)]

    # Pass 1: request-side facts that responses inherit.
    tool: list[str | None] = [None] * n
    args: list[str | None] = [None] * n
    args_type: list[str | None] = [None] * n
    for i in range(n):
        if is_req[i] and not llm[i]:
            body = tool_request(objs[i])
            path_tool = _tool_from_path(uris[i])
            tool[i], args[i], args_type[i] = (
                path_tool or body.get("tool"),
                body.get("args"),
                body.get("args_type"),
            )
            if path_tool and body.get("tool") and body["tool"] != path_tool:
                flags[i]["body_function"] = body["tool"]

    cols: dict[str, list[Any]] = {
        k: [None] * n
        for k in (
            *_KEYS,
            "kind",
            "tool",
            "args",
            "status",
            "http_status",
            "duration_ms",
            "size",
            "client",
            "detail",
            "attrs",
        )
    }
    extras: list[dict[str, Any]] = []  # LLM rows of every message, built as one frame below
    seen: set[str] = set()
    for i in range(n):
        j = int(peer[i])
        req = i if is_req[i] else j
        for k in _KEYS:
            v = h[k][i]
            cols[k][i] = v if v is not None or is_req[i] or j < 0 else h[k][j]
        attrs: dict[str, Any] = {
            "method": methods[req] if req >= 0 else None,
            "uri": uris[req] if req >= 0 else None,
            "host": h["host"][i],
            "stream": streams[i],
            "frame": frames[i],
            "x_original_id": h["x_original_id"][i],
            "x_request_timestamp": h["x_request_timestamp"][i],
            "content_type": h["content_type"][i],
            "content_encoding": h["content_encoding"][i],
            "transfer_encoding": h["transfer_encoding"][i],
        }
        if bodies[i] and objs[i] is None and "json" in (h["content_type"][i] or "").lower():
            attrs["body_not_json"] = True
        cols["size"][i] = len(bodies[i])
        version = versions[i]
        if is_req[i]:
            cols["kind"][i], cols["client"][i] = "http_request", srcs[i]
            cols["tool"][i], cols["args"][i] = tool[i], args[i]
            cols["detail"][i] = " ".join(x for x in (methods[i], uris[i], version) if x)
            attrs["args_type"] = args_type[i]
            if bodies[i]:  # FL002 tells a resent body from a new one of the same size
                attrs["body_sha256"] = hashlib.sha256(bodies[i]).hexdigest()[:16]
            if j < 0:
                attrs["no_response"] = True
            else:
                attrs["response_frame"] = frames[j]
        else:
            body = tool_response(objs[i])
            cols["kind"][i], cols["client"][i] = "http_response", dsts[i]
            cols["tool"][i], cols["status"][i], cols["http_status"][i] = (
                tool[j] if j >= 0 else None,
                body.get("status"),
                codes[i],
            )
            if j >= 0:
                attrs["request_frame"] = frames[j]
                if ts_ns[i] != NULL_NS and ts_ns[j] != NULL_NS:
                    cols["duration_ms"][i] = (ts_ns[i] - ts_ns[j]) / 1e6
            else:
                attrs["unmatched"] = True
            attrs.update(
                {k: body.get(k) for k in ("call_id", "timestamp", "message", "data_empty")}
            )
            cols["detail"][i] = " ".join(str(x) for x in (version, codes[i], phrases[i]) if x)
        attrs.update(flags[i])
        cols["attrs"][i] = dumps({k: v for k, v in attrs.items() if v is not None and v != ""})
        if llm[i] or (req >= 0 and req != i and llm[req] and isinstance(objs[i], dict)):
            rows = llm_rows(i, objs[i], is_req[i], codes[i], frames[i], streams[i], seen)
            if rows:
                keys = {k: cols[k][i] for k in _KEYS if k != "tool_call_id"}
                extras.extend(
                    placed_rows(rows, keys, ts_ns[i], path, frames[i], cols["client"][i], i)
                )
    main = build_frame(
        {
            "ts": _ts(ts_ns),
            "seq": list(range(n)),
            "source": [SOURCE] * n,
            "origin": [f"{path}#frame={f}" for f in frames],
            **cols,
        }
    )
    if not extras:
        return main
    main["_order"] = np.arange(n, dtype=np.float64)
    out = pd.concat([main, extra_frame(extras)], ignore_index=True)
    out = out.sort_values("_order", kind="stable")
    out = out.drop(columns="_order").reset_index(drop=True)
    out["seq"] = np.arange(len(out), dtype=np.int64)
    return concat_frames([out])


def _json(body: bytes, ctype: str | None) -> Any:
    head = body[:64].lstrip()[:1]
    if head in (b"{", b"[") or (body and "json" in (ctype or "").lower()):
        return try_loads(body)
    return None


def _trace_from_parent(value: str | None) -> str | None:
    match = _TRACEPARENT.match(value or "")
    return match.group(1).lower() if match else None


def _tool_from_path(uri: str | None) -> str | None:
    match = _TOOL_PATH.match(uri or "")
    return match.group(1) if match else None


def _pair(
    streams: Sequence[Any],
    is_request: Sequence[bool],
    codes: Sequence[Any],
    frames: Sequence[int],
    request_in: Sequence[Any],
) -> tuple[np.ndarray, dict[int, str]]:
    """Link responses to requests per TCP stream, in order (HTTP/1.1 pipelining rule).

    Returns ``peer`` (index of the paired message, -1 for none) and flags by row. tshark's
    single-pass ``http.request_in`` points at the *latest* request of the stream, which is
    wrong for pipelined requests, so FIFO order decides; ``request_in`` only places a surplus
    response (nothing pending: a duplicate or injected answer). Interim 1xx responses link to
    the request without consuming it.
    """
    n = len(frames)
    peer = np.full(n, -1, dtype=np.int64)
    flags: dict[int, str] = {}
    by_frame: dict[int, list[int]] = {}
    pending: dict[Any, deque[int]] = {}
    for i in range(n):
        s = streams[i]
        if is_request[i]:
            by_frame.setdefault(int(frames[i]), []).append(i)
            pending.setdefault(s, deque()).append(i)
            continue
        queue = pending.get(s)
        if queue:
            j = queue[0]
            peer[i] = j
            c = codes[i]
            if c is None or c is pd.NA or not 100 <= int(c) < 200 or int(c) == 101:
                peer[j] = i
                queue.popleft()
            continue
        rin = request_in[i]
        surplus = (
            []
            if rin is None or rin is pd.NA
            else [j for j in by_frame.get(int(rin), ()) if streams[j] == s]
        )
        if surplus:
            peer[i] = surplus[-1]
            flags[i] = "surplus_response"
        else:
            flags[i] = "unmatched_response"
    return peer, flags
