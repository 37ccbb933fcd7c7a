"""What the mappers produce: model exchanges (the conversation) and tool executions.

An :class:`Exchange` is one model call seen by a convention: the messages sent (OpenAI chat
shape, each with its evidence pointer), the messages returned, the finish reason, the tools
declared and the provider error, if any. A :class:`ToolRun` is one tool execution (an
`execute_tool` span, an OpenInference TOOL span, an MCP `tools/call`, an HTTP call to a tool).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from toolcall_cli.sources.otel.model import Span

#: (message in OpenAI chat shape, evidence pointer)
Located = tuple[dict[str, Any], str]


@dataclass
class Exchange:
    """One model call."""

    convention: str
    trace_id: str | None
    span_id: str | None
    session: str | None
    start_ns: int | None
    end_ns: int | None
    origin: str
    inputs: list[Located] = field(default_factory=list)
    outputs: list[Located] = field(default_factory=list)
    finish: str | None = None
    tools: tuple[list[Any], str] | None = None
    error: str | None = None
    error_type: str | None = None
    attrs: dict[str, Any] = field(default_factory=dict)

    @property
    def captured(self) -> bool:
        """True when the convention recorded message content."""
        return bool(self.inputs or self.outputs)


@dataclass
class ToolRun:
    """One tool execution."""

    convention: str
    trace_id: str | None
    span_id: str | None
    session: str | None
    start_ns: int | None
    end_ns: int | None
    origin: str
    tool: str | None
    call_id: str | None
    args: str | None
    result: str | None
    status: str  # ok | error | unset
    error: str | None = None
    error_type: str | None = None
    request_id: str | None = None
    http_status: int | None = None
    attrs: dict[str, Any] = field(default_factory=dict)


def span_fields(span: Span, session: str | None) -> dict[str, Any]:
    """The fields every exchange and tool run takes from its span."""
    return {
        "trace_id": span.trace_id,
        "span_id": span.span_id,
        "session": session,
        "start_ns": span.start_ns,
        "end_ns": span.end_ns,
        "origin": span.origin,
    }


def as_text(v: Any) -> str | None:
    """A value recorded as text: strings verbatim, anything else as compact JSON."""
    if v is None or isinstance(v, str):
        return v
    try:
        return orjson.dumps(v).decode()
    except (TypeError, orjson.JSONEncodeError):
        return str(v)


def as_json(v: Any) -> Any:
    """A JSON-valued attribute (text or already structured) as Python; None when unreadable."""
    if isinstance(v, str):
        try:
            return orjson.loads(v)
        except orjson.JSONDecodeError:
            return None
    return v


def as_obj(v: Any) -> dict[str, Any]:
    """*v* when it is an object, else an empty one (wrong shapes read as absent)."""
    return v if isinstance(v, dict) else {}


def ident(v: Any) -> str | None:
    """An id as text (numbers too); None for empty or other values."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        return str(v)
    return v if isinstance(v, str) and v else None


def tool_call(call_id: Any, name: Any, arguments: Any) -> dict[str, Any]:
    """An OpenAI `tool_calls` entry. Arguments a convention stored as an object are written as
    compact JSON text (the convention parsed them, the model sent text), marked `args_from`."""
    call: dict[str, Any] = {
        "id": ident(call_id),
        "type": "function",
        "function": {"name": name if isinstance(name, str) else ident(name)},
    }
    if arguments is not None:
        call["function"]["arguments"] = as_text(arguments)
        if not isinstance(arguments, str):
            call["__attrs__"] = {"args_from": "object"}
    return call


def first_exception(events: list[tuple[str, int | None, dict[str, Any]]]) -> dict[str, Any] | None:
    """The attributes of a span's first `exception` event."""
    for name, _, attrs in events:
        if name == "exception":
            return attrs
    return None
