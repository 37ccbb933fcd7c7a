"""Other providers' message shapes: OpenAI Responses-API items and Gemini `contents`.

Responses API: `input`/`output` lists of items (`message`, `function_call`,
`function_call_output`, `reasoning`, `additional_tools`). Gemini:
`contents[]`/`candidates[].content` with `parts` (`text`, `functionCall`, `functionResponse`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from toolcall_cli.sources.messages.rows import (
    Conv,
    Sink,
    args_text,
    as_id,
    as_str,
    content_text,
    ptr,
    response_entries,
    safe_dump,
    to_ts,
)

SKIP_ITEMS = frozenset(
    {
        "reasoning",
        "web_search_call",
        "file_search_call",
        "image_generation_call",
        "tool_search_call",
        "tool_search_output",
        "compaction",
    }
)


def emit_item(
    sink: Sink,
    conv: Conv,
    item: dict[str, Any],
    origin: str,
    idx: int,
    *,
    ts: datetime | None = None,
) -> None:
    """One Responses-API item (`input[]` or `output[]`)."""
    itype = as_str(item.get("type"))
    if itype in ("function_call", "custom_tool_call", "mcp_call"):
        same_turn = conv.last_kind == "tool_call" and conv.in_block
        if not same_turn:
            conv.turn += 1
        raw = item.get("arguments", item.get("input"))
        has_args = "arguments" in item or "input" in item
        args, args_type = args_text(raw) if has_args else (None, None)
        call_id = as_id(item.get("call_id", item.get("id")))
        name = item.get("name") if isinstance(item.get("name"), str) else as_id(item.get("name"))
        sink.add(
            conv,
            "tool_call",
            origin,
            ts=ts,
            tool=name,
            tool_call_id=call_id,
            args=args,
            attrs={
                "msg_index": idx,
                "call_index": 0,
                "turn": conv.turn,
                "protocol": "openai",
                "api": "responses",
                "args_type": args_type,
                "item_status": item.get("status") if isinstance(item.get("status"), str) else None,
                # a custom tool takes free text (a patch, a grammar's output), not JSON
                "input_format": "freeform" if itype == "custom_tool_call" else None,
            },
        )
        if same_turn:
            conv.block_ids.update([call_id] if call_id else [])
            conv.block_names.update([name] if name else [])
        else:
            conv.open_block([call_id], [name])
    elif itype in ("function_call_output", "custom_tool_call_output"):
        call_id = as_id(item.get("call_id"))
        text = content_text(item.get("output"))
        sink.add(
            conv,
            "tool_result",
            ptr(origin, "output"),
            ts=ts,
            tool_call_id=call_id,
            detail=text,
            size=len(text) if text is not None else None,
            attrs={
                "msg_index": idx,
                "follows_call": conv.follows(call_id, None),
                "api": "responses",
            },
        )
    elif itype == "message":
        role = as_str(item.get("role")) or "assistant"
        kind = {"assistant": "assistant_text", "user": "user"}.get(role, "system")
        if kind == "assistant_text":
            conv.turn += 1
        conv.close_block()
        text = content_text(item.get("content"))
        sink.add(
            conv,
            kind,
            ptr(origin, "content"),
            ts=ts,
            detail=text,
            attrs={"msg_index": idx, "role": role, "api": "responses"},
        )
    elif itype == "additional_tools":
        emit_added_tools(sink, conv, item, origin, idx, ts=ts)
    elif itype in SKIP_ITEMS:
        return
    else:
        sink.unparsed(conv, origin, item, f"unknown item type {str(item.get('type'))[:40]!r}")


def emit_added_tools(
    sink: Sink,
    conv: Conv,
    item: dict[str, Any],
    origin: str,
    idx: int,
    *,
    ts: datetime | None = None,
) -> None:
    """A Responses `additional_tools` input item (`{"type": "additional_tools", "role":
    "developer", "tools": [...]}`): tools added to the session mid-conversation (a capability
    or tool search loaded them), declared from here on like the request's `tools`. It is not
    a message the model reads, so it neither closes the assistant's call block nor becomes an
    empty developer turn."""
    tools = item.get("tools")
    if tools is None or tools == []:
        return
    if not isinstance(tools, list) or safe_dump(tools) is None:
        sink.unparsed(conv, origin, item, "additional_tools: tools is not a list of definitions")
        return
    named = (t.get("name") for t in tools if isinstance(t, dict))
    names = [n for n in named if isinstance(n, str)]
    listed = f": {', '.join(names)}" if names else ""
    sink.add(
        conv,
        "system",
        ptr(origin, "tools"),
        ts=ts,
        detail=f"tools added{listed}",
        attrs={
            "tools": tools,
            "msg_index": idx,
            "role": as_str(item.get("role")),
            "api": "responses",
        },
    )


def emit_output(
    sink: Sink,
    conv: Conv,
    body: dict[str, Any],
    origin: str,
    idx: int,
    *,
    ts: datetime | None = None,
) -> list[Any]:
    """A Responses-API response body: its `output` items; returns the items emitted."""
    ts = to_ts(body.get("created_at")) or ts
    for k, item in response_entries(sink, conv, body, origin, "output", "output item"):
        # An output item with a role is a message item that may omit its `type`.
        shaped = {**item, "type": "message"} if "role" in item else item
        emit_item(sink, conv, shaped, ptr(origin, "output", k), idx + k, ts=ts)
    out = body.get("output")
    return list(out) if isinstance(out, list) else []


def emit_gemini(
    sink: Sink,
    conv: Conv,
    content: Any,
    origin: str,
    idx: int,
    *,
    ts: datetime | None = None,
    finish_reason: str | None = None,
) -> None:
    """One Gemini `Content` (`{"role": "user"|"model", "parts": [...]}`)."""
    if not isinstance(content, dict) or not isinstance(content.get("parts"), list):
        sink.unparsed(conv, origin, content, "Gemini content has no parts list")
        return
    role = content.get("role") if isinstance(content.get("role"), str) else "model"
    model = role == "model"
    if model:
        conv.turn += 1
    names: list[str | None] = []
    had_result = False
    for k, part in enumerate(content["parts"]):
        where = ptr(origin, "parts", k)
        if not isinstance(part, dict):
            sink.unparsed(conv, where, part, "part is not an object")
            continue
        if "functionCall" in part and isinstance(part["functionCall"], dict):
            fc = part["functionCall"]
            args, args_type = args_text(fc.get("args")) if "args" in fc else (None, None)
            name = fc.get("name") if isinstance(fc.get("name"), str) else None
            sink.add(
                conv,
                "tool_call",
                ptr(where, "functionCall"),
                ts=ts,
                tool=name,
                tool_call_id=as_id(fc.get("id")),
                args=args,
                attrs={
                    "msg_index": idx,
                    "call_index": len(names),
                    "turn": conv.turn,
                    "finish_reason": finish_reason,
                    "protocol": "gemini",
                    "args_type": args_type if args_type != "object" else None,
                },
            )
            names.append(name)
        elif "functionResponse" in part and isinstance(part["functionResponse"], dict):
            had_result = True
            fr = part["functionResponse"]
            name = fr.get("name") if isinstance(fr.get("name"), str) else None
            text = safe_dump(fr.get("response"))
            sink.add(
                conv,
                "tool_result",
                ptr(where, "functionResponse"),
                ts=ts,
                tool=name,
                tool_call_id=as_id(fr.get("id")),
                detail=text,
                size=len(text) if text is not None else None,
                attrs={"msg_index": idx, "follows_call": conv.follows(None, name)},
            )
        elif isinstance(part.get("text"), str):
            if part.get("thought") is True:
                continue
            kind = "assistant_text" if model else "user"
            sink.add(
                conv,
                kind,
                ptr(where, "text"),
                ts=ts,
                detail=part["text"],
                attrs={"msg_index": idx, "finish_reason": finish_reason if model else None},
            )
    if names:
        conv.open_block([None] * len(names), names)
    elif not had_result:
        conv.close_block()


def emit_candidates(
    sink: Sink,
    conv: Conv,
    body: dict[str, Any],
    origin: str,
    idx: int,
    *,
    ts: datetime | None = None,
) -> list[Any]:
    """A Gemini generateContent response: each candidate's content."""
    out: list[Any] = []
    for k, c in response_entries(sink, conv, body, origin, "candidates", "candidate"):
        fr = c.get("finishReason")
        emit_gemini(
            sink,
            conv,
            c.get("content"),
            ptr(origin, "candidates", k, "content"),
            idx,
            ts=ts,
            finish_reason=fr if isinstance(fr, str) else None,
        )
        out.append(c.get("content"))
    return out
