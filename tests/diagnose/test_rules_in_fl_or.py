"""IN, FL and OR rules: the details (breakpoints, grouping, severities) hold on hand-built event
tables (the fixture checks of every rule are in test_rule_fixtures.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from toolcall_cli.diagnose import classify
from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.model.findings import Finding, Severity

MakeCtx = Callable[..., DiagnoseContext]


def _codes(ctx: DiagnoseContext, *select: str) -> list[Finding]:
    return list(classify(ctx, select=select).findings)


def call(cid: str, tool: str, args: str, msg: int, sid: str = "s1", **kw: Any) -> dict[str, Any]:
    attrs = f'{{"msg_index": {msg}}}'
    return {"source": "messages", "kind": "tool_call", "tool_call_id": cid, "tool": tool,
            "args": args, "session_id": sid, "attrs": attrs, **kw}  # fmt: skip


def result(cid: str, msg: int, sid: str = "s1", follows: bool = True) -> dict[str, Any]:
    attrs = f'{{"msg_index": {msg}, "follows_call": {str(follows).lower()}}}'
    return {"source": "messages", "kind": "tool_result", "tool_call_id": cid, "detail": "ok",
            "session_id": sid, "attrs": attrs}  # fmt: skip


def mw(kind: str, cid: str, t: str, sid: str = "s1", **kw: Any) -> dict[str, Any]:
    return {"source": "middleware", "kind": kind, "tool_call_id": cid, "session_id": sid,
            "ts": f"2025-03-01T12:00:{t}Z", "tool": "book", **kw}  # fmt: skip


def user(msg: int, sid: str = "s1") -> dict[str, Any]:
    return {
        "source": "messages",
        "kind": "user",
        "detail": "hi",
        "session_id": sid,
        "attrs": f'{{"msg_index": {msg}}}',
    }


# --- FL001 -------------------------------------------------------------------------------------


def test_loop_compares_canonical_json(make_ctx: MakeCtx) -> None:
    rows = [call("a", "w", '{"city": "Paris", "n": 1}', 1), result("a", 2),
            call("b", "w", '{"n":1,"city":"Paris"}', 3), result("b", 4),
            call("c", "w", '{ "city" : "Paris", "n" : 1 }', 5), result("c", 6)]  # fmt: skip
    (f,) = _codes(make_ctx(rows), "FL001")
    assert f.tool_call_ids == ("a", "b", "c") and dict(f.extra)["repeats"] == 3


def test_loop_skips_calls_without_arguments_and_compares_bad_json_as_text(
    make_ctx: MakeCtx,
) -> None:
    empty = [
        call(c, "list", a, i) for i, (c, a) in enumerate([("a", "{}"), ("b", ""), ("c", "{}")])
    ]
    assert _codes(make_ctx(empty), "FL001") == []
    bad = [call(c, "w", "{city: Paris", i) for i, c in enumerate("abc")]
    assert len(_codes(make_ctx(bad), "FL001")) == 1
    mixed = [
        call("a", "w", "{city: Paris", 0),
        call("b", "w", "{city: Rome", 1),
        call("c", "w", "{city: Paris", 2),
    ]
    assert _codes(make_ctx(mixed), "FL001") == []


def test_loop_needs_different_ids_and_one_session(make_ctx: MakeCtx) -> None:
    replayed = [call("a", "w", '{"x": 1}', 1)] * 3  # history replayed: one call, three copies
    assert _codes(make_ctx(replayed), "FL001") == []
    spread = [
        call(c, "w", '{"x": 1}', 1, sid=s) for c, s in (("a", "s1"), ("b", "s2"), ("c", "s3"))
    ]
    assert _codes(make_ctx(spread), "FL001") == []


# --- FL003 -------------------------------------------------------------------------------------


def test_duplicate_id_in_one_turn_is_an_error_across_turns_a_warning(make_ctx: MakeCtx) -> None:
    same_turn = [call("x", "w", '{"c": 1}', 1), call("x", "t", '{"z": 1}', 1)]
    (f,) = _codes(make_ctx(same_turn), "FL003")
    assert f.severity is Severity.error and dict(f.extra)["same_turn"] is True
    later = [
        call("x", "w", '{"c": 1}', 1),
        result("x", 2),
        call("x", "t", '{"z": 1}', 3),
        result("x", 4),
    ]
    (g,) = _codes(make_ctx(later), "FL003")
    assert g.severity is Severity.warning


def test_empty_ids_are_reported(make_ctx: MakeCtx) -> None:
    (f,) = _codes(make_ctx([call("", "w", '{"c": 1}', 1), call("", "t", '{"c": 2}', 1)]), "FL003")
    assert f.severity is Severity.error and dict(f.extra)["empty_id"] is True
    (g,) = _codes(make_ctx([call("", "w", '{"c": 1}', 1)]), "FL003")
    assert g.severity is Severity.warning


# --- FL006 -------------------------------------------------------------------------------------


def test_unexplained_flood_only_without_a_cause(make_ctx: MakeCtx) -> None:
    flood = mw(
        "mw_flooded",
        "d",
        "05.000",
        detail="tool call cancelled because tool-call flooding was detected",
    )
    assert len(_codes(make_ctx([flood]), "FL006")) == 1
    loop = [call(c, "w", '{"x": 1}', i) for i, c in enumerate("abc")]
    assert _codes(make_ctx([*loop, flood]), "FL006") == []
    (f,) = _codes(make_ctx([*loop, flood]), "FL001")
    # the loop's story: its first call, then the cancellation it explains (no result here)
    assert [e.origin for e in f.evidence[:2]] == ["test#/0", "test#/3"]


# --- OR001 breakpoints -------------------------------------------------------------------------

CALL = call("k", "book", '{"f": 1}', 1)
LATER = user(2)


@pytest.mark.parametrize(
    ("chain", "breakpoint"),
    [
        ([mw("mw_received", "k", "01.000")], "blocked"),
        ([mw("mw_received", "k", "01.000"), mw("mw_request", "k", "01.100")], "no-response"),
        (
            [
                mw("mw_request", "k", "01.100"),
                mw("mw_response", "k", "01.300", attrs='{"call_id": "zz"}'),
            ],
            "response-dropped",
        ),
        (
            [
                mw("mw_request", "k", "01.100"),
                mw("mw_response", "k", "01.300"),
                mw("mw_dropped", "k", "01.310"),
            ],
            "response-dropped",
        ),
        ([mw("mw_request", "k", "01.100"), mw("mw_response", "k", "01.300")], "not-injected"),
        (
            [
                mw("mw_request", "k", "01.100"),
                mw("mw_response", "k", "01.300"),
                mw("mw_injected", "k", "01.400"),
            ],
            "unknown",
        ),
    ],
)
def test_breakpoint_walk(make_ctx: MakeCtx, chain: list[dict[str, Any]], breakpoint: str) -> None:
    (f,) = _codes(make_ctx([CALL, LATER, *chain]), "OR001")
    assert dict(f.extra)["breakpoint"] == breakpoint
    assert f.severity is Severity.error


def test_conversation_only_orphan_is_unknown_error_mid_conversation(make_ctx: MakeCtx) -> None:
    (f,) = _codes(make_ctx([CALL, LATER]), "OR001")
    assert dict(f.extra)["breakpoint"] == "unknown" and f.severity is Severity.error


def test_trailing_call_without_evidence_is_a_warning(make_ctx: MakeCtx) -> None:
    (f,) = _codes(make_ctx([user(0), CALL]), "OR001")
    assert dict(f.extra)["breakpoint"] == "unknown" and f.severity is Severity.warning
    (g,) = _codes(make_ctx([user(0), CALL, mw("mw_received", "k", "01.000")]), "OR001")
    assert dict(g.extra)["breakpoint"] == "blocked" and g.severity is Severity.error


def test_empty_id_call_is_paired_by_position(make_ctx: MakeCtx) -> None:
    rows = [user(0), call("", "w", "{}", 1), result("invented", 2, follows=False), user(3)]
    assert _codes(make_ctx(rows), "OR001", "OR002", "OR004") == []


def test_middleware_only_call_counts_injection_as_its_result(make_ctx: MakeCtx) -> None:
    ok = [mw("mw_received", "m", "01.000"), mw("mw_request", "m", "01.100"),
          mw("mw_response", "m", "01.200"), mw("mw_injected", "m", "01.300")]  # fmt: skip
    assert _codes(make_ctx(ok), "OR001") == []
    (f,) = _codes(make_ctx(ok[:3]), "OR001")
    assert dict(f.extra)["breakpoint"] == "not-injected"


# --- OR002 / OR004 -----------------------------------------------------------------------------


def test_result_before_its_call_and_out_of_order(make_ctx: MakeCtx) -> None:
    early = [user(0), result("k", 1, follows=False), call("k", "w", '{"a": 1}', 2)]
    (f,) = _codes(make_ctx(early), "OR002")
    assert "later" in f.message
    late = [user(0), call("k", "w", '{"a": 1}', 1), user(2), result("k", 3, follows=False)]
    assert [g.code for g in _codes(make_ctx(late), "OR")] == ["OR004"]


def test_results_without_any_id_are_not_paired(make_ctx: MakeCtx) -> None:
    bare = {"source": "messages", "kind": "tool_result", "detail": "Observation: 42",
            "session_id": "s1", "attrs": '{"msg_index": 1, "follows_call": false}'}  # fmt: skip
    rows = [user(0), bare]
    assert _codes(make_ctx(rows), "OR002") == []


# --- IN002 -------------------------------------------------------------------------------------


def test_clock_skew_against_tolerance(make_ctx: MakeCtx) -> None:
    rows = [
        mw("mw_request", "k", "01.000"),
        {**mw("mw_request", "k", "04.000"), "source": "pcap", "kind": "http_request"},
    ]
    (f,) = _codes(make_ctx(rows, skews={"pcap": 3000.0, "middleware": 0.0}), "IN002")
    assert dict(f.extra) == {"source": "pcap", "offset_ms": 3000.0}
    assert _codes(make_ctx(rows, skews={"pcap": 400.0}), "IN002") == []


# --- FL002 / FL004 / FL005 on infrastructure rows ----------------------------------------------


def http(kind: str, t: str, uri: str, source: str = "pcap", **kw: Any) -> dict[str, Any]:
    attrs = f'{{"method": "POST", "uri": "{uri}"}}'
    return {"source": source, "kind": kind, "ts": f"2025-03-01T12:00:{t}Z", "session_id": "s1",
            "detail": f"POST {uri} HTTP/1.1", "attrs": attrs, **kw}  # fmt: skip


def test_double_submit_by_identical_captured_bodies(make_ctx: MakeCtx) -> None:
    twice = [http("http_request", "01.000", "/v1/chat/completions", size=900),
             http("http_request", "04.000", "/v1/chat/completions", size=900)]  # fmt: skip
    (f,) = _codes(make_ctx(twice), "FL002")
    assert dict(f.extra) == {"requests": 2, "source": "pcap"}
    answered = [twice[0], mw("mw_injected", "k", "02.000"), twice[1]]  # a tool result came between
    assert _codes(make_ctx(answered), "FL002") == []
    different = [twice[0], {**twice[1], "size": 1400}]
    assert _codes(make_ctx(different), "FL002") == []


def test_retry_after_gateway_timeout_without_ids(make_ctx: MakeCtx) -> None:
    def line(t: str, status: int) -> dict[str, Any]:
        return http(
            "http_access", t, "/tools/book", source="nginx", http_status=status, tool="book"
        )

    lines = [line("05.000", 504), line("06.000", 200)]
    (f,) = _codes(make_ctx(lines), "FL004")
    assert "HTTP 504" in f.message
    assert _codes(make_ctx([lines[1], {**lines[1], "ts": "2025-03-01T12:00:09Z"}]), "FL004") == []


def test_split_session_is_an_error_only_with_a_flood(make_ctx: MakeCtx) -> None:
    rows = [mw("mw_received", "a", "01.000", instance="mw-1"),
            mw("mw_received", "b", "02.000", instance="mw-2")]  # fmt: skip
    (f,) = _codes(make_ctx(rows), "FL005")
    assert f.severity is Severity.warning and dict(f.extra)["instances"] == ["mw-1", "mw-2"]
    said = "tool-call flooding was detected"
    flood = mw("mw_flooded", "c", "03.000", instance="mw-2", detail=said)
    (g,) = _codes(make_ctx([*rows, flood]), "FL005")
    assert g.severity is Severity.error
