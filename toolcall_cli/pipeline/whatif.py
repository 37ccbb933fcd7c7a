"""What-if replay: the same trace under the registry/config it ran under and under new ones.

The baseline registry is the config's `tools` when configured, else the tools the session
declared; the new one is `--tools` (else the new config's `tools`, else the baseline). The
report is the replay under the new registry and config, plus `changes`: exactly the calls
whose replayed outcome differs (``before`` → ``after``), in replay order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pandas as pd

from toolcall_cli.core.config import Config
from toolcall_cli.pipeline import Change, ReplayReport, aligned, replay
from toolcall_cli.tools.registry import ToolRegistry, registry_from_paths


def compare(before: ReplayReport, after: ReplayReport) -> tuple[Change, ...]:
    """Calls (matched on id and origin) whose replayed outcome differs between two replays."""
    old = {(c.tool_call_id, c.origin): c.replayed for c in before.calls}
    rows = sorted(after.calls, key=lambda c: (c.session_id or "", c.clock, c.origin))
    return tuple(
        Change(c.tool_call_id, c.tool, c.origin, old[(c.tool_call_id, c.origin)], c.replayed)
        for c in rows
        if (c.tool_call_id, c.origin) in old and old[(c.tool_call_id, c.origin)] != c.replayed
    )


def _registry(paths: Sequence[Path]) -> ToolRegistry | None:
    return registry_from_paths(list(paths)) if paths else None


def replay_compare(
    events: pd.DataFrame,
    *,
    cfg: Config,
    tools: Sequence[Path] = (),
    new_cfg: Config | None = None,
    trace_id: str | None = None,
    session_id: str | None = None,
) -> ReplayReport:
    """A plain replay, or — with new *tools* and/or *new_cfg* — a what-if with `changes`."""
    events = aligned(events, cfg)  # once for both replays: only align's call views use cfg
    base_reg = _registry(cfg.tools)
    base = replay(events, cfg=cfg, registry=base_reg, trace_id=trace_id, session_id=session_id)
    if not tools and new_cfg is None:
        return base
    new_reg = _registry(tools) or (_registry(new_cfg.tools) if new_cfg else None) or base_reg
    after = replay(
        events, cfg=new_cfg or cfg, registry=new_reg, trace_id=trace_id, session_id=session_id
    )
    notes: tuple[str, ...] = (f"what-if: registry {base.registry} → {after.registry}",)
    if new_cfg is not None:
        notes += (f"what-if: config {cfg.path or 'defaults'} → {new_cfg.path or 'defaults'}",)
    return replace(after, changes=compare(base, after), notes=after.notes + notes)
