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
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

import pandas as pd

from toolcall_cli.model.cells import attrs_of, text
from toolcall_cli.model.events import (
    CONVERSATION_SOURCES,
    EXCHANGE_SOURCES,
    INFRA_CALL_KINDS,
    TRAITS,
)
from toolcall_cli.replay.base import ResultEvidence, ToolCall
from toolcall_cli.replay.evidence import integer, request_of, response_of, split_kinds
from toolcall_cli.tools.builtins import free_text_reason

#: Which source's copy of a call is kept when several recorded it (lower first).
_AUTHORITY: Final = {name: traits.call_authority for name, traits in TRAITS.items()}


@dataclass(slots=True)
class _Draft:
    row: Any
    attrs: dict[str, Any]
    from_messages: bool


def extract_calls(scope: pd.DataFrame) -> list[ToolCall]:
    """Every tool call in *scope*, in replay order (by session, then clock, then message order)."""
    return calls_from_records(call_records(scope))


def call_records(events: pd.DataFrame) -> list[Any]:
    """The rows of *events* as the records `calls_from_records` reads (its clock `t_`,
    authority rank `rank_` and `aborted_`: the user aborted the call's turn), in frame order.
    The records of a subset of the rows are the subset of the records: a batch replay
    (`replay.batch`) builds them once."""
    from toolcall_cli.align.aborted import aborted_rows

    tcol = "ts_corrected" if "ts_corrected" in events.columns else "ts"
    # a source without traits ranks after every declared one (the trait's default is 9)
    ev = events.assign(
        t_=events[tcol],
        rank_=events["source"].astype(object).map(_AUTHORITY).fillna(9),
        aborted_=events.index.isin(list(aborted_rows(events))),
    )
    return list(ev.itertuples(index=False))


def calls_from_records(records: Sequence[Any]) -> list[ToolCall]:
    """Every tool call of the records of one scope (`call_records`), in replay order."""
    by_id: dict[str, list[Any]] = defaultdict(list)
    for row in records:
        if text(row.tool_call_id):
            by_id[str(row.tool_call_id)].append(row)
    drafts = _drafts(records, by_id)
    wire = any(r.source in EXCHANGE_SOURCES for r in records)
    results = _pair_results(records, drafts)
    last = _last_messages(records)
    ranks = _dup_ranks(drafts)
    calls = [
        _build(
            d, by_id.get(text(d.row.tool_call_id) or "", []), results.get(i), wire, last, ranks[i]
        )
        for i, d in enumerate(drafts)
    ]
    return _order(calls)


def _by_authority(records: Iterable[Any]) -> list[Any]:
    """*records* by source authority, then position in the source (a stable sort)."""
    return sorted(records, key=lambda r: (r.rank_, r.seq))


def _dup_ranks(drafts: list[_Draft]) -> list[int | None]:
    """For calls sharing an id: 0 for the first, 1, 2... for later ones; None when unshared."""
    ids = [text(d.row.tool_call_id) or "" for d in drafts]
    counts = Counter(ids)
    seen: dict[str, int] = {}
    out: list[int | None] = []
    for cid in ids:
        shared = bool(cid) and counts[cid] > 1
        out.append(seen.get(cid, 0) if shared else None)
        seen[cid] = seen.get(cid, 0) + 1
    return out


def _last_messages(records: Sequence[Any]) -> dict[str, tuple[int, int]]:
    """Per session: the highest message index, and the highest seq of a non-call message."""
    out: dict[str, tuple[int, int]] = {}
    for row in (r for r in records if r.source in CONVERSATION_SOURCES):
        idx = integer(attrs_of(row.attrs).get("msg_index"))
        seq = integer(row.seq) or 0 if row.kind != "tool_call" else -1
        prev = out.get(text(row.session_id) or "", (-1, -1))
        out[text(row.session_id) or ""] = (
            max(prev[0], idx if idx is not None else -1),
            max(prev[1], seq),
        )
    return out


def _drafts(records: Sequence[Any], by_id: dict[str, list[Any]]) -> list[_Draft]:
    out: list[_Draft] = []
    seen: set[tuple[str, str | None, str | None]] = set()
    for row in _by_authority(r for r in records if r.kind == "tool_call"):
        cid = text(row.tool_call_id) or ""
        key = (cid, text(row.tool), text(row.args))
        if cid and key in seen:
            continue
        seen.add(key)
        out.append(_Draft(row, attrs_of(row.attrs), str(row.source) in CONVERSATION_SOURCES))
    have = {text(d.row.tool_call_id) for d in out}
    for cid, rows in by_id.items():
        if cid in have:
            continue
        wire_rows = [r for r in rows if r.kind in INFRA_CALL_KINDS]
        if wire_rows:
            best = sorted(
                wire_rows,
                key=lambda r: (text(r.args) is None, INFRA_CALL_KINDS.index(r.kind)),
            )
            out.append(_Draft(best[0], attrs_of(best[0].attrs), False))
    return out


def _pair_results(records: Sequence[Any], drafts: list[_Draft]) -> dict[int, ResultEvidence]:
    """Results by call: matched on id; id-less or stray results paired by position."""
    ids = {text(d.row.tool_call_id) for d in drafts if text(d.row.tool_call_id)}
    out: dict[int, ResultEvidence] = {}
    by_id: dict[str, ResultEvidence] = {}
    strays: list[Any] = []
    for row in _by_authority(r for r in records if r.kind == "tool_result"):
        cid = text(row.tool_call_id)
        ev_ = ResultEvidence(str(row.origin), cid, attrs_of(row.attrs).get("follows_call"))
        if cid and cid in ids:
            by_id.setdefault(cid, ev_)
        elif row.source in CONVERSATION_SOURCES:
            strays.append((row, ev_))
    for i, d in enumerate(drafts):
        cid = text(d.row.tool_call_id)
        if cid and cid in by_id:
            out[i] = by_id[cid]
    for row, ev_ in strays:  # the first earlier call of the same conversation without a result
        for i, d in enumerate(drafts):
            if (
                i not in out
                and d.from_messages
                and text(d.row.session_id) == text(row.session_id)
                and int(d.row.seq) < int(row.seq)
            ):
                out[i] = ev_
                break
    return out


def _build(
    d: _Draft,
    rows: list[Any],
    result: ResultEvidence | None,
    wire: bool,
    last: dict[str, tuple[int, int]],
    rank: int | None,
) -> ToolCall:
    row = d.row
    kinds = split_kinds({str(r.kind) for r in rows} | {str(row.kind)}, rank)
    later_dup = rank is not None and rank > 0
    resp, answer = (None, None) if later_dup else response_of(rows)
    times = [r.t_ for r in rows if text(r.t_) is not None]
    if text(row.t_) is not None:
        times.append(row.t_)
    now = min(times) if times else None
    later = False
    if d.from_messages:  # did the conversation go on after this call's assistant message?
        max_idx, max_seq = last.get(text(row.session_id) or "", (-1, -1))
        idx = integer(d.attrs.get("msg_index"))
        later = max_idx > idx if idx is not None and max_idx >= 0 else max_seq > int(row.seq)
    recorded_args = text(row.args) is not None or row.kind == "tool_call"
    tool = text(row.tool) or next((text(r.tool) for r in rows if text(r.tool)), None)
    return ToolCall(
        tool_call_id=text(row.tool_call_id) or "",
        tool=tool,
        args=text(row.args),
        origin=str(row.origin),
        source=str(row.source),
        session_id=text(row.session_id)
        or next((text(r.session_id) for r in rows if text(r.session_id)), None),
        trace_id=text(row.trace_id)
        or next((text(r.trace_id) for r in rows if text(r.trace_id)), None),
        turn=integer(d.attrs.get("turn", d.attrs.get("msg_index"))) if d.from_messages else None,
        clock=float(now.value) / 1e9 if now is not None else 0.0,
        clock_kind="events" if now is not None else "synthetic",
        now=now,
        protocol=text(d.attrs.get("protocol")),
        args_type=text(d.attrs.get("args_type")) if recorded_args else "unrecorded",
        request=None if later_dup else request_of(rows, answer),
        response=resp,
        result=None if later_dup else result,
        kinds=frozenset(kinds),
        wire_in_scope=wire,
        later_messages=later,
        user_aborted=bool(row.aborted_),
        id_recorded=text(row.tool_call_id) is not None,
        free_text=free_text_reason(d.attrs, tool, text(row.args)),
    )


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
        out.extend(replace(calls[idx[k]], clock=clocks[k]) for k in ranked)
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
