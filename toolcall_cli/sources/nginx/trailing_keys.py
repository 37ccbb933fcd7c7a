"""The trailing keys of combined lines that name nginx variables, and the scatter both trailing
readers (:mod:`.combined`, :mod:`.trailing_layout`) place their columns with."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

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


def scatter(where: pa.Array, values: pa.Array, n: int) -> pa.Array:
    """Place *values* at row positions *where* of an all-null array of length *n*."""
    mask = np.zeros(n, bool)
    mask[where.to_numpy(zero_copy_only=False)] = True
    base = pa.nulls(n, pa.large_string())
    return pc.replace_with_mask(base, pa.array(mask), values)
