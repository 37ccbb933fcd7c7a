"""TR001–TR004: silent drops, cut results, cut arguments, rolled-out history."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import FIXTURES, need_corpus
from tests.diagnose.rule_fixture_helpers import run_rule
from toolcall_cli.diagnose import CLASSIFIERS, DiagnoseContext, diagnose_events
from toolcall_cli.diagnose.rules.truncation.result_truncated import truncation_signals
from toolcall_cli.model.findings import Severity
from toolcall_cli.sources import ingest_paths, parse_file

CODES = ("TR001", "TR002", "TR003", "TR004")


def _run(ctx: DiagnoseContext, code: str) -> list[Any]:
    return list(CLASSIFIERS.get(code)(ctx))


def _a(**kw: Any) -> str:
    return json.dumps(kw)


# ---- TR001 ---------------------------------------------------------------------------------


def test_tr001_names_the_failing_schema_rule() -> None:
    (f,) = run_rule("TR001", "positive")
    assert f.tool_call_ids == ("call_d1",)
    assert "schema" in f.message and "2025-13-01" in f.message
    assert dict(f.extra)["replayed"] == "rejected@schema"
    assert any("middleware.log" in e.origin for e in f.evidence)


def test_tr001_replay_passes_means_drop_outside_the_pipeline(
    make_ctx: Callable[..., DiagnoseContext],
) -> None:
    ctx = make_ctx(
        [
            {
                "source": "messages",
                "kind": "system",
                "session_id": "s",
                "detail": "tools declared",
                "attrs": _a(
                    tools=[
                        {
                            "type": "function",
                            "function": {"name": "ping", "parameters": {"type": "object"}},
                        }
                    ]
                ),
            },
            {
                "source": "messages",
                "kind": "tool_call",
                "session_id": "s",
                "tool_call_id": "c1",
                "tool": "ping",
                "args": "{}",
                "attrs": _a(msg_index=1),
            },
            {
                "source": "middleware",
                "kind": "mw_received",
                "session_id": "s",
                "tool_call_id": "c1",
                "tool": "ping",
                "ts": "2025-03-01T12:00:00Z",
                "detail": "tool call received: ping",
            },
        ]
    )
    (f,) = _run(ctx, "TR001")
    assert "replay dispatches it" in f.message


def test_tr001_conversation_that_ends_at_the_call_is_left_to_or001(
    make_ctx: Callable[..., DiagnoseContext],
) -> None:
    rows = [
        {
            "source": "messages",
            "kind": "user",
            "session_id": "s",
            "detail": "hi",
            "attrs": _a(msg_index=0),
        },
        {
            "source": "messages",
            "kind": "tool_call",
            "session_id": "s",
            "tool_call_id": "c1",
            "tool": "x",
            "args": '{"a": ',
            "attrs": _a(msg_index=1),
        },
    ]
    assert _run(make_ctx(rows), "TR001") == []


# ---- TR002 ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "row 1, row 2 ...[truncated]",
        "row 1, row 2 [truncated]",
        "row 1, row 2 …(truncated)",
        "row 1, row 2 <truncated>",
        "row 1, row 2 ... (4,211 more characters)",
        "row 1 [... 300 chars truncated ...]",
    ],
)
def test_truncation_markers(text: str) -> None:
    assert any(s.startswith("marker") for s in truncation_signals(text, budget=1000))


def test_cut_json_and_budget_signals() -> None:
    cut = '{"flights": [{"id": 1}, {"id": 2, "na'
    assert any("JSON cut off" in s for s in truncation_signals(cut, budget=1000))
    at_budget = ("x" * 999) + "y"
    assert any("budget" in s for s in truncation_signals(at_budget, budget=1000))
    common = ("a" * 4095) + "b"  # 4096 characters, stopping mid-word
    assert any("common budget" in s for s in truncation_signals(common, budget=1000))
    sentence = ("a" * 4094) + "b."
    assert truncation_signals(sentence, budget=1000) == []


def test_whole_results_are_quiet() -> None:
    assert truncation_signals('{"ok": true, "items": [1, 2, 3]}', budget=1000) == []
    assert truncation_signals("Booked AF22 for 2025-03-02. Seat 14C.", budget=1000) == []
    # exactly at the budget but a complete JSON document: not cut
    doc = json.dumps({"pad": "x" * 989})
    assert len(doc) == 1000
    assert truncation_signals(doc, budget=1000) == []


def test_wire_size_needs_a_cut_looking_message() -> None:
    assert (
        truncation_signals(
            "Found 3 flights; cheapest XX000 at 300 EUR.", budget=1000, wire_size=3109
        )
        == []
    )
    signals = truncation_signals(
        "Found 3 flights: XX000 06:00 300 EUR, XX001 06:0", budget=1000, wire_size=3109
    )
    assert any("on the wire" in s for s in signals)


def test_tr002_wire_size_from_the_access_log() -> None:
    """The truncated-result incident without its capture: nginx's body size is the wire size."""
    bundle = FIXTURES / "incidents" / "truncated-result"
    paths = [
        p for p in bundle.iterdir() if p.name in ("messages.json", "middleware.log", "access.log")
    ]
    rep = diagnose_events(ingest_paths(paths).events, select=["TR002"])
    (f,) = rep.findings
    assert f.tool == "search_flights"
    assert any("on the wire" in s for s in dict(f.extra)["signals"])


# ---- TR003 ---------------------------------------------------------------------------------


def test_tr003_finish_reason_length() -> None:
    (f,) = run_rule("TR003", "positive")
    assert 'finish_reason "length"' in f.message
    assert f.tool_call_ids == ("call_w1",)


def test_tr003_router_rewrote_finish_reason(make_ctx: Callable[..., DiagnoseContext]) -> None:
    ctx = make_ctx(
        [
            {
                "source": "messages",
                "kind": "tool_call",
                "session_id": "s",
                "tool_call_id": "c1",
                "tool": "w",
                "args": '{"body": "Revenue grew',
                "attrs": _a(msg_index=1, turn=1, call_index=0, finish_reason="tool_calls"),
            }
        ]
    )
    (f,) = _run(ctx, "TR003")
    assert "rewrote" in f.message


def test_tr003_empty_arguments_only_with_length(make_ctx: Callable[..., DiagnoseContext]) -> None:
    rows = [
        {
            "source": "messages",
            "kind": "tool_call",
            "session_id": "s",
            "tool_call_id": "c1",
            "tool": "w",
            "args": "",
            "attrs": _a(msg_index=1, finish_reason="length"),
        },
        {
            "source": "messages",
            "kind": "tool_call",
            "session_id": "s",
            "tool_call_id": "c2",
            "tool": "w",
            "args": "",
            "attrs": _a(msg_index=2, finish_reason="tool_calls"),
        },
    ]
    assert [f.tool_call_ids for f in _run(make_ctx(rows), "TR003")] == [("c1",)]


# ---- TR004 ---------------------------------------------------------------------------------


def test_tr004_names_the_rolled_out_reference() -> None:
    (f,) = run_rule("TR004", "positive")
    assert f.severity is Severity.warning
    assert "'ZFA04Y'" in f.message and "message 3" in f.message
    assert f.tool_call_ids == ("call_c9",)


def test_tr004_info_when_results_roll_out_without_reuse(
    make_ctx: Callable[..., DiagnoseContext],
) -> None:
    rows: list[dict[str, Any]] = []
    for i in range(25):
        rows.append(
            {
                "source": "messages",
                "kind": "tool_call",
                "session_id": "s",
                "tool_call_id": f"c{i}",
                "tool": "t",
                "args": "{}",
                "attrs": _a(msg_index=2 * i),
            }
        )
        rows.append(
            {
                "source": "messages",
                "kind": "tool_result",
                "session_id": "s",
                "tool_call_id": f"c{i}",
                "detail": f"result {i}",
                "attrs": _a(msg_index=2 * i + 1),
            }
        )
    (f,) = _run(make_ctx(rows), "TR004")
    assert f.severity is Severity.info
    assert "the history of 50 messages exceeds the 42-message window" in f.message
    short = rows[:40]
    assert _run(make_ctx(short), "TR004") == []


@pytest.mark.corpus
def test_tau_bench_airline_reviewed_counts() -> None:
    """Reviewed by hand: TR004 fires on the 8 conversations over 42 messages (one reuses a
    certificate id only an early result held); TR001–TR003 stay silent on healthy traffic."""
    path = (
        need_corpus()
        / "conversations"
        / "tau-bench"
        / "historical_trajectories__gpt-4o-airline.json"
    )
    rep = diagnose_events(parse_file(path), select=list(CODES))
    counts: dict[str, int] = {}
    for f in rep.findings:
        counts[f.code] = counts.get(f.code, 0) + 1
    assert counts == {"TR004": 8}
    assert [f.severity for f in rep.findings if f.severity is Severity.warning] == [
        Severity.warning
    ]


def test_tr001_conversation_alone_that_went_on() -> None:
    """`toolcall diagnose session.json` alone: the replay still names the rule."""
    path = FIXTURES / "rules" / "TR001" / "positive.messages.json"
    (f,) = diagnose_events(parse_file(path), select=["TR001"]).findings
    assert "conversation went on" in f.message and "2025-13-01" in f.message
