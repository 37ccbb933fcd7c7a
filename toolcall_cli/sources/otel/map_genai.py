"""GenAI semantic conventions, current: `gen_ai.input.messages` / `gen_ai.output.messages` parts
(`text`, `tool_call`, `tool_call_response`, `finish_reason`), `gen_ai.system_instructions`,
`gen_ai.tool.definitions` and `error.type`. Messages become OpenAI chat messages so the messages
adapter's emitters (and every rule) read them unchanged; `execute_tool` spans are tool
executions (`fast_rows`).
"""

from __future__ import annotations

from typing import Any, Final

from toolcall_cli.sources.messages.rows import as_str
from toolcall_cli.sources.otel.exchange import (
    Exchange,
    as_json,
    as_text,
    first_exception,
    ident,
    span_fields,
    tool_call,
)
from toolcall_cli.sources.otel.model import Span

CHAT_OPS: Final = frozenset({"chat", "text_completion", "generate_content"})
_IN, _OUT = "gen_ai.input.messages", "gen_ai.output.messages"


def span_error(span: Span) -> tuple[str | None, str | None]:
    """(message, type) of a failed span: its exception event, else its status and `error.type`."""
    exc = first_exception(span.events) or {}
    etype = span.attrs.get("error.type") or exc.get("exception.type")
    msg = exc.get("exception.message") or span.status_message
    if span.status != "error" and not exc and not etype:
        return None, None
    return (as_text(msg) if msg is not None else None), (as_text(etype) if etype else None)


def is_chat(span: Span) -> bool:
    """A model call in the current GenAI conventions."""
    a = span.attrs
    return _IN in a or _OUT in a or as_str(a.get("gen_ai.operation.name")) in CHAT_OPS


def exchange(span: Span, session: str | None) -> Exchange:
    """The model call of a chat span (no messages when content capture was off)."""
    a = span.attrs
    ex = Exchange(
        "genai",
        **span_fields(span, session),
        attrs=_meta(a),
    )
    si = as_json(a.get("gen_ai.system_instructions"))
    if si is not None:
        ex.inputs.append(
            (
                {"role": "system", "content": _parts_text(si)},
                span.pointer("gen_ai.system_instructions"),
            )
        )
    for key, into in ((_IN, ex.inputs), (_OUT, ex.outputs)):
        msgs = as_json(a.get(key))
        for j, m in enumerate(msgs if isinstance(msgs, list) else ()):
            at = f"{span.pointer(key)}/{j}"
            into.extend((msg, at) for msg in to_openai(m, at))
            if key == _OUT and isinstance(m, dict) and isinstance(m.get("finish_reason"), str):
                ex.finish = m["finish_reason"]
    if ex.finish is None:
        reasons = a.get("gen_ai.response.finish_reasons")
        if isinstance(reasons, list) and reasons and isinstance(reasons[0], str):
            ex.finish = reasons[0]
    tools = as_json(a.get("gen_ai.tool.definitions"))
    if isinstance(tools, list) and tools:
        ex.tools = (tools, span.pointer("gen_ai.tool.definitions"))
    ex.error, ex.error_type = span_error(span)
    return ex


def _meta(a: dict[str, Any]) -> dict[str, Any]:
    return {
        "provider": a.get("gen_ai.provider.name") or a.get("gen_ai.system"),
        "model": a.get("gen_ai.response.model") or a.get("gen_ai.request.model"),
        "response_id": a.get("gen_ai.response.id"),
        "input_tokens": a.get("gen_ai.usage.input_tokens"),
        "output_tokens": a.get("gen_ai.usage.output_tokens"),
    }


def _parts_text(parts: Any) -> str | None:
    if isinstance(parts, str):
        return parts
    texts = [
        p["content"]
        for p in (parts if isinstance(parts, list) else ())
        if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("content"), str)
    ]
    return "\n".join(texts) if texts else None


def to_openai(m: Any, at: str = "") -> list[dict[str, Any]]:
    """One GenAI message (role + parts) as OpenAI chat messages (a tool message per response).

    *at* is the message's pointer: each call keeps the pointer of its own part."""
    if not isinstance(m, dict) or not isinstance(m.get("role"), str):
        return [{"__bad__": m}]  # the emitter records it as unparsed
    role, parts = m["role"], m.get("parts")
    parts = parts if isinstance(parts, list) else []
    calls: list[dict[str, Any]] = []
    where: dict[int, str] = {}
    for i, p in enumerate(parts):
        if isinstance(p, dict) and p.get("type") == "tool_call":
            where[len(calls)] = f"{at}/parts/{i}"
            calls.append(tool_call(p.get("id"), p.get("name"), p.get("arguments")))
    results = [
        {
            "role": "tool",
            "tool_call_id": ident(p.get("id")),
            "content": as_text(p.get("response", p.get("result"))),
        }
        for p in parts
        if isinstance(p, dict) and p.get("type") == "tool_call_response"
    ]
    text = _parts_text(parts)
    if role == "tool" or (results and not calls and text is None):
        return results or [{"role": "tool", "content": text}]
    msg: dict[str, Any] = {"role": role, "content": text}
    if calls:
        msg["tool_calls"] = calls
        if at:
            msg["__call_origins__"] = where  # read by the messages emitter
    return [msg, *results]
