"""Calls and findings as OTLP/JSON spans and logs (DESIGN §1 `--format otlp`).

One `TracesData` per trace key and, when there are findings, one `LogsData`, each a line
(the OTel file-exporter spec), so `otelcol`'s `otlpjsonfile` receiver, Jaeger and Phoenix
open them. Per call: a span `toolcall.call TOOL` with one child span per observed phase
(initiation → service → injection, laid end to end from the call's first event). Per finding:
an INTERNAL span `CODE name` (status ERROR for an error) with the attributes
`toolcall.finding.code/.name/.severity/.message/.id` and `gen_ai.tool.call.id`, its evidence
as span events, and a log record carrying the same trace and span id.

Ids: a source trace id that is already 16 bytes of hex (OTel, W3C `traceparent`) is kept, so
the spans land in the trace the user already has; any other trace key becomes a stable hash.
A call's span is parented to the source span of that call (the `execute_tool` span, or the
chat span that asked for it) when the evidence came from OTel, and a finding's span to the
first offending call's source span (linked to all of them); without a source span they hang
under toolcall's own call spans. Every id and time is derived from the evidence, so the same
input gives the same bytes. Message-only evidence has no clock: its spans start at the epoch.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import pandas as pd

from toolcall_cli import __version__
from toolcall_cli.model.findings import Finding

_HEX_TRACE: Final = re.compile(r"[0-9a-f]{32}")
_SPAN_IN_ATTRS: Final = r'"span_id":"([0-9a-f]{16})"'
_KIND_INTERNAL: Final = 1
_STATUS_ERROR: Final = 2
_SEVERITY_NUMBER: Final = {"error": 17, "warning": 13, "info": 9}  # OTel log SeverityNumber
_SEVERITY_TEXT: Final = {"error": "ERROR", "warning": "WARN", "info": "INFO"}
_PHASE_NAMES: Final = (("initiation_ms", "initiation"), ("service_ms", "tool service"))
_PHASE_LAST: Final = ("injection_ms", "injection")
#: the end of a call with no phase observed: a 1 ms span stays visible in a trace UI
_MIN_NS: Final = 1_000_000


@dataclass(frozen=True, slots=True)
class SourceSpan:
    """Where a call lives in the evidence's own traces: trace id (hex) and span id (hex)."""

    trace_id: str | None
    span_id: str | None


def hex_id(seed: str, nbytes: int) -> str:
    """A stable hex id of *nbytes* from *seed* (never all zeros, which OTLP forbids)."""
    digest = hashlib.sha256(seed.encode("utf-8", "surrogatepass")).hexdigest()[: nbytes * 2]
    return digest if digest.strip("0") else "1".rjust(nbytes * 2, "0")


def otel_trace_id(key: str | None, fallback: str) -> str:
    """*key* when it is already an OTel trace id, else a stable hash of it (or *fallback*)."""
    if key is not None:
        low = key.lower()
        if _HEX_TRACE.fullmatch(low) and low.strip("0"):
            return low
    return hex_id(f"trace:{key if key is not None else fallback}", 16)


def source_spans(events: pd.DataFrame) -> dict[str, SourceSpan]:
    """tool_call_id → its source trace id and span (the tool execution's span first, then the
    span whose conversation asked for the call; column-wise over the table)."""
    if events.empty or "tool_call_id" not in events.columns:
        return {}
    sub = events.loc[events["tool_call_id"].notna(), ["tool_call_id", "trace_id", "kind", "attrs"]]
    if sub.empty:
        return {}
    span = sub["attrs"].astype("string").str.extract(_SPAN_IN_ATTRS, expand=False)
    rank = (sub["kind"] != "http_request").astype(int)  # the execution span wins
    frame = pd.DataFrame(
        {"id": sub["tool_call_id"].astype(str), "trace": sub["trace_id"], "span": span, "r": rank}
    ).sort_values(["r"], kind="stable")
    with_span = frame[frame["span"].notna()].drop_duplicates("id")
    traces = frame[frame["trace"].notna()].drop_duplicates("id").set_index("id")["trace"]
    out = {i: SourceSpan(None, None) for i in frame["id"].unique()}
    for i, t in traces.items():
        out[str(i)] = SourceSpan(str(t), None)
    for i, t, s in zip(with_span["id"], with_span["trace"], with_span["span"], strict=True):
        out[str(i)] = SourceSpan(None if pd.isna(t) else str(t), str(s))
    return out


def _attr(key: str, value: Any) -> dict[str, Any] | None:
    """One OTLP KeyValue (None for a missing value)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    if isinstance(value, float):
        return {"key": key, "value": {"doubleValue": value}}
    if isinstance(value, (list, tuple)):
        vals = [{"stringValue": str(v)} for v in value]
        return {"key": key, "value": {"arrayValue": {"values": vals}}}
    return {"key": key, "value": {"stringValue": str(value)}}


def attributes(pairs: Iterable[tuple[str, Any]]) -> list[dict[str, Any]]:
    """OTLP attributes of *pairs*, missing values left out."""
    return [kv for k, v in pairs if (kv := _attr(k, v)) is not None]


def _span(
    trace: str, span_id: str, parent: str | None, name: str, start: int, end: int, **extra: Any
) -> dict[str, Any]:
    out: dict[str, Any] = {"traceId": trace, "spanId": span_id}
    if parent:
        out["parentSpanId"] = parent
    out.update(
        name=name,
        kind=_KIND_INTERNAL,
        startTimeUnixNano=str(start),
        endTimeUnixNano=str(max(end, start)),
    )
    out.update({k: v for k, v in extra.items() if v})
    return out


@dataclass(frozen=True, slots=True)
class CallSpan:
    """Where toolcall put one call: its trace, its span and its time."""

    trace: str
    span_id: str
    start: int
    end: int


def call_spans(
    calls: Sequence[Any], sources: Mapping[str, SourceSpan]
) -> tuple[list[dict[str, Any]], dict[str, CallSpan]]:
    """The spans of *calls* (`align.model.CallView`) and, per tool_call_id, where each went."""
    spans: list[dict[str, Any]] = []
    placed: dict[str, CallSpan] = {}
    for c in calls:
        src = sources.get(c.tool_call_id, SourceSpan(None, None))
        trace = otel_trace_id(src.trace_id, c.trace or c.tool_call_id)
        own = hex_id(f"call:{trace}:{c.tool_call_id}", 8)
        start = c.start_ns or 0
        cursor, children = start, []
        for key, label in (*_PHASE_NAMES, _PHASE_LAST):
            ms = c.phases.get(key)
            if ms is None:
                continue
            end = cursor + int(max(ms, 0.0) * 1e6)
            attrs = attributes([("toolcall.phase", label), ("toolcall.phase.ms", float(ms))])
            breach = key in c.breaches
            status = {"code": _STATUS_ERROR, "message": "above its SLA"} if breach else None
            children.append(
                _span(trace, hex_id(f"{own}:{key}", 8), own, f"phase {label}", cursor, end,
                      attributes=attrs, status=status)
            )  # fmt: skip
            cursor = end
        total = c.phases.get("end_to_end_ms")
        end = max(cursor, start + int(total * 1e6) if total is not None else start)
        end = max(end, start + _MIN_NS)
        failed = c.faulty  # the user's abort: no error
        spans.append(
            _span(
                trace, own, src.span_id, f"toolcall.call {c.tool or '?'}", start, end,
                attributes=attributes([
                    ("gen_ai.tool.name", c.tool),
                    ("gen_ai.tool.call.id", c.tool_call_id),
                    ("gen_ai.conversation.id", c.session_id),
                    ("toolcall.call.outcome", c.outcome),
                    ("toolcall.call.origin", c.origin),
                    ("toolcall.call.sla_breaches", list(c.breaches) or None),
                    ("toolcall.call.cancelled_by", c.cancelled_by),
                    ("toolcall.call.cancelled_origin", c.cancelled_origin),
                ]),
                status={"code": _STATUS_ERROR, "message": c.outcome} if failed else None,
            )
        )  # fmt: skip
        spans.extend(children)
        placed[c.tool_call_id] = CallSpan(trace, own, start, end)
    return spans, placed


def finding_id(f: Finding) -> str:
    """The finding's own `id` when it has one (DESIGN §4), else the same kind of stable hash."""
    own = getattr(f, "id", None)
    if isinstance(own, str) and own:
        return own
    seed = "|".join([f.code, f.trace_id or "", f.session_id or "", *f.tool_call_ids, f.message])
    return hex_id(seed, 8)


def finding_span(
    f: Finding, placed: Mapping[str, CallSpan], sources: Mapping[str, SourceSpan]
) -> dict[str, Any]:
    """One finding as a span in the trace of its first call (or of its own trace id)."""
    fid = finding_id(f)
    mine = [placed[i] for i in f.tool_call_ids if i in placed]
    src = [sources[i] for i in f.tool_call_ids if i in sources and sources[i].span_id]
    trace = mine[0].trace if mine else otel_trace_id(f.trace_id, f.session_id or fid)
    parent = src[0].span_id if src and src[0].trace_id == trace else None
    if parent is None and mine:
        parent = mine[0].span_id
    start = min((p.start for p in mine), default=0)
    end = max((p.end for p in mine), default=start + _MIN_NS)
    links = [
        {"traceId": otel_trace_id(s.trace_id, ""), "spanId": s.span_id} for s in src if s.trace_id
    ]
    events = [
        {
            "timeUnixNano": str(start),
            "name": "toolcall.evidence",
            "attributes": attributes([("toolcall.evidence.origin", e.origin),
                                      ("toolcall.evidence.text", e.text)]),
        }
        for e in f.evidence
    ]  # fmt: skip
    sev = f.severity.value
    return _span(
        trace, hex_id(f"finding:{fid}", 8), parent, f"{f.code} {f.name}", start, end,
        attributes=attributes(finding_attributes(f, fid)),
        events=events,
        links=links,
        status={"code": _STATUS_ERROR, "message": f.message} if sev == "error" else None,
    )  # fmt: skip


def finding_attributes(f: Finding, fid: str) -> list[tuple[str, Any]]:
    """The attribute pairs of a finding's span and log record."""
    return [
        ("toolcall.finding.code", f.code),
        ("toolcall.finding.name", f.name),
        ("toolcall.finding.severity", f.severity.value),
        ("toolcall.finding.message", f.message),
        ("toolcall.finding.id", fid),
        ("toolcall.finding.fix", f.fix),
        ("toolcall.finding.caused_by", getattr(f, "caused_by", None)),
        ("gen_ai.tool.call.id", f.tool_call_ids[0] if f.tool_call_ids else None),
        ("toolcall.finding.tool_call_ids", list(f.tool_call_ids) or None),
        ("gen_ai.tool.name", f.tool),
        ("gen_ai.conversation.id", f.session_id),
    ]


def _resource() -> dict[str, Any]:
    return {"attributes": attributes([("service.name", "toolcall"),
                                      ("service.version", __version__)])}  # fmt: skip


def _scope() -> dict[str, str]:
    return {"name": "toolcall", "version": __version__}


def traces_data(spans: list[dict[str, Any]]) -> dict[str, Any]:
    """One OTLP `TracesData` holding *spans*."""
    return {
        "resourceSpans": [
            {"resource": _resource(), "scopeSpans": [{"scope": _scope(), "spans": spans}]}
        ]
    }


def logs_data(findings: Sequence[Finding], spans: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One OTLP `LogsData`: a record per finding, in the trace and span of its finding span."""
    records = []
    for f, s in zip(findings, spans, strict=True):
        records.append(
            {
                "timeUnixNano": s["startTimeUnixNano"],
                "severityNumber": _SEVERITY_NUMBER[f.severity.value],
                "severityText": _SEVERITY_TEXT[f.severity.value],
                "body": {"stringValue": f"{f.code} {f.name}: {f.message}"},
                "attributes": attributes(finding_attributes(f, finding_id(f))),
                "traceId": s["traceId"],
                "spanId": s["spanId"],
            }
        )
    return {
        "resourceLogs": [
            {"resource": _resource(), "scopeLogs": [{"scope": _scope(), "logRecords": records}]}
        ]
    }


def export_documents(
    findings: Sequence[Finding], calls: Sequence[Any], events: pd.DataFrame | None
) -> list[dict[str, Any]]:
    """The OTLP documents of a run: one `TracesData` per trace id, then one `LogsData`."""
    sources = source_spans(events) if events is not None else {}
    spans, placed = call_spans(calls, sources)
    found = [finding_span(f, placed, sources) for f in findings]
    by_trace: dict[str, list[dict[str, Any]]] = {}
    for s in [*spans, *found]:
        by_trace.setdefault(s["traceId"], []).append(s)
    docs = [traces_data(group) for group in by_trace.values()]
    if findings:
        docs.append(logs_data(findings, found))
    return docs
