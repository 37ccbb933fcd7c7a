"""Langfuse observations as the Langfuse SDK (v3 and later) records them: OpenTelemetry spans
with `langfuse.observation.type` (`generation`, `tool`, `span`, `agent`, …),
`langfuse.observation.input` / `.output` (JSON text), `.level` / `.status_message` and the
trace's `session.id`.

A `generation` is a model call: its input is the request Langfuse's OpenAI wrapper saw
(`{"messages": [...], "tools": [...]}`, or a bare message list), its output the assistant
message (or a completion's `choices`); both go through the messages parser like any OpenAI
conversation. A `tool` observation is a tool execution: input = the arguments, output = the
result, named by the observation; Langfuse has no call-id field, so the id is read from the
metadata key `tool_call_id` when the application set it (and otherwise left unknown: the
call is then matched by name and time, never by a guessed id).
"""

from __future__ import annotations

from typing import Any

from toolcall_cli.sources.otel.exchange import (
    Exchange,
    Located,
    ToolRun,
    as_json,
    as_obj,
    as_text,
    ident,
    span_fields,
)
from toolcall_cli.sources.otel.map_genai import span_error
from toolcall_cli.sources.otel.model import Span

_TYPE = "langfuse.observation.type"
_IN, _OUT = "langfuse.observation.input", "langfuse.observation.output"
_CALL_ID = "langfuse.observation.metadata.tool_call_id"


def observation_type(span: Span) -> str | None:
    """`generation`, `tool`, `span`, … (lower case), or None for a span Langfuse did not mark."""
    t = span.attrs.get(_TYPE)
    return t.lower() if isinstance(t, str) else None


def _messages(value: Any, pointer: str) -> list[Located]:
    """OpenAI chat messages inside a generation's input or output, each with its pointer."""
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        return _messages(value["messages"], f"{pointer}/messages")
    if isinstance(value, dict) and isinstance(value.get("choices"), list):
        out = []
        for i, c in enumerate(value["choices"]):
            msg = as_obj(c).get("message")
            if isinstance(msg, dict):
                out.append((msg, f"{pointer}/choices/{i}/message"))
        return out
    if isinstance(value, dict) and "role" in value:
        return [(value, pointer)]
    if isinstance(value, list):
        return [(m, f"{pointer}/{i}") for i, m in enumerate(value) if isinstance(m, dict)]
    if isinstance(value, str) and value:
        return [({"role": "assistant", "content": value}, pointer)]
    return []


def _error(span: Span) -> tuple[str | None, str | None]:
    """The span's own error, else a Langfuse `ERROR` level with its status message."""
    err, etype = span_error(span)
    a = span.attrs
    if err is None and etype is None and a.get("langfuse.observation.level") == "ERROR":
        return as_text(a.get("langfuse.observation.status_message")) or "error", None
    return err, etype


def exchange(span: Span, session: str | None) -> Exchange:
    """The model call of a `generation` observation."""
    a = span.attrs
    ex = Exchange(
        "langfuse",
        **span_fields(span, session),
        attrs={"model": a.get("langfuse.observation.model.name")},
    )
    raw_in, raw_out = as_json(a.get(_IN)), as_json(a.get(_OUT))
    if raw_out is None and isinstance(a.get(_OUT), str):
        raw_out = a[_OUT]  # a plain-text completion
    ex.inputs = _messages(raw_in, span.pointer(_IN))
    ex.outputs = [(m, p) for m, p in _messages(raw_out, span.pointer(_OUT)) if m.get("role")]
    tools = as_obj(raw_in).get("tools")
    if isinstance(tools, list) and tools:
        ex.tools = (tools, f"{span.pointer(_IN)}/tools")
    if (
        isinstance(raw_out, dict)
        and isinstance(raw_out.get("choices"), list)
        and raw_out["choices"]
    ):
        finish = as_obj(raw_out["choices"][0]).get("finish_reason")
        ex.finish = finish if isinstance(finish, str) else None
    elif any(m.get("tool_calls") for m, _ in ex.outputs):
        ex.finish = "tool_calls"
    ex.error, ex.error_type = _error(span)
    return ex


def tool_run(span: Span, session: str | None) -> ToolRun:
    """A `tool` observation: input = the arguments, output = the result."""
    a = span.attrs
    err, etype = _error(span)
    args, result = as_text(a.get(_IN)), as_text(a.get(_OUT))
    return ToolRun(
        "langfuse",
        **span_fields(span, session),
        tool=span.name or None,
        call_id=ident(as_json(a.get(_CALL_ID))) or ident(a.get(_CALL_ID)),
        args=args,
        result=result,
        status="error" if err or etype or span.status == "error" else "ok",
        error=err,
        error_type=etype,
        attrs={"content_captured": args is not None or result is not None},
    )
