"""nginx variables (one pyarrow column per `$variable`) → `http_access` rows of the event table.

Every parser of the adapter (combined, compiled log_format, escape=json) ends here, so the
mapping of variables to columns is defined once.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.model.arrow import few_distinct
from toolcall_cli.model.events import UNPARSED
from toolcall_cli.sources._shared.attrs_text import attrs_text
from toolcall_cli.sources._shared.logtime import parse_times
from toolcall_cli.sources._shared.textlog import (
    MemberOrder,
    as_string,
    const_str,
    frame,
    lit,
    null_if_dash,
    origins,
    to_str_series,
    unparsed_detail,
)
from toolcall_cli.sources.nginx.time_local import clf_times

KIND = "http_access"

#: Rows from which build_events() uses a second thread.
_THREADED = 50_000

#: variable → event column (string columns taken as they are).
KEY_COLUMNS: dict[str, str] = {
    "http_x_trace_id": "trace_id",
    "http_x_session_id": "session_id",
    "request_id": "request_id",
    "http_x_request_id": "request_id",
    "http_x_tool_call_id": "tool_call_id",
    "remote_addr": "client",
}

#: variables that become named attrs (others keep their variable name).
ATTR_NAMES: dict[str, str] = {
    "http_referer": "referer",
    "http_user_agent": "user_agent",
}

#: consumed into columns (not repeated in attrs).
_CONSUMED = {
    *KEY_COLUMNS,
    "time_local",
    "time_iso8601",
    "msec",
    "request",
    "status",
    "body_bytes_sent",
    "request_time",
    "request_method",
    "request_uri",
    "uri",
    "server_protocol",
}
_TIME_VARS = ("time_local", "time_iso8601", "msec")
_REQ = r"^(?P<method>[A-Za-z][A-Za-z_-]*) (?P<path>\S+)(?: (?P<protocol>[A-Za-z]+/[\d.]+))?$"
_TOOL = r"^/tools/(?P<tool>[^/?#\s]+)"


def _request_parts(request: pa.Array) -> tuple[pa.Array, pa.Array, pa.Array, pa.Array]:
    """(method, path, protocol, tool) of `METHOD PATH PROTOCOL` request lines. When few lines
    are distinct, each is split once: the three parts stay dictionary-encoded (json_objects()
    quotes a dictionary once) and the tool is broadcast."""
    n = len(request)
    enc = few_distinct(request)
    if enc is None:
        method, rpath, protocol = _split_request_rows(request)
        return method, rpath, protocol, _tools(rpath.cast(pa.large_string()), n)
    parts = _split_request_rows(enc.dictionary)
    tool = _tools(parts[1].cast(pa.large_string()), len(enc.dictionary)).take(enc.indices)
    # (a dictionary holding nulls would hide them from null_count: decode those parts)
    method, rpath, protocol = (
        p.take(enc.indices) if p.null_count else pa.DictionaryArray.from_arrays(enc.indices, p)
        for p in parts
    )
    return method, rpath, protocol, tool


def _split_request_rows(request: pa.Array) -> tuple[pa.Array, pa.Array, pa.Array]:
    """`METHOD PATH PROTOCOL` → three columns; other shapes (junk, no protocol) via the regex."""
    parts = pc.split_pattern(request, " ")
    counts = pc.list_value_length(parts).fill_null(0).to_numpy(zero_copy_only=False)
    starts = parts.offsets.to_numpy()[:-1].astype("int64")
    three = counts == 3
    if not three.any():
        got = pc.extract_regex(request, _REQ).flatten()
        return got[0], got[1], got[2]
    vals = parts.values
    picked = [vals.take(pa.array(np.where(three, starts + k, 0))) for k in range(3)]
    shape_ok = pc.and_(
        pc.match_substring_regex(picked[0], r"^[A-Za-z][A-Za-z_-]*$"),
        pc.match_substring_regex(picked[2], r"^[A-Za-z]+/[\d.]+$"),
    ).to_numpy(zero_copy_only=False)
    good = three & shape_ok
    nothing = pa.scalar(None, pa.large_string())
    cols = [pc.if_else(pa.array(good), p.cast(pa.large_string()), nothing) for p in picked]
    rest = ~good & pc.is_valid(request).to_numpy(zero_copy_only=False)
    if rest.any():
        idx = np.flatnonzero(rest)
        got = pc.extract_regex(request.take(pa.array(idx)), _REQ).flatten()
        mask = pa.array(rest)
        cols = [
            pc.replace_with_mask(c, mask, g.cast(pa.large_string()))
            for c, g in zip(cols, got, strict=True)
        ]
    return cols[0], cols[1], cols[2]


def _tools(path: pa.Array, n: int) -> pa.Array:
    """NAME of `/tools/NAME...` paths (null elsewhere); only those rows see the regex."""
    hit = pc.starts_with(path, "/tools/").fill_null(False).to_numpy(zero_copy_only=False)
    if not hit.any():
        return pa.nulls(n, pa.large_string())
    idx = np.flatnonzero(hit)
    names = pc.extract_regex(path.take(pa.array(idx)), _TOOL).flatten()[0].cast(pa.large_string())
    return pc.replace_with_mask(pa.nulls(n, pa.large_string()), pa.array(hit), names)


def _coalesce(arrays: list[pa.Array], n: int) -> pa.Array:
    arrays = [a for a in arrays if a is not None]
    if not arrays:
        return pa.nulls(n, pa.large_string())
    return pc.coalesce(*arrays) if len(arrays) > 1 else arrays[0]


def _numeric(arr: pa.Array) -> pa.Array:
    """Digits (and an optional fraction) as float64; anything else → null."""
    enc = few_distinct(arr)
    if enc is not None:
        return _numeric_rows(enc.dictionary).take(enc.indices)
    return _numeric_rows(arr)


def _numeric_rows(arr: pa.Array) -> pa.Array:
    if arr.null_count < len(arr) and _all_plain_numbers(arr):
        return pc.cast(arr, pa.float64())  # the common case, without the regex
    ok = pc.match_substring_regex(arr, r"^\s*\d+(?:\.\d+)?\s*$")
    clean = pc.if_else(ok, arr, pa.scalar(None, arr.type))
    return pc.cast(pc.utf8_trim_whitespace(clean), pa.float64())


def _all_plain_numbers(arr: pa.Array) -> bool:
    """Every value is `\\d+` or `\\d+.\\d+` (what _numeric() accepts, minus the spaces)."""
    if pc.all(pc.ascii_is_decimal(arr)).as_py():
        return True
    if pc.any(pc.starts_with(arr, ".")).as_py() or pc.any(pc.ends_with(arr, ".")).as_py():
        return False
    one_dot_less = pc.replace_substring(arr, ".", "", max_replacements=1)
    return bool(pc.all(pc.ascii_is_decimal(one_dot_less)).as_py())


def _times(v: dict[str, pa.Array], n: int, tz: str) -> pd.Series:
    for name in _TIME_VARS:
        if name == "time_local" and name in v:
            return clf_times(v[name], tz)
        if name in v:
            return parse_times(v[name], tz)
    return parse_times(pa.nulls(n, pa.large_string()), tz)


def build_events(
    variables: dict[str, pa.Array],
    *,
    ok: pa.Array,
    lines: pa.Array,
    line_no: pa.Array,
    path: Path,
    tz: str,
    extra_attrs: list[tuple[str, pa.Array, str]] | None = None,
    reason: str = "not an access log line",
    order: MemberOrder | None = None,
) -> pd.DataFrame:
    """The event table: parsed rows (ok) are `http_access`, the rest `unparsed` (raw text);
    *order* lays `attrs` out as an earlier block of the file did (json_objects()).

    Large inputs compute the numeric/time columns on a second thread while this one builds
    the request, tool and attrs columns (pyarrow kernels release the GIL).
    """
    n = len(lines)
    v = {k: null_if_dash(as_string(a)) for k, a in variables.items()}
    okm = ok.fill_null(False)
    if n >= _THREADED:
        with ThreadPoolExecutor(1) as pool:
            side = pool.submit(_side_columns, v, okm, line_no, path, tz)
            columns = _text_columns(variables, v, okm, lines, extra_attrs, reason, order)
            columns.update(side.result())
    else:
        columns = _text_columns(variables, v, okm, lines, extra_attrs, reason, order)
        columns.update(_side_columns(v, okm, line_no, path, tz))
    return frame(columns, n)


def _side_columns(
    v: dict[str, pa.Array], okm: pa.Array, line_no: pa.Array, path: Path, tz: str
) -> dict[str, Any]:
    """seq, source, origin, kind, ts and the numeric columns."""
    n = len(okm)
    status = _numeric(v["status"]) if "status" in v else pa.nulls(n, pa.float64())
    size_src = _coalesce([v.get("body_bytes_sent"), v.get("bytes_sent")], n)
    size = _numeric(size_src) if size_src.null_count < n else pa.nulls(n, pa.float64())
    rt = _numeric(v["request_time"]) if "request_time" in v else pa.nulls(n, pa.float64())
    ts = _times(v, n, tz)
    bad = ~okm.to_numpy(zero_copy_only=False)
    if bad.any():
        ts[bad] = pd.NaT
    return {
        "ts": ts,
        "seq": line_no.to_numpy(zero_copy_only=False),
        "source": const_str("nginx", n),
        "origin": to_str_series(origins(path, line_no)),
        "kind": to_str_series(pc.if_else(okm, KIND, UNPARSED).cast(pa.large_string())),
        "http_status": pd.array(_masked_int(status, okm), dtype="Int64"),
        "duration_ms": _masked_float(pc.multiply(rt, 1000.0), okm),
        "size": pd.array(_masked_int(size, okm), dtype="Int64"),
    }


def _text_columns(
    variables: dict[str, pa.Array],
    v: dict[str, pa.Array],
    okm: pa.Array,
    lines: pa.Array,
    extra_attrs: list[tuple[str, pa.Array, str]] | None,
    reason: str,
    order: MemberOrder | None = None,
) -> dict[str, Any]:
    """tool, detail, attrs and the key columns."""
    n = len(lines)
    request = v.get("request")
    raw_request = as_string(variables["request"]) if "request" in variables else None
    if request is not None:
        method, rpath, protocol, tool = _request_parts(request)
    else:
        method = v.get("request_method", pa.nulls(n, pa.large_string()))
        rpath = _coalesce([v.get("request_uri"), v.get("uri")], n)
        protocol = v.get("server_protocol", pa.nulls(n, pa.large_string()))
        request = _join_request(method, rpath, protocol, n)
        raw_request = request
        tool = _tools(rpath.cast(pa.large_string()), n)

    attr_fields: list[tuple[str, pa.Array, str]] = [
        ("method", method, "str"),
        ("path", rpath, "str"),
        ("protocol", protocol, "str"),
    ]
    for var in sorted(v):
        if var in _CONSUMED:
            continue
        attr_fields.append((ATTR_NAMES.get(var, var), v[var], "str"))
    attr_fields.extend(extra_attrs or [])
    attrs = attrs_text(attr_fields, n, order)

    all_ok = bool(pc.all(okm).as_py()) if n else True
    nothing = pa.scalar(None, pa.large_string())
    bad_attrs = pa.scalar('{"reason":' + _quote(reason) + "}", pa.large_string())

    def when_ok(a: pa.Array) -> pd.Series:
        return to_str_series(a if all_ok else pc.if_else(okm, a.cast(pa.large_string()), nothing))

    columns: dict[str, Any] = {
        "tool": when_ok(tool),
        "detail": to_str_series(
            raw_request if all_ok else pc.if_else(okm, raw_request, unparsed_detail(lines))
        ),
        "attrs": to_str_series(attrs if all_ok else pc.if_else(okm, attrs, bad_attrs)),
    }
    for var, col in KEY_COLUMNS.items():
        if var in v and col not in columns:
            columns[col] = when_ok(v[var])
    return columns


def _join_request(method: pa.Array, rpath: pa.Array, protocol: pa.Array, n: int) -> pa.Array:
    """`METHOD URI PROTOCOL` from separate variables (missing parts left out)."""
    empty = lit("")
    parts = [
        pc.fill_null(pc.binary_join_element_wise(lit(sep), a.cast(pa.large_string()), empty), empty)
        for sep, a in ((" ", method), (" ", rpath), (" ", protocol))
    ]
    joined = pc.binary_join_element_wise(*parts, empty)
    out = pc.utf8_slice_codeunits(joined, 1, 2**62)
    return pc.if_else(pc.equal(joined, ""), pa.scalar(None, pa.large_string()), out)


def _quote(s: str) -> str:
    return orjson.dumps(s).decode()


def _masked_float(arr: pa.Array, ok: pa.Array) -> np.ndarray:
    vals = pc.if_else(ok, arr, pa.scalar(None, pa.float64()))
    return vals.to_numpy(zero_copy_only=False).astype("float64")


def _masked_int(arr: pa.Array, ok: pa.Array) -> pd.arrays.IntegerArray:
    vals = pc.if_else(ok, arr, pa.scalar(None, pa.float64()))
    f = vals.to_numpy(zero_copy_only=False).astype("float64")
    mask = ~np.isfinite(f)
    return pd.arrays.IntegerArray(np.where(mask, 0, f).astype("int64"), mask)
