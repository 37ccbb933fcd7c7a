"""Selecting traces: by id, session, call and time; most trouble first; unknown ids explained."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.align.incident import T0, incident
from toolcall_cli.align import align
from toolcall_cli.align.select import parse_time, select
from toolcall_cli.errors import UsageError


@pytest.fixture(scope="module")
def tl():  # type: ignore[no-untyped-def]
    return align(incident())


def test_most_trouble_first_and_limit(tl) -> None:  # type: ignore[no-untyped-def]
    rep = select(tl)
    assert [b.trace for b in rep.traces] == ["T1", "T2", "S1"]  # all trouble 1: by start time
    assert rep.traces[0].trouble == 1  # c2's service phase breaches the SLA
    assert rep.total == 3
    assert len(select(tl, limit=1).traces) == 1


def test_selectors(tl) -> None:  # type: ignore[no-untyped-def]
    assert [b.trace for b in select(tl, trace_id="T2").traces] == ["T2"]
    assert [b.trace for b in select(tl, tool_call_id="c1").traces] == ["T1"]
    assert {b.trace for b in select(tl, session_id="S1").traces} == {"T1", "T2", "S1"}
    only = select(tl, session_id="S1", tool_call_id="c3")
    assert [b.trace for b in only.traces] == ["T2"]
    (t1,) = select(tl, trace_id="T1").traces
    assert t1.session_ids == ("S1",)
    assert [c.tool_call_id for c in t1.calls] == ["c1", "c2"]


def test_time_window(tl) -> None:  # type: ignore[no-untyped-def]
    late = select(tl, since=T0 + pd.Timedelta(seconds=4))
    assert [b.trace for b in late.traces] == ["T2"]
    early = select(tl, until=T0 + pd.Timedelta(seconds=1))
    assert [b.trace for b in early.traces] == ["T1"]


@pytest.mark.parametrize(
    ("kw", "listed"),
    [({"trace_id": "zzz"}, "T1"), ({"session_id": "zzz"}, "S1"), ({"tool_call_id": "zzz"}, "c1")],
)
def test_unknown_id_is_a_usage_error_with_known_ids(tl, kw: dict[str, str], listed: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UsageError) as err:
        select(tl, **kw)
    assert "no trace matches" in err.value.message
    assert listed in (err.value.hint or "")


def test_parse_time() -> None:
    assert parse_time(None) is None
    assert parse_time("2025-03-01T12:00:00Z") == pd.Timestamp("2025-03-01T12:00:00Z")
    assert parse_time("2025-03-01 13:00:00", tz="Europe/Paris") == pd.Timestamp(
        "2025-03-01T12:00:00Z"
    )
    with pytest.raises(UsageError):
        parse_time("not a time")
    with pytest.raises(UsageError):
        parse_time("2025-03-01 13:00", tz="Mars/Olympus")
