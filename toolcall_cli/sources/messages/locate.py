"""Find the conversations inside a parsed JSON document and emit them.

Recognised containers: a bare messages list, `{"messages": [...]}` wrappers (with
`session_id`/`trace_id`/`tools` metadata), tau-bench `traj`, chat-completion requests and
responses and `{"request", "response"}` pairs, Anthropic responses, Responses-API bodies,
Gemini `contents`/`candidates`, bare provider error bodies, ToolBench answer files
(`answer_generation.train_messages`) and `messages_display` transcripts; lists of any of these
are one conversation each.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from toolcall_cli.sources.messages import anthropic, items, openai, text_protocols
from toolcall_cli.sources.messages.rows import Conv, Sink, ptr
from toolcall_cli.sources.provider_bodies import is_error_body

#: Keys holding a conversation's messages, in preference order.
MESSAGE_KEYS = ("messages", "traj", "input", "contents", "conversation", "history")
MULTI_KEYS = ("conversations", "sessions", "trajectories", "data", "items", "results", "records")
_MAX_DEPTH = 4


def emit_document(sink: Sink, doc: Any, base: str, *, depth: int = 0) -> None:
    """Emit every conversation found in *doc*; what cannot be read becomes `unparsed` rows."""
    if isinstance(doc, list):
        if is_message_list(doc):
            emit_messages(sink, sink.conv(), doc, base, 0)
            return
        for i, item in enumerate(doc):
            if depth < _MAX_DEPTH and isinstance(item, dict | list) and item:
                emit_document(sink, item, ptr(base, i), depth=depth + 1)
            else:
                sink.unparsed(None, ptr(base, i), item, "not a conversation")
    elif isinstance(doc, dict):
        if not emit_container(sink, doc, base, depth=depth):
            sink.unparsed(None, base, doc, "no conversation found in object")
    else:
        sink.unparsed(None, base, doc, "JSON value is not an object or array")


def is_message_list(items: list[Any]) -> bool:
    """A list whose objects look like chat messages (a `role` key, or Responses items)."""
    dicts = [x for x in items if isinstance(x, dict)]
    if not dicts:
        return False
    if any(any(k in x for k in (*MESSAGE_KEYS, "answer_generation", "choices")) for x in dicts):
        return False
    return any("role" in x for x in dicts) or all(
        x.get("type") in ("function_call", "function_call_output", "message") for x in dicts
    )


def request_messages(body: dict[str, Any]) -> tuple[list[Any] | None, str | None]:
    """The message list of a request/wrapper body and the key it sits under."""
    for key in MESSAGE_KEYS:
        if key in body and (isinstance(body[key], list) or key in ("messages", "traj")):
            return body[key], key
    return None, None


def token_count(value: Any) -> int | None:
    """A token count as given (an int; anything else is no count)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def emit_request_meta(sink: Sink, conv: Conv, body: dict[str, Any], base: str) -> None:
    """Declared tools, stop sequences and top-level system prompts / instructions of a request."""
    stop = body.get("stop", body.get("stop_sequences"))
    stops = [stop] if isinstance(stop, str) else stop if isinstance(stop, list) else []
    conv.stop = tuple(s for s in stops if isinstance(s, str) and s)
    conv.max_output_tokens = token_count(
        body.get("max_completion_tokens", body.get("max_tokens", body.get("max_output_tokens")))
    )
    for key in ("tools", "functions"):
        if key in body:
            openai.emit_tools(sink, conv, body[key], ptr(base, key))
    for key in ("system", "instructions"):
        if body.get(key):
            anthropic.emit_system(sink, conv, body[key], ptr(base, key))


def emit_messages(
    sink: Sink, conv: Conv, msgs: Any, base: str, start: int, *, gemini: bool = False
) -> None:
    """Messages *start*.. of a list (Gemini `contents` when *gemini*)."""
    if not isinstance(msgs, list):
        sink.unparsed(conv, base, msgs, "messages is not a list")
        return
    for j in range(start, len(msgs)):
        if gemini:
            items.emit_gemini(sink, conv, msgs[j], ptr(base, j), j)
        else:
            openai.emit_message(sink, conv, msgs[j], ptr(base, j), j)


def emit_response_body(
    sink: Sink,
    conv: Conv,
    body: Any,
    base: str,
    idx: int,
    *,
    http_status: int | None = None,
    provider: str | None = None,
    ts: datetime | None = None,
) -> list[Any] | None:
    """A response body of any provider; returns the messages emitted (None if not a response)."""
    if not isinstance(body, dict):
        return None
    if is_error_body(body):
        openai.emit_error(
            sink,
            conv,
            body,
            base,
            http_status=http_status,
            provider=provider or _provider_of(body),
            ts=ts,
        )
        return []
    if "choices" in body:
        return openai.emit_choices(sink, conv, body, base, idx, ts=ts)
    if anthropic.is_response(body):
        anthropic.emit_response(sink, conv, body, base, idx, ts=ts)
        return [body]
    if isinstance(body.get("output"), list):
        return items.emit_output(sink, conv, body, base, idx, ts=ts)
    if isinstance(body.get("candidates"), list):
        return items.emit_candidates(sink, conv, body, base, idx, ts=ts)
    return None


def _provider_of(body: dict[str, Any]) -> str | None:
    return "anthropic" if body.get("type") == "error" else None


def _ids(d: dict[str, Any], keys: tuple[str, ...]) -> Any:
    return next((d[k] for k in keys if d.get(k) is not None), None)


def emit_container(sink: Sink, d: dict[str, Any], base: str, *, depth: int = 0) -> bool:
    """Emit one object that holds a conversation; False when it holds none."""
    msgs, key = request_messages(d)
    sid_keys = ("session_id", "sessionId", "conversation_id", "conversationId")
    sid = _ids(d, (*sid_keys, "id") if key in ("messages", "traj", "conversation") else sid_keys)
    tid = _ids(d, ("trace_id", "traceId"))
    if isinstance(d.get("request"), dict) and "response" in d:
        conv = sink.conv(sid, tid)
        req = d["request"]
        rmsgs, rkey = request_messages(req)
        emit_request_meta(sink, conv, req, ptr(base, "request"))
        emit_messages(
            sink,
            conv,
            [] if rmsgs is None else rmsgs,
            ptr(base, "request", rkey or "messages"),
            0,
            gemini=rkey == "contents",
        )
        n = len(rmsgs) if isinstance(rmsgs, list) else 0
        _emit_tail(sink, conv, d["response"], ptr(base, "response"), n)
        return True
    if key is not None:
        conv = sink.conv(sid, tid)
        emit_request_meta(sink, conv, d, base)
        emit_messages(sink, conv, msgs, ptr(base, key), 0, gemini=key == "contents")
        n = len(msgs) if isinstance(msgs, list) else 0
        if d.get("error"):  # a session line that ended in a provider error
            openai.emit_error(sink, conv, d, ptr(base, "error"), ts=None)
        for rk in ("response", "completion"):
            if isinstance(d.get(rk), dict):
                _emit_tail(sink, conv, d[rk], ptr(base, rk), n)
        if isinstance(d.get("choices"), list) or isinstance(d.get("output"), list):
            emit_response_body(sink, conv, d, base, n)
        return True
    if isinstance(d.get("answer_generation"), dict):
        return _toolbench(sink, d["answer_generation"], ptr(base, "answer_generation"))
    if isinstance(d.get("messages_display"), str):
        conv = sink.conv(sid, tid)
        turns = text_protocols.parse_transcript(d["messages_display"])
        for k, (role, text, _line) in enumerate(turns):
            role = {"observation": "tool"}.get(role, role)
            msg = {"role": role, "content": None if text.strip() == "None" else text}
            openai.emit_message(sink, conv, msg, ptr(base, "messages_display"), k)
        return True
    probe = sink.conv(sid, tid)
    if emit_response_body(sink, probe, d, base, 0) is not None:
        return True
    sink.convs.pop()
    for mk in MULTI_KEYS:
        if isinstance(d.get(mk), list) and d[mk] and depth < _MAX_DEPTH:
            emit_document(sink, d[mk], ptr(base, mk), depth=depth + 1)
            return True
    return False


def _emit_tail(sink: Sink, conv: Conv, resp: Any, base: str, idx: int) -> None:
    wrapped = isinstance(resp, dict) and isinstance(resp.get("body"), dict)
    body = resp["body"] if wrapped else resp
    where = ptr(base, "body") if body is not resp else base
    status = resp.get("status_code", resp.get("status")) if isinstance(resp, dict) else None
    http = status if isinstance(status, int) and not isinstance(status, bool) else None
    if emit_response_body(sink, conv, body, where, idx, http_status=http) is None:
        sink.unparsed(conv, base, resp, "response is not a recognised response body")


def _toolbench(sink: Sink, ag: dict[str, Any], base: str) -> bool:
    """ToolBench answers: growing prefixes of one DFS chain; a prefix of a later one is dropped."""
    convs = ag.get("train_messages")
    if not isinstance(convs, list):
        return False
    keep = [
        i
        for i, c in enumerate(convs)
        if not any(
            isinstance(c, list) and isinstance(o, list) and len(o) > len(c) and o[: len(c)] == c
            for o in convs[i + 1 :]
        )
    ]
    for i in keep:
        conv = sink.conv()
        if "function" in ag:
            openai.emit_tools(sink, conv, ag["function"], ptr(base, "function"))
        emit_messages(sink, conv, convs[i], ptr(base, "train_messages", i), 0)
    return True
