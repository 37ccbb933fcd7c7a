"""Views of a diagnose report: table (per trace or per code, each incident led by its headline,
symptoms under their cause), json and sarif; markdown is `diagnose_markdown_view`, `--statistics`
is `diagnose_stats`."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from rich.table import Table
from rich.text import Text

from toolcall_cli import __version__
from toolcall_cli.diagnose.kit.context import DiagnoseReport
from toolcall_cli.diagnose.kit.headlines import headline, incident_counts, proof
from toolcall_cli.diagnose.kit.incidents import Incident, incidents
from toolcall_cli.model.findings import RULES, Finding
from toolcall_cli.model.jsonio import pretty
from toolcall_cli.model.words import plural
from toolcall_cli.render import RenderOptions, excerpt, renders
from toolcall_cli.render._rich import SEVERITY_STYLE, cell, console
from toolcall_cli.render.safe import clean
from toolcall_cli.render.sarif import sarif_log

SCHEMA_VERSION = 1
NO_TRACE = "(inputs)"
#: Findings the table prints in full (rank order: errors first); the rest are counted per
#: code under them. A terminal of ten thousand tables helps nobody; json lists every one.
TABLE_FINDINGS = 100
#: Above this many findings the table opens with what they add up to (a big run).
LEAD_FINDINGS = 20


def summary_line(report: DiagnoseReport) -> str:
    """`1 incident (root cause), 2 symptoms: 2 errors, 1 warning in 1 trace` (infos only
    when present; no incident part without findings); the stderr summary too."""
    c = report.counts()
    traces = report.summary.get("traces", 0)

    parts = [plural(c["error"], "error"), plural(c["warning"], "warning")]
    if c["info"]:
        parts.append(plural(c["info"], "info"))  # "34 info", not "34 infos"
    counts = f"{', '.join(parts)} in {plural(traces, 'trace')}"
    if not report.findings:
        return counts
    return f"{incidents_phrase(report.findings)}: {counts}"


def incidents_phrase(findings: Iterable[Finding]) -> str:
    """`3 incidents (root causes), 4 symptoms`."""
    roots, symptoms = incident_counts(findings)
    return (
        f"{roots} incident{'' if roots == 1 else 's'} (root cause{'' if roots == 1 else 's'}), "
        f"{symptoms} symptom{'' if symptoms == 1 else 's'}"
    )


def by_trace(findings: Iterable[Finding]) -> dict[str, list[Finding]]:
    """Findings grouped per trace in incident order (findings without a trace last)."""
    groups: dict[str, list[Finding]] = {}
    for f in findings:
        groups.setdefault(f.trace_id or NO_TRACE, []).append(f)
    if NO_TRACE in groups:
        groups[NO_TRACE] = groups.pop(NO_TRACE)
    return groups


def by_code(findings: Iterable[Finding]) -> dict[str, list[Finding]]:
    """Findings grouped per code, codes in order of their first finding (the worst first)."""
    groups: dict[str, list[Finding]] = {}
    for f in findings:
        groups.setdefault(f.code, []).append(f)
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
    """The report as one JSON document (DESIGN §6); with `--statistics` the counts per code."""
    if report.statistics:
        from toolcall_cli.render.diagnose_stats import statistics_document

        out.write(pretty(statistics_document(report)) + "\n")
        return
    out.write(pretty(_document(report)) + "\n")


def _what_was_read(report: DiagnoseReport) -> str:
    """ " (read N files: 12 messages, 30 middleware events)": a verdict names its evidence."""
    by_source = report.summary.get("by_source") or {}
    if not by_source:
        return ""
    n = len(report.inputs)
    files = f"{plural(n, 'file')}: " if report.inputs else ""
    items = sorted(by_source.items())
    counts = ", ".join(f"{v} {k}" for k, v in items)
    noun = "event" if items[-1][1] == 1 else "events"  # "…, 1 pcap event"
    return f" (read {files}{counts} {noun})"


@renders("table", DiagnoseReport)
def to_table(report: DiagnoseReport, out: TextIO, opts: RenderOptions) -> None:
    """One table per trace (or per code with `--group-by code`), each incident led by its
    headline: the root cause's row with its evidence and fix, its symptoms nested under it."""
    con = console(out, opts)
    if report.statistics:
        from toolcall_cli.render.diagnose_stats import statistics_table

        statistics_table(report, con)
        return
    if not report.findings:
        con.print(cell(no_findings_line(report)))
        return
    shown, rest = report.findings[:TABLE_FINDINGS], report.findings[TABLE_FINDINGS:]
    width = con.width - excerpt.TABLE_OVERHEAD - len("└ ")  # a symptom's code cell is wider
    if len(report.findings) > LEAD_FINDINGS:
        con.print(cell(_lead(report), one_line=False, limit=None))
    if report.group_by == "code":
        every = {f.id: f for f in report.findings}
        for code, findings in by_code(shown).items():
            con.print(_code_table(code, findings, every, width))
    else:
        for trace, findings in by_trace(shown).items():
            con.print(cell(_trace_title(trace, findings), style="bold", limit=120))
            for line in _headlines(findings, con.width):
                con.print(line)
            con.print(_trace_table(findings, width))
    if rest:
        con.print(cell(_more(rest), one_line=False, limit=None))


def no_findings_line(report: DiagnoseReport) -> str:
    """`no findings · 4 calls in 5 traces: 3 look healthy, 1 was cancelled by the user (read 1
    file: 9 transcripts events)`: what a report without findings says in the table and
    markdown views."""
    calls, n = report.summary.get("calls", 0), report.summary.get("traces", 0)
    traces = plural(n, "trace")
    cancelled = report.summary.get("cancelled", 0)
    # no call is nothing to vouch for: say so, never "0 calls look healthy"
    verdict = (
        _healthy(calls, traces, cancelled, report.summary.get("cancelled_by") or {})
        if calls
        else f"no tool call in {traces if n else 'the evidence'}: nothing to call healthy"
    )
    return f"no findings · {verdict}{_what_was_read(report)}"


def _healthy(calls: int, traces: str, cancelled: int, by_whom: dict[str, int]) -> str:
    """`N calls in T traces look healthy`; a cancelled call is counted apart, never healthy,
    and by whom (the summary's `cancelled_by`)."""
    if not cancelled:
        return f"{plural(calls, 'call')} in {traces} {'looks' if calls == 1 else 'look'} healthy"
    rest = calls - cancelled
    parts = [f"{rest} {'looks' if rest == 1 else 'look'} healthy"] if rest > 0 else []
    parts.append(f"{cancelled} {'was' if cancelled == 1 else 'were'} cancelled{_by(by_whom)}")
    return f"{plural(calls, 'call')} in {traces}: {', '.join(parts)}"


#: Who cancelled, by the summary's `cancelled_by` keys (in the order they are listed).
_WHO = {"user": "the user", "client": "the client"}


def _by(by_whom: dict[str, int]) -> str:
    """` by the user` when one party cancelled them all, `: 1 by the user, 1 by the client`
    when both did; "" when the summary does not say."""
    known = {w: n for w, n in by_whom.items() if w in _WHO and n}
    if len(known) == 1 and set(by_whom) == set(known):
        return f" by {_WHO[next(iter(known))]}"
    return ": " + ", ".join(f"{known[w]} by {_WHO[w]}" for w in _WHO if w in known) if known else ""


def _lead(report: DiagnoseReport) -> str:
    """The first line of a big run: what it adds up to, and how to see it per code."""
    return (
        f"{plural(len(report.findings), 'finding', spec=',')}: "
        f"{incidents_phrase(report.findings)} in "
        f"{plural(report.summary.get('traces', 0), 'trace', spec=',')} "
        "(--statistics counts them per code; --group-by code groups them)"
    )


def _headlines(findings: list[Finding], width: int) -> list[Text]:
    """`incident: CAUSE → EFFECT.` for each incident of one trace, then the quote that proves
    the cause on one line: `  proof: "size": 40  at path:line:col`."""
    out = []
    incs = incidents(findings)
    for i, inc in enumerate(incs, 1):
        label = f"incident {i}: " if len(incs) > 1 else "incident: "
        line = Text(label, style="bold")
        line.append_text(cell(headline(inc), limit=600))
        out.append(line)
        proven = proof(inc.cause)
        if proven:
            e, quote = proven
            # one line: the quote first, so a narrow terminal cuts the place, not the proof
            line = Text("  proof: ", style="dim")
            line.append_text(cell(quote, style="bold", limit=None))
            line.append(f"  at {excerpt.place(e)}", style="dim")
            line.truncate(width, overflow="ellipsis")
            out.append(line)
    return out


def _trace_title(trace: str, findings: list[Finding]) -> str:
    sessions = sorted({f.session_id for f in findings if f.session_id})
    title = f"trace {trace}" if trace != NO_TRACE else "inputs"
    if sessions:
        title += f" · session {', '.join(sessions[:3])}{' …' if len(sessions) > 3 else ''}"
    return title


def _trace_table(findings: list[Finding], width: int) -> Table:
    t = _table(None)
    for inc in incidents(findings):
        _add_incident(t, inc, width)
    return t


def _code_table(code: str, findings: list[Finding], every: dict[str, Finding], width: int) -> Table:
    """One code's findings; a symptom names its cause (and shows no fix: it is the cause's)."""
    first = findings[0]
    t = _table(clean(f"{code} {first.name} · {len(findings):,}", keep_newlines=False))
    for f in findings:
        body = _body(f, set(), width, fix=f.caused_by is None)
        if f.caused_by is not None:
            body.append("\n  symptom of ", style="dim")
            body.append_text(cell(_named(every.get(f.caused_by)), style="dim"))
        elif f.symptoms:
            listed = ", ".join(_named(every.get(s)) for s in f.symptoms[:5])
            body.append("\n  explains ", style="dim")
            body.append_text(cell(listed + (" …" if len(f.symptoms) > 5 else ""), style="dim"))
        t.add_row(_severity(f), cell(f.code, style="bold"), body)
    return t


def _named(f: Finding | None) -> str:
    """`OR001 on call_7`: a linked finding in a few words."""
    if f is None:
        return "(not shown)"
    return f.code + (f" on {', '.join(f.tool_call_ids[:3])}" if f.tool_call_ids else "")


def _table(title: str | None) -> Table:
    t = Table(title=title, title_justify="left", show_lines=True)
    t.add_column("severity", no_wrap=True)
    t.add_column("code", no_wrap=True)
    t.add_column("finding", overflow="fold")
    return t


def _add_incident(t: Table, inc: Incident, width: int) -> None:
    """The cause's row in full, then one row per symptom: its message and only the evidence
    the cause did not already quote (the fix is the cause's)."""
    quoted: set[tuple[str, str]] = set()
    t.add_row(
        _severity(inc.cause), cell(inc.cause.code, style="bold"), _body(inc.cause, quoted, width)
    )
    for s in inc.symptoms:
        body = Text()
        body.append(f"symptom of {inc.cause.code}: ", style="dim")
        body.append_text(_body(s, quoted, width, fix=False))
        t.add_row(_severity(s), cell(f"└ {s.code}", style="bold"), body)


def _severity(f: Finding) -> Text:
    return cell(f.severity.value, style=SEVERITY_STYLE.get(f.severity.value, ""))


def _body(f: Finding, quoted: set[tuple[str, str]], width: int, *, fix: bool = True) -> Text:
    """`path:line:col CODE name: message`, the evidence not in *quoted* (which it extends),
    each as an excerpt frame *width* columns wide, and the fix."""
    body = Text()
    body.append_text(excerpt.header(f))
    _evidence(body, f, quoted, width)
    if fix and f.fix:
        body.append("\n  fix: ", style="bold")
        body.append_text(cell(f.fix, limit=400))
    return body


def _evidence(body: Text, f: Finding, quoted: set[tuple[str, str]], width: int) -> None:
    """Each evidence item not quoted yet, as a frame: its place, its lines, the focus marked."""
    for e in f.evidence:
        if (e.origin, e.text) in quoted:
            continue
        quoted.add((e.origin, e.text))
        body.append("\n")
        body.append_text(excerpt.frame(e, width))


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


@renders("sarif", DiagnoseReport)
def to_sarif(report: DiagnoseReport, out: TextIO, opts: RenderOptions) -> None:
    """SARIF 2.1.0: the diagnose rules in the driver, one result per finding at its evidence."""
    from toolcall_cli.diagnose import CLASSIFIERS

    rules = [r for code, r in RULES.items() if code in CLASSIFIERS]
    log = sarif_log(
        report.findings, rules, tool_name="toolcall", version=__version__, root=Path.cwd()
    )
    out.write(pretty(log) + "\n")
