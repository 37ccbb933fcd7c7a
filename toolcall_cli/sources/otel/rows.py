"""Tool executions, stray errors, unreadable records and value problems → event rows.

A tool execution is the tool-service exchange of the call: an `http_request` row when the span
started (tool, call id, arguments) and an `http_response` row when it ended (status, result
as `detail`, its size, the span's duration), so the timeline's request/response phases and
replay's dispatch evidence read it as they read a captured exchange.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson
import pandas as pd

from toolcall_cli.model.events import UNPARSED, build_frame
from toolcall_cli.sources.otel.exchange import ToolRun
from toolcall_cli.sources.otel.model import Batch, Span

SOURCE = "otel"
_COLS = (
    "ts", "origin", "kind", "session_id", "trace_id", "tool_call_id", "request_id", "tool",
    "args", "status", "http_status", "duration_ms", "size", "detail", "attrs",
)  # fmt: skip
_PROBLEMS = {
    "bad_value": "attribute values of the wrong AnyValue shape",
    "bad_attribute": "attributes without a key",
    "bad_attributes": "attribute lists that are not lists",
    "bad_event": "span events that are not objects",
    "bad_time": "timestamps that are not plausible times",
    "missing_trace_id": "spans without a trace id",
    "missing_span_id": "spans without a span id",
    "bad_trace_id": "trace ids that are not 16 bytes of hex or base64",
    "bad_span_id": "span ids that are not 8 bytes of hex or base64",
}


class Rows:
    """Column lists of the rows being built."""

    def __init__(self) -> None:
        self.cols: dict[str, list[Any]] = {c: [] for c in _COLS}

    def add(self, **cells: Any) -> None:
        attrs = cells.pop("attrs", None)
        for c in _COLS[:-1]:
            self.cols[c].append(cells.get(c))
        clean = {k: v for k, v in (attrs or {}).items() if v is not None}
        self.cols["attrs"].append(orjson.dumps(clean).decode() if clean else None)

    def frame(self) -> pd.DataFrame:
        n = len(self.cols["kind"])
        cols: dict[str, Any] = dict(self.cols)
        cols["ts"] = pd.to_datetime(pd.Series(cols["ts"], dtype="Int64"), unit="ns", utc=True)
        cols["source"] = [SOURCE] * n
        cols["seq"] = list(range(n))
        return build_frame(cols, n=n)


def tool_rows(runs: Iterable[ToolRun], rows: Rows) -> None:
    """Two rows per tool execution (see the module docstring)."""
    for r in runs:
        base = {"span_id": r.span_id, "convention": r.convention}
        keys = {
            "session_id": r.session,
            "trace_id": r.trace_id,
            "tool_call_id": r.call_id,
            "request_id": r.request_id,
            "tool": r.tool,
        }
        extra = dict(r.attrs)
        pointer = extra.pop("args_pointer", None)
        rows.add(
            ts=r.start_ns,
            origin=pointer or r.origin,
            kind="http_request",
            args=r.args,
            attrs={**base, **{k: extra.get(k) for k in ("method", "path", "mcp_method")}},
            **keys,
        )
        dur = (r.end_ns - r.start_ns) / 1e6 if r.end_ns and r.start_ns else None
        detail = r.result if r.result is not None else r.error
        rows.add(
            ts=r.end_ns,
            origin=r.origin,
            kind="http_response",
            status=r.status,
            http_status=r.http_status,
            duration_ms=dur,
            size=len(r.result) if r.result is not None else None,
            detail=detail,
            attrs={
                **base,
                **extra,
                "error_type": r.error_type,
                "error": r.error if r.result else None,
            },
            **keys,
        )


def error_row(
    span: Span, session: str | None, message: str | None, etype: str | None, rows: Rows
) -> None:
    """A failed span no convention claims (its exception is the detail)."""
    rows.add(
        ts=span.end_ns,
        origin=span.origin,
        kind="system",
        session_id=session,
        trace_id=span.trace_id,
        status="error",
        detail=message or etype,
        attrs={
            "span_id": span.span_id,
            "span": span.name,
            "error_type": etype,
            "convention": "otel",
        },
    )


def unreadable(batch: Batch, rows: Rows) -> None:
    """`unparsed` rows: each record no reader understood, and one per kind of bad value."""
    for origin, raw, reason in batch.unparsed:
        rows.add(origin=origin, kind=UNPARSED, detail=raw, attrs={"reason": reason})
    for problem, count in sorted(batch.problems.items()):
        if problem.startswith("duplicate"):
            continue  # a repeated delivery is not bad input
        what = _PROBLEMS.get(problem, problem.replace("_", " "))
        rows.add(
            origin=batch.label,
            kind=UNPARSED,
            detail=f"{count} {what}",
            attrs={"reason": problem, "count": count},
        )
