"""`toolcall replay`: run a trace's calls through the local validation pipeline.

Exit 0 when the replay ran; with `--fail-on-disagree`, exit 1 when any call's replayed
outcome disagrees with what the evidence shows (for CI checks of a middleware change).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from toolcall_cli.cli import _settings
from toolcall_cli.cli._console import say
from toolcall_cli.cli._options import (
    FollowSymlinksOpt,
    Format,
    FormatOpt,
    NoRedactOpt,
    OutputOpt,
    PathsArg,
    SinceOpt,
    StoreOpt,
    ToolCallIdOpt,
    ToolNameOpt,
    UntilOpt,
    check_format,
    emit,
    scope_of,
)
from toolcall_cli.core.config import DEFAULT_STORE, load_config
from toolcall_cli.errors import UsageError


def run(
    paths: PathsArg = None,
    trace_id: Annotated[str | None, typer.Option("--trace-id", help="Trace to replay.")] = None,
    session_id: Annotated[
        str | None, typer.Option("--session-id", help="Session to replay.")
    ] = None,
    tools: Annotated[
        list[Path] | None, typer.Option("--tools", help="New tool definitions: a what-if run.")
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option("--config", help="New toolcall.toml: a what-if run.", dir_okay=False),
    ] = None,
    target: Annotated[
        str | None, typer.Option("--target", help="Also send the calls to this tool service URL.")
    ] = None,
    allow_remote: Annotated[
        bool, typer.Option("--allow-remote", help="Allow a --target that is not loopback.")
    ] = False,
    ignore: Annotated[
        list[str] | None,
        typer.Option("--ignore", help="Response fields not compared (default: timestamp)."),
    ] = None,
    timeout: Annotated[
        float, typer.Option("--timeout", help="Total time allowed per live call (s).", min=0.1)
    ] = 5.0,
    fail_on_disagree: Annotated[
        bool,
        typer.Option("--fail-on-disagree", help="Exit 1 when a call disagrees with the evidence."),
    ] = False,
    tool_call_id: ToolCallIdOpt = None,
    tool: ToolNameOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    fmt: FormatOpt = Format.table,
    output: OutputOpt = None,
    store: StoreOpt = DEFAULT_STORE,
    no_redact: NoRedactOpt = False,
    follow_symlinks: FollowSymlinksOpt = False,
) -> None:
    """Replay a trace through the validation pipeline and compare with what was observed."""
    check_format(fmt, ("table", "json", "markdown"), "replay")
    # the core and the views load here, not at import: see cli/app.py (start-up)
    from toolcall_cli.cli._inputs import evidence_for, parse_options
    from toolcall_cli.pipeline.live import check_target, live_replay
    from toolcall_cli.pipeline.scope import one_trace_or_session
    from toolcall_cli.pipeline.whatif import replay_compare
    from toolcall_cli.render.replay_view import summary_line

    scope = scope_of(
        trace_id=trace_id, session_id=session_id, tool_call_id=tool_call_id, tool=tool,
        since=since, until=until, tz="UTC",
    )  # fmt: skip
    if not scope.restricted or (trace_id is not None and session_id is not None):
        raise UsageError(
            "name exactly one trace or session", hint="pass --trace-id ID or --session-id ID"
        )
    if target:
        check_target(target, allow_remote=allow_remote)  # refuse before reading any evidence
    cfg = _settings.config()
    opts = parse_options(
        tz=None, nginx_format=None, no_redact=no_redact, follow_symlinks=follow_symlinks
    )
    # from the store, only the selection's buckets (whole sessions) are read (align/load.py)
    found = evidence_for(
        paths, store=store, source=None, opts=opts, ids=scope.ids, whole_buckets=True
    )
    events = found.events
    if trace_id is None and session_id is None:
        trace_id, session_id = one_trace_or_session(events, scope, cfg=cfg)
    new_cfg = load_config(config) if config else None
    report = replay_compare(
        events,
        cfg=cfg,
        tools=tuple(tools or ()),
        new_cfg=new_cfg,
        trace_id=trace_id,
        session_id=session_id,
    )
    if target:
        report = live_replay(
            report, target=target, cfg=new_cfg or cfg, timeout=timeout,
            ignore=tuple(ignore or ("timestamp",)), allow_remote=allow_remote,
        )  # fmt: skip
    emit(report, fmt, output)
    if not _settings.current().quiet:
        say(f"toolcall: {summary_line(report)}")
    raise typer.Exit(1 if fail_on_disagree and report.disagreements else 0)
