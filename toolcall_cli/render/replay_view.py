"""Views of a replay report: table, json (DESIGN §6 replay shape), markdown.

Every view has the same parts: per call the stage verdicts, replayed, observed and agrees
(disagreements first, as the report orders them); the reasons of failing stages; the what-if
``changes`` (when the run was a what-if); the live answers (when ``--target`` was given).
"""

from __future__ import annotations

from typing import Any, TextIO

from rich import box
from rich.table import Table
from rich.text import Text

from toolcall_cli import __version__
from toolcall_cli.core.jsonio import pretty
from toolcall_cli.pipeline import PIPELINE, CallReplay, ReplayReport, Verdict
from toolcall_cli.pipeline.live import LiveResult
from toolcall_cli.render import RenderOptions, renders
from toolcall_cli.render._rich import cell, console
from toolcall_cli.render.safe import clean, md

SCHEMA_VERSION = 1
STAGES = tuple(s.name for s in PIPELINE)
_MARK = {"pass": "pass", "fail": "FAIL", "skip": "-"}
_SHORT = {"prescreen": "pre", "ratelimit": "rate", "response": "resp"}  # table headers


def _id(tool_call_id: str) -> str:
    return tool_call_id or '""'  # an empty id must stay visible


def summary(report: ReplayReport) -> dict[str, Any]:
    """Counts: calls, dispatched, rejected per stage, disagreements, changes."""
    rejected: dict[str, int] = {}
    for c in report.calls:
        if c.replayed != "dispatched":
            stage = c.replayed.split("@", 1)[-1]
            rejected[stage] = rejected.get(stage, 0) + 1
    return {
        "calls": len(report.calls),
        "dispatched": sum(c.replayed == "dispatched" for c in report.calls),
        "rejected": rejected,
        "disagreements": report.disagreements,
        "changes": None if report.changes is None else len(report.changes),
    }


def summary_line(report: ReplayReport) -> str:
    """`5 calls: 3 dispatched, 2 rejected; 1 disagrees with the evidence` (stderr too)."""
    s = summary(report)
    n_rej = sum(s["rejected"].values())
    text = f"{s['calls']} call{'s' if s['calls'] != 1 else ''}: {s['dispatched']} dispatched"
    text += (
        f", {n_rej} rejected; {s['disagreements']} disagree{'s' if s['disagreements'] == 1 else ''}"
    )
    text += " with the evidence"
    if report.changes is not None:
        text += f"; what-if: {len(report.changes)} change{'s' if len(report.changes) != 1 else ''}"
    return text


def _verdict_doc(v: Verdict) -> dict[str, Any]:
    return {
        "stage": v.stage,
        "verdict": v.verdict,
        "code": v.code,
        "reason": v.reason,
        "detail": v.detail,
    }


def _call_doc(c: CallReplay) -> dict[str, Any]:
    return {
        "tool_call_id": c.tool_call_id,
        "tool": c.tool,
        "origin": c.origin,
        "session_id": c.session_id,
        "stages": [_verdict_doc(v) for v in c.stages],
        "replayed": c.replayed,
        "observed": c.observed,
        "agrees": c.agrees,
    }


def _live_doc(r: LiveResult) -> dict[str, Any]:
    return {
        "tool_call_id": r.tool_call_id,
        "tool": r.tool,
        "url": r.url,
        "http_status": r.http_status,
        "elapsed_ms": r.elapsed_ms,
        "verdict": _verdict_doc(r.verdict),
        "diffs": [{"path": d.path, "recorded": d.recorded, "live": d.live} for d in r.diffs],
    }


def _lives(report: ReplayReport) -> list[LiveResult]:
    return [r for r in report.live or () if isinstance(r, LiveResult)]


@renders("json", ReplayReport)
def to_json(report: ReplayReport, out: TextIO, opts: RenderOptions) -> None:
    """The replay as one JSON document (DESIGN §6; `changes`/`live` are null when not asked)."""
    doc = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "toolcall", "version": __version__},
        "trace_id": report.trace_id,
        "session_id": report.session_id,
        "registry": report.registry,
        "summary": summary(report),
        "calls": [_call_doc(c) for c in report.calls],
        "changes": None
        if report.changes is None
        else [
            {
                "tool_call_id": ch.tool_call_id,
                "tool": ch.tool,
                "origin": ch.origin,
                "before": ch.before,
                "after": ch.after,
            }
            for ch in report.changes
        ],
        "live": None if report.live is None else [_live_doc(r) for r in _lives(report)],
        "notes": list(report.notes),
    }
    out.write(pretty(doc) + "\n")


def _failures(c: CallReplay) -> list[tuple[str, str, str]]:
    return [
        (v.stage, v.code, v.reason + (f"\n{v.detail}" if v.detail else ""))
        for v in c.stages
        if v.failed
    ]


@renders("table", ReplayReport)
def to_table(report: ReplayReport, out: TextIO, opts: RenderOptions) -> None:
    """A verdict grid per call, then reasons, what-if changes and live answers."""
    con = console(out, opts)
    con.print(
        cell(
            f"replay of trace {report.trace_id or '-'} · session {report.session_id or '-'} · "
            f"registry: {report.registry}",
            limit=None,
        )
    )
    grid = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0))
    grid.add_column("tool_call_id", overflow="fold")
    grid.add_column("tool", overflow="fold")
    for col in (*STAGES, "replayed", "observed", "agrees"):
        grid.add_column(_SHORT.get(col, col), no_wrap=True)
    for c in report.calls:
        marks = [Text(_MARK[v.verdict], style="bold red" if v.failed else "") for v in c.stages]
        grid.add_row(
            cell(_id(c.tool_call_id), limit=40),
            cell(c.tool, limit=40),
            *marks,
            cell(c.replayed),
            cell(c.observed),
            Text("yes" if c.agrees else "NO", style="" if c.agrees else "bold red"),
        )
    con.print(grid)
    fails = [(c, f) for c in report.calls for f in _failures(c)]
    if fails:
        reasons = Table(title="Why", title_justify="left")
        for col in ("tool_call_id", "stage", "code", "reason"):
            reasons.add_column(col, overflow="fold")
        for c, (stage, code, text) in fails:
            reasons.add_row(
                cell(_id(c.tool_call_id), limit=40),
                stage,
                cell(code),
                cell(text, one_line=False, limit=1200),
            )
        con.print(reasons)
    if report.changes is not None:
        con.print(cell(f"What-if: {len(report.changes)} call(s) change verdict", limit=None))
        if report.changes:
            ch = Table(title_justify="left")
            for col in ("tool_call_id", "tool", "before", "after"):
                ch.add_column(col, overflow="fold")
            for x in report.changes:
                ch.add_row(
                    cell(_id(x.tool_call_id), limit=40),
                    cell(x.tool),
                    cell(x.before),
                    cell(x.after),
                )
            con.print(ch)
    if report.live is not None:
        _live_table(con, _lives(report))
    for note in report.notes:
        con.print(cell(note, limit=None))


def _live_table(con: Any, lives: list[LiveResult]) -> None:
    t = Table(title=f"Live replay: {len(lives)} call(s)", title_justify="left")
    for col in ("tool_call_id", "http", "ms", "response", "reason", "differences"):
        t.add_column(col, overflow="fold")
    for r in lives:
        diffs = "\n".join(
            f"{d.path}: {d.recorded or '(absent)'} → {d.live or '(absent)'}" for d in r.diffs
        )
        t.add_row(
            cell(r.tool_call_id, limit=40),
            cell(r.http_status if r.http_status is not None else "-"),
            cell(r.elapsed_ms if r.elapsed_ms is not None else "-"),
            Text(_MARK[r.verdict.verdict], style="bold red" if r.verdict.failed else ""),
            cell(r.verdict.reason, limit=300),
            cell(diffs or "none", one_line=False, limit=1200),
        )
    con.print(t)


@renders("markdown", ReplayReport)
def to_markdown(report: ReplayReport, out: TextIO, opts: RenderOptions) -> None:
    """A summary line, the verdict table, reasons, changes and live answers (no ANSI)."""
    out.write(
        f"**toolcall replay** of trace `{clean(report.trace_id or '-', keep_newlines=False)}`: "
        f"{md(summary_line(report))}\n\n"
    )
    out.write(f"| tool_call_id | tool | {' | '.join(STAGES)} | replayed | observed | agrees |\n")
    out.write("|" + "---|" * (len(STAGES) + 5) + "\n")
    for c in report.calls:
        marks = " | ".join(_MARK[v.verdict] for v in c.stages)
        out.write(
            f"| {md(_id(c.tool_call_id), limit=60)} | {md(c.tool, limit=60)} | {marks} | "
            f"{md(c.replayed)} | {md(c.observed)} | {'yes' if c.agrees else '**no**'} |\n"
        )
    fails = [(c, f) for c in report.calls for f in _failures(c)]
    if fails:
        out.write("\n**Why**\n\n")
        for c, (stage, code, text) in fails:
            why = md(text.replace("\n", "; "), limit=600)
            out.write(f"- {md(_id(c.tool_call_id), limit=60)} · {stage} · {md(code)}: {why}\n")
    if report.changes is not None:
        out.write(f"\n**What-if changes**: {len(report.changes)}\n\n")
        if report.changes:
            out.write("| tool_call_id | tool | before | after |\n|---|---|---|---|\n")
            for x in report.changes:
                out.write(
                    f"| {md(_id(x.tool_call_id), limit=60)} | {md(x.tool, limit=60)} | "
                    f"{md(x.before)} | {md(x.after)} |\n"
                )
    if report.live is not None:
        out.write(
            "\n**Live replay**\n\n| tool_call_id | http | response | reason | differences |\n"
        )
        out.write("|---|---|---|---|---|\n")
        for r in _lives(report):
            diffs = "; ".join(
                f"{d.path}: {d.recorded or '(absent)'} → {d.live or '(absent)'}" for d in r.diffs
            )
            out.write(
                f"| {md(_id(r.tool_call_id), limit=60)} | {r.http_status or '-'} | "
                f"{r.verdict.verdict} | {md(r.verdict.reason, limit=200)} | "
                f"{md(diffs or 'none', limit=400)} |\n"
            )
    for note in report.notes:
        out.write(f"\n_{md(note)}_\n")
