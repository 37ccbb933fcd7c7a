"""`toolcall diagnose --statistics`: how many findings of each code and severity (ruff's
`--statistics`), with how many were root causes and how many symptoms of another finding.

The rows are sorted by count, largest first, then by code, so a big run reads top-down:
what fired most, and whether it is a cause or a consequence.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TextIO

from rich.console import Console
from rich.table import Table

from toolcall_cli.diagnose.kit.context import DiagnoseReport
from toolcall_cli.render._rich import SEVERITY_STYLE, cell
from toolcall_cli.render.safe import md

SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class CodeCount:
    """Findings of one code at one severity."""

    code: str
    name: str
    severity: str
    count: int
    root_causes: int
    symptoms: int


def statistics(report: DiagnoseReport) -> list[CodeCount]:
    """Per (code, severity): count, root causes, symptoms; largest count first."""
    per: dict[tuple[str, str], list[int]] = {}
    names: dict[str, str] = {}
    for f in report.findings:
        row = per.setdefault((f.code, f.severity.value), [0, 0, 0])
        row[0] += 1
        row[2 if f.caused_by else 1] += 1
        names[f.code] = f.name
    rows = [
        CodeCount(code, names[code], sev, n, roots, symptoms)
        for (code, sev), (n, roots, symptoms) in per.items()
    ]
    return sorted(rows, key=lambda r: (-r.count, r.code, r.severity))


def statistics_document(report: DiagnoseReport) -> dict[str, Any]:
    """`{"schema_version": 1, "summary": {...}, "statistics": [{code, name, severity, count,
    root_causes, symptoms}]}`."""
    return {
        "schema_version": SCHEMA_VERSION,
        "summary": report.summary,
        "statistics": [
            {
                "code": r.code,
                "name": r.name,
                "severity": r.severity,
                "count": r.count,
                "root_causes": r.root_causes,
                "symptoms": r.symptoms,
            }
            for r in statistics(report)
        ],
    }


def statistics_table(report: DiagnoseReport, con: Console) -> None:
    """The counts as an aligned table without borders (ruff's layout, plus the links)."""
    rows = statistics(report)
    if not rows:
        con.print(cell("no findings"))
        return
    t = Table(box=None, show_header=True, pad_edge=False)
    for col, justify in (
        ("count", "right"),
        ("code", "left"),
        ("name", "left"),
        ("severity", "left"),
        ("root causes", "right"),
        ("symptoms", "right"),
    ):
        t.add_column(col, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for r in rows:
        t.add_row(
            cell(f"{r.count:,}"),
            cell(r.code, style="bold"),
            cell(r.name),
            cell(r.severity, style=SEVERITY_STYLE.get(r.severity, "")),
            cell(f"{r.root_causes:,}"),
            cell(f"{r.symptoms:,}"),
        )
    con.print(t)


def statistics_markdown(report: DiagnoseReport, out: TextIO) -> None:
    """The counts as a Markdown table."""
    out.write("| count | code | name | severity | root causes | symptoms |\n")
    out.write("|---:|---|---|---|---:|---:|\n")
    for r in statistics(report):
        out.write(
            f"| {r.count:,} | {r.code} | {md(r.name)} | {r.severity} | {r.root_causes:,} | "
            f"{r.symptoms:,} |\n"
        )
