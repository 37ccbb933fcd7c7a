"""Builders for small hand-made OTLP/JSON documents (tests only)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

TRACE = "5b8efff798038103d269b633813fc60c"
T0 = 1_764_583_200_000_000_000  # 2025-12-01T10:00:00Z in ns


def value(v: Any) -> dict[str, Any]:
    """A Python value as an OTLP AnyValue."""
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    if isinstance(v, list):
        return {"arrayValue": {"values": [value(x) for x in v]}}
    if isinstance(v, dict):
        return {"kvlistValue": {"values": [{"key": k, "value": value(x)} for k, x in v.items()]}}
    return {"stringValue": v}


def span(
    n: int,
    name: str,
    attrs: dict[str, Any],
    *,
    kind: int = 1,
    start_ms: int = 0,
    end_ms: int = 10,
    status: dict[str, Any] | None = None,
    events: list[dict[str, Any]] | None = None,
    trace: str = TRACE,
) -> dict[str, Any]:
    return {
        "traceId": trace,
        "spanId": f"{n:016x}",
        "name": name,
        "kind": kind,
        "startTimeUnixNano": str(T0 + start_ms * 1_000_000),
        "endTimeUnixNano": str(T0 + end_ms * 1_000_000),
        "attributes": [{"key": k, "value": value(v)} for k, v in attrs.items()],
        "status": status or {},
        "events": events or [],
    }


def traces(*spans: dict[str, Any]) -> dict[str, Any]:
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": [{"key": "service.name", "value": value("svc")}]},
                "scopeSpans": [{"scope": {"name": "test"}, "spans": list(spans)}],
            }
        ]
    }


def write(tmp: Path, doc: Any, name: str = "t.otlp.json") -> Path:
    p = tmp / name
    p.write_bytes(orjson.dumps(doc))
    return p
