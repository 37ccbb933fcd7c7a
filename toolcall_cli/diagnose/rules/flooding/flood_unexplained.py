"""\
What it does
  For every session (or call) where the middleware cancelled a call because "tool-call
  flooding was detected" (an mw_flooded event, or the phrase in any source), checks whether
  one of FL001 model-loop, FL002 double-submit, FL003 duplicate-call-id, FL004
  retry-duplicate, FL005 session-state-loss or FL007 parallel-duplicate (identical calls of
  one turn, which FL001 no longer counts) fired for that session or those calls. If
  none did, it reports the cancellation as unexplained, with the evidence that is there,
  instead of guessing a cause. The cancelled calls are replayed through the validation
  pipeline: when its rate limiter rejects them too, the finding quotes the limit that
  cancelled them (`'send_email' is limited to 2 calls per 60 s`), since then the limit, as
  configured, is the cause.

Why it matters
  A flooding cancellation is a symptom with several unrelated causes, and each needs a
  different fix. Naming a cause without evidence sends the on-call engineer down the wrong
  path; saying "unexplained" tells them which evidence is missing.

Example
  middleware.log:42 "tool call cancelled because tool-call flooding was detected"
  (call_9, session s-7), but the session's calls all differ, ids are unique, there is one
  chat POST and one instance.

Fix
  Collect the missing evidence: the conversation (messages), the middleware log with
  instance names, the access log with $http_x_session_id and $http_x_tool_call_id, or a
  capture. If the limit is simply too low for a legitimate burst of calls, raise
  flooding.max_calls or the tool's per_tool limit in toolcall.toml (the limit the replay
  names, when it names one).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import column
from toolcall_cli.diagnose.kit.incidents import FLOOD_OR001
from toolcall_cli.diagnose.kit.replays import scope_replays
from toolcall_cli.diagnose.rules.flooding.cancellations import flood_rows
from toolcall_cli.model.cells import text
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.quoting.aim import Aim
from toolcall_cli.model.rows_by_key import RowsByKey

RULE = rule(
    "FL006",
    "flood-unexplained",
    Severity.error,
    "a flooding cancellation that none of FL001–FL005 explains",
    doc=__doc__,
    explains=(FLOOD_OR001,),
)

#: The fix when the replay names the limit: the evidence is there, the limit is the question.
_LIMIT_FIX = (
    "The limit cancelled the call as configured. If the burst was legitimate, raise the tool's "
    "per_tool limit (or flooding.max_calls) in the middleware and in toolcall.toml; if not, "
    "read the conversation for why the model made that many calls."
)

CAUSES = ("FL001", "FL002", "FL003", "FL004", "FL005", "FL007")


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """Flooding cancellations in sessions (or of calls) that no cause finding covers."""
    floods = flood_rows(ctx)
    if not len(floods):
        return
    explained_sessions: set[str] = set()
    explained_calls: set[str] = set()
    explained_traces: set[str] = set()
    for code in CAUSES:
        for f in ctx.findings_of(code):
            if f.session_id:
                explained_sessions.add(f.session_id)
            if f.trace_id:
                explained_traces.add(f.trace_id)
            explained_calls.update(f.tool_call_ids)
    scope = floods["session_id"].fillna(
        floods["trace"] if "trace" in floods else floods["trace_id"]
    )
    # the cancellations per scope by row label, in key order: no frame per group
    groups = sorted(RowsByKey(scope.fillna("(no session)")).groups(), key=lambda g: str(g[0]))
    call_col = column(ctx, "tool_call_id")
    trace_col = column(ctx, "trace" if "trace" in floods else "trace_id")
    todo = []
    for key, grp in groups:
        ids = [str(c) for c in (call_col[i] for i in grp) if text(c)]
        traces = {str(t) for t in (trace_col[i] for i in grp) if text(t) is not None}
        if (
            str(key) in explained_sessions
            or any(c in explained_calls for c in ids)
            or traces & explained_traces
        ):
            continue
        session = None if key == "(no session)" else str(key)
        todo.append((key, grp, ids, session, sorted(traces)))
    limits = _replayed_limits(ctx, [(ids, session, traces) for _, _, ids, session, traces in todo])
    for (key, grp, ids, session, _), limit in zip(todo, limits, strict=True):
        n = len(grp)
        why = (
            f"replay names the limit that cancelled {'them' if n != 1 else 'it'}: {limit}"
            if limit
            else "no evidence shows why"
        )
        yield make(
            RULE,
            ctx,
            f"{n} call{'s were' if n != 1 else ' was'} cancelled as tool-call flooding in "
            f"{key}, and {why} (no model loop, double submit, duplicate id, retry or split "
            "session was found)",
            grp,
            call_ids=ids,
            session_id=session,
            extra={"cancellations": n, "replayed_limit": limit},
            aim=Aim(key="msg"),
            fix=_LIMIT_FIX if limit else None,
        )


def _replayed_limits(
    ctx: DiagnoseContext, groups: list[tuple[list[str], str | None, list[str]]]
) -> list[str | None]:
    """Per (cancelled ids, session, traces) group: the rate-limit verdict the replay gives the
    first cancelled call it rejects, if any (the replays TR001 reads, shared by the context)."""
    asked = [
        i
        for i, (ids, session, traces) in enumerate(groups)
        if ids and (session is not None or traces)
    ]
    replays = scope_replays(
        ctx, [(groups[i][1], groups[i][2][0] if groups[i][2] else None) for i in asked]
    )
    out: list[str | None] = [None] * len(groups)
    for i, (by_id, _) in zip(asked, replays, strict=True):
        out[i] = _limit(by_id, groups[i][0])
    return out


def _limit(by_id: dict[str, Any], ids: list[str]) -> str | None:
    for cid in ids:
        for v in getattr(by_id.get(cid), "stages", ()):
            if v.stage == "ratelimit" and v.verdict == "fail":
                return str(v.detail or v.reason)
    return None
