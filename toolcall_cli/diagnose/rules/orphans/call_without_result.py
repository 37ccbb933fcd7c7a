"""\
What it does
  Pairs every tool call with a tool result by tool_call_id (and, for calls with an empty id,
  by position: the results directly after the assistant message). For each call left without
  a result it walks the round trip through the other sources to find the breakpoint:
  the client cancelled it (MCP `notifications/cancelled`) → `cancelled`; no request to the
  tool service → `blocked`; a request (or progress reported by the tool) but no response →
  `no-response`; a
  response carrying another call_id, or dropped by the middleware → `response-dropped`; a
  response received but never injected → `not-injected`; otherwise `unknown`. When nothing
  else records the call and the user aborted its turn (Codex `turn_aborted`, Claude Code's
  `[Request interrupted by user]`), it is not reported: the user stopped the turn, no hop
  failed, and the timeline shows the call `cancelled` beside the abort.
  A recorded conversation may legitimately end on an assistant turn whose calls were never
  answered (a cassette's final response, a transcript cut when the session closed). When the
  unanswered call is in the conversation's last message and no other source says anything
  about it, the finding is a warning with breakpoint `unknown` instead of an error. A last
  call to an agent framework's answer action (ToolBench's `Finish`, pydantic-ai's output
  tool `final_result`, OpenHands' `finish`) is the agent's final answer, which no tool runs:
  it is not reported.

Why it matters
  Providers reject the next request when a call has no result ("An assistant message with
  'tool_calls' must be followed by tool messages responding to each 'tool_call_id'"), and a
  model that never sees a result repeats the call, which ends in a flooding cancellation.
  The breakpoint says which hop to fix.

Example
  call_7 book_flight is received by the middleware, no `POST /tools/book_flight` follows and
  no rejection is logged: breakpoint `blocked` (see TR001 for the rule that dropped it).

Fix
  At the breakpoint, make the hop answer: a rejected or dropped call must still produce a
  tool message (an error the model can act on); a timed-out request must produce a timeout
  result; a received response must be injected with the call's id.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import objects, with_attrs
from toolcall_cli.diagnose.kit.incidents import SLOW_REQUEST
from toolcall_cli.diagnose.rules.orphans.aborted_turns import aborted_calls
from toolcall_cli.diagnose.rules.orphans.pairing import conversation_index, positional_results
from toolcall_cli.model.cells import text
from toolcall_cli.model.events import (
    CANCEL_KINDS,
    CONVERSATION_KINDS,
    INFRA_SOURCES,
    PROGRESS_KINDS,
    REJECTION_KINDS,
    REQUEST_KINDS,
    TOOL_RESPONSE_KINDS,
)
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.quoting.aim import Aim
from toolcall_cli.model.rows_by_key import RowsByKey
from toolcall_cli.model.words import NO_ID

RULE = rule(
    "OR001",
    "call-without-result",
    Severity.error,
    "a tool call with no tool result",
    doc=__doc__,
    other_severities={
        Severity.warning: "the unanswered call ends the conversation and no other source records it"
    },
    explains=(SLOW_REQUEST,),
)

_FAILED_HTTP = (499, 502, 503, 504)
#: Answer actions: the call that ends an agent's run with its answer, never sent to a tool.
ANSWER_ACTIONS = frozenset({"Finish", "final_result", "finish"})


def _chain(ctx: DiagnoseContext) -> RowsByKey:
    """Infrastructure events per tool_call_id (middleware, access log, capture), as labels."""

    def build() -> RowsByKey:
        ev = ctx.events()
        ids = ev["tool_call_id"]
        infra = ev["source"].isin(INFRA_SOURCES) & ids.notna() & (ids != "")
        infra &= ~ev["kind"].isin(CONVERSATION_KINDS)
        return RowsByKey(ids[infra.fillna(False).to_numpy(dtype=bool)])

    return ctx.memo("orphan_chain", build)


def _has_infra(ctx: DiagnoseContext, session: str | None, trace: str | None) -> bool:
    """True when middleware/nginx/capture events exist for this session or trace."""

    def build() -> tuple[set[str], set[str]]:
        ev = ctx.events()
        infra = ev[ev["source"].isin(INFRA_SOURCES)]
        sessions = set(infra["session_id"].dropna().astype(str).unique().tolist())
        traces = (
            set(infra["trace"].dropna().astype(str).unique().tolist())
            if "trace" in infra.columns
            else set()
        )
        return sessions, traces

    sessions, traces = ctx.memo("orphan_infra_scopes", build)
    return (session is not None and session in sessions) or (trace is not None and trace in traces)


class _Cells:
    """The columns `walk` reads, as plain lists indexed by event-table label (built once)."""

    def __init__(self, ctx: DiagnoseContext) -> None:
        ev = with_attrs(ctx)
        self.kind: list[Any] = objects(ev, "kind")
        self.http_status: list[Any] = objects(ev, "http_status")
        self.detail: list[Any] = objects(ev, "detail")
        self.attrs: list[dict[str, Any]] = ev["_attrs"].tolist()

    def path(self, i: int) -> str:
        a = self.attrs[i]
        p = a.get("path")
        p = a.get("uri") if p is None else p
        return "" if p is None else str(p)


def walk(
    ctx: DiagnoseContext, chain: list[int], cid: str, *, infra: bool
) -> tuple[str, str, list[int]]:
    """(breakpoint, reason, labels of the proving rows) for call *cid* from the labels of its
    infrastructure events."""
    if not chain:
        if infra:
            return "blocked", "no request to the tool service was recorded", []
        return "unknown", "no other source records this call", []
    cells: _Cells = ctx.memo("orphan_cells", lambda: _Cells(ctx))
    kind, status = cells.kind, cells.http_status
    progress = [i for i in chain if kind[i] in PROGRESS_KINDS]
    cancels = [i for i in chain if kind[i] in CANCEL_KINDS]
    if cancels:
        why = text(cells.detail[cancels[0]]) or "no reason given"
        ran = f", after {len(progress)} progress report(s)" if progress else ""
        return "cancelled", f"the client cancelled it ({why}){ran}", cancels[:1] + progress[-1:]
    stopped = [i for i in chain if kind[i] in REJECTION_KINDS]
    sends = [
        i
        for i in chain
        if kind[i] in REQUEST_KINDS
        or (kind[i] == "http_access" and cells.path(i).startswith("/tools/"))
    ] + progress  # a tool that reports progress got the call
    if not sends:
        if stopped:
            why = text(cells.detail[stopped[0]]) or str(kind[stopped[0]])
            return (
                "blocked",
                f"the middleware stopped it before the tool service ({why})",
                stopped[:1],
            )
        return "blocked", "it was never sent to the tool service", chain[:1]
    access = [i for i in sends if kind[i] == "http_access"]
    failed = [i for i in access if status[i] in _FAILED_HTTP]
    good_access = [i for i in access if status[i] is not None and status[i] not in _FAILED_HTTP]
    responses = [i for i in chain if kind[i] in TOOL_RESPONSE_KINDS] + good_access
    if not responses:
        timeouts = [i for i in chain if kind[i] == "mw_timeout"]
        proof = sends[:1] + timeouts[:1] + failed[:1]
        return "no-response", "the tool service never answered the request", proof
    answered = [cells.attrs[i].get("call_id") for i in responses]
    other = [i for i, a in zip(responses, answered, strict=True) if a is not None and str(a) != cid]
    dropped = [i for i in chain if kind[i] == "mw_dropped"]
    if other or dropped:
        got = text(cells.attrs[other[0]].get("call_id")) if other else None
        why = (
            f"the response carried call_id {got}" if got else "the middleware dropped the response"
        )
        return "response-dropped", why, other[:1] + dropped[:1]
    injected = [i for i in chain if kind[i] == "mw_injected"]
    if not injected:
        return "not-injected", "a response was received but never injected", responses[:1]
    return (
        "unknown",
        "the middleware logged an injection, but the conversation has no result",
        injected[:1],
    )


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """Every call without a result, with the breakpoint of its round trip."""
    import numpy as np

    idx = conversation_index(ctx)
    calls = idx.calls
    paired_empty = positional_results(ctx)
    seen: set[tuple[Any, str]] = set()
    cid_l, sid_l, trace_l = (objects(calls, c) for c in ("tool_call_id", "session_id", "trace"))
    kind_l, origin_l, tool_l = (objects(calls, c) for c in ("kind", "origin", "tool"))
    answered = idx.answered(cid_l, sid_l, trace_l, kind_l)
    for k in np.flatnonzero(~answered).tolist():
        i = int(calls.index[k])
        cid = text(cid_l[k]) or ""
        sid = text(sid_l[k])
        key = (sid, cid or f"@{origin_l[k]}")
        if key in seen:
            continue
        if not cid and i in paired_empty:
            continue
        seen.add(key)
        trace = text(trace_l[k])
        infra = _has_infra(ctx, sid, trace)
        bp, why, proof = walk(ctx, _chain(ctx).labels(cid) if cid else [], cid, infra=infra)
        if bp == "unknown" and i in aborted_calls(ctx):
            continue  # the user stopped the turn: cancelled (the timeline says so), not lost
        trailing = idx.is_trailing(i)
        quiet = trailing and bp == "unknown"
        sev = Severity.warning if quiet else Severity.error
        if bp == "unknown" and '"ends_on_call":true' in (text(calls.at[i, "attrs"]) or ""):
            continue  # an eval record ends at the call: the harness ran it outside the file
        if trailing and bp == "unknown" and text(tool_l[k]) in ANSWER_ACTIONS:
            continue  # the run ended with its answer: nothing was meant to answer the call
        if trailing and bp == "unknown":
            why = "the conversation ends with this call and no other source records it"
        who = cid or NO_ID
        yield make(
            RULE,
            ctx,
            f"call {who} ({text(tool_l[k]) or '?'}) has no tool result: {bp} — {why}",
            [i, *proof],
            call_ids=[cid] if cid else [],
            severity=sev,
            extra={"breakpoint": bp},
            aims={i: Aim(key="id", needle=cid or None)},
            aim=Aim(key="msg", needle=cid or None),  # the breakpoint lines: what they say
        )
