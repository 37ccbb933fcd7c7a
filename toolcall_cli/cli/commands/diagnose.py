"""`toolcall diagnose`: root-cause findings with the evidence that proves them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from toolcall_cli.cli import _settings
from toolcall_cli.cli._console import say
from toolcall_cli.cli._options import (
    EngineName,
    EngineOpt,
    FailOnOpt,
    FollowSymlinksOpt,
    Format,
    FormatOpt,
    IgnoreOpt,
    NginxFormatOpt,
    NoRedactOpt,
    NoSkewOpt,
    OutputOpt,
    PathsArg,
    SchedulerOpt,
    SelectOpt,
    SessionIdOpt,
    SinceOpt,
    SourceOpt,
    StoreOpt,
    ToolCallIdOpt,
    ToolNameOpt,
    TraceIdOpt,
    TzOpt,
    UntilOpt,
    WorkersOpt,
    check_format,
    emit,
    engine_of,
    scope_of,
    split_codes,
)
from toolcall_cli.core.config import DEFAULT_STORE
from toolcall_cli.core.findings import FailOn

ToolsOpt = Annotated[
    list[Path] | None, typer.Option("--tools", help="Tool definition files (repeatable).")
]


def run(
    paths: PathsArg = None,
    fmt: FormatOpt = Format.table,
    output: OutputOpt = None,
    fail_on: FailOnOpt = FailOn.error,
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    tools: ToolsOpt = None,
    trace_id: TraceIdOpt = None,
    session_id: SessionIdOpt = None,
    tool_call_id: ToolCallIdOpt = None,
    tool: ToolNameOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    source: SourceOpt = None,
    tz: TzOpt = None,
    nginx_format: NginxFormatOpt = None,
    store: StoreOpt = DEFAULT_STORE,
    no_skew: NoSkewOpt = False,
    no_redact: NoRedactOpt = False,
    follow_symlinks: FollowSymlinksOpt = False,
    engine: EngineOpt = EngineName.local,
    scheduler: SchedulerOpt = None,
    workers: WorkersOpt = 1,
) -> None:
    """Diagnose root causes; exit 1 if any finding is at or above --fail-on."""
    check_format(fmt, ("table", "json", "markdown", "sarif", "html"), "diagnose")
    runner = engine_of(engine, scheduler, workers, html=fmt == Format.html)
    # the core and the views load here, not at import: see cli/app.py (start-up)
    from toolcall_cli.cli._inputs import evidence_for, parse_options
    from toolcall_cli.core.findings import select_codes
    from toolcall_cli.diagnose import CLASSIFIERS
    from toolcall_cli.diagnose.run import DiagnoseRequest, diagnose
    from toolcall_cli.render.diagnose_view import summary_line

    codes = split_codes(select), split_codes(ignore)
    select_codes(CLASSIFIERS.names(), select=codes[0], ignore=codes[1])  # before any reading
    cfg = _settings.config()
    opts = parse_options(
        tz=tz, nginx_format=nginx_format, no_redact=no_redact, follow_symlinks=follow_symlinks
    )
    scope = scope_of(
        trace_id=trace_id, session_id=session_id, tool_call_id=tool_call_id, tool=tool,
        since=since, until=until, tz=opts.tz,
    )  # fmt: skip
    req = DiagnoseRequest(
        opts=opts,
        tools=tuple(tools or ()),
        skew_correction=not no_skew,
        select=codes[0],
        ignore=codes[1],
        scope=scope,
    )
    if runner is not None and not paths and not any(scope.ids.values()):
        from toolcall_cli.engine.store_tasks import diagnose_store  # workers read their buckets

        report = diagnose_store(runner, store, req, cfg=cfg)
    else:
        evidence = evidence_for(
            paths,
            store=store,
            source=source.value if source else None,
            opts=replace(opts, tools=tuple(tools or ())),  # BFCL results join their questions
            ids=scope.ids,
        )
        report = diagnose(
            evidence.events,
            req,
            inputs=evidence.inputs,
            quotable=evidence.quotable,
            skipped=evidence.skipped,
            cfg=cfg,
            engine=runner,
        )
    if runner is not None:
        runner.close()
    emit(report, fmt, output)
    if not _settings.current().quiet:
        say(f"toolcall: {summary_line(report)}")
    raise typer.Exit(int(report.exit_code(fail_on)))
