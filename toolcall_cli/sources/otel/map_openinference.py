"""OpenInference (Arize Phoenix): `openinference.span.kind`, `llm.input_messages.N.message.*` and
`llm.output_messages.N.message.*` (`content`, `contents.K.message_content.text`,
`tool_calls.K.tool_call.{id,function.name,function.arguments}`, role `tool` with
`tool_call_id`), `llm.tools.N.tool.json_schema` (declared tools) and `session.id`; TOOL spans
(`tool.name`, `tool.id`, `input.value`, `output.value`) are tool executions (`fast_rows`).
"""

from __future__ import annotations

from typing import Any

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
from toolcall_cli.sources.otel.model import Span

_IN, _OUT = "llm.input_messages.", "llm.output_messages."


def span_kind(span: Span) -> str | None:
    """`LLM`, `TOOL`, `CHAIN`, … (upper case), or None for a span OpenInference did not mark."""
    k = span.attrs.get("openinference.span.kind")
    return k.upper() if isinstance(k, str) else None


def is_llm(span: Span) -> bool:
    """An LLM span (or one carrying OpenInference messages)."""
    return span_kind(span) == "LLM" or any(k.startswith((_IN, _OUT)) for k in span.attrs)


def _message(d: dict[str, Any]) -> dict[str, Any]:
    m = as_obj(d.get("message")) or d
    content = m.get("content")
    if content is None and m.get("contents") is not None:
        texts = [
            c.get("message_content", {}).get("text")
            for c in items(m.get("contents"))
            if isinstance(c, dict) and isinstance(c.get("message_content"), dict)
        ]
        content = "\n".join(t for t in texts if isinstance(t, str)) or None
    msg: dict[str, Any] = {"role": m.get("role"), "content": as_text(content)}
    calls = []
    for c in items(m.get("tool_calls")):
        tc = c.get("tool_call") if isinstance(c, dict) else None
        if isinstance(tc, dict):
            fn = as_obj(tc.get("function"))
            calls.append(tool_call(tc.get("id"), fn.get("name"), fn.get("arguments")))
    if calls:
        msg["tool_calls"] = calls
    if m.get("tool_call_id") is not None:
        msg["tool_call_id"] = ident(m["tool_call_id"])
    if isinstance(m.get("name"), str):
        msg["name"] = m["name"]
    return msg


def exchange(span: Span, session: str | None) -> Exchange:
    """The model call of an LLM span."""
    a = span.attrs
    ex = Exchange(
        "openinference",
        **span_fields(span, session),
        attrs={
            "provider": a.get("llm.provider") or a.get("llm.system"),
            "model": a.get("llm.model_name"),
        },
    )
    for prefix, into in ((_IN, ex.inputs), (_OUT, ex.outputs)):
        for n, d, key in indexed(a, prefix):
            msg = _message(d)
            if msg.get("tool_calls"):  # each call points at its own id attribute
                ks = sorted(
                    (k for k in as_obj(as_obj(d.get("message")).get("tool_calls"))), key=int
                )
                msg["__call_origins__"] = {
                    i: span.pointer(f"{prefix}{n}.message.tool_calls.{k}.tool_call.id")
                    for i, k in enumerate(ks)
                }
            content = f"{prefix}{n}.message.content"  # quote the text, not the role
            into.append((msg, span.pointer(content if content in a else key)))
    if isinstance(a.get("llm.finish_reason"), str):
        ex.finish = a["llm.finish_reason"]
    tools = []
    first = None
    for _, d, key in indexed(a, "llm.tools."):
        schema = as_json((d.get("tool") or {}).get("json_schema"))
        if isinstance(schema, dict):
            tools.append(schema)
            first = first or key
    if tools and first:
        ex.tools = (tools, span.pointer(first))
    ex.error, ex.error_type = span_error(span)
    return ex
