"""`toolcall diagnose`: root-cause findings with the evidence that proves them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolcall_cli.cli import _settings
from toolcall_cli.cli._console import say
from toolcall_cli.cli._inputs import FollowSymlinksOpt, NoRedactOpt, parse_options
from toolcall_cli.cli._options import (
    FailOnOpt,
    Format,
    FormatOpt,
    IgnoreOpt,
    NginxFormatOpt,
    NoSkewOpt,
    OutputOpt,
    PathsArg,
    SelectOpt,
    SourceOpt,
    StoreOpt,
    TzOpt,
    check_format,
    emit,
    split_codes,
)
from toolcall_cli.core.findings import FailOn
from toolcall_cli.core.store import DEFAULT_STORE
from toolcall_cli.diagnose.run import DiagnoseRequest, diagnose
from toolcall_cli.render.diagnose_view import summary_line

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
    source: SourceOpt = None,
    tz: TzOpt = None,
    nginx_format: NginxFormatOpt = None,
    store: StoreOpt = DEFAULT_STORE,
    no_skew: NoSkewOpt = False,
    no_redact: NoRedactOpt = False,
    follow_symlinks: FollowSymlinksOpt = False,
) -> None:
    """Diagnose root causes; exit 1 if any finding is at or above --fail-on."""
    check_format(fmt, ("table", "json", "markdown", "sarif", "html"), "diagnose")
    cfg = _settings.config()
    opts = parse_options(
        tz=tz, nginx_format=nginx_format, no_redact=no_redact, follow_symlinks=follow_symlinks
    )
    req = DiagnoseRequest(
        paths=tuple(paths or ()),
        source=source.value if source else None,
        opts=opts,
        store=store,
        tools=tuple(tools or ()),
        skew_correction=not no_skew,
        select=split_codes(select),
        ignore=split_codes(ignore),
    )
    report = diagnose(req, cfg=cfg)
    emit(report, fmt, output)
    if not _settings.current().quiet:
        say(f"toolcall: {summary_line(report)}")
    raise typer.Exit(int(report.exit_code(fail_on)))
