"""From the event table to the tool calls a replay walks, with each call's evidence and clock.

A call is a `tool_call` event (messages, or an LLM body in a pcap); the same call recorded
twice (a request that re-sends the history, or the pcap copy of a messages call: same id,
tool and arguments) counts once. An id seen only by the middleware or on the wire
(`mw_received`, `mw_rejected`, `mw_flooded`, `mw_request`, `http_request`) is a call too, with
the arguments the wire carried (or none recorded).

**The clock.** The rate limiter needs times; message events have none. A call takes the
earliest time of the events that share its `tool_call_id` (aligned `ts_corrected` when the
table went through `align`, else `ts`). A call with no such event gets a synthetic time from
the message order: every call of one assistant turn shares a time and turns are 1 s apart,
counted from the nearest call before it that has a real time (or back from the next one).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any, Final

import pandas as pd

from toolcall_cli.core.jsonio import try_loads
from toolcall_cli.pipeline.base import RequestEvidence, ResponseEvidence, ResultEvidence, ToolCall
from toolcall_cli.pipeline.response import to_ms

WIRE_CALL_KINDS: Final = ("mw_received", "mw_rejected", "mw_flooded", "mw_request", "http_request")
_SOURCE_RANK: Final = {"messages": 0, "pcap": 1, "middleware": 2, "nginx": 3}


def _s(v: Any) -> str | None:
    if v is None or (not isinstance(v, str) and bool(pd.isna(v))):
        return None
    return str(v)


def _attrs(v: Any) -> dict[str, Any]:
    d = try_loads(_s(v))
    return d if isinstance(d, dict) else {}


def _int(v: Any) -> int | None:
    return None if _s(v) is None else int(v)


@dataclass(slots=True)
class _Draft:
    row: Any
    attrs: dict[str, Any]
    from_messages: bool


def extract_calls(scope: pd.DataFrame) -> list[ToolCall]:
    """Every tool call in *scope*, in replay order (by session, then clock, then message order)."""
    ev = scope.reset_index(drop=True)
    tcol = "ts_corrected" if "ts_corrected" in ev.columns else "ts"
    ev = ev.assign(t_=ev[tcol], rank_=ev["source"].astype(object).map(_SOURCE_RANK).fillna(9))
    by_id: dict[str, list[Any]] = defaultdict(list)
    for row in ev.itertuples(index=False):
        if _s(row.tool_call_id):
            by_id[str(row.tool_call_id)].append(row)
    drafts = _drafts(ev, by_id)
    wire = bool(ev["source"].isin(["middleware", "pcap"]).any())
    results = _pair_results(ev, drafts)
    calls = [
        _build(d, by_id.get(_s(d.row.tool_call_id) or "", []), results.get(i), wire, ev)
        for i, d in enumerate(drafts)
    ]
    return _order(calls)


def _drafts(ev: pd.DataFrame, by_id: dict[str, list[Any]]) -> list[_Draft]:
    tc = ev[ev["kind"] == "tool_call"].sort_values(["rank_", "seq"], kind="stable")
    out: list[_Draft] = []
    seen: set[tuple[str, str | None, str | None]] = set()
    for row in tc.itertuples(index=False):
        cid = _s(row.tool_call_id) or ""
        key = (cid, _s(row.tool), _s(row.args))
        if cid and key in seen:
            continue
        seen.add(key)
        out.append(_Draft(row, _attrs(row.attrs), str(row.source) == "messages"))
    have = {_s(d.row.tool_call_id) for d in out}
    for cid, rows in by_id.items():
        if cid in have:
            continue
        wire_rows = [r for r in rows if r.kind in WIRE_CALL_KINDS]
        if wire_rows:
            best = sorted(
                wire_rows,
                key=lambda r: (r.args is None or r.args is pd.NA, WIRE_CALL_KINDS.index(r.kind)),
            )
            out.append(_Draft(best[0], _attrs(best[0].attrs), False))
    return out


def _pair_results(ev: pd.DataFrame, drafts: list[_Draft]) -> dict[int, ResultEvidence]:
    """Results by call: matched on id; id-less or stray results paired by position."""
    ids = {_s(d.row.tool_call_id) for d in drafts if _s(d.row.tool_call_id)}
    res = ev[(ev["kind"] == "tool_result")].sort_values(["rank_", "seq"], kind="stable")
    out: dict[int, ResultEvidence] = {}
    by_id: dict[str, ResultEvidence] = {}
    strays: list[Any] = []
    for row in res.itertuples(index=False):
        cid = _s(row.tool_call_id)
        ev_ = ResultEvidence(str(row.origin), cid, _attrs(row.attrs).get("follows_call"))
        if cid and cid in ids:
            by_id.setdefault(cid, ev_)
        elif row.source == "messages":
            strays.append((row, ev_))
    for i, d in enumerate(drafts):
        cid = _s(d.row.tool_call_id)
        if cid and cid in by_id:
            out[i] = by_id[cid]
    for row, ev_ in strays:  # the first earlier call of the same conversation without a result
        for i, d in enumerate(drafts):
            if (
                i not in out
                and d.from_messages
                and d.row.session_id == row.session_id
                and d.row.seq < row.seq
            ):
                out[i] = ev_
                break
    return out


def _build(
    d: _Draft, rows: list[Any], result: ResultEvidence | None, wire: bool, ev: pd.DataFrame
) -> ToolCall:
    row = d.row
    times = [r.t_ for r in rows if _s(r.t_) is not None]
    if _s(row.t_) is not None:
        times.append(row.t_)
    now = min(times) if times else None
    later = False
    if d.from_messages:
        same = ev[(ev["source"] == "messages") & (ev["seq"] > row.seq)]
        later = (
            bool((same["session_id"] == row.session_id).any())
            if _s(row.session_id)
            else len(same) > 0
        )
    recorded_args = _s(row.args) is not None or row.kind == "tool_call"
    return ToolCall(
        tool_call_id=_s(row.tool_call_id) or "",
        tool=_s(row.tool) or next((_s(r.tool) for r in rows if _s(r.tool)), None),
        args=_s(row.args),
        origin=str(row.origin),
        source=str(row.source),
        session_id=_s(row.session_id)
        or next((_s(r.session_id) for r in rows if _s(r.session_id)), None),
        trace_id=_s(row.trace_id) or next((_s(r.trace_id) for r in rows if _s(r.trace_id)), None),
        order=0,
        turn=_int(d.attrs.get("turn", d.attrs.get("msg_index"))) if d.from_messages else None,
        clock=float(now.value) / 1e9 if now is not None else 0.0,
        clock_kind="events" if now is not None else "synthetic",
        now=now,
        args_type=_s(d.attrs.get("args_type")) if recorded_args else "unrecorded",
        request=_request(rows),
        response=_response(rows),
        result=result,
        kinds=frozenset(
            {str(r.kind) for r in rows} | ({"tool_call"} if row.kind == "tool_call" else set())
        ),
        wire_in_scope=wire,
        later_messages=later,
    )


def _request(rows: list[Any]) -> RequestEvidence | None:
    for kind in ("http_request", "mw_request"):
        for r in rows:
            if r.kind == kind:
                ts = r.t_ if _s(r.t_) is not None else None
                xts = to_ms(_attrs(r.attrs).get("x_request_timestamp"))
                return RequestEvidence(
                    str(r.origin), float(ts.value) / 1e6 if ts is not None else None, xts
                )
    return None


def _response(rows: list[Any]) -> ResponseEvidence | None:
    dropped = next((_s(r.detail) or "dropped" for r in rows if r.kind == "mw_dropped"), None)
    for kind, source in (("http_response", "pcap"), ("mw_response", "middleware")):
        for r in rows:
            if r.kind != kind:
                continue
            a = _attrs(r.attrs)
            body = try_loads(_s(r.detail)) if kind == "http_response" else None
            return ResponseEvidence(
                origin=str(r.origin),
                source=source,
                status=_s(r.status) or _s(a.get("status")),
                call_id=_s(a.get("call_id")),
                has_call_id=source == "pcap" or "call_id" in a,
                timestamp_ms=to_ms(a.get("timestamp")),
                size=_int(r.size),
                data_empty=a.get("data_empty") if isinstance(a.get("data_empty"), bool) else None,
                http_status=_int(r.http_status),
                dropped_reason=dropped,
                body=body if isinstance(body, dict) else None,
            )
    if dropped is not None:
        origin = next(str(r.origin) for r in rows if r.kind == "mw_dropped")
        return ResponseEvidence(
            origin, "middleware", None, None, False, None, None, None, None, dropped
        )
    return None


def _order(calls: list[ToolCall]) -> list[ToolCall]:
    """Fill synthetic clocks per session, then sort by (session, clock, first appearance)."""
    by_sess: dict[str, list[int]] = defaultdict(list)
    for i, c in enumerate(calls):
        by_sess[c.session_id or ""].append(i)
    out: list[ToolCall] = []
    for sess in sorted(by_sess):
        idx = by_sess[sess]
        clocks = _fill_clocks([calls[i] for i in idx])
        ranked = sorted(range(len(idx)), key=lambda k: (clocks[k], k))
        for pos, k in enumerate(ranked):
            out.append(replace(calls[idx[k]], clock=clocks[k], order=pos))
    return out


def _fill_clocks(calls: list[ToolCall]) -> list[float]:
    steps = [0]
    for prev, cur in itertools.pairwise(calls):
        same = cur.turn is not None and cur.turn == prev.turn
        steps.append(steps[-1] + (0 if same else 1))
    known = [i for i, c in enumerate(calls) if c.clock_kind == "events"]
    out: list[float] = []
    for i, c in enumerate(calls):
        if c.clock_kind == "events":
            out.append(c.clock)
            continue
        before = [k for k in known if k < i]
        after = [k for k in known if k > i]
        if before:
            out.append(calls[before[-1]].clock + (steps[i] - steps[before[-1]]))
        elif after:
            out.append(calls[after[0]].clock - (steps[after[0]] - steps[i]))
        else:
            out.append(float(steps[i]))
    return out
