"""\
What it does
  Finds tool calls that reached neither the tool service (no middleware request, no captured
  request, no progress reported by the tool) nor a result, and for which no rejection,
  flooding, timeout or cancellation was logged. The call
  is replayed through the validation pipeline to name the stage and rule that drops it
  (for example `schema: $.date: '2025-13-01' is not a 'date'`). With only a conversation as
  evidence it fires when the conversation went on past the call without its result and the
  replay rejects the call; a conversation that simply ends at a call is left to OR001.

Why it matters
  A validation stage that drops a call without logging leaves the model waiting for a result
  that never comes; nothing in the logs says why.

Example
  The model calls `book_flight` with `"date": "2025-13-01"`; the middleware logs the call
  received and then nothing: no `POST /tools/book_flight`, no result, no rejection.

Fix
  Make every validation stage log its rejection (rule and reason) and return a tool error to
  the model, so it can correct the arguments.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import TYPE_CHECKING, Any

from toolcall_cli.diagnose.kit.call_label import call_label
from toolcall_cli.diagnose.kit.classifiers import CLASSIFIERS
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.finding_builder import make
from toolcall_cli.diagnose.kit.frames import column, event_columns, isin_set, with_attrs
from toolcall_cli.diagnose.kit.incidents import BLOCKED, SLOW_REQUEST
from toolcall_cli.diagnose.kit.replays import scope_replays
from toolcall_cli.model.cells import text
from toolcall_cli.model.events import (
    ANSWER_KINDS,
    CALL_KINDS,
    CANCEL_KINDS,
    CONVERSATION_SOURCES,
    OBSERVED_CALL_KINDS,
    PROGRESS_KINDS,
    REQUEST_KINDS,
    RESULT_KINDS,
    STOPPED_KINDS,
    TOOL_RESPONSE_KINDS,
    UNPARSED,
)
from toolcall_cli.model.findings import Finding, Severity, rule
from toolcall_cli.model.quoting.aim import Aim
from toolcall_cli.model.rows_by_key import RowsByKey

if TYPE_CHECKING:
    import pandas as pd

RULE = rule(
    "TR001",
    "silent-validation-drop",
    Severity.error,
    "a call that never reached the tool and never got a result; replay names the failing rule",
    doc=__doc__,
    explains=(BLOCKED, SLOW_REQUEST),
)

#: Kinds that say nothing about the infrastructure's view (calls, results, unparsed lines).
_NOT_INFRA_KINDS = CALL_KINDS | RESULT_KINDS | {UNPARSED}
#: The call's fate is on record: it reached the tool service (a request, or the tool reporting
#: progress on it), was answered, was stopped, or was cancelled by the client.
_FATE_KINDS = (
    REQUEST_KINDS
    | TOOL_RESPONSE_KINDS
    | ANSWER_KINDS
    | STOPPED_KINDS
    | PROGRESS_KINDS
    | CANCEL_KINDS
)


def _ids_with(ev: pd.DataFrame, kinds: Collection[str]) -> set[str]:
    import pandas as pd

    sub = ev.loc[ev["kind"].isin(kinds) & ev["tool_call_id"].notna(), "tool_call_id"]
    return {str(x) for x in pd.unique(sub.to_numpy(dtype=object)).tolist() if x}


def _infra_scopes(ev: pd.DataFrame) -> set[str]:
    """Traces and sessions that have infrastructure evidence (middleware, access log, capture)."""
    infra = ev[~ev["source"].isin(CONVERSATION_SOURCES) & ~ev["kind"].isin(_NOT_INFRA_KINDS)]
    scopes = {f"s:{s}" for s in infra["session_id"].dropna().unique()}
    if "trace" in infra.columns:
        scopes |= {f"t:{t}" for t in infra["trace"].dropna().unique()}
    return scopes


def _failed_stage(call: Any) -> str | None:
    """`stage: reason` of the first failing verdict of a CallReplay, or None."""
    for v in getattr(call, "stages", ()):
        if getattr(v, "verdict", None) == "fail":
            code = getattr(v, "code", None)
            reason = getattr(v, "reason", "") or ""
            return f"{v.stage}: {reason}" + (f" [{code}]" if code and code not in reason else "")
    return None


def _last_positions(ev: pd.DataFrame) -> dict[str, int]:
    """session_id → the highest message index seen in its conversation."""
    msgs = ev[ev["source"].isin(CONVERSATION_SOURCES) & ev["session_id"].notna()]
    out: dict[str, int] = {}
    for sid, a in zip(msgs["session_id"].astype(str), msgs["_attrs"], strict=True):
        pos = a.get("msg_index")
        if isinstance(pos, int) and pos > out.get(sid, -1):
            out[sid] = pos
    return out


@CLASSIFIERS.register(RULE.code)
def check(ctx: DiagnoseContext) -> Iterator[Finding]:
    """TR001: calls with neither a request, a result nor a logged rejection, named by replay.

    With infrastructure evidence (middleware, access log or capture) for the call's trace or
    session, every such call is reported. With a conversation alone, only calls the
    conversation went on past (a later message exists) and that the replay rejects.
    """
    ev = with_attrs(ctx)
    calls = ev[ev["kind"].isin(OBSERVED_CALL_KINDS) & ev["tool_call_id"].notna()]
    calls = calls[calls["tool_call_id"] != ""]
    if not len(calls):
        return
    done = _ids_with(ev, _FATE_KINDS)
    calls = calls[~isin_set(calls["tool_call_id"], done)]  # vectorised: most calls are done
    if not len(calls):
        return
    scopes = _infra_scopes(ev)
    received = _ids_with(ev, ("mw_received",))
    last = _last_positions(ev)
    cols = event_columns(ctx)  # the call's first row, read by label: no frame per call
    sessions, tools, attrs = column(ctx, "session_id"), column(ctx, "tool"), ev["_attrs"].tolist()
    traces = cols.get("trace") or [None] * len(ev)
    todo = []
    for cid, rows in RowsByKey(calls["tool_call_id"]).groups():
        cid, first = str(cid), rows[0]
        sid, trace = text(sessions[first]), text(traces[first])
        covered = cid in received or f"s:{sid}" in scopes or f"t:{trace}" in scopes
        pos = attrs[first].get("msg_index")
        went_on = isinstance(pos, int) and last.get(sid or "", -1) > pos
        if covered or went_on:  # else the conversation simply ends: OR001 reports it
            todo.append((cid, rows, tools[first], sid, trace, covered))
    replays = scope_replays(ctx, [(sid, trace) for _, _, _, sid, trace, _ in todo])
    for (cid, rows, tool, _, _, covered), (by_id, why_not) in zip(todo, replays, strict=True):
        rep = by_id.get(cid)
        failed = _failed_stage(rep) if rep is not None else None
        if not covered and failed is None:
            continue
        what = (
            "never reached the tool and got no result, and no rejection was logged"
            if covered
            else "got no result although the conversation went on, and nothing records a rejection"
        )
        if failed:
            named = f"replay rejects it at {failed}"
        elif rep is not None:
            named = "replay dispatches it; the drop happened outside the validation pipeline"
        else:
            named = f"it could not be replayed ({why_not or 'not found by the pipeline'})"
        yield make(
            RULE,
            ctx,
            f"{call_label(cid, text(tool))} {what}; {named}",
            rows,
            call_ids=[cid],
            extra={"replayed": getattr(rep, "replayed", None), "failed_stage": failed},
            aim=Aim(key="id", needle=cid),
        )
