"""The diagnose table's line for a report without findings: counted nouns and their verb."""

from __future__ import annotations

import io

import pytest

from toolcall_cli.diagnose.base import DiagnoseReport
from toolcall_cli.render import RenderOptions, render


@pytest.mark.parametrize(
    ("calls", "traces", "want"),
    [
        (1, 1, "no findings · 1 call in 1 trace looks healthy"),
        (2, 1, "no findings · 2 calls in 1 trace look healthy"),
        (0, 3, "no findings · 0 calls in 3 traces look healthy"),
    ],
)
def test_the_verb_agrees_with_the_calls_counted(calls: int, traces: int, want: str) -> None:
    report = DiagnoseReport(
        command="diagnose", findings=(), summary={"calls": calls, "traces": traces}
    )
    buf = io.StringIO()
    render("table", report, buf, RenderOptions(width=120))
    assert buf.getvalue().splitlines()[0] == want
