"""The HTTP request tables the infrastructure rules share: requests with path, method, start
and scope; when tool results became available; "a result in between" by bisection.

Built once per context (`ctx.memo`), column-wise: a million access-log lines pass through
each step as arrays, and findings cite rows by label.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolcall_cli.diagnose.kit.context import DiagnoseContext
from toolcall_cli.diagnose.kit.frames import attr, of_kind
from toolcall_cli.model.events import HTTP_REQUEST_KINDS, WIRE_SOURCES

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

TOOL_PATH = r"^/tools/"


def _path(rows: pd.DataFrame) -> pd.Series:
    """Request path per row: attrs.path (nginx) / attrs.uri (pcap), else from the request line."""
    p = attr(rows, "path").fillna(attr(rows, "uri"))
    return _or_line_word(p, rows, 1).fillna("").astype(str)


def _method(rows: pd.DataFrame) -> pd.Series:
    m = attr(rows, "method")
    return _or_line_word(m, rows, 0).fillna("").astype(str).str.upper()


def _or_line_word(values: pd.Series, rows: pd.DataFrame, k: int) -> pd.Series:
    """*values*, with word *k* (0 or 1) of the request line in `detail` (split on single
    spaces) where they are null; that split runs only over those rows."""
    import pyarrow as pa
    import pyarrow.compute as pc

    need = values.isna().to_numpy()
    if not need.any():
        return values
    arr = pa.array(rows["detail"][need], type=pa.large_string(), from_pandas=True)
    words = pc.extract_regex(arr, pattern=r"^(?P<w0>[^ ]*)(?: (?P<w1>[^ ]*))?")
    word = pc.struct_field(words, [k]).to_numpy(zero_copy_only=False)
    out = values.copy()
    out[need] = word
    return out


#: What FL002 and FL004 read of a request (findings cite rows by label, not from this frame).
_REQUEST_COLUMNS = (
    "kind",
    "source",
    "session_id",
    "trace_id",
    "tool_call_id",
    "tool",
    "args",
    "status",
    "http_status",
    "size",
    "client",
    "detail",
    "duration_ms",
    "ts",
    "ts_corrected",
    "trace",
    "origin",
)


def requests(ctx: DiagnoseContext) -> pd.DataFrame:
    """HTTP requests (nginx lines, captured requests) with `_path`, `_method`, `_start` and
    `_body` (the body's digest where the wire recorded the body)."""

    import pandas as pd

    def build() -> pd.DataFrame:
        rows = of_kind(ctx, *HTTP_REQUEST_KINDS, columns=_REQUEST_COLUMNS).copy()
        rows["_path"] = _path(rows)
        rows["_method"] = _method(rows)
        rows["_body"] = attr(rows, "body_sha256")  # wire requests: a digest of the body sent
        ts = rows["ts_corrected"] if "ts_corrected" in rows.columns else rows["ts"]
        # an access-log line is written when the request ends; its start is ts - request time
        took = pd.to_timedelta(rows["duration_ms"].where(rows["kind"] == "http_access"), unit="ms")
        rows["_start"] = ts - took.fillna(pd.Timedelta(0))
        rows["_scope"] = rows["session_id"].fillna(rows["trace_id"])
        return rows

    return ctx.memo("http_requests", build)


def result_times(ctx: DiagnoseContext) -> pd.DataFrame:
    """When tool results became available, per session: injections, responses, tool lines, and
    the first chat request a capture saw carrying each result (its body holds it: that request
    is the turn's continuation, not a resubmission)."""
    import pandas as pd

    reqs = requests(ctx)
    tool_lines = reqs[(reqs["kind"] == "http_access") & reqs["_path"].str.match(TOOL_PATH)]
    mw = of_kind(
        ctx,
        "mw_response",
        "mw_injected",
        "http_response",
        columns=("kind", "tool", "session_id", "trace_id", "ts", "ts_corrected"),
    )
    mw = mw[(mw["kind"] != "http_response") | mw["tool"].notna()]
    col = "ts_corrected" if "ts_corrected" in mw.columns else "ts"
    carried = of_kind(
        ctx,
        "tool_result",
        columns=("source", "session_id", "trace_id", "tool_call_id", "ts", "ts_corrected"),
    )
    carried = carried[carried["source"].isin(WIRE_SOURCES)]
    first = (
        pd.DataFrame(
            {
                "scope": carried["session_id"].fillna(carried["trace_id"]),
                "id": carried["tool_call_id"],
                "t": carried[col],
            }
        )
        .dropna()
        .sort_values("t", kind="stable")
        .drop_duplicates(["scope", "id"])
    )
    both = pd.concat(
        [
            pd.DataFrame({"scope": mw["session_id"].fillna(mw["trace_id"]), "t": mw[col]}),
            pd.DataFrame(
                {"scope": tool_lines["_scope"], "t": tool_lines[col if col in tool_lines else "ts"]}
            ),
            first[["scope", "t"]],
        ]
    )
    return both.dropna()


def ns(times: pd.Series) -> np.ndarray:
    """UTC timestamps as int64 nanoseconds."""
    import numpy as np
    import pandas as pd

    return pd.to_datetime(times, utc=True).to_numpy(dtype="datetime64[ns]").astype(np.int64)


def result_between(
    ctx: DiagnoseContext, scopes: pd.Index, code: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> np.ndarray:
    """Per pair: did a tool result of session ``scopes[code]`` arrive after lo and by hi (a
    result that came with the request at hi, in its body, counts)?"""
    import numpy as np
    import pandas as pd

    results = result_times(ctx)
    r_code = scopes.get_indexer(pd.Index(results["scope"].astype(str)))
    keep = r_code >= 0
    r_code, r_t = r_code[keep], ns(results["t"])[keep]
    if not len(r_t):
        return np.zeros(len(code), dtype=bool)
    # one sortable key per (session, time): the session code, then the time's dense rank
    uniq, inv = np.unique(np.concatenate([r_t, lo, hi]), return_inverse=True)
    width = np.int64(len(uniq) + 1)
    n_r, n_p = len(r_t), len(code)
    r_key = np.sort(r_code.astype(np.int64) * width + inv[:n_r])
    base = code.astype(np.int64) * width
    after_lo = np.searchsorted(r_key, base + inv[n_r : n_r + n_p], "right")
    before_hi = np.searchsorted(r_key, base + inv[n_r + n_p :], "right")
    return np.asarray(before_hi > after_lo)
