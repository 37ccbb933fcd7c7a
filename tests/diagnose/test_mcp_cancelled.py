"""OR001's `cancelled` breakpoint and TR001 on MCP calls, on the SDK recording: the slow call
the client cancelled after progress reports is `cancelled`, not a silent drop; progress alone
is evidence that the call reached the tool; with neither, the call is the drop TR001 names."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import FIXTURES
from toolcall_cli.diagnose import diagnose_events
from toolcall_cli.model.findings import Finding
from toolcall_cli.sources import ingest_paths

SESSION = FIXTURES / "mcp" / "session_2025-11-25.jsonl"


def findings(path: Path) -> dict[str, list[Finding]]:
    result = ingest_paths([path])
    report = diagnose_events(
        result.events, select=["OR001", "TR001"], inputs=tuple(str(f.path) for f in result.files)
    )
    out: dict[str, list[Finding]] = {"OR001": [], "TR001": []}
    for f in report.findings:
        out[f.code].append(f)
    return out


def without(tmp_path: Path, *methods: str) -> Path:
    """The recording without the lines of the given notification methods."""
    lines = [
        ln
        for ln in SESSION.read_text().splitlines()
        if not any(f'"method": "{m}"' in ln for m in methods)
    ]
    out = tmp_path / SESSION.name
    out.write_text("\n".join(lines) + "\n")
    return out


def test_the_cancelled_slow_call_is_or001_cancelled_and_not_tr001() -> None:
    got = findings(SESSION)
    assert got["TR001"] == []
    (f,) = got["OR001"]
    assert f.tool_call_ids == ("4",)
    assert dict(f.extra)["breakpoint"] == "cancelled"
    assert "the client cancelled it (timed out after 1.0s), after 4 progress report(s)" in f.message
    texts = " ".join(e.text for e in f.evidence)
    assert "notifications/cancelled" in texts
    assert "notifications/progress" in texts


def test_progress_alone_shows_the_call_reached_the_tool(tmp_path: Path) -> None:
    got = findings(without(tmp_path, "notifications/cancelled"))
    assert got["TR001"] == []
    (f,) = got["OR001"]
    assert dict(f.extra)["breakpoint"] == "no-response"


def test_with_neither_the_call_is_a_silent_drop(tmp_path: Path) -> None:
    got = findings(without(tmp_path, "notifications/cancelled", "notifications/progress"))
    assert [f.tool_call_ids for f in got["TR001"]] == [("4",)]
    assert [dict(f.extra)["breakpoint"] for f in got["OR001"]] == ["blocked"]


def _tm001(path: Path) -> list[Finding]:
    result = ingest_paths([path])
    report = diagnose_events(
        result.events, select=["TM001", "OR001"], inputs=tuple(str(f.path) for f in result.files)
    )
    return list(report.findings)


def test_a_timeout_cancel_after_progress_is_tm001_and_explains_the_or001() -> None:
    found = _tm001(SESSION)
    (tm,) = [f for f in found if f.code == "TM001"]
    assert tm.tool_call_ids == ("4",)
    assert "after 4 progress report(s), the last 'step 4 of 10'" in tm.message
    (or1,) = [f for f in found if f.code == "OR001"]
    assert or1.caused_by == tm.id
    proof = tm.evidence[1]
    assert proof.focus is not None
    assert proof.text[proof.focus[0] : proof.focus[1]] == "step 4 of 10"


def test_a_cancel_without_progress_is_not_tm001(tmp_path: Path) -> None:
    found = _tm001(without(tmp_path, "notifications/progress"))
    assert [f.code for f in found] == ["OR001"]
