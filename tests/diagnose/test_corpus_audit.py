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
