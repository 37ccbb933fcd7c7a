"""OR001 call-without-result: a tool call that never got its tool result, and where it stopped."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd

from toolcall_cli.core.findings import Finding, Severity, rule
from toolcall_cli.diagnose import CLASSIFIERS
from toolcall_cli.diagnose._common import attr, make, text, with_attrs
from toolcall_cli.diagnose.base import DiagnoseContext
from toolcall_cli.diagnose.orphans_pairing import conversation_index, positional_results

OR001 = rule(
    "OR001",
    "call-without-result",
    Severity.error,
    "a tool call with no tool result",
    doc="""\
What it does
  Pairs every tool call with a tool result by tool_call_id (and, for calls with an empty id,
  by position: the results directly after the assistant message). For each call left without
  a result it walks the round trip through the other sources to find the breakpoint:
  no request to the tool service → `blocked`; a request but no response → `no-response`; a
  response carrying another call_id, or dropped by the middleware → `response-dropped`; a
  response received but never injected → `not-injected`; otherwise `unknown`.
  A recorded conversation may legitimately end on an assistant turn whose calls were never
  answered (a cassette's final response, a transcript cut when the session closed). When the
  unanswered call is in the conversation's last message and no other source says anything
  about it, the finding is a warning with breakpoint `unknown` instead of an error.

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
""",
)
_INFRA = ("middleware", "nginx", "pcap")
_FAILED_HTTP = (499, 502, 503, 504)


class _Chain:
    """Infrastructure rows per tool_call_id, sliced out only when a call asks for them (most
    calls have a result and never do: one DataFrame per call would dominate a large store)."""

    def __init__(self, rows: pd.DataFrame) -> None:
        self.rows = rows
        self.where = rows.groupby("tool_call_id", sort=False).indices if len(rows) else {}

    def get(self, cid: str) -> pd.DataFrame | None:
        pos = self.where.get(cid)
        return None if pos is None else self.rows.iloc[pos]


def _chain(ctx: DiagnoseContext) -> _Chain:
    """Infrastructure events per tool_call_id (middleware, access log, capture)."""

    def build() -> _Chain:
        ev = with_attrs(ctx)
        infra = ev[
            ev["source"].isin(_INFRA) & ev["tool_call_id"].notna() & (ev["tool_call_id"] != "")
        ]
        infra = infra[
            ~infra["kind"].isin(["tool_call", "tool_result", "user", "system", "assistant_text"])
        ]
        return _Chain(infra)

    return ctx.memo("orphan_chain", build)


def _has_infra(ctx: DiagnoseContext, session: str | None, trace: str | None) -> bool:
    """True when middleware/nginx/capture events exist for this session or trace."""

    def build() -> tuple[set[str], set[str]]:
        ev = ctx.events()
        infra = ev[ev["source"].isin(_INFRA)]
        sessions = {str(s) for s in infra["session_id"].dropna()}
        traces = {str(t) for t in infra["trace"].dropna()} if "trace" in infra.columns else set()
        return sessions, traces

    sessions, traces = ctx.memo("orphan_infra_scopes", build)
    return (session is not None and session in sessions) or (trace is not None and trace in traces)


def walk(chain: pd.DataFrame | None, cid: str, *, infra: bool) -> tuple[str, str, pd.DataFrame]:
    """(breakpoint, reason, proving rows) for call *cid* from its infrastructure events."""
    empty = pd.DataFrame()
    if chain is None or not len(chain):
        if infra:
            return "blocked", "no request to the tool service was recorded", empty
        return "unknown", "no other source records this call", empty
    kinds = chain["kind"]
    path = attr(chain, "path").fillna(attr(chain, "uri")).fillna("").astype(str)
    stopped = chain[kinds.isin(["mw_rejected", "mw_flooded"])]
    sends = chain[
        kinds.isin(["mw_request", "http_request"])
        | ((kinds == "http_access") & path.str.startswith("/tools/"))
    ]
    if not len(sends):
        if len(stopped):
            why = text(stopped["detail"].iloc[0]) or str(stopped["kind"].iloc[0])
            return (
                "blocked",
                f"the middleware stopped it before the tool service ({why})",
                stopped.head(1),
            )
        return "blocked", "it was never sent to the tool service", chain.head(1)
    access = sends[sends["kind"] == "http_access"]
    good_access = access[~access["http_status"].isin(_FAILED_HTTP) & access["http_status"].notna()]
    responses = pd.concat([chain[kinds.isin(["mw_response", "http_response"])], good_access])
    if not len(responses):
        timeouts = chain[kinds == "mw_timeout"]
        failed = access[access["http_status"].isin(_FAILED_HTTP)]
        proof = pd.concat([sends.head(1), timeouts.head(1), failed.head(1)])
        return "no-response", "the tool service never answered the request", proof
    answered = attr(responses, "call_id")
    other = responses[answered.notna() & (answered.astype(str) != cid)]
    dropped = chain[kinds == "mw_dropped"]
    if len(other) or len(dropped):
        got = text(attr(other, "call_id").iloc[0]) if len(other) else None
        why = (
            f"the response carried call_id {got}" if got else "the middleware dropped the response"
        )
        return "response-dropped", why, pd.concat([other.head(1), dropped.head(1)])
    injected = chain[kinds == "mw_injected"]
    if not len(injected):
        return "not-injected", "a response was received but never injected", responses.head(1)
    return (
        "unknown",
        "the middleware logged an injection, but the conversation has no result",
        injected.head(1),
    )


@CLASSIFIERS.register("OR001")
def call_without_result(ctx: DiagnoseContext) -> Iterator[Finding]:
    """Every call without a result, with the breakpoint of its round trip."""
    idx = conversation_index(ctx)
    calls = idx.calls
    chain = _chain(ctx)
    paired_empty = positional_results(ctx)
    seen: set[tuple[Any, str]] = set()
    cols = [
        c for c in ("tool_call_id", "session_id", "trace", "kind", "origin", "tool") if c in calls
    ]
    frame = calls[cols].astype(object).where(calls[cols].notna(), None)
    records: list[dict[str, Any]] = frame.to_dict("records")  # type: ignore[assignment]
    for i, row in zip(calls.index, records, strict=True):
        cid = text(row["tool_call_id"]) or ""
        sid = text(row["session_id"])
        key = (sid, cid or f"@{row['origin']}")
        if key in seen:
            continue
        if cid and idx.has_result(row):
            continue
        if not cid and i in paired_empty:
            continue
        seen.add(key)
        trace = text(row.get("trace"))
        infra = _has_infra(ctx, sid, trace)
        bp, why, proof = walk(chain.get(cid) if cid else None, cid, infra=infra)
        trailing = idx.is_trailing(int(str(i)))
        sev = Severity.warning if (trailing and bp == "unknown") else Severity.error
        if trailing and bp == "unknown":
            why = "the conversation ends with this call and no other source records it"
        rows = pd.concat([calls.loc[[i]], proof]) if len(proof) else calls.loc[[i]]
        who = cid or "(empty id)"
        yield make(
            OR001,
            ctx,
            f"call {who} ({text(row['tool']) or '?'}) has no tool result: {bp} — {why}",
            rows,
            call_ids=[cid] if cid else [],
            severity=sev,
            extra={"breakpoint": bp},
        )
