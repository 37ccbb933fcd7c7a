"""Attribution of a reused call id (align/scope.py, align/scope_links.py) on small tables.

Two conversations (s1, s2) each call `call_0`; a middleware log names s1 for it. What other
sources say decides where their events go: an agreeing key, else the call window, else none.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from toolcall_cli.align import align
from toolcall_cli.model.events import build_frame

T0 = pd.Timestamp("2025-03-01T12:00:00Z")


def _table(extra: list[dict[str, Any]]) -> pd.DataFrame:
    rows: list[dict[str, Any]] = [
        {"source": "messages", "kind": "tool_call", "origin": "m.jsonl:1#/messages/1",
         "session_id": "s1", "tool_call_id": "call_0", "tool": "get_weather"},
        {"source": "messages", "kind": "tool_call", "origin": "m.jsonl:2#/messages/1",
         "session_id": "s2", "tool_call_id": "call_0", "tool": "get_weather"},
        {"source": "middleware", "kind": "mw_received", "origin": "mw.log:1",
         "session_id": "s1", "tool_call_id": "call_0", "ts": T0},
        {"source": "middleware", "kind": "mw_response", "origin": "mw.log:2",
         "session_id": "s1", "tool_call_id": "call_0", "ts": T0 + pd.Timedelta(seconds=1)},
        *extra,
    ]  # fmt: skip
    cols = sorted({k for r in rows for k in r})
    frame = {c: [r.get(c) for r in rows] for c in cols}
    frame["seq"] = list(range(len(rows)))
    return build_frame(frame, n=len(rows))


def _trace_of(tl: Any, origin: str) -> str:
    ev = tl.events
    return str(ev.loc[ev["origin"] == origin, "trace"].iloc[0])


def test_agreeing_session_links_and_conversations_stay_apart() -> None:
    tl = align(_table([]))
    assert _trace_of(tl, "mw.log:1") == _trace_of(tl, "m.jsonl:1#/messages/1")
    assert _trace_of(tl, "m.jsonl:2#/messages/1") != _trace_of(tl, "m.jsonl:1#/messages/1")
    (amb,) = tl.ambiguous
    assert (amb.tool_call_id, amb.conversations, amb.unlinked, amb.by_time) == ("call_0", 2, (), ())


def test_a_keyless_event_inside_the_call_window_is_attributed_by_time() -> None:
    pcap = {"source": "pcap", "kind": "http_request", "origin": "c.pcap#frame=3",
            "tool_call_id": "call_0", "ts": T0 + pd.Timedelta(milliseconds=500)}  # fmt: skip
    tl = align(_table([pcap]))
    assert _trace_of(tl, "c.pcap#frame=3") == _trace_of(tl, "mw.log:1")
    (amb,) = tl.ambiguous
    assert len(amb.by_time) == 1 and amb.unlinked == ()


def test_a_keyless_event_outside_every_window_is_left_unlinked() -> None:
    pcap = {"source": "pcap", "kind": "http_request", "origin": "c.pcap#frame=3",
            "tool_call_id": "call_0", "ts": T0 + pd.Timedelta(hours=1)}  # fmt: skip
    tl = align(_table([pcap]))
    traces = {_trace_of(tl, o) for o in ("m.jsonl:1#/messages/1", "m.jsonl:2#/messages/1")}
    assert _trace_of(tl, "c.pcap#frame=3") not in traces
    (amb,) = tl.ambiguous
    assert len(amb.unlinked) == 1 and amb.by_time == ()


def test_an_id_in_one_conversation_links_across_sources_as_before() -> None:
    rows = _table([])
    one = rows[rows["session_id"] != "s2"].reset_index(drop=True)
    tl = align(one)
    assert tl.ambiguous == ()
    assert len({_trace_of(tl, o) for o in one["origin"]}) == 1


def _conversation(rows: list[dict[str, Any]]) -> pd.DataFrame:
    cols = sorted({k for r in rows for k in r})
    frame = {c: [r.get(c) for r in rows] for c in cols}
    frame["seq"] = list(range(len(rows)))
    return build_frame(frame, n=len(rows))


def test_a_row_without_the_session_of_its_one_session_file_is_that_conversation() -> None:
    # found by the align property test: a file whose only session is `a`, one row omitting it
    call = {"source": "messages", "kind": "tool_call", "origin": "c.json#/messages/1",
            "tool_call_id": "call_0", "tool": "get_weather"}  # fmt: skip
    result = {"source": "messages", "kind": "tool_result", "origin": "c.json#/messages/2",
              "session_id": "a", "tool_call_id": "call_0"}  # fmt: skip
    tl = align(_conversation([call, result]))
    assert _trace_of(tl, "c.json#/messages/1") == _trace_of(tl, "c.json#/messages/2")
    assert tl.ambiguous == ()


def test_a_keyless_row_of_a_file_with_two_sessions_stays_keyless() -> None:
    keyless = {"source": "messages", "kind": "tool_result", "origin": "m.jsonl:3#/messages/2",
               "tool_call_id": "call_0"}  # fmt: skip
    tl = align(_table([keyless]))
    traces = {_trace_of(tl, o) for o in ("m.jsonl:1#/messages/1", "m.jsonl:2#/messages/1")}
    assert _trace_of(tl, "m.jsonl:3#/messages/2") not in traces
