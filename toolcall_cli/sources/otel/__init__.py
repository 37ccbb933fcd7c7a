"""otel adapter: OpenTelemetry traces and logs → events (DESIGN §2 "otel").

Encodings (detected by content): OTLP/JSON (one `TracesData` / `LogsData` /
`Export*ServiceRequest` per line as the collector's file exporter writes, or one document),
OTLP protobuf (4-byte big-endian length-prefixed messages, optionally zstd), Grafana/Tempo
downloads and Jaeger v1 UI exports. Conventions (one mapper module each): GenAI current and
legacy, OpenInference, Langfuse SDK observations, MCP, HTTP. Langfuse exports (trace and
session "Download JSON", observation and trace blob exports) become the spans the Langfuse SDK
would have sent and ride on the same mapper (:mod:`langfuse_export`).

Origins (one scheme): a JSON pointer to the record, after `path:N#` where N is the line of a
JSON-lines file or the message number (from 1) of a protobuf stream, or after `path#` for a
single JSON document — e.g. `traces.jsonl:3#/resourceSpans/0/scopeSpans/0/spans/4`. Rows
taken from one attribute point at it (`…/spans/4/attributes/9/value/stringValue/2` is message 2
of `gen_ai.input.messages`); evidence quotes the span or the message from JSON files.

Kinds: the conversation kinds of the messages source (`user`, `system`, `assistant_text`,
`tool_call`, `tool_result`) for message content, `http_request` / `http_response` for tool
executions (span start / end), `system` with `status=error` for provider errors, `unparsed`
for records no reader understood and for counts of bad values (IN001). When content capture
was off a model call is a `system` row with `attrs.content_captured = false` and tool rows
carry the same flag: arguments are never invented. The same span (trace id + span id)
delivered twice in a file is one span.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from toolcall_cli.sources._shared.files import read_head
from toolcall_cli.sources.base import HEAD_BYTES, ParseOptions
from toolcall_cli.sources.otel import langfuse_sniff
from toolcall_cli.sources.otel.sniff import sniff as _sniff

SAMPLES: tuple[str, ...] = (
    "fixtures/otel/genai_loop/traces.otlp.jsonl",
    "fixtures/otel/genai_unanswered/traces.otlp.jsonl",
    "fixtures/otel/genai_truncated/traces.otlp.jsonl",
    "fixtures/otel/genai_healthy/traces.otlp.jsonl",
    "fixtures/otel/openinference_loop/traces.otlp.jsonl",
    "fixtures/otel/openinference_unanswered/traces.otlp.jsonl",
    "fixtures/otel/openinference_healthy/traces.otlp.jsonl",
    "fixtures/otel/legacy_loop/traces.otlp.jsonl",
    "fixtures/otel/langfuse_loop/traces.otlp.jsonl",
    "fixtures/otel/langfuse_healthy/traces.otlp.jsonl",
    "fixtures/otel/legacy_loop/logs.otlp.jsonl",
    "fixtures/otel/legacy_healthy/logs.otlp.jsonl",
    "fixtures/otel/encodings/genai_loop.otlp.pb",
    "fixtures/otel/encodings/genai_loop.otlp.pb.zst",
    "fixtures/otel/encodings/genai_loop.tempo.json",
    "fixtures/otel/encodings/genai_loop.jaeger.json",
    "fixtures/otel/encodings/legacy_healthy_logs.otlp.pb",
    *langfuse_sniff.SAMPLES,
)


class OtelAdapter:
    """The `otel` source (DESIGN §2)."""

    name = "otel"
    samples = SAMPLES

    def sniff(self, head: bytes, path: Path) -> int:
        """Score the first 64 KiB (see :mod:`sniff`)."""
        return max(_sniff(head), langfuse_sniff.sniff(head))

    def parse(self, path: Path, opts: ParseOptions) -> pd.DataFrame:
        """Parse the whole file into events (bad records become `unparsed` rows)."""
        # the readers and mappers load here: detecting the format of every input (a sniff)
        # reads only the two sniffers, so a run without OpenTelemetry input never loads them
        from toolcall_cli.model.gcpause import no_gc
        from toolcall_cli.sources.otel import langfuse_export
        from toolcall_cli.sources.otel.mapping import to_frame
        from toolcall_cli.sources.otel.read import read_file

        # a large file's model calls make hundreds of thousands of records, messages and
        # rows: collections rescanning all of them would cost CPU time for nothing
        with no_gc():
            frame = langfuse_export.parse(
                path, limit=opts.max_decompressed, head=read_head(path, HEAD_BYTES)
            )
            if frame is None:
                got = read_file(path, limit=opts.max_decompressed)
                frame = to_frame(got.batch, path, rows_done=got.rows, sessions=got.sessions)
        if opts.progress:
            size = path.stat().st_size
            opts.progress(size, size)
        return frame


ADAPTER = OtelAdapter()
