"""Choosing what `toolcall timeline` shows: traces by id, session, call or time, or the traces
with the most trouble first."""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from toolcall_cli.align.model import CallView, Timeline, TimelineReport, TraceBlock
from toolcall_cli.core.events import UNPARSED
from toolcall_cli.errors import UsageError

#: How many known ids an "unknown id" hint lists.
HINT_IDS = 5


def parse_time(
    text: str | None, *, tz: str = "UTC", option: str = "--since"
) -> pd.Timestamp | None:
    """An ISO 8601 time as UTC; a naive one is read in *tz*."""
    if text is None:
        return None
    try:
        ts = pd.Timestamp(text)
    except (ValueError, TypeError):
        raise UsageError(
            f"{option}: cannot read the time {text!r}",
            hint="use ISO 8601, e.g. 2024-05-01T12:00:00Z",
        ) from None
    if pd.isna(ts):
        raise UsageError(
            f"{option}: cannot read the time {text!r}",
            hint="use ISO 8601, e.g. 2024-05-01T12:00:00Z",
        )
    try:
        return ts.tz_localize(tz).tz_convert("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")
    except Exception as e:  # unknown zone names raise several different types
        raise UsageError(
            f"unknown time zone {tz!r}: {e}", hint="use an IANA name such as Europe/Paris"
        ) from None


def trouble(calls: Iterable[CallView], unparsed: int = 0) -> int:
    """How much went wrong: calls without a result, SLA breaches and unparsed records."""
    return sum((c.outcome != "result") + len(c.breaches) for c in calls) + unparsed


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


def select(
    tl: Timeline,
    *,
    trace_id: str | None = None,
    session_id: str | None = None,
    tool_call_id: str | None = None,
    since: pd.Timestamp | None = None,
    until: pd.Timestamp | None = None,
    limit: int = 10,
) -> TimelineReport:
    """The traces to show. An id that matches nothing is a UsageError listing known ids.
    Without an id selector the traces with the most trouble come first."""
    ev = tl.events
    chosen = {str(t) for t in ev["trace"].dropna().unique()}
    if trace_id is not None:
        mask = (ev["trace"] == trace_id) | (ev["trace_id"] == trace_id)
        chosen &= _match(ev, mask, "--trace-id", trace_id, "trace ids", ev["trace"].unique())
    if session_id is not None:
        mask = (ev["session_id"] == session_id) | (ev["trace"] == session_id)
        found = _match(
            ev, mask, "--session-id", session_id, "session ids", ev["session_id"].unique()
        )
        chosen &= found | set(tl.sessions.get(session_id, ()))
    if tool_call_id is not None:
        mask = (ev["tool_call_id"] == tool_call_id) | (ev["call"] == tool_call_id)
        chosen &= _match(
            ev, mask, "--tool-call-id", tool_call_id, "tool call ids", ev["call"].unique()
        )
    traces = ev["trace"].astype(object)
    sub = ev[traces.isin(chosen)]
    span = sub.groupby("trace", observed=True)["ts_corrected"].agg(["min", "max"])
    if since is not None:
        span = span[span["max"] >= since]
    if until is not None:
        span = span[span["min"] <= until]
    if since is not None or until is not None:
        chosen &= {str(t) for t in span.index}
    calls_by: dict[str, list[CallView]] = {}
    for c in tl.calls:
        if c.trace in chosen:
            calls_by.setdefault(c.trace, []).append(c)
    unparsed = sub.loc[sub["kind"] == UNPARSED, "trace"].value_counts()
    far = pd.Timestamp.max.tz_localize("UTC")
    starts = {str(t): (far if pd.isna(v) else v) for t, v in span["min"].items()}
    score = {t: trouble(calls_by.get(t, ()), int(unparsed.get(t, 0))) for t in chosen}
    by_id = trace_id is not None or session_id is not None or tool_call_id is not None
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
