"""HAR entries as rows of pcap's message table, plus what only a HAR knows.

Each entry gives a request row and (when the browser got an answer) a response row of the
message table :mod:`~toolcall_cli.sources.pcap.http` describes, so
:func:`~toolcall_cli.sources.pcap.events.events` builds the events,
keys and LLM calls exactly as it does for a capture. The entry's own facts (timings, sizes,
`_initiator`, `_resourceType`, page) come back beside the rows as attrs per side.

The row's ``frame`` is ``2·entry`` for the request and ``2·entry + 1`` for the response, and
``stream`` is the entry, so pcap's pairing (per stream, in order) pairs each entry with itself.
"""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import urlsplit

import pandas as pd

from toolcall_cli.sources.har.initiator import initiator_attrs
from toolcall_cli.sources.pcap.http import MESSAGE_COLUMNS, NULL_NS
from toolcall_cli.sources.pcap.tshark import AGGREGATOR

#: A `time` longer than a day is no measurement (negative, NaN or 1e300 neither).
MAX_TIME_MS: Final = 86_400_000.0
_TIMINGS: Final = ("blocked", "dns", "connect", "ssl", "send", "wait", "receive")
#: Decoded in the adapter already: pcap's decoder must not try to inflate HAR text again.
_DECODED_HEADERS: Final = frozenset({"content-encoding"})
#: An entry member (not HAR's) saying its bodies are still as sent, content-encoding and all:
#: a mitmproxy flow's raw content, which pcap's decoder inflates under its caps.
ENCODED_BODIES: Final = "_encoded_bodies"


@dataclass(slots=True)
class Batch:
    """Message rows of some entries, and per row the HAR attrs and the byte size."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    attrs: dict[int, dict[str, Any]] = field(default_factory=dict)  # frame → attrs
    sizes: dict[int, int | None] = field(default_factory=dict)  # frame → size
    bad: list[tuple[int, str]] = field(default_factory=list)  # (entry, reason)
    websockets: list[tuple[int, list[Any]]] = field(default_factory=list)

    def table(self) -> pd.DataFrame:
        """The message table of this batch (pcap_http's columns)."""
        return pd.DataFrame(
            {c: pd.Series([r[c] for r in self.rows], dtype=object) for c in MESSAGE_COLUMNS}
        )


def add_entry(batch: Batch, index: int, entry: Any, started_ns: int | None) -> None:
    """Append entry *index* (already parsed) to *batch*; a malformed one is noted in `bad`."""
    if not isinstance(entry, Mapping):
        batch.bad.append((index, "entry is not an object"))
        return
    req, resp = entry.get("request"), entry.get("response")
    if not isinstance(req, Mapping) or not isinstance(req.get("url"), str):
        batch.bad.append((index, "entry without a request url"))
        return
    common, time_ms = _entry_attrs(entry, started_ns)
    url = req["url"]
    parts = urlsplit(url) if "://" in url else None
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "") if parts else url
    post: Mapping[str, Any] = req["postData"] if isinstance(req.get("postData"), Mapping) else {}
    body, body_attrs = _text_body(post, "text")
    encoded = entry.get(ENCODED_BODIES) is True
    hdr = _headers(req.get("headers"), post.get("mimeType"), keep_encoding=encoded)
    f = 2 * index
    batch.rows.append(
        _row(
            f, started_ns, index, True, req.get("method"), target, req.get("httpVersion"), hdr, body
        )
    )
    req_attrs = {**common, **body_attrs, "url": url if parts else None}
    if parts and parts.netloc:
        req_attrs["netloc"] = parts.netloc
    batch.attrs[f] = req_attrs
    batch.sizes[f] = len(body) if body else _nonneg(req.get("bodySize"))
    if isinstance(entry.get("_webSocketMessages"), list) and entry["_webSocketMessages"]:
        batch.websockets.append((index, entry["_webSocketMessages"]))
    resp = resp if isinstance(resp, Mapping) else {}
    status = resp.get("status")
    if not isinstance(status, int) or isinstance(status, bool) or status <= 0:
        # status 0: the browser got no answer (blocked, refused, aborted)
        why = resp.get("_error") or entry.get("_error")  # Chrome: response._error
        req_attrs["failed"] = why if isinstance(why, str) and why else "no response"
        return
    content: Mapping[str, Any] = resp["content"] if isinstance(resp.get("content"), Mapping) else {}
    body, body_attrs = _text_body(content, "text")
    hdr = _headers(resp.get("headers"), content.get("mimeType"), keep_encoding=encoded)
    done = (
        started_ns + round(time_ms * 1e6)
        if started_ns is not None and time_ms is not None
        else None
    )
    row = _row(f + 1, done, index, False, None, None, resp.get("httpVersion"), hdr, body)
    row["code"], row["phrase"] = status, resp.get("statusText") or None
    batch.rows.append(row)
    size = len(body) if body else _nonneg(content.get("size"))
    batch.attrs[f + 1] = {**common, **body_attrs, "time_ms": time_ms}
    batch.sizes[f + 1] = size if size is not None else _nonneg(resp.get("bodySize"))


def _row(
    frame: int,
    ts_ns: int | None,
    stream: int,
    is_req: bool,
    method: Any,
    uri: Any,
    version: Any,
    hdr: str,
    body: bytes,
) -> dict[str, Any]:
    return {
        "frame": frame,
        "ts_ns": NULL_NS if ts_ns is None else ts_ns,
        "stream": stream,
        "is_request": is_req,
        "src": None,
        "dst": None,
        "method": method if isinstance(method, str) else None,
        "uri": uri,
        "version": version if isinstance(version, str) and version else None,
        "code": None,
        "phrase": None,
        "request_in": None,
        "hdr": hdr,
        "body": body,
        "flags": None,
    }


def _headers(raw: Any, mime: Any, *, keep_encoding: bool = False) -> str:
    """``name: value`` lines joined as tshark joins them; a content-type from `mimeType` when
    the headers name none (HTTP/2 exports often leave headers out)."""
    lines: list[str] = []
    has_ct = False
    for h in raw if isinstance(raw, list) else ():
        if not isinstance(h, Mapping) or not isinstance(h.get("name"), str):
            continue
        name = h["name"].strip()
        low = name.lower()
        if low in _DECODED_HEADERS and not keep_encoding:
            continue
        has_ct |= low == "content-type"
        value = h.get("value")
        lines.append(f"{name}: {'' if value is None else value}")
    if not has_ct and isinstance(mime, str) and mime:
        lines.append(f"content-type: {mime}")
    return AGGREGATOR.join(lines)


def _text_body(holder: Mapping[str, Any], key: str) -> tuple[bytes, dict[str, Any]]:
    """The body bytes of `postData` / `content` (base64 `encoding` undone) and what was odd."""
    text = holder.get(key)
    attrs: dict[str, Any] = {}
    if isinstance(holder.get("_file"), str):  # Playwright's "attach" mode: body beside the HAR
        attrs["body_file"] = holder["_file"]
    if not isinstance(text, str) or not text:
        if holder and "size" in holder and _nonneg(holder.get("size")):
            attrs["body_omitted"] = True  # an export without content
        return b"", attrs
    if holder.get("encoding") == "base64":
        try:
            return base64.b64decode(text, validate=False), attrs
        except (binascii.Error, ValueError):
            attrs["body_decode_error"] = "base64"
    return text.encode("utf-8", "surrogatepass"), attrs


def _entry_attrs(
    entry: Mapping[str, Any], started_ns: int | None
) -> tuple[dict[str, Any], float | None]:
    """Attrs both sides share (timings, page, initiator, resource type) and the valid `time`."""
    out: dict[str, Any] = {}
    raw_time = entry.get("time")
    time_ms = float(raw_time) if _number(raw_time) and raw_time is not None else None
    if time_ms is not None and not (0 <= time_ms <= MAX_TIME_MS):
        out["time_invalid"] = raw_time if math.isfinite(time_ms) else str(raw_time)
        time_ms = None
    elif raw_time is not None and time_ms is None:
        out["time_invalid"] = str(raw_time)[:40]
    if started_ns is None:
        out["started_invalid"] = str(entry.get("startedDateTime"))[:60]
    timings = entry.get("timings")
    if isinstance(timings, Mapping):
        kept = {k: timings[k] for k in _TIMINGS if _number(timings.get(k)) and timings[k] >= 0}
        if kept:
            out["timings"] = kept
    for key, name in (
        ("pageref", "pageref"),
        ("_resourceType", "resource_type"),
        ("serverIPAddress", "server_ip"),
        ("connection", "connection"),
        ("_priority", "priority"),
    ):
        if isinstance(entry.get(key), str | int) and entry[key] != "":
            out[name] = entry[key]
    out.update(initiator_attrs(entry.get("_initiator")))
    return out, time_ms


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _nonneg(v: Any) -> int | None:
    return int(v) if _number(v) and v >= 0 else None
