"""Resolved middleware fields → event-table rows (kinds, keys, times, attrs), column-wise."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.sources._shared.attrs_text import AttrFields, attrs_text
from toolcall_cli.sources._shared.logtime import parse_times
from toolcall_cli.sources._shared.textlog import (
    as_string,
    const_str,
    frame,
    null_if_dash,
    origins,
    to_str_series,
)
from toolcall_cli.sources.middleware.fields import Fields
from toolcall_cli.sources.middleware.phrases import classify

SOURCE = "middleware"
_CALL_ID_KINDS = ("mw_response", "mw_dropped")


def _text(arr: pa.Array) -> pd.Series:
    return to_str_series(null_if_dash(as_string(arr)))


def _int_col(arr: pa.Array | None, n: int) -> pd.arrays.IntegerArray:
    if arr is None:
        return pd.arrays.IntegerArray(np.zeros(n, "int64"), np.ones(n, bool))
    text = as_string(arr)
    ok = pc.match_substring_regex(text, r"^\s*\d{1,15}(?:\.0+)?\s*$").fill_null(False)
    clean = pc.if_else(ok, pc.utf8_trim_whitespace(text), pa.scalar(None, pa.large_string()))
    f = pc.cast(clean, pa.float64()).to_numpy(zero_copy_only=False).astype("float64")
    mask = ~np.isfinite(f)
    return pd.arrays.IntegerArray(np.where(mask, 0, f).astype("int64"), mask)


def build_rows(fields: Fields, *, line_no: pa.Array, path: Path, tz: str) -> pd.DataFrame:
    """Event rows for resolved *fields* (one per entry of *line_no*)."""
    columns, attr_fields = row_columns(fields, line_no=line_no, path=path, tz=tz)
    columns["attrs"] = to_str_series(attrs_text(attr_fields, fields.n))
    return frame(columns, fields.n)


def row_columns(
    fields: Fields, *, line_no: pa.Array, path: Path, tz: str
) -> tuple[dict[str, Any], AttrFields]:
    """Every event column but `attrs`, plus the members `attrs` is built from."""
    n = fields.n
    msg = fields.get("msg")
    event = fields.get("event")
    logged_tool = null_if_dash(as_string(fields.get("tool")))
    cl = classify(event, msg, has_tool=pc.is_valid(logged_tool))
    kind = cl.kind
    tool = pc.coalesce(logged_tool, cl.tool)
    reason = pc.coalesce(fields.get("reason"), cl.reason)
    rule = pc.coalesce(fields.get("rule"), cl.rule)
    # the id the tool service answered with: a logged `call_id` key, else the "got" of a mismatch
    call_id = cl.got if fields.call_id is None else pc.coalesce(fields.call_id, cl.got)
    keep = pc.is_in(kind, value_set=pa.array(_CALL_ID_KINDS, pa.large_string()))
    call_id = pc.if_else(keep, call_id, pa.scalar(None, pa.large_string()))
    tool_call_id = pc.coalesce(null_if_dash(as_string(fields.get("tool_call_id"))), cl.expected)
    attr_fields: AttrFields = [
        ("event", event, "str"),
        ("level", fields.get("level"), "str"),
        ("reason", reason, "str"),
        ("rule", rule, "str"),
        ("field", cl.field, "str"),
        ("expected", cl.expected, "str"),
        ("got", cl.got, "str"),
    ]
    attr_fields.append(("call_id", call_id, "str"))
    own = {name for name, _, _ in attr_fields}
    attr_fields.extend(x for x in fields.extras if x[0] not in own)
    duration = fields.columns.get("duration_ms")
    columns = {
        "ts": parse_times(fields.columns["ts"], tz) if "ts" in fields.columns else None,
        "seq": line_no.to_numpy(zero_copy_only=False),
        "source": const_str(SOURCE, n),
        "origin": to_str_series(origins(path, line_no)),
        "kind": to_str_series(kind),
        "session_id": _text(fields.get("session_id")),
        "trace_id": _text(fields.get("trace_id")),
        "tool_call_id": to_str_series(tool_call_id),
        "request_id": _text(fields.get("request_id")),
        "tool": to_str_series(tool),
        "args": to_str_series(as_string(fields.get("args"))),
        "status": _text(fields.get("status")),
        "http_status": _int_col(fields.columns.get("http_status"), n),
        "duration_ms": (
            duration.to_numpy(zero_copy_only=False).astype("float64")
            if duration is not None
            else np.full(n, np.nan)
        ),
        "size": _int_col(fields.columns.get("size"), n),
        "instance": _text(fields.get("instance")),
        "detail": to_str_series(pc.coalesce(as_string(msg), as_string(reason), as_string(event))),
    }
    if columns["ts"] is None:
        del columns["ts"]
    return columns, attr_fields
