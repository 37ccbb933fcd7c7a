"""Per-call outcome and phase latencies (DESIGN §3) against the SLA.

Phases: initiation (call received → request sent), tool service (request → response),
injection (response → result injected) and end to end (the chat request that carried the call,
from its start to its completion; without one, the call's first to last clocked event).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from toolcall_cli.align.keys import attr
from toolcall_cli.align.model import PHASES, CallView
from toolcall_cli.core.config import Sla

#: Kinds that show a call exists (a lone tool_result or injection is an orphan, not a call).
CALL_KINDS = frozenset(
    {
        "tool_call",
        "mw_received",
        "mw_rejected",
        "mw_flooded",
        "mw_request",
        "mw_response",
        "mw_dropped",
        "mw_timeout",
        "http_request",
        "http_response",
        "http_access",
    }
)
#: Outcome from the kinds a call shows, first match wins.
_OUTCOME_KINDS = (
    ("rejected", "mw_rejected"),
    ("flooded", "mw_flooded"),
    ("timeout", "mw_timeout"),
    ("dropped", "mw_dropped"),
    ("result", "tool_result"),
    ("result", "mw_injected"),
)
_SLACK = pd.Timedelta(seconds=1)
_SEP = "\x1f"
_CHAT = r"/chat/completions|/v1/messages|/v1/responses|/api/chat|/generateContent"

#: Each phase boundary: the kinds that mark it, best first.
_BOUNDS = {
    "received": ("mw_received", "tool_call"),
    "request": ("mw_request", "http_request", "nginx_start"),
    "response": ("mw_response", "http_response", "http_access"),
    "injected": ("mw_injected", "tool_result"),
}


def outcome_of(kinds: set[str]) -> str:
    """The outcome a call with these event kinds had."""
    for outcome, kind in _OUTCOME_KINDS:
        if kind in kinds:
            return outcome
    return "missing"


def _bounds(ev: pd.DataFrame) -> pd.DataFrame:
    """Per call the time of each phase boundary (clocked, non-message events only)."""
    clk = ev[ev["ts_corrected"].notna() & (ev["source"] != "messages")]
    dtype = ev["ts_corrected"].dtype
    if clk.empty:
        cols = {b: pd.Series([], dtype=dtype) for b in (*_BOUNDS, "min", "max")}
        return pd.DataFrame({**cols, "count": pd.Series([], dtype="int64")})
    t = clk[["call", "kind", "ts_corrected"]]
    ng = clk[clk["kind"] == "http_access"]
    start = ng["ts_corrected"] - pd.to_timedelta(
        ng["duration_ms"].fillna(np.nan).to_numpy(), unit="ms"
    )
    t = pd.concat(
        [t, pd.DataFrame({"call": ng["call"], "kind": "nginx_start", "ts_corrected": start})]
    )
    piv = t.groupby(["call", "kind"], observed=True)["ts_corrected"].min().unstack("kind")
    out = pd.DataFrame(index=piv.index)
    for bound, kinds in _BOUNDS.items():
        col = pd.Series(pd.NaT, index=piv.index, dtype=dtype)
        for k in reversed(kinds):
            if k in piv:
                col = piv[k].where(piv[k].notna(), col)
        out[bound] = col
    span = clk.groupby("call", observed=True)["ts_corrected"].agg(["min", "max", "count"])
    return out.join(span, how="outer")


def _chat_spans(events: pd.DataFrame, pairs: pd.Series) -> pd.DataFrame:
    """(trace, start, end) of every chat request seen by nginx or on the wire."""
    http = events["kind"].isin(["http_access", "http_request"]) & events["ts_corrected"].notna()
    sub = events[http]
    target = (
        sub["detail"].fillna("")
        + " "
        + attr(sub, "uri").fillna("")
        + " "
        + attr(sub, "path").fillna("")
    )
    chat = pd.Series(False, index=events.index)
    chat[sub.index] = target.str.contains(_CHAT, regex=True).fillna(False).astype(bool)
    ng = events[chat & (events["kind"] == "http_access")]
    spans = [
        pd.DataFrame(
            {
                "trace": ng["trace"],
                "end": ng["ts_corrected"],
                "start": ng["ts_corrected"]
                - pd.to_timedelta(ng["duration_ms"].fillna(0).to_numpy(), unit="ms"),
            }
        )
    ]
    req = events[chat & (events["kind"] == "http_request") & pairs.notna()]
    resp = events[(events["kind"] == "http_response") & pairs.notna()]
    if len(req) and len(resp):
        r_end = pd.Series(resp["ts_corrected"].to_numpy(), index=pairs[resp.index].to_numpy())
        r_end = r_end[~r_end.index.duplicated()]
        spans.append(
            pd.DataFrame(
                {
                    "trace": req["trace"],
                    "start": req["ts_corrected"],
                    "end": pairs[req.index].map(r_end),
                }
            )
        )
    out = pd.concat(spans, ignore_index=True)
    return out[out["trace"].notna() & out["end"].notna()]


def _ms(a: pd.Series, b: pd.Series) -> pd.Series:
    return ((a - b).dt.total_seconds() * 1000.0).round(3)


def _outcomes(ev: pd.DataFrame) -> pd.Series:
    has = ev.groupby(["call", "kind"], observed=True).size().unstack("kind", fill_value=0) > 0
    conds = [has[k] if k in has else pd.Series(False, index=has.index) for _, k in _OUTCOME_KINDS]
    return pd.Series(
        np.select(conds, [o for o, _ in _OUTCOME_KINDS], default="missing"), index=has.index
    )


def _end_to_end(table: pd.DataFrame, spans: pd.DataFrame) -> pd.Series:
    """The chat request around each call (its duration), else the call's first → last event."""
    first = table["received"].fillna(table["min"])
    fallback = _ms(table["max"], table["min"]).where(table["count"] >= 2)
    if spans.empty:
        return fallback
    cand = pd.DataFrame(
        {"call": table.index, "trace": table["trace"].to_numpy(), "first": first.to_numpy()}
    )
    m = cand.merge(spans, on="trace")
    # nginx logs a request when it completes (time = end); a log stamped at the start instead
    # still names the same request, as a second choice. An access log's second-resolution
    # time may fall just before the call's events, hence the slack.
    dur = m["end"] - m["start"]
    as_end = (m["start"] <= m["first"]) & (m["end"] + _SLACK >= m["first"])
    as_start = (m["end"] - _SLACK <= m["first"]) & (m["end"] + dur + _SLACK >= m["first"])
    m = m.assign(pref=np.where(as_end, 0, 1))[as_end | as_start]
    m = (
        m.sort_values(["call", "pref", "start"], ascending=[True, False, True], kind="stable")
        .drop_duplicates("call", keep="last")
        .set_index("call")
    )
    chat = _ms(m["end"], m["start"]).reindex(table.index)
    return chat.fillna(fallback)


def call_views(events: pd.DataFrame, pairs: pd.Series, sla: Sla) -> tuple[CallView, ...]:
    """One CallView per call: every non-empty tool_call_id that a call-side event carries,
    and every `tool_call` whose id is empty."""
    ev = events[events["call"].notna()]
    # One id in two traces (reused by another conversation) is two calls.
    ev = ev.assign(call=ev["call"] + _SEP + ev["trace"].fillna(""))
    call_side = ev["kind"].isin(list(CALL_KINDS))
    ev = ev[call_side.groupby(ev["call"], observed=True).transform("any").astype(bool)]
    ids = pd.Index(ev["call"].unique())
    views: list[CallView] = []
    if len(ev):
        table = _call_table(ev, ids)
        table["initiation_ms"] = _ms(table["request"], table["received"])
        table["service_ms"] = _ms(table["response"], table["request"])
        table["injection_ms"] = _ms(table["injected"], table["response"])
        table["end_to_end_ms"] = _end_to_end(table, _chat_spans(events, pairs))
        limits = {
            "initiation_ms": sla.initiation_ms,
            "service_ms": sla.service_ms,
            "injection_ms": sla.injection_ms,
            "end_to_end_ms": sla.end_to_end_ms,
        }
        over = pd.DataFrame({p: table[p] > limits[p] for p in PHASES}).to_numpy()
        # Column-wise to plain Python lists: per-row pandas access is far too slow here.
        strs = {c: _strs(table[c]) for c in ("tool", "trace", "session_id", "outcome", "origin")}
        nums = {
            p: [None if v != v else v for v in table[p].to_numpy(float).tolist()] for p in PHASES
        }
        starts = [None if pd.isna(t) else t for t in table["min"].tolist()]
        for k, cid in enumerate(table.index.tolist()):
            views.append(
                CallView(
                    tool_call_id=str(cid).split(_SEP, 1)[0],
                    tool=strs["tool"][k],
                    trace=strs["trace"][k],
                    session_id=strs["session_id"][k],
                    outcome=strs["outcome"][k] or "missing",
                    phases={p: nums[p][k] for p in PHASES},
                    breaches=tuple(p for n, p in enumerate(PHASES) if over[k, n]),
                    origin=strs["origin"][k],
                    start=starts[k],
                )
            )
    views.extend(_empty_id_calls(events))
    far = pd.Timestamp.max.tz_localize("UTC")
    return tuple(
        sorted(
            views, key=lambda v: (v.start is None, v.start or far, v.trace or "", v.origin or "")
        )
    )


def _call_table(ev: pd.DataFrame, ids: pd.Index) -> pd.DataFrame:
    """Per call: boundaries, span, outcome, and the tool/trace/session/origin of its first event."""
    order = ev.assign(_tc=(ev["kind"] != "tool_call").astype(int)).sort_values(
        ["call", "_tc", "ts_corrected", "seq"], kind="stable", na_position="last"
    )
    first = order.drop_duplicates("call").set_index("call")
    table = _bounds(ev).reindex(ids)
    table["trace"] = first["trace"]
    table["origin"] = first["origin"]
    table["tool"] = ev[ev["tool"].notna()].drop_duplicates("call").set_index("call")["tool"]
    table["session_id"] = (
        ev[ev["session_id"].notna()].drop_duplicates("call").set_index("call")["session_id"]
    )
    table["outcome"] = _outcomes(ev)
    return table


def _empty_id_calls(events: pd.DataFrame) -> list[CallView]:
    """Tool calls sent with an empty id: each is its own call, and nothing can answer it."""
    tc = events["tool_call_id"]
    rows = events[(events["kind"] == "tool_call") & tc.notna() & (tc.str.strip() == "")]
    return [
        CallView(
            tool_call_id="",
            tool=_opt(r.tool),
            trace=_opt(r.trace),
            session_id=_opt(r.session_id),
            outcome="missing",
            phases=dict.fromkeys(PHASES),
            origin=str(r.origin),
            start=_ts(r.ts_corrected),
        )
        for r in rows.itertuples()
    ]


def _opt(v: object) -> str | None:
    return None if v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v)) else str(v)


def _ts(v: object) -> pd.Timestamp | None:
    return v if isinstance(v, pd.Timestamp) and not pd.isna(v) else None


def _strs(col: pd.Series) -> list[str | None]:
    return [
        None if v is None or v is pd.NA or v != v else str(v) for v in col.astype(object).tolist()
    ]
