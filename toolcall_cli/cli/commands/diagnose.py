"""`toolcall diagnose`: root-cause findings with the evidence that proves them."""

from __future__ import annotations

from dataclasses import replace
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from toolcall_cli.cli import _settings
from toolcall_cli.cli._console import say
from toolcall_cli.cli._early import start_reading
from toolcall_cli.cli._options import (
    EngineName,
    EngineOpt,
    FailOnOpt,
    FollowSymlinksOpt,
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
    emit,
    engine_of,
    split_codes,
)
from toolcall_cli.cli._summary import say_summary
from toolcall_cli.model.config import DEFAULT_STORE
from toolcall_cli.model.findings import FailOn
from toolcall_cli.render import check_format

if TYPE_CHECKING:
    import pyarrow as pa

    from toolcall_cli.diagnose.kit.context import DiagnoseReport
    from toolcall_cli.diagnose.request import DiagnoseRequest

ToolsOpt = Annotated[
    list[Path] | None, typer.Option("--tools", help="Tool definition files (repeatable).")
]
OtlpEndpointOpt = Annotated[
    str | None,
    typer.Option("--otlp-endpoint", metavar="URL", help="Also post calls and findings as "
                 "OTLP/HTTP protobuf to this receiver (BASE/v1/traces, BASE/v1/logs)."),
]  # fmt: skip
AllowRemoteOpt = Annotated[
    bool, typer.Option("--allow-remote", help="Allow an --otlp-endpoint that is not loopback.")
]


class GroupBy(str, Enum):
    """--group-by choices."""

    trace = "trace"
    code = "code"


GroupByOpt = Annotated[
    GroupBy,
    typer.Option(
        "--group-by", help="Group findings per trace (incidents under their trace) or per code."
    ),
]
StatisticsOpt = Annotated[
    bool,
    typer.Option(
        "--statistics",
        help="Print per-code counts (severity, root causes, symptoms) instead of the findings.",
    ),
]


def run(
    paths: PathsArg = None, fmt: FormatOpt = "table", output: OutputOpt = None,
    fail_on: FailOnOpt = FailOn.error, select: SelectOpt = None, ignore: IgnoreOpt = None,
    tools: ToolsOpt = None, trace_id: TraceIdOpt = None, session_id: SessionIdOpt = None,
    tool_call_id: ToolCallIdOpt = None, tool: ToolNameOpt = None, since: SinceOpt = None,
    until: UntilOpt = None, source: SourceOpt = None, tz: TzOpt = None,
    nginx_format: NginxFormatOpt = None, store: StoreOpt = DEFAULT_STORE,
    no_skew: NoSkewOpt = False, no_redact: NoRedactOpt = False,
    follow_symlinks: FollowSymlinksOpt = False, group_by: GroupByOpt = GroupBy.trace,
    statistics: StatisticsOpt = False, otlp_endpoint: OtlpEndpointOpt = None,
    allow_remote: AllowRemoteOpt = False, engine: EngineOpt = EngineName.local,
    scheduler: SchedulerOpt = None, workers: WorkersOpt = 1,
) -> None:  # fmt: skip
    """Diagnose root causes; exit 1 if any finding is at or above --fail-on."""
    if statistics:
        check_format(fmt, "diagnose --statistics")
    runner = engine_of(engine, scheduler, workers, html=fmt == "html")
    start_reading(paths, source=source, follow_symlinks=follow_symlinks)  # tshark starts
    # the core and the views load here, not at import: see cli/app.py (start-up)
    from toolcall_cli.cli._inputs import evidence_for
    from toolcall_cli.diagnose.run import diagnose_asked
    from toolcall_cli.render.diagnose_view import summary_line

    _check_endpoint(otlp_endpoint, allow_remote=allow_remote)  # before reading evidence
    req = _request(select, ignore, tools, no_skew, tz, nginx_format, no_redact, follow_symlinks,
                   (trace_id, session_id, tool_call_id, tool, since, until))  # fmt: skip
    whole = not paths and not req.scope.restricted and fmt != "html"  # html draws the timeline
    report, calls = diagnose_asked(
        req, lambda ids: evidence_for(paths, store=store, source=source.value if source else None,
                                      opts=replace(req.opts, tools=req.tools), ids=ids),
        store=store if whole else None, cfg=_settings.config(), engine=runner,
    )  # fmt: skip
    emit(replace(report, group_by=group_by.value, statistics=statistics), fmt, output)
    _post(report, otlp_endpoint, allow_remote=allow_remote)
    if not paths:  # a diagnose of the store is recorded in it (findings and calls tables)
        _record(store, report, req, calls=calls)
    say_summary(summary_line(report))
    raise typer.Exit(int(report.exit_code(fail_on)))


def _check_endpoint(endpoint: str | None, *, allow_remote: bool) -> None:
    """Refuse a bad or remote --otlp-endpoint (2)."""
    if endpoint is not None:
        from toolcall_cli.render.otlp_post import check_endpoint

        check_endpoint(endpoint, allow_remote=allow_remote)


def _post(report: DiagnoseReport, endpoint: str | None, *, allow_remote: bool) -> None:
    """Post the report's calls and findings to --otlp-endpoint, and say what was sent."""
    if endpoint is not None:
        from toolcall_cli.render.otlp_view import post_report

        say(post_report(report, endpoint, allow_remote=allow_remote))


def _record(
    store: Path, report: DiagnoseReport, req: DiagnoseRequest, *, calls: pa.Table | None
) -> None:
    """Record a diagnose of the store in it (its findings and calls tables)."""
    from toolcall_cli.cli._record import record_diagnose

    record_diagnose(store, report, _settings.config(), req=req, calls=calls)


def _request(
    select: list[str] | None, ignore: list[str] | None, tools: list[Path] | None, no_skew: bool,
    tz: str | None, nginx_format: str | None, no_redact: bool, follow_symlinks: bool,
    scope: tuple[str | None, ...],
) -> DiagnoseRequest:  # fmt: skip
    """The flags as a request: the codes checked before any reading, the parse options (with
    their --no-redact warning), the scope (a time that does not parse is a usage error)."""
    from toolcall_cli.align.select import ScopeFlags
    from toolcall_cli.cli._inputs import parse_options
    from toolcall_cli.diagnose import CLASSIFIERS
    from toolcall_cli.diagnose.request import DiagnoseRequest
    from toolcall_cli.model.findings import select_codes

    codes = split_codes(select), split_codes(ignore)
    select_codes(CLASSIFIERS.names(), select=codes[0], ignore=codes[1])  # before any reading
    opts = parse_options(
        tz=tz, nginx_format=nginx_format, no_redact=no_redact, follow_symlinks=follow_symlinks
    )
    trace_id, session_id, tool_call_id, tool, since, until = scope
    return DiagnoseRequest(
        opts=opts,
        tools=tuple(tools or ()),
        skew_correction=not no_skew,
        select=codes[0],
        ignore=codes[1],
        scope=ScopeFlags.parse(
            trace_id=trace_id, session_id=session_id, tool_call_id=tool_call_id, tool=tool,
            since=since, until=until, tz=opts.tz,
        ),
    )  # fmt: skip
