"""Views of the rule catalogue (`toolcall rules`)."""

from __future__ import annotations

from typing import TextIO

from rich.table import Table

from toolcall_cli.catalogue import RulesReport
from toolcall_cli.model.jsonio import pretty
from toolcall_cli.render import RenderOptions, renders
from toolcall_cli.render._rich import SEVERITY_STYLE, cell, console
from toolcall_cli.render.safe import md


def _rule_dict(r: object) -> dict[str, object]:
    from toolcall_cli.model.findings import Rule

    assert isinstance(r, Rule)
    return {
        "code": r.code,
        "name": r.name,
        "severity": r.severity.value,
        "summary": r.summary,
        "doc": r.doc,
        "other_severities": [{"severity": s.value, "when": why} for s, why in r.other_severities],
    }


def severity_note(r: object) -> str:
    """`error; warning when …` — the catalogue's severity and each documented other one."""
    from toolcall_cli.model.findings import Rule

    assert isinstance(r, Rule)
    others = "; ".join(f"{s.value} when {why}" for s, why in r.other_severities)
    return f"{r.severity.value}; {others}" if others else r.severity.value


@renders("json", RulesReport)
def to_json(report: RulesReport, out: TextIO, opts: RenderOptions) -> None:
    """The rules as JSON."""
    out.write(pretty({"schema_version": 1, "rules": [_rule_dict(r) for r in report.rules]}) + "\n")


@renders("table", RulesReport)
def to_table(report: RulesReport, out: TextIO, opts: RenderOptions) -> None:
    """A catalogue table, or one rule's full documentation."""
    con = console(out, opts)
    if report.single:
        r = report.rules[0]
        con.print(cell(f"{r.code} {r.name} ({r.severity.value})", style="bold"))
        con.print(cell(r.summary))
        if r.other_severities:
            con.print(cell(f"severity: {severity_note(r)}", one_line=False, limit=None))
        con.print()
        con.print(cell(r.doc, one_line=False, limit=None))
        return
    t = Table(title="Rules", title_justify="left")
    for col in ("code", "name", "severity", "summary"):
        t.add_column(col)
    for r in report.rules:
        t.add_row(
            cell(r.code),
            cell(r.name),
            cell(
                r.severity.value + ("*" if r.other_severities else ""),
                style=SEVERITY_STYLE[r.severity.value],
            ),
            cell(r.summary),
        )
    con.print(t)
    if any(r.other_severities for r in report.rules):
        con.print(cell("* lower or higher in a documented context: `toolcall rules CODE`"))


@renders("markdown", RulesReport)
def to_markdown(report: RulesReport, out: TextIO, opts: RenderOptions) -> None:
    """Markdown catalogue, or one rule's doc."""
    if report.single:
        r = report.rules[0]
        sev = f"Severity: {md(severity_note(r))}\n\n" if r.other_severities else ""
        out.write(f"## {r.code} {r.name} ({r.severity.value})\n\n{r.summary}\n\n{sev}{r.doc}\n")
        return
    out.write("| code | name | severity | summary |\n|---|---|---|---|\n")
    for r in report.rules:
        out.write(f"| {r.code} | {md(r.name)} | {r.severity.value} | {md(r.summary)} |\n")
