"""What a trust audit of the shared corpus found: a finding names only what its own evidence
shows, and the summary counts every call that was read (real third-party files, in place)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolcall_cli.diagnose import diagnose_events
from toolcall_cli.sources import ingest_paths

FEW_SHOT = "conversations/tau-bench/few_shot_data__MockAirlineDomainEnv-few_shot.jsonl"
#: Gemini's OpenAI-compatible endpoint answers get_current_time with tool_calls[0].id == "".
EMPTY_ID = (
    "conversations/pydantic-ai_vcr_cassettes/"
    "models__test_openai__test_compatible_api_with_tool_calls_without_id.yaml"
)
FUNCTIONARY = "conversations/functionary_test_cases"


def _report(paths: list[Path]):  # type: ignore[no-untyped-def]
    return diagnose_events(ingest_paths(paths).events)


@pytest.mark.corpus
def test_an_empty_call_id_names_no_other_files_result(corpus: Path) -> None:
    """A call whose id is "" names no result: the id-less results of an unrelated file (the
    tau-bench text transcript) must not be called results of get_current_time."""
    alone = [f for f in _report([corpus / FEW_SHOT]).findings if f.code == "PR006"]
    together = [
        f for f in _report([corpus / FEW_SHOT, corpus / EMPTY_ID]).findings if f.code == "PR006"
    ]
    assert [f.message for f in alone] == [
        "1 result is raw JSON (largest 6761 characters, 4 levels deep) instead of a summary"
    ]
    assert [f.message for f in together] == [f.message for f in alone]
    assert all(f.tool is None for f in together)


@pytest.mark.corpus
def test_named_results_keep_their_tool(corpus: Path) -> None:
    """The negative: a result that carries its call's id is still named after that call's tool
    (the 26 PR006 of the tau-bench trajectories each name one)."""
    tau = corpus / "conversations/tau-bench/historical_trajectories__gpt-4o-airline.json"
    raw = [f for f in _report([tau]).findings if f.code == "PR006"]
    assert len(raw) == 26 and all(f.tool and f" of {f.tool} " in f.message for f in raw)


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("rel", "calls"),
    [
        (f"{FUNCTIONARY}/test_case.json", 6),  # id-less calls paired by order
        (f"{FUNCTIONARY}/test_case_v2.json", 5),
        ("conversations/toolbench_answer_examples/G1_answer__10_ChatGPT_DFS_woFilter_w2.json", 3),
        ("conversations/toolbench_answer_examples/G3_answer__21_ChatGPT_DFS_woFilter_w2.json", 4),
        # a Gemini functionCall (no id) beside two OpenAI calls with ids
        (
            "conversations/pydantic-ai_vcr_cassettes/"
            "models__test_openai__test_multiple_agent_tool_calls.yaml",
            3,
        ),
        (EMPTY_ID, 2),  # the negative: an empty id is an id, its call counted once
    ],
)
def test_every_call_read_is_counted(corpus: Path, rel: str, calls: int) -> None:
    """`calls` in the summary is every tool call read: calls without an id were counted as
    one call short ("5 calls look healthy" of functionary's 6)."""
    events = ingest_paths([corpus / rel]).events
    assert int((events["kind"] == "tool_call").sum()) == calls
    assert diagnose_events(events).summary["calls"] == calls
