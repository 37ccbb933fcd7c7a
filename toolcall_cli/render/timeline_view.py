"""Views of the aligned timeline: table (a column per source), json (DESIGN §6), markdown."""

from __future__ import annotations

import math
from typing import Any, TextIO

import orjson
import pandas as pd
from rich.table import Table
from rich.text import Text

from toolcall_cli.align.model import PHASES, CallView, TimelineReport, TraceBlock
from toolcall_cli.core.events import COLUMNS, SOURCES
from toolcall_cli.core.jsonio import pretty
from toolcall_cli.render import RenderOptions, renders
from toolcall_cli.render._rich import cell, console
from toolcall_cli.render.safe import md

SCHEMA_VERSION = 1
BREACH = "✗"
CORRECTED = "†"
_PHASE_LABEL = {"initiation_ms": "initiation", "service_ms": "service", "injection_ms": "injection",
                "end_to_end_ms": "end to end"}


def _iso(ts: Any) -> str | None:
    return None if ts is None or pd.isna(ts) else ts.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _num(v: Any) -> Any:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    return v


def _events_json(events: pd.DataFrame) -> list[dict[str, Any]]:
    out = []
    cols = [*COLUMNS, "ts_corrected"]
    for rec in events[cols].astype(object).where(events[cols].notna(), None).to_dict(orient="records"):
        rec["ts"] = _iso(rec["ts"])
        rec["ts_corrected"] = _iso(rec["ts_corrected"])
        rec["attrs"] = orjson.loads(rec["attrs"]) if rec["attrs"] else {}
        out.append({k: _num(v) for k, v in rec.items()})
    return out


def _call_json(c: CallView) -> dict[str, Any]:
    return {
        "tool_call_id": c.tool_call_id, "tool": c.tool, "outcome": c.outcome, "session_id": c.session_id,
        "phases": {p: c.phases.get(p) for p in PHASES}, "breaches": list(c.breaches), "origin": c.origin,
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
            {"trace_id": b.trace, "session_ids": list(b.session_ids), "trace_ids": list(b.trace_ids),
             "trouble": b.trouble, "events": _events_json(b.events), "calls": [_call_json(c) for c in b.calls]}
            for b in report.traces
        ],
    }
    out.write(pretty(doc) + "\n")


def describe(ev: Any) -> str:
    """A one-line account of an event: kind plus what matters for that kind."""
    kind, detail = ev.kind, _s(ev.detail)
    ids = f" [{ev.tool_call_id}]" if _s(ev.tool_call_id) else ""
    if kind == "tool_call":
        return f"tool_call {_s(ev.tool)}({_s(ev.args)}){ids}"
    if kind == "tool_result":
        return f"tool_result{ids} {detail}"
    if kind in ("http_access", "http_response", "http_request"):
        detail = detail.replace(" HTTP/1.1", "").replace("HTTP/1.1 ", "").replace(" HTTP/1.0", "")
        status = f"{int(ev.http_status)} " if not pd.isna(ev.http_status) else ""
        if status and detail.startswith(status):
            status = ""
        dur = f" {ev.duration_ms:.0f} ms" if not pd.isna(ev.duration_ms) else ""
        return f"{kind} {status}{detail}{dur}{ids}".replace("  ", " ")
    if kind.startswith("mw_"):
        return f"{kind}{ids} {detail or _s(ev.tool)}"
    return f"{kind} {detail}"


def _s(v: Any) -> str:
    return "" if v is None or pd.isna(v) else str(v)


def _ms(v: float | None, breach: bool) -> str:
    if v is None:
        return "–"
    return f"{v:.1f} ms" + (f" {BREACH}" if breach else "")


def _skew_line(report: TimelineReport) -> str:
    others = [s for s in report.skews if s != report.reference]
    if not others:
        return ""
    parts = [f"{s} {report.skews[s]:+.1f} ms ({report.anchors.get(s, 0)} anchors)" for s in others]
    state = "corrected" if report.corrected else "not corrected (--no-skew-correction)"
    return f"clock offsets vs {report.reference}: {', '.join(parts)}; {state}"


def _shifted(report: TimelineReport) -> set[str]:
    return {s for s, v in report.skews.items() if report.corrected and abs(v) >= 0.5}


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
    shifted = _shifted(report)
    for b in report.traces:
        present = [s for s in SOURCES if (b.events["source"] == s).any()]
        _trace_table(con, b, present, shifted)
    if shifted:
        con.print(cell(f"{CORRECTED} time corrected for clock skew ({', '.join(sorted(shifted))})"))


def _title(b: TraceBlock) -> str:
    bad = sum(c.outcome != "result" for c in b.calls)
    return (f"trace {b.trace} · sessions {', '.join(b.session_ids) or '-'} · {len(b.calls)} calls, "
            f"{bad} without result · trouble {b.trouble}")


def _trace_table(con: Any, b: TraceBlock, present: list[str], shifted: set[str]) -> None:
    ev = Table(title=cell(_title(b), limit=None), title_justify="left", show_lines=False)
    ev.add_column("time", no_wrap=True)
    for s in present:
        ev.add_column(s, overflow="fold")
    for row in b.events.itertuples(index=False):
        mark = CORRECTED if row.source in shifted and not pd.isna(row.ts) else ""
        cells = [cell(describe(row), limit=90) if s == row.source else Text("") for s in present]
        ev.add_row(cell(_time(row.ts_corrected) + mark), *cells)
    con.print(ev)
    if not b.calls:
        return
    calls = Table(title=cell(f"calls of {b.trace}", limit=None), title_justify="left")
    for col in ("call", "tool", "outcome", *(_PHASE_LABEL[p] for p in PHASES)):
        calls.add_column(col, justify="right" if col in _PHASE_LABEL.values() else "left")
    for c in b.calls:
        calls.add_row(cell(c.tool_call_id or "(empty id)"), cell(c.tool), cell(c.outcome),
                      *(cell(_ms(c.phases.get(p), p in c.breaches)) for p in PHASES))
    con.print(calls)


@renders("markdown", TimelineReport)
def to_markdown(report: TimelineReport, out: TextIO, opts: RenderOptions) -> None:
    """A summary line, then per trace an events table and a calls table."""
    out.write(f"**toolcall timeline**: {len(report.traces)} of {report.total} traces\n\n")
    line = _skew_line(report)
    if line:
        out.write(f"{md(line)}\n\n")
    for b in report.traces:
        out.write(f"### {md(_title(b))}\n\n| time | source | event |\n|---|---|---|\n")
        for row in b.events.itertuples(index=False):
            out.write(f"| {_time(row.ts_corrected)} | {md(row.source)} | {md(describe(row), limit=120)} |\n")
        if b.calls:
            out.write("\n| call | tool | outcome | " + " | ".join(_PHASE_LABEL[p] for p in PHASES) + " |\n")
            out.write("|---|---|---|" + "---:|" * len(PHASES) + "\n")
            for c in b.calls:
                phases = " | ".join(_ms(c.phases.get(p), p in c.breaches) for p in PHASES)
                out.write(f"| {md(c.tool_call_id or '(empty id)')} | {md(c.tool)} | {md(c.outcome)} | {phases} |\n")
        out.write("\n")
