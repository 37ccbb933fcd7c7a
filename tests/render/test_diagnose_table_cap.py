"""The diagnose table prints the first TABLE_FINDINGS findings in full and counts the rest."""

from __future__ import annotations

import io

import toolcall_cli.diagnose  # noqa: F401 - registers the FL rules
from toolcall_cli.diagnose.kit.context import DiagnoseReport
from toolcall_cli.model.findings import RULES, Finding
from toolcall_cli.render import RenderOptions, render
from toolcall_cli.render.diagnose_view import TABLE_FINDINGS


def _report(n_fl002: int, n_fl005: int) -> DiagnoseReport:
    found = [
        Finding.of(RULES.get("FL002"), f"double submit {i}", trace_id=f"t{i}", session_id=f"s{i}")
        for i in range(n_fl002)
    ] + [
        Finding.of(RULES.get("FL005"), f"two instances {i}", trace_id=f"u{i}", session_id=f"v{i}")
        for i in range(n_fl005)
    ]
    return DiagnoseReport(command="diagnose", findings=tuple(found), summary={"traces": 1})


def _table(report: DiagnoseReport) -> str:
    buf = io.StringIO()
    render("table", report, buf, RenderOptions(width=120))
    return buf.getvalue()


def test_findings_beyond_the_cap_are_counted_per_code() -> None:
    out = _table(_report(TABLE_FINDINGS + 20, 30))
    assert f"double submit {TABLE_FINDINGS - 1}" in out
    assert f"double submit {TABLE_FINDINGS}" not in out  # the 101st is only counted
    assert "two instances 0" not in out
    assert "… and 50 more findings: FL002 20 (error), FL005 30 (warning)" in out
    assert "--format json lists every finding" in out


def test_no_summary_line_when_everything_fits() -> None:
    out = _table(_report(3, 2))
    assert "more findings" not in out
    assert "two instances 1" in out


def test_the_stderr_summary_counts_info_as_a_mass_noun() -> None:
    """`2 info`, as the HTML banner and the lint summary count it (it said `2 infos`)."""
    from toolcall_cli.render.diagnose_view import summary_line

    found = tuple(
        Finding.of(RULES.get("PR006"), f"raw json {i}", trace_id=f"t{i}", session_id="s")
        for i in range(2)
    )
    report = DiagnoseReport(command="diagnose", findings=found, summary={"traces": 2})
    assert summary_line(report).endswith(": 0 errors, 0 warnings, 2 info in 2 traces")
