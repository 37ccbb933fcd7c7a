"""The Markdown view of a diagnose report (for an incident ticket or a PR comment): a summary
line, one table row per finding with symptoms marked under their cause, then one section per
incident led by its headline, with the cause's evidence and fix and its symptoms listed."""

from __future__ import annotations

import re
from typing import TextIO

from toolcall_cli.core.findings import Finding
from toolcall_cli.core.words import plural
from toolcall_cli.diagnose.base import DiagnoseReport
from toolcall_cli.diagnose.headlines import headline
from toolcall_cli.diagnose.incidents import incidents
from toolcall_cli.render import RenderOptions, renders
from toolcall_cli.render.diagnose_view import by_code, summary_line
from toolcall_cli.render.safe import clean, md


def fenced(text: str) -> str:
    """A Markdown code block that no backtick run inside *text* can close early."""
    body = clean(text, keep_newlines=True)
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{body}\n{fence}\n"


def _ids(f: Finding) -> str:
    return ", ".join(f.tool_call_ids[:3]) + (" …" if len(f.tool_call_ids) > 3 else "")


@renders("markdown", DiagnoseReport)
def to_markdown(report: DiagnoseReport, out: TextIO, opts: RenderOptions) -> None:
    """A summary line, a findings table (symptoms as `↳ CODE` under their cause, or grouped
    per code), then each incident: headline, evidence, fix, symptoms."""
    s = report.summary
    out.write(
        f"**toolcall diagnose**: {summary_line(report)} · {plural(s.get('sessions', 0), 'session')}"
        f", {plural(s.get('calls', 0), 'call')}, {plural(s.get('events', 0), 'event')}\n\n"
    )
    if report.statistics:
        from toolcall_cli.render.diagnose_stats import statistics_markdown

        statistics_markdown(report, out)
        return
    if not report.findings:
        out.write("No findings.\n")
        return
    findings = report.findings
    if report.group_by == "code":
        findings = tuple(f for group in by_code(findings).values() for f in group)
    out.write("| # | severity | code | trace | calls | finding |\n|---:|---|---|---|---|---|\n")
    for i, f in enumerate(findings, 1):
        code = f"↳ {f.code}" if f.caused_by and report.group_by != "code" else f.code
        out.write(
            f"| {i} | {f.severity.value} | {code} {md(f.name)} | {md(f.trace_id or '')} | "
            f"{md(_ids(f))} | {md(f.message, limit=300)} |\n"
        )
    for i, inc in enumerate(incidents(report.findings), 1):
        f = inc.cause
        out.write(f"\n### {i}. {md(headline(inc), limit=600)}\n\n")
        if f.explanation:
            out.write(md(f.explanation) + "\n\n")
        if f.evidence:
            lines = "\n".join(f"{e.origin}\n  {e.text}" for e in f.evidence)
            out.write(fenced(lines))
        if f.fix:
            out.write(f"\n**Fix:** {md(f.fix)}\n")
        if inc.symptoms:
            out.write("\n**Symptoms** (explained by the cause above):\n\n")
            for sym in inc.symptoms:
                out.write(f"- {sym.code} {md(sym.name)}: {md(sym.message, limit=300)}\n")
