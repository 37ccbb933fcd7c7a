"""The real conversations of the shared corpus diagnose without error, and the 200 tau-bench
airline trajectories give a stable, reviewed set of findings (tau_bench_counts.json)."""

from __future__ import annotations

import json
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pytest

from tests.conftest import CORPUS, read_golden
from toolcall_cli.diagnose import diagnose_events
from toolcall_cli.model.findings import Finding
from toolcall_cli.sources import ingest_paths

COUNTS = Path(__file__).with_name("tau_bench_counts.json")
TAU = "conversations/tau-bench/historical_trajectories__gpt-4o-airline.json"


def _conversation_files() -> list[str]:
    root = CORPUS / "conversations"
    if not root.is_dir():
        return []
    return sorted(
        str(p.relative_to(CORPUS))
        for p in root.rglob("*")
        if p.is_file()
        and not p.name.startswith(("LICENSE", "PROVENANCE"))
        and str(p.relative_to(CORPUS)) != TAU
    )


@lru_cache(maxsize=1)
def _tau_findings() -> tuple[Finding, ...]:
    events = ingest_paths([CORPUS / TAU]).events
    return diagnose_events(events).findings


@pytest.mark.corpus
def test_every_conversation_diagnoses(corpus: Path) -> None:
    files = [corpus / rel for rel in _conversation_files()]
    assert len(files) > 40
    result = ingest_paths(files)
    assert {str(f.path) for f in result.files} == {str(p) for p in files}
    assert all(f.events > 0 for f in result.files)
    report = diagnose_events(result.events, inputs=tuple(str(p) for p in files))
    assert report.summary["sessions"] >= len(files)
    for f in report.findings:
        assert f.evidence, f"{f.code} without evidence: {f.message}"
        assert all(any(e.origin.startswith(str(p)) for p in files) for e in f.evidence)
        assert all(e.text for e in f.evidence), f"{f.code}: evidence without quoted text"


@pytest.mark.corpus
@pytest.mark.slow
def test_tau_bench_counts_are_stable(corpus: Path, update_goldens: bool) -> None:
    counts = dict(sorted(Counter(f.code for f in _tau_findings()).items()))
    fresh = json.dumps({"file": TAU, "counts": counts}, indent=2) + "\n"
    expected = json.loads(read_golden(COUNTS, fresh, update=update_goldens))["counts"]
    assert counts == expected, (
        "tau-bench finding counts changed: review the findings, then --update-goldens"
    )


@pytest.mark.corpus
@pytest.mark.slow
def test_tau_bench_reviewed_findings(corpus: Path) -> None:
    """What the hand review found (see the report in tau_bench_counts.json's commit)."""
    found = _tau_findings()
    loops = [f for f in found if f.code == "FL001"]
    # every loop is the model resubmitting an identical call after the same error result
    assert loops and all(f.session_id and len(f.tool_call_ids) >= 3 for f in loops)
    assert {f.tool for f in loops} <= {"book_reservation", "update_reservation_flights"}
    # tau-bench recorded histories reuse an id in a later turn: warnings, never errors
    reused = [f for f in found if f.code == "FL003"]
    assert reused and all(f.severity.value == "warning" for f in reused)
    # every call of the 200 conversations has its result, directly after it
    assert not [f for f in found if f.code.startswith("OR")]


@pytest.mark.corpus
@pytest.mark.slow
def test_tau_bench_context_rolled_names_the_history_not_the_overflow(corpus: Path) -> None:
    """A 62-message trajectory is a history that exceeds the 42-message window (20 messages
    beyond it), not "62 messages exceed the window"."""
    rolled = [f for f in _tau_findings() if f.code == "TR004"]
    assert rolled
    for f in rolled:
        n = f.fact("messages")
        assert f.message.startswith(f"the history of {n} messages exceeds the 42-message window")


@pytest.mark.corpus
def test_one_call_without_an_id_is_one_call(corpus: Path) -> None:
    """pydantic-ai's OpenAI-compatible cassette sends one call with `"id": ""`: FL003 warns
    about that call ("it"), and its result is still paired by position (no OR001/OR002)."""
    path = (
        corpus
        / "conversations"
        / "pydantic-ai_vcr_cassettes"
        / ("models__test_openai__test_compatible_api_with_tool_calls_without_id.yaml")
    )
    found = diagnose_events(ingest_paths([path]).events).findings
    assert [(f.code, f.severity.value) for f in found] == [("FL003", "warning")]
    assert found[0].message == (
        "a call of get_current_time has an empty tool_call_id; "
        "results cannot be paired with it by id"
    )
