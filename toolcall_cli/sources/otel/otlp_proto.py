"""OTLP protobuf files: 4-byte big-endian length-prefixed `TracesData` / `LogsData` /
`Export*ServiceRequest` messages (the same wire format), optionally one zstd frame around all.

Each message is decoded with `opentelemetry-proto` and handed to the OTLP/JSON walker through
the protobuf JSON mapping, so every encoding shares one normaliser. A message cut short (a
stream copied while the exporter wrote it) keeps everything before it; the cut tail and any
message that does not decode become `unparsed` entries.
"""

from __future__ import annotations

import struct
from typing import Any

from toolcall_cli.errors import InputError
from toolcall_cli.sources.otel import otlp_json
from toolcall_cli.sources.otel.model import Batch

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
#: A frame longer than this is not a length prefix (an OTLP export is a few MiB at most).
MAX_MESSAGE = 256 << 20


def looks_framed(data: bytes) -> bool:
    """True when *data* starts like a length-prefixed OTLP message (field 1, length-delimited)."""
    if len(data) < 6:
        return False
    (n,) = struct.unpack(">I", data[:4])
    return 2 <= n <= MAX_MESSAGE and data[4] == 0x0A


def decompress(data: bytes, *, limit: int, label: str) -> bytes:
    """Undo a zstd frame (capped at *limit* bytes: decompression bombs); other data unchanged."""
    if not data.startswith(ZSTD_MAGIC):
        return data
    import zstandard

    out = bytearray()
    try:
        reader = zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=True)
        while chunk := reader.read(1 << 20):
            out += chunk
            if len(out) > limit:
                raise InputError(
                    f"{label}: decompressed size exceeds {limit} bytes; refusing "
                    "(decompression bomb?)",
                    hint="raise [limits] max_decompressed or $TOOLCALL_MAX_DECOMPRESSED",
                )
    except zstandard.ZstdError:  # a cut stream: keep what inflated
        if not out:
            raise InputError(f"{label}: corrupt zstd stream") from None
    return bytes(out)


def decode(body: bytes) -> tuple[str, dict[str, Any]] | None:
    """("traces"|"logs", JSON mapping) of one message, or None when it is neither."""
    from google.protobuf.json_format import MessageToDict
    from google.protobuf.message import DecodeError
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    # Logs and traces share field 1, so a message is whichever reading yields records with the
    # right shape (a log record read as a span has no 16-byte trace id, or does not decode).
    traces: ExportTraceServiceRequest | None = ExportTraceServiceRequest()
    try:
        traces.ParseFromString(body)  # type: ignore[union-attr]
    except (DecodeError, RecursionError):
        traces = None
    if traces is not None:
        spans = [s for rs in traces.resource_spans for ss in rs.scope_spans for s in ss.spans]
        if any(len(s.trace_id) == 16 and len(s.span_id) == 8 for s in spans):
            return "traces", MessageToDict(traces)
    logs: ExportLogsServiceRequest | None = ExportLogsServiceRequest()
    try:
        logs.ParseFromString(body)  # type: ignore[union-attr]
    except (DecodeError, RecursionError):
        logs = None
    if logs is not None and any(
        sl.log_records for rl in logs.resource_logs for sl in rl.scope_logs
    ):
        return "logs", MessageToDict(logs)
    if traces is not None and traces.resource_spans:
        return "traces", MessageToDict(traces)
    return None


def read(data: bytes, label: str, batch: Batch) -> None:
    """Every message of a length-prefixed stream (origins `label:N#/pointer`, N from 1)."""
    i, n = 0, 0
    while i < len(data):
        n += 1
        if len(data) - i < 4:
            batch.unparsed.append((f"{label}:{n}", data[i:].hex(), "truncated length prefix"))
            return
        (size,) = struct.unpack(">I", data[i : i + 4])
        body = data[i + 4 : i + 4 + size]
        if size > MAX_MESSAGE or len(body) < size:
            reason = (
                f"truncated protobuf message: {len(body)} of {size} bytes"
                if size <= MAX_MESSAGE
                else f"length prefix {size} is not a message length"
            )
            batch.unparsed.append((f"{label}:{n}", body[:256].hex(), reason))
            return
        i += 4 + size
        got = decode(body)
        if got is None:
            batch.unparsed.append((f"{label}:{n}", body[:256].hex(), "not an OTLP message"))
            continue
        otlp_json.walk(got[1], f"{label}:{n}", batch)
