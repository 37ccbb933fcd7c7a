"""The Markdown view of a diagnose report (for an incident ticket or a PR comment): a summary
line, one table row per finding with symptoms marked under their cause, then one section per
incident led by its headline, with the cause's evidence and fix and its symptoms listed."""

from __future__ import annotations

import re
from typing import TextIO

from rich.cells import cell_len

from toolcall_cli.diagnose.kit.context import DiagnoseReport
from toolcall_cli.diagnose.kit.headlines import headline, proof
from toolcall_cli.diagnose.kit.incidents import incidents
from toolcall_cli.model.findings import Evidence, Finding
from toolcall_cli.model.words import plural
from toolcall_cli.render import RenderOptions, renders
from toolcall_cli.render.diagnose_view import by_code, no_findings_line, summary_line
from toolcall_cli.render.excerpt import place
from toolcall_cli.render.safe import clean, md


def fenced(text: str) -> str:
    """A Markdown code block that no backtick run inside *text* can close early."""
    body = clean(text, keep_newlines=True)
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{body}\n{fence}\n"


def inline_code(text: str) -> str:
    """*text* (one line, escaped) as Markdown inline code no backtick inside can close."""
    body = clean(text, keep_newlines=False)
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if body.startswith("`") or body.endswith("`") or not body.strip() else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def evidence_lines(e: Evidence) -> str:
    """An evidence item for a code block: its origin, the quote, and a caret line under the
    focus (when the focus is narrower than the quote). Controls are escaped piece by piece so
    the carets stay under the same characters (a newline shows as ``\\n``)."""
    start, end = e.focus or (0, len(e.text))
    head, focus, tail = (clean(p, keep_newlines=False) for p in _split(e.text, start, end))
    out = f"{e.origin}\n  {head}{focus}{tail}"
    if focus and (head or tail):
        out += "\n  " + " " * cell_len(head) + "^" * max(1, cell_len(focus))
    return out


def _split(text: str, start: int, end: int) -> tuple[str, str, str]:
    return text[:start], text[start:end], text[end:]


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
        out.write(md(no_findings_line(report)) + "\n")
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
        proven = proof(f)
        if proven:
            e, quote = proven
            out.write(f"**Proof** ({md(place(e))}): {inline_code(quote)}\n\n")
        if f.explanation:
            out.write(md(f.explanation) + "\n\n")
        if f.evidence:
            lines = "\n".join(evidence_lines(e) for e in f.evidence)
            out.write(fenced(lines))
        if f.fix:
            out.write(f"\n**Fix:** {md(f.fix)}\n")
        if inc.symptoms:
            out.write("\n**Symptoms** (explained by the cause above):\n\n")
            for sym in inc.symptoms:
                out.write(f"- {sym.code} {md(sym.name)}: {md(sym.message, limit=300)}\n")
