"""Anthropic Messages content blocks (`text`, `tool_use`, `tool_result`, ...) → message events.

`tool_use.input` is an object by protocol, so it is dumped to JSON text without an
`args_type` mark; a non-object input (a wrong type) is kept and marked.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from toolcall_cli.sources.messages import text_protocols
from toolcall_cli.sources.messages.rows import (
    Conv,
    Sink,
    args_text,
    as_id,
    as_str,
    content_text,
    ptr,
)

CALL_BLOCKS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})
RESULT_BLOCKS = frozenset(
    {
        "tool_result",
        "mcp_tool_result",
        "web_search_tool_result",
        "tool_search_tool_result",
        "code_execution_tool_result",
    }
)
SKIP_BLOCKS = frozenset({"thinking", "redacted_thinking", "image", "document"})
BLOCK_TYPES = CALL_BLOCKS | RESULT_BLOCKS | SKIP_BLOCKS | {"text"}


def has_blocks(content: Any) -> bool:
    """True when *content* is a list of Anthropic blocks (any tool/thinking block present)."""
    if not isinstance(content, list):
        return False
    return any(
        isinstance(b, dict) and as_str(b.get("type")) in BLOCK_TYPES - {"text"} for b in content
    )


def is_response(body: Any) -> bool:
    """An Anthropic Messages response body (`{"type": "message", "content": [...]}`)."""
    return isinstance(body, dict) and body.get("type") == "message" and "content" in body


def emit_response(
    sink: Sink,
    conv: Conv,
    body: dict[str, Any],
    origin: str,
    idx: int,
    *,
    ts: datetime | None = None,
) -> None:
    """A Messages API response: the assistant message with its stop_reason."""
    stop = body.get("stop_reason")
    role = as_str(body.get("role")) or "assistant"
    content = body.get("content")
    if isinstance(content, list):
        emit_blocks(
            sink,
            conv,
            role,
            content,
            origin,
            idx,
            ts=ts,
            finish_reason=stop if isinstance(stop, str) else None,
        )
    else:
        sink.unparsed(conv, ptr(origin, "content"), content, "response content is not a list")


def emit_system(sink: Sink, conv: Conv, system: Any, origin: str) -> None:
    """A request's top-level `system` prompt (string or text blocks), once per conversation."""
    text = content_text(system)
    if text is None or text == conv.system_sig:
        return
    conv.system_sig = text
    sink.add(conv, "system", origin, detail=text, attrs={"role": "system", "top_level": True})


def emit_blocks(
    sink: Sink,
    conv: Conv,
    role: str,
    blocks: list[Any],
    origin: str,
    idx: int,
    *,
    ts: datetime | None = None,
    finish_reason: str | None = None,
) -> None:
    """Every block of one message, in order."""
    assistant = role in ("assistant", "model")
    base: dict[str, Any] = {"msg_index": idx}
    if assistant:
        conv.turn += 1
        base.update(turn=conv.turn, finish_reason=finish_reason)
    ids: list[str | None] = []
    names: list[str | None] = []
    had_result = False
    for k, b in enumerate(blocks):
        where = ptr(origin, "content", k)
        if isinstance(b, str):
            b = {"type": "text", "text": b}
        if not isinstance(b, dict):
            sink.unparsed(conv, where, b, "content block is not an object")
            continue
        btype = as_str(b.get("type"))
        if btype == "text" or (btype is None and isinstance(b.get("text"), str)):
            text = b.get("text") if isinstance(b.get("text"), str) else content_text(b.get("text"))
            kind = "assistant_text" if assistant else ("system" if role == "system" else "user")
            sink.add(conv, kind, where, ts=ts, detail=text, attrs={**base, "block_index": k})
            if assistant and text:
                for tc in text_protocols.extract_calls(text):
                    sink.add(
                        conv,
                        "tool_call",
                        where,
                        ts=ts,
                        tool=tc.tool,
                        tool_call_id=tc.call_id,
                        args=tc.args,
                        attrs={
                            **base,
                            "call_index": len(ids),
                            "protocol": tc.protocol,
                            "span": list(tc.span),
                            **tc.attrs,
                        },
                    )
                    ids.append(tc.call_id)
                    names.append(tc.tool)
        elif btype in CALL_BLOCKS:
            name = b.get("name") if isinstance(b.get("name"), str) else as_id(b.get("name"))
            inp = b.get("input")
            if isinstance(inp, dict):
                args, args_type = args_text(inp)
                args_type = None if args is not None else args_type
            else:
                args, args_type = args_text(inp)
                args_type = args_type or "string"
            sink.add(
                conv,
                "tool_call",
                where,
                ts=ts,
                tool=name,
                tool_call_id=as_id(b.get("id")),
                args=args,
                attrs={
                    **base,
                    "call_index": len(ids),
                    "protocol": "anthropic",
                    "args_type": args_type,
                    "block_type": btype,
                    "block_index": k,
                },
            )
            ids.append(as_id(b.get("id")))
            names.append(name)
        elif btype in RESULT_BLOCKS:
            had_result = True
            call_id = as_id(b.get("tool_use_id", b.get("toolUseId")))
            text = content_text(b.get("content"))
            is_error = b.get("is_error") if isinstance(b.get("is_error"), bool) else None
            sink.add(
                conv,
                "tool_result",
                where,
                ts=ts,
                tool_call_id=call_id,
                detail=text,
                size=len(text) if text is not None else None,
                status="error" if is_error else None,
                attrs={
                    **base,
                    "is_error": is_error,
                    "block_type": btype,
                    "follows_call": conv.follows(call_id, None),
                    "block_index": k,
                },
            )
        elif btype in SKIP_BLOCKS:
            continue
        else:
            sink.unparsed(conv, where, b, f"unknown content block type {str(b.get('type'))[:40]!r}")
    if names:
        conv.open_block(ids, names)
    elif not had_result:
        conv.close_block()
    if assistant and not blocks:
        sink.add(
            conv,
            "assistant_text",
            ptr(origin, "content"),
            ts=ts,
            detail="",
            attrs={**base, "empty": True},
        )
