"""`toolcall timeline`: the aligned timeline of traces, with per-phase latencies against the SLA."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolcall_cli.cli import _settings
from toolcall_cli.cli._early import start_reading
from toolcall_cli.cli._options import (
    FollowSymlinksOpt,
    FormatOpt,
    NginxFormatOpt,
    NoRedactOpt,
    NoSkewOpt,
    OutputOpt,
    SessionIdOpt,
    SinceOpt,
    SourceOpt,
    StoreOpt,
    ToolCallIdOpt,
    ToolNameOpt,
    TraceIdOpt,
    TzOpt,
    UntilOpt,
    emit,
)
from toolcall_cli.cli._summary import say_summary
from toolcall_cli.model.config import DEFAULT_STORE
from toolcall_cli.model.words import plural

LimitOpt = Annotated[int, typer.Option("--limit", min=1, help="Show at most this many traces.")]
PathsArg = Annotated[
    list[Path] | None, typer.Argument(help="Evidence files or directories (default: the store).")
]


def run(
    paths: PathsArg = None, trace_id: TraceIdOpt = None, session_id: SessionIdOpt = None,
    tool_call_id: ToolCallIdOpt = None, tool: ToolNameOpt = None, since: SinceOpt = None,
    until: UntilOpt = None, limit: LimitOpt = 10, no_skew: NoSkewOpt = False, tz: TzOpt = None,
    source: SourceOpt = None, nginx_format: NginxFormatOpt = None,
    store: StoreOpt = DEFAULT_STORE, fmt: FormatOpt = "table", output: OutputOpt = None,
    no_redact: NoRedactOpt = False, follow_symlinks: FollowSymlinksOpt = False,
) -> None:  # fmt: skip
    """Show the aligned timeline of traces, with per-phase latencies against the SLA."""
    start_reading(paths, source=source, follow_symlinks=follow_symlinks)  # tshark starts
    # the core and the views load here, not at import: see cli/app.py (start-up)
    from toolcall_cli.align.select import ScopeFlags, timeline_report
    from toolcall_cli.cli._inputs import reader

    cfg = _settings.config()
    zone = tz or cfg.tz
    scope = ScopeFlags.parse(
        trace_id=trace_id, session_id=session_id, tool_call_id=tool_call_id, tool=tool,
        since=since, until=until, tz=zone,
    )  # fmt: skip
    read = reader(
        paths, store=store, source=source.value if source else None, tz=zone,
        nginx_format=nginx_format, no_redact=no_redact, follow_symlinks=follow_symlinks,
    )  # fmt: skip
    events = read(scope.ids).events
    report = timeline_report(events, scope, limit=limit, cfg=cfg, skew_correction=not no_skew)
    emit(report, fmt, output)
    more = report.total - len(report.traces)
    hidden = f" ({more} more: raise --limit)" if more else ""
    say_summary(f"{len(report.traces)} of {plural(report.total, 'trace')} shown{hidden}")
