"""Property tests: align never fails on odd but valid event tables, and its invariants hold."""

from __future__ import annotations

import math
from typing import Any

import orjson
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolcall_cli.align import align
from toolcall_cli.align.select import select_traces
from toolcall_cli.model.events import CONVERSATION_SOURCES, KINDS, build_frame

T0 = pd.Timestamp("2025-03-01T12:00:00Z")
IDS = st.sampled_from([None, "", " ", "a", "b", "c"])
KIND_PAIRS = [(s, k) for s, ks in KINDS.items() for k in ks] + [("nginx", "unparsed")]


@st.composite
def events(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(0, 25))
    rows: list[dict[str, Any]] = []
    for i in range(n):
        source, kind = draw(st.sampled_from(KIND_PAIRS))
        ms = draw(st.one_of(st.none(), st.integers(0, 5000)))
        attrs = draw(
            st.sampled_from(
                [
                    None,
                    {"stream": 0},
                    {"stream": 1, "call_id": "a"},
                    {"x_original_id": "b"},
                    {"traceparent": "00-" + "f" * 32 + "-" + "0" * 16 + "-01"},
                ]
            )
        )
        rows.append(
            {
                "ts": None
                if source == "messages" or ms is None
                else T0 + pd.Timedelta(milliseconds=ms),
                "seq": i,
                "source": source,
                "kind": kind,
                "origin": f"{source}.x#frame={i}",
                "tool_call_id": draw(IDS),
                "trace_id": draw(IDS),
                "session_id": draw(IDS),
                "request_id": draw(IDS),
                "duration_ms": draw(st.one_of(st.none(), st.floats(0, 3000))),
                "attrs": orjson.dumps(attrs).decode() if attrs else None,
            }
        )
    cols = [
        "ts",
        "seq",
        "source",
        "kind",
        "origin",
        "tool_call_id",
        "trace_id",
        "session_id",
        "request_id",
        "duration_ms",
        "attrs",
    ]
    return build_frame({c: [r[c] for r in rows] for c in cols}, n=n)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events(), st.booleans())
def test_align_invariants(ev: pd.DataFrame, correct: bool) -> None:
    tl = align(ev, skew_correction=correct)
    out = tl.events
    assert len(out) == len(ev)
    assert sorted(out["origin"]) == sorted(ev["origin"])
    # one non-empty tool_call_id → one trace, unless the sessions or trace ids carrying it
    # contradict each other, or two conversations (files of conversation sources) carry it
    # with nothing else linking them: then it is a reused id (DESIGN §3, scoped ids)
    sessions = out["session_id"].fillna("").str.strip()
    traces = out["trace_id"].fillna("").str.strip()
    ids = out[out["tool_call_id"].fillna("").str.strip() != ""]
    conversations = ids[ids["source"].isin(CONVERSATION_SOURCES)]["origin"].str.split("#").str[0]
    if sessions[sessions != ""].nunique() <= 1 and traces[traces != ""].nunique() <= 1:
        by_file = ids.assign(file=ids["origin"].str.split("#").str[0])
        assert (by_file.groupby(["file", "tool_call_id"])["trace"].nunique() <= 1).all()
        if conversations.nunique() <= 1:
            assert (ids.groupby("tool_call_id")["trace"].nunique() <= 1).all()
    assert {c.outcome for c in tl.calls} <= {
        "result",
        "rejected",
        "flooded",
        "timeout",
        "dropped",
        "missing",
        "cancelled",
    }
    for c in tl.calls:
        for v in c.phases.values():
            assert v is None or math.isfinite(v), c  # milliseconds, never NaN
    clocked = out[out["source"] != "messages"]
    assert (clocked["ts"].isna() == clocked["ts_corrected"].isna()).all()
    report = select_traces(tl, limit=3)
    assert len(report.traces) <= 3
