"""Views of a replay report: table, json (DESIGN §6 replay shape), markdown.

Every view has the same parts: the settings the replay ran under (and the baseline's, for a
what-if) and the warning when most calls disagree; per call, in time order, the stage
verdicts, replayed, observed and agrees (a disagreement is marked); the reasons of failing
stages; the what-if ``changes`` with the setting change that causes each; the calibrated
`toolcall.toml` fragment (``--calibrate``); the live answers (when ``--target`` was given).
"""

from __future__ import annotations

from typing import Any, TextIO

from rich import box
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from toolcall_cli import __version__
from toolcall_cli.model.jsonio import pretty
from toolcall_cli.model.words import plural
from toolcall_cli.render import RenderOptions, renders
from toolcall_cli.render._rich import cell, console
from toolcall_cli.render.safe import clean, md
from toolcall_cli.replay import PIPELINE, CallReplay, ReplayReport, Verdict
from toolcall_cli.replay.live import LiveResult

SCHEMA_VERSION = 1
STAGES = tuple(s.name for s in PIPELINE)
_MARK = {"pass": "pass", "fail": "FAIL", "skip": "-"}
_TABLE_MARK = {"pass": "ok", "fail": "FAIL", "skip": "-"}  # narrow: ids must fit whole
_SHORT = {"prescreen": "pre", "schema": "sch", "ratelimit": "rate", "response": "resp",
          "inject": "inj"}  # table headers; the markdown and JSON views spell them out  # fmt: skip


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
        "clock_s": c.clock,  # the rate limiter's clock: event time, or synthetic (clock_kind)
        "clock_kind": c.clock_kind,
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
        "settings": report.settings,
        "baseline": report.baseline,
        "warning": report.warning,
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
                "causes": list(ch.causes),
            }
            for ch in report.changes
        ],
        "calibration": _calibration_doc(report),
        "live": None if report.live is None else [_live_doc(r) for r in _lives(report)],
        "notes": list(report.notes),
    }
    out.write(pretty(doc) + "\n")


def _switch(on: object) -> str:
    return "on" if on else "off"


def settings_lines(settings: dict[str, Any], label: str = "settings") -> list[str]:
    """The pipeline settings in words: where from, the flooding guard, limits, tools."""
    if not settings:
        return []
    per_tool = settings.get("flooding.per_tool") or {}
    limits = ", ".join(f"{t} {n}" for t, n in sorted(per_tool.items())) or "none"
    budgets = settings.get("budgets.per_tool") or {}
    return [
        f"{label} ({settings['from']}): flooding guard at most "
        f"{plural(settings['flooding.max_calls'], 'call')} per "
        f"{settings['flooding.window_s']:g} s per session; per-tool limits: {limits}; "
        f"identical-call dedupe {_switch(settings['flooding.dedupe'])}",
        f"  responses: timestamp tolerance {settings['tolerance.timestamp_ms']:g} ms, result "
        f"budget {plural(settings['budgets.result_chars'], 'char')}"
        + (f" ({', '.join(f'{t} {n}' for t, n in sorted(budgets.items()))})" if budgets else "")
        + f"; tool definitions: {settings['tools']}",
    ]


def _header_lines(report: ReplayReport) -> list[str]:
    lines = [f"replay of trace {report.trace_id or '-'} · session {report.session_id or '-'}"]
    if report.baseline is not None:
        lines += settings_lines(report.baseline, "baseline")
        lines += settings_lines(report.settings, "what-if")
    else:
        lines += settings_lines(report.settings)
    if report.warning:
        lines.append(f"warning: {report.warning}")
    return lines


def _clock(c: CallReplay, start: float) -> str:
    """Seconds since the first call; "~" marks the synthetic message clock."""
    offset = c.clock - start
    shown = f"{offset:.1f}".removesuffix(".0") if offset < 100 else f"{offset:.0f}"
    return f"{'~' if c.clock_kind == 'synthetic' else ''}+{shown} s"


def _calibration_doc(report: ReplayReport) -> dict[str, Any] | None:
    cal = report.calibration
    if cal is None:
        return None
    return {
        "explained": cal.explained,
        "baseline_explained": cal.baseline_explained,
        "calls": cal.total,
        "flooding": {
            "window_s": cal.flooding.window_s,
            "max_calls": cal.flooding.max_calls,
            "per_tool": dict(cal.flooding.per_tool),
            "dedupe": cal.flooding.dedupe,
        },
        "changes": [str(ch) for ch in cal.changes],
        "synthetic_clock": cal.synthetic_clock,
        "fragment": cal.fragment(),
    }


def _failures(c: CallReplay) -> list[tuple[str, str, str]]:
    return [
        (v.stage, v.code, v.reason + (f"\n{v.detail}" if v.detail else ""))
        for v in c.stages
        if v.failed
    ]


@renders("table", ReplayReport)
def to_table(report: ReplayReport, out: TextIO, opts: RenderOptions) -> None:
    """Settings first, a verdict grid per call in time order, then reasons, what-if changes
    with their causes, the calibrated fragment and live answers."""
    con = console(out, opts)
    for line in _header_lines(report):
        con.print(cell(line, limit=None))
    grid = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0))
    ids = [_id(c.tool_call_id)[:40] for c in report.calls]
    tools = [(c.tool or "")[:40] for c in report.calls]
    grid.add_column(
        "agree", no_wrap=True, min_width=5
    )  # "NO" marks a disagreement, first on its row
    grid.add_column("time", no_wrap=True, min_width=6)
    grid.add_column("tool_call_id", no_wrap=True, min_width=max(map(len, ids), default=4))
    # the tool name folds before an id would (ids are copied into the next command)
    grid.add_column("tool", overflow="fold", min_width=min(max(map(len, tools), default=4), 12))
    for col in (*STAGES, "replayed", "observed"):
        grid.add_column(_SHORT.get(col, col), no_wrap=True)
    start = min((c.clock for c in report.calls), default=0.0)
    for c in report.calls:
        marks = [
            Text(_TABLE_MARK[v.verdict], style="bold red" if v.failed else "") for v in c.stages
        ]
        grid.add_row(
            Text("yes" if c.agrees else "NO", style="" if c.agrees else "bold red"),
            cell(_clock(c, start)),
            cell(_id(c.tool_call_id), limit=40),
            cell(c.tool, limit=40),
            *marks,
            cell(c.replayed),
            cell(c.observed),
        )
    # ids are copied into the next command: when even the narrowest grid (tool names folded)
    # is wider than the terminal, print it wider rather than cut or wrap an id
    natural = Measurement.get(con, con.options.update(width=10_000), grid).maximum
    narrowest = natural - max(0, max(map(len, tools), default=0) - 12)
    terminal = con.width
    con.width = max(terminal, narrowest)
    con.print(grid)
    con.width = terminal
    fails = [(c, f) for c in report.calls for f in _failures(c)]
    if fails:
        reasons = Table(title="Why", title_justify="left")
        reasons.add_column("tool_call_id", no_wrap=True)
        for col in ("stage", "code", "reason"):
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
        n = len(report.changes)
        con.print(cell(f"What-if: {n} call{'s' if n != 1 else ''} change verdict", limit=None))
        if report.changes:
            ch = Table(title_justify="left")
            ch.add_column("tool_call_id", no_wrap=True)
            for col in ("tool", "before", "after", "caused by"):
                ch.add_column(col, overflow="fold")
            for x in report.changes:
                ch.add_row(
                    cell(_id(x.tool_call_id), limit=40),
                    cell(x.tool),
                    cell(x.before),
                    cell(x.after),
                    cell("\n".join(x.causes), one_line=False, limit=600),
                )
            con.print(ch)
    if report.calibration is not None:
        con.print(cell("Calibrated settings (toolcall.toml):", limit=None))
        con.print(cell(report.calibration.fragment().rstrip(), one_line=False, limit=None))
    if report.live is not None:
        _live_table(con, _lives(report))
    for note in report.notes:
        con.print(cell(note, limit=None))


def _live_table(con: Any, lives: list[LiveResult]) -> None:
    t = Table(title=f"Live replay: {plural(len(lives), 'call')}", title_justify="left")
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
    for line in _header_lines(report)[1:]:
        out.write(f"- {md(line.strip())}\n")
    cols = ("", "time", "tool_call_id", "tool", *STAGES, "replayed", "observed", "agrees")
    out.write("\n| " + " | ".join(cols).lstrip() + " |\n")
    out.write("|" + "---|" * len(cols) + "\n")
    start = min((c.clock for c in report.calls), default=0.0)
    for c in report.calls:
        marks = " | ".join(_MARK[v.verdict] for v in c.stages)
        out.write(
            f"| {'' if c.agrees else '✗'} | {md(_clock(c, start))} | "
            f"{md(_id(c.tool_call_id), limit=60)} | {md(c.tool, limit=60)} | {marks} | "
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
            out.write(
                "| tool_call_id | tool | before | after | caused by |\n|---|---|---|---|---|\n"
            )
            for x in report.changes:
                out.write(
                    f"| {md(_id(x.tool_call_id), limit=60)} | {md(x.tool, limit=60)} | "
                    f"{md(x.before)} | {md(x.after)} | {md('; '.join(x.causes), limit=600)} |\n"
                )
    if report.calibration is not None:
        out.write(f"\n**Calibrated settings**\n\n```toml\n{report.calibration.fragment()}```\n")
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
