"""Which events a replay of one trace or session needs, and which of its calls it reports.

`--trace-id ID` is matched against the aligned `trace` column when the table has one, then
`trace_id`, then `tool_call_id`, then `session_id`; `--session-id ID` against `session_id`.
The replay then takes the *whole* sessions those events belong to — the rate limiter's window
and the duplicate-id check need every earlier call of the session — plus every event sharing a
call with them (the middleware and the wire often use other session keys than the
conversation): the same `tool_call_id` in the same aligned trace, so an id that another
conversation reuses brings in nothing of it (`call_keys`). When the ID named a single call
(a `tool_call_id`, or an aligned trace keyed by one: `ID`, or `ID@SCOPE` for an id that
unrelated conversations reuse), only that call is reported; a trace id reports every call of
its sessions, so calls the middleware never logged (silent drops) show up beside the ones it
did. A bare call id that alignment split into several traces is a UsageError naming them and
their files: replay never merges unrelated conversations into one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from toolcall_cli.errors import UsageError
from toolcall_cli.model.events import CONVERSATION_SOURCES
from toolcall_cli.model.words import plural


@dataclass(frozen=True, slots=True)
class ReplayScope:
    """The events to replay and the calls to report (None = all)."""

    events: pd.DataFrame
    trace_id: str | None
    session_ids: tuple[str, ...]
    only_call: str | None = None


def _ids(series: pd.Series) -> set[str]:
    return {str(v) for v in series.dropna().unique() if str(v)}


def call_keys(events: pd.DataFrame) -> pd.Series:
    """The key each event's call is known by: its `tool_call_id` inside its aligned trace.

    Ids are scoped, not global (DESIGN §3): `call_w1` of one conversation and `call_w1` of an
    unrelated bundle are two calls, and alignment put them in two traces. Without the aligned
    `trace` column (align not run) the id alone is the key. Null when the event has no id."""
    cid = events["tool_call_id"].astype("string")
    cid = cid.where(cid != "")
    if "trace" not in events.columns:
        return cid
    return events["trace"].astype("string").fillna("") + "\x00" + cid


def _sharing_call(events: pd.DataFrame, keys: pd.Series, rows: pd.Series) -> pd.Series:
    """Events whose call key is the call key of one of *rows*."""
    return keys.isin(set(keys[rows].dropna().tolist())).fillna(False).astype(bool)


def replay_scope(
    events: pd.DataFrame, *, trace_id: str | None = None, session_id: str | None = None
) -> ReplayScope:
    """The scope of a replay; an ID that matches nothing is a UsageError listing some that do."""
    if trace_id is None and session_id is None:
        raise UsageError("name the trace to replay", hint="pass --trace-id ID or --session-id ID")
    only_call = None
    if session_id is not None:
        seed = events["session_id"] == session_id
    else:
        seed = pd.Series(False, index=events.index)
        for col in ("trace", "trace_id", "tool_call_id", "session_id"):
            if col in events.columns:
                seed = (events[col] == trace_id).fillna(False)
                if seed.any():
                    named = str(trace_id)  # (set: no session id was given)
                    if col == "tool_call_id":
                        refuse_split_call(events[seed.fillna(False).astype(bool)], named)
                    # a trace keyed by a call's own id (no trace_id anywhere) is that one call
                    ids = _ids(events.loc[seed, "tool_call_id"])
                    only_call = named if col == "tool_call_id" else call_named(ids, named)
                    break
    seed = seed.fillna(False).astype(bool)
    if not seed.any():
        raise UsageError(
            f"no events for {'session' if session_id else 'trace'} {session_id or trace_id!r}",
            hint=_known(events, "session_id" if session_id else "trace_id"),
        )
    keys = call_keys(events)
    linked = seed | _sharing_call(events, keys, seed)
    wire = ~events["source"].isin(CONVERSATION_SOURCES)  # the infrastructure's view
    # a named session pulls in the middleware's session for its calls, never another
    # conversation that happens to reuse an id; a trace pulls in its calls' conversations
    link = linked & wire if session_id is not None else linked
    sessions = _ids(events.loc[seed | link, "session_id"])
    in_sess = events["session_id"].isin(sessions).fillna(False).astype(bool)
    mask = seed | in_sess | (_sharing_call(events, keys, seed | in_sess) & wire)
    scope = events[mask.astype(bool)]
    traces = _ids(scope["trace_id"])
    return ReplayScope(
        events=scope,
        trace_id=trace_id
        if trace_id is not None
        else (sorted(traces)[0] if len(traces) == 1 else None),
        session_ids=tuple(sorted(sessions)),
        only_call=only_call,
    )


def call_named(ids: Iterable[str], trace_id: str) -> str | None:
    """The call id an aligned trace name stands for, among the seed rows' *ids*: the id
    itself, or `ID@SCOPE` when the id is reused by another conversation (align names each
    such trace so); else None."""
    ids = set(ids)
    if trace_id in ids:
        return trace_id
    named = [cid for cid in ids if trace_id.startswith(cid + "@")]
    return named[0] if len(named) == 1 else None


def refuse_split_call(rows: pd.DataFrame, call_id: str) -> None:
    """Refuse a bare call id whose *rows* alignment split into several traces (DESIGN §3: an
    id used in unrelated conversations is several calls), naming each trace and its files,
    instead of replaying them as one call of one session."""
    if "trace" not in rows.columns:
        return
    traces = sorted(_ids(rows["trace"]))
    if len(traces) < 2:
        return
    from toolcall_cli.model.origins import files_of  # (the error path only)

    files = files_of(rows["origin"])
    where = [f"{t} in {', '.join(sorted(set(files[rows['trace'] == t])))}" for t in traces[:5]]
    more = f" and {len(traces) - 5} more" if len(traces) > 5 else ""
    raise UsageError(
        f"call id {call_id!r} is used in {len(traces)} unrelated traces "
        f"({'; '.join(where)}{more}); replay takes one",
        hint=f"pass --trace-id {traces[0]} (or another of them)",
    )


def _known(events: pd.DataFrame, col: str) -> str:
    vals = sorted(_ids(events[col]))
    if not vals and col == "trace_id":
        col, vals = "session_id", sorted(_ids(events["session_id"]))
    if not vals:
        return "the evidence has no trace or session ids"
    shown = ", ".join(vals[:5])
    return f"known {col.replace('_', ' ')}s: {shown}{' …' if len(vals) > 5 else ''}"


def one_trace_or_session(
    events: pd.DataFrame, scope: Any, *, cfg: Any = None
) -> tuple[str | None, str | None]:
    """(trace_id, session_id) to replay for the scope flags `--tool-call-id`, `--tool`,
    `--since/--until` (an `align.select.ScopeFlags`): the one trace they select, else the one
    session all selected traces belong to. More than that is a usage error."""
    from toolcall_cli.align import align
    from toolcall_cli.align.select import traces_in_scope
    from toolcall_cli.model.config import DEFAULT

    tl = align(events, cfg=cfg or DEFAULT)
    chosen = sorted(traces_in_scope(tl, scope))
    if len(chosen) == 1:
        return chosen[0], None
    ev = tl.events
    sessions = _ids(ev.loc[ev["trace"].astype(object).isin(chosen), "session_id"])
    if len(sessions) == 1:
        return None, sessions.pop()
    raise UsageError(
        f"the scope selects {plural(len(chosen), 'trace')} in "
        f"{plural(len(sessions), 'session')}; replay takes one",
        hint="narrow it with --trace-id ID or --session-id ID",
    )
