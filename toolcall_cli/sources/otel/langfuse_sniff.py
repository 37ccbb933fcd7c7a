"""Content detection for Langfuse exports (≤64 KiB head; 0 for anything else).

What each export starts with (the server code that writes it is named in
:mod:`langfuse_export`):

* trace download (v4 UI, `buildTraceExport`): `{"observations": [{"id", "traceId", …` ;
* legacy trace download (`downloadLegacyTraceAsJson`): `{"trace": {"id", "projectId", …},
  "observations": [...]}` ;
* session download (`buildSessionExportData`): `{"id", "createdAt", …, "projectId",
  "bookmarked", …, "traces": [{"id", …}]}` ;
* observation blob export, JSON (one array) or JSONL (a row per line), legacy or enriched:
  snake_case rows `{"id", "trace_id", "project_id", … "type", … "start_time", …}`;
* traces blob export (table `traces`): `{"id", "timestamp", "name", …, "project_id", …,
  "session_id", …, "bookmarked", …}`.

Scores beat the messages sniffer (≤95) and the OTLP sniffer (98) on these files; an OpenAI
messages file, a chat completion or an OTLP file has none of these key sets and scores 0.
"""

from __future__ import annotations

import re
from typing import Final, Literal

#: The committed exports (the adapter's samples: each must be claimed with the top score).
SAMPLES: tuple[str, ...] = (
    "fixtures/langfuse/loop/trace.json",
    "fixtures/langfuse/unanswered/trace.json",
    "fixtures/langfuse/failed/trace.json",
    "fixtures/langfuse/healthy/trace.json",
    "fixtures/langfuse/healthy/trace.legacy.json",
    "fixtures/langfuse/healthy/session.json",
    "fixtures/langfuse/blob/observations.json",
    "fixtures/langfuse/blob/observations.jsonl",
    "fixtures/langfuse/blob/observations_v2.jsonl",
    "fixtures/langfuse/blob/traces.jsonl",
)

Shape = Literal[
    "download",
    "legacy_download",
    "session",
    "blob_json",
    "blob_jsonl",
    "blob_traces_json",
    "blob_traces_jsonl",
]

SCORE: Final = 99

_DOWNLOAD = re.compile(rb'^\s*\{\s*"observations"\s*:\s*\[\s*(?:\]|\{\s*"id"\s*:)')
_EMPTY_DOWNLOAD = re.compile(rb'^\s*\{\s*"observations"\s*:\s*\[\s*\]')
_LEGACY = re.compile(rb'^\s*\{\s*"trace"\s*:\s*\{\s*"id"\s*:')
_SESSION = re.compile(rb'^\s*\{\s*"id"\s*:\s*"[^"]*"\s*,\s*"createdAt"\s*:')
_TRACES = re.compile(rb'"traces"\s*:\s*\[')
_ROW = re.compile(rb'^\s*(\[)?\s*\{\s*"id"\s*:\s*"[^"]*"\s*,\s*"trace_id"\s*:')
_TRACE_ROW = re.compile(
    rb'^\s*(\[)?\s*\{\s*"id"\s*:\s*"[^"]*"\s*,\s*"timestamp"\s*:\s*"[^"]*"\s*,\s*"name"\s*:'
)
_TRACE_KEYS = (b'"project_id"', b'"session_id"', b'"bookmarked"')
_CAMEL_OBS = (b'"traceId"', b'"startTime"', b'"type"')
_SNAKE_OBS = (b'"start_time"', b'"type"', b'"project_id"')


def shape(head: bytes) -> Shape | None:
    """Which Langfuse export *head* starts, or None."""
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    # an empty download in any spacing (compact JSON too), else camelCase observation keys
    if _DOWNLOAD.match(head) and (_EMPTY_DOWNLOAD.match(head) or _has(head, _CAMEL_OBS)):
        return "download"
    if _LEGACY.match(head) and b'"projectId"' in head and b'"timestamp"' in head:
        return "legacy_download"
    if (
        _SESSION.match(head)
        and _TRACES.search(head)
        and _has(head, (b'"projectId"', b'"bookmarked"'))
    ):
        return "session"
    m = _ROW.match(head)
    if m and _has(head[:8192], _SNAKE_OBS):
        return "blob_json" if m.group(1) else "blob_jsonl"
    m = _TRACE_ROW.match(head)
    if m and _has(head[:8192], _TRACE_KEYS):
        return "blob_traces_json" if m.group(1) else "blob_traces_jsonl"
    return None


def sniff(head: bytes) -> int:
    """0–100: how sure we are that *head* is a Langfuse trace/session download or blob export."""
    return SCORE if shape(head) else 0


def _has(head: bytes, keys: tuple[bytes, ...]) -> bool:
    return all(k in head for k in keys)
