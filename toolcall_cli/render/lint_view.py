"""Views of the lint report: table, json (DESIGN §6), markdown, sarif, github annotations."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from rich.table import Table

from toolcall_cli import __version__
from toolcall_cli.lint.report import SCHEMA_VERSION, LintReport, finding_dict
from toolcall_cli.model.findings import RULES, Finding, Rule
from toolcall_cli.model.jsonio import pretty
from toolcall_cli.model.words import plural
from toolcall_cli.render import RenderOptions, renders
from toolcall_cli.render._rich import SEVERITY_STYLE, cell, console
from toolcall_cli.render.safe import clean, md
from toolcall_cli.render.sarif import sarif_log

_GH_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def summary_line(report: LintReport) -> str:
    """`N errors, M warnings, K info in F files (T tools)` — also the CLI's stderr line."""
    c = report.counts()
    s = report.summary
    skipped = s.get("skipped_files", 0)
    # the files linted, not the files walked: a skipped file was not checked, so not "clean"
    linted = s.get("tool_files", s.get("files", 0)) if skipped else s.get("files", 0)
    line = (
        f"{plural(c['error'], 'error')}, {plural(c['warning'], 'warning')}, "
        f"{plural(c['info'], 'info')} in {plural(linted, 'file')} "
        f"({plural(s.get('tools', 0), 'tool')}, profile {s.get('profile')})"
    )
    if skipped:
        line += f"; {plural(skipped, 'file')} skipped"
    if s.get("suppressed"):
        line += f", {s['suppressed']} suppressed by the baseline"
    fixed = s.get("fixed")
    if fixed:
        edits, files = plural(fixed["edits"], "edit"), plural(len(fixed["files"]), "file")
        line += f"; --fix made {edits} in {files}"
        if fixed["not_fixable"]:
            line += f" (only JSON is fixed; left alone: {', '.join(fixed['not_fixable'])})"
    if s.get("lock_written"):
        line += (
            f"; wrote {s['lock_written']['path']} ({plural(s['lock_written']['tools'], 'tool')})"
        )
    if s.get("baseline_written"):
        bw = s["baseline_written"]
        line += f"; wrote {bw['path']} ({plural(bw['fingerprints'], 'fingerprint')})"
    return line


def _where(f: Finding) -> str:
    """`file:line:col` (editors and terminals open it), `file:line` without a column."""
    loc = f.location
    if not loc.line:
        return str(loc.path or "")
    return f"{loc.path}:{loc.line}" + (f":{loc.column}" if loc.column else "")


@renders("table", LintReport)
def to_table(report: LintReport, out: TextIO, opts: RenderOptions) -> None:
    """One table per file (the path as its title), one row per finding in line:col order with
    its JSON pointer, so findings on one line (minified JSON) stay apart."""
    con = console(out, opts)
    if not report.findings:
        con.print(cell(f"No findings: {summary_line(report)}"))
        return
    by_file: dict[str, list[Finding]] = {}
    for f in report.findings:
        by_file.setdefault(f.location.path or "", []).append(f)
    for path, unordered in by_file.items():
        findings = sorted(unordered, key=lambda f: (f.location.line or 0, f.location.column or 0))
        t = Table(title=cell(path, limit=None), title_justify="left", title_style="bold")
        # the title is the file, this column the line:col in it (file:line:col); never folded
        t.add_column("line:col", justify="right", no_wrap=True)
        # pointer and tool fold to leave the message most of a narrow terminal's width
        side = max(16, (con.width - 40) // 4)
        t.add_column("pointer", overflow="fold", max_width=side)
        t.add_column("code", no_wrap=True)
        t.add_column("severity", no_wrap=True)
        t.add_column("tool", overflow="fold", max_width=side)
        t.add_column("message", overflow="fold", ratio=1)
        for f in findings:
            t.add_row(
                cell(_where(f)[len(f.location.path or "") + 1 :] or "-", limit=None),
                cell(f.location.pointer or "", limit=200),
                cell(f.code),
                cell(f.severity.value, style=SEVERITY_STYLE[f.severity.value]),
                cell(f.tool, limit=60),
                cell(f.message, limit=300),
            )
        con.print(t)


@renders("json", LintReport)
def to_json(report: LintReport, out: TextIO, opts: RenderOptions) -> None:
    """`{"schema_version": 1, "summary": {...}, "findings": [...]}`."""
    doc = {
        "schema_version": SCHEMA_VERSION,
        "summary": report.summary,
        "findings": [finding_dict(f) for f in report.findings],
    }
    out.write(pretty(doc) + "\n")


@renders("markdown", LintReport)
def to_markdown(report: LintReport, out: TextIO, opts: RenderOptions) -> None:
    """A summary line and a findings table for PR comments."""
    out.write(f"**toolcall lint**: {md(summary_line(report))}\n\n")
    skipped = report.skipped()
    if skipped:
        named = ", ".join(f"{md(path)} ({md(why)})" for path, why in skipped)
        out.write(f"Skipped {plural(len(skipped), 'file')}: {named}\n\n")
    if not report.findings:
        return
    out.write(
        "| location | pointer | code | severity | tool | message |\n|---|---|---|---|---|---|\n"
    )
    for f in report.findings:
        out.write(
            f"| {md(_where(f))} | {md(f.location.pointer or '')} | {f.code} {md(f.name)} | "
            f"{f.severity.value} | {md(f.tool or '')} | {md(f.message, limit=300)} |\n"
        )


def _rules(report: LintReport) -> list[Rule]:
    codes = {c for c in RULES.names() if c.startswith("SC")} | {f.code for f in report.findings}
    out = []
    for code in sorted(codes):
        if code in RULES:
            out.append(RULES.get(code))
        else:
            f = next(x for x in report.findings if x.code == code)
            out.append(Rule(code=code, name=f.name, severity=f.severity, summary=f.name))
    return out


@renders("sarif", LintReport)
def to_sarif(report: LintReport, out: TextIO, opts: RenderOptions) -> None:
    """SARIF 2.1.0 with the SC rules in the driver."""
    log = sarif_log(
        report.findings,
        _rules(report),
        tool_name="toolcall",
        version=__version__,
        root=Path(report.root),
        skipped=report.skipped(),
    )
    out.write(pretty(log) + "\n")


def _gh_data(text: str) -> str:
    return (
        clean(text, keep_newlines=True)
        .replace("%", "%25")
        .replace("\r", "%0D")
        .replace("\n", "%0A")
    )


def _gh_prop(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


@renders("github", LintReport)
def to_github(report: LintReport, out: TextIO, opts: RenderOptions) -> None:
    """GitHub Actions workflow commands: `::error file=…,line=…,title=CODE name::message`;
    then a `::notice` per skipped file (the SARIF view's note), so the run's annotations name
    what was not linted (stderr alone is only in the log)."""
    for f in report.findings:
        level = _GH_LEVEL[f.severity.value]
        props = []
        if f.location.path:
            props.append(f"file={_gh_prop(f.location.path)}")
        if f.location.line:
            props.append(f"line={f.location.line}")
        if f.location.column:
            props.append(f"col={f.location.column}")
        props.append(f"title={_gh_prop(f'{f.code} {f.name}')}")
        msg = f.message + (f" (fix: {f.fix})" if f.fix else "")
        out.write(f"::{level} {','.join(props)}::{_gh_data(msg)}\n")
    for path, why in report.skipped():
        # the path is the user's tree's text: escaped as a property and as the message
        where = f"file={_gh_prop(path)},title=file skipped"
        out.write(f"::notice {where}::{_gh_data(f'skipped {path}: {why}')}\n")
