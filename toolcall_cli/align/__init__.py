"""Alignment: correlate every source's events into traces, correct clock skew, derive calls.

`align(events) -> Timeline` (COMMON contract): the event table plus `trace`, `ts_corrected`
(and `call`, the call each event belongs to), one :class:`CallView` per call, the estimated
clock offset of each source and the traces of each session.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute

from toolcall_cli.align import arrays, keys, phases, place, scope, skew
from toolcall_cli.align.model import OUTCOMES, PHASES, CallView, Timeline
from toolcall_cli.model.config import DEFAULT, Config
from toolcall_cli.model.events import STR

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


def align(
    events: pd.DataFrame,
    *,
    cfg: Config = DEFAULT,
    skew_correction: bool = True,
    skew_estimate: skew.SkewEstimate | None = None,
) -> Timeline:
    """Correlate *events* into traces, estimate (and unless told not to, correct) clock skew,
    and derive each call's outcome and phase latencies against `cfg.sla`.

    *skew_estimate*, when given, is used instead of estimating from *events*: the estimate of
    a whole store (`skew_facts` of every bucket, combined), so each bucket aligns as the
    store would in one piece."""
    raw = arrays.event_arrays(events)
    fields = arrays.attr_fields(raw.attrs, keys.LINK_ATTRS)
    pairs = keys.pcap_pairs(raw, fields["stream"])
    scoped = scope.scope_ids(raw)
    # from here on a call id is one (id, scope cluster): a reused id is several calls
    a = dataclasses.replace(raw, tool_call_id=scoped.codes)
    groups = keys.components(a, keys.link_codes(raw, fields, pairs, scoped))
    trace = scope.readable(keys.trace_keys(a, groups))
    calls = keys.call_codes(a, pairs)
    moments = skew.moment_rows(a, calls, a.tool_call_id.values)
    est = skew.estimate(a, moments) if skew_estimate is None else skew_estimate
    ts = skew.correct(a, est.offsets) if skew_correction else a.ts
    ts = skew.refine_coarse(a, moments, ts, est.resolution)
    ts = place.place_messages(a, calls, ts)
    sort_t, bump = place.sort_times(a, ts)
    rank = a.kind.lookup(_RANK, 99.0).astype(np.int64)
    # unplaced messages: message order decides, not the kind
    rank = np.where((bump == 0) & (sort_t != arrays.NAT), rank, 1000 * bump)
    unset = sort_t == arrays.NAT
    idx = np.lexsort(
        (
            np.arange(a.n),
            a.seq,
            a.source.ranks()[a.source.codes],
            rank,
            np.where(unset, 0, sort_t),
            unset,
        )
    )
    views = phases.call_views(events, a, calls, trace, ts, pairs, cfg.sla)
    ev = events.take(idx).reset_index(drop=True)
    ev["trace"] = pd.Series(pd.array(trace.text().take(pa.array(idx)), dtype=STR))
    ev["call"] = pd.Series(pd.array(scope.unscoped(a.tool_call_id.text(calls[idx])), dtype=STR))
    ev["ts_corrected"] = arrays.to_datetime(ts[idx])
    return Timeline(
        events=ev,
        calls=views,
        skews=est.offsets,
        sessions=_sessions(a, trace),
        anchors=est.anchors,
        reference=est.reference,
        corrected=skew_correction,
        ambiguous=scope.relabel(scoped.ambiguous, idx),
    )


def skew_facts(events: pd.DataFrame) -> skew.SkewFacts:
    """What *events* tell the clock-skew estimate (`skew.combine` adds parts up): the moments
    of their calls, keyed as `align` keys them. Reads `ts seq duration_ms source kind origin
    attrs` and the id columns; `attrs` only matters on wire rows (their TCP stream)."""
    raw = arrays.event_arrays(events)
    stream = arrays.attr_fields(raw.attrs, ("stream",))["stream"]
    pairs = keys.pcap_pairs(raw, stream)
    a = dataclasses.replace(raw, tool_call_id=scope.scope_ids(raw).codes)
    return skew.facts(a, skew.moment_rows(a, keys.call_codes(a, pairs), a.tool_call_id.values))


def _sessions(a: arrays.EventArrays, trace: arrays.Coded) -> dict[str, tuple[str, ...]]:
    """Per session id the traces it touches, both in text order."""
    s, t = a.session_id_raw, trace
    has = (s.codes >= 0) & (t.codes >= 0)
    nt = len(t.values)
    pair = pd.unique(s.codes[has] * nt + t.codes[has])  # hashing: no sort of every row
    sc, tc = pair // max(nt, 1), pair % max(nt, 1)
    order = np.lexsort((t.ranks()[tc], s.ranks()[sc]))
    sc, tc = sc[order], tc[order]
    names = s.values.take(pa.array(sc)).to_pylist()
    traces = t.values.take(pa.array(tc)).to_pylist()
    out: dict[str, list[str]] = {}
    for sid, tr in zip(names, traces, strict=True):
        out.setdefault(sid, []).append(tr)
    return {sid: tuple(trs) for sid, trs in out.items()}
