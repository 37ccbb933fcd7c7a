"""Choosing what `toolcall timeline` shows: traces by id, session, call or time, or the traces
with the most trouble first."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from toolcall_cli.align.model import CallView, Timeline, TimelineReport, TraceBlock
from toolcall_cli.align.window import TimeBound
from toolcall_cli.errors import UsageError
from toolcall_cli.model.config import Config
from toolcall_cli.model.events import UNPARSED

#: How many known ids an "unknown id" hint lists.
HINT_IDS = 5


def trouble(calls: Iterable[CallView], unparsed: int = 0) -> int:
    """How much went wrong: calls without a result, SLA breaches and unparsed records (a call
    whose turn the user aborted went as the user wanted: it is not trouble)."""
    return sum(c.faulty + len(c.breaches) for c in calls) + unparsed


def hint(values: Iterable[object], what: str) -> str:
    """ "known trace ids: a, b, c (+N more)" for an id that matched nothing."""
    known = sorted({str(v) for v in values if v is not None and not pd.isna(v) and str(v)})  # type: ignore[call-overload]
    return hint_of(known[:HINT_IDS], len(known), what)


def hint_of(first: list[str], total: int, what: str) -> str:
    """:func:`hint` from the first few known ids (sorted) and how many there are."""
    if not total:
        return f"no {what} are known in this input"
    more = f" (+{total - HINT_IDS} more)" if total > HINT_IDS else ""
    return f"known {what}: {', '.join(first[:HINT_IDS])}{more}"


def _match(
    ev: pd.DataFrame, mask: pd.Series, option: str, value: str, what: str, known: Iterable[object]
) -> set[str]:
    found = {str(t) for t in ev.loc[mask.fillna(False).astype(bool), "trace"].dropna().unique()}
    if not found:
        raise UsageError(f"no trace matches {option} {value}", hint=hint(known, what))
    return found


@dataclass(frozen=True, slots=True)
class ScopeFlags:
    """The scope flags every analysis command takes (DESIGN §1); None = not restricted."""

    trace_id: str | None = None
    session_id: str | None = None
    tool_call_id: str | None = None
    tool: str | None = None
    since: TimeBound | None = None
    until: TimeBound | None = None

    @property
    def ids(self) -> dict[str, str | None]:
        """The id selectors, as `load_selected` takes them (the store's id index)."""
        return {
            "trace_id": self.trace_id,
            "session_id": self.session_id,
            "tool_call_id": self.tool_call_id,
        }

    @property
    def restricted(self) -> bool:
        """Some flag narrows the evidence."""
        return any(v is not None for v in (*self.ids.values(), self.tool, self.since, self.until))

    @classmethod
    def parse(
        cls,
        *,
        trace_id: str | None,
        session_id: str | None,
        tool_call_id: str | None,
        tool: str | None,
        since: str | None,
        until: str | None,
        tz: str,
    ) -> ScopeFlags:
        """The flags as given on the command line; a time that does not parse is a usage error
        (2)."""
        from toolcall_cli.align.window import parse_bound

        return cls(
            trace_id=trace_id,
            session_id=session_id,
            tool_call_id=tool_call_id,
            tool=tool,
            since=parse_bound(since, tz=tz, option="--since"),
            until=parse_bound(until, tz=tz, option="--until"),
        )


def evidence_end(tl: Timeline) -> pd.Timestamp | None:
    """The latest event time of the evidence (durations in --since/--until count from it)."""
    col = tl.events["ts_corrected"] if "ts_corrected" in tl.events else tl.events["ts"]
    end = col.max() if len(col) else None
    return None if end is None or pd.isna(end) else pd.Timestamp(end)


def _instant(
    bound: TimeBound | pd.Timestamp | None, end: pd.Timestamp | None
) -> pd.Timestamp | None:
    return bound.resolve(end) if isinstance(bound, TimeBound) else bound


def traces_in_scope(tl: Timeline, scope: ScopeFlags) -> set[str]:
    """The traces the scope flags select. An id or tool that matches nothing is a UsageError
    listing the known ones; a time window is kept as given (it may select nothing)."""
    ev = tl.events
    chosen = {str(t) for t in ev["trace"].dropna().unique()}
    if scope.trace_id is not None:
        tid = scope.trace_id
        mask = (ev["trace"] == tid) | (ev["trace_id"] == tid)
        chosen &= _match(ev, mask, "--trace-id", tid, "trace ids", ev["trace"].unique())
    if scope.session_id is not None:
        sid = scope.session_id
        mask = (ev["session_id"] == sid) | (ev["trace"] == sid)
        found = _match(ev, mask, "--session-id", sid, "session ids", ev["session_id"].unique())
        chosen &= found | set(tl.sessions.get(sid, ()))
    if scope.tool_call_id is not None:
        cid = scope.tool_call_id
        mask = (ev["tool_call_id"] == cid) | (ev["call"] == cid)
        chosen &= _match(ev, mask, "--tool-call-id", cid, "tool call ids", ev["call"].unique())
    if scope.tool is not None:
        mask = ev["tool"] == scope.tool
        chosen &= _match(ev, mask, "--tool", scope.tool, "tools", ev["tool"].unique())
    if scope.since is not None or scope.until is not None:
        end = evidence_end(tl)
        since, until = _instant(scope.since, end), _instant(scope.until, end)
        sub = ev[ev["trace"].astype(object).isin(chosen)]
        span = sub.groupby("trace", observed=True)["ts_corrected"].agg(["min", "max"])
        if since is not None:
            span = span[span["max"] >= since]
        if until is not None:
            span = span[span["min"] <= until]
        chosen &= {str(t) for t in span.index}
    return chosen


def select_traces(
    tl: Timeline,
    *,
    trace_id: str | None = None,
    session_id: str | None = None,
    tool_call_id: str | None = None,
    tool: str | None = None,
    since: TimeBound | pd.Timestamp | None = None,
    until: TimeBound | pd.Timestamp | None = None,
    limit: int = 10,
) -> TimelineReport:
    """The traces to show. An id that matches nothing is a UsageError listing known ids.
    Without an id selector the traces with the most trouble come first."""
    ev = tl.events
    bounds = [
        b if isinstance(b, TimeBound) or b is None else TimeBound(at=b) for b in (since, until)
    ]
    scope = ScopeFlags(trace_id, session_id, tool_call_id, tool, bounds[0], bounds[1])
    chosen = traces_in_scope(tl, scope)
    sub = ev[ev["trace"].astype(object).isin(chosen)]
    span = sub.groupby("trace", observed=True)["ts_corrected"].agg(["min", "max"])
    calls_by: dict[str, list[CallView]] = {}
    for c in tl.calls:
        if c.trace in chosen:
            calls_by.setdefault(c.trace, []).append(c)
    unparsed = sub.loc[sub["kind"] == UNPARSED, "trace"].value_counts()
    far = pd.Timestamp.max.tz_localize("UTC")
    starts = {str(t): (far if pd.isna(v) else v) for t, v in span["min"].items()}
    score = {t: trouble(calls_by.get(t, ()), int(unparsed.get(t, 0))) for t in chosen}
    by_id = any(v is not None for v in scope.ids.values()) or tool is not None
    order = sorted(
        chosen,
        key=lambda t: (starts.get(t, far), t) if by_id else (-score[t], starts.get(t, far), t),
    )
    shown = order[: max(limit, 0)]
    picked = sub[sub["trace"].astype(object).isin(shown)]
    groups = {str(k): g for k, g in picked.groupby("trace", observed=True)}
    blocks = []
    for t in shown:
        grp = groups[t]
        blocks.append(
            TraceBlock(
                trace=t,
                session_ids=tuple(sorted({str(s) for s in grp["session_id"].dropna() if str(s)})),
                trace_ids=tuple(sorted({str(s) for s in grp["trace_id"].dropna() if str(s)})),
                events=grp.reset_index(drop=True),
                calls=tuple(calls_by.get(t, ())),
                trouble=score[t],
            )
        )
    return TimelineReport(
        traces=tuple(blocks),
        skews=tl.skews,
        anchors=tl.anchors,
        reference=tl.reference,
        corrected=tl.corrected,
        total=len(chosen),
    )


def restrict(tl: Timeline, rows: np.ndarray) -> Timeline:
    """The timeline of the event rows *rows* (a boolean mask): their events (re-indexed
    0..n-1), the calls and sessions of their traces; skew estimates stay those of the whole."""
    events = tl.events[rows].reset_index(drop=True)
    traces = set(events["trace"].dropna().tolist())
    sessions = {s: t for s, t in tl.sessions.items() if set(t) & traces}
    calls = tuple(c for c in tl.calls if c.trace in traces)
    return dataclasses.replace(tl, events=events, calls=calls, sessions=sessions)


def in_scope(tl: Timeline, scope: ScopeFlags) -> Timeline:
    """*tl* narrowed to the traces *scope* selects (itself when nothing narrows it)."""
    if not scope.restricted:
        return tl
    chosen = traces_in_scope(tl, scope)
    return restrict(tl, tl.events["trace"].astype(object).isin(chosen).to_numpy(dtype=bool))


def timeline_report(
    events: pd.DataFrame,
    scope: ScopeFlags,
    *,
    limit: int,
    cfg: Config,
    skew_correction: bool = True,
) -> TimelineReport:
    """The `toolcall timeline` core: *events* aligned under *cfg*, then the traces *scope*
    selects (at most *limit*, the most trouble first without an id)."""
    from toolcall_cli.align import align

    timeline = align(events, cfg=cfg, skew_correction=skew_correction)
    report = select_traces(
        timeline, **scope.ids, tool=scope.tool, since=scope.since, until=scope.until, limit=limit
    )
    return dataclasses.replace(report, config=cfg)
