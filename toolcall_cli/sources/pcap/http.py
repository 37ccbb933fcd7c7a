"""HTTP messages out of tshark's output: one row per request/response, bodies decoded.

The fields pass gives one row per frame; almost every frame carries one HTTP message and is
normalised column-wise (:mod:`.fields_messages`). The rare frame carrying several
(pipelining inside one segment, smuggling) is re-read as per-layer JSON
(:func:`from_json_layers`) and its messages are appended as rows of the same shape.
Column names of the message table:
frame, ts_ns, stream, is_request, src, dst, method, uri, version, code, phrase,
request_in, hdr (header lines joined by U+001F), body (bytes), flags (dict or None).
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from typing import Any, Final

import numpy as np

from toolcall_cli.sources.pcap.tshark import AGGREGATOR

#: Decompressed size cap per body (decompression bombs).
BODY_CAP: Final = 16 << 20
NULL_NS: Final = int(np.iinfo(np.int64).min)

_GZIP_MAGIC = b"\x1f\x8b"
MESSAGE_COLUMNS: Final = (
    "frame",
    "ts_ns",
    "stream",
    "is_request",
    "src",
    "dst",
    "method",
    "uri",
    "version",
    "code",
    "phrase",
    "request_in",
    "hdr",
    "body",
    "flags",
)


def headers(hdr: Sequence[str], names: Sequence[str]) -> dict[str, list[str | None]]:
    """Values of the wanted headers per row (first occurrence, case-insensitive), None when absent.

    One split per row beats one regex pass per header (this is the adapter's hottest loop).
    """
    wanted = {n.lower() for n in names}
    out: dict[str, list[str | None]] = {n.lower(): [None] * len(hdr) for n in names}
    for i, block in enumerate(hdr):
        if not block:
            continue
        for line in block.split(AGGREGATOR):
            name, sep, value = line.partition(":")
            key = name.strip().lower()
            if sep and key in wanted and out[key][i] is None:
                value = value.strip()
                value = value[:-4].rstrip() if value.endswith("\\r\\n") else value
                if value:
                    out[key][i] = value
    return out


def from_json_layers(
    info: Mapping[str, Any], http_layers: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Message rows from ``-T json -J "frame http"`` layers of a multi-message frame."""
    out: list[dict[str, Any]] = []
    for layer in http_layers:
        flat: dict[str, Any] = {}
        _flatten(layer, flat)
        is_req = "http.request" in flat
        if not is_req and "http.response" not in flat:
            continue
        lines = flat.get("http.request.line" if is_req else "http.response.line") or []
        lines = lines if isinstance(lines, list) else [lines]
        text = str(flat.get("http.file_data") or "")
        flags: dict[str, Any] = {"multi_message_frame": True}
        if "\ufffd" in text:
            flags["body_lossy"] = True
        if "_ws.malformed" in flat:
            flags["malformed"] = True
        out.append(
            {
                **info,
                "is_request": is_req,
                "method": _s(flat.get("http.request.method")),
                "uri": _s(flat.get("http.request.uri")),
                "version": _s(
                    flat.get("http.request.version") or flat.get("http.response.version")
                ),
                "code": _i(flat.get("http.response.code")),
                "phrase": _s(flat.get("http.response.phrase")),
                "request_in": _i(flat.get("http.request_in")),
                "hdr": AGGREGATOR.join(str(x).replace("\r\n", "\\r\\n") for x in lines),
                "body": text.encode("utf-8", "surrogatepass"),
                "flags": flags,
            }
        )
    return out


def _s(v: Any) -> str:
    return "" if v is None else str(v)


def _i(v: Any) -> int | None:
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def _flatten(node: Any, out: dict[str, Any]) -> None:
    if not isinstance(node, Mapping):
        return
    for k, v in node.items():
        if isinstance(v, Mapping):
            _flatten(v, out)
        elif isinstance(v, list) and v and isinstance(v[0], Mapping):
            for item in v:
                _flatten(item, out)
        elif k not in out:
            out[k] = v


def decode_body(
    body: bytes, encoding: str | None, *, cap: int = BODY_CAP
) -> tuple[bytes, dict[str, Any]]:
    """Undo the Content-Encoding (gzip/x-gzip/deflate/br, stacked too), capped at *cap* bytes."""
    flags: dict[str, Any] = {}
    enc = [e.strip().lower() for e in (encoding or "").split(",") if e.strip()]
    for e in reversed(enc):
        if e in ("gzip", "x-gzip") and body[:2] == _GZIP_MAGIC:
            out = _inflate(body, 47, cap)
        elif e == "deflate" and body and body.lstrip()[:1] not in (b"{", b"[", b"<"):
            out = _inflate(body, 15, cap) or _inflate(body, -15, cap)
        elif e == "br" and body:
            out = _unbrotli(body, cap)
            if out is None and body.lstrip()[:1] in (b"{", b"["):
                continue  # plain JSON despite the header
        else:
            continue  # identity, plain despite the header, or an unknown coding
        if out is None:
            flags["body_decode_error"] = e
            break
        body, truncated = out
        if truncated:
            flags["body_truncated"] = True
            break
    if len(body) > cap:
        body, flags["body_truncated"] = body[:cap], True
    return body, flags


def _unbrotli(data: bytes, cap: int) -> tuple[bytes, bool] | None:
    try:
        import brotli
    except ImportError:  # a declared dependency; without it br bodies stay encoded
        return None
    try:
        d = brotli.Decompressor()
        out = d.process(data, output_buffer_limit=cap + 1)
    except brotli.error:
        return None
    if not out:
        return None
    return out[:cap], len(out) > cap


def _inflate(data: bytes, wbits: int, cap: int) -> tuple[bytes, bool] | None:
    try:
        out = zlib.decompressobj(wbits).decompress(data, cap + 1)
    except zlib.error:
        return None
    if not out:
        return None
    return out[:cap], len(out) > cap
