"""Jaeger v1 UI exports ("Download JSON": `{"data": [{"traceID", "spans", "processes"}]}`) → spans.

Times are µs (`startTime`, `duration`), the parent is the `CHILD_OF` reference, attributes are
`tags` (`{key, type, value}`), span events are `logs` (`{timestamp, fields}`), the span kind and
status ride in the `span.kind`, `otel.status_code`, `otel.status_description` and `error` tags.
"""

from __future__ import annotations

from typing import Any

from toolcall_cli.sources.otel.model import Batch, Span, raw_text, wanted
from toolcall_cli.sources.otel.values import hex_id, micros, span_kind, status_code


def is_jaeger(doc: Any) -> bool:
    """True for a Jaeger UI export: `data` is a list of traces that have `spans`."""
    data = doc.get("data") if isinstance(doc, dict) else None
    return (
        isinstance(data, list)
        and bool(data)
        and all(isinstance(t, dict) and isinstance(t.get("spans"), list) for t in data[:5])
    )


def _value(tag: dict[str, Any]) -> Any:
    v = tag.get("value")
    t = str(tag.get("type", "string")).lower()
    if t == "int64" and isinstance(v, str):
        try:
            return int(v)
        except ValueError:
            return v
    return v


def _tags(items: Any, batch: Batch, *, keep_all: bool) -> tuple[dict[str, Any], dict[str, int]]:
    out: dict[str, Any] = {}
    pos: dict[str, int] = {}
    for i, tag in enumerate(items if isinstance(items, list) else ()):
        key = tag.get("key") if isinstance(tag, dict) else None
        if not isinstance(key, str):
            batch.problems["bad_attribute"] += 1
            continue
        if keep_all or wanted(key) or key in _STATUS_TAGS:
            out[key] = _value(tag)
            pos[key] = i
    return out, pos


_STATUS_TAGS = frozenset({"span.kind", "otel.status_code", "otel.status_description", "error"})


def walk(doc: dict[str, Any], loc: str, batch: Batch) -> None:
    """Every span of a Jaeger export (*loc* = the file path)."""
    for i, tr in enumerate(doc.get("data") or []):
        base = f"{loc}#/data/{i}"
        if not isinstance(tr, dict) or not isinstance(tr.get("spans"), list):
            batch.unparsed.append((base, raw_text(tr), "trace entry has no spans list"))
            continue
        procs: dict[str, Any] = tr["processes"] if isinstance(tr.get("processes"), dict) else {}
        for j, sp in enumerate(tr["spans"]):
            at = f"{base}/spans/{j}"
            if not isinstance(sp, dict):
                batch.unparsed.append((at, raw_text(sp), "span is not an object"))
                continue
            batch.spans.append(_span(sp, at, procs, batch))


def _span(sp: dict[str, Any], at: str, procs: dict[str, Any], batch: Batch) -> Span:
    tags, pos = _tags(sp.get("tags"), batch, keep_all=False)
    kind = span_kind(tags.pop("span.kind", None))
    code = tags.pop("otel.status_code", None)
    status = status_code(code) if code else ("error" if tags.get("error") is True else "unset")
    message = tags.pop("otel.status_description", None)
    tags.pop("error", None)
    parent = None
    for ref in sp.get("references") or []:
        if isinstance(ref, dict) and ref.get("refType", "CHILD_OF") == "CHILD_OF":
            parent = hex_id(_pad(ref.get("spanID"), 16), 8)
            break
    start = micros(sp.get("startTime"))
    dur = sp.get("duration")
    if sp.get("startTime") is not None and start is None:
        batch.problems["bad_time"] += 1
    end = start + int(dur) * 1000 if start is not None and isinstance(dur, int) else None
    events = []
    for log in sp.get("logs") or []:
        if not isinstance(log, dict):
            batch.problems["bad_event"] += 1
            continue
        fields, _ = _tags(log.get("fields"), batch, keep_all=True)
        name = fields.pop("event", "")
        events.append((str(name), micros(log.get("timestamp")), fields))
    pid = sp.get("processID")
    proc = procs.get(pid) if isinstance(pid, str) else None
    service = proc.get("serviceName") if isinstance(proc, dict) else None
    trace_id = hex_id(_pad(sp.get("traceID"), 32), 16)
    span_id = hex_id(_pad(sp.get("spanID"), 16), 8)
    for what, val in (("trace_id", trace_id), ("span_id", span_id)):
        if val is None:
            batch.problems[f"missing_{what}"] += 1
    name = sp.get("operationName")
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_id=parent,
        name=name if isinstance(name, str) else "",
        kind=kind,
        start_ns=start,
        end_ns=end,
        status=status,
        status_message=message if isinstance(message, str) and message else None,
        attrs=tags,
        attr_pos=pos,
        events=events,
        service=service if isinstance(service, str) else None,
        scope=None,
        origin=at,
        attr_base=f"{at}/tags",
        attr_leaf="/value",
    )


def _pad(v: Any, width: int) -> Any:
    """Jaeger drops leading zeros of hex ids (`traceID` "1f3a…" of 15 digits): pad them back."""
    if isinstance(v, str) and 0 < len(v) < width and all(c in "0123456789abcdefABCDEF" for c in v):
        return v.rjust(width, "0")
    return v
