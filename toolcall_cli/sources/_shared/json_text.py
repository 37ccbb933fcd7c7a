"""JSON text of parsed objects, column-wise: what orjson writes for each row's dict.

A JSON-lines key holding objects (`"headers": {...}`) arrives from pyarrow as a struct column;
its `attrs` text is the object written back. Per row through Python (to_pylist, orjson) that
costs seconds on a million rows; for objects made of text, integers, booleans and objects of
those, the text is assembled with pyarrow kernels instead. Floats (orjson's shortest-repr
digits), lists and timestamps are left to the caller's per-row writer.
"""

from __future__ import annotations

from collections.abc import Callable

import orjson
import pyarrow as pa
import pyarrow.compute as pc

#: Quotes a text column as JSON string literals (null stays null).
Quote = Callable[[pa.Array], pa.Array]

_NULL = pa.scalar("null", pa.large_string())
_EMPTY = pa.scalar("", pa.large_string())


def _writable(t: pa.DataType) -> bool:
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_null(t):
        return True
    if pa.types.is_integer(t) or pa.types.is_boolean(t):
        return True
    return pa.types.is_struct(t) and t.num_fields > 0 and all(_writable(f.type) for f in t)


def struct_json(arr: pa.Array, quote: Quote) -> pa.Array | None:
    """`orjson.dumps(row)` of every object of the struct column *arr* (null rows stay null,
    null members are written `null`); None when a member has a type not written here."""
    if not _writable(arr.type):
        return None
    return _objects(arr, quote)


def _objects(arr: pa.Array, quote: Quote) -> pa.Array:
    args: list[pa.Array | pa.Scalar] = []
    for i, f in enumerate(arr.type):
        key = ("{" if i == 0 else ",") + orjson.dumps(f.name).decode() + ":"
        args += [pa.scalar(key, pa.large_string()), _value(arr, i, quote)]
    args += [pa.scalar("}", pa.large_string()), _EMPTY]
    text = pc.binary_join_element_wise(*args)
    if arr.null_count == 0:
        return text
    return pc.if_else(pc.is_valid(arr), text, pa.scalar(None, pa.large_string()))


def _value(arr: pa.Array, i: int, quote: Quote) -> pa.Array:
    """Member *i* of every row as JSON text, `null` where it is null (or its row is)."""
    child = pc.struct_field(arr, [i])
    t = child.type
    if pa.types.is_null(t):
        return pc.fill_null(pa.nulls(len(child), pa.large_string()), _NULL)
    if pa.types.is_struct(t):
        text = _objects(child, quote)
    elif pa.types.is_integer(t) or pa.types.is_boolean(t):
        text = child.cast(pa.large_string())
    else:
        text = quote(child)
    return pc.fill_null(text, _NULL)
