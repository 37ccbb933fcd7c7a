"""`toolcall timeline`: the aligned timeline of traces, with per-phase latencies against the SLA."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolcall_cli.align import align
from toolcall_cli.align.load import load_selected
from toolcall_cli.align.select import parse_time, select
from toolcall_cli.cli import _settings
from toolcall_cli.cli._console import progress_bar, say
from toolcall_cli.cli._options import (
    Format, FormatOpt, NginxFormatOpt, OutputOpt, SourceOpt, StoreOpt, TzOpt, check_format, emit,
)
from toolcall_cli.core.store import DEFAULT_STORE
from toolcall_cli.sources import ingest_paths
from toolcall_cli.sources.base import ParseOptions


def run(
    paths: Annotated[list[Path] | None, typer.Argument(help="Evidence files or directories (default: the store).")] = None,
    trace_id: Annotated[str | None, typer.Option("--trace-id", help="Show this trace.")] = None,
    session_id: Annotated[str | None, typer.Option("--session-id", help="Show the traces of this session.")] = None,
    tool_call_id: Annotated[str | None, typer.Option("--tool-call-id", help="Show the trace of this call.")] = None,
    since: Annotated[str | None, typer.Option("--since", help="Only traces active at or after this time (ISO 8601).")] = None,
    until: Annotated[str | None, typer.Option("--until", help="Only traces active at or before this time (ISO 8601).")] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="Show at most this many traces.")] = 10,
    no_skew: Annotated[bool, typer.Option("--no-skew-correction", help="Keep each source's own clock.")] = False,
    tz: TzOpt = None,
    source: SourceOpt = None,
    nginx_format: NginxFormatOpt = None,
    store: StoreOpt = DEFAULT_STORE,
    fmt: FormatOpt = Format.table,
    output: OutputOpt = None,
) -> None:
    """Show the aligned timeline of traces, with per-phase latencies against the SLA."""
    check_format(fmt, ("table", "json", "markdown"), "timeline")
    cfg = _settings.config()
    zone = tz or cfg.tz
    window = (parse_time(since, tz=zone, option="--since"), parse_time(until, tz=zone, option="--until"))
    if paths:
        with progress_bar("reading", enabled=not _settings.current().quiet) as prog:
            opts = ParseOptions(tz=zone, nginx_format=nginx_format, formats=cfg.formats, progress=prog)
            events = ingest_paths(paths, source=source.value if source else None, opts=opts).events
    else:
        events = load_selected(store, trace_id=trace_id, session_id=session_id, tool_call_id=tool_call_id)
    timeline = align(events, cfg=cfg, skew_correction=not no_skew)
    report = select(timeline, trace_id=trace_id, session_id=session_id, tool_call_id=tool_call_id,
                    since=window[0], until=window[1], limit=limit)
    emit(report, fmt, output)
    if not _settings.current().quiet:
        hidden = f" ({report.total - len(report.traces)} more: raise --limit)" if report.total > len(report.traces) else ""
        say(f"toolcall: {len(report.traces)} of {report.total} traces shown{hidden}, {len(timeline.calls)} calls")
