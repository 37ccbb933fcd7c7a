"""JSON-RPC records of MCP sessions as event rows: requests paired with responses on the id.

Ids are per sender and per session (a client's id 3 and a server's id 3 are different
requests), so a response is paired with the open request of the other side carrying its id.
An `initialize` after traffic starts a new session in the same file. Each session keeps:

* open requests by (sender, id) — a request reusing an open or finished id is counted
  (`attrs.id_reused`) and replaces it; a response matching nothing is `unmatched_response`;
* the progress tokens of its requests (``params._meta.progressToken``), so a progress
  notification names the call it reports on;
* its protocol revision: from `initialize`, or from each request's
  ``_meta["io.modelcontextprotocol/protocolVersion"]`` (2026-07-28, no handshake).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from toolcall_cli.model.jsonio import dumps
from toolcall_cli.sources.mcp.records import CLIENT, SERVER, Record

Row = dict[str, Any]

_VERSION_META: Final = "io.modelcontextprotocol/protocolVersion"
#: Methods only a server sends (the rest, and every unknown one, are taken as the client's).
_SERVER_METHODS: Final = frozenset(
    {
        "sampling/createMessage",
        "elicitation/create",
        "roots/list",
        "notifications/progress",
        "notifications/message",
        "notifications/tools/list_changed",
        "notifications/resources/list_changed",
        "notifications/resources/updated",
        "notifications/prompts/list_changed",
    }
)
#: Characters of content kept in `detail`.
TEXT_CAP: Final = 4000


@dataclass(slots=True)
class _Open:
    method: str
    tool: str | None
    row: Row


@dataclass(slots=True)
class Session:
    """Pairing state of one MCP session."""

    name: str | None
    open: dict[tuple[str, str], _Open] = field(default_factory=dict)
    used: dict[tuple[str, str], int] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)  # progress token → request id
    methods: dict[str, str] = field(default_factory=dict)  # request id → its latest method
    version: str | None = None
    traffic: bool = False


def rows_of(records: list[Record], stem: str) -> list[Row]:
    """Event rows (without source/seq) for the records of one file, in record order."""
    sessions: list[Session] = []
    cur: Session | None = None
    rows: list[Row] = []
    for rec in records:
        if rec.message is None:
            rows.append(
                {
                    "kind": "unparsed",
                    "pointer": rec.pointer,
                    "detail": rec.raw[:2000],
                    "attrs": {"reason": "not a JSON-RPC message"},
                    "ts": rec.ts,
                }
            )
            continue
        msg = rec.message
        starts = msg.get("method") == "initialize" and "id" in msg
        if cur is None or (starts and cur.traffic) or (rec.session and rec.session != cur.name):
            cur = Session(rec.session)
            sessions.append(cur)
        cur.traffic = True
        row = _row(cur, rec, msg, len(rows))
        row["_session"] = cur
        rows.append(row)
    named = len(sessions) == 1
    for k, s in enumerate(sessions, 1):
        if s.name is None:
            s.name = stem if named else f"{stem}:{k}"
    for r in rows:
        s = r.pop("_session", None)
        if s is not None:
            r["session_id"] = s.name
    return rows


def _sender(rec: Record, msg: dict[str, Any], s: Session) -> str:
    if rec.direction:
        return rec.direction
    method = msg.get("method")
    if isinstance(method, str):
        return SERVER if method in _SERVER_METHODS else CLIENT
    # a response answers the side whose request with this id is open; when both sides have
    # one open, the later request (a server's sampling request inside a running tool call)
    rid = _id(msg.get("id"))
    mine, theirs = s.open.get((CLIENT, rid)), s.open.get((SERVER, rid))
    if mine is not None and theirs is not None:
        return CLIENT if theirs.row["_i"] > mine.row["_i"] else SERVER
    return CLIENT if theirs is not None else SERVER


def _id(value: Any) -> str:
    return value if isinstance(value, str) else dumps(value)


def _row(s: Session, rec: Record, msg: dict[str, Any], index: int) -> Row:
    sender = _sender(rec, msg, s)
    base: Row = {"pointer": rec.pointer, "ts": rec.ts, "_i": index}
    attrs: dict[str, Any] = {"direction": sender}
    method = msg.get("method")
    params: dict[str, Any] = msg["params"] if isinstance(msg.get("params"), dict) else {}
    meta: dict[str, Any] = params["_meta"] if isinstance(params.get("_meta"), dict) else {}
    if isinstance(meta.get(_VERSION_META), str):
        s.version = meta[_VERSION_META]
    if isinstance(method, str) and "id" in msg:
        return _request(s, base, attrs, sender, msg, method, params, meta)
    if isinstance(method, str):
        return _notification(s, base, attrs, method, params)
    return _response(s, base, attrs, sender, msg)


def _request(
    s: Session,
    base: Row,
    attrs: dict[str, Any],
    sender: str,
    msg: dict[str, Any],
    method: str,
    params: dict[str, Any],
    meta: dict[str, Any],
) -> Row:
    rid = _id(msg["id"])
    key = (sender, rid)
    if key in s.used:
        attrs["id_reused"] = s.used[key]  # earlier requests of this sender with this id
    s.used[key] = s.used.get(key, 0) + 1
    s.methods[rid] = method
    if method == "initialize" and isinstance(params.get("protocolVersion"), str):
        s.version = params["protocolVersion"]
    token = meta.get("progressToken")
    if token is not None:
        s.tokens[_id(token)] = rid
        attrs["progress_token"] = token
    attrs.update({"method": method, "jsonrpc_id": msg["id"], "protocol_version": s.version})
    tool = params.get("name") if method == "tools/call" else None
    if method == "tools/call":
        args = params.get("arguments")
        row = {
            **base,
            "kind": "tool_call",
            "tool_call_id": rid,
            "tool": tool if isinstance(tool, str) else None,
            "args": args if isinstance(args, str) else None if args is None else dumps(args),
            "detail": f"tools/call {tool}",
        }
        if args is not None and not isinstance(args, str | dict):
            attrs["args_type"] = type(args).__name__
    else:
        row = {**base, "kind": "mcp_message", "detail": method}
    row["attrs"] = attrs
    s.open[key] = _Open(method, tool if isinstance(tool, str) else None, row)
    return row


def _notification(
    s: Session, base: Row, attrs: dict[str, Any], method: str, params: dict[str, Any]
) -> Row:
    attrs["method"] = method
    if method == "notifications/progress":
        token = params.get("progressToken")
        rid = s.tokens.get(_id(token)) if token is not None else None
        attrs.update({k: params.get(k) for k in ("progress", "total") if k in params})
        attrs["progress_token"] = token
        return {
            **base,
            "kind": "mcp_progress",
            "tool_call_id": _call_id(s, rid),
            "detail": params.get("message") if isinstance(params.get("message"), str) else None,
            "attrs": attrs,
        }
    if method == "notifications/cancelled":
        rid = _id(params["requestId"]) if "requestId" in params else None
        reason = params.get("reason")
        attrs["request_id"] = params.get("requestId")
        return {
            **base,
            "kind": "mcp_cancelled",
            "tool_call_id": _call_id(s, rid),
            "status": "cancelled",
            "detail": reason if isinstance(reason, str) else None,
            "attrs": attrs,
        }
    if method == "notifications/tools/list_changed":
        return {**base, "kind": "mcp_tools_changed", "detail": "tools list changed", "attrs": attrs}
    return {**base, "kind": "mcp_message", "detail": method, "attrs": attrs}


def _call_id(s: Session, rid: str | None) -> str | None:
    """The id as a tool_call_id when it names a tools/call of this session."""
    if rid is None:
        return None
    return rid if s.methods.get(rid) == "tools/call" else None


def _response(
    s: Session, base: Row, attrs: dict[str, Any], sender: str, msg: dict[str, Any]
) -> Row:
    rid = _id(msg.get("id"))
    requester = CLIENT if sender == SERVER else SERVER
    opened = s.open.pop((requester, rid), None)
    attrs["jsonrpc_id"] = msg.get("id")
    err = msg.get("error")
    result: dict[str, Any] = msg["result"] if isinstance(msg.get("result"), dict) else {}
    if opened is None:
        attrs["unmatched_response"] = True
    else:
        attrs["method"] = opened.method
        if opened.method == "initialize" and isinstance(result.get("protocolVersion"), str):
            s.version = result["protocolVersion"]
    method = opened.method if opened else None
    looks_tool = method == "tools/call" or (opened is None and "content" in result)
    if isinstance(err, dict):
        attrs.update({"error_code": err.get("code"), "error_data": err.get("data")})
    status = "error" if err is not None or result.get("isError") is True else "ok"
    if looks_tool:
        text = content_text(result.get("content")) if err is None else _err_text(err)
        attrs["is_error"] = result.get("isError") is True
        if "structuredContent" in result:
            attrs["structured_content"] = result["structuredContent"]
        row = {
            **base,
            "kind": "tool_result",
            "tool_call_id": rid,
            "tool": opened.tool if opened else None,
            "status": status,
            "detail": text[:TEXT_CAP],
            "size": len(text),
        }
    elif method == "tools/list" and isinstance(result.get("tools"), list):
        attrs["tools"] = result["tools"]
        row = {**base, "kind": "system", "detail": "tools declared", "size": len(result["tools"])}
    else:
        row = {
            **base,
            "kind": "mcp_message",
            "status": status,
            "detail": _err_text(err) if err is not None else f"result of {method or '?'}",
        }
    attrs["protocol_version"] = s.version
    if opened is not None:
        row["_req"] = opened.row["_i"]
    row["attrs"] = attrs
    return row


def _err_text(err: Any) -> str:
    if isinstance(err, dict) and err.get("code") is not None:
        return f"JSON-RPC error {err.get('code')}: {err.get('message')}"
    if isinstance(err, dict):
        return f"error: {err.get('message')}"
    return f"JSON-RPC error: {err}"


def content_text(content: Any) -> str:
    if not isinstance(content, list):
        return "" if content is None else dumps(content)
    parts = []
    for block in content:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif isinstance(block, dict):
            parts.append(f"[{block.get('type', 'content')}]")
    return "\n".join(parts)
