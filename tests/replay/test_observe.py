"""observe/agrees: the observed outcome from evidence kinds and the agreement table."""

from __future__ import annotations

from typing import Any

import pytest

from tests.replay.replay_helpers import tc
from toolcall_cli.replay.base import ResultEvidence
from toolcall_cli.replay.observe import agrees, observe


@pytest.mark.parametrize(
    ("kinds", "kw", "expected"),
    [
        ({"mw_received", "mw_rejected"}, {}, "rejected"),
        ({"mw_received", "mw_flooded"}, {}, "flooded"),
        ({"mw_received", "mw_request"}, {}, "dispatched"),
        ({"http_request"}, {}, "dispatched"),
        ({"tool_call"}, {"result": ResultEvidence("f#/2", "c1", True)}, "dispatched"),
        ({"tool_call"}, {"wire_in_scope": True}, "missing"),
        ({"tool_call"}, {"later_messages": True}, "missing"),
        ({"tool_call"}, {}, "unknown"),
    ],
)
def test_observe(kinds: set[str], kw: dict[str, Any], expected: str) -> None:  # kw: for tc()
    assert observe(tc(kinds=frozenset(kinds), **kw)) == expected


@pytest.mark.parametrize(
    ("replayed", "observed", "ok"),
    [
        ("dispatched", "dispatched", True),
        ("dispatched", "rejected", False),
        ("dispatched", "missing", False),
        ("rejected@response", "dispatched", True),  # judged after the request went out
        ("rejected@inject", "dispatched", True),
        ("rejected@ratelimit", "flooded", True),
        ("rejected@ratelimit", "rejected", False),
        ("rejected@schema", "rejected", True),
        ("rejected@schema", "flooded", False),
        ("rejected@prescreen", "dispatched", False),
        ("rejected@schema", "missing", True),  # a silent validation drop
        ("dispatched", "unknown", True),
        ("rejected@schema", "unknown", True),
    ],
)
def test_agrees(replayed: str, observed: str, ok: bool) -> None:
    assert agrees(replayed, observed) is ok


@pytest.mark.parametrize("end", [False, True], ids=["session-goes-on", "session-ends"])
def test_a_call_the_user_interrupted_is_not_a_silent_drop(tmp_path: Any, end: bool) -> None:
    """Claude Code: no result for the running `pytest`, then `[Request interrupted by user]`,
    then (or not) the session goes on. The user cancelled it: observed `unknown` (nothing to
    contradict), not `missing` (a drop the replay then disagrees with); the same session with
    the result simply lost (no interrupt) is still `missing` when the session goes on."""
    from tests.diagnose.test_diagnose_transcripts import FIX, _claude_code_with
    from toolcall_cli.replay import replay
    from toolcall_cli.sources import parse_file

    path = _claude_code_with(tmp_path, keep_result=False, end=end)
    (call,) = replay(parse_file(path), trace_id="toolu_01Bash").calls
    assert (call.observed, call.agrees) == ("unknown", True)
    lines = (FIX / "claude_code_session.jsonl").read_text().splitlines()
    lost = tmp_path / "lost.jsonl"
    lost.write_text(
        "\n".join(ln for ln in lines if "toolu_01Bash" not in ln or '"tool_use_id"' not in ln)
        + "\n"
    )
    (call,) = replay(parse_file(lost), trace_id="toolu_01Bash").calls
    assert call.observed == "missing"


def test_replay_says_why_a_call_the_user_aborted_is_observed_unknown() -> None:
    """`unknown` alone reads as "no evidence": the report's notes say the user aborted the
    call's turn (Codex `turn_aborted`); a replay without an abort has no such note."""
    import json

    from tests.conftest import ROOT, run_cli

    rollout = "fixtures/transcripts/codex_rollout.jsonl"
    args = ["replay", rollout, "--format", "json"]
    doc = json.loads(run_cli([*args, "--trace-id", "call_R3run"], cwd=ROOT).stdout)
    assert [c["observed"] for c in doc["calls"]] == ["unknown"]
    assert doc["notes"] == [
        "observed unknown: the user aborted the turn of call_R3run (cancelled, not dropped: "
        "no hop's verdict to compare)"
    ]
    doc = json.loads(run_cli([*args, "--trace-id", "call_L9k8"], cwd=ROOT).stdout)
    assert not any("aborted" in n for n in doc["notes"])
