"""Reading only what a selection needs from the store.

The selector (`--trace-id`, `--session-id`, `--tool-call-id`) is matched and the keys of the
rows found are followed (trace ids, call ids, request ids) until nothing new turns up; then
the rows matching the final filter are read whole.

Each store file is a `StorePart` (store/part.py): one with an id index is never scanned,
each round reads just the row groups holding the new ids, so a trace of a few dozen events
costs a few row groups however large the store; one without is scanned. Both paths find the
same rows: the index names every row group holding an id, and the rows are filtered alike by
a `Wanted` (store/wanted.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.align.select import HINT_IDS, hint_of
from toolcall_cli.errors import InputError, UsageError
from toolcall_cli.model.events import WIRE_SOURCES, concat_frames
from toolcall_cli.store.part import StorePart, parts_of
from toolcall_cli.store.read import input_order, load_events, tables_to_events, to_events
from toolcall_cli.store.wanted import FRAME, LINKS, Wanted, values_of

#: Rounds of key expansion before giving up on finding more (chains longer than this are rare).
MAX_ROUNDS = 6


@dataclass(frozen=True, slots=True)
class ReadStats:
    """What a selective read touched: the data files it opened, their row groups, the row
    groups it read whole, and the files whose id columns had to be scanned (no usable index)."""

    files: tuple[str, ...]
    row_groups: int
    row_groups_read: int
    scanned_files: int


def load_selected(
    store: Path,
    *,
    trace_id: str | None = None,
    session_id: str | None = None,
    tool_call_id: str | None = None,
) -> pd.DataFrame:
    """Events connected to the selected ids (all events when nothing is selected)."""
    if trace_id is None and session_id is None and tool_call_id is None:
        return load_events(store)
    return read_selected(
        store, trace_id=trace_id, session_id=session_id, tool_call_id=tool_call_id
    )[0]


def load_sessions(
    store: Path,
    *,
    trace_id: str | None = None,
    session_id: str | None = None,
    tool_call_id: str | None = None,
) -> pd.DataFrame:
    """The events connected to the selected ids through any key, session ids included: the
    whole sessions the selection touches (replay's rate limiter counts a session's earlier
    calls), read through the id index like one trace, not the whole of its bucket."""
    return _read_connected(store, trace_id, session_id, tool_call_id, (*LINKS, "session_id"))[0]


def read_selected(
    store: Path,
    *,
    trace_id: str | None = None,
    session_id: str | None = None,
    tool_call_id: str | None = None,
) -> tuple[pd.DataFrame, ReadStats]:
    """The events connected to the selected ids, and what reading them touched."""
    return _read_connected(store, trace_id, session_id, tool_call_id, LINKS)


def _read_connected(
    store: Path,
    trace_id: str | None,
    session_id: str | None,
    tool_call_id: str | None,
    links: tuple[str, ...],
) -> tuple[pd.DataFrame, ReadStats]:
    """The events connected to the selected ids through the key columns *links*."""
    first: dict[str, set[str]] = {c: set() for c in ("trace_id", "tool_call_id", "session_id")}
    if trace_id is not None:  # a trace may be named by a trace id, a call id or a session id
        for ids in first.values():
            ids.add(trace_id)
    if session_id is not None:
        first["session_id"].add(session_id)
    if tool_call_id is not None:
        first["tool_call_id"].add(tool_call_id)
    if not any(first.values()):
        raise UsageError("no selection: pass --trace-id, --session-id or --tool-call-id")
    want = Wanted({c: set(v) for c, v in first.items()}, set())
    parts = parts_of(store, first)
    for p in parts:
        p.fetch(first)
    matched = [p.matched(want) for p in parts]
    if not any(t.num_rows for t in matched):
        _no_match(parts, trace_id=trace_id, session_id=session_id, tool_call_id=tool_call_id)
    seen: dict[str, set[str]] = {c: set() for c in links}
    for _ in range(MAX_ROUNDS):
        new = {c: values_of(matched, c) - seen[c] for c in links}
        if not any(new.values()):
            break
        for c in links:
            seen[c] |= new[c]
            want.ids.setdefault(c, set()).update(new[c])
        for p in parts:
            p.fetch(new)
        matched = [p.matched(want) for p in parts]
    _with_pcap_responses(parts, matched, want)
    tables = [p.rows(want) for p in parts]
    stats = ReadStats(
        files=tuple(str(p.pf) for p in parts),
        row_groups=sum(p.groups for p in parts),
        row_groups_read=sum(len(p.read) for p in parts),
        scanned_files=sum(p.scanned for p in parts),
    )
    return _frame(tables), stats


def _frame(tables: list[pa.Table]) -> pd.DataFrame:
    """The rows of every file as one event table in input order (one conversion to pandas)."""
    tables = [t for t in tables if t.num_rows]
    try:
        return tables_to_events(tables, "the selected store files")
    except InputError:  # files written with differing column types
        where = "the selected store files"
        return concat_frames([to_events(input_order(t), where) for t in tables])


def _no_match(
    parts: list[StorePart],
    *,
    trace_id: str | None,
    session_id: str | None,
    tool_call_id: str | None,
) -> None:
    """Raise the "no trace matches" usage error, with a few ids the store does know."""
    option, value, col, what = (
        ("--trace-id", trace_id, "trace_id", "trace ids")
        if trace_id is not None
        else ("--session-id", session_id, "session_id", "session ids")
        if session_id is not None
        else ("--tool-call-id", tool_call_id, "tool_call_id", "tool call ids")
    )
    known = pc.unique(pa.concat_arrays([p.known(col) for p in parts]))
    first = known.take(pc.sort_indices(known)[:HINT_IDS]).to_pylist()
    raise UsageError(f"no trace matches {option} {value}", hint=hint_of(first, len(known), what))


def _with_pcap_responses(parts: list[StorePart], matched: list[pa.Table], want: Wanted) -> None:
    """Add the id-less responses of the captures the selection touched to *want*: they join
    their request by TCP stream during alignment."""
    origins: set[str] = set()
    for t in matched:
        wire = pc.is_in(t["source"], value_set=pa.array(WIRE_SOURCES, pa.large_string()))
        req = pc.fill_null(pc.and_(wire, pc.equal(t["kind"], "http_request")), False)
        origins |= {str(o) for o in t.filter(req).column("origin").to_pylist() if o}
    names = {o.rsplit(FRAME, 1)[0] for o in origins}
    if not names:
        return
    for p in parts:
        p.fetch_captures(names)
    want.captures |= names
