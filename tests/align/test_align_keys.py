"""Correlation: which events become one trace, and which only share a session."""

from __future__ import annotations

import pandas as pd

from tests.align.incident import T0, _frame, incident
from toolcall_cli.align import align


def _ev(**kw: object) -> dict[str, object]:
    base: dict[str, object] = {"source": "middleware", "kind": "mw_other", "ts": T0}
    base.update(kw)
    return base


def _rows(rows: list[dict[str, object]]) -> pd.DataFrame:
    for i, r in enumerate(rows):
        r.setdefault("seq", i)
        r.setdefault("origin", f"mw.log:{i + 1}")
    return _frame(rows)


def test_traces_of_one_session_stay_separate() -> None:
    tl = align(incident())
    assert set(tl.sessions["S1"]) >= {"T1", "T2"}
    t2 = tl.events[tl.events["trace"] == "T2"]
    assert set(t2["tool_call_id"]) == {"c3"}
    assert {c.trace for c in tl.calls if c.tool_call_id in ("c1", "c2")} == {"T1"}


def test_wrong_call_id_in_a_response_does_not_merge() -> None:
    tl = align(incident())  # c3's rejection quotes call_id c1
    assert tl.events.loc[tl.events["call"] == "c3", "trace"].unique().tolist() == ["T2"]


def test_empty_ids_do_not_join_everything() -> None:
    ev = _rows(
        [
            _ev(kind="mw_received", tool_call_id="", trace_id="", session_id="a"),
            _ev(kind="mw_received", tool_call_id="", trace_id="", session_id="b"),
            _ev(kind="mw_received", tool_call_id="x", trace_id=" ", request_id=""),
            _ev(kind="mw_received", tool_call_id="y", trace_id="", request_id=""),
        ]
    )
    tl = align(ev)
    assert tl.events["trace"].tolist() == ["a", "b", "x", "y"]


def test_tool_call_id_links_traces_and_call_ids_chain() -> None:
    ev = _rows(
        [
            _ev(kind="mw_received", tool_call_id="c1", trace_id="T1"),
            _ev(kind="mw_request", tool_call_id="c1"),
            _ev(kind="mw_received", tool_call_id="c2", request_id="r9"),
            _ev(kind="mw_other", request_id="r9", trace_id="T1"),
        ]
    )
    assert set(align(ev).events["trace"]) == {"T1"}


def test_traceparent_and_original_id_link() -> None:
    tid = "4bf92f3577b34da6a3ce929d0e0e4736"
    ev = _rows(
        [
            _ev(kind="mw_request", tool_call_id="c1", trace_id=tid),
            _ev(
                source="pcap",
                kind="http_request",
                tool_call_id="c1-retry",
                origin="p.pcap#frame=1",
                attrs={"traceparent": f"00-{tid.upper()}-00f067aa0ba902b7-01", "stream": 0},
            ),
            _ev(
                source="pcap",
                kind="http_request",
                tool_call_id="c9",
                origin="p.pcap#frame=5",
                attrs={"x_original_id": "c7", "stream": 1},
            ),
            _ev(kind="mw_received", tool_call_id="c7", trace_id="T7"),
        ]
    )
    tl = align(ev)
    by_call = dict(zip(tl.events["call"], tl.events["trace"], strict=True))
    assert by_call["c1-retry"] == tid
    assert by_call["c9"] == "T7"


def test_pcap_response_joins_its_request_by_stream_order() -> None:
    ev = _rows(
        [
            _ev(
                source="pcap",
                kind="http_request",
                tool_call_id="a",
                trace_id="TA",
                origin="p.pcap#frame=1",
                attrs={"stream": 3},
            ),
            _ev(
                source="pcap",
                kind="http_response",
                origin="p.pcap#frame=2",
                attrs={"stream": 3, "call_id": "b"},
            ),
            _ev(
                source="pcap",
                kind="http_request",
                tool_call_id="b",
                trace_id="TB",
                origin="p.pcap#frame=3",
                attrs={"stream": 3},
            ),
            _ev(source="pcap", kind="http_response", origin="p.pcap#frame=4", attrs={"stream": 3}),
        ]
    )
    tl = align(ev)
    got = tl.events.sort_values("seq")[["call", "trace"]].values.tolist()
    assert got == [["a", "TA"], ["a", "TA"], ["b", "TB"], ["b", "TB"]]


def test_align_joins_many_calls_into_their_traces() -> None:
    """Five events per call, ten calls per trace (bench/targets.py times 50,000 events)."""
    rows = 5_000
    ids = [f"c{i // 5}" for i in range(rows)]
    ev = _frame(
        [
            {
                "source": "middleware",
                "kind": "mw_request",
                "ts": T0 + pd.Timedelta(milliseconds=i),
                "seq": i,
                "origin": f"mw.log:{i}",
                "tool_call_id": ids[i],
                "trace_id": f"t{i // 50}",
            }
            for i in range(rows)
        ]
    )
    tl = align(ev)
    assert tl.events["trace"].nunique() == rows // 50


def test_reused_request_ids_do_not_glue_traces() -> None:
    ev = _rows(
        [
            _ev(
                source="nginx",
                kind="http_access",
                trace_id="TA",
                request_id="req-1",
                session_id="sa",
            ),
            _ev(
                source="nginx",
                kind="http_access",
                trace_id="TB",
                request_id="req-1",
                session_id="sb",
            ),
            _ev(kind="mw_received", tool_call_id="ca", trace_id="TA"),
            _ev(source="pcap", kind="http_request", request_id="req-2", origin="p.pcap#frame=1"),
            _ev(source="nginx", kind="http_access", trace_id="TC", request_id="req-2"),
        ]
    )
    tl = align(ev)
    by_origin = dict(zip(tl.events["origin"], tl.events["trace"], strict=True))
    assert by_origin["mw.log:1"] == "TA" and by_origin["mw.log:2"] == "TB"
    assert by_origin["p.pcap#frame=1"] == "TC"  # a request id naming one trace still links


def test_reused_call_id_across_sessions_is_two_calls() -> None:
    ev = _rows(
        [
            _ev(kind="mw_received", tool_call_id="call_0", trace_id="TA", session_id="sa"),
            _ev(kind="mw_rejected", tool_call_id="call_0", trace_id="TA", session_id="sa"),
            _ev(kind="mw_received", tool_call_id="call_0", trace_id="TB", session_id="sb"),
            # same session, other trace id: the call id links them (DESIGN §3)
            _ev(kind="mw_received", tool_call_id="call_7", trace_id="TC", session_id="sc"),
            _ev(kind="mw_injected", tool_call_id="call_7", trace_id="TD", session_id="sc"),
        ]
    )
    tl = align(ev)
    views = sorted((c.tool_call_id, c.trace, c.outcome) for c in tl.calls)
    assert views == [
        ("call_0", "TA", "rejected"),
        ("call_0", "TB", "missing"),
        ("call_7", "TC", "result"),
    ]
