"""Content detection for OpenTelemetry files (≤64 KiB head; 0 for anything else).

JSON: the OTLP top-level keys (`resourceSpans`, `resourceLogs`, Tempo's `batches` with span
lists), or a Jaeger export (`data` with `traceID` / `spanID` / `operationName`). Protobuf: a
4-byte length prefix followed by an OTLP message that decodes (zstd-compressed files are
opened first). Scores beat the messages and middleware sniffers, which top out at 95.
"""

from __future__ import annotations

import re

from toolcall_cli.sources.otel import otlp_proto

_OTLP_HEAD = re.compile(rb'^\s*[\[{]\s*(?:\{\s*)?"(?:resourceSpans|resourceLogs)"\s*:\s*\[')
_OTLP_KEYS = re.compile(rb'"(?:resourceSpans|resourceLogs)"\s*:\s*\[')
_SCOPE_KEYS = re.compile(rb'"(?:scopeSpans|instrumentationLibrarySpans|scopeLogs)"\s*:\s*\[')
_TEMPO_HEAD = re.compile(rb'^\s*\{\s*"batches"\s*:\s*\[')
_JAEGER_HEAD = re.compile(rb'^\s*\{\s*"data"\s*:\s*\[')
_JAEGER_KEYS = (b'"traceID"', b'"spanID"', b'"operationName"')


def sniff(head: bytes) -> int:
    """0–100: how sure we are that *head* is an OpenTelemetry traces or logs file."""
    if head.startswith(otlp_proto.ZSTD_MAGIC):
        head = _unzstd(head)
    if otlp_proto.looks_framed(head):
        return _proto_score(head)
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    if _OTLP_HEAD.match(head):
        return 98
    if _TEMPO_HEAD.match(head) and _SCOPE_KEYS.search(head):
        return 98
    if _JAEGER_HEAD.match(head) and all(k in head for k in _JAEGER_KEYS):
        return 97
    if head.lstrip()[:1] in (b"{", b"[") and _OTLP_KEYS.search(head[:4096]):
        return 90  # an OTLP document wrapped in something (a bundle, a list)
    return 0


def _proto_score(head: bytes) -> int:
    size = int.from_bytes(head[:4], "big")
    body = head[4 : 4 + size]
    if len(body) == size:
        return 98 if otlp_proto.decode(body) is not None else 0
    return 70  # first message larger than the head: the framing fits, the rest is unchecked


def _unzstd(head: bytes) -> bytes:
    import zstandard

    try:
        reader = zstandard.ZstdDecompressor().stream_reader(head, read_across_frames=True)
        return reader.read(1 << 16)
    except zstandard.ZstdError:
        return b""
