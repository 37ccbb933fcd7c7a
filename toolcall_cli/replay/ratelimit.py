"""Stage 3, `ratelimit`: the middleware's flooding guard — a sliding window per session.

Three checks, in order, all against the call's clock (event time, or the synthetic message
clock — see `replay.calls`), so a replay is deterministic:

1. identical-call dedupe: the same tool with canonically equal arguments already admitted in
   this session within the window (``duplicate-call``; a model loop, FL001);
2. the per-tool limit ``cfg.flooding.per_tool[tool]`` calls per window (``tool-limit``);
3. the session limit ``cfg.flooding.max_calls`` per ``window_s`` (``flooding``).

Dedupe is on unless the config says ``[flooding] dedupe = false`` (for a middleware that has
none: replay then shows what it does, and a what-if with dedupe on shows what dedupe would
change). A limit of N admits N calls in any window of ``window_s`` seconds; the N+1th is cancelled.
Only admitted calls are counted (a cancelled call does not extend the ban). Every failure's
reason is the middleware's own message, :data:`FLOOD_MESSAGE`, so it can be matched against
logs; the detail says which limit fired.
"""

from __future__ import annotations

from collections import deque
from typing import Final

from toolcall_cli.model.jsonio import canonical_hash
from toolcall_cli.model.words import plural
from toolcall_cli.replay.base import ReplayContext, ToolCall, Verdict, failed, passed, session_key

name: Final = "ratelimit"

FLOOD_MESSAGE: Final = "tool call cancelled because tool-call flooding was detected"
_SESSION: Final = "\x00session"  # window key of the whole session (no tool is named this)


def _window(ctx: ReplayContext, key: tuple[str, str], now: float) -> deque[float]:
    win = ctx.windows.setdefault(key, deque())
    horizon = now - ctx.cfg.flooding.window_s
    while win and win[0] <= horizon:
        win.popleft()
    return win


def dedupe_enabled(ctx: ReplayContext) -> bool:
    """`[flooding] dedupe = false` in the config turns identical-call dedupe off."""
    return ctx.cfg.flooding.dedupe


def check(call: ToolCall, ctx: ReplayContext) -> Verdict:
    """Dedupe, per-tool limit, session window; admit (and count) the call when all pass."""
    fl = ctx.cfg.flooding
    sess = session_key(call)
    now = call.clock
    tool = call.tool or ""
    span = f"{fl.window_s:g} s"
    # unrecorded arguments cannot be compared: no dedupe for them
    dedupe = call.args_recorded and dedupe_enabled(ctx)
    digest = f"{tool}\x00{canonical_hash(call.sent_arguments())}" if dedupe else ""
    prev = ctx.last_seen.get((sess, digest)) if digest else None
    if prev is not None and now - prev < fl.window_s:
        return failed(
            name,
            "duplicate-call",
            FLOOD_MESSAGE,
            detail=f"identical call to {tool!r} (same canonical arguments) {now - prev:g} s "
            f"after the last one (dedupe window {span})",
        )
    limit = fl.per_tool.get(tool)
    tool_win = _window(ctx, (sess, tool), now)
    if limit is not None and len(tool_win) >= limit:
        return failed(
            name,
            "tool-limit",
            FLOOD_MESSAGE,
            detail=f"{tool!r} is limited to {limit} call{'s' if limit != 1 else ''} per {span}; "
            f"{len(tool_win)} already in the window",
        )
    sess_win = _window(ctx, (sess, _SESSION), now)
    if len(sess_win) >= fl.max_calls:
        return failed(
            name,
            "flooding",
            FLOOD_MESSAGE,
            detail=f"session limit {plural(fl.max_calls, 'call')} per {span}; "
            f"{len(sess_win)} already in the window",
        )
    tool_win.append(now)
    sess_win.append(now)
    if digest:
        ctx.last_seen[(sess, digest)] = now
    return passed(name, f"{len(sess_win)}/{fl.max_calls} in the session window")
