"""Streamed responses (SSE `data:` lines or one JSON chunk per line) assembled into messages.

Understands OpenAI-style `choices[].delta.tool_calls` (by index; the id and name come from the
first chunk that carries them and are never overwritten by later empty ones), Anthropic
`content_block_start` / `input_json_delta`, Cohere v2 `tool-call-start` / `tool-call-delta`,
and Gemini `functionCall` parts (including `partialArgs`). The result is a list of
OpenAI-shaped assistant messages that :func:`.openai.emit_message` turns into events.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from toolcall_cli.model.jsonio import JSONError, loads
from toolcall_cli.sources.messages.rows import args_text, as_dict, as_id, as_list, safe_dump, to_ts

_PATH_TOKEN = re.compile(r"\.([A-Za-z_][\w-]*)|\[(\d+)\]|\['([^']*)'\]")


@dataclass
class _Call:
    id: str | None
    name: str | None
    line: int
    parts: list[str] = field(default_factory=list)
    initial: str | None = None
    partial: list[tuple[str, Any]] = field(default_factory=list)
    attrs: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Msg:
    id: str | None
    line: int
    text: list[str] = field(default_factory=list)
    calls: dict[Any, _Call] = field(default_factory=dict)
    finish: str | None = None
    ts: datetime | None = None


@dataclass
class Stream:
    """What a stream held: assembled messages, bad lines and error events."""

    messages: list[tuple[dict[str, Any], str | None, datetime | None, int]] = field(
        default_factory=list
    )
    bad: list[tuple[int, str, str]] = field(default_factory=list)
    errors: list[tuple[int, Any]] = field(default_factory=list)
    chunks: int = 0


def payloads(text: str) -> Iterable[tuple[int, str]]:
    """(1-based line, JSON text) for every `data:` line or bare JSON line of a stream."""
    for n, line in enumerate(text.splitlines(), start=1):
        s = line.strip()
        if not s or s.startswith((":", "event:", "id:", "retry:")):
            continue
        if s.startswith("data:"):
            s = s[5:].strip()
            if not s or s == "[DONE]":
                continue
        yield n, s


def assemble(text: str, origin_for: Callable[[int], str]) -> Stream:
    """Parse and assemble a whole stream; *origin_for(line)* names where a call started."""
    st = Stream()
    msgs: list[_Msg] = []
    for n, payload in payloads(text):
        try:
            obj = loads(payload)
        except JSONError as e:
            st.bad.append((n, payload, f"chunk is not JSON: {e}"[:200]))
            continue
        if not isinstance(obj, dict):
            st.bad.append((n, payload, "chunk is not a JSON object"))
            continue
        st.chunks += 1
        if not _feed(obj, n, msgs, st):
            st.bad.append((n, payload, "unrecognised stream chunk"))
    for m in msgs:
        st.messages.append((_finish(m, origin_for), m.finish, m.ts, m.line))
    return st


def _cur(msgs: list[_Msg], mid: str | None, line: int) -> _Msg:
    if not msgs or (mid and msgs[-1].id and mid != msgs[-1].id):
        msgs.append(_Msg(id=mid, line=line))
    elif mid and not msgs[-1].id:
        msgs[-1].id = mid
    return msgs[-1]


def _feed(obj: dict[str, Any], n: int, msgs: list[_Msg], st: Stream) -> bool:
    t = obj.get("type")
    if isinstance(obj.get("choices"), list):
        _openai(obj, n, _cur(msgs, as_id(obj.get("id")), n))
    elif isinstance(obj.get("candidates"), list):
        _gemini(obj, n, _cur(msgs, as_id(obj.get("responseId")), n))
    elif t == "error" or ("error" in obj and t is None):
        st.errors.append((n, obj))
    elif t == "message_start":
        m = as_dict(obj.get("message"))
        mid = as_id(m.get("id"))
        if not msgs or msgs[-1].id != mid or msgs[-1].calls or msgs[-1].text:
            msgs.append(_Msg(id=mid, line=n))
    elif isinstance(t, str) and (t.startswith(("content_block", "message_")) or t == "ping"):
        _anthropic(obj, t, n, _cur(msgs, None, n))
    elif isinstance(t, str) and "-" in t:
        _cohere(obj, t, n, _cur(msgs, as_id(obj.get("id")), n))
    else:
        return False
    return True


def _call(m: _Msg, key: Any, cid: str | None, name: str | None, line: int) -> _Call:
    c = m.calls.get(key)
    if c is None or (cid and c.id and cid != c.id):
        if c is not None:  # a new call reusing an index: keep both
            key = (key, len(m.calls))
        c = m.calls[key] = _Call(id=cid, name=name or None, line=line)
    else:
        if cid and not c.id:
            c.id = cid
        if name and not c.name:
            c.name = name
    return c


def _openai(obj: dict[str, Any], n: int, m: _Msg) -> None:
    m.ts = m.ts or to_ts(obj.get("created"))
    for ci, ch in enumerate(obj["choices"]):
        if not isinstance(ch, dict):
            continue
        if isinstance(ch.get("finish_reason"), str):
            m.finish = ch["finish_reason"]
        delta = ch.get("delta") if isinstance(ch.get("delta"), dict) else ch.get("message")
        if not isinstance(delta, dict):
            continue
        if isinstance(delta.get("content"), str):
            m.text.append(delta["content"])
        tcs = delta.get("tool_calls")
        for pos, tc in enumerate(tcs if isinstance(tcs, list) else []):
            if not isinstance(tc, dict):
                continue
            idx = tc.get("index") if isinstance(tc.get("index"), int) else pos
            fn = as_dict(tc.get("function"))
            name = fn.get("name") if isinstance(fn.get("name"), str) else None
            c = _call(m, (ci, idx), as_id(tc.get("id")), name, n)
            a = fn.get("arguments")
            if isinstance(a, str):
                c.parts.append(a)
            elif a is not None:
                text, kind = args_text(a)
                c.parts.append(text or "")
                c.attrs["args_type"] = kind


def _index(value: Any) -> int | str | None:
    """A chunk's block/call index as a hashable key (wrong types read as absent)."""
    return value if isinstance(value, int | str) and not isinstance(value, bool) else None


def _anthropic(obj: dict[str, Any], t: str, n: int, m: _Msg) -> None:
    idx = _index(obj.get("index"))
    if t == "content_block_start" and isinstance(obj.get("content_block"), dict):
        cb = obj["content_block"]
        if cb.get("type") in ("tool_use", "server_tool_use", "mcp_tool_use"):
            c = _call(
                m,
                ("a", idx),
                as_id(cb.get("id")),
                cb.get("name") if isinstance(cb.get("name"), str) else None,
                n,
            )
            c.initial = safe_dump(cb.get("input")) if "input" in cb else None
            c.attrs["protocol_stream"] = "anthropic"
        elif isinstance(cb.get("text"), str):
            m.text.append(cb["text"])
    elif t == "content_block_delta" and isinstance(obj.get("delta"), dict):
        d = obj["delta"]
        if d.get("type") == "input_json_delta" and ("a", idx) in m.calls:
            m.calls[("a", idx)].parts.append(str(d.get("partial_json") or ""))
        elif d.get("type") == "text_delta" and isinstance(d.get("text"), str):
            m.text.append(d["text"])
    elif t == "message_delta" and isinstance(obj.get("delta"), dict):
        sr = obj["delta"].get("stop_reason")
        m.finish = sr if isinstance(sr, str) else m.finish


def _cohere(obj: dict[str, Any], t: str, n: int, m: _Msg) -> None:
    d = as_dict(obj.get("delta"))
    msg = as_dict(d.get("message"))
    if t == "tool-plan-delta" and isinstance(msg.get("tool_plan"), str):
        m.text.append(msg["tool_plan"])
    elif t == "content-delta":
        cont = msg.get("content")
        if isinstance(cont, dict) and isinstance(cont.get("text"), str):
            m.text.append(cont["text"])
    elif t in ("tool-call-start", "tool-call-delta"):
        tc = as_dict(msg.get("tool_calls"))
        fn = as_dict(tc.get("function"))
        c = _call(
            m,
            ("c", _index(obj.get("index"))),
            as_id(tc.get("id")),
            fn.get("name") if isinstance(fn.get("name"), str) else None,
            n,
        )
        if isinstance(fn.get("arguments"), str):
            c.parts.append(fn["arguments"])
    elif t == "message-end" and isinstance(d.get("finish_reason"), str):
        m.finish = d["finish_reason"]


def _gemini(obj: dict[str, Any], n: int, m: _Msg) -> None:
    m.ts = m.ts or to_ts(obj.get("createTime"))
    for cand in obj["candidates"]:
        if not isinstance(cand, dict):
            continue
        if isinstance(cand.get("finishReason"), str):
            m.finish = cand["finishReason"]
        content = as_dict(cand.get("content"))
        parts = as_list(content.get("parts"))
        for part in parts:
            if not isinstance(part, dict):
                continue
            fc = part.get("functionCall")
            if isinstance(fc, dict):
                if isinstance(fc.get("name"), str) or not m.calls:
                    c = _call(m, ("g", len(m.calls)), as_id(fc.get("id")), fc.get("name"), n)
                else:
                    c = list(m.calls.values())[-1]
                if "args" in fc:
                    c.parts.append(safe_dump(fc["args"]) or "")
                for pa in fc.get("partialArgs") or []:
                    if isinstance(pa, dict) and isinstance(pa.get("jsonPath"), str):
                        val = next((pa[k] for k in pa if k.endswith("Value")), None)
                        c.partial.append((pa["jsonPath"], val))
                c.attrs["incomplete"] = bool(fc.get("willContinue"))
            elif isinstance(part.get("text"), str) and not part.get("thought"):
                m.text.append(part["text"])


def _finish(m: _Msg, origin_for: Callable[[int], str]) -> dict[str, Any]:
    calls: list[dict[str, Any]] = []
    origins: dict[int, str] = {}
    for k, c in enumerate(m.calls.values()):
        args = "".join(c.parts)
        if c.partial:
            args = safe_dump(_from_paths(c.partial)) or args
            c.attrs["partial_args"] = len(c.partial)
        elif not args and c.initial is not None:
            args = c.initial
        fn = {"name": c.name, "arguments": args}
        calls.append(
            {
                "id": c.id,
                "type": "function",
                "function": fn,
                "__attrs__": {**c.attrs, "stream_line": c.line},
            }
        )
        origins[k] = origin_for(c.line)
    msg: dict[str, Any] = {
        "role": "assistant",
        "content": "".join(m.text) or None,
        "__protocol__": "sse",
        "__call_origins__": origins,
    }
    if calls:
        msg["tool_calls"] = calls
    return msg


def _from_paths(items: list[tuple[str, Any]]) -> Any:
    """Rebuild an object from Gemini `partialArgs` (`$.a[0].b` paths; strings concatenate)."""
    root: dict[str, Any] = {}
    for path, val in items:
        toks = [t[0] or (int(t[1]) if t[1] else t[2]) for t in _PATH_TOKEN.findall(path)]
        if not toks:
            continue
        node: Any = root
        for tok, nxt in zip(toks, [*toks[1:], None], strict=True):
            if isinstance(node, list) != isinstance(tok, int):
                break
            if isinstance(node, list) and isinstance(tok, int):
                while len(node) <= tok:
                    node.append(None)
            if nxt is None:
                old = node[tok] if isinstance(node, list) else node.get(tok)
                node[tok] = old + val if isinstance(old, str) and isinstance(val, str) else val
            else:
                cur = node[tok] if isinstance(node, list) else node.get(tok)
                if not isinstance(cur, dict | list):
                    cur = [] if isinstance(nxt, int) else {}
                    node[tok] = cur
                node = cur
    return root
