"""\
What it does
  Fires when the middleware events of one session come from two or more instances (the
  instance / host / pod field). It is an error when that session also had a flooding
  cancellation, a warning otherwise (shared state may be fine).

Why it matters
  A sliding-window rate limit kept in process memory is per instance. Behind a load
  balancer each instance sees part of a session: limits are applied to a fraction of the
  calls, state such as seen ids is lost, and cancellations look random.

Example
  sess-lb: call_c1 on mw-1, call_c2 on mw-2, call_c3 on mw-1 ... mw-2 cancels call_c7 as
  flooding while mw-1 has counted only three calls.

Fix
  Keep the rate-limit window and dedupe state in a shared store (Redis, the session
  record), or route a session to one instance (sticky sessions on the session id).
"""

from __future__ import annotations

from collections.abc import Iterator

from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import column, first_rows, of_kind
from toolcall_cli.diagnose.kit.incidents import FLOOD_OR001
from toolcall_cli.diagnose.rules.flooding.cancellations import cite_floods, flood_rows
from toolcall_cli.model.events import INSTANCE_KINDS
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.quoting.aim import Aim
from toolcall_cli.model.rows_by_key import RowsByKey
from toolcall_cli.model.words import plural

RULE = rule(
    "FL005",
    "session-state-loss",
    Severity.warning,
    "one session's calls counted on ≥2 middleware instances (window not shared)",
    doc=__doc__,
    other_severities={Severity.error: "the session also had a flooding cancellation"},
    explains=(FLOOD_OR001,),
)


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """One session's middleware events on ≥2 instances."""
    mw = of_kind(ctx, *INSTANCE_KINDS)
    mw = mw[mw["instance"].notna() & (mw["instance"] != "") & mw["session_id"].notna()]
    if not len(mw):
        return
    mw = mw.assign(session_id=mw["session_id"].astype(str), instance=mw["instance"].astype(str))
    # first row per (session, instance), in event order: a session needs two of them
    per = first_rows(mw, ["session_id", "instance"])
    many = per["session_id"].duplicated(keep=False)
    per = per[many.to_numpy()]
    if not len(per):
        return
    sessions = sorted(set(per["session_id"].tolist()))
    # first row per instance, first row per call: each session's rows in event order
    per_s = RowsByKey(per["session_id"])
    calls = mw[mw["session_id"].isin(sessions) & mw["tool_call_id"].notna()]
    calls_s = RowsByKey(first_rows(calls, ["session_id", "tool_call_id"])["session_id"])
    instance, call_id = column(ctx, "instance"), column(ctx, "tool_call_id")
    flooded_sessions = {str(s) for s in flood_rows(ctx)["session_id"].dropna().tolist()}
    for sid in sessions:
        firsts = per_s.labels(sid)
        instances = [str(instance[i]) for i in firsts]
        ids = [str(call_id[i]) for i in calls_s.labels(sid)]
        flooded = sid in flooded_sessions
        yield make(
            RULE,
            ctx,
            f"session {sid} was handled by {len(instances)} middleware instances "
            f"({', '.join(instances[:5])}); {plural(len(ids), 'call')} "
            f"{'was' if len(ids) == 1 else 'were'} counted apart"
            + ("; one of them cancelled a call as flooding" if flooded else ""),
            cite_floods(ctx, firsts, session_ids=[sid]),
            call_ids=ids[:20],
            session_id=sid,
            severity=Severity.error if flooded else Severity.warning,
            extra={"instances": instances},
            aim=Aim(key="instance"),
        )
