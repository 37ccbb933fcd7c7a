"""GenAI semantic conventions, deprecated: flattened `gen_ai.prompt.N.*` / `gen_ai.completion.N.*`
span attributes (OpenLLMetry's shape, `tool_calls.K.{id,name,arguments}`), `gen_ai.system`,
`llm.request.functions.N.*` as the declared tools, and the per-message log events
(`gen_ai.system.message`, `gen_ai.user.message`, `gen_ai.assistant.message`,
`gen_ai.tool.message`, `gen_ai.choice`), which are grouped by the span they belong to.
"""

from __future__ import annotations

from typing import Any, Final

from toolcall_cli.sources.otel.exchange import (
    Exchange,
    as_json,
    as_obj,
    as_text,
    ident,
    span_fields,
    tool_call,
)
from toolcall_cli.sources.otel.flat import indexed, items
from toolcall_cli.sources.otel.map_genai import span_error
from toolcall_cli.sources.otel.model import Log, Span

_PROMPT, _COMPLETION = "gen_ai.prompt.", "gen_ai.completion."
MESSAGE_EVENTS: Final = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
CHOICE_EVENT: Final = "gen_ai.choice"


def is_legacy(span: Span) -> bool:
    """A span carrying flattened prompt/completion attributes."""
    return any(k.startswith((_PROMPT, _COMPLETION)) for k in span.attrs)


def _message(d: dict[str, Any], role: str | None = None) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": role or d.get("role"), "content": as_text(d.get("content"))}
    calls = []
    for c in items(d.get("tool_calls")):
        if isinstance(c, dict):  # flattened {id, name, arguments} or an event's OpenAI shape
            fn = as_obj(c.get("function")) or c
            calls.append(tool_call(c.get("id"), fn.get("name"), fn.get("arguments")))
    if calls:
        msg["tool_calls"] = calls
    if d.get("tool_call_id") is not None:
        msg["tool_call_id"] = ident(d["tool_call_id"])
    return msg


def exchange(span: Span, session: str | None) -> Exchange:
    """The model call of a span in the flattened legacy shape."""
    a = span.attrs
    ex = Exchange(
        "genai-legacy",
        **span_fields(span, session),
        attrs={
            "provider": a.get("gen_ai.system"),
            "model": a.get("gen_ai.response.model") or a.get("gen_ai.request.model"),
        },
    )
    for n, d, key in indexed(a, _PROMPT):
        content = f"{_PROMPT}{n}.content"  # quote the text, not the role
        ex.inputs.append((_message(d), span.pointer(content if content in a else key)))
    for n, d, key in indexed(a, _COMPLETION):
        content = f"{_COMPLETION}{n}.content"
        msg = _message(d, d.get("role") or "assistant")
        ex.outputs.append((msg, span.pointer(content if content in a else key)))
        if isinstance(d.get("finish_reason"), str):
            ex.finish = d["finish_reason"]
    tools = [
        {
            "type": "function",
            "function": {
                k: (as_json(v) if k == "parameters" else v)
                for k, v in d.items()
                if k in ("name", "description", "parameters")
            },
        }
        for _, d, _ in indexed(a, "llm.request.functions.")
    ]
    if tools:
        first = next(k for k in a if k.startswith("llm.request.functions."))
        ex.tools = (tools, span.pointer(first))
    ex.error, ex.error_type = span_error(span)
    return ex


def log_exchanges(logs: list[Log], sessions: dict[str, str]) -> list[Exchange]:
    """The per-message log events as one exchange per (trace, span) they were emitted in."""
    groups: dict[tuple[Any, Any], Exchange] = {}
    for r in logs:
        role = MESSAGE_EVENTS.get(r.event_name or "")
        if role is None and r.event_name != CHOICE_EVENT:
            continue
        key = (r.trace_id, r.span_id) if r.span_id else (r.trace_id, r.origin)
        ex = groups.get(key)
        if ex is None:
            ex = groups[key] = Exchange(
                "genai-events",
                r.trace_id,
                r.span_id,
                sessions.get(r.trace_id or ""),
                r.time_ns,
                r.time_ns,
                r.origin,
                attrs={"provider": r.attrs.get("gen_ai.system")},
            )
        if r.time_ns is not None:
            ex.start_ns = min(ex.start_ns or r.time_ns, r.time_ns)
            ex.end_ns = max(ex.end_ns or r.time_ns, r.time_ns)
        body = r.body if isinstance(r.body, dict) else {"content": r.body}
        if role is not None:
            d = dict(body)
            if role == "tool" and "tool_call_id" not in d:
                d["tool_call_id"] = d.get("id")
            ex.inputs.append((_message(d, role), f"{r.origin}/body"))
        else:
            msg = as_obj(body.get("message"))
            ex.outputs.append((_message(msg, "assistant"), f"{r.origin}/body"))
            if isinstance(body.get("finish_reason"), str):
                ex.finish = body["finish_reason"]
    return list(groups.values())
