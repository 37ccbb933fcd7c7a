"""replay() over event frames: outcomes, agreement, ordering, clocks, scope, registries."""

from __future__ import annotations

import pytest

from tests.replay.replay_helpers import QUERY_DB, call, frame, mw, result, text
from toolcall_cli.errors import UsageError
from toolcall_cli.model.config import Config, Flooding, config_from_dict
from toolcall_cli.replay import PIPELINE, CallReplay, ReplayReport, replay
from toolcall_cli.replay.calls import extract_calls
from toolcall_cli.replay.ratelimit import FLOOD_MESSAGE

T0 = "2024-05-01T00:00:0{}Z"


def _by_id(rep: ReplayReport) -> dict[str, CallReplay]:
    return {c.tool_call_id: c for c in rep.calls}


def test_pipeline_order_is_explicit() -> None:
    assert [s.name for s in PIPELINE] == ["prescreen", "schema", "ratelimit", "response", "inject"]


def test_outcomes_agreement_in_time_order() -> None:
    df = frame(
        [
            text(),
            call("c1", "query_db", '{"user_id": "u1"}'),
            call("c2", "query_db", "{'user_id': True}"),
            call("c3", "query_dbx", '{"user_id": "u3"}'),
            call("c4", "query_db", '{"user_id": "u4"}'),
            result("c1"),
            text("assistant_text"),
            mw("mw_received", "c1", T0.format(0)),
            mw("mw_request", "c1", T0.format(0)),
            mw("mw_received", "c2", T0.format(0)),
            mw("mw_rejected", "c2", T0.format(0), detail="invalid JSON in arguments"),
        ]
    )
    rep = replay(df, trace_id="t1")
    calls = _by_id(rep)
    got = {k: (c.replayed, c.observed, c.agrees) for k, c in calls.items()}
    assert got == {
        "c1": ("dispatched", "dispatched", True),
        "c2": ("rejected@prescreen", "rejected", True),
        "c3": ("dispatched", "missing", False),  # no registry: the name is not checked
        "c4": ("dispatched", "missing", False),
    }
    assert [c.tool_call_id for c in rep.calls] == ["c1", "c2", "c3", "c4"]  # time order
    assert rep.session_id == "s1" and rep.trace_id == "t1"
    assert all(len(c.stages) == 5 for c in rep.calls)
    c2 = calls["c2"]
    assert [v.verdict for v in c2.stages] == ["fail", "skip", "skip", "skip", "skip"]


def test_session_declared_tools_are_the_registry() -> None:
    df = frame(
        [
            {
                "source": "messages",
                "kind": "system",
                "session_id": "s1",
                "detail": "tools declared",
                "attrs": {"tools": [QUERY_DB]},
            },
            call("c1", "query_dbx", '{"user_id": "u1"}'),
            call("c2", "query_db", '{"user_id": ""}', turn=2),
            text("assistant_text"),
        ]
    )
    rep = replay(df, session_id="s1")
    assert rep.registry == "session"
    calls = _by_id(rep)
    assert calls["c1"].replayed == "rejected@prescreen"
    assert calls["c2"].replayed == "rejected@schema"
    assert calls["c1"].observed == "missing"


def test_flooding_matches_the_middleware() -> None:
    rows = []
    for i in range(7):
        rows.append(call(f"c{i}", "query_db", f'{{"user_id": "u{i}"}}', turn=i))
        rows.append(mw("mw_received", f"c{i}", T0.format(i)))
        rows.append(
            mw("mw_request", f"c{i}", T0.format(i))
            if i < 5
            else mw("mw_flooded", f"c{i}", T0.format(i), detail=FLOOD_MESSAGE)
        )
    rep = replay(frame(rows), trace_id="t1")
    calls = _by_id(rep)
    assert calls["c5"].replayed == "rejected@ratelimit"
    assert calls["c5"].observed == "flooded" and calls["c5"].agrees
    assert all(c.agrees for c in rep.calls)
    # what the middleware would have done with a higher limit disagrees with the evidence
    loose = replay(frame(rows), trace_id="t1", cfg=Config(flooding=Flooding(max_calls=10)))
    assert loose.disagreements == 2


def test_synthetic_clock_from_message_turns() -> None:
    # three parallel calls in one turn share a time; the next turn is one second later
    rows = [
        call(f"p{i}", "query_db", f'{{"user_id": "u{i}"}}', turn=1, call_index=i) for i in range(3)
    ]
    rows += [call("n1", "query_db", '{"user_id": "z"}', turn=2)]
    rep = replay(frame(rows), session_id="s1")
    clocks = {c.tool_call_id: (c.clock, c.clock_kind) for c in rep.calls}
    assert clocks == {
        "p0": (0.0, "synthetic"),
        "p1": (0.0, "synthetic"),
        "p2": (0.0, "synthetic"),
        "n1": (1.0, "synthetic"),
    }
    # messages alone: turn 1 went on without results (missing); the last turn ends the record
    assert {c.tool_call_id: c.observed for c in rep.calls} == {
        "p0": "missing",
        "p1": "missing",
        "p2": "missing",
        "n1": "unknown",
    }


def test_synthetic_clock_continues_from_real_times() -> None:
    rows = [
        call("a", "query_db", '{"user_id": "1"}', turn=1),
        call("b", "query_db", '{"user_id": "2"}', turn=3),
        mw("mw_request", "a", "2024-05-01T00:00:10Z"),
    ]
    rep = replay(frame(rows), session_id="s1")
    clocks = {c.tool_call_id: c.clock for c in rep.calls}
    assert clocks["b"] - clocks["a"] == 1.0


def test_history_resent_in_a_later_request_counts_once() -> None:
    rows = [
        call("c1", "query_db", '{"user_id": "u1"}'),
        result("c1"),
        call("c1", "query_db", '{"user_id": "u1"}'),
        result("c1"),
    ]
    rep = replay(frame(rows), session_id="s1")
    assert len(rep.calls) == 1 and rep.calls[0].stages[0].verdict == "pass"


def test_reused_id_on_a_different_call_is_a_duplicate() -> None:
    rows = [
        call("c1", "query_db", '{"user_id": "u1"}'),
        call("c1", "query_db", '{"user_id": "u2"}', turn=2),
    ]
    rep = replay(frame(rows), session_id="s1")
    codes = sorted(c.stages[0].code for c in rep.calls)
    assert codes == ["duplicate-id", "ok"]


def test_result_without_id_is_paired_by_position() -> None:
    rows = [call("c1", "query_db", '{"user_id": "u1"}'), result(None)]
    rep = replay(frame(rows), session_id="s1")
    inject = rep.calls[0].stages[-1]
    assert (inject.verdict, inject.code) == ("fail", "result-id-mismatch")
    assert rep.calls[0].replayed == "rejected@inject"
    assert rep.calls[0].observed == "dispatched" and rep.calls[0].agrees


def test_tool_call_id_selects_one_call_but_keeps_session_state() -> None:
    rows = [
        call("c1", "query_db", '{"user_id": "u1"}'),
        call("c2", "query_db", '{"user_id": "u1"}', turn=1),
    ]
    rep = replay(frame(rows), trace_id="c2")
    assert [c.tool_call_id for c in rep.calls] == ["c2"]
    assert rep.calls[0].replayed == "rejected@ratelimit"  # the same call as c1: deduped


def test_middleware_only_call() -> None:
    rows = [
        mw("mw_received", "m1", T0.format(0)),
        mw("mw_rejected", "m1", T0.format(0), detail="schema"),
    ]
    rep = replay(frame(rows), trace_id="t1")
    c = rep.calls[0]
    assert c.stages[0].reason.startswith("ok (arguments not recorded")
    assert c.observed == "rejected" and c.replayed == "dispatched" and not c.agrees


def test_unknown_trace_is_a_usage_error_with_known_ids() -> None:
    with pytest.raises(UsageError) as e:
        replay(frame([mw("mw_received", "m1", T0.format(0))]), trace_id="nope")
    assert "t1" in (e.value.hint or "")
    with pytest.raises(UsageError):
        replay(frame([mw("mw_received", "m1", T0.format(0))]))


def test_dedupe_can_be_turned_off_in_config() -> None:
    rows = [
        call("a", "query_db", '{"user_id": "1"}'),
        call("b", "query_db", '{"user_id": "1"}', turn=2),
    ]
    on = replay(frame(rows), session_id="s1")
    off = replay(
        frame(rows), session_id="s1", cfg=config_from_dict({"flooding": {"dedupe": False}})
    )
    assert [c.replayed for c in on.calls] == ["dispatched", "rejected@ratelimit"]
    assert [c.replayed for c in off.calls] == ["dispatched", "dispatched"]


def test_shared_id_evidence_is_split_between_the_calls() -> None:
    rows = [
        call("c0", "query_db", '{"user_id": "1"}'),
        call("c0", "query_db", '{"user_id": "2"}', turn=2),
        mw("mw_received", "c0", T0.format(0)),
        mw("mw_rejected", "c0", T0.format(0), detail="duplicate tool_call_id c0"),
        mw("mw_request", "c0", T0.format(1)),
    ]
    rep = replay(frame(rows), session_id="s1")
    assert sorted((c.replayed, c.observed, c.agrees) for c in rep.calls) == [
        ("dispatched", "dispatched", True),
        ("rejected@prescreen", "rejected", True),
    ]


def test_retry_response_is_judged_against_the_retry() -> None:
    def pcap(kind: str, ts: str, frame_no: int, **attrs: object) -> dict[str, object]:
        return {
            "source": "pcap",
            "kind": kind,
            "ts": ts,
            "tool_call_id": "r1",
            "session_id": "s1",
            "tool": "query_db",
            "attrs": {"frame": frame_no, **attrs},
        }

    rows = [
        call("r1", "query_db", '{"user_id": "1"}'),
        pcap("http_request", "2025-03-01T12:00:00.000Z", 4, x_request_timestamp="1740830400000"),
        pcap("http_request", "2025-03-01T12:00:05.000Z", 9, x_request_timestamp="1740830405000"),
        {
            **pcap(
                "http_response",
                "2025-03-01T12:00:05.300Z",
                14,
                request_frame=9,
                call_id="r1",
                timestamp=1740830405300,
                data_empty=False,
            ),
            "status": "success",
            "size": 50,
        },
    ]
    rep = replay(frame(rows), session_id="s1")
    resp = rep.calls[0].stages[3]
    assert (resp.stage, resp.verdict) == ("response", "pass"), resp.reason


def test_id_less_result_without_session_is_paired() -> None:
    rows = [
        {**call("c1", "query_db", '{"user_id": "1"}'), "session_id": None},
        {**result(None), "session_id": None},
    ]
    calls = extract_calls(frame(rows))
    assert calls[0].result is not None and calls[0].result.tool_call_id is None
