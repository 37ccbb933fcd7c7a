"""VCR cassettes (YAML `interactions[].request/response`) → one conversation, emitted once.

Each request body carries the conversation so far and each response the new assistant
message, so messages are compared by a signature (role, text, calls, result ids) with what was
already emitted and only the new suffix is emitted. A call is identified by its id when it has
one and by name + canonical arguments only when it has none, so a call the client re-ids on
replay (an id-less Gemini call sent on as `pyd_ai_…`) is emitted under its new id together
with the results that answer it (marked `replay_of`): a result is never emitted without its
call. A request whose history shares nothing with the previous one starts a new conversation.
HTTP error responses become provider-error `system` events; bodies may be `parsed_body`, JSON
strings, or gzip-compressed SSE streams.
"""

from __future__ import annotations

import gzip
import io
import re
import zlib
from typing import Any

import orjson

from toolcall_cli.model.jsonio import JSONError, canonical, loads, try_loads
from toolcall_cli.sources.messages import locate, openai, sse
from toolcall_cli.sources.messages.rows import (
    RAW_CAP,
    Conv,
    Sink,
    as_dict,
    as_id,
    as_list,
    as_str,
    content_text,
    ptr,
    safe_dump,
    to_ts,
)

#: Cap for a gzip-compressed body inside a cassette.
MAX_BODY = 64 << 20
_THINK_RE = re.compile(r"<think>.*?</think>", re.S)
_HOST_RE = re.compile(r"^[a-z]+://([^/:?]+)", re.I)


def emit_cassette(sink: Sink, doc: Any, base: str) -> None:
    """Emit the conversation(s) recorded in a cassette document."""
    inter = doc.get("interactions") if isinstance(doc, dict) else None
    if not isinstance(inter, list):
        sink.unparsed(None, base, doc, "cassette has no interactions list")
        return
    conv: Conv | None = None
    seen: list[tuple[Any, ...]] = []
    emitted: set[tuple[Any, ...]] = set()
    idless: list[dict[str, Any]] = []
    for i, it in enumerate(inter):
        o = ptr(base, "interactions", i)
        if not isinstance(it, dict):
            sink.unparsed(conv, o, it, "interaction is not an object")
            continue
        req = as_dict(it.get("request"))
        resp = as_dict(it.get("response"))
        uri = as_str(req.get("uri")) or ""
        body, bkey = _body(req)
        found, mkey = locate.request_messages(body) if isinstance(body, dict) else (None, None)
        msgs = as_list(found)
        sigs = [signature(m) for m in msgs]
        k = common_prefix(sigs, seen)
        if conv is None or (sigs and seen and k == 0):
            conv = sink.conv()
            emitted = set()
            idless = []
        start = len(sink.rows)
        if isinstance(body, dict):
            locate.emit_request_meta(sink, conv, body, ptr(o, "request", bkey))
            where = ptr(o, "request", bkey, mkey or "messages")
            locate.emit_messages(sink, conv, msgs, where, k, gemini=mkey == "contents")
        elif body is not None:
            sink.unparsed(conv, ptr(o, "request", bkey), body, "request body is not JSON")
        seen = list(sigs)
        seen.extend(_response(sink, conv, resp, ptr(o, "response"), len(msgs), _provider(uri)))
        _drop_repeats(sink, start, emitted)
        _mark_reids(sink, start, idless)


def _drop_repeats(sink: Sink, start: int, emitted: set[tuple[Any, ...]]) -> None:
    """Drop tool events already emitted: a history re-encoded for another provider repeats them."""
    keep: list[dict[str, Any]] = []
    for row in sink.rows[start:]:
        key = None
        if row["kind"] in ("tool_call", "tool_result") and row["tool_call_id"]:
            key = (row["kind"], row["tool_call_id"], row["tool"], row["args"], row["detail"])
        if key is not None and key in emitted:
            continue
        if key is not None:
            emitted.add(key)
        keep.append(row)
    sink.rows[start:] = keep


def _mark_reids(sink: Sink, start: int, idless: list[dict[str, Any]]) -> None:
    """Mark a replayed call that re-ids an emitted id-less call: attrs.replay_of = its origin.

    Both stay events (results pair by id with the replayed one); the mark says they are one
    call of the model, sent twice under different ids by the client.
    """
    for row in sink.rows[start:]:
        if row["kind"] != "tool_call":
            continue
        if not row["tool_call_id"]:
            idless.append(row)
            continue
        if "/request/" not in row["origin"]:
            continue
        key = call_key(row["tool"], None, row["args"])
        for j, old in enumerate(idless):
            if call_key(old["tool"], None, old["args"]) == key:
                row["attrs"] = {**(row["attrs"] or {}), "replay_of": old["origin"]}
                del idless[j]
                break


def _response(
    sink: Sink, conv: Conv, resp: dict[str, Any], o: str, idx: int, provider: str | None
) -> list[tuple[Any, ...]]:
    """Emit one response; returns the signatures of the messages it added."""
    status = as_dict(resp.get("status"))
    code = status.get("code") if isinstance(status.get("code"), int) else None
    ts = to_ts(_header(resp, "date"))
    body, bkey = _body(resp)
    where = ptr(o, bkey)
    if code is not None and code >= 400:
        err = body[:RAW_CAP] if isinstance(body, str) else body if body is not None else status
        openai.emit_error(sink, conv, err, where, http_status=code, provider=provider, ts=ts)
        return []
    if isinstance(body, str):
        st = sse.assemble(body, lambda _n: where)
        for n, raw, reason in st.bad:
            sink.unparsed(conv, f"{where}:{n}", raw, reason)
        for _n, err in st.errors:
            openai.emit_error(sink, conv, err, where, http_status=code, provider=provider, ts=ts)
        out: list[tuple[Any, ...]] = []
        for msg, fr, mts, _line in st.messages:
            openai.emit_message(sink, conv, msg, where, idx, ts=mts or ts, finish_reason=fr)
            out.append(signature(msg))
        return out
    if body is None:
        return []
    emitted = locate.emit_response_body(
        sink, conv, body, where, idx, http_status=code, provider=provider, ts=ts
    )
    if emitted is None:
        sink.unparsed(conv, where, body, "response body is not a recognised response")
        return []
    return [signature(m) for m in emitted]


def _body(part: dict[str, Any]) -> tuple[Any, str]:
    """(parsed JSON body | stream text | None, key it came from)."""
    if "parsed_body" in part:
        return part["parsed_body"], "parsed_body"
    raw = part.get("body")
    if isinstance(raw, dict):
        raw = raw.get("string")
    if isinstance(raw, bytes):
        raw = _gunzip(raw) if raw[:2] == b"\x1f\x8b" else raw
        raw = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
    if not isinstance(raw, str) or not raw.strip():
        return None, "body"
    try:
        return loads(raw), "body"
    except JSONError:
        return raw, "body"


def _gunzip(data: bytes) -> bytes | str:
    out = io.BytesIO()
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as g:
            while chunk := g.read(1 << 20):
                out.write(chunk)
                if out.tell() > MAX_BODY:
                    return "<gzip body over the size cap>"
    except (OSError, EOFError, zlib.error):
        return out.getvalue() or "<corrupt gzip body>"
    return out.getvalue()


def _header(part: dict[str, Any], name: str) -> str | None:
    headers = part.get("headers")
    if not isinstance(headers, dict):
        return None
    for k, v in headers.items():
        if isinstance(k, str) and k.lower() == name:
            v = v[0] if isinstance(v, list) and v else v
            return v if isinstance(v, str) else None
    return None


def _provider(uri: str) -> str | None:
    m = _HOST_RE.match(uri)
    if not m:
        return None
    labels = [x for x in m.group(1).lower().split(".") if x not in ("api", "www")]
    return labels[-2] if len(labels) >= 2 else (labels[0] if labels else None)


def common_prefix(a: list[tuple[Any, ...]], b: list[tuple[Any, ...]]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def signature(m: Any) -> tuple[Any, ...]:
    """What identifies a message across a response and its replay in the next request."""
    if not isinstance(m, dict):
        return ("?", safe_dump(m))
    role = m.get("role")
    if role is None and isinstance(m.get("type"), str):
        return (m["type"], as_id(m.get("call_id")), (content_text(m.get("content")) or "").strip())
    role = {"model": "assistant", "developer": "system"}.get(str(role), str(role))
    text: list[str] = []
    ids: list[tuple[Any, ...]] = []
    blocks = m.get("content") if isinstance(m.get("content"), list) else m.get("parts")
    if isinstance(m.get("content"), str):
        text.append(m["content"])
    for b in blocks if isinstance(blocks, list) else []:
        if not isinstance(b, dict):
            continue
        if isinstance(b.get("text"), str) and not b.get("thought"):
            text.append(b["text"])
        if b.get("type") in ("tool_use", "server_tool_use"):
            ids.append(call_key(b.get("name"), b.get("id"), b.get("input")))
        elif b.get("type") == "tool_result":
            ids.append(("r", as_id(b.get("tool_use_id"))))
        elif isinstance(b.get("functionCall"), dict):
            fc = b["functionCall"]
            ids.append(call_key(fc.get("name"), fc.get("id"), fc.get("args")))
        elif isinstance(b.get("functionResponse"), dict):
            ids.append(("r", b["functionResponse"].get("name")))
    for tc in as_list(m.get("tool_calls")):
        if isinstance(tc, dict):
            fn = as_dict(tc.get("function"))
            ids.append(call_key(fn.get("name"), tc.get("id"), fn.get("arguments")))
    if "tool_call_id" in m:
        ids.append(("r", as_id(m.get("tool_call_id"))))
    # Clients re-render history (reasoning as <think> text, whitespace): compare calls, not text.
    joined = "" if any(t[0] == "u" for t in ids) else _THINK_RE.sub("", "".join(text)).strip()
    return (role, joined, tuple(ids))


def call_key(name: Any, call_id: Any, args: Any) -> tuple[Any, ...]:
    """A call's identity on replay: its id when it has one, else name + canonical arguments.

    A replayed call whose id differs from the emitted one (a client re-iding an id-less call)
    is therefore a new call, emitted with the results that answer it under that id.
    """
    cid = as_id(call_id)
    if cid:
        return ("u", name, cid)
    parsed = try_loads(args) if isinstance(args, str) else args
    try:
        canon = canonical(parsed) if parsed is not None else args
    except (orjson.JSONEncodeError, TypeError, RecursionError):  # e.g. nested too deep
        canon = safe_dump(args)
    return ("u", name, "", canon)
