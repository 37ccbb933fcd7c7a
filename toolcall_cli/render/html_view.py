"""HTML views: `diagnose --format html` and `timeline --format html` as one self-contained page.

Per trace a swimlane timeline (SVG, `html_svg`) with the trace's findings beside it (code, name,
severity, message, explanation, fix and the evidence lines) and a table of its calls' phases.
All input-derived text goes through `html_page.h` (controls made visible, then escaped).
Element ids are positional (`t1`, `t1-c3`), so the output is deterministic.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TextIO

import pandas as pd

from toolcall_cli import __version__
from toolcall_cli.align.model import CallView, TimelineReport, TraceBlock
from toolcall_cli.diagnose.kit.context import DiagnoseReport
from toolcall_cli.model.findings import Finding
from toolcall_cli.model.words import plural
from toolcall_cli.render import RenderOptions, renders
from toolcall_cli.render.cancelled_text import cancelled_count, unanswered
from toolcall_cli.render.html_axis import WIDTH, fmt_ms
from toolcall_cli.render.html_calls import calls_table, chat_request, own_round_trips
from toolcall_cli.render.html_finding import banner, finding_card
from toolcall_cli.render.html_index import calls_title, event_list, trace_index
from toolcall_cli.render.html_meta import header, legend, rules_section, used_marks
from toolcall_cli.render.html_page import SOURCE_COLOUR, h, page
from toolcall_cli.render.html_svg import MAX_CALL_LANES, swimlane
from toolcall_cli.render.timeline_view import shifted_sources

#: Traces drawn in full; the rest are listed by name.
MAX_TRACES = 25
#: The swimlane's drawing width when it has its row to itself (the timeline page).
WIDE = 1240


def _skew_note(report: TimelineReport) -> str:
    others = {s: v for s, v in report.skews.items() if s != report.reference and abs(v) >= 0.5}
    if not others:
        return ""
    parts = ", ".join(
        f"<b>{h(s)}</b> {v:+.1f} ms ({plural(report.anchors.get(s, 0), 'anchor')})"
        for s, v in sorted(others.items())
    )
    state = (
        "times below are corrected" if report.corrected else "not corrected (--no-skew-correction)"
    )
    return (
        f'<p class="skew">Clock offsets against <b>{h(report.reference)}</b>: {parts}; {state}. '
        "A lane label shows the correction applied to its source.</p>"
    )


def _ids(tix: int, calls: Sequence[CallView]) -> tuple[list[str], dict[str, str]]:
    cids = [f"t{tix}-c{i + 1}" for i in range(len(calls))]
    by_id: dict[str, str] = {}
    for c, cid in zip(calls, cids, strict=True):
        if c.tool_call_id:
            by_id.setdefault(c.tool_call_id, cid)
    return cids, by_id


def _meta(b: TraceBlock) -> str:
    broken, cancelled = unanswered(b.calls)
    slow = sum(any(p != "end_to_end_ms" for p in c.breaches) for c in b.calls)
    first = b.events["ts_corrected"].min()
    when = (
        f"{first:%Y-%m-%d %H:%M:%S} UTC · "
        if isinstance(first, pd.Timestamp) and not pd.isna(first)
        else ""
    )
    sessions = ", ".join(b.session_ids) or "–"
    return (
        f'<p class="meta">{h(when)}sessions {h(sessions, limit=200)} · '
        f"{plural(len(b.events), 'event')} · "
        f"{plural(len(b.calls), 'call')}, <b>{broken} without result</b>"
        f"{cancelled_count(cancelled)}, {slow} over SLA"
        f"{_chat_total(b.calls)}</p>"
    )


def _chat_total(calls: Sequence[CallView]) -> str:
    """· chat request 9.5 s ✗ over SLA: the request around the calls, once per trace."""
    total = chat_request(calls)
    if total is None:
        return ""
    mark = ' <b class="breach">✗ over SLA</b>' if total[1] else ""
    return f' · <span class="chat">chat request {h(fmt_ms(total[0]))}{mark}</span>'


def _trace_section(
    tix: int, b: TraceBlock, findings: Sequence[Finding] | None, shifted: dict[str, float]
) -> str:
    calls = b.calls
    cids, by_id = _ids(tix, calls)
    title = f"swimlane timeline of trace {b.trace}: {calls_title(calls)}"
    width = WIDTH if findings is not None else WIDE
    svg = swimlane(b, cids, by_id, shifted=shifted, title=title, ev_prefix=f"t{tix}", width=width)
    own = own_round_trips(b)
    more = ""
    if len(calls) > MAX_CALL_LANES:
        more = (
            f'<p class="note">{len(calls) - MAX_CALL_LANES} more calls are in the table below.</p>'
        )
    refs: dict[str, list[tuple[str, str, str]]] | None = None
    if findings is not None:
        refs = {}
        for i, f in enumerate(findings):
            for cid in dict.fromkeys(by_id[c] for c in f.tool_call_ids if c in by_id):
                refs.setdefault(cid, []).append((f.code, f"t{tix}-f{i + 1}", f.severity.value))
    lanes = (
        f'<div class="lanes">{svg}{more}{calls_table(calls, cids, refs, own)}'
        f"{event_list(tix, b, by_id)}</div>"
    )
    aside = ""
    if findings is not None:
        cards = "".join(finding_card(f, by_id, f"t{tix}-f{i + 1}") for i, f in enumerate(findings))
        cards = cards or '<p class="note">No findings in this trace.</p>'
        hint = '<p class="note">Select a finding to highlight its calls.</p>' if findings else ""
        aside = f'<aside class="findings"><h3>Findings ({len(findings)})</h3>{hint}{cards}</aside>'
    grid = "grid" if aside else "grid solo"
    return (
        f'<section class="trace" id="t{tix}" data-trace="{h(b.trace)}" aria-labelledby="t{tix}-h">'
        f'<h2 id="t{tix}-h">Trace <code>{h(b.trace, limit=120)}</code> · '
        f"{h(calls_title(calls), limit=200)}</h2>{_meta(b)}"
        f'<div class="{grid}">{lanes}{aside}</div></section>'
    )


def _footer() -> str:
    return (
        f"<footer>toolcall {h(__version__)} · self-contained report: "
        "no external resources.</footer>"
    )


def _origin_files(traces: Iterable[TraceBlock]) -> list[str]:
    """The files the shown events were read from (their origins without line or pointer)."""
    from toolcall_cli.model.origins import files_of

    files: set[str] = set()
    for b in traces:
        files.update(files_of(b.events["origin"].dropna()).unique())
    return sorted(files)


def _sources(traces: Iterable[TraceBlock]) -> list[str]:
    seen: set[str] = set()
    for b in traces:
        seen.update(str(s) for s in b.events["source"].dropna().unique())
    return [s for s in SOURCE_COLOUR if s in seen]


# ---------------------------------------------------------------- diagnose


def _blocks(report: DiagnoseReport) -> TimelineReport | None:
    tl: Any = report.timeline
    if tl is None:
        return None
    from toolcall_cli.align.select import select_traces

    return select_traces(tl, limit=10**9)


def _assign(
    findings: Sequence[Finding], blocks: Sequence[TraceBlock]
) -> tuple[dict[str, list[Finding]], list[Finding]]:
    traces = {b.trace for b in blocks}
    call_trace = {c.tool_call_id: b.trace for b in blocks for c in b.calls if c.tool_call_id}
    per: dict[str, list[Finding]] = {}
    loose: list[Finding] = []
    for f in findings:
        t = f.trace_id if f.trace_id in traces else None
        if t is None:
            t = next((call_trace[c] for c in f.tool_call_ids if c in call_trace), None)
        if t is None:
            loose.append(f)
        else:
            per.setdefault(t, []).append(f)
    return per, loose


@renders("html", DiagnoseReport)
def to_html(report: DiagnoseReport, out: TextIO, opts: RenderOptions) -> None:
    """The incident report: a header (when, inputs, host, version, config), a banner with the
    top finding, per trace its swimlane, events and findings, an index of every trace when
    there are more than are drawn, then the text of every rule cited."""
    tr = _blocks(report)
    blocks = list(tr.traces) if tr else []
    per, loose = _assign(report.findings, blocks)
    rank = {id(f): i for i, f in enumerate(report.findings)}
    order = sorted(
        range(len(blocks)),
        key=lambda i: (
            min((rank[id(f)] for f in per.get(blocks[i].trace, ())), default=len(rank)),
            i,
        ),
    )
    shown = [blocks[i] for i in order[:MAX_TRACES]]
    shifted = shifted_sources(tr) if tr else {}
    sections = [
        _trace_section(tix, b, per.get(b.trace, []), shifted) for tix, b in enumerate(shown, 1)
    ]
    parts = [banner(report)]
    if tr is not None:
        parts.append(_skew_note(tr))
    if shown:
        parts.append(legend(_sources(shown), used_marks(sections)))
    hidden = [blocks[i] for i in order[MAX_TRACES:]]
    if hidden:
        drawn = {b.trace: tix for tix, b in enumerate(shown, 1)}
        parts.append(trace_index([blocks[i] for i in order], drawn, per))
    parts += sections
    for b in hidden:
        loose.extend(per.get(b.trace, []))
    if loose:
        cards = "".join(finding_card(f, {}, f"x-f{i + 1}") for i, f in enumerate(loose))
        parts.append(
            '<section class="trace" id="other"><h2>Findings not tied to a drawn trace</h2>'
            f'<aside class="findings">{cards}</aside></section>'
        )
    parts.append(rules_section(f.code for f in report.findings))
    top = header(
        "toolcall incident report", "diagnose", report.inputs, getattr(report, "config", None)
    )
    body = top + "<main>" + "".join(parts) + "</main>" + _footer()
    out.write(page(f"toolcall diagnose — {plural(len(report.findings), 'finding')}", body))


# ---------------------------------------------------------------- timeline


@renders("html", TimelineReport)
def to_html_timeline(report: TimelineReport, out: TextIO, opts: RenderOptions) -> None:
    """The aligned timeline: per selected trace its swimlane and calls table."""
    shifted = shifted_sources(report)
    sections = [_trace_section(tix, b, None, shifted) for tix, b in enumerate(report.traces, 1)]
    parts = [_skew_note(report)]
    if report.traces:
        parts.append(legend(_sources(report.traces), used_marks(sections)))
    else:
        parts.append('<p class="note">No traces to show.</p>')
    parts += sections
    sub = f"timeline · {len(report.traces)} of {plural(report.total, 'trace')} shown"
    top = header("toolcall timeline", sub, _origin_files(report.traces), report.config)
    body = top + '<main class="wide">' + "".join(parts) + "</main>" + _footer()
    out.write(page(f"toolcall timeline — {plural(len(report.traces), 'trace')}", body))
