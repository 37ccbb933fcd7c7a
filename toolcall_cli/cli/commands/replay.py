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
)
from toolcall_cli.cli._summary import say_summary
from toolcall_cli.errors import UsageError
from toolcall_cli.model.config import DEFAULT_STORE

TraceOpt = Annotated[str | None, typer.Option("--trace-id", help="Trace to replay.")]
SessionOpt = Annotated[str | None, typer.Option("--session-id", help="Session to replay.")]
BaselineOpt = Annotated[
    Path | None,
    typer.Option(
        "--baseline",
        metavar="FILE",
        dir_okay=False,
        help="Production's settings (a toolcall.toml) to replay under; default: the "
        "effective config (toolcall config show).",
    ),
]
WhatIfOpt = Annotated[
    Path | None,
    typer.Option(
        "--what-if",
        metavar="FILE",
        dir_okay=False,
        help="The changed settings (a toolcall.toml): show which verdicts change and why.",
    ),
]
ToolsOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--tools",
        metavar="FILE",
        help="Changed tool definitions: show which verdicts change and why (repeatable).",
    ),
]
CalibrateOpt = Annotated[
    bool,
    typer.Option(
        "--calibrate",
        help="Fit window, limits and dedupe to the observed verdicts; print the "
        "toolcall.toml fragment and what it changes.",
    ),
]
OldConfigOpt = Annotated[Path | None, typer.Option("--config", hidden=True)]
TargetOpt = Annotated[
    str | None, typer.Option("--target", help="Also send the calls to this tool service URL.")
]
AllowRemoteOpt = Annotated[
    bool, typer.Option("--allow-remote", help="Allow a --target that is not loopback.")
]
McpCommandOpt = Annotated[
    str | None,
    typer.Option("--mcp-command", help="Also re-send the calls to this MCP server (stdio)."),
]
McpUrlOpt = Annotated[
    str | None,
    typer.Option("--mcp-url", help="Also re-send the calls to this MCP server (HTTP)."),
]
IgnoreFieldOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--ignore", metavar="FIELD", help="Response fields not compared (default: timestamp)."
    ),
]
TimeoutOpt = Annotated[
    float, typer.Option("--timeout", help="Total time allowed per live call (s).", min=0.1)
]
FailOnDisagreeOpt = Annotated[
    bool,
    typer.Option("--fail-on-disagree", help="Exit 1 when a call disagrees with the evidence."),
]


def run(
    paths: PathsArg = None, trace_id: TraceOpt = None, session_id: SessionOpt = None,
    baseline: BaselineOpt = None, what_if: WhatIfOpt = None, tools: ToolsOpt = None,
    calibrate: CalibrateOpt = False, old_config: OldConfigOpt = None, target: TargetOpt = None,
    allow_remote: AllowRemoteOpt = False, mcp_command: McpCommandOpt = None,
    mcp_url: McpUrlOpt = None, ignore: IgnoreFieldOpt = None, timeout: TimeoutOpt = 5.0,
    fail_on_disagree: FailOnDisagreeOpt = False, tool_call_id: ToolCallIdOpt = None,
    tool: ToolNameOpt = None, since: SinceOpt = None, until: UntilOpt = None,
    fmt: FormatOpt = "table", output: OutputOpt = None, store: StoreOpt = DEFAULT_STORE,
    no_redact: NoRedactOpt = False, follow_symlinks: FollowSymlinksOpt = False,
) -> None:  # fmt: skip
    """Replay a trace through the validation pipeline and compare with what was observed."""
    _refuse_config(old_config)
    start_reading(paths, source=None, follow_symlinks=follow_symlinks)  # tshark starts
    # the core and the views load here, not at import: see cli/app.py (start-up)
    from toolcall_cli.cli._inputs import reader
    from toolcall_cli.render.replay_view import summary_line
    from toolcall_cli.replay.asked import ReplayRequest, replay_asked

    req = ReplayRequest(
        trace_id=trace_id, session_id=session_id, tool_call_id=tool_call_id, tool=tool,
        since=since, until=until, baseline=baseline, what_if=what_if, tools=tuple(tools or ()),
        calibrate=calibrate, target=target, allow_remote=allow_remote, mcp_command=mcp_command,
        mcp_url=mcp_url, ignore=tuple(ignore or ("timestamp",)), timeout=timeout,
    )  # fmt: skip
    # from the store, only the selection's sessions are read, through the id index
    read = reader(paths, store=store, no_redact=no_redact, follow_symlinks=follow_symlinks,
                  whole_sessions=True)  # fmt: skip
    report = replay_asked(req, lambda ids: read(ids).events, cfg=_settings.config())
    emit(report, fmt, output)
    if report.warning:
        say(f"toolcall: warning: {report.warning}")
    say_summary(summary_line(report))
    raise typer.Exit(1 if fail_on_disagree and report.disagreements else 0)


def _refuse_config(old_config: Path | None) -> None:
    """`replay --config` was once replay's own: the global option sets every command's."""
    if old_config is not None:
        raise UsageError(
            "replay has no --config: the global `toolcall --config FILE` sets every command's "
            "config",
            hint="for production's settings pass --baseline FILE; for a change, --what-if FILE",
        )
