"""JSON lines → one pyarrow column per key, column-wise when the whole block is clean JSON.

`pyarrow.json.read_json` reads the block in C++; when it refuses (a bad line, a key whose type
changes between lines) the block is read again line by line with orjson, and lines that are not
JSON objects are reported as not ok. Timestamps are kept as text or numbers so that naive
values can take the user's zone later (pyarrow would otherwise guess them into timestamps).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

_NUMERIC = (int, float)
#: pyarrow's default block size.
_BLOCK = pj.ReadOptions().block_size


@dataclass(frozen=True, slots=True)
class JsonColumns:
    """Parsed JSON lines: columns by key (aligned with the input lines) and which lines parsed."""

    columns: dict[str, pa.Array]
    ok: pa.Array  # bool per line
    json_valued: frozenset[str] = field(default_factory=frozenset)  # columns holding JSON text


def read_json_lines(lines: pa.Array, *, text_keys: Iterable[str] = ()) -> JsonColumns:
    """Parse *lines* (one JSON object each); *text_keys* are never guessed into timestamps."""
    n = len(lines)
    if n == 0:
        return JsonColumns({}, pa.array([], pa.bool_()))
    fast = _read_block(lines, frozenset(text_keys))
    if fast is not None:
        return fast
    return _read_each(lines)


def pinned_schema(first_line: bytes, text_keys: Iterable[str]) -> pa.Schema | None:
    """Types for *text_keys* taken from *first_line* (numbers stay numbers, anything else is
    text, so pyarrow never guesses a naive timestamp); None when the line is not an object."""
    try:
        head = orjson.loads(first_line)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(head, dict):
        return None
    schema = []
    for key in text_keys:
        val = head.get(key)
        if isinstance(val, _NUMERIC) and not isinstance(val, bool):
            schema.append((key, pa.float64()))
        else:  # text, or not on the first line: never let pyarrow guess a naive timestamp
            schema.append((key, pa.string()))
    return pa.schema(schema)


#: int64's range: a larger JSON integer is left to pyarrow's inference (it reads it as float).
_INT64 = (-(1 << 63), (1 << 63) - 1)


def scalar_schema(first_line: bytes, text_keys: Iterable[str]) -> pa.Schema | None:
    """pinned_schema() plus a type for every other top-level scalar of *first_line*: pyarrow
    reads a block whose keys all have a type more cheaply than one where it infers them.

    Each type is the one pyarrow's inference gives a column that starts with that value (a
    float column takes later ints as floats; an int, string or bool column refuses what
    inference would widen or reject, and the caller then reads the block with
    pinned_schema() alone). Not pinned: nulls, objects and arrays (inferred as before), and
    text starting with a digit, which pyarrow may infer as a timestamp."""
    pinned = pinned_schema(first_line, text_keys)
    if pinned is None:
        return None
    head = orjson.loads(first_line)
    fields = list(pinned)
    for key, val in head.items():
        if key in pinned.names:
            continue
        if isinstance(val, bool):
            fields.append(pa.field(key, pa.bool_()))
        elif isinstance(val, int) and _INT64[0] <= val <= _INT64[1]:
            fields.append(pa.field(key, pa.int64()))
        elif isinstance(val, float):
            fields.append(pa.field(key, pa.float64()))
        elif isinstance(val, str) and not val[:1].isdigit():
            fields.append(pa.field(key, pa.large_string()))  # as the event table holds text
    return pa.schema(fields)


def read_json_buffer(
    data: bytes | pa.Buffer,
    n: int,
    *,
    text_keys: Iterable[str] = (),
    schema: pa.Schema | None = None,
    use_threads: bool = True,
    block_size: int | None = None,
) -> JsonColumns | None:
    """Parse a whole buffer of *n* JSON-object lines in C++; None when pyarrow refuses it.

    The types of *text_keys* are pinned from the first line (see pinned_schema), or given as
    *schema* (a block of a larger file takes the file's first line). *block_size* is pyarrow's
    (1 MiB by default); each of its blocks becomes one chunk of the columns, joined here.
    """
    buf = data if isinstance(data, pa.Buffer) else pa.py_buffer(data)
    if schema is None:
        schema = pinned_schema(memoryview(buf)[: 1 << 16].tobytes().split(b"\n", 1)[0], text_keys)
        if schema is None:
            return None
    parse = pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="infer")
    try:
        table = pj.read_json(
            pa.BufferReader(buf),
            read_options=pj.ReadOptions(use_threads=use_threads, block_size=block_size or _BLOCK),
            parse_options=parse,
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        return None
    if table.num_rows != n:
        return None
    try:
        cols = {name: _one_array(table.column(name)) for name in table.column_names}
    except pa.ArrowException:  # pyarrow chokes on some odd columns (all-null lists): go per line
        return None
    return JsonColumns(cols, pa.array(np.ones(n, dtype=bool)))


def _one_array(col: pa.ChunkedArray) -> pa.Array:
    """A column as one array: its only chunk as it is (no copy), or the chunks joined."""
    return col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()


def _read_block(lines: pa.Array, text_keys: frozenset[str]) -> JsonColumns | None:
    n = len(lines)
    listed = pa.LargeListArray.from_arrays(
        pa.array([0, n], pa.int64()), lines.cast(pa.large_string())
    )
    blob = pc.binary_join(listed, pa.scalar("\n", pa.large_string()))[0].as_buffer()
    return read_json_buffer(blob, n, text_keys=text_keys)


def _read_each(lines: pa.Array) -> JsonColumns:
    n = len(lines)
    values: dict[str, list[object]] = {}
    ok: list[bool] = []
    for i, line in enumerate(lines.to_pylist()):
        try:
            obj = orjson.loads(line) if line else None
        except (orjson.JSONDecodeError, RecursionError):
            obj = None
        if not isinstance(obj, dict):
            ok.append(False)
            continue
        ok.append(True)
        for k, v in obj.items():
            if v is None:
                continue
            col = values.get(k)
            if col is None:
                col = values[k] = [None] * n
            col[i] = v
    columns: dict[str, pa.Array] = {}
    nested: set[str] = set()
    for k, col in values.items():
        arr, is_json = _column(col)
        columns[k] = arr
        if is_json:
            nested.add(k)
    return JsonColumns(columns, pa.array(ok, pa.bool_()), frozenset(nested))


def _column(col: list[object]) -> tuple[pa.Array, bool]:
    present = [v for v in col if v is not None]
    if all(isinstance(v, str) for v in present):
        return pa.array(col, pa.large_string()), False
    if all(isinstance(v, _NUMERIC) and not isinstance(v, bool) for v in present):
        return pa.array([None if v is None else float(v) for v in col], pa.float64()), False  # type: ignore[arg-type]
    if all(isinstance(v, bool) for v in present):
        return pa.array(col, pa.bool_()), False
    nested = any(isinstance(v, dict | list) for v in present)
    text = [
        None if v is None else v if isinstance(v, str) and not nested else orjson.dumps(v).decode()
        for v in col
    ]
    return pa.array(text, pa.large_string()), nested
