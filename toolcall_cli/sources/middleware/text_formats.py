"""Non-JSON middleware lines: logfmt, timestamped plain text, and user formats from config.

Plain text looks like `2025-03-01 12:00:00,123 WARN [mw-2] <message> session=s1 call=call_9`:
the header is extracted column-wise, `key=value` pairs inside the message become keys like in
logfmt. User formats (regexes with named groups, lnav style) are tried first, in RE2.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.model.config import LogFormat
from toolcall_cli.model.re2 import name_groups

_KV = re.compile(r'(?:^|\s)([A-Za-z_@][\w.@-]*)=("(?:[^"\\]|\\.)*"|[^\s"]*)')
_LOGFMT_START = re.compile(r'^\s*[A-Za-z_@][\w.@-]*=(?:"|[^\s"=]*(?:\s|$))')

#: timestamp, optional level, optional [instance], message.
TEXT_RX = (
    r"^(?P<ts>\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2}| UTC)?)"
    r"\s+(?:\[?(?P<level>TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|CRITICAL|CRIT|FATAL|SEVERE)\]?:?\s+)?"
    r"(?:\[(?P<instance>[^\]]{1,80})\]\s+)?(?P<msg>.*)$"
)

#: user-format group names accepted as they are (others go to attrs).
_USER_GROUPS = {
    "detail": "msg",
    "message": "msg",
    "time": "ts",
    "timestamp": "ts",
    "call_id": "tool_call_id",
}


def unquote(value: str) -> str:
    """A logfmt value without its quotes and backslash escapes."""
    if len(value) >= 2 and value[0] == '"' and value[-1] == '"':
        return re.sub(r"\\(.)", r"\1", value[1:-1])
    return value


def pairs(text: str) -> dict[str, str]:
    """`key=value` / `key="value"` pairs of *text* (first occurrence of a key wins)."""
    out: dict[str, str] = {}
    for m in _KV.finditer(text):
        out.setdefault(m.group(1), unquote(m.group(2)))
    return out


def is_logfmt(line: str) -> bool:
    """A logfmt line starts with key= and holds at least two pairs."""
    return bool(_LOGFMT_START.match(line)) and len(_KV.findall(line)) >= 2


def columns_from_dicts(rows: Sequence[dict[str, str] | None], n: int) -> dict[str, pa.Array]:
    """Row dicts → text columns by key (rows that are None stay null)."""
    cols: dict[str, list[str | None]] = {}
    for i, row in enumerate(rows):
        if not row:
            continue
        for k, v in row.items():
            col = cols.get(k)
            if col is None:
                col = cols[k] = [None] * n
            col[i] = v
    return {k: pa.array(v, pa.large_string()) for k, v in cols.items()}


def logfmt_columns(lines: list[str]) -> dict[str, pa.Array]:
    """Columns of logfmt lines (every line is assumed to be logfmt)."""
    return columns_from_dicts([pairs(line) for line in lines], len(lines))


def text_columns(lines: pa.Array) -> tuple[dict[str, pa.Array], pa.Array]:
    """Header fields of timestamped text lines plus key=value pairs of the message (+ ok mask)."""
    st = pc.extract_regex(lines, TEXT_RX)
    ok = pc.is_valid(st)
    parts = st.flatten()
    cols = {f.name: parts[i] for i, f in enumerate(st.type)}
    msg = cols["msg"]
    kv = [pairs(m) if m and "=" in m else None for m in msg.to_pylist()]
    for k, arr in columns_from_dicts(kv, len(lines)).items():
        if k not in cols:
            cols[k] = arr
    for name in ("level", "instance"):
        cols[name] = pc.if_else(
            pc.equal(cols[name], ""), pa.scalar(None, pa.large_string()), cols[name]
        )
    return cols, ok


def user_format_rows(lines: list[str], formats: Sequence[LogFormat]) -> list[dict[str, str] | None]:
    """Per line, the named groups of the first user format that matches (None when none does).

    User regexes run in RE2 (pyarrow's `extract_regex`), column-wise: a config regex that
    backtracks catastrophically in `re` costs linear time here.
    """
    out: list[dict[str, str] | None] = [None] * len(lines)
    todo = list(range(len(lines)))
    for fmt in formats:
        if not todo:
            break
        arr = pa.array([lines[i] for i in todo], type=pa.large_string())
        names = list(fmt.regex.groupindex)
        if names:
            found = pc.extract_regex(arr, pattern=name_groups(fmt.regex.pattern))
            valid = found.is_valid().to_pylist()
            cols = {n: found.field(n).to_pylist() for n in names}
        else:
            valid = pc.match_substring_regex(arr, pattern=fmt.regex.pattern).to_pylist()
            cols = {}
        left = []
        for j, i in enumerate(todo):
            if not valid[j]:
                left.append(i)
                continue
            row = {_USER_GROUPS.get(k, k): v[j] for k, v in cols.items() if v[j]}
            row["format"] = fmt.name
            out[i] = row
        todo = left
    return out
