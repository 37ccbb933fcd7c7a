"""Column-wise plumbing shared by the line-log adapters (middleware, nginx).

Lines live in one pyarrow string array; helpers here turn arrays into event-table columns,
build the `attrs` JSON objects without a per-row Python loop, and mark `unparsed` rows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.model.arrow import few_distinct, text_lengths, text_offsets
from toolcall_cli.model.events import COLUMNS, STR, UNPARSED, build_frame
from toolcall_cli.model.words import plural
from toolcall_cli.sources._shared.files import read_bytes
from toolcall_cli.sources._shared.json_text import struct_json
from toolcall_cli.sources.base import ParseOptions

#: Raw text kept in `detail` of an unparsed row.
RAW_CAP = 2000

_CTRL = r"[\x00-\x1f]"


def lit(text: str) -> pa.Scalar:
    """A large_string scalar (pyarrow kernels want one string width per call)."""
    return pa.scalar(text, pa.large_string())


def read_data(path: Path, opts: ParseOptions) -> bytes:
    """The bytes of *path* (gzip transparently, capped), BOM dropped; reports progress 0/total."""
    data = read_bytes(path, limit=opts.max_decompressed)
    if opts.progress:
        opts.progress(0, len(data))
    return data[3:] if data.startswith(b"\xef\xbb\xbf") else data


def split_lines(data: bytes) -> pa.Array:
    """Lines of *data* as a large_string array: a final newline adds no empty line, `\\r` ends
    are trimmed, invalid UTF-8 is replaced rather than fatal."""
    if not data:
        return pa.array([], type=pa.large_string())
    fast = _split_valid(data)
    if fast is not None:
        return fast
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
    parts = text.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    lines = pa.array(parts, type=pa.large_string())
    if "\r" in text:
        lines = pc.utf8_rtrim(lines, characters="\r")
    return lines


def _split_valid(data: bytes) -> pa.Array | None:
    """split_lines() for valid UTF-8 without a Python string per line: *data* becomes one Arrow
    string (no copy) that one kernel splits. None when *data* is not valid UTF-8 (the caller
    replaces bad bytes)."""
    bounds = pa.py_buffer(np.array([0, len(data)], np.int64))
    whole = pa.LargeStringArray.from_buffers(1, bounds, pa.py_buffer(data))
    if not data.isascii():
        try:
            whole.validate(full=True)
        except pa.ArrowInvalid:
            return None
    lines = pc.split_pattern(whole, "\n").values
    if data.endswith(b"\n"):  # a final newline adds no empty line
        lines = lines.slice(0, len(lines) - 1)
    if b"\r" in data:
        lines = pc.utf8_rtrim(lines, characters="\r")
    return lines


def read_lines(path: Path, opts: ParseOptions) -> tuple[pa.Array, int]:
    """All lines of *path* (see read_data, split_lines) plus the byte size."""
    data = read_data(path, opts)
    return split_lines(data), len(data)


def to_str_series(arr: pa.Array | pa.ChunkedArray) -> pd.Series:
    """A pyarrow string array as a pandas Series of the event table's string dtype."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if not pa.types.is_large_string(arr.type):
        arr = arr.cast(pa.large_string())
    return pd.Series(pd.arrays.ArrowStringArray(arr), dtype=STR)


def const_str(value: str, n: int) -> pd.Series:
    """A string column holding *value* n times (built in C, not from a Python list)."""
    # from its buffers: fill_null over an all-null array costs far more on a long column
    raw = value.encode()
    offsets = np.arange(n + 1, dtype=np.int64) * len(raw)
    arr = pa.LargeStringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(raw * n))
    return to_str_series(arr)


def frame(columns: dict[str, Any], n: int) -> pd.DataFrame:
    """build_frame() with absent columns made null column-wise (not from a Python list of None)."""
    import numpy as np

    full = dict(columns)
    for name, dtype in COLUMNS.items():
        if name in full:
            continue
        if dtype == STR:
            full[name] = to_str_series(pa.nulls(n, pa.large_string()))
        elif dtype == "Int64":
            full[name] = pd.arrays.IntegerArray(np.zeros(n, "int64"), np.ones(n, bool))
        elif dtype == "float64":
            full[name] = np.full(n, np.nan)
    return build_frame(full, n=n)


def null_if_dash(arr: pa.Array) -> pa.Array:
    """nginx writes `-` for an empty value; make those (and empty strings) null."""
    if pa.types.is_large_string(arr.type):  # from the offsets: no kernel pass over the text
        data = arr.buffers()[2]
        offs = text_offsets(arr)
        lengths = np.diff(offs)
        mask = lengths == 0
        one = np.flatnonzero(lengths == 1)
        if one.size and data is not None:
            mask[one] = np.frombuffer(data, np.uint8)[offs[one]] == 45
        if arr.null_count:
            mask &= pc.is_valid(arr).to_numpy(zero_copy_only=False)
        if not mask.any():
            return arr
        return pc.if_else(pa.array(mask), pa.scalar(None, arr.type), arr)
    empty = pc.or_(pc.equal(arr, "-"), pc.equal(arr, ""))
    if not pc.any(empty).as_py():
        return arr
    return pc.if_else(empty, pa.scalar(None, arr.type), arr)


def as_string(arr: pa.Array | pa.ChunkedArray) -> pa.Array:
    """Any scalar-typed array as large_string (numbers and booleans as their JSON text)."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    t = arr.type
    if pa.types.is_large_string(t):
        return arr
    if pa.types.is_dictionary(t):  # each distinct value converted once
        return as_string(arr.dictionary).take(arr.indices)
    if pa.types.is_string(t) or pa.types.is_null(t):
        return arr.cast(pa.large_string())
    if pa.types.is_boolean(t) or pa.types.is_integer(t):
        return arr.cast(pa.large_string())
    if pa.types.is_floating(t):
        # 12.0 → "12", 12.5 → "12.5" (what the log most likely said)
        as_int = pc.cast(arr, pa.int64(), safe=False)
        whole = pc.and_(pc.equal(pc.cast(as_int, t, safe=False), arr), pc.less(pc.abs(arr), 1e15))
        return pc.if_else(whole, as_int.cast(pa.large_string()), arr.cast(pa.large_string()))
    if pa.types.is_timestamp(t):
        return pc.strftime(arr, format="%Y-%m-%dT%H:%M:%S.%f").cast(pa.large_string())
    objects = struct_json(arr, _json_quote) if pa.types.is_struct(t) else None
    if objects is not None:  # column-wise, as _dump writes them
        return objects
    return pa.array([None if v is None else _dump(v) for v in arr.to_pylist()], pa.large_string())


def _dump(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS, default=str).decode()


def _json_quote(arr: pa.Array) -> pa.Array:
    """Strings as JSON string literals, vectorised; rows with control characters use orjson."""
    if pa.types.is_dictionary(arr.type):  # quote each distinct value once
        return _json_quote(arr.dictionary).take(arr.indices)
    arr = as_string(arr)
    enc = few_distinct(arr)
    if enc is not None:  # few distinct values: quote those, then broadcast
        return _json_quote(enc.dictionary).take(enc.indices)
    if not pc.any(pc.match_substring_regex(arr, r'[\x00-\x1f"\\]')).as_py():
        return pc.binary_join_element_wise(lit('"'), arr, lit('"'), lit(""))
    esc = pc.replace_substring(arr, "\\", "\\\\")
    esc = pc.replace_substring(esc, '"', '\\"')
    quoted = pc.binary_join_element_wise(lit('"'), esc, lit('"'), lit(""))
    ctrl = pc.match_substring_regex(arr, _CTRL)
    if pc.any(ctrl).as_py():
        idx = pc.indices_nonzero(ctrl).to_pylist()
        vals = arr.take(pa.array(idx)).to_pylist()
        fixed = pa.array([_dump(v) for v in vals], pa.large_string())
        mask = ctrl.fill_null(False)
        repl = pa.array([None] * len(arr), pa.large_string())
        repl = pc.replace_with_mask(repl, mask, fixed)
        quoted = pc.if_else(mask, repl, quoted)
    return quoted


@dataclass(slots=True)
class MemberOrder:
    """The members json_objects() writes first, kept from one call to the next: the blocks of
    one file (:mod:`toolcall_cli.sources.nginx.blocks`) lay their objects out as its first
    block did, even where a member the first block held on every row is null on some."""

    first: tuple[str, ...] | None = None  # set by the first call


def json_objects(
    fields: Sequence[tuple[str, pa.Array, str]], n: int, order: MemberOrder | None = None
) -> pa.Array:
    """One JSON object text per row from (key, values, kind) triples; null values are left out.

    kind is "str" (quote the text), "num"/"bool" (emit as-is; the array must hold valid JSON
    numbers/booleans as text or numbers), "json" (already JSON text) or "merge" (a JSON object
    text whose members are spliced in; the key is ignored). Rows with no fields → null.
    A field without nulls is written first (no comma to manage); the others carry a leading
    comma, and only rows that start with one are trimmed. With an *order* already set, the
    members it names come first and the others follow, each group in field order; an *order*
    not yet set records the fields this call writes first.
    """
    hoist = True  # fields without nulls go first (else: in the order's layout)
    if order is not None and order.first is None:
        order.first = tuple(
            key for key, values, kind in fields if kind != "merge" and not values.null_count
        )
    elif order is not None and order.first is not None:
        lead = set(order.first)
        fields = sorted(fields, key=lambda f: f[2] == "merge" or f[0] not in lead)  # (stable)
        hoist = False
    empty = lit("")
    full: list[tuple[str, pa.Array]] = []  # (key prefix, body) of fields present on every row
    sparse: list[pa.Array] = []  # ',"key":body' members, "" where the value is null
    present = np.zeros(n, bool)
    for key, values, kind in fields:
        if len(values) != n:
            raise ValueError(f"attrs field {key!r} has {plural(len(values), 'row')}, expected {n}")
        if values.null_count == n:
            continue
        if kind == "merge":  # an object's members spliced in
            inner = pc.utf8_slice_codeunits(as_string(values), 1, -1)
            inner = pc.if_else(pc.equal(inner, ""), pa.scalar(None, pa.large_string()), inner)
            present |= pc.is_valid(inner).to_numpy(zero_copy_only=False)
            sparse.append(pc.fill_null(pc.binary_join_element_wise(lit(","), inner, empty), empty))
            continue
        body = _json_quote(values) if kind == "str" else as_string(values)
        if values.null_count == 0 and (hoist or not sparse):
            full.append((_dump(key) + ":", body))
            present[:] = True
            continue
        present |= pc.is_valid(values).to_numpy(zero_copy_only=False)
        member = pc.binary_join_element_wise(lit("," + _dump(key) + ":"), body, empty)
        sparse.append(pc.fill_null(member, empty))
    if not present.any():
        return pa.nulls(n, pa.large_string())
    args: list[pa.Array | pa.Scalar] = [lit("{")]
    for i, (prefix, body) in enumerate(full):
        args += [lit(prefix if i == 0 else "," + prefix), body]
    args += [*sparse, lit("}"), empty]
    obj = pc.binary_join_element_wise(*args)
    if not full:  # every member carried a comma: drop the one after "{"
        fix = np.flatnonzero(present)
        raw = obj.take(pa.array(fix)).cast(pa.large_binary())
        # (pyarrow 26's binary_slice without an explicit stop fails: pass the longest length)
        trimmed = pc.binary_slice(raw, 2, int(pc.max(pc.binary_length(raw)).as_py()))
        fixed = pc.binary_join_element_wise(lit("{"), trimmed.cast(pa.large_string()), empty)
        obj = pc.replace_with_mask(obj, pa.array(present), fixed)
    if present.all():
        return obj
    return pc.if_else(pa.array(present), obj, pa.scalar(None, pa.large_string()))


def origins(path: Path, line_no: pa.Array) -> pa.Array:
    """`path:line` evidence pointers."""
    return pc.binary_join_element_wise(
        lit(str(path) + ":"), line_no.cast(pa.large_string()), lit("")
    )


def unparsed_detail(lines: pa.Array) -> pa.Array:
    """Raw text capped for `detail`."""
    return pc.utf8_slice_codeunits(lines, 0, RAW_CAP)


def unparsed_rows(
    source: str, path: Path, line_no: pa.Array, raw: pa.Array, reason: str
) -> pd.DataFrame:
    """An event table of `unparsed` rows (detail = raw text, attrs.reason)."""
    n = len(raw)
    return frame(
        {
            "seq": line_no.to_numpy(zero_copy_only=False),
            "source": const_str(source, n),
            "origin": to_str_series(origins(path, line_no)),
            "kind": const_str(UNPARSED, n),
            "detail": to_str_series(unparsed_detail(raw)),
            "attrs": const_str(_dump({"reason": reason}), n),
        },
        n=n,
    )


def attr_kind(arr: pa.Array, *, json_text: bool = False) -> str:
    """The json_objects() kind for a parsed column: numbers/booleans as-is, nested as JSON."""
    t = arr.type
    if json_text or pa.types.is_struct(t) or pa.types.is_list(t) or pa.types.is_large_list(t):
        return "json"
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t):
        return "num"
    return "str"


_NUL_RUN = re.compile(rb"\x00{16,}")


def head_lines(head: bytes, *, full: int, limit: int = 50) -> list[str]:
    """Up to *limit* non-blank text lines of a sniffed head; [] for binary data.

    When the head filled the whole sniff window (*full* bytes) its last line is cut and dropped.
    """
    # Long NUL runs are padding a crashed writer left in a text log; scattered NULs mean binary.
    head = _NUL_RUN.sub(b"", head)
    if not head or b"\x00" in head[:4096]:
        return []
    text = head.decode("utf-8", errors="replace")
    if text.count("\ufffd") > len(text) // 20:
        return []
    lines = text.lstrip("\ufeff").split("\n")
    if len(head) >= full and len(lines) > 1:
        lines.pop()
    out = [ln.rstrip("\r") for ln in lines if ln.strip()]
    return out[:limit]


def nonblank(lines: pa.Array) -> tuple[pa.Array, pa.Array]:
    """(lines that are not blank, their 1-based line numbers)."""
    import numpy as np

    # (utf8_is_space stops at the first non-space character; it is false for "")
    blank = pc.or_(pc.utf8_is_space(lines), pc.equal(pc.binary_length(lines), 0))
    keep = pc.fill_null(pc.invert(blank), False)
    line_no = pa.array(np.arange(1, len(lines) + 1, dtype="int64"))
    if pc.all(keep).as_py() or len(lines) == 0:
        return lines, line_no
    return lines.filter(keep), line_no.filter(keep)


def broadcast(values: pa.Array, indices: np.ndarray) -> pa.Array:
    """`values.take(indices)` for a few large_string values spread over many rows, written into
    one buffer of the right size.

    Arrow's take sizes its data buffer from the mean length of *values* and doubles it when the
    rows need more: a row-weighted mean above the plain one (the longer objects are the common
    ones) costs a second buffer and a copy, and the fresh pages of both. One unused value
    appended to *values* lifts their mean to what the rows need; no index names it, so the
    result is the same.
    """
    n, k = len(indices), len(values)
    if not n or not k or values.null_count or not pa.types.is_large_string(values.type):
        return values.take(pa.array(indices))
    lengths = text_lengths(values)
    need = int(lengths[indices].sum())
    per_row = -(-need // n) + 1  # (the mean Arrow takes is rounded down: one byte to spare)
    pad = per_row * (k + 1) - int(lengths.sum())
    if pad <= 0 or pad > 1 << 22:  # (mean already enough; or a pad too big to be worth it)
        return values.take(pa.array(indices))
    padded = pa.concat_arrays([values, pa.array(["\0" * pad], pa.large_string())])
    return padded.take(pa.array(indices))
