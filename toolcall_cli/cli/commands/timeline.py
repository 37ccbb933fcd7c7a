"""`toolcall timeline`: the aligned timeline of traces, with per-phase latencies against the SLA."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolcall_cli.align import align
from toolcall_cli.align.load import load_selected
from toolcall_cli.align.select import parse_time, select
from toolcall_cli.cli import _settings
from toolcall_cli.cli._console import say
from toolcall_cli.cli._inputs import FollowSymlinksOpt, NoRedactOpt, ingest, parse_options
from toolcall_cli.cli._options import (
    Format,
    FormatOpt,
    NginxFormatOpt,
    NoSkewOpt,
    OutputOpt,
    SourceOpt,
    StoreOpt,
    TzOpt,
    check_format,
    emit,
)
from toolcall_cli.core.store import DEFAULT_STORE

TraceIdOpt = Annotated[str | None, typer.Option("--trace-id", help="Show this trace.")]
SessionIdOpt = Annotated[
    str | None, typer.Option("--session-id", help="Show the traces of this session.")
]
ToolCallIdOpt = Annotated[
    str | None, typer.Option("--tool-call-id", help="Show the trace of this call.")
]
SinceOpt = Annotated[
    str | None, typer.Option("--since", help="Only traces active at or after this time (ISO 8601).")
]
UntilOpt = Annotated[
    str | None,
    typer.Option("--until", help="Only traces active at or before this time (ISO 8601)."),
]
LimitOpt = Annotated[int, typer.Option("--limit", min=1, help="Show at most this many traces.")]
PathsArg = Annotated[
    list[Path] | None, typer.Argument(help="Evidence files or directories (default: the store).")
]


def run(
    paths: PathsArg = None,
    trace_id: TraceIdOpt = None,
    session_id: SessionIdOpt = None,
    tool_call_id: ToolCallIdOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    limit: LimitOpt = 10,
    no_skew: NoSkewOpt = False,
    tz: TzOpt = None,
    source: SourceOpt = None,
    nginx_format: NginxFormatOpt = None,
    store: StoreOpt = DEFAULT_STORE,
    fmt: FormatOpt = Format.table,
    output: OutputOpt = None,
    no_redact: NoRedactOpt = False,
    follow_symlinks: FollowSymlinksOpt = False,
) -> None:
    """Show the aligned timeline of traces, with per-phase latencies against the SLA."""
    check_format(fmt, ("table", "json", "markdown", "html"), "timeline")
    cfg = _settings.config()
    zone = tz or cfg.tz
    start, end = (
        parse_time(since, tz=zone, option="--since"),
        parse_time(until, tz=zone, option="--until"),
    )
    ids = {"trace_id": trace_id, "session_id": session_id, "tool_call_id": tool_call_id}
    if paths:
        opts = parse_options(
            tz=zone, nginx_format=nginx_format, no_redact=no_redact, follow_symlinks=follow_symlinks
        )
        events = ingest(paths, source=source.value if source else None, opts=opts).events
    else:
        events = load_selected(store, **ids)
    timeline = align(events, cfg=cfg, skew_correction=not no_skew)
    report = select(timeline, **ids, since=start, until=end, limit=limit)
    emit(report, fmt, output)
    if not _settings.current().quiet:
        more = report.total - len(report.traces)
        hidden = f" ({more} more: raise --limit)" if more else ""
        say(f"toolcall: {len(report.traces)} of {report.total} traces shown{hidden}")
