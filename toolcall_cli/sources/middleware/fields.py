"""The middleware field-alias table and its column-wise resolution.

Whatever the line format (JSON, logfmt, text key=value, a user regex), parsed keys arrive as
columns by key; `resolve` picks the first present alias per canonical field and keeps the rest
for `attrs`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.sources._shared.textlog import as_string, attr_kind

#: canonical field → accepted keys, first wins (DESIGN §2 plus common spellings).
ALIASES: dict[str, tuple[str, ...]] = {
    "ts": ("ts", "time", "timestamp", "@timestamp", "datetime", "date"),
    "trace_id": ("trace_id", "traceId", "trace", "traceID", "x_trace_id"),
    "session_id": ("session_id", "sessionId", "session", "conversation_id"),
    "tool_call_id": ("tool_call_id", "call_id", "toolCallId", "callId", "call"),
    "tool": ("tool", "function", "name", "tool_name", "toolName"),
    "instance": ("instance", "host", "pod", "hostname", "node"),
    "level": ("level", "severity", "lvl", "loglevel"),
    "msg": ("msg", "message", "detail", "text"),
    "event": ("event", "event_type", "type", "action"),
    "status": ("status", "outcome", "result"),
    "duration_ms": ("duration_ms", "latency_ms", "elapsed_ms"),
    "reason": ("reason", "error", "err"),
    "rule": ("rule", "stage", "validator"),
    "request_id": ("request_id", "requestId", "req_id"),
    "args": ("arguments", "args"),
    "http_status": ("http_status", "status_code"),
    "size": ("size", "bytes", "content_length"),
}

#: keys whose presence marks a JSON/logfmt line as a middleware record (for sniffing).
MARKER_KEYS = frozenset(
    {
        "tool_call_id",
        "call_id",
        "toolCallId",
        "trace_id",
        "traceId",
        "session_id",
        "sessionId",
        "tool",
    }
)


_NAME_IN_JSON = r'^\{.*?"name"\s*:\s*"(?P<x>(?:[^"\\]|\\.)*)"'


@dataclass(slots=True)
class Fields:
    """Resolved canonical columns (text or numbers) plus the leftover keys for attrs."""

    n: int
    columns: dict[str, pa.Array] = field(default_factory=dict)
    extras: list[tuple[str, pa.Array, str]] = field(default_factory=list)
    call_id: pa.Array | None = None  # the raw `call_id` key, kept for mw_response attrs

    def get(self, name: str) -> pa.Array:
        """The canonical column, or all-null text."""
        arr = self.columns.get(name)
        return arr if arr is not None else pa.nulls(self.n, pa.large_string())


def _scalar_text(arr: pa.Array) -> pa.Array | None:
    t = arr.type
    if pa.types.is_struct(t) or pa.types.is_list(t) or pa.types.is_large_list(t):
        return None
    return as_string(arr)


def resolve(
    columns: dict[str, pa.Array], n: int, *, json_valued: frozenset[str] = frozenset()
) -> Fields:
    """Map parsed key columns to canonical fields; unknown keys become attrs extras."""
    out = Fields(n=n)
    used: set[str] = set()
    for canon, keys in ALIASES.items():
        picked: list[pa.Array] = []
        for key in keys:
            arr = columns.get(key)
            if arr is None:
                continue
            if key in json_valued:  # JSON text of an object: only {"function": {"name": ...}}
                if canon == "tool":
                    name = pc.extract_regex(arr, _NAME_IN_JSON).flatten()[0]
                    name = pc.if_else(pc.equal(name, ""), None, name)
                    picked.append(name.cast(pa.large_string()))
                continue  # the object itself stays in attrs
            if canon == "tool" and pa.types.is_struct(arr.type):  # {"function": {"name": ...}}
                names = [f.name for f in arr.type]
                if "name" in names:
                    picked.append(as_string(pc.struct_field(arr, "name")))
                continue  # the object itself stays in attrs
            text = _scalar_text(arr) if canon not in ("duration_ms",) else arr
            if text is None:
                continue
            picked.append(text)
            used.add(key)
        if not picked:
            continue
        if canon == "duration_ms":
            nums = [_to_float(a) for a in picked]
            out.columns[canon] = pc.coalesce(*nums) if len(nums) > 1 else nums[0]
        else:
            out.columns[canon] = pc.coalesce(*picked) if len(picked) > 1 else picked[0]
    if "call_id" in columns and _scalar_text(columns["call_id"]) is not None:
        out.call_id = as_string(columns["call_id"])
    for key in sorted(columns):
        if key in used:
            continue
        arr = columns[key]
        out.extras.append((key, arr, attr_kind(arr, json_text=key in json_valued)))
    return out


def _to_float(arr: pa.Array) -> pa.Array:
    if pa.types.is_integer(arr.type) or pa.types.is_floating(arr.type):
        return pc.cast(arr, pa.float64())
    text = as_string(arr)
    ok = pc.match_substring_regex(text, r"^\s*-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\s*$")
    return pc.cast(
        pc.utf8_trim_whitespace(pc.if_else(ok, text, pa.scalar(None, pa.large_string()))),
        pa.float64(),
    )
