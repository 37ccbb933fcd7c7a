"""Langfuse exports → the otel event table: observations become spans for the Langfuse mapper.

Read from the Langfuse server's source (langfuse/langfuse, commit
62751446149b702b419a9292ddfc2280cdf74b8c):

* **trace download** — `web/src/features/traces/server/buildTraceExport.ts` (the v4 UI's
  "Download JSON", `GET /api/traces/{id}/download`): `{"observations": [...], "scores": [...]}`,
  each observation camelCase: `id traceId sessionId type name startTime endTime
  parentObservationId level statusMessage model input output metadata toolCalls
  toolCallNames toolDefinitions …` (input/output parsed JSON; omitted on traces of ≥350
  observations, `traceDownloadConfig.ts`).
* **legacy trace download** — `web/src/features/traces/fns/downloadTrace.ts`
  (`downloadLegacyTraceAsJson`): `{"trace": {id, sessionId, timestamp, …}, "observations": [...]}`;
  the trace's `sessionId` is the session of its observations.
* **session download** — `web/src/components/session/actions/downloadSessionAsJson.ts`
  (`buildSessionExportData` over `sessions.byIdWithScores`, `web/src/server/api/routers/
  sessions.ts`): the session (`id`, `projectId`, …) and `traces: [{id, name, timestamp, userId,
  …}]` — no observations, so each trace is one `system` row (`content_captured = false`) that
  ties the trace to the session; the trace download has its calls.
* **traces blob export** — the same worker, table `traces` (`getTracesForBlobStorageExport`,
  `packages/shared/src/server/repositories/traces.ts`): `{id, timestamp, name, environment,
  project_id, metadata, user_id, session_id, …}` per trace; like the session download, each
  trace is a row tying it to its `session_id` (the legacy observations table has none).
* **observation blob exports** — `worker/src/features/blobstorage/
  handleBlobStorageIntegrationProjectJob.ts`: JSON (`transformStreamToJson`: one array) or
  JSONL (`transformStreamToJsonl`: a row per line). Legacy table `observations`: the
  snake_case columns of `LEGACY_OBSERVATION_EXPORT_FIELDS`
  (`packages/shared/src/domain/observation-field-groups.ts`: `id trace_id type name start_time
  end_time parent_observation_id level status_message input output metadata
  provided_model_name tool_calls tool_call_names …`, no session). Enriched table
  `observations_v2` (events): `FIELD_SETS` of `packages/shared/src/server/queries/clickhouse-sql/
  event-query-builder.ts`, adding `session_id user_id trace_name tags is_root_observation …`.
  Times are ClickHouse `YYYY-MM-DD hh:mm:ss.fff` (UTC); input/output are the stored JSON text.

Mapping: a GENERATION is a model call (its input/output through the messages parser); a TOOL is
a tool execution, and so is a SPAN named like a tool a generation of its trace called, or that
carries `metadata.tool_call_id` (Langfuse SDKs before v3 had no TOOL type); level ERROR with its
`statusMessage` is the failure; `sessionId` / `session_id` → session, trace id → trace. Records
that are not observations, lines that are not JSON and unreadable times are counted (IN001).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pandas as pd

from toolcall_cli.sources._shared.files import read_bytes
from toolcall_cli.sources.messages.rows import as_str
from toolcall_cli.sources.otel import langfuse_sniff, rows
from toolcall_cli.sources.otel.exchange import as_json, as_obj, ident
from toolcall_cli.sources.otel.mapping import to_frame
from toolcall_cli.sources.otel.model import RAW_CAP, Batch, Span, raw_text

_P = "langfuse.observation."
#: export field (camelCase, snake_case) → the SDK span attribute the Langfuse mapper reads
_ATTR_FIELDS = {
    f"{_P}input": ("input", "input"),
    f"{_P}output": ("output", "output"),
    f"{_P}level": ("level", "level"),
    f"{_P}status_message": ("statusMessage", "status_message"),
}
_MODEL = ("model", "providedModelName", "provided_model_name")
#: attributes whose evidence pointer is a field of the record (same name in both spellings)
_POINTED = {f"{_P}input": "input", f"{_P}output": "output"}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(slots=True)
class ObservationSpan(Span):
    """A span made from an exported observation: attribute pointers name the record's fields."""

    def pointer(self, key: str) -> str:
        """`…/input` and `…/output` for those attributes; the record itself otherwise."""
        name = _POINTED.get(key)
        return f"{self.attr_base}/{name}" if name else self.origin


def parse(path: Path, *, limit: int, head: bytes) -> pd.DataFrame | None:
    """The events of a Langfuse export, or None when *head* is not one."""
    shape = langfuse_sniff.shape(head)
    if shape is None:
        return None
    batch, extra = Batch(label=str(path), encoding=f"langfuse-{shape}"), rows.Rows()
    _read(path, limit, shape, batch, extra)
    batch.dedupe()
    ties = extra.frame()
    return to_frame(batch, path, rows_done=[ties] if len(ties) else None)


def _read(path: Path, limit: int, shape: str, batch: Batch, out: rows.Rows) -> None:
    """Records → spans (or trace ties), one at a time: no parsed row outlives its span."""
    label, data = str(path), read_bytes(path, limit=limit)
    records = (
        _lines(data, label, batch)
        if shape.endswith("jsonl")
        else _document(data, label, batch, shape)
    )
    if shape in ("session", "blob_traces_json", "blob_traces_jsonl"):
        _trace_ties(records, batch, out)
    else:
        _spans(records, batch)


Record = tuple[Any, str, str, str | None]  # (record, origin, pointer base, trace's session)


def _lines(data: bytes, label: str, batch: Batch) -> Iterator[Record]:
    # a byte order mark before the first row (the sniffer skips it too) is not part of it
    start, n = (3 if data.startswith(b"\xef\xbb\xbf") else 0), 0
    while start < len(data):  # line by line, without a second copy of the whole file
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        line, start, n = data[start:end], end + 1, n + 1
        if line.strip():
            try:
                yield orjson.loads(line), f"{label}:{n}", f"{label}:{n}#", None
            except orjson.JSONDecodeError as e:
                text = line[:RAW_CAP].decode("utf-8", "replace")
                batch.unparsed.append((f"{label}:{n}", text, f"not JSON: {e}"[:200]))


def _document(data: bytes, label: str, batch: Batch, shape: str) -> Iterator[Record]:
    try:
        doc = orjson.loads(data[3:] if data.startswith(b"\xef\xbb\xbf") else data)
    except orjson.JSONDecodeError as e:
        batch.unparsed.append(
            (label, data[:RAW_CAP].decode("utf-8", "replace"), f"not JSON: {e}"[:200])
        )
        return
    items, base, session = doc, "", None
    if shape == "session":
        items, base, session = as_obj(doc).get("traces"), "/traces", ident(as_obj(doc).get("id"))
    elif isinstance(doc, dict):
        items, base = doc.get("observations"), "/observations"
        session = ident(as_obj(doc.get("trace")).get("sessionId"))
    if not isinstance(items, list):
        batch.unparsed.append((f"{label}#{base}", raw_text(items), "records are not a list"))
        return
    for i, item in enumerate(items):
        yield item, f"{label}#{base}/{i}", f"{label}#{base}/{i}", session


def _trace_ties(records: Iterable[Record], batch: Batch, out: rows.Rows) -> None:
    """Each trace of a session download or a traces-table blob export: a `system` row tying it
    to its session (these exports hold no observations: content not captured)."""
    for rec, origin, _, session in records:
        tid = ident(as_obj(rec).get("id"))
        if tid is None:
            batch.unparsed.append((origin, raw_text(rec), "a Langfuse trace without an id"))
            continue
        name = ident(rec.get("name")) or tid
        out.add(
            ts=_ns(rec.get("timestamp"), batch), origin=origin, kind="system", trace_id=tid,
            session_id=session or ident(rec.get("session_id")),
            detail=f"Langfuse trace {name} (this export has no observations)",
            attrs={"content_captured": False, "convention": "langfuse"},
        )  # fmt: skip


def _get(rec: dict[str, Any], *names: str) -> Any:
    for n in names:
        if n in rec:
            return rec[n]
    return None


def _spans(records: Iterable[Record], batch: Batch) -> None:
    tools: dict[str, set[str]] = {}  # trace id → the tool names its generations called
    maybe_tools: list[Span] = []  # SPANs that may be tool executions (decided once all is read)
    for rec, origin, base, session in records:
        kind = _get(rec, "type") if isinstance(rec, dict) else None
        if not isinstance(kind, str):
            batch.unparsed.append((origin, raw_text(rec), "not a Langfuse observation (no type)"))
            continue
        span = _span(rec, kind.lower(), origin, base, session, batch)
        batch.spans.append(span)
        kind = span.attrs[f"{_P}type"]
        if kind == "generation":
            tools.setdefault(span.trace_id or "", set()).update(_called_tools(rec))
        elif kind == "span":
            maybe_tools.append(span)
    for maybe in maybe_tools:  # Langfuse SDKs before v3 ran tools in SPANs named after them
        if maybe.name in tools.get(maybe.trace_id or "", ()):
            maybe.attrs[f"{_P}type"] = "tool"


def _span(
    rec: dict[str, Any], kind: str, origin: str, base: str, session: str | None, batch: Batch
) -> ObservationSpan:
    """One observation as the span the Langfuse SDK would have sent (`langfuse.observation.*`)."""
    trace, span_id = ident(_get(rec, "traceId", "trace_id")), ident(rec.get("id"))
    batch.problems.update(
        k for k, v in (("missing_trace_id", trace), ("missing_span_id", span_id)) if v is None
    )
    meta = as_obj(as_json(rec.get("metadata")))
    attrs: dict[str, Any] = {
        f"{_P}type": "tool" if kind == "span" and "tool_call_id" in meta else kind,
        f"{_P}metadata.tool_call_id": meta.get("tool_call_id"),
        f"{_P}model.name": _get(rec, *_MODEL),
        "session.id": ident(_get(rec, "sessionId", "session_id")) or session,
    }
    for key, names in _ATTR_FIELDS.items():
        attrs[key] = _get(rec, *names)
    return ObservationSpan(
        trace_id=trace, span_id=span_id,
        parent_id=ident(_get(rec, "parentObservationId", "parent_observation_id")),
        name=as_str(rec.get("name")) or "", kind="internal",  # a list or object: no name
        start_ns=_ns(_get(rec, "startTime", "start_time"), batch),
        end_ns=_ns(_get(rec, "endTime", "end_time"), batch),
        status="error" if attrs[f"{_P}level"] == "ERROR" else "unset",
        status_message=ident(attrs[f"{_P}status_message"]),
        attrs={k: v for k, v in attrs.items() if v is not None}, attr_pos={}, events=[],
        service=None, scope="langfuse", origin=origin, attr_base=base,
    )  # fmt: skip


def _called_tools(rec: dict[str, Any]) -> set[str]:
    """The tool names a generation called (`toolCallNames`, else its output's `tool_calls`)."""
    names = _get(rec, "toolCallNames", "tool_call_names")
    if isinstance(names, list) and names:
        return {n for n in names if isinstance(n, str)}
    found: set[str] = set()
    calls = as_obj(as_json(rec.get("output"))).get("tool_calls")
    for call in calls if isinstance(calls, list) else ():  # a number or true is no list of calls
        name = as_obj(as_obj(call).get("function")).get("name")
        if isinstance(name, str):
            found.add(name)
    return found


def _ns(value: Any, batch: Batch) -> int | None:
    """ISO 8601 (`…Z`) or ClickHouse (`YYYY-MM-DD hh:mm:ss.fff`, UTC) → ns; None counted."""
    if value is None:
        return None
    try:
        t = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        t = None
    if t is None or not 1990 <= t.year <= 2200:
        batch.problems["bad_time"] += 1
        return None
    t = t if t.tzinfo else t.replace(tzinfo=UTC)
    return ((t - _EPOCH) // timedelta(microseconds=1)) * 1000
