"""The `toolcall replay` core: the flags as one request → the replay report.

Reading the evidence is the CLI's shared step (`cli._inputs.reader`: progress, skipped files);
this module asks it for the selection once the request has been checked, so a bad scope or
target is refused before any evidence is read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from toolcall_cli.errors import UsageError

if TYPE_CHECKING:
    import pandas as pd

    from toolcall_cli.model.config import Config
    from toolcall_cli.replay import ReplayReport

#: The selection's ids (trace_id, session_id, tool_call_id) → its events.
Reader = Callable[[Mapping[str, "str | None"]], "pd.DataFrame"]


@dataclass(frozen=True, slots=True)
class ReplayRequest:
    """What `toolcall replay` asks for (every field has the CLI's default)."""

    trace_id: str | None = None
    session_id: str | None = None
    tool_call_id: str | None = None
    tool: str | None = None
    since: str | None = None
    until: str | None = None
    baseline: Path | None = None
    what_if: Path | None = None
    tools: tuple[Path, ...] = ()
    calibrate: bool = False
    target: str | None = None
    allow_remote: bool = False
    mcp_command: str | None = None
    mcp_url: str | None = None
    ignore: tuple[str, ...] = ("timestamp",)
    timeout: float = 5.0


def replay_asked(req: ReplayRequest, read: Reader, *, cfg: Config) -> ReplayReport:
    """Replay the one trace or session *req* names through the validation pipeline under
    *cfg* (or its baseline), compare with its what-if or tools, and re-send the calls to a
    live target when one is named. A scope naming no single trace or session, or a target
    that is refused, is a usage error (2) raised before *read* is asked for the events."""
    from toolcall_cli.align.select import ScopeFlags
    from toolcall_cli.model.config import load_config
    from toolcall_cli.replay.replay_scope import one_trace_or_session
    from toolcall_cli.replay.whatif import replay_compare

    scope = ScopeFlags.parse(
        trace_id=req.trace_id, session_id=req.session_id, tool_call_id=req.tool_call_id,
        tool=req.tool, since=req.since, until=req.until, tz="UTC",
    )  # fmt: skip
    if not scope.restricted or (req.trace_id is not None and req.session_id is not None):
        raise UsageError(
            "name exactly one trace or session", hint="pass --trace-id ID or --session-id ID"
        )
    if req.target:  # the HTTP client loads only for a live replay
        from toolcall_cli.replay.live import check_target

        check_target(req.target, allow_remote=req.allow_remote)
    mcp = None
    if req.mcp_command is not None or req.mcp_url is not None:
        from toolcall_cli.replay.live_mcp_target import check_mcp_target

        mcp = check_mcp_target(
            req.mcp_command, req.mcp_url, http_target=req.target, allow_remote=req.allow_remote
        )
    events = read(scope.ids)
    trace_id, session_id = req.trace_id, req.session_id
    if trace_id is None and session_id is None:
        trace_id, session_id = one_trace_or_session(events, scope, cfg=cfg)
    new_cfg = load_config(req.what_if) if req.what_if else None
    base_cfg = load_config(req.baseline) if req.baseline else None
    report = replay_compare(
        events, cfg=cfg, baseline=base_cfg, tools=req.tools, new_cfg=new_cfg,
        calibrate=req.calibrate, trace_id=trace_id, session_id=session_id,
    )  # fmt: skip
    if req.target:
        from toolcall_cli.replay.live import live_replay

        report = live_replay(
            report, target=req.target, cfg=new_cfg or base_cfg or cfg, timeout=req.timeout,
            ignore=req.ignore, allow_remote=req.allow_remote,
        )  # fmt: skip
    if mcp is not None:
        from toolcall_cli.replay.live_mcp import live_mcp_replay

        report = live_mcp_replay(report, events, target=mcp, timeout=req.timeout)
    return report
