"""nginx `escape=json` access logs: one JSON object per line, keys naming nginx variables.

Keys are the variable names (`remote_addr`, `time_local`, `request`, `status`, ...), common
short names (`time`, `client`, `trace_id`, ...), or — when the `log_format` template is
known — whatever keys the template assigns each `$variable` to.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.sources._shared.jsonlines import read_json_lines

#: Short or conventional key → nginx variable (applied when the key is not a variable itself).
KEY_ALIASES: dict[str, str] = {
    "time": "time_iso8601",
    "timestamp": "time_iso8601",
    "@timestamp": "time_iso8601",
    "ts": "time_iso8601",
    "client": "remote_addr",
    "client_ip": "remote_addr",
    "ip": "remote_addr",
    "remote_ip": "remote_addr",
    "method": "request_method",
    "uri": "request_uri",
    "path": "request_uri",
    "protocol": "server_protocol",
    "bytes": "body_bytes_sent",
    "size": "body_bytes_sent",
    "referer": "http_referer",
    "referrer": "http_referer",
    "user_agent": "http_user_agent",
    "ua": "http_user_agent",
    "trace_id": "http_x_trace_id",
    "x_trace_id": "http_x_trace_id",
    "session_id": "http_x_session_id",
    "x_session_id": "http_x_session_id",
    "tool_call_id": "http_x_tool_call_id",
    "x_tool_call_id": "http_x_tool_call_id",
    "req_id": "request_id",
    "duration": "request_time",
    "rt": "request_time",
    "urt": "upstream_response_time",
}

#: Keys that mark a JSON line as an access-log record (for sniffing).
ACCESS_KEYS = frozenset(
    {"remote_addr", "request", "status", "request_uri", "time_local", "http_user_agent"}
)

_TIME_KEYS = ("time_local", "time_iso8601", "msec", "time", "timestamp", "@timestamp", "ts")


def json_variables(
    lines: pa.Array, key_map: dict[str, str] | None = None
) -> tuple[dict[str, pa.Array], pa.Array]:
    """Variables by name (text columns aligned with *lines*) and the per-line ok mask."""
    key_map = key_map or {}
    parsed = read_json_lines(lines, text_keys=(*_TIME_KEYS, *key_map))
    variables: dict[str, pa.Array] = {}
    for key, arr in parsed.columns.items():
        var = key_map.get(key) or KEY_ALIASES.get(key, key)
        if var == "msec" or (var == "time_iso8601" and _is_number(arr)):
            var = "msec"
        if var in variables:  # first key wins; the alias keeps its own name in attrs
            var = key
        variables[var] = arr
    ok = parsed.ok
    # a JSON object that is not an access record (no request, no status) is not parsed
    if not (set(variables) & {"request", "status", "request_uri", "remote_addr"}):
        ok = pc.and_(ok, pa.scalar(False))
    return variables, ok


def _is_number(arr: pa.Array) -> bool:
    return pa.types.is_integer(arr.type) or pa.types.is_floating(arr.type)
