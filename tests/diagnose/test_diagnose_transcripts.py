"""diagnose on agent session logs, eval results and text-protocol traffic: the findings a
careful reader of each file lists (checked by hand), pinned."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CORPUS
from toolcall_cli.cli._inputs import evidence_for
from toolcall_cli.diagnose.base import DiagnoseReport
from toolcall_cli.diagnose.run import DiagnoseRequest, diagnose
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
    """The last `make test` was aborted by the user: unanswered, the rollout ends there; the
    apply_patch call's free-text input is not a PR001."""
    sid = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
    assert findings((FIX / "codex_rollout.jsonl",)) == [
        ("OR001", "warning", ("call_R3run",), sid),
    ]


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
