"""What-if replay: production's settings (the baseline) against a change, verdict by verdict.

The baseline is `--baseline FILE` (production's settings), else the effective config; its
registry is the config's `tools` when configured, else the tools the session declared. The
change is `--what-if FILE` (a config) and/or `--tools FILE` (tool definitions), or the fit
of `--calibrate`. The report is the replay under the change, plus `changes`: exactly the calls
whose replayed outcome differs (``before`` → ``after``), in time order, each with the atomic
setting changes (`replay.settings`) that flip it on their own. A call no single change
flips is attributed to all of them together.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pandas as pd

from toolcall_cli.model.config import Config
from toolcall_cli.replay import Change, ReplayReport, aligned, replay
from toolcall_cli.replay.settings import (
    TOOLS_KEY,
    SettingChange,
    setting_changes,
    with_setting,
)
from toolcall_cli.tools.registry import ToolRegistry, registry_from_paths


def _outcomes(report: ReplayReport) -> dict[tuple[str, str], str]:
    return {(c.tool_call_id, c.origin): c.replayed for c in report.calls}


def compare(before: ReplayReport, after: ReplayReport) -> tuple[Change, ...]:
    """Calls (matched on id and origin) whose replayed outcome differs between two replays."""
    old = _outcomes(before)
    rows = sorted(after.calls, key=lambda c: (c.clock, c.session_id or "", c.origin))
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
    baseline: Config | None = None,
    tools: Sequence[Path] = (),
    new_cfg: Config | None = None,
    calibrate: bool = False,
    trace_id: str | None = None,
    session_id: str | None = None,
) -> ReplayReport:
    """A plain replay under the baseline, or — with a change — a what-if with `changes`."""
    events = aligned(events, cfg)  # once for every replay: only align's call views use cfg
    base_cfg = baseline or cfg
    base_reg = _registry(base_cfg.tools)
    ids = {"trace_id": trace_id, "session_id": session_id}
    base = replay(events, cfg=base_cfg, registry=base_reg, **ids)
    new_reg = _registry(tools) or (_registry(new_cfg.tools) if new_cfg else None) or base_reg
    after_cfg = new_cfg or base_cfg
    fit = None
    if calibrate:
        from toolcall_cli.replay.calibrate import calibrate as fit_flooding

        fit = fit_flooding(events, cfg=after_cfg, registry=new_reg, **ids)
        after_cfg = replace(after_cfg, flooding=fit.flooding)
    if not tools and new_cfg is None and fit is None:
        return base
    after = replay(events, cfg=after_cfg, registry=new_reg, **ids)
    steps = list(setting_changes(base_cfg, after_cfg))
    if new_reg is not base_reg:
        steps.append(SettingChange(TOOLS_KEY, base.settings["tools"], after.settings["tools"]))
    changes = compare(base, after)
    if changes and len(steps) > 1:
        changes = _attribute(changes, steps, events, base, base_cfg, base_reg, new_reg, ids)
    elif changes:
        changes = tuple(replace(ch, causes=(str(steps[0]),)) for ch in changes)
    if fit is not None:
        origin = after.settings["from"]
        after = replace(after, settings={**after.settings, "from": f"calibrated from {origin}"})
    return replace(after, changes=changes, baseline=base.settings, calibration=fit)


def _attribute(
    changes: tuple[Change, ...],
    steps: list[SettingChange],
    events: pd.DataFrame,
    base: ReplayReport,
    base_cfg: Config,
    base_reg: ToolRegistry | None,
    new_reg: ToolRegistry | None,
    ids: dict[str, str | None],
) -> tuple[Change, ...]:
    """Each change's causes: the steps that, applied alone to the baseline, flip the call to
    the same outcome (a replay per step; a handful of keys at most)."""
    before = _outcomes(base)
    flips: dict[tuple[str, str], list[tuple[str, str]]] = {}  # call → (cause, outcome)
    for step in steps:
        if step.key == TOOLS_KEY:
            alone = replay(events, cfg=base_cfg, registry=new_reg, **ids)
        else:
            alone = replay(events, cfg=with_setting(base_cfg, step), registry=base_reg, **ids)
        for key, outcome in _outcomes(alone).items():
            if before.get(key) != outcome:
                flips.setdefault(key, []).append((str(step), outcome))
    out = []
    for ch in changes:
        mine = [c for c, got in flips.get((ch.tool_call_id, ch.origin), []) if got == ch.after]
        causes = tuple(mine) or ("together: " + "; ".join(map(str, steps)),)
        out.append(replace(ch, causes=causes))
    return tuple(out)
