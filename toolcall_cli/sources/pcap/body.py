"""Reading JSON bodies seen on the wire: tool-service calls/answers and LLM API round trips.

Tool service: ``{"function", "arguments"}`` requests and ``{"status", "data", "message",
"call_id", "timestamp"}`` responses. LLM APIs: OpenAI chat completions (``messages`` with
``tool_calls`` / ``role: tool``; ``choices[].message.tool_calls``), the legacy
``function_call`` shape and Anthropic ``tool_use`` / ``tool_result`` content blocks. Each
LLM call or result becomes a dict of event columns (kind ``tool_call`` / ``tool_result`` /
``system``) with the attrs the messages adapter uses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from toolcall_cli.model.jsonio import dumps, try_loads
from toolcall_cli.sources.provider_bodies import error_parts, is_error_body

Event = dict[str, Any]
#: Types that are never a Mapping, told apart without the (slow) ABC check.
_NOT_MAPPINGS: Final = (str, bytes, int, float, list, tuple, type(None))


def _is_map(obj: Any) -> bool:
    """``isinstance(obj, Mapping)``, answered without the ABC machinery for JSON's types
    (this runs several times per message)."""
    return type(obj) is dict or (not isinstance(obj, _NOT_MAPPINGS) and isinstance(obj, Mapping))


#: args_type of arguments sent as something other than a string.
_ARGS_TYPES: Final = {
    dict: "object",
    list: "array",
    bool: "boolean",
    int: "number",
    float: "number",
}
#: Tool-service `data` values that count as empty (compared with ==, as `in` does).
_EMPTY_DATA: Final[tuple[Any, ...]] = (None, "", [], {})
#: What a tool-service request or response body is read into (absent: None).
RequestFields = tuple[Any, "str | None", "str | None", bool]
ResponseFields = tuple["str | None", Any, Any, Any, bool]


def raw_args(value: Any) -> tuple[str | None, str | None]:
    """(args text verbatim, args_type when it was not a string)."""
    if value is None:
        return None, None
    if isinstance(value, str):
        return value, None
    return dumps(value), _ARGS_TYPES.get(type(value), "other")


def request_fields(obj: Any) -> RequestFields | None:
    """(tool, args, args_type, has arguments) of a ``{"function", "arguments"}`` request body,
    None when it is not an object; the tool is None unless it is a string."""
    if not _is_map(obj):
        return None
    name = obj.get("function", obj.get("tool", obj.get("name")))
    if _is_map(name):  # {"function": {"name":..., "arguments":...}}
        obj, name = name, name.get("name")
    if "arguments" in obj:
        args, kind = raw_args(obj["arguments"])
        return (name if isinstance(name, str) else None), args, kind, True
    return (name if isinstance(name, str) else None), None, None, False


def response_fields(obj: Any) -> ResponseFields | None:
    """(status, call_id, timestamp, message, data_empty) of a tool-service response body,
    None when it is not one (no ``status``, ``call_id`` or ``data``)."""
    if not _is_map(obj) or not ("status" in obj or "call_id" in obj or "data" in obj):
        return None
    status = obj.get("status")
    return (
        None if status is None else (status if isinstance(status, str) else dumps(status)),
        obj.get("call_id"),
        obj.get("timestamp"),
        obj.get("message"),
        obj.get("data") in _EMPTY_DATA,
    )


def is_llm(uri: str | None, obj: Any) -> bool:
    """True for chat-completion style bodies (by path, or by shape)."""
    path = (uri or "").split("?", 1)[0]
    if path.endswith(("/chat/completions", "/v1/messages", "/completions")):
        return _is_map(obj)
    return _is_map(obj) and (
        isinstance(obj.get("messages"), list) or isinstance(obj.get("choices"), list)
    )


def llm_request_events(obj: Mapping[str, Any]) -> list[Event]:
    """tool_call events for the assistant calls in the history, tool_result for tool answers."""
    out: list[Event] = []
    msgs = obj.get("messages")
    if not isinstance(msgs, list):
        return out
    turn = 0
    prev_calls: set[str] = set()
    for i, m in enumerate(msgs):
        if not isinstance(m, Mapping):
            continue
        role = m.get("role")
        if role == "assistant":
            turn += 1
            calls = _assistant_calls(m, msg_index=i, turn=turn, finish_reason=None)
            out.extend(calls)
            prev_calls = {c["tool_call_id"] for c in calls if c.get("tool_call_id")}
        elif role == "tool" or role == "function":
            cid = m.get("tool_call_id")
            out.append(_result(cid, m.get("name"), m.get("content"), i, follows=cid in prev_calls))
        elif role == "user" and isinstance(m.get("content"), list):
            for block in m["content"]:
                if isinstance(block, Mapping) and block.get("type") == "tool_result":
                    cid = block.get("tool_use_id")
                    ev = _result(cid, None, block.get("content"), i, follows=cid in prev_calls)
                    ev["attrs"]["is_error"] = bool(block.get("is_error", False))
                    out.append(ev)
    return out


def llm_response_events(obj: Mapping[str, Any], http_status: int | None) -> list[Event]:
    """tool_call events of a completion response; a provider error body → one system event."""
    if is_error_body(obj) and (http_status is None or http_status >= 400):
        text, facts = error_parts(obj)
        return [
            {
                "kind": "system",
                "status": "error",
                "detail": text,
                "attrs": {"provider_error": True, "provider": "openai", **facts},
            }
        ]
    out: list[Event] = []
    if obj.get("type") == "message" and isinstance(obj.get("content"), list):  # Anthropic
        return _assistant_calls(obj, msg_index=0, turn=1, finish_reason=obj.get("stop_reason"))
    for choice in obj.get("choices") or ():
        if isinstance(choice, Mapping) and isinstance(choice.get("message"), Mapping):
            out.extend(
                _assistant_calls(
                    choice["message"],
                    msg_index=choice["index"] if isinstance(choice.get("index"), int) else 0,
                    turn=1,
                    finish_reason=choice.get("finish_reason"),
                    protocol="sse" if obj.get("_sse") else None,
                )
            )
    return out


def _assistant_calls(
    m: Mapping[str, Any],
    *,
    msg_index: int,
    turn: int,
    finish_reason: Any,
    protocol: str | None = None,
) -> list[Event]:
    out: list[Event] = []
    base = {"msg_index": msg_index, "turn": turn, "finish_reason": finish_reason}
    calls = m.get("tool_calls")
    if isinstance(calls, list):
        for k, c in enumerate(calls):
            if not isinstance(c, Mapping):
                continue
            fn: Mapping[str, Any] = c["function"] if isinstance(c.get("function"), Mapping) else {}
            args, kind = raw_args(fn.get("arguments"))
            out.append(
                _call(
                    c.get("id", ""),
                    fn.get("name"),
                    args,
                    kind,
                    {**base, "call_index": k},
                    protocol or "openai",
                )
            )
    fc = m.get("function_call")
    if isinstance(fc, Mapping):
        args, kind = raw_args(fc.get("arguments"))
        out.append(
            _call("", fc.get("name"), args, kind, {**base, "call_index": 0}, "legacy_function")
        )
    content = m.get("content")
    if isinstance(content, list):
        k = 0
        for block in content:
            if isinstance(block, Mapping) and block.get("type") == "tool_use":
                args, kind = raw_args(block.get("input"))
                out.append(
                    _call(
                        block.get("id", ""),
                        block.get("name"),
                        args,
                        kind,
                        {**base, "call_index": k},
                        "anthropic",
                    )
                )
                k += 1
    return out


def _call(
    cid: Any, name: Any, args: str | None, kind: str | None, attrs: dict[str, Any], protocol: str
) -> Event:
    a = {**attrs, "protocol": protocol}
    if kind:
        a["args_type"] = kind
    return {
        "kind": "tool_call",
        "tool_call_id": "" if cid is None else str(cid),
        "tool": name if isinstance(name, str) else None,
        "args": args,
        "attrs": a,
    }


def _result(cid: Any, name: Any, content: Any, msg_index: int, *, follows: bool) -> Event:
    text = _content_text(content)
    return {
        "kind": "tool_result",
        "tool_call_id": None if cid is None else str(cid),
        "tool": name if isinstance(name, str) else None,
        "detail": text,
        "size": len(text),
        "attrs": {"msg_index": msg_index, "follows_call": follows},
    }


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text", "") if isinstance(p, Mapping) else str(p) for p in content]
        return "".join(str(p) for p in parts)
    return dumps(content)


def sse_completion(body: bytes) -> dict[str, Any] | None:
    """A streamed chat completion (``text/event-stream``) folded into one completion object.

    ``choices[].delta.tool_calls`` fragments are joined per choice and call index (the
    arguments text concatenated exactly as streamed); the result is marked ``_sse``.
    """
    choices: dict[int, dict[str, Any]] = {}
    calls: dict[int, dict[int, dict[str, Any]]] = {}
    seen = False
    for line in body.decode("utf-8", "replace").splitlines():
        data = line[5:].strip() if line.startswith("data:") else ""
        chunk = try_loads(data) if data and data != "[DONE]" else None
        if not isinstance(chunk, dict):
            continue
        seen = True
        for ch in chunk.get("choices") or ():
            if not isinstance(ch, dict):
                continue
            idx = ch["index"] if isinstance(ch.get("index"), int) else 0
            acc = choices.setdefault(idx, {"index": idx, "finish_reason": None})
            acc["finish_reason"] = ch.get("finish_reason") or acc["finish_reason"]
            delta: dict[str, Any] = ch["delta"] if isinstance(ch.get("delta"), dict) else {}
            for tc in delta.get("tool_calls") or ():
                if isinstance(tc, dict):
                    _fold_call(calls.setdefault(idx, {}), tc)
    if not seen:
        return None
    for idx, acc in choices.items():
        folded = calls.get(idx, {})
        acc["message"] = {"role": "assistant", "tool_calls": [folded[k] for k in sorted(folded)]}
    return {"choices": [choices[k] for k in sorted(choices)], "_sse": True}


def _fold_call(acc: dict[int, dict[str, Any]], tc: dict[str, Any]) -> None:
    k = tc["index"] if isinstance(tc.get("index"), int) else len(acc)
    call = acc.setdefault(
        k, {"id": "", "type": "function", "function": {"name": None, "arguments": ""}}
    )
    if isinstance(tc.get("id"), str) and tc["id"]:
        call["id"] = tc["id"]
    fn: dict[str, Any] = tc["function"] if isinstance(tc.get("function"), dict) else {}
    if isinstance(fn.get("name"), str) and fn["name"]:
        call["function"]["name"] = fn["name"]
    if isinstance(fn.get("arguments"), str):
        call["function"]["arguments"] += fn["arguments"]
