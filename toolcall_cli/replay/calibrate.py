"""`replay --calibrate`: the flooding settings that best reproduce what production did.

The observed verdicts bound the rate limiter: a call production dispatched says the limits
admitted it, a flooding cancellation says they did not. Calibration searches the window, the
session limit, identical-call dedupe and then each per-tool limit for the settings under
which the most calls agree with the evidence, and returns them as a `toolcall.toml` fragment
with how many calls it explains.

Only the rate limiter depends on these settings, so prescreen and schema run once per call
and each candidate replays just the `ratelimit` stage over the calls that passed them (a
fresh context per candidate keeps it deterministic). Candidate windows are round numbers of
seconds (a window only changes verdicts where it crosses a gap between calls, and a round
window is one a middleware would have); session limits run from 1 to one more than the
busiest session's calls (never triggered). Ties go to the candidate with fewest changes from
the starting settings, then the one closest to them.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Final

import pandas as pd

from toolcall_cli.model.config import Config, Flooding
from toolcall_cli.replay import prescreen, ratelimit, schema
from toolcall_cli.replay.base import ReplayContext, ToolCall
from toolcall_cli.replay.calls import extract_calls
from toolcall_cli.replay.observe import agrees, observe
from toolcall_cli.replay.replay_scope import replay_scope
from toolcall_cli.replay.settings import SettingChange, setting_changes
from toolcall_cli.tools.registry import ToolRegistry, registry_from_session

#: Windows a middleware would be configured with (seconds).
WINDOWS: Final = (1, 2, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300, 600, 900, 1800, 3600)
#: Per-tool limits tried for a tool production cancelled calls of (beyond: unset).
MAX_TOOL_LIMIT: Final = 10


@dataclass(frozen=True, slots=True)
class Calibration:
    """The fitted flooding settings and how well they and the starting ones explain the calls."""

    flooding: Flooding
    explained: int  # calls whose replayed outcome agrees with the evidence under the fit
    baseline_explained: int  # ... under the starting settings
    total: int
    changes: tuple[SettingChange, ...]  # from the starting settings to the fit
    synthetic_clock: bool = False  # some judged calls had no event time (1 turn = 1 s)

    def fragment(self) -> str:
        """The fit as a `toolcall.toml` fragment, with how many calls it explains."""
        fl = self.flooding
        lines = [
            f"# fitted by `toolcall replay --calibrate`: explains {self.explained} of "
            f"{self.total} call{'s' if self.total != 1 else ''} (the starting settings explain "
            f"{self.baseline_explained})",
            *(
                ["# the calls carry no event time: window_s counts assistant turns (1 s each)"]
                if self.synthetic_clock
                else []
            ),
            "[flooding]",
            f"window_s = {fl.window_s:g}",
            f"max_calls = {fl.max_calls}",
            f"dedupe = {'true' if fl.dedupe else 'false'}",
        ]
        if fl.per_tool:
            inner = ", ".join(f"{_toml_key(t)} = {n}" for t, n in sorted(fl.per_tool.items()))
            lines.append(f"per_tool = {{ {inner} }}")
        return "\n".join(lines) + "\n"


def _toml_key(name: str) -> str:
    bare = name and all(ch.isalnum() or ch in "_-" for ch in name) and name.isascii()
    return name if bare else '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


@dataclass(frozen=True, slots=True)
class _Judged:
    """A call with what the settings-independent stages and the evidence say about it."""

    call: ToolCall
    pre_failure: str | None  # "rejected@prescreen" / "rejected@schema", or None: reaches ratelimit
    observed: str
    reported: bool


def _judge(events: pd.DataFrame, cfg: Config, registry: ToolRegistry | None, *,
           trace_id: str | None, session_id: str | None) -> list[_Judged]:  # fmt: skip
    scope = replay_scope(events, trace_id=trace_id, session_id=session_id)
    if registry is None:
        registry = registry_from_session(scope.events)
    ctx = ReplayContext(cfg=cfg, registry=registry)
    out: list[_Judged] = []
    for call in extract_calls(scope.events):
        failure = None
        for stage in (prescreen, schema):
            if stage.check(call, ctx).failed:
                failure = f"rejected@{stage.name}"
                break
        reported = scope.only_call is None or call.tool_call_id == scope.only_call
        out.append(_Judged(call, failure, observe(call), reported))
    return out


def _score(judged: list[_Judged], cfg: Config, flooding: Flooding) -> int:
    """How many reported calls agree with the evidence under *flooding*."""
    ctx = ReplayContext(cfg=replace(cfg, flooding=flooding))
    hits = 0
    for j in judged:
        outcome = j.pre_failure
        if outcome is None:
            outcome = "rejected@ratelimit" if ratelimit.check(j.call, ctx).failed else "dispatched"
        hits += j.reported and agrees(outcome, j.observed)
    return hits


def _distance(start: Flooding, cand: Flooding) -> tuple[int, float]:
    changed = len(setting_changes(Config(flooding=start), Config(flooding=cand)))
    spread = abs(math.log((cand.window_s or 1) / (start.window_s or 1)))
    return changed, spread + abs(cand.max_calls - start.max_calls) / 100


def _best(judged: list[_Judged], cfg: Config, start: Flooding,
          candidates: Iterable[Flooding]) -> tuple[Flooding, int]:  # fmt: skip
    """The candidate explaining most calls; ties: fewest changes from *start*, then closest."""
    best: tuple[tuple[float, ...], Flooding] | None = None
    for cand in candidates:
        changed, spread = _distance(start, cand)
        key = (_score(judged, cfg, cand), -changed, -spread)
        if best is None or key > best[0]:
            best = (key, cand)
    assert best is not None, "the grid always holds the starting settings"
    return best[1], int(best[0][0])


def calibrate(events: pd.DataFrame, *, cfg: Config, registry: ToolRegistry | None,
              trace_id: str | None, session_id: str | None) -> Calibration:  # fmt: skip
    """The flooding settings (from *cfg*'s) under which most calls agree with the evidence."""
    judged = _judge(events, cfg, registry, trace_id=trace_id, session_id=session_id)
    start = cfg.flooding
    per_session = Counter(j.call.session_id or "" for j in judged if j.pre_failure is None)
    busiest = max(per_session.values(), default=0)
    windows = sorted({*WINDOWS, start.window_s})
    grid = (
        Flooding(window_s=float(w), max_calls=n, per_tool=start.per_tool, dedupe=d)
        for d in (start.dedupe, not start.dedupe)
        for w in windows
        for n in range(1, busiest + 2)
    )
    fit, explained = _best(judged, cfg, start, itertools.chain((start,), grid))
    flooded_tools = sorted({j.call.tool or "" for j in judged if j.observed == "flooded"})
    for tool in sorted(set(flooded_tools) | set(start.per_tool)):
        options = [None, *range(1, MAX_TOOL_LIMIT + 1)]
        tries = (_with_tool(fit, tool, n) for n in options)
        fit, explained = _best(judged, cfg, start, itertools.chain((fit,), tries))
    return Calibration(
        flooding=fit,
        explained=explained,
        baseline_explained=_score(judged, cfg, start),
        total=sum(j.reported for j in judged),
        changes=setting_changes(cfg, replace(cfg, flooding=fit)),
        synthetic_clock=any(
            j.call.clock_kind == "synthetic" for j in judged if j.pre_failure is None
        ),
    )


def _with_tool(fl: Flooding, tool: str, limit: int | None) -> Flooding:
    per_tool = {t: n for t, n in fl.per_tool.items() if t != tool}
    if limit is not None:
        per_tool[tool] = limit
    return replace(fl, per_tool=per_tool)
