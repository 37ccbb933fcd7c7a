"""Alignment: correlate every source's events into traces, correct clock skew, derive calls.

`align(events) -> Timeline` (COMMON contract): the event table plus `trace`, `ts_corrected`
(and `call`, the call each event belongs to), one :class:`CallView` per call, the estimated
clock offset of each source and the traces of each session.
"""

from __future__ import annotations

import pandas as pd

from toolcall_cli.align import keys, phases, place, skew
from toolcall_cli.align.model import OUTCOMES, PHASES, CallView, Timeline
from toolcall_cli.core.config import DEFAULT, Config
from toolcall_cli.core.events import STR

__all__ = ["OUTCOMES", "PHASES", "CallView", "Timeline", "align"]

#: Tie-break inside one instant: a round trip's natural order.
_RANK = {
    k: i
    for i, k in enumerate(
        (
            "user",
            "system",
            "assistant_text",
            "tool_call",
            "mw_received",
            "mw_rejected",
            "mw_flooded",
            "http_request",
            "mw_request",
            "http_access",
            "http_response",
            "mw_response",
            "mw_timeout",
            "mw_dropped",
            "mw_injected",
            "tool_result",
            "mw_other",
            "unparsed",
        )
    )
}


def align(events: pd.DataFrame, *, cfg: Config = DEFAULT, skew_correction: bool = True) -> Timeline:
    """Correlate *events* into traces, estimate (and unless told not to, correct) clock skew,
    and derive each call's outcome and phase latencies against `cfg.sla`."""
    ev = events.reset_index(drop=True).copy()
    cols = keys.key_columns(ev)
    pairs = cols[-1]
    groups = keys.components(ev, cols)
    ev["trace"] = keys.trace_keys(ev, groups)
    ev["call"] = keys.call_keys(ev, pairs)
    est = skew.estimate(ev, ev["call"])
    ts = skew.correct(ev, est.offsets) if skew_correction else ev["ts"].copy()
    ts = skew.refine_coarse(ev, ev["call"], ts, skew.resolution(ev))
    ev["ts_corrected"] = place.place_messages(ev, ev["call"], ts)
    sort_t, bump = place.sort_times(ev, ev["ts_corrected"])
    rank = ev["kind"].astype(object).map(_RANK).fillna(99).astype(int)
    order = pd.DataFrame(
        {
            "t": sort_t,
            # unplaced messages: message order decides, not the kind
            "rank": rank.where((bump == 0) & sort_t.notna(), 1000 * bump),
            "source": ev["source"],
            "seq": ev["seq"],
        }
    )
    idx = order.sort_values(["t", "rank", "source", "seq"], kind="stable", na_position="last").index
    calls = phases.call_views(ev, pairs, cfg.sla)
    ev = ev.loc[idx].reset_index(drop=True)
    ev["trace"] = ev["trace"].astype(STR)
    return Timeline(
        events=ev,
        calls=calls,
        skews=est.offsets,
        sessions=_sessions(ev),
        anchors=est.anchors,
        reference=est.reference,
        corrected=skew_correction,
    )


def _sessions(ev: pd.DataFrame) -> dict[str, tuple[str, ...]]:
    both = ev[ev["session_id"].notna() & ev["trace"].notna() & (ev["session_id"] != "")]
    pairs = both[["session_id", "trace"]].astype(str).drop_duplicates()
    out: dict[str, list[str]] = {}
    for sid, trace in sorted(
        zip(pairs["session_id"].tolist(), pairs["trace"].tolist(), strict=True)
    ):
        out.setdefault(sid, []).append(trace)
    return {sid: tuple(traces) for sid, traces in out.items()}
