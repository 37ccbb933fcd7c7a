"""The aligned timeline: the event table plus trace keys and corrected times, and per-call views."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

import pandas as pd

#: Call outcomes, worst first (used to rank traces by trouble).
OUTCOMES: Final = ("rejected", "flooded", "timeout", "dropped", "missing", "cancelled", "result")

#: Phase names in the order of a round trip (DESIGN §3).
PHASES: Final = ("initiation_ms", "service_ms", "injection_ms", "end_to_end_ms")


@dataclass(frozen=True, slots=True)
class CallView:
    """One tool call as seen across every source.

    `phases` maps each name of :data:`PHASES` to milliseconds, or None when a boundary of the
    phase was not observed; `breaches` names the phases above their SLA. `start` (the
    earliest corrected time of the call) is kept as nanoseconds since the epoch and made a
    Timestamp only when read: boxing a quarter of a million Timestamps costs seconds.
    """

    tool_call_id: str
    tool: str | None
    trace: str | None
    session_id: str | None
    outcome: str
    phases: dict[str, float | None]
    breaches: tuple[str, ...] = ()
    origin: str | None = None  # evidence pointer of the call's first event
    start_ns: int | None = None  # earliest corrected time of the call, ns since the epoch (UTC)
    cancelled_origin: str | None = None  # evidence pointer of the event that cancelled it
    cancelled_ns: int | None = None  # when it was cancelled: that event's corrected time, ns
    cancelled_by: str | None = None  # `user` (aborted the turn) or `client` (withdrew the call)
    cancelled_note: str | None = None  # the cancelling event's own words (untrusted text)

    @property
    def start(self) -> pd.Timestamp | None:
        """The earliest corrected time of the call (UTC)."""
        return None if self.start_ns is None else pd.Timestamp(self.start_ns, tz="UTC")

    @property
    def user_aborted(self) -> bool:
        """Cancelled because the user aborted its turn: no hop failed (OR001 leaves it alone),
        so it is neither trouble nor an error, though it got no result."""
        return self.outcome == "cancelled" and self.cancelled_by == "user"

    @property
    def faulty(self) -> bool:
        """Left without a result for a reason other than the user aborting its turn: what
        the views mark as a fault and count as trouble."""
        return self.outcome != "result" and not self.user_aborted

    @property
    def cancelled_time(self) -> pd.Timestamp | None:
        """When the call was cancelled (UTC), None when the cancelling event has no clock."""
        return None if self.cancelled_ns is None else pd.Timestamp(self.cancelled_ns, tz="UTC")


@dataclass(frozen=True, slots=True)
class Timeline:
    """What :func:`toolcall_cli.align.align` returns.

    `events` is the event table plus `trace` (the aligned trace key) and `ts_corrected`
    (skew-corrected UTC time; message events take the time of their call), sorted by
    corrected time with message order kept. `skews` maps each clocked source to its
    estimated offset in ms (positive = that source's clock runs ahead of the reference);
    `anchors` how many shared moments backed each estimate; `sessions` maps a session id
    to the traces it touches.
    """

    events: pd.DataFrame
    calls: tuple[CallView, ...]
    skews: dict[str, float]
    sessions: dict[str, tuple[str, ...]]
    anchors: dict[str, int] = field(default_factory=dict)
    reference: str | None = None
    corrected: bool = True
    #: ids seen in several conversations (`align.scope.AmbiguousId`, rows of `events`)
    ambiguous: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class TraceBlock:
    """One trace of a timeline report: its events in time order and its calls."""

    trace: str
    session_ids: tuple[str, ...]
    trace_ids: tuple[str, ...]
    events: pd.DataFrame
    calls: tuple[CallView, ...]
    trouble: int


@dataclass(frozen=True, slots=True)
class TimelineReport:
    """What `toolcall timeline` renders: the selected traces plus the skew estimate."""

    traces: tuple[TraceBlock, ...]
    skews: dict[str, float]
    anchors: dict[str, int]
    reference: str | None
    corrected: bool
    total: int  # traces matching the selection before --limit
    # the run's settings, for the HTML header's fingerprint (not part of the JSON output)
    config: Any = field(default=None, compare=False, repr=False)
