"""Selecting traces: by id, session, call and time; most trouble first; unknown ids explained."""

from __future__ import annotations

from typing import TypedDict

import pandas as pd
import pytest

from tests.align.incident import T0, incident
from toolcall_cli.align import Timeline, align
from toolcall_cli.align.select import ScopeFlags, evidence_end, in_scope, select_traces
from toolcall_cli.align.window import FORMS, TimeBound, parse_bound
from toolcall_cli.errors import UsageError


class IdSelector(TypedDict, total=False):
    """The id keywords of ``select_traces`` (one per parametrised case)."""

    trace_id: str
    session_id: str
    tool_call_id: str


@pytest.fixture(scope="module")
def tl() -> Timeline:
    return align(incident())


def test_most_trouble_first_and_limit(tl: Timeline) -> None:
    rep = select_traces(tl)
    assert [b.trace for b in rep.traces] == ["T1", "T2", "S1"]  # all trouble 1: by start time
    assert rep.traces[0].trouble == 1  # c2's service phase breaches the SLA
    assert rep.total == 3
    assert len(select_traces(tl, limit=1).traces) == 1


def test_selectors(tl: Timeline) -> None:
    assert [b.trace for b in select_traces(tl, trace_id="T2").traces] == ["T2"]
    assert [b.trace for b in select_traces(tl, tool_call_id="c1").traces] == ["T1"]
    assert {b.trace for b in select_traces(tl, session_id="S1").traces} == {"T1", "T2", "S1"}
    only = select_traces(tl, session_id="S1", tool_call_id="c3")
    assert [b.trace for b in only.traces] == ["T2"]
    (t1,) = select_traces(tl, trace_id="T1").traces
    assert t1.session_ids == ("S1",)
    assert [c.tool_call_id for c in t1.calls] == ["c1", "c2"]


def test_time_window(tl: Timeline) -> None:
    late = select_traces(tl, since=T0 + pd.Timedelta(seconds=4))
    assert [b.trace for b in late.traces] == ["T2"]
    early = select_traces(tl, until=T0 + pd.Timedelta(seconds=1))
    assert [b.trace for b in early.traces] == ["T1"]


@pytest.mark.parametrize(
    ("kw", "listed"),
    [({"trace_id": "zzz"}, "T1"), ({"session_id": "zzz"}, "S1"), ({"tool_call_id": "zzz"}, "c1")],
)
def test_unknown_id_is_a_usage_error_with_known_ids(
    tl: Timeline, kw: IdSelector, listed: str
) -> None:
    with pytest.raises(UsageError) as err:
        select_traces(tl, **kw)
    assert "no trace matches" in err.value.message
    assert listed in (err.value.hint or "")


def at(text: str, **kw: str) -> pd.Timestamp | None:
    bound = parse_bound(text, **kw)
    assert bound is not None
    return bound.at


def test_parse_bound_iso_epoch_and_duration() -> None:
    assert parse_bound(None) is None
    assert at("2025-03-01T12:00:00Z") == pd.Timestamp("2025-03-01T12:00:00Z")
    assert at("2025-03-01 13:00:00", tz="Europe/Paris") == pd.Timestamp("2025-03-01T12:00:00Z")
    assert at("1740830400") == pd.Timestamp("2025-03-01T12:00:00Z")
    assert parse_bound("15m") == TimeBound(back=pd.Timedelta(minutes=15))
    assert parse_bound("1h") == TimeBound(back=pd.Timedelta(hours=1))
    assert parse_bound("500ms") == TimeBound(back=pd.Timedelta(milliseconds=500))


@pytest.mark.parametrize("text", ["not a time", "5x", "now", "15 minutes", "-5s", "12"])
def test_an_unreadable_bound_is_a_usage_error_naming_the_forms(text: str) -> None:
    with pytest.raises(UsageError) as err:
        parse_bound(text, option="--since")
    assert err.value.message == f"--since: cannot read the time {text!r}"
    assert err.value.hint == FORMS


def test_unknown_zone_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        parse_bound("2025-03-01 13:00", tz="Mars/Olympus")


def test_a_duration_counts_back_from_the_end_of_the_evidence(tl: Timeline) -> None:
    end = evidence_end(tl)
    assert end is not None
    span = end - (T0 + pd.Timedelta(seconds=4))
    late = select_traces(tl, since=TimeBound(back=span))
    assert [b.trace for b in late.traces] == ["T2"]
    assert [b.trace for b in select_traces(tl, since=TimeBound(back=pd.Timedelta(days=1))).traces]


def test_in_scope_narrows_the_timeline_by_tool_and_call(tl: Timeline) -> None:
    only = in_scope(tl, ScopeFlags(tool_call_id="c1"))
    assert set(only.events["trace"].dropna()) == {"T1"}
    assert {c.trace for c in only.calls} == {"T1"}
    assert list(only.events.index) == list(range(len(only.events)))
    assert in_scope(tl, ScopeFlags()) is tl
    with pytest.raises(UsageError) as err:
        in_scope(tl, ScopeFlags(tool="no_such_tool"))
    assert err.value.message == "no trace matches --tool no_such_tool"
