"""The built-in nginx/Apache `combined` (and `common`) parser, with trailing fields.

Trailing text after the user agent is read as `key=value` / `key="value"` pairs (the
correlation keys of DESIGN §2 are recognised by name) and extra quoted fields, which land in
`attrs.extra` in order (e.g. `"$http_x_forwarded_for"` of nginx's `main` format).
"""

from __future__ import annotations

import re

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc

#: ONE regex, RE2-compatible (pyarrow) and Python-compatible; quoted fields honour `\"` escapes.
COMBINED_RX = (
    r"^(?P<remote_addr>\S+) (?P<ident>\S+) (?P<remote_user>\S+) \[(?P<time_local>[^\]]+)\] "
    r'"(?P<request>(?:[^"\\]|\\.)*)" (?P<status>\d{3}|-) (?P<body_bytes_sent>\d+|-)'
    r'(?: "(?P<http_referer>(?:[^"\\]|\\.)*)" "(?P<http_user_agent>(?:[^"\\]|\\.)*)")?'
    r"(?P<trailing>.*)$"
)

#: A cheap test for sniffing: the combined/common prefix up to the status code.
HEAD_RX = re.compile(
    r"^\S+ \S+ \S+ \[\d{1,2}/[A-Za-z]{3}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4}\] "
    r'"[^"]*" (?:\d{3}|-) (?:\d+|-)'
)

#: trailing key → nginx variable.
TRAILING_KEYS: dict[str, str] = {
    "trace_id": "http_x_trace_id",
    "x_trace_id": "http_x_trace_id",
    "session_id": "http_x_session_id",
    "x_session_id": "http_x_session_id",
    "request_id": "request_id",
    "req_id": "request_id",
    "tool_call_id": "http_x_tool_call_id",
    "x_tool_call_id": "http_x_tool_call_id",
    "rt": "request_time",
    "request_time": "request_time",
    "urt": "upstream_response_time",
    "upstream_response_time": "upstream_response_time",
    "upstream_status": "upstream_status",
    "us": "upstream_status",
}

_PAIR = re.compile(r'(?:^|\s)([A-Za-z_][\w.-]*)=(?:"((?:[^"\\]|\\.)*)"|(\S*))')
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"|(\S+)')


_VALUE = r'(?:"(?P<q>(?:[^"\\]|\\.)*)"|(?P<b>[^\s"]*))'


def _keys_rx(keys: list[str]) -> str:
    return r"(?:^|\s)(?i:" + "|".join(re.escape(k) for k in keys) + r")=" + _VALUE


def _known(text: pa.Array) -> dict[str, pa.Array]:
    """Known trailing keys, one RE2 pass per variable (first occurrence wins)."""
    by_var: dict[str, list[str]] = {}
    for key, var in TRAILING_KEYS.items():
        by_var.setdefault(var, []).append(key)
    out: dict[str, pa.Array] = {}
    for var, keys in by_var.items():
        found = pc.match_substring_regex(text, _keys_rx(keys))
        if not pc.any(found).as_py():
            continue
        q, b = pc.extract_regex(text, _keys_rx(keys)).flatten()
        val = pc.if_else(pc.not_equal(q, ""), pc.replace_substring(q, '\\"', '"'), b)
        out[var] = val.cast(pa.large_string())
    return out


def split_trailing(
    trailing: pa.Array,
) -> tuple[dict[str, pa.Array], pa.Array | None, pa.Array | None]:
    """(variables from known keys, attrs object text of other keys, attrs.extra JSON list) per row.

    Known keys are extracted column-wise; only rows with something left after them (other
    pairs, bare or quoted fields) are read in Python.
    """
    n = len(trailing)
    text = pc.utf8_trim_whitespace(trailing)
    has = pc.fill_null(pc.greater(pc.utf8_length(text), 0), False)
    if not pc.any(has).as_py():
        return {}, None, None
    variables = _known(text)
    rest = pc.utf8_trim_whitespace(
        pc.replace_substring_regex(text, _keys_rx(list(TRAILING_KEYS)), "")
    )
    left = pc.fill_null(pc.greater(pc.utf8_length(rest), 0), False)
    if not pc.any(left).as_py():
        return variables, None, None
    idx = pc.indices_nonzero(left).to_pylist()
    others: list[dict[str, str] | None] = []
    extras: list[list[str] | None] = []
    for row in rest.take(pa.array(idx)).to_pylist():
        other: dict[str, str] = {}
        consumed: list[tuple[int, int]] = []
        for m in _PAIR.finditer(row):
            consumed.append(m.span())
            other.setdefault(m.group(1), m.group(2) if m.group(2) is not None else m.group(3))
        bare = [
            m.group(1) if m.group(1) is not None else m.group(2)
            for m in _QUOTED.finditer(_blank(row, consumed))
        ]
        others.append(other or None)
        extras.append(bare or None)
    where = pa.array(idx, pa.int64())
    other_json = _scatter(where, pa.array([_obj(o) for o in others], pa.large_string()), n)
    extra_json = _scatter(where, pa.array([_obj(e) for e in extras], pa.large_string()), n)
    return variables, other_json, extra_json


def _blank(row: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return row
    out, pos = [], 0
    for a, b in spans:
        out.append(row[pos:a])
        pos = b
    out.append(row[pos:])
    return " ".join(out)


def _obj(value: object) -> str | None:
    if value is None:
        return None
    return orjson.dumps(value).decode()


def _scatter(where: pa.Array, values: pa.Array, n: int) -> pa.Array:
    """Place *values* at row positions *where* of an all-null array of length *n*."""
    mask = pc.is_in(pa.array(np.arange(n, dtype="int64")), value_set=where)
    base = pa.nulls(n, pa.large_string())
    return pc.replace_with_mask(base, mask, values)
