"""OpenAI chat messages (and the legacy `functions` dialect) → message events.

One entry point per shape: :func:`emit_message` (one message of a `messages` array, any
provider; Anthropic block lists and Responses-API items are handed to their modules),
:func:`emit_choices` (a chat-completion response), :func:`emit_tools` (declared tools) and
:func:`emit_error` (a provider error body).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from toolcall_cli.model.jsonio import canonical
from toolcall_cli.sources.messages import anthropic, items, text_protocols
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
from toolcall_cli.sources.provider_bodies import error_parts

SYSTEM_ROLES = frozenset({"system", "developer"})
TOOL_ROLES = frozenset({"tool", "function", "ipython"})
ASSISTANT_ROLES = frozenset({"assistant", "model"})


def emit_message(
    sink: Sink,
    conv: Conv,
    msg: Any,
    origin: str,
    idx: int,
    *,
    ts: datetime | None = None,
    finish_reason: str | None = None,
) -> None:
    """Emit the events of one message; a malformed message becomes one `unparsed` row."""
    if not isinstance(msg, dict):
        sink.unparsed(conv, origin, msg, "message is not an object")
        return
    if ("role" not in msg and isinstance(msg.get("type"), str)) or msg.get(
        "type"
    ) == "additional_tools":  # an item, though it has a role: tools added, not a message
        items.emit_item(sink, conv, msg, origin, idx, ts=ts)
        return
    role = msg.get("role")
    if not isinstance(role, str):
        sink.unparsed(conv, origin, msg, "message role is missing or not a string")
        return
    ts = to_ts(msg.get("timestamp") or msg.get("ts") or msg.get("created_at")) or ts
    content = msg.get("content")
    if isinstance(content, list) and anthropic.has_blocks(content):
        anthropic.emit_blocks(
            sink, conv, role, content, origin, idx, ts=ts, finish_reason=finish_reason
        )
        if role in ASSISTANT_ROLES and ("tool_calls" in msg or "function_call" in msg):
            _emit_calls(sink, conv, msg, origin, idx, ts, finish_reason, with_text=False)
        return
    if (
        role == "user"
        and conv.in_block
        and text_protocols.emit_text_result(sink, conv, msg, origin, idx, ts)
    ):
        return
    if role in SYSTEM_ROLES or role == "user":
        conv.close_block()
        kind = "system" if role in SYSTEM_ROLES else "user"
        sink.add(
            conv,
            kind,
            origin,
            ts=ts,
            detail=content_text(content),
            attrs={"msg_index": idx, "role": role},
        )
    elif role in ASSISTANT_ROLES:
        _emit_calls(sink, conv, msg, origin, idx, ts, finish_reason, with_text=True)
    elif role in TOOL_ROLES:
        _emit_result(sink, conv, msg, origin, idx, ts)
    else:
        sink.unparsed(conv, origin, msg, f"unknown message role {role[:40]!r}")


def _emit_result(
    sink: Sink, conv: Conv, msg: dict[str, Any], origin: str, idx: int, ts: datetime | None
) -> None:
    call_id = as_id(msg.get("tool_call_id"))
    name = msg.get("name") if isinstance(msg.get("name"), str) else None
    text = content_text(msg.get("content"))
    attrs: dict[str, Any] = {
        "msg_index": idx,
        "follows_call": conv.follows(call_id, name),
        "role": msg["role"],
    }
    if msg.get("tool_call_id") is not None and not isinstance(msg.get("tool_call_id"), str):
        attrs["id_type"] = type(msg["tool_call_id"]).__name__
    sink.add(
        conv,
        "tool_result",
        origin,
        ts=ts,
        tool_call_id=call_id,
        tool=name,
        detail=text,
        size=len(text) if text is not None else None,
        attrs=attrs,
    )


def _emit_calls(
    sink: Sink,
    conv: Conv,
    msg: dict[str, Any],
    origin: str,
    idx: int,
    ts: datetime | None,
    finish_reason: str | None,
    *,
    with_text: bool,
) -> None:
    """An assistant message: its text, its `tool_calls` / `function_call`, text-protocol calls."""
    conv.turn += 1
    calls = msg.get("tool_calls")
    legacy = msg.get("function_call")
    text = content_text(msg.get("content")) if with_text else None
    protocol = msg.get("__protocol__") if isinstance(msg.get("__protocol__"), str) else None
    raw_origins = msg.get("__call_origins__")  # set by the stream assembler: {k: origin}
    call_origins: dict[Any, Any] = raw_origins if isinstance(raw_origins, dict) else {}
    base: dict[str, Any] = {"msg_index": idx, "turn": conv.turn, "finish_reason": finish_reason}
    if conv.output_tokens is not None:  # what TR003 weighs against the budget
        base["output_tokens"] = conv.output_tokens
    if conv.max_output_tokens is not None:
        base["max_output_tokens"] = conv.max_output_tokens
    has_calls = (isinstance(calls, list) and bool(calls)) or legacy is not None
    if with_text and (text or not has_calls):
        attrs = dict(base)
        if not text and "reasoning_content" not in msg:
            attrs["empty"] = True
        sink.add(conv, "assistant_text", origin, ts=ts, detail=text, attrs=attrs)
    ids: list[str | None] = []
    names: list[str | None] = []
    if calls is not None and not isinstance(calls, list):
        sink.unparsed(conv, ptr(origin, "tool_calls"), calls, "tool_calls is not a list")
    elif isinstance(calls, list):
        for k, call in enumerate(calls):
            where = as_str(call_origins.get(k)) or ptr(origin, "tool_calls", k)
            got = _emit_one_call(
                sink,
                conv,
                call,
                where,
                ts=ts,
                protocol=protocol or "openai",
                attrs={**base, "call_index": k},
            )
            if got is not None:
                ids.append(got[0])
                names.append(got[1])
    if legacy is not None:
        got = _emit_one_call(
            sink,
            conv,
            {"function": legacy},
            ptr(origin, "function_call"),
            ts=ts,
            protocol="legacy_function",
            attrs={**base, "call_index": 0},
        )
        if got is not None:
            names.append(got[1])
            ids.append(None)
    if text and with_text:
        for k, tc in enumerate(text_protocols.extract_calls(text), start=len(ids)):
            attrs = {
                **base,
                "call_index": k,
                "protocol": tc.protocol,
                "span": list(tc.span),
                **tc.attrs,
            }
            if tc.attrs.get("truncated") and finish_reason == "stop" and conv.stop:
                attrs["stop_word"] = text_protocols.stop_word(conv.stop, tc.attrs.get("cut_before"))
            sink.add(
                conv,
                "tool_call",
                ptr(origin, "content"),
                ts=ts,
                tool=tc.tool,
                tool_call_id=tc.call_id,
                args=tc.args,
                attrs=attrs,
            )
            ids.append(tc.call_id)
            names.append(tc.tool)
            if tc.observation is not None:
                sink.add(
                    conv,
                    "tool_result",
                    ptr(origin, "content"),
                    ts=ts,
                    tool=tc.tool,
                    tool_call_id=tc.call_id,
                    detail=tc.observation,
                    size=len(tc.observation),
                    attrs={"msg_index": idx, "follows_call": True, "protocol": tc.protocol},
                )
    if names:
        conv.open_block(ids, names)
    else:
        conv.close_block()


def _emit_one_call(
    sink: Sink,
    conv: Conv,
    call: Any,
    origin: str,
    *,
    ts: datetime | None,
    protocol: str,
    attrs: dict[str, Any],
) -> tuple[str | None, str | None] | None:
    """One entry of `tool_calls`; returns (id, name) or None when it was unparsable."""
    if not isinstance(call, dict):
        sink.unparsed(conv, origin, call, "tool call is not an object")
        return None
    fn = call.get("function", call)
    if not isinstance(fn, dict):
        sink.unparsed(conv, origin, call, "tool call function is not an object")
        return None
    name_raw = fn.get("name")
    name = name_raw if isinstance(name_raw, str) else as_id(name_raw)
    raw_id = call.get("id")
    call_id = as_id(raw_id)
    extra: dict[str, Any] = {"protocol": protocol}
    if raw_id is not None and not isinstance(raw_id, str):
        extra["id_type"] = type(raw_id).__name__
    if name_raw is not None and not isinstance(name_raw, str):
        extra["name_type"] = type(name_raw).__name__
    if "arguments" in fn:
        args, args_type = args_text(fn["arguments"])
        extra["args_type"] = args_type
    else:
        args, args_type = None, None
        extra["args_missing"] = True
    if isinstance(call.get("__attrs__"), dict):
        extra.update(call["__attrs__"])
    sink.add(
        conv,
        "tool_call",
        origin,
        ts=ts,
        tool=name,
        tool_call_id=call_id,
        args=args,
        attrs={**attrs, **extra},
    )
    return call_id, name


def emit_choices(
    sink: Sink,
    conv: Conv,
    body: dict[str, Any],
    origin: str,
    idx: int,
    *,
    ts: datetime | None = None,
) -> list[Any]:
    """A chat-completion response: each choice's message; returns the messages emitted."""
    ts = to_ts(body.get("created")) or ts
    out: list[Any] = []
    usage: dict[str, Any] = body["usage"] if isinstance(body.get("usage"), dict) else {}
    used = usage.get("completion_tokens", usage.get("output_tokens"))
    conv.output_tokens = used if isinstance(used, int) and not isinstance(used, bool) else None
    for k, choice in response_entries(sink, conv, body, origin, "choices", "choice"):
        fr = choice.get("finish_reason")
        msg = choice.get("message", choice.get("delta"))
        if msg is None:
            continue
        emit_message(
            sink,
            conv,
            msg,
            ptr(origin, "choices", k, "message"),
            idx,
            ts=ts,
            finish_reason=fr if isinstance(fr, str) else as_id(fr),
        )
        out.append(msg)
    conv.output_tokens = None  # the usage belongs to this response only
    return out


def emit_tools(sink: Sink, conv: Conv, tools: Any, origin: str) -> None:
    """Declared tools → one `system` event (attrs.tools); repeated identical lists are skipped."""
    if tools is None or tools == []:
        return
    sig = canonical(tools) if safe_dump(tools) is not None else origin
    if sig == conv.tools_sig:
        return
    conv.tools_sig = sig
    raw = tools if isinstance(tools, list) else [tools]
    if safe_dump(raw) is None:
        sink.unparsed(conv, origin, "<tools nested too deeply>", "tools not serialisable")
        return
    sink.add(conv, "system", origin, detail="tools declared", attrs={"tools": raw})


def emit_error(
    sink: Sink,
    conv: Conv,
    body: Any,
    origin: str,
    *,
    http_status: int | None = None,
    provider: str | None = None,
    ts: datetime | None = None,
) -> None:
    """A provider error body (HTTP 4xx/5xx or a bare `{"error": ...}`) → a `system` event."""
    message, facts = error_parts(body)
    attrs: dict[str, Any] = {"provider_error": True, "provider": provider}
    attrs["error_type"] = facts.get("error_type")
    attrs["error_code"] = facts.get("error_code")
    if "error_metadata" in facts:
        attrs["error_metadata"] = facts["error_metadata"]
    rid = body.get("request_id") if isinstance(body, dict) else None
    sink.add(
        conv,
        "system",
        origin,
        ts=ts,
        status="error",
        http_status=http_status,
        detail=message,
        request_id=as_id(rid),
        attrs=attrs,
    )
