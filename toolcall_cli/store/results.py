"""The `findings` and `calls` tables: what each diagnose of the store concluded, kept beside
its events so `toolcall query` (or any Parquet reader) can ask across runs.

Paths and columns are store/layout.py's. Each run writes one file per bucket it has rows
for, named by the run id. A run is *what was diagnosed*: the same store contents (the inputs
and parts its manifest names), the same scope and selection (`--trace-id`, `--since`, ...,
`--select`, `--ignore`, `--tools`, `--no-skew`, redaction) and the same config fingerprint.
The run id is `<run_at>-<key>`, where `key` (8 hex digits) is the digest of those three, so a
diagnose that repeats one replaces that run's findings (the earlier files go once the new ones
are in place) and any other run adds its own: `findings` holds the latest findings of each
distinct question asked of each state of the store, told apart by `run_id`, `run_at` and
`config_fingerprint`. Calls are replaced by every run over the whole store.

A row's bucket is its trace's, looked up in the key map by its trace, call and session ids, so
a one-trace question reads one bucket; a finding with no id the map knows (IN001 counts, IN002
skew) goes to bucket 00.

Files are written under a temporary name and renamed, without the ingest's writer lock: an
ingest only sweeps `events/` and its own key map, so a diagnose may record its results while an
ingest runs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from toolcall_cli.model.atomic import atomic_write
from toolcall_cli.store.layout import bucket_dir, bucket_of_label, buckets_of

_LIST = pa.list_(pa.large_string())
_S = pa.large_string()
_RUN = [("run_id", _S), ("run_at", pa.timestamp("us", tz="UTC"))]
FINDINGS_SCHEMA = pa.schema(
    [
        *_RUN,
        ("config_fingerprint", _S),
        *((c, _S) for c in ("id", "code", "name", "severity", "message", "trace_id")),
        ("session_id", _S),
        ("tool_call_ids", _LIST),
        ("caused_by", _S),
        ("symptoms", _LIST),
        *((c, _S) for c in ("tool", "explanation", "fix", "evidence", "extra")),
    ]
)
_PHASES = ("initiation_ms", "service_ms", "injection_ms", "end_to_end_ms")
#: Who cancelled a `cancelled` call (`user`: aborted the turn; `client`: withdrew the call),
#: when, the evidence and the cancelling event's own words; null for every other call. Last in
#: the table, and absent from calls files written before them (store/query_tables.py fills them).
CANCEL_COLUMNS = (
    ("cancelled_by", _S),
    ("cancelled_at", pa.timestamp("ns", tz="UTC")),
    ("cancelled_origin", _S),
    ("cancelled_note", _S),
)
CALLS_SCHEMA = pa.schema(
    [
        *_RUN,
        *((c, _S) for c in ("trace_id", "session_id", "tool_call_id", "tool", "outcome")),
        *((p, pa.float64()) for p in _PHASES),
        ("breaches", _LIST),
        ("origin", _S),
        *CANCEL_COLUMNS,
    ]
)
_CALL_ROWS = pa.schema([f for f in CALLS_SCHEMA if f.name not in ("run_id", "run_at")])
_KNOWN = {f.name for f in FINDINGS_SCHEMA} | {"evidence", "extra"}


def config_fingerprint(cfg: object) -> str:
    """A short, stable digest of the effective configuration (its full repr)."""
    return hashlib.sha256(repr(cfg).encode()).hexdigest()[:16]


def run_key(manifest: dict[str, Any], selection: str, fingerprint: str) -> str:
    """The 8 hex digits naming what a diagnose of the store asked: the store's contents (the
    inputs and parts of its *manifest*), the *selection* (scope and selection flags, as text)
    and the config *fingerprint*."""
    contents = {k: manifest.get(k) for k in ("files", "parts", "buckets")}
    what = orjson.dumps([contents, selection, fingerprint], option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(what).hexdigest()[:8]


def _text(v: Any) -> str | None:
    return None if v is None else str(v)


def _finding_row(d: dict[str, Any]) -> dict[str, Any]:
    extra = {k: v for k, v in d.items() if k not in _KNOWN}
    extra.update(d.get("extra") or {})
    return {
        **{c: _text(d.get(c)) for c in ("id", "code", "name", "severity", "message")},
        "trace_id": _text(d.get("trace_id")),
        "session_id": _text(d.get("session_id")),
        "tool_call_ids": [str(x) for x in d.get("tool_call_ids") or ()],
        "caused_by": _text(d.get("caused_by")),
        "symptoms": [str(x) for x in d.get("symptoms") or ()],
        **{c: _text(d.get(c)) for c in ("tool", "explanation", "fix")},
        "evidence": orjson.dumps(d.get("evidence") or [], default=str).decode(),
        "extra": orjson.dumps(extra, default=str, option=orjson.OPT_SORT_KEYS).decode(),
    }


#: An id column as the findings and calls tables hold it.
_Ids: TypeAlias = pa.Array | pa.ChunkedArray


def _buckets(store: Path, n: int, trace: _Ids, call: _Ids, session: _Ids) -> np.ndarray:
    """Bucket of each row given by its trace, call and session id columns: the first id the
    key map knows."""
    out = np.zeros(len(trace), dtype=np.int64)
    path = store / "keys.parquet"
    if not len(trace) or not path.exists():
        return out
    keys = [_tagged(tag, col) for tag, col in zip("tcs", (trace, call, session), strict=True)]
    flat = pc.unique(pa.concat_arrays(keys)).drop_null()
    if not len(flat):
        return out
    try:
        table = pq.read_table(path, filters=pc.field("key").isin(flat))
    except (OSError, pa.ArrowException):  # a damaged key map: the next ingest says so
        return out
    known = table["key"].combine_chunks()
    labels = table["label"].combine_chunks().cast(pa.string())
    # the first of trace, call and session id the map knows names the row's component
    hit = pc.coalesce(*(labels.take(pc.index_in(k, value_set=known)) for k in keys))
    distinct = pc.unique(hit).drop_null()
    of_distinct = np.array([bucket_of_label(x, n) for x in distinct.to_pylist()], np.int64)
    found = pc.index_in(hit, value_set=distinct).to_numpy(zero_copy_only=False)
    valid = ~np.isnan(found)
    out[valid] = of_distinct[found[valid].astype(np.int64)]
    return out


def _tagged(tag: str, ids: _Ids) -> pa.Array:
    """`tag\x1fid` per id (the key map's key text), null where the id is missing or blank."""
    whole = ids.combine_chunks() if isinstance(ids, pa.ChunkedArray) else ids
    text = pc.utf8_trim_whitespace(whole.cast(pa.string()))
    text = pc.if_else(pc.equal(text, ""), pa.scalar(None, pa.string()), text)
    return pc.binary_join_element_wise(pa.scalar(f"{tag}\x1f"), text, "")


def _write(store: Path, table_name: str, run: str, table: pa.Table, buckets: np.ndarray) -> None:
    for b in sorted({int(x) for x in buckets}):
        sink = pa.BufferOutputStream()
        pq.write_table(table.filter(pa.array(buckets == b)), sink, compression="zstd")
        target = bucket_dir(store, table_name, b) / f"{run}.parquet"
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, sink.getvalue().to_pybytes())


#: The `calls` column of each CallView attribute (the phases come from its `phases` dict).
_CALL_ATTRS = (
    ("trace_id", "trace"),
    ("session_id", "session_id"),
    ("tool_call_id", "tool_call_id"),
    ("tool", "tool"),
    ("outcome", "outcome"),
    ("breaches", "breaches"),
    ("origin", "origin"),
    ("cancelled_by", "cancelled_by"),
    ("cancelled_at", "cancelled_ns"),
    ("cancelled_origin", "cancelled_origin"),
    ("cancelled_note", "cancelled_note"),
)


def calls_table(calls: Iterable[Any]) -> pa.Table:
    """The `calls` rows of *calls* (`align.model.CallView`), without the run columns: a bucket's
    calls are built where the bucket was diagnosed, and the run's tables are stacked. Built a
    column at a time: a dict per call costs several times the CPU."""
    views = list(calls)
    cols: dict[str, list[Any]] = {
        col: [getattr(c, attr) for c in views] for col, attr in _CALL_ATTRS
    }
    for p in _PHASES:
        cols[p] = [c.phases.get(p) for c in views]
    return pa.table({f.name: pa.array(cols[f.name], f.type) for f in _CALL_ROWS}, schema=_CALL_ROWS)


def record_run(
    store: Path,
    manifest: dict[str, Any],
    findings: Iterable[dict[str, Any]],
    calls: Iterable[Any] | pa.Table | None,
    *,
    fingerprint: str,
    selection: str = "",
    run_at: datetime | None = None,
) -> str:
    """Write one diagnose run's findings (their §6 dicts) and, when given, the calls it saw
    (`align.model.CallView`s, or their `calls_table`, with a `bucket` column when the run
    knows each call's bucket), replacing the findings of an earlier run of the same key
    (`run_key`); the run id."""
    at = run_at or datetime.now(UTC)
    key = run_key(manifest, selection, fingerprint)
    run = f"{at:%Y%m%dT%H%M%S}-{key}"
    n = buckets_of(manifest)
    rows = [_finding_row(d) for d in findings]
    base = {"run_id": run, "run_at": at}
    ftable = pa.Table.from_pylist(
        [{**base, "config_fingerprint": fingerprint, **r} for r in rows], schema=FINDINGS_SCHEMA
    )
    first_call = pa.array([(r["tool_call_ids"] or [None])[0] for r in rows], pa.string())
    fbuckets = _buckets(store, n, ftable["trace_id"], first_call, ftable["session_id"])
    _write(store, "findings", run, ftable, fbuckets)
    _drop_earlier(store, "findings", run, lambda stem: stem.endswith(f"-{key}"))
    if calls is None:
        return run
    ctable = calls if isinstance(calls, pa.Table) else calls_table(calls)
    known = None
    if "bucket" in ctable.column_names and ctable["bucket"].null_count == 0:
        known = ctable["bucket"].to_numpy()
    ctable = ctable.select(_CALL_ROWS.names).cast(_CALL_ROWS)
    ctable = pa.table(
        {
            "run_id": pa.array([run] * ctable.num_rows, _S),
            "run_at": pa.array([at] * ctable.num_rows, pa.timestamp("us", tz="UTC")),
            **{c: ctable[c] for c in _CALL_ROWS.names},
        },
        schema=CALLS_SCHEMA,
    )
    if known is None:  # a one-piece run, or a call without origin: buckets from the key map
        ids = (ctable[c] for c in ("trace_id", "tool_call_id", "session_id"))
        known = _buckets(store, n, *ids)
    _write(store, "calls", run, ctable, known)
    _drop_earlier(store, "calls", run, lambda stem: True)
    return run


def _drop_earlier(store: Path, table: str, run: str, same: Callable[[str], bool]) -> None:
    """Remove *table*'s files of the runs other than *run* that *same* picks (by file stem)."""
    for old in (store / table).glob("bucket=*/*.parquet"):
        if old.stem != run and same(old.stem):
            old.unlink(missing_ok=True)
