"""The replays diagnose shares: each session's (or trace's) calls through the validation
pipeline, once per context and all in one batch (`replay.batch.ScopeReplayer`).

TR001 names the stage that drops a call, FL006 the limit that cancelled a flood; both read the
same replay of a scope. A log of thousands of one-call traces is thousands of scopes, so they
are asked for together, never one by one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.errors import UsageError

#: (tool_call_id → CallReplay, why the scope could not be replayed or None).
Replays = tuple[dict[str, Any], str | None]


def scope_replays(
    ctx: DiagnoseContext, scopes: Sequence[tuple[str | None, str | None]]
) -> list[Replays]:
    """Per (session id, trace) scope, in order: its calls' replays by id (a session id wins,
    as for `replay.replay`), or why it could not be replayed (e.g. the session declares one
    tool twice, so there is no registry to replay with)."""
    keys = [_key(s, t) for s, t in scopes]
    done: dict[str, Replays] = ctx.memo("replays:by_scope", dict)
    todo = dict.fromkeys(k for k in keys if k not in done)
    if todo:  # the pipeline (and jsonschema) load only when a scope is replayed
        from toolcall_cli.replay.batch import ScopeReplayer

        replayer = ctx.memo(
            "replays:replayer",
            lambda: ScopeReplayer(ctx.events(), cfg=ctx.cfg, registry=ctx.registry),
        )
        wanted = {k: s for k, s in zip(keys, scopes, strict=True) if k in todo}
        for key, got in zip(todo, replayer.replay_many([wanted[k] for k in todo]), strict=True):
            if isinstance(got, UsageError):
                done[key] = ({}, got.message)
            else:  # a later call of a shared id wins, as the replay lists them
                done[key] = ({c.tool_call_id: c for c in got}, None)
    return [done[k] for k in keys]


def _key(session_id: str | None, trace: str | None) -> str:
    return f"session:{session_id}" if session_id else f"trace:{trace}"
