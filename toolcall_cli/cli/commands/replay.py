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
from toolcall_cli.cli._early import start_reading
from toolcall_cli.cli._options import (
    FollowSymlinksOpt,
    FormatOpt,
    NoRedactOpt,
    OutputOpt,
    PathsArg,
    SinceOpt,
    StoreOpt,
    ToolCallIdOpt,
    ToolNameOpt,
    UntilOpt,
    emit,
    scope_of,
)
from toolcall_cli.errors import UsageError
from toolcall_cli.model.config import DEFAULT_STORE, load_config


def run(
    paths: PathsArg = None,
    trace_id: Annotated[str | None, typer.Option("--trace-id", help="Trace to replay.")] = None,
    session_id: Annotated[
        str | None, typer.Option("--session-id", help="Session to replay.")
    ] = None,
    baseline: Annotated[
        Path | None,
        typer.Option(
            "--baseline",
            metavar="FILE",
            dir_okay=False,
            help="Production's settings (a toolcall.toml) to replay under; default: the "
            "effective config (toolcall config show).",
        ),
    ] = None,
    what_if: Annotated[
        Path | None,
        typer.Option(
            "--what-if",
            metavar="FILE",
            dir_okay=False,
            help="The changed settings (a toolcall.toml): show which verdicts change and why.",
        ),
    ] = None,
    tools: Annotated[
        list[Path] | None,
        typer.Option(
            "--tools",
            metavar="FILE",
            help="Changed tool definitions: show which verdicts change and why (repeatable).",
        ),
    ] = None,
    calibrate: Annotated[
        bool,
        typer.Option(
            "--calibrate",
            help="Fit window, limits and dedupe to the observed verdicts; print the "
            "toolcall.toml fragment and what it changes.",
        ),
    ] = False,
    old_config: Annotated[Path | None, typer.Option("--config", hidden=True)] = None,
    target: Annotated[
        str | None, typer.Option("--target", help="Also send the calls to this tool service URL.")
    ] = None,
    allow_remote: Annotated[
        bool, typer.Option("--allow-remote", help="Allow a --target that is not loopback.")
    ] = False,
    mcp_command: Annotated[
        str | None,
        typer.Option("--mcp-command", help="Also re-send the calls to this MCP server (stdio)."),
    ] = None,
    mcp_url: Annotated[
        str | None,
        typer.Option("--mcp-url", help="Also re-send the calls to this MCP server (HTTP)."),
    ] = None,
    ignore: Annotated[
        list[str] | None,
        typer.Option(
            "--ignore", metavar="FIELD", help="Response fields not compared (default: timestamp)."
        ),
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
    fmt: FormatOpt = "table",
    output: OutputOpt = None,
    store: StoreOpt = DEFAULT_STORE,
    no_redact: NoRedactOpt = False,
    follow_symlinks: FollowSymlinksOpt = False,
) -> None:
    """Replay a trace through the validation pipeline and compare with what was observed."""
    if old_config is not None:
        raise UsageError(
            "replay has no --config: the global `toolcall --config FILE` sets every command's "
            "config",
            hint="for production's settings pass --baseline FILE; for a change, --what-if FILE",
        )
    start_reading(paths, source=None, follow_symlinks=follow_symlinks)  # tshark starts
    # the core and the views load here, not at import: see cli/app.py (start-up)
    from toolcall_cli.cli._inputs import evidence_for, parse_options
    from toolcall_cli.render.replay_view import summary_line
    from toolcall_cli.replay.scope import one_trace_or_session
    from toolcall_cli.replay.whatif import replay_compare

    scope = scope_of(
        trace_id=trace_id, session_id=session_id, tool_call_id=tool_call_id, tool=tool,
        since=since, until=until, tz="UTC",
    )  # fmt: skip
    if not scope.restricted or (trace_id is not None and session_id is not None):
        raise UsageError(
            "name exactly one trace or session", hint="pass --trace-id ID or --session-id ID"
        )
    if target:  # the HTTP client loads only for a live replay
        from toolcall_cli.replay.live import check_target

        check_target(target, allow_remote=allow_remote)  # refuse before reading any evidence
    mcp = None
    if mcp_command is not None or mcp_url is not None:
        from toolcall_cli.replay.live_mcp_target import check_mcp_target

        mcp = check_mcp_target(mcp_command, mcp_url, http_target=target, allow_remote=allow_remote)
    cfg = _settings.config()
    # options (and their --no-redact warning) matter only when PATHs are parsed
    opts = (
        parse_options(
            tz=None, nginx_format=None, no_redact=no_redact, follow_symlinks=follow_symlinks
        )
        if paths
        else None
    )
    # from the store, only the selection's sessions are read, through the id index
    # (store/read_selection.py)
    found = evidence_for(
        paths, store=store, source=None, opts=opts, ids=scope.ids, whole_sessions=True
    )
    events = found.events
    if trace_id is None and session_id is None:
        trace_id, session_id = one_trace_or_session(events, scope, cfg=cfg)
    new_cfg = load_config(what_if) if what_if else None
    base_cfg = load_config(baseline) if baseline else None
    report = replay_compare(
        events,
        cfg=cfg,
        baseline=base_cfg,
        tools=tuple(tools or ()),
        new_cfg=new_cfg,
        calibrate=calibrate,
        trace_id=trace_id,
        session_id=session_id,
    )
    if target:
        from toolcall_cli.replay.live import live_replay

        report = live_replay(
            report, target=target, cfg=new_cfg or base_cfg or cfg, timeout=timeout,
            ignore=tuple(ignore or ("timestamp",)), allow_remote=allow_remote,
        )  # fmt: skip
    if mcp is not None:
        from toolcall_cli.replay.live_mcp import live_mcp_replay

        report = live_mcp_replay(report, events, target=mcp, timeout=timeout)
    emit(report, fmt, output)
    if report.warning:
        say(f"toolcall: warning: {report.warning}")
    if not _settings.current().quiet:
        say(f"toolcall: {summary_line(report)}")
    raise typer.Exit(1 if fail_on_disagree and report.disagreements else 0)
