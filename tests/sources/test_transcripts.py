"""transcripts adapter: every format's fixture, pinned counts, thread defects, BFCL joins."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import CORPUS, attrs
from toolcall_cli.sources import SOURCES, scores
from toolcall_cli.sources._shared.files import read_head
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.transcripts import ADAPTER, FORMATS, best_format

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures" / "transcripts"
BFCL = CORPUS / "bfcl" / "gorilla_v4_data"

#: fixture → (events per kind, sessions); counted by hand from each file.
EXPECTED: dict[str, tuple[dict[str, int], int]] = {
    "claude_code_session.jsonl": (
        {"user": 3, "assistant_text": 3, "tool_call": 5, "tool_result": 5},
        2,  # the main session and the Task sub-agent's sidechain
    ),
    "claude_code_threads.jsonl": (
        {
            "user": 2,
            "assistant_text": 2,
            "tool_call": 1,
            "tool_result": 1,
            "unparsed": 1,
            "system": 1,
        },
        1,
    ),
    "codex_rollout.jsonl": ({"user": 1, "tool_call": 4, "tool_result": 3, "system": 1}, 1),
    "atif_trajectory.json": (
        {"system": 1, "user": 2, "assistant_text": 3, "tool_call": 3, "tool_result": 3},
        2,  # the trajectory and its embedded sub-agent
    ),
    "inspect_eval_log.json": (
        {"system": 1, "user": 2, "assistant_text": 1, "tool_call": 3, "tool_result": 2},
        2,
    ),
    "openhands_trajectory.json": ({"system": 1, "user": 1, "tool_call": 3, "tool_result": 2}, 1),
    "swe_agent.traj": ({"assistant_text": 3, "tool_call": 3, "tool_result": 3}, 1),
    "bfcl_result_simple.json": ({"tool_call": 5, "assistant_text": 1}, 6),
    "bfcl_result_multi_turn.json": ({"tool_call": 5, "assistant_text": 2}, 1),
}


def parse(name: str, **opts: object) -> pd.DataFrame:
    return ADAPTER.parse(FIX / name, ParseOptions(**opts))  # type: ignore[arg-type]


def test_every_format_has_a_fixture_in_the_table() -> None:
    samples = {Path(s).name for _, f in FORMATS.items() for s in f.samples}
    assert samples == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_counts(name: str) -> None:
    df = parse(name)
    kinds, sessions = EXPECTED[name]
    assert dict(Counter(df["kind"])) == kinds
    assert df.loc[df["kind"] != "unparsed", "session_id"].nunique() == sessions
    assert set(df["source"]) == {"transcripts"}
    assert list(df["seq"]) == list(range(len(df)))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_transcripts_claims_its_fixtures_over_every_other_adapter(name: str) -> None:
    sc = scores(FIX / name)
    assert sc["transcripts"] >= 95
    assert max(v for k, v in sc.items() if k != "transcripts") < sc["transcripts"]


def test_claude_code_session() -> None:
    df = parse("claude_code_session.jsonl")
    a = list(map(attrs, df["attrs"]))
    res = df[df["kind"] == "tool_result"]
    rejected = [i for i in res.index if a[i].get("rejected")]
    assert df.loc[rejected, "tool_call_id"].tolist() == ["toolu_01Edit"]  # a result, not an orphan
    assert df["ts"].notna().all()
    side = df[df["session_id"].str.contains("/agent:", na=False)]
    assert side["tool"].dropna().tolist() == ["Grep"]
    assert side["session_id"].unique().tolist() == [
        "7f3c2a1e-5b9d-4c1e-9a2f-3d4e5f6a7b8c/agent:s-1"
    ]
    # the text line and the tool_use line of msg_01A are one assistant turn
    first = df[df["tool_call_id"] == "toolu_01Bash"].index[0]
    assert a[first]["turn"] == 1 and a[first - 1]["turn"] == 1
    assert all(a[i].get("follows_call") for i in res.index)


def test_claude_code_thread_defects_are_counted_and_named() -> None:
    df = parse("claude_code_threads.jsonl")
    a = list(map(attrs, df["attrs"]))
    summary = df[df["kind"] == "system"]
    assert a[summary.index[0]]["thread_problems"] == {"missing parent": 3, "parent cycle": 1}
    assert "t-404" in str(summary["detail"].iloc[0])
    early = [i for i in df.index if a[i].get("result_before_call")]
    assert df.loc[early, "tool_call_id"].tolist() == ["toolu_early"]
    bad = df[df["kind"] == "unparsed"]
    assert bad["origin"].tolist() == [f"{FIX / 'claude_code_threads.jsonl'}:4"]


def test_codex_rollout() -> None:
    df = parse("codex_rollout.jsonl")
    calls = df[df["kind"] == "tool_call"]
    assert calls["tool"].tolist() == ["shell", "local_shell", "apply_patch", "shell"]
    assert set(df["session_id"]) == {"0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"}
    a = list(map(attrs, df["attrs"]))
    codes = [a[i].get("exit_code") for i in df[df["kind"] == "tool_result"].index]
    assert codes == [2, None, None]
    assert json.loads(calls["args"].iloc[1])["command"][0] == "sed"


def test_inspect_marks_the_unanswered_last_call_and_clocks_tool_events() -> None:
    df = parse("inspect_eval_log.json")
    a = list(map(attrs, df["attrs"]))
    ends = [df.at[i, "tool_call_id"] for i in df.index if a[i].get("ends_on_call")]
    assert ends == ["call_a3"]
    timed_out = df[(df["kind"] == "tool_result") & (df["tool_call_id"] == "call_a2")]
    assert timed_out["status"].tolist() == ["error"]
    assert str(timed_out["ts"].iloc[0]) == "2025-10-01 12:00:39+00:00"  # + working_time
    # the words Inspect sent the model for the failed call, not the empty content
    assert timed_out["detail"].tolist() == ["Error: Command timed out before completing."]


def test_bfcl_results_join_their_questions_by_id(corpus: Path) -> None:
    df = parse("bfcl_result_simple.json", tools=(BFCL / "BFCL_v4_simple_python.json",))
    a = list(map(attrs, df["attrs"]))
    assert all(x.get("eval") for x in a)
    declared = df[(df["kind"] == "system") & df["attrs"].str.contains('"tools"', na=False)]
    assert len(declared) == 6 and df["kind"].eq("user").sum() == 6
    calls = df[df["kind"] == "tool_call"]
    assert calls["tool"].tolist() == [
        "calculate_triangle_area",
        "math.factorial",
        "math.hypot",
        "algebra_quadratic_roots",
        "solve_quadratic_equation",
    ]
    assert calls["args"].iloc[2] == '{"x":4,"y":5}'  # prompt-mode Python call syntax


def test_bfcl_multi_turn_takes_tools_from_the_class_docs(corpus: Path) -> None:
    df = parse("bfcl_result_multi_turn.json", tools=(BFCL / "BFCL_v4_multi_turn_base.json",))
    declared = df[(df["kind"] == "system")]
    tools = json.loads(declared["attrs"].iloc[0])["tools"]
    assert {"cd", "mkdir", "mv", "grep", "sort", "post_tweet"} <= {t["name"] for t in tools}
    calls = df[df["kind"] == "tool_call"]
    assert calls["tool"].tolist() == ["cd", "mkdir", "mv", "grep", "sort"]
    assert calls["args"].iloc[-1] == '{"file_name":"final_report.pdf"}'  # positional → name
    assert df["kind"].eq("user").sum() == 4  # the question's four user turns


@pytest.mark.parametrize(
    "path",
    sorted(p for p in (CORPUS / "conversations").rglob("*") if p.is_file())
    if (CORPUS / "conversations").is_dir()
    else [],
    ids=lambda p: p.name[:60],
)
def test_corpus_conversations_stay_with_messages(corpus: Path, path: Path) -> None:
    """transcripts never outranks the messages adapter on real chat data."""
    head = read_head(path, 65536)
    mine = ADAPTER.sniff(head, path)
    assert mine == 0 or mine < SOURCES.get("messages").sniff(head, path)


@pytest.mark.parametrize(
    "path", sorted(BFCL.glob("BFCL_v4_*.json")) if BFCL.is_dir() else [], ids=lambda p: p.name
)
def test_bfcl_question_and_answer_files_are_not_results(corpus: Path, path: Path) -> None:
    assert best_format(read_head(path, 65536), path)[1] == 0
    answers = BFCL / "possible_answer" / path.name
    if answers.is_file():
        assert best_format(read_head(answers, 65536), answers)[1] == 0


def test_bfcl_inference_log_results_follow_their_step() -> None:
    """A multi-turn result with BFCL's `inference_log`: each step's `role: tool` entries are
    the results of that step's calls, in order, paired by an id made from the entry, turn,
    step and index; the calls are no longer `ends_on_call`."""
    path = ROOT / "fixtures" / "precision" / "bfcl_multi_turn_inference_log.json"
    df = ADAPTER.parse(path, ParseOptions())
    entry = df[df["session_id"] == "multi_turn_base_51"]
    calls = entry[entry["kind"] == "tool_call"]
    results = entry[entry["kind"] == "tool_result"]
    assert calls["tool"].tolist() == [
        "displayCarStatus",
        "startEngine",
        "lockDoors",
        "startEngine",
        "pressBrakePedal",
        "startEngine",
        "check_tire_pressure",
        "send_message",
    ]
    assert results["tool_call_id"].tolist() == calls["tool_call_id"].tolist()
    assert calls["tool_call_id"].tolist()[1] == "multi_turn_base_51#t1s0c0"
    assert "All doors must be locked" in str(results["detail"].tolist()[1])
    assert not any(a.get("ends_on_call") for a in map(attrs, calls["attrs"]))
    assert [a.get("output_tokens") for a in map(attrs, calls["attrs"])][:2] == [18, 17]
    # the parallel step: five calls, five results, one step
    par = df[(df["session_id"] == "multi_turn_base_53") & (df["kind"] == "tool_result")]
    assert len(par) == 5 and {a.get("bfcl_step") for a in map(attrs, par["attrs"])} == {0}


@pytest.mark.parametrize("value", ["[1]", '{"a": 1}', "[]"])
def test_sniffers_take_an_unhashable_type_for_no_shape(tmp_path: Path, value: str) -> None:
    # `type` as a list or an object was a TypeError (exit 70) in the Claude Code and Codex
    # sniffers: set membership hashes the value
    path = tmp_path / "odd.jsonl"
    path.write_text(
        f'{{"type": {value}, "parentUuid": null}}\n{{"type": {value}, "payload": {{}}}}\n'
    )
    got = scores(path)
    assert got.get("transcripts", 0) == 0
