"""Event rows out of the message table (the event contract: :mod:`toolcall_cli.core.events`).

http_request / http_response per message; keys from headers (a response falls back to its
request's keys); tool-service JSON bodies fill tool/args/status; LLM API bodies add
tool_call / tool_result (or provider-error / tools-declared system) events right after their
message. Headers are extracted column-wise; the remaining per-message work is one light loop.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Final

import numpy as np
import pandas as pd

from toolcall_cli.core.events import UNPARSED, build_frame, concat_frames
from toolcall_cli.core.jsonio import canonical, dumps, try_loads
from toolcall_cli.sources.pcap.body import (
    is_llm,
    llm_request_events,
    llm_response_events,
    sse_completion,
    tool_request,
    tool_response,
)
from toolcall_cli.sources.pcap.http import NULL_NS, decode_body, headers, pair

SOURCE: Final = "pcap"
_TRACEPARENT = re.compile(r"^\s*[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}", re.IGNORECASE)
_TOOL_PATH = re.compile(r"^(?:https?://[^/]+)?/tools/([^/?#\s]+)")
_KEYS: Final = ("session_id", "trace_id", "tool_call_id", "request_id")
_HEADERS: Final = {
    "session_id": "x-session-id",
    "tool_call_id": "x-tool-call-id",
    "request_id": "x-request-id",
    "x_trace": "x-trace-id",
    "traceparent": "traceparent",
    "host": "host",
    "x_original_id": "x-original-id",
    "x_request_timestamp": "x-request-timestamp",
    "content_type": "content-type",
    "content_encoding": "content-encoding",
    "transfer_encoding": "transfer-encoding",
}


def _ts(ns: list[int] | np.ndarray) -> pd.Series:
    arr = np.asarray(ns, dtype=np.int64)
    ts = pd.Series(pd.to_datetime(arr, unit="ns", utc=True))
    return ts.where(arr != NULL_NS)


def _pylist(col: pd.Series) -> list[Any]:
    """The column's values as Python objects, every missing one (None, NaN, NA) as None."""
    return col.astype(object).where(col.notna(), None).tolist()


def events(msgs: pd.DataFrame, path: str, *, cap: int) -> pd.DataFrame:
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
    peer, pflags = pair(streams, is_req, codes, frames, _pylist(msgs["request_in"]))
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
            rows = _llm_rows(i, objs[i], is_req[i], codes[i], frames[i], streams[i], seen)
            if rows:
                keys = {k: cols[k][i] for k in _KEYS if k != "tool_call_id"}
                extras.extend(
                    _extra_rows(rows, keys, ts_ns[i], path, frames[i], cols["client"][i], i)
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
    out = pd.concat([main, _extra_frame(extras)], ignore_index=True)
    out = out.sort_values("_order", kind="stable")
    out = out.drop(columns="_order").reset_index(drop=True)
    out["seq"] = np.arange(len(out), dtype=np.int64)
    return concat_frames([out])


def _json(body: bytes, ctype: str | None) -> Any:
    head = body[:64].lstrip()[:1]
    if head in (b"{", b"[") or (body and "json" in (ctype or "").lower()):
        return try_loads(body)
    return None


def _llm_rows(
    i: int, obj: dict[str, Any], is_req: bool, code: Any, frame: int, stream: Any, seen: set[str]
) -> list[dict[str, Any]]:
    evs = llm_request_events(obj) if is_req else llm_response_events(obj, code)
    if is_req and isinstance(obj.get("tools"), list):
        evs.insert(
            0, {"kind": "system", "detail": "tools declared", "attrs": {"tools": obj["tools"]}}
        )
    rows = []
    for ev in evs:
        key = canonical(
            [
                ev["kind"],
                ev.get("tool_call_id"),
                ev.get("tool"),
                ev.get("args"),
                ev.get("detail"),
                ev["attrs"].get("tools"),
                frame if ev.get("status") == "error" else None,
            ]
        )
        if key in seen:  # chat requests resend the whole history: keep the first sighting
            continue
        seen.add(key)
        attrs = {
            **ev.pop("attrs"),
            "frame": frame,
            "stream": stream,
            "from": "request" if is_req else "response",
        }
        if ev["kind"] == "system" and ev.get("status") == "error":
            ev["http_status"] = code
        rows.append({**ev, "attrs": dumps({k: v for k, v in attrs.items() if v is not None})})
    return rows


def _extra_rows(
    rows: list[dict[str, Any]],
    keys: dict[str, Any],
    ts_ns: int,
    path: str,
    frame: int,
    client: Any,
    i: int,
) -> list[dict[str, Any]]:
    """The LLM rows of message *i*, placed right after it (`_order`), with its keys."""
    m = len(rows)
    base = {"ts_ns": ts_ns, "origin": f"{path}#frame={frame}", "client": client, **keys}
    return [{**base, **r, "_order": i + (k + 1) / (m + 1)} for k, r in enumerate(rows)]


def _extra_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """One event frame for all LLM rows (a frame per message costs more than its rows)."""
    m = len(rows)
    cols = (
        "kind", "tool_call_id", "tool", "args", "status", "http_status", "size", "detail",
        "attrs", "origin", "client", *(k for k in _KEYS if k != "tool_call_id"),
    )  # fmt: skip
    df = build_frame(
        {
            "ts": _ts([r["ts_ns"] for r in rows]),
            "seq": [0] * m,
            "source": [SOURCE] * m,
            **{c: [r.get(c) for r in rows] for c in cols},
        }
    )
    df["_order"] = np.array([r["_order"] for r in rows], dtype=np.float64)
    return df


def unparsed_frame(path: str, items: list[tuple[str, str]]) -> pd.DataFrame:
    """`unparsed` rows: (raw text, reason) pairs, raw capped at 2000 chars."""
    m = len(items)
    return build_frame(
        {
            "ts": _ts([NULL_NS] * m),
            "seq": list(range(m)),
            "source": [SOURCE] * m,
            "origin": [path] * m,
            "kind": [UNPARSED] * m,
            "detail": [r[:2000] for r, _ in items],
            "attrs": [dumps({"reason": why}) for _, why in items],
        }
    )


def _trace_from_parent(value: str | None) -> str | None:
    match = _TRACEPARENT.match(value or "")
    return match.group(1).lower() if match else None


def _tool_from_path(uri: str | None) -> str | None:
    match = _TOOL_PATH.match(uri or "")
    return match.group(1) if match else None
