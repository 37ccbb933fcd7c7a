"""Stage 4, `response`: the tool service's answer honours the contract.

Checks (all reported; the code is the first): ``status-missing`` (no ``status`` field),
``call-id-mismatch`` (``call_id`` absent or not the request's id, or the middleware dropped
the response for that), ``timestamp-skew`` (``timestamp`` more than
``cfg.tolerance.timestamp_ms`` from the request's ``X-Request-Timestamp``, else the request
time), ``over-budget`` (body larger than ``cfg.budgets`` for the tool), ``error-with-data``
(``status: error`` with non-empty ``data``).

Evidence: the pcap response (the wire, every field known) first, else the middleware's
``Received response`` line (only the fields it logged are checked). No recorded response →
skip ``no-response``.
"""

from __future__ import annotations

from typing import Any, Final

import pandas as pd

from toolcall_cli.model.events import sources_where
from toolcall_cli.model.words import plural
from toolcall_cli.replay.base import (
    ReplayContext,
    ResponseEvidence,
    ToolCall,
    Verdict,
    failed,
    passed,
    skipped,
)

name: Final = "response"
#: Sources whose response evidence is a log line: it holds the fields the log chose to write.
_LOGGED: Final = sources_where(wire=False)


def to_ms(value: Any) -> float | None:
    """A timestamp (epoch s/ms/µs number or numeric text, or ISO 8601) in epoch milliseconds."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        text = value.strip()
        try:
            value = float(text)
        except ValueError:
            ts = pd.to_datetime(text, utc=True, errors="coerce")
            return None if pd.isna(ts) else float(ts.value) / 1e6
    if isinstance(value, int | float):
        v = float(value)
        if v > 1e14:  # microseconds
            return v / 1000.0
        return v if v > 1e11 else v * 1000.0
    return None


def check(call: ToolCall, ctx: ReplayContext) -> Verdict:
    """Judge the recorded response of *call* (see the module docstring)."""
    resp = call.response
    if resp is None:
        return skipped(name, "no-response", "no recorded response from the tool service")
    problems = violations(call, resp, ctx)
    if not problems:
        return passed(name, f"ok ({resp.source} evidence)")
    code, first = problems[0]
    more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
    detail = "\n".join(f"{c}: {t}" for c, t in problems) if len(problems) > 1 else ""
    return failed(name, code, first + more, detail=detail)


def violations(call: ToolCall, resp: ResponseEvidence, ctx: ReplayContext) -> list[tuple[str, str]]:
    """Every (code, text) the response breaks; used for recorded and live answers alike."""
    out: list[tuple[str, str]] = []
    wire = resp.source not in _LOGGED  # recorded on the wire, or a live answer
    if resp.status is None and wire:
        out.append(("status-missing", "the response has no 'status' field"))
    if resp.dropped_reason and "call_id" in resp.dropped_reason.lower():
        out.append(
            ("call-id-mismatch", f"the middleware dropped the response: {resp.dropped_reason}")
        )
    elif resp.has_call_id and resp.call_id != call.tool_call_id:
        got = "no call_id" if resp.call_id is None else f"call_id {resp.call_id!r}"
        out.append(
            (
                "call-id-mismatch",
                f"the response carries {got}, the request was {call.tool_call_id!r}",
            )
        )
    req = call.request
    ref = (
        None if req is None else (req.request_ts_ms if req.request_ts_ms is not None else req.ts_ms)
    )
    tol = ctx.cfg.tolerance.timestamp_ms
    if resp.timestamp_ms is not None and ref is not None and abs(resp.timestamp_ms - ref) > tol:
        out.append(
            (
                "timestamp-skew",
                f"response timestamp is {resp.timestamp_ms - ref:+.0f} ms from the request's "
                f"(tolerance ±{tol:g} ms)",
            )
        )
    budget = ctx.cfg.budgets.for_tool(call.tool)
    if resp.size is not None and resp.size > budget:
        out.append(
            (
                "over-budget",
                f"the response body is {plural(resp.size, 'byte')}, over the budget of {budget}",
            )
        )
    if (resp.status or "").lower() == "error" and resp.data_empty is False:
        out.append(("error-with-data", "status 'error' with non-empty 'data'"))
    return out
