"""diagnose on agent session logs, eval results and text-protocol traffic: the findings a
careful reader of each file lists (checked by hand), pinned."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CORPUS
from toolcall_cli.cli._inputs import evidence_for
from toolcall_cli.diagnose.kit.context import DiagnoseReport
from toolcall_cli.diagnose.request import DiagnoseRequest
from toolcall_cli.diagnose.run import diagnose
from toolcall_cli.sources.base import ParseOptions

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures" / "transcripts"
TEXT = ROOT / "fixtures" / "messages" / "text_protocols"
BFCL = CORPUS / "bfcl" / "gorilla_v4_data"

Found = list[tuple[str, str, tuple[str, ...], str]]


def _diagnose(paths: tuple[Path, ...], tools: tuple[Path, ...] = ()) -> DiagnoseReport:
    # the command's own gather step: --tools reach the parser (BFCL results join by id)
    got = evidence_for(
        list(paths), store=Path(".toolcall"), source=None, opts=ParseOptions(tools=tools)
    )
    req = DiagnoseRequest(tools=tools)
    return diagnose(got.events, req, inputs=got.inputs, quotable=got.quotable)


def findings(paths: tuple[Path, ...], tools: tuple[Path, ...] = ()) -> Found:
    report = _diagnose(paths, tools)
    return sorted(
        (f.code, f.severity.value, tuple(f.tool_call_ids), f.session_id or "")
        for f in report.findings
    )


def test_claude_code_session() -> None:
    """A healthy session: the rejected Edit is answered (no OR001), and the 21 s the user took
    to reject it and the 4.1 s of the Task sub-agent are the agent's own times, not a round
    trip through infrastructure (no TM002 end to end)."""
    assert findings((FIX / "claude_code_session.jsonl",)) == []


def test_a_result_missing_mid_session_is_an_error(tmp_path: Path) -> None:
    """The lines of a session log are one conversation, not one each: a call whose result is
    missing while the session goes on is an error, not "the conversation ends with it"."""
    lines = (FIX / "claude_code_session.jsonl").read_text().splitlines()
    result = next(i for i, ln in enumerate(lines) if '"tool_use_id"' in ln and "toolu_01Bash" in ln)
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(lines[:result] + lines[result + 1 :]) + "\n")
    sid = "7f3c2a1e-5b9d-4c1e-9a2f-3d4e5f6a7b8c"
    assert findings((path,)) == [("OR001", "error", ("toolu_01Bash",), sid)]


def test_claude_code_broken_threads() -> None:
    sid = "b1e2c3d4-0000-4000-8000-000000000002"
    assert findings((FIX / "claude_code_threads.jsonl",)) == [
        ("IN001", "warning", (), ""),  # the cut line, every other line kept
        ("OR002", "error", ("toolu_early",), sid),  # its result comes before the call
    ]


def test_codex_rollout() -> None:
    """The last `make test` was aborted by the user: cancelled, not an orphan (the timeline
    says so); the apply_patch call's free-text input is not a PR001."""
    assert findings((FIX / "codex_rollout.jsonl",)) == []


def _or001(path: Path) -> list[tuple[str, str, str, list[str]]]:
    """(severity, breakpoint, message, evidence origins) of every OR001 of *path*."""
    return [
        (f.severity.value, str(f.fact("breakpoint")), f.message, [e.origin for e in f.evidence])
        for f in _diagnose((path,)).findings
        if f.code == "OR001"
    ]


def _outcomes(path: Path) -> dict[str, str]:
    """Timeline outcome of every call of *path*."""
    from toolcall_cli.align import align
    from toolcall_cli.sources import parse_file

    return {c.tool_call_id: c.outcome for c in align(parse_file(path)).calls}


def test_a_call_of_an_aborted_codex_turn_is_cancelled_not_an_orphan() -> None:
    """`turn_aborted` after the last call: the user stopped the turn. No hop lost the call, so
    no OR001 says it has no result; the timeline calls it `cancelled`, not `missing`."""
    path = FIX / "codex_rollout.jsonl"
    assert _or001(path) == []
    assert _outcomes(path) == {
        "call_Q1w2e3": "result",
        "call_L9k8": "result",
        "call_P4tch": "result",
        "call_R3run": "cancelled",
    }


def test_a_result_missing_before_the_model_moved_on_is_not_the_abort(tmp_path: Path) -> None:
    """The abort explains only the calls of the turn it stopped: a result missing from an
    earlier model turn of the same rollout stays an error (and `missing` in the timeline)."""
    lines = (FIX / "codex_rollout.jsonl").read_text().splitlines()
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(ln for ln in lines if "function_call_output" not in ln) + "\n")
    got = sorted((sev, bp, m.split(" ")[1]) for sev, bp, m, _ in _or001(path))
    assert got == [("error", "unknown", "call_Q1w2e3")]
    outcomes = _outcomes(path)
    assert (outcomes["call_Q1w2e3"], outcomes["call_R3run"]) == ("missing", "cancelled")


def _claude_code_with(tmp_path: Path, *, keep_result: bool, end: bool = False) -> Path:
    """The session fixture where the user pressed Esc while `pytest` ran: Claude Code's own
    result for the call (kept or not) and its `[Request interrupted by user]` turn."""
    import json

    lines = (FIX / "claude_code_session.jsonl").read_text().splitlines()
    at = next(i for i, ln in enumerate(lines) if '"tool_use_id"' in ln and "toolu_01Bash" in ln)
    record = json.loads(lines[at])
    marker = {
        **record,
        "uuid": "u-4i",
        "message": {
            "role": "user",
            "content": [{"type": "text", "text": "[Request interrupted by user for tool use]"}],
        },
    }
    marker.pop("toolUseResult")
    record["message"]["content"][0]["content"] = "[Request interrupted by user for tool use]"
    middle = [json.dumps(record)] if keep_result else []
    rest = [] if end else lines[at + 1 :]
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join([*lines[:at], *middle, json.dumps(marker), *rest]) + "\n")
    return path


@pytest.mark.parametrize("end", [False, True], ids=["session-goes-on", "session-ends"])
def test_a_claude_code_interrupted_call_is_cancelled(tmp_path: Path, end: bool) -> None:
    """No result, then the user's interrupt: `cancelled` in the timeline, not `missing`, and
    no OR001 "no other source records this call" — whether the session goes on or ends."""
    path = _claude_code_with(tmp_path, keep_result=False, end=end)
    assert _or001(path) == []
    assert _outcomes(path)["toolu_01Bash"] == "cancelled"


def test_a_claude_code_interrupt_answered_by_its_result_is_healthy(tmp_path: Path) -> None:
    """Claude Code answers an interrupted call itself (`is_error`, the interrupt text): a
    result the model sees, not an orphan, and not a tool's failure (PR011)."""
    assert findings((_claude_code_with(tmp_path, keep_result=True),)) == []


def test_openhands_finish_is_the_answer_not_an_orphan() -> None:
    """OpenHands ends a run with its `finish` action, which no runtime executes and no
    observation answers: the trajectory is healthy, not 'call toolu_03 has no tool result'."""
    assert findings((FIX / "openhands_trajectory.json",)) == []


def test_openhands_run_without_its_observation_is_still_found(tmp_path: Path) -> None:
    """The negative: a command whose observation is missing is an orphan (the run went on)."""
    import json

    events = json.loads((FIX / "openhands_trajectory.json").read_text())
    path = tmp_path / "trajectory.json"
    path.write_text(json.dumps([e for e in events if e.get("cause") != 2]))
    got = findings((path,))
    assert [(code, sev, ids) for code, sev, ids, _ in got] == [("OR001", "error", ("toolu_01",))]


def test_an_inspect_timeout_is_tm001_with_the_words_the_model_got() -> None:
    """The failed `cat` carries `error: {type: timeout, message}` beside empty content; Inspect
    sends the model `Error: <message>`. So the model was told it timed out (TM001: no partial
    result), not given "no words at all" (PR011, which leaves timeouts to TM001)."""
    report = _diagnose((FIX / "inspect_eval_log.json",))
    got = [(f.code, f.severity.value, f.tool_call_ids) for f in report.findings]
    assert got == [("TM001", "warning", ("call_a2",))]
    assert "'Error: Command timed out before completing.'" in report.findings[0].message


def test_bfcl_result_with_its_questions(corpus: Path) -> None:
    """A hallucinated name (`algebra_quadratic_roots` for `algebra.quadratic_roots`) and cut
    arguments; no OR001 for calls the harness ran outside the file. The cut arguments are
    PR001 "cut off" only: 16 output tokens and no finish reason are no evidence of a token
    limit, so no TR003."""
    got = findings((FIX / "bfcl_result_simple.json",), (BFCL / "BFCL_v4_simple_python.json",))
    assert got == [
        ("PR001", "error", (), "simple_python_4"),
        ("PR002", "error", (), "simple_python_3"),
    ]


def test_bfcl_multi_turn_result_is_clean(corpus: Path) -> None:
    got = findings((FIX / "bfcl_result_multi_turn.json",), (BFCL / "BFCL_v4_multi_turn_base.json",))
    assert got == []


@pytest.mark.parametrize("name", ["function_tag_cut", "harmony_cut", "openhands_llamacpp_exchange"])
def test_cut_text_protocol_calls_are_truncated_calls(name: str) -> None:
    codes = [(c, s) for c, s, _, _ in findings((TEXT / f"{name}.json",))]
    assert codes == [("OR001", "warning"), ("PR001", "error"), ("TR003", "error")]


def test_gpt_oss_exchange_names_the_stop_word() -> None:
    report = _diagnose((TEXT / "openhands_llamacpp_exchange.json",))
    tr003 = [f for f in report.findings if f.code == "TR003"]
    assert len(tr003) == 1 and "'</function'" in tr003[0].message


def test_a_cancelled_call_is_not_counted_healthy() -> None:
    """No findings on the aborted rollout, but the verdict does not vouch for the call the user
    cancelled: 3 of its 4 calls look healthy, 1 was cancelled by the user (and the JSON summary
    counts it, and by whom); a run without a cancelled call reads as before (exit0_clean
    golden)."""
    from tests.conftest import ROOT, run_cli

    path = FIX / "codex_rollout.jsonl"
    res = run_cli(["diagnose", str(path)], cwd=ROOT)
    assert res.exit_code == 0
    assert res.stdout.startswith(
        "no findings · 4 calls in 5 traces: 3 look healthy, 1 was cancelled by the user"
    )
    summary = _diagnose((path,)).summary
    assert (summary["cancelled"], summary["cancelled_by"]) == (1, {"user": 1})
    assert "cancelled" not in _diagnose((FIX / "claude_code_session.jsonl",)).summary
