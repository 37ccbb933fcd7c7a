"""The layouts an MCP transcript comes in, read into one list of records.

* newline-delimited JSON-RPC, as a stdio session carries it (a line may be a batch array);
* the same wrapped per line as ``{"ts", "direction", "message"}`` (a recording tee; aliases
  `time`/`timestamp`, `dir`, `msg`/`data`, `session`/`session_id`/`sessionId`; a message
  given as JSON text is read too);
* log lines ``[ts] [client -> server] {json}`` (also ``→``, ``<-`` and ``server -> client``);
* an MCP Inspector history export: ``[{"request": <json>, "response": <json>}]`` (JSON text
  as the Inspector keeps it, or objects; also under a ``history`` key).

A line that is none of these (a stray print on stdout, a cut message) is a record without a
message, which becomes an ``unparsed`` row.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from toolcall_cli.model.jsonio import try_loads

CLIENT: Final = "client->server"
SERVER: Final = "server->client"

_ARROW = re.compile(
    r"^(?:\[(?P<bts>[^\]]*)\]|(?P<ts>[^\[]*?))"  # a time, bracketed or not
    r"\s*\[\s*(?P<a>client|server)\s*(?P<op>->|→|<-|←)\s*(?P<b>client|server)\s*\]"
    r"\s*(?P<json>.*)$",
    re.IGNORECASE,
)
_TS_KEYS: Final = ("ts", "time", "timestamp", "@timestamp")
_MSG_KEYS: Final = ("message", "msg", "data", "payload")
_DIR_KEYS: Final = ("direction", "dir", "from")
_SESSION_KEYS: Final = ("session", "session_id", "sessionId", "mcp_session_id")
_DIRECTIONS: Final = {
    "client->server": CLIENT,
    "client_to_server": CLIENT,
    "c2s": CLIENT,
    "send": CLIENT,
    "sent": CLIENT,
    "outgoing": CLIENT,
    "request": CLIENT,
    "client": CLIENT,
    "server->client": SERVER,
    "server_to_client": SERVER,
    "s2c": SERVER,
    "receive": SERVER,
    "received": SERVER,
    "incoming": SERVER,
    "response": SERVER,
    "server": SERVER,
}


@dataclass(frozen=True, slots=True)
class Record:
    """One JSON-RPC message (or an unreadable line) and what its layout said about it."""

    pointer: str  # origin suffix: ":12" (line) or "#/3/request" (document pointer)
    message: dict[str, Any] | None
    raw: str = ""  # the text, kept only for unparsed rows
    ts: Any = None  # ISO text or epoch number, as recorded
    direction: str | None = None  # CLIENT / SERVER when the layout says
    session: str | None = None


def is_message(obj: Any) -> bool:
    """A JSON-RPC 2.0 request, notification or response object."""
    return isinstance(obj, dict) and (
        obj.get("jsonrpc") == "2.0"
        or ("method" in obj and isinstance(obj.get("method"), str))
        or ("id" in obj and ("result" in obj or "error" in obj))
    )


def from_lines(lines: list[str]) -> Iterator[Record]:
    """Records of a line-oriented transcript (JSON-RPC, wrapped or log lines)."""
    for n, line in enumerate(lines, 1):
        text = line.strip()
        if not text:
            continue
        where = f":{n}"
        arrow = _ARROW.match(text)
        if arrow:
            yield from _from_arrow(where, arrow, text)
            continue
        obj = try_loads(text)
        if isinstance(obj, list) and obj and all(is_message(m) for m in obj):  # a batch
            for k, m in enumerate(obj):
                yield Record(f"{where}#/{k}", m)
        elif is_message(obj):
            yield Record(where, obj)
        elif isinstance(obj, dict) and _wrapped(obj) is not None:
            yield from _from_wrapper(where, obj)
        else:
            yield Record(where, None, text)


def _from_arrow(where: str, m: re.Match[str], text: str) -> Iterator[Record]:
    a, b = m["a"].lower(), m["b"].lower()
    sender = a if m["op"] in ("->", "→") else b
    direction = CLIENT if sender == "client" else SERVER
    obj = try_loads(m["json"])
    ts = (m["bts"] or m["ts"] or "").strip() or None
    msgs = obj if isinstance(obj, list) else [obj]
    if not msgs or not all(is_message(x) for x in msgs):
        yield Record(where, None, text, ts, direction)
        return
    for k, msg in enumerate(msgs):
        yield Record(where if len(msgs) == 1 else f"{where}#/{k}", msg, "", ts, direction)


def _wrapped(obj: dict[str, Any]) -> Any:
    for key in _MSG_KEYS:
        if key in obj:
            value = obj[key]
            value = try_loads(value) if isinstance(value, str) else value
            if is_message(value) or (
                isinstance(value, list) and value and all(is_message(v) for v in value)
            ):
                return value
    return None


def _from_wrapper(where: str, obj: dict[str, Any]) -> Iterator[Record]:
    msg = _wrapped(obj)
    ts = next((obj[k] for k in _TS_KEYS if obj.get(k) is not None), None)
    raw_dir = next((obj[k] for k in _DIR_KEYS if isinstance(obj.get(k), str)), None)
    direction = _DIRECTIONS.get(raw_dir.strip().lower().replace(" ", "")) if raw_dir else None
    session = next((str(obj[k]) for k in _SESSION_KEYS if obj.get(k) not in (None, "")), None)
    msgs = msg if isinstance(msg, list) else [msg]
    for k, m in enumerate(msgs):
        yield Record(where if len(msgs) == 1 else f"{where}#/{k}", m, "", ts, direction, session)


def from_inspector(doc: Any) -> Iterator[Record]:
    """Records of an Inspector history export, request then response per item.

    The Inspector keeps ``JSON.stringify({method, params})`` and ``JSON.stringify(result)`` (or
    ``{"error": message}``), not the JSON-RPC envelopes: a request without an id takes its
    1-based position in the history (the number the Inspector shows) as its id, and the
    response is wrapped as that id's result or error.
    """
    items = doc.get("history") if isinstance(doc, dict) else doc
    for i, item in enumerate(items if isinstance(items, list) else ()):
        req = _json_of(item.get("request")) if isinstance(item, dict) else None
        if not isinstance(req, dict) or not isinstance(req.get("method"), str):
            yield Record(f"#/{i}", None, str(item)[:2000])
            continue
        msg = {"jsonrpc": "2.0", **req}
        if "id" not in msg and not req["method"].startswith("notifications/"):
            msg["id"] = str(i + 1)
        yield Record(f"#/{i}/request", msg, direction=CLIENT)
        resp = _json_of(item.get("response"))
        if resp is not None:
            yield Record(f"#/{i}/response", _envelope(resp, msg.get("id")), direction=SERVER)


def _json_of(value: Any) -> Any:
    return try_loads(value) if isinstance(value, str) else value


def _envelope(resp: Any, rid: Any) -> dict[str, Any]:
    """A JSON-RPC response for an Inspector response body (kept as is when it is one)."""
    if isinstance(resp, dict) and "id" in resp and ("result" in resp or "error" in resp):
        return resp
    if isinstance(resp, dict) and set(resp) == {"error"}:
        err = resp["error"]
        return {"jsonrpc": "2.0", "id": rid,
                "error": err if isinstance(err, dict) else {"message": str(err)}}  # fmt: skip
    return {"jsonrpc": "2.0", "id": rid, "result": resp}


def looks_like_inspector(doc: Any) -> bool:
    """A JSON document of request/response history items."""
    items = doc.get("history") if isinstance(doc, dict) else doc
    if not isinstance(items, list) or not items:
        return False
    first = items[0]
    return isinstance(first, dict) and "request" in first and _message_text(first["request"])


def _message_text(value: Any) -> bool:
    return is_message(try_loads(value) if isinstance(value, str) else value)
