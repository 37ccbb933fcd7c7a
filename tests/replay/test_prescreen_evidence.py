"""prescreen on real evidence: it checks what FL003 and PR001 check, on the calls they check.

A call whose evidence records no id at all (a Gemini `functionCall`, a BFCL result, a
SWE-agent action) pairs by position by design and passes the id checks; a call sent with
`"id": ""` is still `empty-id`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import need_corpus
from toolcall_cli.replay import replay
from toolcall_cli.sources import parse_file

FIX = Path(__file__).resolve().parents[2] / "fixtures"
CASSETTES = Path("conversations") / "pydantic-ai_vcr_cassettes"


def _first_codes(path: Path) -> dict[str, list[str]]:
    """Each session's calls' prescreen codes, in replay order."""
    df = parse_file(path)
    out: dict[str, list[str]] = {}
    for sid in sorted(df.loc[df["kind"] == "tool_call", "session_id"].dropna().unique()):
        rep = replay(df, session_id=str(sid))
        out[str(sid)] = [c.stages[0].code for c in rep.calls]
    return out


@pytest.mark.parametrize(
    "name", ["bfcl_result_simple.json", "bfcl_result_multi_turn.json", "swe_agent.traj"]
)
def test_id_less_transcripts_pass_the_id_checks(name: str) -> None:
    codes = _first_codes(FIX / "transcripts" / name)
    assert codes, name
    for sid, got in codes.items():
        assert got, sid
        assert not {"empty-id", "duplicate-id"} & set(got), (sid, got)


def test_gemini_function_call_without_id_passes_the_id_checks() -> None:
    """pydantic-ai's Gemini turn: `functionCall` has no id; the OpenAI turns after it do."""
    path = need_corpus() / CASSETTES / "models__test_openai__test_multiple_agent_tool_calls.yaml"
    (got,) = _first_codes(path).values()
    assert got == ["ok", "ok", "ok"]


def test_an_id_sent_empty_is_still_empty_id() -> None:
    """The negative: an OpenAI-compatible API answered with `"id": ''` (FL003 reports it)."""
    path = (
        need_corpus()
        / CASSETTES
        / "models__test_openai__test_compatible_api_with_tool_calls_without_id.yaml"
    )
    (got,) = _first_codes(path).values()
    assert "empty-id" in got


def test_free_text_arguments_pass_as_pr001_has_them() -> None:
    """Codex's apply_patch (a custom tool: free-form input) and a ReAct action input in prose
    are not JSON by design: PR001 stays silent on them, and so does prescreen."""
    for path, tool in (
        (FIX / "transcripts" / "codex_rollout.jsonl", "apply_patch"),
        (FIX / "messages" / "react.json", "weather"),
    ):
        df = parse_file(path)
        sid = str(df["session_id"].dropna().iloc[0])
        (call,) = [c for c in replay(df, session_id=sid).calls if c.tool == tool]
        pre = call.stages[0]
        assert (pre.verdict, pre.code) == ("pass", "ok"), pre
        assert "free text by design" in pre.reason
        assert call.replayed == "dispatched"


def test_json_arguments_cut_off_still_fail() -> None:
    """The negative: a call whose arguments are meant as JSON and cut off (BFCL)."""
    df = parse_file(FIX / "transcripts" / "bfcl_result_simple.json")
    rep = replay(df, session_id="simple_python_4")
    assert [c.stages[0].code for c in rep.calls] == ["arguments-not-json"]


@pytest.mark.parametrize("name", ["test_case.json", "test_case_v2.json"])
def test_code_interpreter_declared_by_type_is_a_known_tool(name: str) -> None:
    """functionary declares `{"type": "code_interpreter"}` and calls it `python` with raw
    code: a known tool (PR002 has it so) whose arguments are free text."""
    path = need_corpus() / "conversations" / "functionary_test_cases" / name
    df = parse_file(path)
    rep = replay(df, session_id=str(df["session_id"].dropna().iloc[0]))
    python = [c for c in rep.calls if c.tool == "python"]
    assert len(python) == 2
    assert {c.stages[0].code for c in python} == {"ok"}
    assert {c.stages[1].code for c in python} == {"free-text"}


def test_an_undeclared_name_is_still_unknown() -> None:
    """The negative: the MCP session calls `no_such_tool`, which its tools/list never named."""
    df = parse_file(FIX / "mcp" / "session_2025-11-25.jsonl")
    rep = replay(df, session_id=str(df["session_id"].dropna().iloc[0]))
    codes = {c.stages[0].code for c in rep.calls if c.tool == "no_such_tool"}
    assert codes == {"unknown-tool"}
