"""Live replay against an MCP server: re-send each recorded `tools/call` through the official
`mcp` SDK client and compare the live result with the recorded one.

One client session (stdio or streamable HTTP, see :mod:`.live_mcp_target`) carries every call
of the trace in recorded order, so a call that changes the server's state (registers a tool,
say) comes before the calls that rely on it. Each call gets the recorded time limit: the delay
after which the recording's client cancelled it (`notifications/cancelled`), else
``--timeout``. Per call the comparison covers the outcome (``result``, ``error`` for a
JSON-RPC error, ``timeout``), `isError`, the content (its text, compared by SHA-256) and
`structuredContent`; the latencies are reported beside it. The SDK is an optional extra
(``pip install 'toolcall[mcp]'``); without it the run is a missing dependency (exit 4).
"""

from __future__ import annotations

import hashlib
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import IO, Any, Final, TextIO, cast

import pandas as pd

from toolcall_cli.errors import MissingDependencyError
from toolcall_cli.model.events import CALL_KINDS, CANCEL_KINDS, RESULT_KINDS
from toolcall_cli.model.jsonio import dumps, try_loads
from toolcall_cli.replay import ReplayReport
from toolcall_cli.replay.base import ToolCall, failed, passed, shorten
from toolcall_cli.replay.live import FieldDiff, LiveResult
from toolcall_cli.replay.live_mcp_target import McpTarget
from toolcall_cli.sources.mcp.session import content_text

HINT: Final = "pip install 'toolcall[mcp]'"
#: Characters of a content text shown in a diff.
SHOWN: Final = 120
#: JSON-RPC "request timed out" (the SDK's code when read_timeout_seconds passes).
_TIMED_OUT: Final = -32001


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one call came to: recorded in the evidence, or answered live."""

    kind: str  # "result" | "error" | "timeout" | "unknown"
    is_error: bool | None = None
    text: str | None = None  # the content's text (None when not known in full)
    structured: Any = None
    latency_ms: float | None = None
    size: int | None = None

    def fields(self) -> dict[str, str]:
        """The compared fields as JSON text ("" for a field this outcome cannot say)."""
        out = {"outcome": dumps(self.kind)}
        if self.kind in ("result", "error"):
            out["isError"] = dumps(self.is_error)
            if self.text is not None:
                out["content"] = hashlib.sha256(self.text.encode()).hexdigest()
            if self.structured is not None:
                out["structuredContent"] = dumps(self.structured)
        return out


def live_mcp_replay(
    report: ReplayReport, events: pd.DataFrame, *, target: McpTarget, timeout: float = 5.0
) -> ReplayReport:
    """*report* with a live MCP result for every recorded call whose arguments are known."""
    try:
        import anyio
        import mcp  # noqa: F401 - the SDK, checked before anything starts
    except ImportError:
        raise MissingDependencyError(
            "replaying against an MCP server needs the mcp SDK", hint=HINT
        ) from None
    calls = [
        c.call
        for c in sorted(report.calls, key=lambda c: (c.session_id or "", c.clock, c.origin))
        if c.call is not None and c.call.args_recorded
    ]
    recorded = [recorded_outcome(events, c) for c in calls]
    limits = [_limit(r, timeout) for r in recorded]
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        lives = anyio.run(_session, target, calls, limits, errlog)
        server_said = _tail(errlog)
    results = tuple(
        _result(call, target, rec, live, limit, server_said)
        for call, rec, live, limit in zip(calls, recorded, lives, limits, strict=True)
    )
    return replace(report, live=results)


def recorded_outcome(events: pd.DataFrame, call: ToolCall) -> Outcome:
    """The recorded fate of *call*: its tool result, its cancellation, or unknown."""
    mine = events[
        (events["tool_call_id"] == call.tool_call_id)
        & (events["session_id"].fillna("") == (call.session_id or ""))
    ]
    started = mine[mine["kind"].isin(CALL_KINDS)]["ts"].min()
    for _, row in mine[mine["kind"].isin(RESULT_KINDS)].iterrows():
        attrs = try_loads(row["attrs"]) if isinstance(row["attrs"], str) else None
        a = attrs if isinstance(attrs, dict) else {}
        text = row["detail"] if isinstance(row["detail"], str) else ""
        size = None if pd.isna(row["size"]) else int(row["size"])
        return Outcome(
            kind="error" if "error_code" in a else "result",
            is_error=bool(a.get("is_error", row["status"] == "error")),
            text=text if size is None or size == len(text) else None,  # cut: hash unknown
            structured=a.get("structured_content"),
            latency_ms=None if pd.isna(row["duration_ms"]) else float(row["duration_ms"]),
            size=size,
        )
    cancels = mine[mine["kind"].isin(CANCEL_KINDS)]
    if len(cancels):
        waited = (cancels["ts"].min() - started).total_seconds() * 1000.0
        return Outcome(kind="timeout", latency_ms=None if pd.isna(waited) else waited)
    return Outcome(kind="unknown")


def _limit(rec: Outcome, timeout: float) -> float:
    """The call's time limit (s): the recorded client's, when it cancelled, else --timeout."""
    if rec.kind == "timeout" and rec.latency_ms is not None and rec.latency_ms > 0:
        return min(rec.latency_ms / 1000.0, timeout)
    return timeout


async def _session(
    target: McpTarget, calls: Sequence[ToolCall], limits: Sequence[float], errlog: IO[str]
) -> list[Outcome | str]:
    """Every call through one SDK client session; a string says why a call got no answer."""
    try:
        async with _client(target, errlog, max(limits, default=5.0)) as client:
            return [await _call(client, c, limit) for c, limit in zip(calls, limits, strict=True)]
    except Exception as e:  # the SDK's many connection failures (spawn, HTTP, handshake)
        why = f"no MCP session with {target.shown}: {_reason(e)}"
        return [why] * len(calls)


def _client(target: McpTarget, errlog: IO[str], read_timeout: float) -> Any:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    if target.transport == "stdio":
        params = StdioServerParameters(command=target.argv[0], args=list(target.argv[1:]))
        return Client(stdio_client(params, errlog=cast(TextIO, errlog)))
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(
        headers=target.headers,
        trust_env=False,  # no proxy from the environment: the connection goes to the checked host
        follow_redirects=False,
        timeout=httpx2.Timeout(read_timeout + 5.0),
    )
    return Client(streamable_http_client(target.url, http_client=http))


async def _call(client: Any, call: ToolCall, limit: float) -> Outcome | str:
    import anyio
    from mcp import MCPError

    try:
        args = call.arguments()
    except ValueError:
        return "arguments are not JSON: not sent"
    start = time.monotonic()
    try:
        with anyio.fail_after(limit + 1.0):  # the SDK's own timeout comes first
            res = await client.call_tool(call.tool or "", args, read_timeout_seconds=limit)
    except TimeoutError:
        return Outcome(kind="timeout", latency_ms=_ms(start))
    except MCPError as e:
        if e.code == _TIMED_OUT:
            return Outcome(kind="timeout", latency_ms=_ms(start))
        text = f"JSON-RPC error {e.code}: {e.error.message}"
        return Outcome(kind="error", is_error=True, text=text, latency_ms=_ms(start))
    doc = res.model_dump(mode="json", by_alias=True, exclude_none=True)
    text = content_text(doc.get("content"))
    return Outcome(
        kind="result",
        is_error=doc.get("isError") is True,
        text=text,
        structured=doc.get("structuredContent"),
        latency_ms=_ms(start),
        size=len(text),
    )


def _result(
    call: ToolCall,
    target: McpTarget,
    rec: Outcome,
    live: Outcome | str,
    limit: float,
    server_said: str,
) -> LiveResult:
    where = f"{target.transport}: {target.shown}"
    if isinstance(live, str):
        reason = live + (f" (server: {server_said})" if server_said else "")
        verdict = failed("response", "unreachable", shorten(reason, 300))
        return LiveResult(call.tool_call_id, call.tool, where, None, None, verdict)
    diffs = tuple(_diffs(rec, live))
    latency = _latencies(rec, live)
    if live.kind == "timeout":
        verdict = (
            passed("response", f"timed out after {limit:.3g} s, as recorded")
            if rec.kind == "timeout"
            else failed("response", "timeout", f"no answer within {limit:.3g} s{latency}")
        )
    elif diffs:
        changed = ", ".join(d.path for d in diffs)
        verdict = failed("response", "result-changed", f"live result differs: {changed}{latency}")
    else:
        verdict = passed("response", f"same result as recorded{latency}")
    return LiveResult(call.tool_call_id, call.tool, where, None, live.latency_ms, verdict, diffs)


def _diffs(rec: Outcome, live: Outcome) -> list[FieldDiff]:
    if rec.kind == "unknown":
        return []
    mine, theirs = rec.fields(), live.fields()
    out = []
    for path in mine:  # only what the recording knows
        if mine[path] == theirs.get(path, ""):
            continue
        if path == "content":  # show the texts, not their hashes
            out.append(FieldDiff(path, _shown(rec.text), _shown(live.text)))
        else:
            out.append(FieldDiff(path, mine[path], theirs.get(path, "")))
    return out


def _latencies(rec: Outcome, live: Outcome) -> str:
    if live.latency_ms is None:
        return ""
    then = f"; recorded {rec.latency_ms:.0f} ms" if rec.latency_ms is not None else ""
    return f" (live {live.latency_ms:.0f} ms{then})"


def _shown(text: str | None) -> str:
    return "" if text is None else dumps(shorten(text, SHOWN))


def _ms(start: float) -> float:
    return round((time.monotonic() - start) * 1000.0, 1)


def _reason(e: BaseException) -> str:
    """The first leaf of an exception group (anyio wraps the SDK's errors), as one line."""
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    text = str(e).splitlines()[0] if str(e) else ""
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _tail(log: IO[str]) -> str:
    """The server's last stderr line (why it stopped, usually)."""
    log.seek(0)
    lines = [ln.strip() for ln in log.read()[-4000:].splitlines() if ln.strip()]
    return shorten(lines[-1], 200) if lines else ""
