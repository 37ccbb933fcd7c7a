"""Builders for pipeline tests: ToolCalls, registries, event frames (build_frame only), and a
loopback HTTP server for live replay."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pandas as pd

from toolcall_cli.model.config import DEFAULT, Config
from toolcall_cli.model.events import COLUMNS, build_frame, validate_frame
from toolcall_cli.model.jsonio import dumps
from toolcall_cli.replay import ReplayReport
from toolcall_cli.replay.base import ReplayContext, ToolCall
from toolcall_cli.replay.live import LiveResult
from toolcall_cli.tools.loaders import tools_from_objects
from toolcall_cli.tools.registry import ToolRegistry, registry_from_defs

QUERY_DB = {
    "type": "function",
    "function": {
        "name": "query_db",
        "parameters": {
            "type": "object",
            "properties": {
                "user_id": {"type": "string", "minLength": 1},
                "date_range": {
                    "type": "object",
                    "properties": {
                        "start": {
                            "type": "string",
                            "format": "date",
                            "x-business-rules": {"min_date": "2020-01-01", "max_days_from_now": 30},
                        },
                        "end": {
                            "type": "string",
                            "format": "date",
                            "x-business-rules": {"min_date": "today"},
                        },
                    },
                    "required": ["start", "end"],
                },
                "unit": {"type": "string", "enum": ["day", "week", "month"]},
            },
            "required": ["user_id", "date_range"],
        },
    },
}
SEND_EMAIL = {
    "type": "function",
    "function": {
        "name": "send_email",
        "parameters": {
            "type": "object",
            "properties": {"to": {"type": "string", "format": "email"}},
            "required": ["to"],
        },
    },
}


def registry(*tools: dict[str, Any]) -> ToolRegistry:
    """A registry of OpenAI-style tool objects (default: query_db and send_email)."""
    return registry_from_defs(
        tools_from_objects(list(tools or (QUERY_DB, SEND_EMAIL)), file="test.json")
    )


def ctx(cfg: Config = DEFAULT, reg: ToolRegistry | None = None) -> ReplayContext:
    """A fresh replay context."""
    return ReplayContext(cfg=cfg, registry=reg)


def tc(
    cid: str = "c1",
    tool: str | None = "query_db",
    args: str | None = '{"user_id": "u1"}',
    **kw: Any,
) -> ToolCall:
    """A ToolCall with sensible defaults (session s1, messages source)."""
    kw.setdefault("origin", f"test#{cid}")
    kw.setdefault("source", "messages")
    kw.setdefault("session_id", "s1")
    kw.setdefault("trace_id", "t1")
    if "now" in kw and isinstance(kw["now"], str):
        kw["now"] = pd.Timestamp(kw["now"], tz="UTC")
    return ToolCall(tool_call_id=cid, tool=tool, args=args, **kw)


def frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """One event per dict; `attrs` may be a dict; absent columns are null; seq = position."""
    cols: dict[str, list[Any]] = {c: [] for c in COLUMNS}
    for i, r in enumerate(rows):
        r = dict(r)
        r.setdefault("seq", i)
        r.setdefault("origin", f"test#{i}")
        if isinstance(r.get("attrs"), dict):
            r["attrs"] = dumps(r["attrs"])
        for c in COLUMNS:
            cols[c].append(r.get(c))
    return validate_frame(build_frame(cols))


def call(
    cid: str, tool: str, args: str, *, turn: int = 1, session: str = "s1", **attrs: Any
) -> dict[str, Any]:
    """A messages tool_call event."""
    return {
        "source": "messages",
        "kind": "tool_call",
        "session_id": session,
        "tool_call_id": cid,
        "tool": tool,
        "args": args,
        "attrs": {"turn": turn, "msg_index": turn, **attrs},
    }


def result(
    cid: str | None, *, session: str = "s1", follows: bool = True, tool: str | None = None
) -> dict[str, Any]:
    """A messages tool_result event."""
    return {
        "source": "messages",
        "kind": "tool_result",
        "session_id": session,
        "tool_call_id": cid,
        "tool": tool,
        "detail": "ok",
        "attrs": {"follows_call": follows},
    }


def text(kind: str = "user", *, session: str = "s1") -> dict[str, Any]:
    """A user/assistant_text message event."""
    return {"source": "messages", "kind": kind, "session_id": session, "detail": "hi"}


def mw(
    kind: str, cid: str, ts: str, *, tool: str = "query_db", session: str = "s1", **extra: Any
) -> dict[str, Any]:
    """A middleware event."""
    return {
        "source": "middleware",
        "kind": kind,
        "session_id": session,
        "tool_call_id": cid,
        "tool": tool,
        "ts": ts,
        "trace_id": extra.pop("trace_id", "t1"),
        **extra,
    }


@contextmanager
def loopback(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve *handler* on 127.0.0.1 (a free port) in a thread; yields the base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def live_results(report: ReplayReport) -> tuple[LiveResult, ...]:
    """The live rows of *report*, typed: ``ReplayReport.live`` holds plain objects (the pipeline
    package does not import ``replay.live``), so each row is checked to be a ``LiveResult``."""
    assert report.live is not None, "live_replay always sets .live"
    rows = tuple(r for r in report.live if isinstance(r, LiveResult))
    assert len(rows) == len(report.live)
    return rows
