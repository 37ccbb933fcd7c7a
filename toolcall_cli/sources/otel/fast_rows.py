"""Span columns → tool-execution rows, with array operations only: the one mapping of MCP
`tools/call`, GenAI `execute_tool`, OpenInference TOOL and HTTP client/server spans.

A tool execution is the tool-service exchange of the call: an `http_request` row when the span
started (tool, call id, arguments) and an `http_response` row when it ended (status, result
as `detail`, its size, the span's duration). The columns come from a parsed block of OTLP/JSON
lines (`fast_columns.SpanColumns`) or from span records of any other encoding
(`tool_spans.SpanRecords`, which also carries what a failed span adds)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.model.events import COLUMNS, build_frame
from toolcall_cli.sources.otel import fast_attrs
from toolcall_cli.sources.otel.fast_columns import AttrColumns, SpanColumns, per_value
from toolcall_cli.sources.otel.rows import SOURCE
from toolcall_cli.sources.otel.values import SPAN_KINDS

if TYPE_CHECKING:
    from toolcall_cli.sources.otel.tool_spans import Failure, RecordAttrs, SpanRecords

_CONVENTIONS: Final = ["mcp", "genai", "openinference", "http"]
_KIND_NAMES: Final = [f'"{k}"' for k in SPAN_KINDS]
_TOOL_PATH: Final = r"^/(?:v\d+/)?tools?/(?P<t>[^/?#]+)"
_URL_PATH: Final = r"^[a-z]+://[^/]+(?P<p>/[^?#]*)"


def _mask(arr: pa.Array) -> np.ndarray:
    return np.asarray(pc.fill_null(arr, False).to_numpy(zero_copy_only=False), dtype=bool)


def _nullable_ints(arr: pa.Array) -> pd.Series:
    """Arrow int64 with nulls as pandas Int64 (no detour through float64)."""
    mask = arr.is_null().to_numpy(zero_copy_only=False)
    # 1 under a null, as pandas leaves it when it converts from float (the same bytes)
    values = arr.fill_null(1).to_numpy(zero_copy_only=False).copy()
    return pd.Series(pd.arrays.IntegerArray(values, mask))


def _group(arr: pa.Array, pattern: str) -> pa.Array:
    return per_value(arr, lambda v: pc.struct_field(pc.extract_regex(v, pattern), [0]))


def _before_query(arr: pa.Array) -> pa.Array:
    return pc.list_element(pc.split_pattern(arr, "?", max_splits=1), 0)


def _first(none: pa.Array, *sources: tuple[pa.Array, Callable[[pa.Array], pa.Array]]) -> pa.Array:
    """`coalesce` of each source's derived value, deriving only the rows still unset (a regex
    over a URL every row already has a path for is not run)."""
    out = none
    for values, derive in sources:
        todo = values if out is none else pc.if_else(pc.is_null(out), values, none)
        if todo.null_count == len(todo):
            continue
        out = derive(todo) if out is none else pc.coalesce(out, derive(todo))
    return out


def tool_rows(c: SpanColumns | SpanRecords) -> tuple[pd.DataFrame, np.ndarray]:
    """Two rows (request at start, response at end) per simple tool or HTTP span, and the
    span index each row came from; `seq` is the order the rows go in (all requests come
    first in the table, each response's `seq` follows its request's)."""
    a = c.attrs
    keep = ~c.slow
    method_name = a["mcp.method.name"]
    mcp = _mask(pc.is_valid(method_name)) & keep
    mcp_call = mcp & _mask(pc.equal(method_name, "tools/call"))
    genai = keep & ~mcp & _mask(pc.equal(a["gen_ai.operation.name"], "execute_tool"))
    oi = keep & ~mcp & ~genai
    oi &= _mask(pc.equal(pc.utf8_upper(a["openinference.span.kind"]), "TOOL"))
    method = pc.utf8_upper(pc.coalesce(a["http.request.method"], a["http.method"]))
    http = keep & ~mcp & ~genai & ~oi & _mask(pc.not_equal(method, ""))
    http &= (c.kind == 2) | (c.kind == 3)
    take = np.flatnonzero(mcp_call | genai | oi | http)
    m = int(take.size)
    if not m:
        return build_frame({}, n=0), np.zeros(0, np.int64)
    idx = pa.array(take)

    def col(arr: pa.Array) -> pa.Array:
        return arr.take(idx)

    is_mcp, is_genai, is_oi, is_http = mcp_call[take], genai[take], oi[take], http[take]
    is_tool = is_mcp | is_genai
    none = pa.nulls(m, pa.string())
    name = col(c.name)
    tool_name = a.rows("gen_ai.tool.name", take)
    # the name patterns run only when some row needs them (regexes cost most of this step);
    # a name given is kept as given (even empty), a name read from the span's is never empty
    genai_tool = tool_name
    unnamed = pa.array(is_tool) if tool_name.null_count else None  # HTTP rows need no name
    if unnamed is not None and pc.any(pc.and_(unnamed, pc.is_null(tool_name))).as_py():
        spelled = pc.if_else(unnamed, name, none)
        genai_tool = pc.coalesce(tool_name, _name_after(spelled, "^execute_tool "))
    mcp_tool = none
    if is_mcp.any():
        mcp_tool = pc.coalesce(
            genai_tool, a.rows("mcp.tool.name", take), _name_after(name, "^[^ ]* ")
        )
    path = _first(
        none,
        *(
            (a.rows(k, take), lambda v: per_value(v, _before_query))
            for k in ("url.path", "http.target", "http.route")
        ),
        *((a.rows(k, take), lambda v: _group(v, _URL_PATH)) for k in ("url.full", "http.url")),
    )
    oi_tool = pc.coalesce(a.rows("tool.name", take), pc.if_else(pc.equal(name, ""), none, name))
    tool = pc.if_else(
        pa.array(is_mcp),
        mcp_tool,
        pc.if_else(
            pa.array(is_genai),
            genai_tool,
            pc.if_else(
                pa.array(is_oi), oi_tool, _group(path, _TOOL_PATH) if is_http.any() else none
            ),
        ),
    )
    call_id = pc.if_else(
        pa.array(is_tool),
        _id(a.rows("gen_ai.tool.call.id", take), none),
        pc.if_else(
            pa.array(is_oi), _id(a.rows("tool.id", take), none), a.rows("tool_call_id", take)
        ),
    )
    args = pc.if_else(
        pa.array(is_tool),
        a.rows("gen_ai.tool.call.arguments", take),
        pc.if_else(pa.array(is_oi), a.rows("input.value", take), none),
    )
    result = pc.if_else(
        pa.array(is_tool),
        a.rows("gen_ai.tool.call.result", take),
        pc.if_else(pa.array(is_oi), a.rows("output.value", take), none),
    )
    stable = a.rows("http.response.status_code", take)
    code_text = pc.coalesce(stable, a.rows("http.status_code", take))
    is_code = per_value(code_text, lambda v: pc.match_substring_regex(v, r"^\d{1,3}$"))
    number = np.where(  # a code written as a number: any integer (text: 1-3 digits)
        _mask(pc.is_valid(stable)),
        a.typed("http.response.status_code", take),
        a.typed("http.status_code", take),
    )
    if number.any():
        whole = per_value(code_text, lambda v: pc.match_substring_regex(v, r"^-?\d+$"))
        is_code = pc.or_(is_code, pc.and_(pa.array(number), whole))
    code_text = pc.if_else(is_code, code_text, none)
    code = pc.if_else(pa.array(is_http), pc.cast(code_text, pa.int64()), pa.nulls(m, pa.int64()))
    status = pc.if_else(_mask(pc.greater_equal(code, 400)), "error", "ok")
    fail = c.failure
    if fail is not None:  # records: a failed span's status, and the session they were given
        span_failed, err_set = fail.span_failed[take], fail.err_set[take]
        failed = (is_tool & (err_set | fail.etype_set[take])) | (is_oi & err_set)
        failed |= span_failed
        status = pc.if_else(pa.array(failed), "error", status)
        session = fail.session.take(idx)
    else:
        session = pc.coalesce(
            pc.if_else(pa.array(is_mcp), a.rows("mcp.session.id", take), none),
            a.rows("gen_ai.conversation.id", take),
            a.rows("session.id", take),
            a.rows("mcp.session.id", take),
        )
    request_id = pc.if_else(pa.array(is_mcp), _id(a.rows("jsonrpc.request.id", take), none), none)

    convention = np.where(is_mcp, 0, np.where(is_genai, 1, np.where(is_oi, 2, 3)))
    span_ids = col(c.span)
    http_only = pa.array(is_http)
    method_m = fast_attrs.encoded("method", pc.if_else(http_only, col(method), none))
    path_m = fast_attrs.encoded("path", pc.if_else(http_only, path, none))
    mcp_m = fast_attrs.encoded("mcp_method", pc.if_else(pa.array(is_mcp), col(method_name), none))
    req_attrs = fast_attrs.objects(span_ids, _CONVENTIONS, convention, [method_m, path_m, mcp_m])
    captured = _mask(pc.or_(pc.is_valid(args), pc.is_valid(result)))
    kinds = c.kind[take]
    kind_name = np.where(kinds == 2, 0, 1)  # an HTTP span is a server's or a client's
    kinds = np.where((kinds >= 0) & (kinds < len(SPAN_KINDS)), kinds, 0)
    resp_attrs = fast_attrs.objects(
        span_ids,
        _CONVENTIONS,
        convention,
        [
            method_m,
            path_m,
            ("span_kind", ['"server"', '"client"'], np.where(is_http, kind_name, -1)),
            _literal(a, "server", "server.address", take, is_http, none),
            _literal(a, "client", "client.address", take, is_http, none),
            _literal(a, "tool_type", "gen_ai.tool.type", take, is_tool, none),
            (
                "content_captured",
                ["true", "false"],
                np.where(is_http, -1, np.where(captured, 0, 1)),
            ),
            mcp_m,
            ("span_kind", _KIND_NAMES, np.where(is_mcp, kinds, -1)),  # any kind
            *_error_members(fail, idx, result, none),
        ],
    )
    origin, req_origin = c.row_origins(take, is_tool)
    s_ns, e_ns = c.start[take], c.end[take]
    detail = result if fail is None else pc.coalesce(result, fail.error.take(idx))
    duration = (e_ns - s_ns) / 1e6
    stamps = np.concatenate([s_ns, e_ns]).view("M8[ns]")
    if fail is not None:  # a record without a time: no time, no duration
        no_s, no_e = fail.no_start[take], fail.no_end[take]
        stamps = np.where(np.concatenate([no_s, no_e]), np.datetime64("NaT", "ns"), stamps)
        duration[no_s | no_e | (s_ns == 0) | (e_ns == 0)] = np.nan

    def both(x: pa.Array, y: pa.Array) -> pd.Series:  # two chunks, the frame's type, no copy
        halves = [x.cast(pa.large_string()), y.cast(pa.large_string())]
        return pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array(halves)))

    traces = col(c.trace)
    frame = table(
        {
            "ts": pd.Series(pd.DatetimeIndex(stamps).tz_localize("UTC")),
            # request and response of one span next to each other, as the per-span path emits
            # them: the row order `seq` gives (the rows themselves are not moved)
            "seq": np.concatenate([np.arange(m) * 2, np.arange(m) * 2 + 1]),
            # constant and absent columns as Arrow arrays, not lists of Python values; every
            # text column in the same two halves, so the time-order gather makes one plan
            "source": both(pa.repeat(SOURCE, m), pa.repeat(SOURCE, m)),
            "origin": both(req_origin, origin),
            "kind": both(pa.repeat("http_request", m), pa.repeat("http_response", m)),
            "instance": both(none, none),
            "client": both(none, none),
            "session_id": both(session, session),
            "trace_id": both(traces, traces),
            "tool_call_id": both(call_id, call_id),
            "request_id": both(request_id, request_id),
            "tool": both(tool, tool),
            "args": both(args, none),
            "status": both(none, status),
            "http_status": _nullable_ints(pa.concat_arrays([pa.nulls(m, pa.int64()), code])),
            "duration_ms": np.concatenate([np.full(m, np.nan), duration]),
            "size": _nullable_ints(
                pa.concat_arrays([pa.nulls(m, pa.int64()), pc.utf8_length(result).cast(pa.int64())])
            ),
            "detail": both(none, detail),
            "attrs": both(req_attrs, resp_attrs),
        },
        n=2 * m,
    )
    return frame, np.concatenate([take, take])


def _name_after(names: pa.Array, head: str) -> pa.Array:
    """The tool name a span's name spells after *head* (trimmed; none when empty)."""
    after = _group(names, f"(?s){head}(?P<t>.*)$")
    after = pc.utf8_trim_whitespace(after)
    return pc.if_else(pc.equal(after, ""), pa.nulls(len(after), pa.string()), after)


def _id(ids: pa.Array, none: pa.Array) -> pa.Array:
    """Empty text is no id."""
    return pc.if_else(pc.equal(ids, ""), none, ids)


def _literal(
    a: AttrColumns | RecordAttrs, name: str, key: str, take: np.ndarray, rows: np.ndarray,
    none: pa.Array,
) -> fast_attrs.Member:  # fmt: skip
    """Member *name*: attribute *key* of the rows *rows*, a value that is not text as itself."""
    typed = a.typed(key, take) & rows
    return fast_attrs.encoded(
        name, pc.if_else(pa.array(rows), a.rows(key, take), none), typed if typed.any() else None
    )


def _error_members(
    fail: Failure | None, idx: pa.Array, result: pa.Array, none: pa.Array
) -> list[fast_attrs.Member]:
    """`error_type`, and `error` when there is a result (else the error is the detail)."""
    if fail is None:
        return []
    error = pc.if_else(_mask(pc.greater(pc.utf8_length(result), 0)), fail.error.take(idx), none)
    return [
        fast_attrs.encoded("error_type", fail.error_type.take(idx)),
        fast_attrs.encoded("error", error),
    ]


def table(columns: dict[str, pd.Series | np.ndarray], *, n: int) -> pd.DataFrame:
    """The event table of *columns* when each already holds its column's dtype: put together
    as they are (`build_frame` copies every column while it checks its dtype);
    `build_frame` of them otherwise."""
    series = {c: v if isinstance(v, pd.Series) else pd.Series(v) for c, v in columns.items()}
    if set(series) != set(COLUMNS) or any(
        len(series[c]) != n or series[c].dtype != dtype for c, dtype in COLUMNS.items()
    ):
        return build_frame(columns, n=n)
    return pd.DataFrame({c: series[c] for c in COLUMNS}, index=pd.RangeIndex(n), copy=False)
