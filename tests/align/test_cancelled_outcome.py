"""A call the client cancelled (MCP `notifications/cancelled`) is `cancelled` in the timeline,
as OR001's breakpoint has it, not a bare `missing`; a call answered after all stays `result`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli
from toolcall_cli.align import align
from toolcall_cli.sources import parse_file

MCP = Path(__file__).resolve().parents[2] / "fixtures" / "mcp"


@pytest.mark.parametrize(
    "name", ["session_2025-11-25.jsonl", "session_2026-07-28.log", "session_2026-07-28.raw.jsonl"]
)
def test_a_cancelled_call_is_cancelled(name: str) -> None:
    tl = align(parse_file(MCP / name))
    outcome = {c.tool_call_id: c.outcome for c in tl.calls}
    assert outcome["4"] == "cancelled"  # slow_report, cancelled after its progress reports
    assert {o for cid, o in outcome.items() if cid != "4"} == {"result"}


def test_a_session_without_cancellation_has_none() -> None:
    tl = align(parse_file(MCP / "session_2025-06-18.jsonl"))
    assert tl.calls and "cancelled" not in {c.outcome for c in tl.calls}


def test_a_call_the_user_aborted_is_cancelled_beside_one_still_missing(tmp_path: Path) -> None:
    """Codex `turn_aborted` after the last call: that call is `cancelled`; a result dropped
    from an earlier turn of the same rollout is still `missing` (the abort does not reach
    back past the model's next turn)."""
    rollout = MCP.parent / "transcripts" / "codex_rollout.jsonl"
    lines = rollout.read_text().splitlines()
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(ln for ln in lines if "function_call_output" not in ln) + "\n")
    calls = align(parse_file(path)).calls
    outcome = {c.tool_call_id: c.outcome for c in calls}
    assert outcome == {
        "call_Q1w2e3": "missing",
        "call_L9k8": "result",
        "call_P4tch": "result",
        "call_R3run": "cancelled",
    }
    # the evidence: the `turn_aborted` line, quoted by the timeline beside the call
    marker = f"{path}:13#/payload"  # line 14 of the rollout, less the dropped output line
    assert {c.tool_call_id: c.cancelled_origin for c in calls if c.cancelled_origin} == {
        "call_R3run": marker
    }
    # named from its own directory: a cell holds 200 characters, and a temp path (an xdist
    # worker's is longer) would push the origin past them
    res = run_cli(["timeline", path.name, "--trace-id", "call_R3run"], cwd=tmp_path)
    said = " ".join(res.stdout.split())  # the line folds at the terminal's width
    when = "2025-09-10 14:00:16.100 UTC"  # the marker's own timestamp
    why = 'the user aborted its turn ("turn aborted: interrupted")'
    assert f"call_R3run cancelled at {when}: {why} at {path.name}:13#/payload" in said


@pytest.mark.parametrize(
    "name", ["groq__groq-tool-call.json", "anthropic__anthropic-tool-no-args.chunks.txt"]
)
def test_a_real_unanswered_call_without_an_abort_stays_missing(corpus: Path, name: str) -> None:
    """The negative, on recorded provider traffic: a response that ends on a call nobody
    aborted is `missing`, as before."""
    path = corpus / "conversations" / "vercel-ai_provider_fixtures" / name
    outcomes = {c.outcome for c in align(parse_file(path)).calls}
    assert outcomes == {"missing"}


def test_a_call_the_user_aborted_is_not_trouble() -> None:
    """`trouble` ranks traces worst first for the on-call engineer: the trace of a call whose
    turn the user aborted (no hop failed, OR001 silent) scores 0 and is not listed first, as
    it was with trouble 1; a call the client cancelled (OR001 reports it) still counts."""
    import json

    rollout = "fixtures/transcripts/codex_rollout.jsonl"
    doc = json.loads(run_cli(["timeline", rollout, "--format", "json"], cwd=ROOT).stdout)
    trouble = {t["trace_id"]: t["trouble"] for t in doc["traces"]}
    assert trouble["call_R3run"] == 0 and set(trouble.values()) == {0}
    assert doc["traces"][0]["trace_id"] != "call_R3run"
    mcp = "fixtures/mcp/session_2025-11-25.jsonl"
    doc = json.loads(run_cli(["timeline", mcp, "--format", "json"], cwd=ROOT).stdout)
    assert {t["trace_id"]: t["trouble"] for t in doc["traces"]}["4"] == 1
