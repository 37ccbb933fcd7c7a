"""Text columns of the pcap events built with pyarrow kernels: JSON objects, joined words.

The `attrs` object of every message is written here column-wise, members in a fixed order (the
committed event tables of tests/golden/events/pcap hold it), as ``orjson.dumps`` of a dict
would write them. (pyarrow
26's ``binary_join_element_wise(null_handling="skip")`` drops rows whose parts are all null, so
it is used only when one member is never null — the frame number of every message; otherwise
a missing part is an empty string and a leading separator is cut.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.model.arrow import few_distinct

#: Characters a JSON string must escape (orjson escapes exactly these).
_NEEDS_ESCAPE: Final = r'[\x00-\x1f"\\]'


def lit(text: str) -> pa.Scalar:
    """A large_string scalar (kernels want one string width per call)."""
    return pa.scalar(text, pa.large_string())


_EMPTY: Final = lit("")


def text(values: Any) -> pa.Array:
    """A column of str (or None/NaN) values, or an Arrow-backed Series, as large_string."""
    if isinstance(values, pd.Series):
        values = values.array
    if isinstance(values, pd.arrays.ArrowStringArray) or hasattr(values, "_pa_array"):
        arr = values._pa_array  # (pandas keeps the Arrow data there)
        if isinstance(arr, pa.ChunkedArray):  # one chunk is taken as it is (no copy)
            arr = arr.chunk(0) if arr.num_chunks == 1 else arr.combine_chunks()
        return arr if arr.type == pa.large_string() else arr.cast(pa.large_string())
    return pa.array(values, pa.large_string(), from_pandas=True)


def nonempty(arr: pa.Array) -> pa.Array:
    """*arr* with empty strings made null."""
    empty = pc.equal(arr, _EMPTY)
    if not pc.any(empty).as_py():
        return arr
    return pc.if_else(empty, pa.scalar(None, arr.type), arr)


def scatter(n: int, rows: np.ndarray, values: pa.Array) -> pa.Array:
    """A column of *n* nulls holding *values* at *rows*."""
    pos = np.full(n, -1, np.int64)
    pos[rows] = np.arange(len(rows))
    return values.take(pa.array(pos, mask=pos < 0))


def quote(arr: pa.Array) -> pa.Array:
    """Strings as JSON string literals, as orjson writes them (null stays null)."""
    enc = few_distinct(arr)
    if enc is not None:  # a method, a content type: each distinct value quoted once
        return quote(enc.dictionary).take(enc.indices)
    bad = pc.match_substring_regex(arr, _NEEDS_ESCAPE)
    plain = pc.binary_join_element_wise(lit('"'), arr, lit('"'), _EMPTY)
    if not pc.any(bad).as_py():
        return plain
    idx = np.flatnonzero(bad.fill_null(False).to_numpy(zero_copy_only=False))
    fixed = [orjson.dumps(v).decode() for v in arr.take(pa.array(idx)).to_pylist()]
    return pc.replace_with_mask(plain, bad.fill_null(False), pa.array(fixed, pa.large_string()))


def numbers(values: np.ndarray, valid: np.ndarray | None = None) -> pa.Array:
    """Integers (or booleans) as JSON text, null where not *valid*."""
    arr = pa.array(values)
    text_ = arr.cast(pa.large_string())
    if valid is None:
        return text_
    return pc.if_else(pa.array(valid), text_, pa.scalar(None, pa.large_string()))


def json_values(values: Sequence[Any]) -> pa.Array:
    """Any JSON values as their compact text; None and "" (left out of attrs) as null.

    All-text and all-integer columns are written column-wise, anything else value by value."""
    kinds = {type(v) for v in values}
    try:
        if kinds <= {str, type(None)}:
            return quote(nonempty(pa.array(values, pa.large_string())))
        if kinds <= {int, type(None)}:
            return pa.array(values, pa.int64()).cast(pa.large_string())
    except OverflowError:  # beyond 64 bits: orjson's own answer below
        pass
    out = [
        None
        if v is None or (type(v) is str and not v)
        else orjson.dumps(v, option=orjson.OPT_NON_STR_KEYS, default=str).decode()
        for v in values
    ]
    return pa.array(out, pa.large_string())


def objects(members: Sequence[tuple[str, pa.Array]], n: int) -> pa.Array:
    """One JSON object per row from (key, JSON text) members in order; null members are left
    out; a member whose key is empty is an object text spliced in (its braces dropped)."""
    members = [(key, body) for key, body in members if body.null_count < len(body)]
    if any(key and not body.null_count for key, body in members):
        return _objects_skipping_nulls(members)
    parts: list[pa.Array | pa.Scalar] = []
    for key, body in members:
        if key:
            head = lit("," + orjson.dumps(key).decode() + ":")
            member = pc.binary_join_element_wise(head, body, _EMPTY)
            parts.append(pc.fill_null(member, _EMPTY) if body.null_count else member)
        else:
            inner = pc.utf8_slice_codeunits(body, 1, -1)
            inner = pc.if_else(pc.equal(inner, _EMPTY), pa.scalar(None, inner.type), inner)
            parts.append(pc.fill_null(pc.binary_join_element_wise(lit(","), inner, _EMPTY), _EMPTY))
    if not parts:
        return pc.fill_null(pa.nulls(n, pa.large_string()), lit("{}"))
    joined = pc.binary_join_element_wise(*parts, _EMPTY) if len(parts) > 1 else parts[0]
    return pc.binary_join_element_wise(
        lit("{"), pc.utf8_slice_codeunits(joined, 1), lit("}"), _EMPTY
    )


def _objects_skipping_nulls(members: Sequence[tuple[str, pa.Array]]) -> pa.Array:
    """:func:`objects` when some keyed member is never null: one join that skips the null
    members and their commas (no row has all parts null, where pyarrow's skip loses rows)."""
    parts: list[pa.Array] = []
    for key, body in members:
        if key:
            parts.append(
                pc.binary_join_element_wise(lit(orjson.dumps(key).decode() + ":"), body, _EMPTY)
            )
        else:
            inner = pc.utf8_slice_codeunits(body, 1, -1)
            parts.append(pc.if_else(pc.equal(inner, _EMPTY), pa.scalar(None, inner.type), inner))
    joined = pc.binary_join_element_wise(*parts, lit(","), null_handling="skip")
    return pc.binary_join_element_wise(lit("{"), joined, lit("}"), _EMPTY)


def words(parts: Sequence[pa.Array], sep: str = " ") -> pa.Array:
    """The non-empty parts of each row joined by *sep* ("" when none), as ``sep.join``."""
    members = [
        pc.fill_null(pc.binary_join_element_wise(lit(sep), nonempty(p), _EMPTY), _EMPTY)
        for p in parts
    ]
    joined = pc.binary_join_element_wise(*members, _EMPTY) if len(members) > 1 else members[0]
    return pc.utf8_slice_codeunits(joined, len(sep))
