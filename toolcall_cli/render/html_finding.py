"""HTML finding cards and the diagnose banner: the parts of `diagnose --format html` that show a
finding (see `html_view` for the page). All input-derived text goes through `html_page.h`."""

from __future__ import annotations

from toolcall_cli.diagnose.kit.context import DiagnoseReport
from toolcall_cli.model.findings import Finding
from toolcall_cli.model.words import plural
from toolcall_cli.render.html_evidence import evidence_item
from toolcall_cli.render.html_meta import rule_link
from toolcall_cli.render.html_page import h

#: Evidence lines shown per card; the JSON output has all of them.
MAX_EVIDENCE = 12


def finding_card(f: Finding, cid_of: dict[str, str], fid: str) -> str:
    """A finding's card: severity, code (linked to its rule), name, message, the calls it
    names (linked to their rows when drawn), fix, and why & evidence folded."""
    sev = f.severity.value
    cids = [cid_of[c] for c in f.tool_call_ids if c in cid_of]
    data = f' data-calls="{" ".join(dict.fromkeys(cids))}"' if cids else ""
    links = ""
    if f.tool_call_ids:
        parts = [
            f'<a href="#{cid_of[c]}">{h(c, limit=60)}</a>'
            if c in cid_of
            else f"<code>{h(c, limit=60)}</code>"
            for c in f.tool_call_ids[:20]
        ]
        more = f" +{len(f.tool_call_ids) - 20} more" if len(f.tool_call_ids) > 20 else ""
        links = f'<p class="calls">calls: {" ".join(parts)}{more}</p>'
    fix = f'<p class="fix"><b>Fix:</b> {h(f.fix)}</p>' if f.fix else ""
    expl = f"<p>{h(f.explanation)}</p>" if f.explanation else ""
    ev = "".join(evidence_item(e) for e in f.evidence[:MAX_EVIDENCE])
    if len(f.evidence) > MAX_EVIDENCE:
        ev += f"<li>… {len(f.evidence) - MAX_EVIDENCE} more (--format json has all)</li>"
    detail = ""
    if expl or ev:
        opened = " open" if sev == "error" else ""
        evl = f'<ul class="evidence">{ev}</ul>' if ev else ""
        detail = (
            f"<details{opened}><summary>why &amp; evidence ({len(f.evidence)})</summary>"
            f"{expl}{evl}</details>"
        )
    return (
        f'<article class="finding sev-{sev}" id="{fid}" data-code="{h(f.code)}"{data}>'
        f'<h4><span class="sev">{sev.upper()}</span>{rule_link(f.code)}{h(f.name)}</h4>'
        f"<p>{h(f.message)}</p>{links}{fix}{detail}</article>"
    )


def banner(report: DiagnoseReport) -> str:
    """The top of the report: the counts, and the top root cause with its place and fix."""
    c = report.counts()
    s = report.summary
    counts = (
        f'<p class="counts"><span><b>{plural(c["error"], "error")}</b></span>'
        f"<span>{plural(c['warning'], 'warning')}</span><span>{plural(c['info'], 'info')}</span>"
        f"<span>{plural(int(s.get('traces', 0)), 'trace')}</span>"
        f"<span>{plural(int(s.get('calls', 0)), 'call')}</span>"
        f"<span>{plural(int(s.get('events', 0)), 'event')}</span></p>"
    )
    if not report.findings:
        return f'<div class="banner clean"><h2>No findings</h2>{counts}</div>'
    # the banner names a root cause, never a symptom of another finding
    top = next((f for f in report.findings if f.caused_by is None), report.findings[0])
    calls = ", ".join(top.tool_call_ids[:6]) + (" …" if len(top.tool_call_ids) > 6 else "")
    where = [f"trace <code>{h(top.trace_id)}</code>"] if top.trace_id else []
    if calls:
        where.append(f"calls {h(calls)}")
    loc = f'<p class="note">{" · ".join(where)}</p>' if where else ""
    fix = f'<p class="fix"><b>Fix:</b> {h(top.fix)}</p>' if top.fix else ""
    return (
        f'<div class="banner sev-{h(top.severity.value)}">'
        f"<h2>Top finding: <code>{h(top.code)}</code> {h(top.name)} "
        f"({h(top.severity.value)})</h2><p>{h(top.message)}</p>{loc}{_explains(top)}{fix}"
        f"{counts}</div>"
    )


def _explains(top: Finding) -> str:
    n = len(top.symptoms)
    return f'<p class="note">explains {n} other finding{"s" if n != 1 else ""}</p>' if n else ""
