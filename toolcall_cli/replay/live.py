"""Live replay: send each call the pipeline would dispatch to a running tool service.

The request is the middleware's: ``POST {target}/tools/NAME`` with the JSON body
``{"function": NAME, "arguments": {...}}`` and the headers ``X-Tool-Call-ID``, ``X-Trace-ID``
and ``X-Request-Timestamp`` (epoch ms, now). The answer goes through the `response` stage
(status, call_id, timestamp against the request's, size budget, error with data) and is
compared field by field with the recorded response, ignoring volatile fields (``--ignore``,
default ``timestamp``).

Only loopback targets (127.0.0.0/8, ::1, localhost) are allowed unless the user says
``--allow-remote``: replay carries recorded, possibly sensitive arguments. The transport
(`live_http`) resolves the host once and connects to the checked address, follows no redirect
(a 3xx is the answer), reads no proxy from the environment, and holds each call to one total
deadline (``--timeout``).
"""

from __future__ import annotations

import http.client
import time
import urllib.parse
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

import orjson

from toolcall_cli.model.config import DEFAULT, Config
from toolcall_cli.model.events import WIRE_SOURCES
from toolcall_cli.model.jsonio import dumps, try_loads
from toolcall_cli.replay import ReplayReport, response
from toolcall_cli.replay.base import (
    ReplayContext,
    RequestEvidence,
    ResponseEvidence,
    ToolCall,
    Verdict,
    failed,
    passed,
)
from toolcall_cli.replay.live_http import (
    DeadlineExceeded,
    Target,
    parse_target,
    post,
    resolve,
)
from toolcall_cli.replay.observe import was_dispatched

REDIRECTS: Final = range(300, 400)  # answers reported as they are, never followed


@dataclass(frozen=True, slots=True)
class FieldDiff:
    """One field whose live value differs from the recorded one (JSON text; "" = absent)."""

    path: str
    recorded: str
    live: str


@dataclass(frozen=True, slots=True)
class LiveResult:
    """The live answer to one replayed call."""

    tool_call_id: str
    tool: str | None
    url: str
    http_status: int | None
    elapsed_ms: float | None
    verdict: Verdict
    diffs: tuple[FieldDiff, ...] = ()


def check_target(url: str, *, allow_remote: bool = False) -> str:
    """The target base URL as shown (userinfo redacted); a bad URL or a non-loopback host
    without *allow_remote* is a UsageError."""
    target = parse_target(url)
    if not allow_remote:
        resolve(target, allow_remote=False)
    return target.shown


def live_replay(
    report: ReplayReport,
    *,
    target: str,
    cfg: Config = DEFAULT,
    timeout: float = 5.0,
    ignore: Sequence[str] = ("timestamp",),
    allow_remote: bool = False,
) -> ReplayReport:
    """*report* with a live result for every call the pipeline would dispatch."""
    parsed = parse_target(target)
    # Resolved once, here: every call connects to this checked address, never to the name.
    addr = resolve(parsed, allow_remote=allow_remote)[0]
    ctx = ReplayContext(cfg=cfg)
    results = [
        _one(c.call, parsed, addr, report.trace_id, ctx, timeout=timeout, ignore=set(ignore))
        for c in sorted(report.calls, key=lambda c: (c.session_id or "", c.clock, c.origin))
        if c.call is not None and was_dispatched(c.replayed) and c.call.args_recorded
    ]
    return replace(report, live=tuple(results))


def _one(
    call: ToolCall,
    target: Target,
    addr: str,
    trace: str | None,
    ctx: ReplayContext,
    *,
    timeout: float,
    ignore: set[str],
) -> LiveResult:
    tool = call.tool or ""
    path = f"/tools/{urllib.parse.quote(tool, safe='')}"
    url = target.shown + path
    sent_ms = time.time() * 1000.0
    body = orjson.dumps({"function": tool, "arguments": call.sent_arguments()})
    headers = {
        "Content-Type": "application/json",
        "X-Tool-Call-ID": _header(call.tool_call_id),
        "X-Trace-ID": _header(call.trace_id or trace or ""),
        "X-Request-Timestamp": str(int(sent_ms)),
    }
    start = time.monotonic()
    try:
        status, answer_headers, raw = post(target, addr, path, body, headers, timeout=timeout)
    except DeadlineExceeded:
        return _failure(call, url, "timeout", f"no complete answer within {timeout:g} s")
    except (OSError, http.client.HTTPException) as e:
        return _failure(call, url, "unreachable", f"connection to {url} failed: {e}")
    elapsed = round((time.monotonic() - start) * 1000.0, 1)
    if status in REDIRECTS:
        where = _header(answer_headers.get("location", ""))[:200] or "no Location"
        verdict = failed("response", "redirect", f"answered {status} ({where}); not followed")
        return LiveResult(call.tool_call_id, call.tool, url, status, elapsed, verdict)
    live = _evidence(raw, status)
    probe = replace(call, request=RequestEvidence("live", sent_ms, sent_ms))
    problems = response.violations(probe, live, ctx)
    verdict = (
        failed(
            "response",
            problems[0][0],
            problems[0][1],
            detail="\n".join(f"{c}: {t}" for c, t in problems) if len(problems) > 1 else "",
        )
        if problems
        else passed("response", "ok (live answer)")
    )
    diffs = tuple(_diff(_recorded(call.response), _fields(live), ignore))
    return LiveResult(call.tool_call_id, call.tool, url, status, elapsed, verdict, diffs)


def _header(value: str) -> str:
    """A recorded id as a header value: no CR/LF or other controls, latin-1 only."""
    clean = "".join(ch if ch.isprintable() else "?" for ch in value)
    return clean.encode("latin-1", "replace").decode("latin-1")


def _failure(call: ToolCall, url: str, code: str, reason: str) -> LiveResult:
    return LiveResult(
        call.tool_call_id, call.tool, url, None, None, failed("response", code, reason)
    )


def _evidence(raw: bytes, status: int) -> ResponseEvidence:
    body = try_loads(raw)
    doc = body if isinstance(body, dict) else {}
    data = doc.get("data")
    return ResponseEvidence(
        origin="live",
        source="live",
        status=None if doc.get("status") is None else str(doc["status"]),
        call_id=None if doc.get("call_id") is None else str(doc["call_id"]),
        has_call_id=True,
        timestamp_ms=response.to_ms(doc.get("timestamp")),
        size=len(raw),
        data_empty=(data in (None, "", [], {})) if "data" in doc else None,
        http_status=status,
        body=doc if isinstance(body, dict) else None,
    )


def _fields(ev: ResponseEvidence) -> dict[str, Any]:
    out: dict[str, Any] = {"http_status": ev.http_status}
    if ev.body is not None:
        out.update(_flatten(ev.body, ""))
    return out


def _recorded(ev: ResponseEvidence | None) -> dict[str, Any]:
    """The fields the recorded evidence knows (a whole body from pcap, else what was logged)."""
    if ev is None:
        return {}
    out: dict[str, Any] = {}
    if ev.http_status is not None:
        out["http_status"] = ev.http_status
    if ev.body is not None:
        out.update(_flatten(ev.body, ""))
        return out
    if ev.status is not None or ev.source in WIRE_SOURCES:
        out["status"] = ev.status
    if ev.has_call_id:
        out["call_id"] = ev.call_id
    return out


def _flatten(value: Any, path: str) -> Iterable[tuple[str, Any]]:
    if isinstance(value, dict) and value:
        for k, v in value.items():
            yield from _flatten(v, f"{path}.{k}" if path else str(k))
    else:
        yield path, value


def _diff(recorded: dict[str, Any], live: dict[str, Any], ignore: set[str]) -> Iterable[FieldDiff]:
    """Fields the recording knows that the live answer has differently (ignored fields skipped)."""
    for path in sorted(recorded):
        if path in ignore or path.rsplit(".", 1)[-1] in ignore:
            continue
        if path not in live:
            yield FieldDiff(path, dumps(recorded[path]), "")
        elif dumps(recorded[path]) != dumps(live[path]):
            yield FieldDiff(path, dumps(recorded[path]), dumps(live[path]))
