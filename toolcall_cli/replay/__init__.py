"""The local validation pipeline: replay a recorded trace through a copy of the middleware.

`PIPELINE` is the explicit ordered tuple of stages (DESIGN §5); each stage module has a
``name`` and ``check(call, ctx) -> Verdict``. :func:`replay` walks every call of the trace's
sessions in order through the stages (stages after the first failure are skipped), compares
the replayed outcome with the observed one (`replay.observe`) and returns a
:class:`ReplayReport`, in time order, with the settings it ran under first
(`replay.settings`) and a warning when most calls disagree (`replay.disagreement`).
Replay never touches the network; live replay
against a named target is `replay.live`.

Verdict codes — prescreen: ``empty-id``, ``duplicate-id``, ``unknown-tool``,
``tool-name-case``, ``arguments-not-json``, ``arguments-not-object``; schema:
``schema-violation``, ``business-rule``; ratelimit: ``duplicate-call``, ``tool-limit``,
``flooding``; response: ``status-missing``, ``call-id-mismatch``, ``timestamp-skew``,
``over-budget``, ``error-with-data``; inject: ``result-id-mismatch``,
``result-out-of-order``. Passes have code ``ok``; skips say why (``no-registry``,
``no-response``, ``no-result``, ``earlier-failure``, ...).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

import pandas as pd

from toolcall_cli.model.config import DEFAULT, Config
from toolcall_cli.model.words import NO_ID, plural
from toolcall_cli.replay import inject, prescreen, ratelimit, response, schema
from toolcall_cli.replay.base import ReplayContext, Stage, ToolCall, Verdict, skipped
from toolcall_cli.replay.calls import extract_calls
from toolcall_cli.replay.disagreement import settings_warning
from toolcall_cli.replay.observe import agrees, observe, replayed
from toolcall_cli.replay.replay_scope import replay_scope
from toolcall_cli.replay.settings import describe
from toolcall_cli.tools.registry import ToolRegistry, registry_from_session

PIPELINE: Final[tuple[Stage, ...]] = (prescreen, schema, ratelimit, response, inject)


@dataclass(frozen=True, slots=True)
class CallReplay:
    """One call's replay: every stage's verdict, the replayed and observed outcomes."""

    tool_call_id: str
    tool: str | None
    origin: str
    stages: tuple[Verdict, ...]
    replayed: str  # "dispatched" | "rejected@STAGE"
    observed: str  # "dispatched" | "rejected" | "flooded" | "missing" | "unknown"
    agrees: bool
    session_id: str | None = None
    clock: float = 0.0
    clock_kind: str = "synthetic"
    call: ToolCall | None = field(default=None, compare=False, repr=False)  # for live replay


@dataclass(frozen=True, slots=True)
class Change:
    """A call whose replayed outcome differs between two replays (what-if)."""

    tool_call_id: str
    tool: str | None
    origin: str
    before: str
    after: str
    causes: tuple[str, ...] = ()  # the setting changes that flip it ("key: old → new")


@dataclass(frozen=True, slots=True)
class ReplayReport:
    """What `toolcall replay` shows (DESIGN §6 replay shape, plus what-if and live parts)."""

    trace_id: str | None
    session_id: str | None
    calls: tuple[CallReplay, ...]
    registry: str = "none"  # where the tool registry came from
    changes: tuple[Change, ...] | None = None  # None: not a what-if run
    live: tuple[object, ...] | None = None  # replay.live.LiveResult rows; None: no --target
    notes: tuple[str, ...] = field(default=())
    settings: dict[str, Any] = field(default_factory=dict)  # replay.settings.describe
    baseline: dict[str, Any] | None = None  # a what-if's "before" settings; None: no what-if
    warning: str | None = None  # most calls disagree: the settings, not the evidence, are off
    calibration: Any = None  # replay.calibrate.Calibration with --calibrate

    @property
    def disagreements(self) -> int:
        """Calls where the replay and the evidence differ."""
        return sum(not c.agrees for c in self.calls)


def run_stages(call: ToolCall, ctx: ReplayContext) -> tuple[Verdict, ...]:
    """Every stage's verdict for *call*; stages after the first failure are skipped."""
    out: list[Verdict] = []
    failed_at: str | None = None
    for stage in PIPELINE:
        if failed_at is not None:
            out.append(skipped(stage.name, "earlier-failure", f"not reached: {failed_at} failed"))
            continue
        v = stage.check(call, ctx)
        out.append(v)
        if v.failed:
            failed_at = v.stage
    return tuple(out)


def replay_calls(
    calls: Iterable[ToolCall],
    *,
    cfg: Config,
    registry: ToolRegistry | None,
    only_call: str | None = None,
) -> list[CallReplay]:
    """Every call of one scope (`extract_calls`, in replay order) through `PIPELINE` with one
    fresh `ReplayContext`, in that order; with *only_call*, only that call is reported (the
    others still fill the rate limiter's window and the ids seen)."""
    ctx = ReplayContext(cfg=cfg, registry=registry)
    rows: list[CallReplay] = []
    for call in calls:
        verdicts = run_stages(call, ctx)
        if only_call is not None and call.tool_call_id != only_call:
            continue
        out, obs = replayed(verdicts), observe(call)
        rows.append(
            CallReplay(
                call.tool_call_id,
                call.tool,
                call.origin,
                verdicts,
                out,
                obs,
                agrees(out, obs),
                session_id=call.session_id,
                clock=call.clock,
                clock_kind=call.clock_kind,
                call=call,
            )
        )
    return rows


def in_time_order(rows: list[CallReplay]) -> tuple[CallReplay, ...]:
    """*rows* by clock, ties in replay order (how a report lists its calls)."""
    ordered = sorted(range(len(rows)), key=lambda i: (rows[i].clock, i))
    return tuple(rows[i] for i in ordered)


def aligned(events: pd.DataFrame, cfg: Config) -> pd.DataFrame:
    """*events* with the aligned `trace` column (as given when it already has one)."""
    if "trace" in events.columns:
        return events
    try:
        from toolcall_cli.align import align
    except ImportError:  # align is optional for replay: fall back to the raw keys
        return events
    return align(events, cfg=cfg).events


def replay(
    events: pd.DataFrame,
    *,
    cfg: Config = DEFAULT,
    registry: ToolRegistry | None = None,
    trace_id: str | None = None,
    session_id: str | None = None,
) -> ReplayReport:
    """Replay the calls of a trace (or session) through `PIPELINE`, in time order.

    Without *registry* the tools the session declared are used; with neither, names and
    schemas are not checked (the stages say so).
    """
    scope = replay_scope(aligned(events, cfg), trace_id=trace_id, session_id=session_id)
    if registry is None:
        registry = registry_from_session(scope.events)
    rows = replay_calls(
        extract_calls(scope.events), cfg=cfg, registry=registry, only_call=scope.only_call
    )
    sessions = scope.session_ids
    synthetic = sum(  # only calls the rate limiter judged: the clock matters nowhere else
        r.clock_kind == "synthetic"
        and any(v.stage == ratelimit.name and v.verdict != "skip" for v in r.stages)
        for r in rows
    )
    notes = (registry.notes if registry is not None else ()) + (
        (
            f"{plural(synthetic, 'call')} reached the rate limiter without an event time: "
            + (
                "its clock is synthetic (one assistant turn = 1 s), so that ratelimit verdict "
                "is indicative"
                if synthetic == 1
                else "their clock is synthetic (one assistant turn = 1 s), so those ratelimit "
                "verdicts are indicative"
            ),
        )
        if synthetic
        else ()
    )
    aborted = [
        r.tool_call_id or NO_ID
        for r in rows
        if r.observed == "unknown" and r.call is not None and r.call.user_aborted
    ]
    if aborted:  # `unknown` alone reads as missing evidence; say why it is unknown
        notes += (
            f"observed unknown: the user aborted the turn of {', '.join(aborted)} (cancelled, "
            "not dropped: no hop's verdict to compare)",
        )
    return ReplayReport(
        trace_id=scope.trace_id,
        session_id=sessions[0] if len(sessions) == 1 else (session_id or None),
        calls=in_time_order(rows),
        registry=registry.source if registry is not None else "none",
        notes=notes,
        settings=describe(cfg, registry),
        warning=settings_warning(rows, cfg),
    )
