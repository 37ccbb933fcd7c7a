"""Views of the aligned timeline: table (a column per source), json (DESIGN §6), markdown."""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from typing import Any, TextIO

import pandas as pd
from rich.table import Table
from rich.text import Text

from toolcall_cli.align.model import PHASES, CallView, TimelineReport, TraceBlock
from toolcall_cli.model.cells import attrs_of, text
from toolcall_cli.model.events import COLUMNS, HTTP_KINDS, SOURCES
from toolcall_cli.model.jsonio import pretty
from toolcall_cli.model.words import NO_ID, plural
from toolcall_cli.render import RenderOptions, renders
from toolcall_cli.render._rich import cell, console
from toolcall_cli.render.cancelled_text import cancellations, cancelled_count, unanswered
from toolcall_cli.render.html_calls import chat_request, own_round_trips
from toolcall_cli.render.safe import md

SCHEMA_VERSION = 1
BREACH = "✗"
CORRECTED = "†"
#: Event rows drawn per trace in the table and markdown views (json has them all).
MAX_ROWS = 500
_PHASE_LABEL = {
    "initiation_ms": "initiation",
    "service_ms": "service",
    "injection_ms": "injection",
    "end_to_end_ms": "end to end",
}


def _iso(ts: Any) -> str | None:
    return None if ts is None or pd.isna(ts) else ts.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _num(v: Any) -> Any:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    return v


def _events_json(events: pd.DataFrame) -> list[dict[str, Any]]:
    out = []
    cols = [*COLUMNS, "ts_corrected"]
    for rec in (
        events[cols].astype(object).where(events[cols].notna(), None).to_dict(orient="records")
    ):
        rec["ts"] = _iso(rec["ts"])
        rec["ts_corrected"] = _iso(rec["ts_corrected"])
        rec["attrs"] = attrs_of(rec["attrs"])
        out.append({str(k): _num(v) for k, v in rec.items()})
    return out


def _call_json(c: CallView) -> dict[str, Any]:
    return {
        "tool_call_id": c.tool_call_id,
        "tool": c.tool,
        "outcome": c.outcome,
        "session_id": c.session_id,
        "phases": {p: c.phases.get(p) for p in PHASES},
        "breaches": list(c.breaches),
        "origin": c.origin,
        # added in place (schema_version 1): who cancelled a `cancelled` call, when, and the
        # evidence pointer of the event that did (all null for any other call)
        "cancelled_by": c.cancelled_by,
        "cancelled_at": _iso(c.cancelled_time),
        "cancelled_origin": c.cancelled_origin,
    }


@renders("json", TimelineReport)
def to_json(report: TimelineReport, out: TextIO, opts: RenderOptions) -> None:
    """`{"schema_version": 1, "traces": [...]}` plus the skew estimate."""
    doc = {
        "schema_version": SCHEMA_VERSION,
        "skews": report.skews,
        "skew_anchors": report.anchors,
        "skew_reference": report.reference,
        "skew_corrected": report.corrected,
        "traces_total": report.total,
        "traces": [
            {
                "trace_id": b.trace,
                "session_ids": list(b.session_ids),
                "trace_ids": list(b.trace_ids),
                "trouble": b.trouble,
                "events": _events_json(b.events),
                "calls": [_call_json(c) for c in b.calls],
            }
            for b in report.traces
        ],
    }
    out.write(pretty(doc) + "\n")


def describe(ev: Any) -> str:
    """A short account of an event for its source's column (the call id has its own column)."""
    kind, detail = str(ev.kind), _s(ev.detail)
    tool = _s(ev.tool)
    dur = f" {ev.duration_ms:.0f} ms" if not pd.isna(ev.duration_ms) else ""
    status = f"{int(ev.http_status)} " if not pd.isna(ev.http_status) else ""
    if kind == "tool_call":
        return f"call {tool}({_s(ev.args)})"
    if kind == "tool_result":
        return f"result {detail}"
    if kind in HTTP_KINDS:
        line = detail.replace(" HTTP/1.1", "").replace(" HTTP/1.0", "").replace(" HTTP/2.0", "")
        if kind == "http_response":
            line = ""  # the status line repeats the status
        return " ".join(p for p in (status.strip(), line, dur.strip()) if p) or kind
    if kind.startswith("mw_"):
        name = kind[3:]
        if kind in ("mw_received", "mw_request", "mw_injected"):
            return f"{name} {tool}".strip()
        if kind == "mw_response":
            return f"{name} {_s(ev.status)}{dur}".strip()
        return f"{name}: {detail}" if detail else name
    return f"{kind}: {detail}" if detail else kind


def _s(v: Any) -> str:
    return text(v) or ""


def _ms(v: float | None, breach: bool) -> str:
    if v is None:
        return "–"
    return f"{v:.1f} ms" + (f" {BREACH}" if breach else "")


def _skew_line(report: TimelineReport) -> str:
    others = [s for s in report.skews if s != report.reference]
    if not others:
        return ""
    parts = [
        f"{s} {report.skews[s]:+.1f} ms ({plural(report.anchors.get(s, 0), 'anchor')})"
        for s in others
    ]
    state = "corrected" if report.corrected else "not corrected (--no-skew-correction)"
    return f"clock offsets vs {report.reference}: {', '.join(parts)}; {state}"


def shifted_sources(report: TimelineReport) -> dict[str, float]:
    """Sources whose times were moved by skew correction (≥ 0.5 ms), with their offsets."""
    return {s: v for s, v in report.skews.items() if report.corrected and abs(v) >= 0.5}


def _time(ts: Any) -> str:
    return "—" if ts is None or pd.isna(ts) else ts.strftime("%H:%M:%S.%f")[:-3]


@renders("table", TimelineReport)
def to_table(report: TimelineReport, out: TextIO, opts: RenderOptions) -> None:
    """One block per trace: events in time order, a column per source, then the calls' phases."""
    con = console(out, opts)
    if not report.traces:
        con.print(cell("no traces to show"))
        return
    line = _skew_line(report)
    if line:
        con.print(cell(line, limit=None))
    shifted = shifted_sources(report)
    for b in report.traces:
        present = [s for s in SOURCES if (b.events["source"] == s).any()]
        _trace_table(con, b, present, shifted)
    if shifted:
        con.print(cell(f"{CORRECTED} time corrected for clock skew ({', '.join(sorted(shifted))})"))


def _title(b: TraceBlock) -> str:
    bad, cancelled = unanswered(b.calls)
    first = b.events["ts_corrected"].min()
    day = f" · {first:%Y-%m-%d}" if isinstance(first, pd.Timestamp) and not pd.isna(first) else ""
    sessions = ", ".join(b.session_ids) or "-"
    return (
        f"trace {b.trace}{day} · sessions {sessions} · {plural(len(b.calls), 'call')}, "
        f"{bad} without result{cancelled_count(cancelled)} · trouble {b.trouble}"
    )


def _trace_table(con: Any, b: TraceBlock, present: list[str], shifted: Collection[str]) -> None:
    ev = Table(title=cell(_title(b), limit=None), title_justify="left", show_lines=False)
    ev.add_column("time", no_wrap=True)
    ev.add_column("call", overflow="fold")
    for s in present:
        ev.add_column(s, overflow="fold")
    for row in b.events.head(MAX_ROWS).itertuples(index=False):
        mark = CORRECTED if row.source in shifted and _s(row.ts) else ""
        cells = [cell(describe(row), limit=48) if s == row.source else Text("") for s in present]
        ev.add_row(cell(_time(row.ts_corrected) + mark), cell(_s(row.call), limit=40), *cells)
    con.print(ev)
    if len(b.events) > MAX_ROWS:
        con.print(cell(f"… {len(b.events) - MAX_ROWS} more events (--format json shows all)"))
    if not b.calls:
        return
    calls = Table(
        title=cell(f"calls of {b.trace}{_chat_request(b.calls)}", limit=None),
        title_justify="left",
        caption=OWN_CAPTION,
        caption_justify="left",
    )
    for col in ("call", "tool", "outcome", *(_PHASE_LABEL[p] for p in PHASES)):
        calls.add_column(col, justify="right" if col in _PHASE_LABEL.values() else "left")
    own = own_round_trips(b)
    for c in b.calls:
        calls.add_row(
            cell(c.tool_call_id or NO_ID),
            cell(c.tool),
            cell(c.outcome),
            *(cell(_phase(c, p, own)) for p in PHASES),
        )
    con.print(calls)
    for who, said in cancellations(b.calls):  # a cancelled call was not lost: who, when
        con.print(cell(f"{who} {said}"))


#: What the calls table's end-to-end column is (the chat request's total is in the title).
OWN_CAPTION = f"end to end: the call's own round trip (received → injected); {BREACH} = over SLA"


def _phase(c: CallView, p: str, own: dict[str, float | None]) -> str:
    if p == "end_to_end_ms":
        return _ms(own.get(c.tool_call_id), False)
    return _ms(c.phases.get(p), p in c.breaches)


def _chat_request(calls: Sequence[CallView]) -> str:
    """` · chat request 9500.0 ms ✗ over SLA`: the request around the calls, once."""
    total = chat_request(calls)
    if total is None:
        return ""
    return f" · chat request {_ms(total[0], False)}" + (f" {BREACH} over SLA" if total[1] else "")


@renders("markdown", TimelineReport)
def to_markdown(report: TimelineReport, out: TextIO, opts: RenderOptions) -> None:
    """A summary line, then per trace an events table and a calls table."""
    out.write(f"**toolcall timeline**: {len(report.traces)} of {plural(report.total, 'trace')}\n\n")
    line = _skew_line(report)
    if line:
        out.write(f"{md(line)}\n\n")
    for b in report.traces:
        out.write(f"### {md(_title(b))}\n\n| time | call | source | event |\n|---|---|---|---|\n")
        for row in b.events.head(MAX_ROWS).itertuples(index=False):
            out.write(
                f"| {_time(row.ts_corrected)} | {md(_s(row.call))} | {md(row.source)} | "
                f"{md(describe(row), limit=120)} |\n"
            )
        if len(b.events) > MAX_ROWS:
            out.write(f"\n… {len(b.events) - MAX_ROWS} more events (--format json shows all)\n")
        if b.calls:
            chat = _chat_request(b.calls)
            out.write(f"\n{md(OWN_CAPTION + chat)}\n")
            out.write(
                "\n| call | tool | outcome | "
                + " | ".join(_PHASE_LABEL[p] for p in PHASES)
                + " |\n"
            )
            out.write("|---|---|---|" + "---:|" * len(PHASES) + "\n")
            own = own_round_trips(b)
            for c in b.calls:
                phases = " | ".join(_phase(c, p, own) for p in PHASES)
                name = md(c.tool_call_id or NO_ID)
                out.write(f"| {name} | {md(c.tool)} | {md(c.outcome)} | {phases} |\n")
            cancelled = cancellations(b.calls)
            if cancelled:
                out.write("\n" + "".join(f"- {md(w)} {md(s)}\n" for w, s in cancelled))
        out.write("\n")
