"""Reading only what a selection needs from the store.

A selector (`--trace-id`, `--session-id`, `--tool-call-id`) is pushed down to Parquet as a
filter; the keys of the rows found are then followed (trace ids, call ids, request ids) until
nothing new turns up, so the connected group is complete without reading the whole store.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from toolcall_cli.align.select import hint
from toolcall_cli.core.events import COLUMNS, concat_frames
from toolcall_cli.core.store import load_events, read_manifest
from toolcall_cli.errors import InputError, UsageError

#: Rounds of key expansion before giving up on finding more (chains longer than this are rare).
MAX_ROUNDS = 6
_LINKS = ("trace_id", "tool_call_id", "request_id")


def _files(store: Path) -> list[Path]:
    manifest = read_manifest(store)
    if not manifest["files"]:
        raise InputError(
            f"the store {store} is empty", hint="run `toolcall ingest PATH...` first, or pass PATHs"
        )
    return [store / "events" / f"{k}.parquet" for k in sorted(manifest["files"])]


def _read(files: list[Path], expr: pc.Expression) -> pd.DataFrame:
    frames = []
    for pf in files:
        try:
            table = pq.read_table(pf, filters=expr)
        except (OSError, pa.ArrowInvalid) as e:
            raise InputError(
                f"store file {pf} is unreadable: {e}", hint="re-ingest its input"
            ) from None
        if table.num_rows:
            frames.append(table.to_pandas().astype(COLUMNS))
    return concat_frames(frames)


def _keys(df: pd.DataFrame, col: str) -> set[str]:
    vals = df[col].dropna()
    return {str(v) for v in vals.unique() if str(v).strip()}


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
    files = _files(store)
    f = ds.field
    seeds: list[pc.Expression] = []
    if trace_id is not None:  # a trace may be named by a trace id, a call id or a session id
        seeds += [
            f("trace_id") == trace_id,
            f("tool_call_id") == trace_id,
            f("session_id") == trace_id,
        ]
    if session_id is not None:
        seeds.append(f("session_id") == session_id)
    if tool_call_id is not None:
        seeds.append(f("tool_call_id") == tool_call_id)
    expr = seeds[0]
    for s in seeds[1:]:
        expr = expr | s
    df = _read(files, expr)
    if df.empty:
        _no_match(files, trace_id=trace_id, session_id=session_id, tool_call_id=tool_call_id)
    seen: dict[str, set[str]] = {c: set() for c in _LINKS}
    for _ in range(MAX_ROUNDS):
        new = {c: _keys(df, c) - seen[c] for c in _LINKS}
        if not any(new.values()):
            break
        for c in _LINKS:
            seen[c] |= new[c]
        parts = [f(c).isin(sorted(v)) for c, v in new.items() if v]
        more = parts[0]
        for p in parts[1:]:
            more = more | p
        df = concat_frames([df, _read(files, more)]).drop_duplicates(
            ["origin", "source", "kind", "seq"]
        )
    return concat_frames([df, _pcap_responses(files, df)]).drop_duplicates(
        ["origin", "source", "kind", "seq"]
    )


def _no_match(
    files: list[Path], *, trace_id: str | None, session_id: str | None, tool_call_id: str | None
) -> None:
    """Raise the "no trace matches" usage error, with a few ids the store does know."""
    option, value, col, what = (
        ("--trace-id", trace_id, "trace_id", "trace ids")
        if trace_id is not None
        else ("--session-id", session_id, "session_id", "session ids")
        if session_id is not None
        else ("--tool-call-id", tool_call_id, "tool_call_id", "tool call ids")
    )
    known: set[str] = set()
    for pf in files:
        try:
            known |= {
                str(v)
                for v in pq.read_table(pf, columns=[col]).column(col).unique().to_pylist()
                if v
            }
        except (OSError, pa.ArrowInvalid):
            continue
    raise UsageError(f"no trace matches {option} {value}", hint=hint(sorted(known), what))


def _pcap_responses(files: list[Path], df: pd.DataFrame) -> pd.DataFrame:
    """Responses without ids in the captures the selection touched: they join their request by
    TCP stream during alignment."""
    caps = df.loc[(df["source"] == "pcap") & (df["kind"] == "http_request"), "origin"]
    names = sorted({str(o).rsplit("#frame=", 1)[0] for o in caps.dropna()})
    if not names:
        return df.iloc[0:0]
    f = ds.field
    base = (f("source") == "pcap") & (f("kind") == "http_response") & f("tool_call_id").is_null()
    starts = [pc.starts_with(f("origin"), f"{n}#frame=") for n in names]
    cond = starts[0]
    for s in starts[1:]:
        cond = cond | s
    return _read(files, base & cond)
