"""The event table (DESIGN §3): one schema, defined once, used by every adapter and analysis.

Every adapter returns a DataFrame built with :func:`build_frame` and checked with
:func:`validate_frame`; the store is this table as Parquet.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import numpy as np
import pandas as pd

from toolcall_cli.errors import InternalError

#: Bumped whenever a column is added, removed or changes meaning (stored in the store manifest).
EVENTS_SCHEMA_VERSION: Final = 1

STR: Final = pd.StringDtype("pyarrow")
TS: Final = pd.DatetimeTZDtype(unit="ns", tz="UTC")

#: column → dtype, in table order.
COLUMNS: Final[dict[str, Any]] = {
    "ts": TS,
    "seq": "int64",
    "source": STR,
    "origin": STR,
    "kind": STR,
    "session_id": STR,
    "trace_id": STR,
    "tool_call_id": STR,
    "request_id": STR,
    "tool": STR,
    "args": STR,
    "status": STR,
    "http_status": "Int64",
    "duration_ms": "float64",
    "size": "Int64",
    "instance": STR,
    "client": STR,
    "detail": STR,
    "attrs": STR,  # a JSON object as text ("" or null when empty)
}

SOURCES: Final = ("messages", "middleware", "nginx", "pcap")

KINDS: Final[dict[str, tuple[str, ...]]] = {
    "messages": ("user", "system", "assistant_text", "tool_call", "tool_result"),
    "middleware": (
        "mw_received",
        "mw_rejected",
        "mw_flooded",
        "mw_request",
        "mw_response",
        "mw_dropped",
        "mw_injected",
        "mw_timeout",
        "mw_other",
    ),
    "nginx": ("http_access",),
    "pcap": ("http_request", "http_response"),
}

#: A record no format could parse. Kept in the table (detail = the raw text, attrs.reason) so
#: that IN001 can count and quote it from the store; never silently dropped.
UNPARSED: Final = "unparsed"

ALL_KINDS: Final = frozenset(k for ks in KINDS.values() for k in ks) | {UNPARSED}


def empty_frame() -> pd.DataFrame:
    """An empty event table with the right columns and dtypes."""
    return pd.DataFrame({c: pd.Series([], dtype=d) for c, d in COLUMNS.items()})


def build_frame(
    columns: Mapping[str, Sequence[Any] | np.ndarray | pd.Series], *, n: int | None = None
) -> pd.DataFrame:
    """Build an event table from column arrays; absent columns become null, dtypes are enforced.

    `ts` accepts datetimes, ISO strings or pandas Timestamps; naive values are taken as UTC
    (adapters localise with the user's `--tz` before calling this).
    """
    unknown = set(columns) - set(COLUMNS)
    if unknown:
        raise InternalError(f"unknown event columns: {sorted(unknown)}")
    if n is None:
        lengths = {len(v) for v in columns.values()}
        if len(lengths) > 1:
            raise InternalError(f"event columns differ in length: {sorted(lengths)}")
        n = lengths.pop() if lengths else 0
    data: dict[str, pd.Series] = {}
    for name, dtype in COLUMNS.items():
        values = columns.get(name)
        if values is None:
            data[name] = (
                pd.Series(pd.array([None] * n, dtype=dtype)) if n else pd.Series([], dtype=dtype)
            )
            continue
        if name == "ts":
            data[name] = _to_utc(values)
        else:
            data[name] = (
                pd.Series(values).astype(dtype) if len(values) else pd.Series([], dtype=dtype)
            )
    frame = pd.DataFrame(data)
    frame.index = pd.RangeIndex(len(frame))
    return frame


def _to_utc(values: Sequence[Any] | np.ndarray | pd.Series) -> pd.Series:
    ser = pd.Series(values)
    if isinstance(ser.dtype, pd.DatetimeTZDtype):
        return ser.dt.tz_convert("UTC").astype(TS)
    conv = pd.to_datetime(ser, utc=True, errors="coerce", format="mixed") if len(ser) else ser
    return pd.Series(conv).astype(TS)


def validate_frame(df: pd.DataFrame) -> pd.DataFrame:
    """Check that *df* is an event table; a failure is a bug in the producer (exit 70)."""
    if list(df.columns) != list(COLUMNS):
        raise InternalError(f"event table columns are {list(df.columns)}, expected {list(COLUMNS)}")
    for name, dtype in COLUMNS.items():
        if df[name].dtype != pd.api.types.pandas_dtype(dtype):
            raise InternalError(
                f"event column {name!r} has dtype {df[name].dtype}, expected {dtype}"
            )
    bad_sources = set(df["source"].dropna().unique()) - set(SOURCES)
    if bad_sources:
        raise InternalError(f"unknown event sources: {sorted(bad_sources)}")
    bad_kinds = set(df["kind"].dropna().unique()) - ALL_KINDS
    if bad_kinds:
        raise InternalError(f"unknown event kinds: {sorted(bad_kinds)}")
    if df["source"].isna().any() or df["kind"].isna().any() or df["origin"].isna().any():
        raise InternalError("event rows must have source, kind and origin")
    return df


def concat_frames(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Concatenate event tables, keeping the schema (an empty list gives an empty table)."""
    frames = [f for f in frames if len(f)]
    if not frames:
        return empty_frame()
    out = pd.concat(frames, ignore_index=True)
    return out.astype(COLUMNS)


def sort_events(df: pd.DataFrame) -> pd.DataFrame:
    """Deterministic order: time (nulls last), then source, origin and position."""
    return df.sort_values(["ts", "source", "seq"], kind="stable", na_position="last").reset_index(
        drop=True
    )
