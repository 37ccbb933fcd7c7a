"""Reading only what a selection needs from the store.

The id columns of each store file are read first; the selector (`--trace-id`, `--session-id`,
`--tool-call-id`) is matched there and the keys of the rows found are followed (trace ids,
call ids, request ids) until nothing new turns up. Only then are whole rows read, with the
final filter pushed down to Parquet, so a store laid out in small row groups is pruned.
"""

from __future__ import annotations

from functools import reduce
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from toolcall_cli.align.select import hint
from toolcall_cli.core.events import COLUMNS, concat_frames
from toolcall_cli.core.store import load_events, read_file, read_manifest, row_groups_of
from toolcall_cli.errors import InputError, UsageError

#: Rounds of key expansion before giving up on finding more (chains longer than this are rare).
MAX_ROUNDS = 6
_LINKS = ("trace_id", "tool_call_id", "request_id")
_KEYS = ["source", "kind", "origin", "session_id", *_LINKS]


def _files(store: Path) -> list[Path]:
    manifest = read_manifest(store)
    if not manifest["files"]:
        raise InputError(
            f"the store {store} is empty", hint="run `toolcall ingest PATH...` first, or pass PATHs"
        )
    return [store / "events" / f"{k}.parquet" for k in sorted(manifest["files"])]


def _read(
    pf: Path, *, columns: list[str] | None = None, expr: pc.Expression | None = None
) -> pa.Table:
    return read_file(pf, columns=columns, filters=expr)  # drops the store's hidden `_row`


def _read_matching(pf: Path, keys: pa.Table, expr: pc.Expression) -> pa.Table:
    """Whole rows matching *expr*, reading only the row groups where the id columns (*keys*,
    read in storage order) matched: Parquet statistics cannot prune an `isin`/prefix filter."""
    pos = keys.append_column("_pos", pa.array(np.arange(keys.num_rows))).filter(expr)
    if not pos.num_rows:
        return keys.slice(0, 0)
    groups = row_groups_of(pf, pos.column("_pos").to_numpy())
    return read_file(pf, filters=expr, row_groups=groups)


def _row_groups(pf: Path) -> int:
    try:
        return int(pq.ParquetFile(pf).metadata.num_row_groups)
    except (OSError, pa.ArrowInvalid) as e:
        raise InputError(
            f"store file {pf} is unreadable: {e}", hint="re-ingest its input"
        ) from None


def _any(parts: list[pc.Expression]) -> pc.Expression:
    return reduce(lambda a, b: a | b, parts)


def _values(tables: list[pa.Table], expr: pc.Expression, col: str) -> set[str]:
    out: set[str] = set()
    for t in tables:
        vals = t.filter(expr).column(col).unique().to_pylist()
        out |= {str(v) for v in vals if v is not None and str(v).strip()}
    return out


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
    # A file of one row group cannot be pruned: read it whole, once, and filter in memory.
    # Otherwise read the id columns, and later only the row groups the filter keeps.
    whole = [_read(pf) if _row_groups(pf) <= 1 else None for pf in files]
    keys = [
        w if w is not None else _read(pf, columns=_KEYS) for w, pf in zip(whole, files, strict=True)
    ]
    f = ds.field
    seeds: list[pc.Expression] = []
    if trace_id is not None:  # a trace may be named by a trace id, a call id or a session id
        seeds += [f(c) == trace_id for c in ("trace_id", "tool_call_id", "session_id")]
    if session_id is not None:
        seeds.append(f("session_id") == session_id)
    if tool_call_id is not None:
        seeds.append(f("tool_call_id") == tool_call_id)
    expr = _any(seeds)
    if not any(t.filter(expr).num_rows for t in keys):
        _no_match(keys, trace_id=trace_id, session_id=session_id, tool_call_id=tool_call_id)
    seen: dict[str, set[str]] = {c: set() for c in _LINKS}
    for _ in range(MAX_ROUNDS):
        new = {c: _values(keys, expr, c) - seen[c] for c in _LINKS}
        if not any(new.values()):
            break
        for c in _LINKS:
            seen[c] |= new[c]
        expr = _any([expr, *(f(c).isin(sorted(v)) for c, v in new.items() if v)])
    expr = _with_pcap_responses(keys, expr)
    tables = [
        w.filter(expr) if w is not None else _read_matching(pf, k, expr)
        for w, k, pf in zip(whole, keys, files, strict=True)
    ]
    frames = [t.to_pandas().astype(COLUMNS) for t in tables if t.num_rows]
    return concat_frames(frames)


def _no_match(
    keys: list[pa.Table], *, trace_id: str | None, session_id: str | None, tool_call_id: str | None
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
    for t in keys:
        known |= {str(v) for v in t.column(col).unique().to_pylist() if v}
    raise UsageError(f"no trace matches {option} {value}", hint=hint(sorted(known), what))


def _with_pcap_responses(keys: list[pa.Table], expr: pc.Expression) -> pc.Expression:
    """Add the id-less responses of the captures the selection touched: they join their request
    by TCP stream during alignment."""
    f = ds.field
    req = expr & (f("source") == "pcap") & (f("kind") == "http_request")
    origins: set[str] = set()
    for t in keys:
        origins |= {str(o) for o in t.filter(req).column("origin").to_pylist() if o}
    names = sorted({o.rsplit("#frame=", 1)[0] for o in origins})
    if not names:
        return expr
    base = (f("source") == "pcap") & (f("kind") == "http_response") & f("tool_call_id").is_null()
    return expr | (base & _any([pc.starts_with(f("origin"), f"{n}#frame=") for n in names]))
