"""The diagnose table's line for a report without findings: counted nouns and their verb."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli
from toolcall_cli.diagnose.kit.context import DiagnoseReport
from toolcall_cli.render import RenderOptions, render


@pytest.mark.parametrize(
    ("calls", "traces", "want"),
    [
        (1, 1, "no findings · 1 call in 1 trace looks healthy"),
        (2, 1, "no findings · 2 calls in 1 trace look healthy"),
        # evidence without a tool call vouches for nothing (a capture of other traffic)
        (0, 3, "no findings · no tool call in 3 traces: nothing to call healthy"),
        (0, 0, "no findings · no tool call in the evidence: nothing to call healthy"),
    ],
)
def test_the_verb_agrees_with_the_calls_counted(calls: int, traces: int, want: str) -> None:
    report = DiagnoseReport(
        command="diagnose", findings=(), summary={"calls": calls, "traces": traces}
    )
    buf = io.StringIO()
    render("table", report, buf, RenderOptions(width=120))
    assert buf.getvalue().splitlines()[0] == want


@pytest.mark.parametrize(
    ("by_whom", "said"),
    [
        ({"user": 1}, "3 look healthy, 1 was cancelled by the user"),
        ({"client": 1}, "3 look healthy, 1 was cancelled by the client"),
        (
            {"user": 1, "client": 2},
            "1 looks healthy, 3 were cancelled: 1 by the user, 2 by the client",
        ),
        ({}, "3 look healthy, 1 was cancelled"),  # a summary that does not say by whom
    ],
)
def test_the_line_says_who_cancelled(by_whom: dict[str, int], said: str) -> None:
    """Table and markdown name who cancelled the calls counted apart (the summary's
    `cancelled_by`), in the same words."""
    n = sum(by_whom.values()) or 1
    summary = {"calls": 4, "traces": 4, "cancelled": n, "cancelled_by": by_whom}
    report = DiagnoseReport(command="diagnose", findings=(), summary=summary)
    want = f"no findings · 4 calls in 4 traces: {said}"
    table, md = io.StringIO(), io.StringIO()
    render("table", report, table, RenderOptions(width=200))
    render("markdown", report, md, RenderOptions(width=200))
    assert table.getvalue().splitlines()[0] == want
    assert md.getvalue().split("\n\n", 1)[1] == want + "\n"


def test_a_capture_without_tool_calls_is_not_called_healthy(tshark: str, corpus: Path) -> None:
    """Zeek's `GET /` capture parses (2 pcap events) but holds no tool call: the verdict says
    there was nothing to judge and names what was read, instead of "0 calls look healthy"."""
    res = run_cli(["diagnose", str(corpus / "pcap" / "zeek" / "http__get.pcap")])
    assert res.exit_code == 0
    assert res.stdout.splitlines()[0] == (
        "no findings · no tool call in the evidence: nothing to call healthy "
        "(read 1 file: 2 pcap events)"
    )


@pytest.mark.parametrize(
    ("path", "said"),
    [
        (
            "fixtures/rules/OR001/negative.json",
            "no findings · 2 calls in 3 traces look healthy (read 1 file: 6 messages events)",
        ),
        # the user aborted the rollout's last turn: its call is counted apart, not healthy
        (
            "fixtures/transcripts/codex_rollout.jsonl",
            "no findings · 4 calls in 5 traces: 3 look healthy, 1 was cancelled by the user "
            "(read 1 file: 9 transcripts events)",
        ),
        # and the MCP session's call the client withdrew beside it (its findings aside)
        (
            "fixtures/transcripts/codex_rollout.jsonl fixtures/mcp/session_2026-07-28.jsonl "
            "--ignore TM001,OR001,PR011",
            "no findings · 7 calls in 9 traces: 5 look healthy, 2 were cancelled: 1 by the "
            "user, 1 by the client (read 2 files: 12 mcp, 9 transcripts events)",
        ),
    ],
)
def test_markdown_says_what_the_table_says(path: str, said: str) -> None:
    """The markdown view of a report without findings vouches for the same calls, in the
    same words, as the table (it said only "No findings.")."""
    table = run_cli(["diagnose", *path.split()], cwd=ROOT)
    assert (table.exit_code, " ".join(table.stdout.split())) == (0, said)  # wrapped at 100
    md = run_cli(["diagnose", *path.split(), "--format", "markdown"], cwd=ROOT)
    assert md.exit_code == 0
    body = md.stdout.split("\n\n", 1)[1]  # after the summary line
    assert body == said.replace("(", "\\(").replace(")", "\\)") + "\n"
