"""`--format otlp`: OTLP/JSON lines for `diagnose` and `timeline` (see :mod:`otlp_spans`)."""

from __future__ import annotations

from typing import Any, TextIO

import orjson

from toolcall_cli.align.model import TimelineReport
from toolcall_cli.diagnose.kit.context import DiagnoseReport
from toolcall_cli.render import RenderOptions, renders
from toolcall_cli.render.otlp_spans import export_documents


def diagnose_documents(report: DiagnoseReport) -> list[dict[str, Any]]:
    """The OTLP documents of a diagnose run: its calls, its findings, their log records."""
    tl = report.timeline
    calls = tl.calls if tl is not None else ()
    return export_documents(report.findings, calls, tl.events if tl is not None else None)


def timeline_documents(report: TimelineReport) -> list[dict[str, Any]]:
    """The OTLP documents of a timeline: the selected traces' calls and phases."""
    calls = [c for block in report.traces for c in block.calls]
    events = [block.events for block in report.traces]
    import pandas as pd

    return export_documents((), calls, pd.concat(events) if events else None)


def write_lines(docs: list[dict[str, Any]], out: TextIO) -> None:
    """One document per line (the OTel file-exporter format)."""
    for doc in docs:
        out.write(orjson.dumps(doc).decode())
        out.write("\n")


@renders("otlp", DiagnoseReport)
def render_diagnose(report: DiagnoseReport, out: TextIO, opts: RenderOptions) -> None:
    """Findings and calls as OTLP/JSON lines."""
    write_lines(diagnose_documents(report), out)


@renders("otlp", TimelineReport)
def render_timeline(report: TimelineReport, out: TextIO, opts: RenderOptions) -> None:
    """The timeline's calls and phases as OTLP/JSON lines."""
    write_lines(timeline_documents(report), out)


def post_report(report: DiagnoseReport, url: str, *, allow_remote: bool = False) -> str:
    """Post the run's OTLP documents to *url* (see :mod:`otlp_post`); a line saying so."""
    from toolcall_cli.render.otlp_post import post_documents

    docs = diagnose_documents(report)
    sent = post_documents(docs, url, allow_remote=allow_remote)
    spans = sum(len(s["spans"]) for d in docs for r in d.get("resourceSpans", ()) for s in
                r["scopeSpans"])  # fmt: skip
    answers = ", ".join(f"{path} {status}" for path, status in sent)
    return f"toolcall: posted {spans} spans to the OTLP endpoint ({answers})"
