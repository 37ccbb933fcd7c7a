"""OTLP/JSON documents (`TracesData` / `LogsData` / `Export*ServiceRequest`) → spans and logs.

One walker serves OTLP/JSON as the spec and the collector's file exporter write it (hex ids,
integer enums), the protobuf JSON mapping (`json_format`: base64 ids, enum names) and
Grafana/Tempo downloads (`batches`, the pre-1.0 `instrumentationLibrarySpans`). Records of the
wrong shape become `unparsed` entries of the batch; wrong values are counted in
`batch.problems`.
"""

from __future__ import annotations

from typing import Any

from toolcall_cli.sources.otel.model import Batch, Log, Span, raw_text, wanted
from toolcall_cli.sources.otel.values import BAD, any_value, hex_id, nanos, span_kind, status_code

_RESOURCE_SPANS = ("resourceSpans", "batches", "resource_spans")
_SCOPE_SPANS = ("scopeSpans", "instrumentationLibrarySpans", "scope_spans")
_RESOURCE_LOGS = ("resourceLogs", "resource_logs")
_SCOPE_LOGS = ("scopeLogs", "instrumentationLibraryLogs", "scope_logs")
_SCOPE = ("scope", "instrumentationLibrary")


def is_otlp(doc: Any) -> bool:
    """True for an object holding OTLP traces or logs."""
    return isinstance(doc, dict) and any(
        isinstance(doc.get(k), list) for k in (*_RESOURCE_SPANS, *_RESOURCE_LOGS)
    )


def _first(d: dict[str, Any], keys: tuple[str, ...]) -> tuple[str | None, Any]:
    for k in keys:
        if k in d:
            return k, d[k]
    return None, None


def attributes(
    items: Any, base: str, batch: Batch, *, keep_all: bool = False
) -> tuple[dict[str, Any], dict[str, int]]:
    """A `KeyValue` list → (wanted values by key, position of each); bad entries are counted."""
    out: dict[str, Any] = {}
    pos: dict[str, int] = {}
    if items is None:
        return out, pos
    if not isinstance(items, list):
        batch.problems["bad_attributes"] += 1
        return out, pos
    for i, kv in enumerate(items):
        key = kv.get("key") if isinstance(kv, dict) else None
        raw = kv.get("value") if key is not None else None
        keep_value(out, pos, i, key, raw, batch, keep_all=keep_all)
    return out, pos


def keep_value(
    out: dict[str, Any],
    pos: dict[str, int],
    i: int,
    key: Any,
    raw: Any,
    batch: Batch,
    *,
    keep_all: bool = False,
    decoded: bool = False,
) -> None:
    """Attribute *i* (*key*, its AnyValue *raw*, or its value already read when *decoded*)
    into *out* / *pos* when some mapper reads it; a bad key or value is counted."""
    if not isinstance(key, str):
        batch.problems["bad_attribute"] += 1
        return
    if not keep_all and not wanted(key):
        return
    val = raw if decoded else any_value(raw)
    if val is BAD:
        batch.problems["bad_value"] += 1
        return
    out[key] = val
    pos[key] = i


def walk(doc: dict[str, Any], loc: str, batch: Batch, prefix: str = "") -> None:
    """Every span and log record of one OTLP/JSON document (*loc* = `path:N` or `path`;
    *prefix* = the document's pointer inside the file, for arrays of documents)."""
    rkey, resources = _first(doc, _RESOURCE_SPANS)
    if isinstance(resources, list):
        for i, rs in enumerate(resources):
            _resource(rs, f"{loc}#{prefix}/{rkey}/{i}", batch, logs=False)
    rkey, resources = _first(doc, _RESOURCE_LOGS)
    if isinstance(resources, list):
        for i, rl in enumerate(resources):
            _resource(rl, f"{loc}#{prefix}/{rkey}/{i}", batch, logs=True)


def _resource(rs: Any, base: str, batch: Batch, *, logs: bool) -> None:
    if not isinstance(rs, dict):
        batch.unparsed.append((base, raw_text(rs), "resource entry is not an object"))
        return
    res = rs.get("resource")
    rattrs, _ = attributes(
        res.get("attributes") if isinstance(res, dict) else None, base, batch, keep_all=True
    )
    service = rattrs.get("service.name")
    service = service if isinstance(service, str) else None
    skey, scopes = _first(rs, _SCOPE_LOGS if logs else _SCOPE_SPANS)
    if not isinstance(scopes, list):
        if scopes is not None:
            batch.unparsed.append((base, raw_text(scopes), f"{skey} is not a list"))
        return
    for j, ss in enumerate(scopes):
        where = f"{base}/{skey}/{j}"
        if not isinstance(ss, dict):
            batch.unparsed.append((where, raw_text(ss), "scope entry is not an object"))
            continue
        _, scope = _first(ss, _SCOPE)
        name = scope.get("name") if isinstance(scope, dict) else None
        key = "logRecords" if logs else "spans"
        records = ss.get(key, ss.get("log_records") if logs else None)
        if not isinstance(records, list):
            if records is not None:
                batch.unparsed.append((where, raw_text(records), f"{key} is not a list"))
            continue
        for k, rec in enumerate(records):
            at = f"{where}/{key}/{k}"
            if not isinstance(rec, dict):
                batch.unparsed.append((at, raw_text(rec), "record is not an object"))
            elif logs:
                batch.logs.append(_log(rec, at, service, batch))
            else:
                batch.spans.append(_span(rec, at, service, name, batch))


def _id(
    rec: dict[str, Any],
    keys: tuple[str, ...],
    n: int,
    batch: Batch,
    what: str,
    *,
    required: bool = True,
) -> str | None:
    """An id as lowercase hex; a missing required id and an unreadable one are counted."""
    return id_value(_first(rec, keys)[1], n, batch, what, required=required)


def id_value(raw: Any, n: int, batch: Batch, what: str, *, required: bool = True) -> str | None:
    """*raw* (an id of *n* bytes as written) as lowercase hex, counting what `_id` counts."""
    if raw in (None, ""):
        if required:
            batch.problems[f"missing_{what}"] += 1
        return None
    got = hex_id(raw, n)
    if got is None:
        batch.problems[f"bad_{what}"] += 1
    return got


def _time(rec: dict[str, Any], keys: tuple[str, ...], batch: Batch) -> int | None:
    return time_value(_first(rec, keys)[1], batch)


def time_value(raw: Any, batch: Batch) -> int | None:
    """*raw* (a `*UnixNano` value as written) in ns; an implausible one is counted."""
    if raw is None:
        return None
    t = nanos(raw)
    if t is None:
        batch.problems["bad_time"] += 1
    return t


def _span(rec: dict[str, Any], at: str, service: str | None, scope: Any, batch: Batch) -> Span:
    attrs, pos = attributes(rec.get("attributes"), at, batch)
    events: list[tuple[str, int | None, dict[str, Any]]] = []
    raw_events = rec.get("events")
    for ev in raw_events if isinstance(raw_events, list) else ():
        if not isinstance(ev, dict):
            batch.problems["bad_event"] += 1
            continue
        ev_attrs, _ = attributes(ev.get("attributes"), at, batch, keep_all=True)
        name = ev.get("name")
        events.append(
            (
                name if isinstance(name, str) else "",
                _time(ev, ("timeUnixNano", "time_unix_nano"), batch),
                ev_attrs,
            )
        )
    status: dict[str, Any] = rec["status"] if isinstance(rec.get("status"), dict) else {}
    message = status.get("message")
    name = rec.get("name")
    return Span(
        trace_id=_id(rec, ("traceId", "trace_id"), 16, batch, "trace_id"),
        span_id=_id(rec, ("spanId", "span_id"), 8, batch, "span_id"),
        parent_id=_id(
            rec, ("parentSpanId", "parent_span_id"), 8, batch, "parent_id", required=False
        ),
        name=name if isinstance(name, str) else "",
        kind=span_kind(rec.get("kind")),
        start_ns=_time(rec, ("startTimeUnixNano", "start_time_unix_nano"), batch),
        end_ns=_time(rec, ("endTimeUnixNano", "end_time_unix_nano"), batch),
        status=status_code(status.get("code")),
        status_message=message if isinstance(message, str) and message else None,
        attrs=attrs,
        attr_pos=pos,
        events=events,
        service=service,
        scope=scope if isinstance(scope, str) else None,
        origin=at,
        attr_base=f"{at}/attributes",
    )


def _log(rec: dict[str, Any], at: str, service: str | None, batch: Batch) -> Log:
    attrs, _ = attributes(rec.get("attributes"), at, batch)
    body = any_value(rec.get("body")) if "body" in rec else None
    if body is BAD:
        batch.problems["bad_value"] += 1
        body = None
    name = rec.get("eventName") or attrs.get("event.name")
    t = _time(rec, ("timeUnixNano", "time_unix_nano"), batch)
    if t is None:
        t = _time(rec, ("observedTimeUnixNano", "observed_time_unix_nano"), batch)
    return Log(
        # a log record need not belong to a span
        trace_id=_id(rec, ("traceId", "trace_id"), 16, batch, "trace_id", required=False),
        span_id=_id(rec, ("spanId", "span_id"), 8, batch, "span_id", required=False),
        time_ns=t,
        event_name=name if isinstance(name, str) else None,
        body=body,
        attrs=attrs,
        service=service,
        origin=at,
    )
