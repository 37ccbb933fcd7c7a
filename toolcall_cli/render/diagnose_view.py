"""Views of a diagnose report: table (grouped per trace, evidence under each finding), json,
markdown (for an incident ticket) and sarif."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from rich.table import Table
from rich.text import Text

from toolcall_cli import __version__
from toolcall_cli.core.findings import RULES, Finding
from toolcall_cli.core.jsonio import pretty
from toolcall_cli.diagnose.base import DiagnoseReport
from toolcall_cli.render import RenderOptions, excerpt, renders
from toolcall_cli.render._rich import SEVERITY_STYLE, cell, console
from toolcall_cli.render.safe import clean, md
from toolcall_cli.render.sarif import sarif_log

SCHEMA_VERSION = 1
NO_TRACE = "(inputs)"
#: Findings the table prints in full (rank order: errors first); the rest are counted per
#: code under them. A terminal of ten thousand tables helps nobody; json lists every one.
TABLE_FINDINGS = 100


def summary_line(report: DiagnoseReport) -> str:
    """`3 errors, 1 warning in 2 traces` (infos only when present); the stderr summary too."""
    c = report.counts()
    traces = report.summary.get("traces", 0)

    def n(k: str, word: str) -> str:
        return f"{c[k]} {word}{'' if c[k] == 1 else 's'}"

    parts = [n("error", "error"), n("warning", "warning")]
    if c["info"]:
        parts.append(n("info", "info"))
    return f"{', '.join(parts)} in {traces} trace{'' if traces == 1 else 's'}"


def by_trace(findings: Iterable[Finding]) -> dict[str, list[Finding]]:
    """Findings grouped per trace in rank order (findings without a trace last)."""
    groups: dict[str, list[Finding]] = {}
    for f in findings:
        groups.setdefault(f.trace_id or NO_TRACE, []).append(f)
    if NO_TRACE in groups:
        groups[NO_TRACE] = groups.pop(NO_TRACE)
    return groups


def _document(report: DiagnoseReport) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "toolcall", "version": __version__},
        "summary": report.summary,
        "findings": [f.to_dict() for f in report.findings],
    }


@renders("json", DiagnoseReport)
def to_json(report: DiagnoseReport, out: TextIO, opts: RenderOptions) -> None:
    """The report as one JSON document (DESIGN §6)."""
    out.write(pretty(_document(report)) + "\n")


def _what_was_read(report: DiagnoseReport) -> str:
    """ " (read N files: 12 messages, 30 middleware events)": a verdict names its evidence."""
    by_source = report.summary.get("by_source") or {}
    if not by_source:
        return ""
    n = len(report.inputs)
    files = f"{n} file{'s' if n != 1 else ''}: " if report.inputs else ""
    counts = ", ".join(f"{v} {k}" for k, v in sorted(by_source.items()))
    return f" (read {files}{counts} events)"


@renders("table", DiagnoseReport)
def to_table(report: DiagnoseReport, out: TextIO, opts: RenderOptions) -> None:
    """One table per trace; each finding's evidence lines and fix under it."""
    con = console(out, opts)
    if not report.findings:
        con.print(
            cell(
                f"no findings · {report.summary.get('calls', 0)} calls in "
                f"{report.summary.get('traces', 0)} traces look healthy{_what_was_read(report)}"
            )
        )
        return
    shown, rest = report.findings[:TABLE_FINDINGS], report.findings[TABLE_FINDINGS:]
    for trace, findings in by_trace(shown).items():
        sessions = sorted({f.session_id for f in findings if f.session_id})
        title = f"trace {trace}" if trace != NO_TRACE else "inputs"
        if sessions:
            title += f" · session {', '.join(sessions[:3])}{' …' if len(sessions) > 3 else ''}"
        title = clean(title, keep_newlines=False, limit=120)
        t = Table(title=title, title_justify="left", show_lines=True)
        t.add_column("severity", no_wrap=True)
        t.add_column("code", no_wrap=True)
        t.add_column("finding", overflow="fold")
        for f in findings:
            sev = f.severity.value
            body = Text()
            body.append_text(excerpt.header(f))
            for e in f.evidence:
                body.append("\n")
                body.append_text(excerpt.frame(e, con.width - excerpt.TABLE_OVERHEAD))
            if f.fix:
                body.append("\n  fix: ", style="bold")
                body.append_text(cell(f.fix, limit=400))
            sev_cell = cell(sev, style=SEVERITY_STYLE.get(sev, ""))
            t.add_row(sev_cell, cell(f.code, style="bold"), body)
        con.print(t)
    if rest:
        con.print(cell(_more(rest), one_line=False, limit=None))


def _more(rest: tuple[Finding, ...]) -> str:
    """`… and 9,275 more findings: FL002 6,150 (error), FL005 3,125 (warning)` + how to see them."""
    per: dict[tuple[str, str], int] = {}
    for f in rest:
        key = (f.code, f.severity.value)
        per[key] = per.get(key, 0) + 1
    counts = ", ".join(f"{code} {n:,} ({sev})" for (code, sev), n in sorted(per.items()))
    return (
        f"… and {len(rest):,} more findings: {counts}\n"
        "  (--format json lists every finding; --select/--ignore CODE narrow the table; "
        "`toolcall timeline --trace-id ID` shows one trace)"
    )


def fenced(text: str) -> str:
    """A Markdown code block that no backtick run inside *text* can close early."""
    body = clean(text, keep_newlines=True)
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{body}\n{fence}\n"


@renders("markdown", DiagnoseReport)
def to_markdown(report: DiagnoseReport, out: TextIO, opts: RenderOptions) -> None:
    """A summary line, a findings table, then each finding's evidence as code blocks."""
    s = report.summary
    out.write(
        f"**toolcall diagnose**: {summary_line(report)} · {s.get('sessions', 0)} sessions, "
        f"{s.get('calls', 0)} calls, {s.get('events', 0)} events\n\n"
    )
    if not report.findings:
        out.write("No findings.\n")
        return
    out.write("| # | severity | code | trace | calls | finding |\n|---:|---|---|---|---|---|\n")
    for i, f in enumerate(report.findings, 1):
        ids = ", ".join(f.tool_call_ids[:3]) + (" …" if len(f.tool_call_ids) > 3 else "")
        out.write(
            f"| {i} | {f.severity.value} | {f.code} {md(f.name)} | {md(f.trace_id or '')} | "
            f"{md(ids)} | {md(f.message, limit=300)} |\n"
        )
    for i, f in enumerate(report.findings, 1):
        out.write(f"\n### {i}. {f.code} {md(f.name)}: {md(f.message, limit=300)}\n\n")
        if f.explanation:
            out.write(md(f.explanation) + "\n\n")
        if f.evidence:
            lines = "\n".join(f"{e.origin}\n  {e.text}" for e in f.evidence)
            out.write(fenced(lines))
        if f.fix:
            out.write(f"\n**Fix:** {md(f.fix)}\n")


@renders("sarif", DiagnoseReport)
def to_sarif(report: DiagnoseReport, out: TextIO, opts: RenderOptions) -> None:
    """SARIF 2.1.0: the diagnose rules in the driver, one result per finding at its evidence."""
    from toolcall_cli.diagnose import CLASSIFIERS

    rules = [r for code, r in RULES.items() if code in CLASSIFIERS]
    log = sarif_log(
        report.findings, rules, tool_name="toolcall", version=__version__, root=Path.cwd()
    )
    out.write(pretty(log) + "\n")
