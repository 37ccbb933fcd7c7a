"""Combined lines cut into columns by Arrow's CSV reader (C++, one pass over the bytes).

A combined line is a space-delimited record with `"` quoting: `addr ident user [time zone]
"request" status size "referer" "agent" key=value...` (the `[time zone]` pair splits into two
columns; nginx writes a `"` inside a value as `\\x22`, so a quoted field holds no raw quote).
The reader takes the column count of the common line shape (from a sample); lines with another
count come back through its invalid-row handler, by line number.

The reader is lenient (`"ua"x` reads as `uax`), so a row is taken only when its line is exactly
the canonical join of its columns: the line's length is the columns' lengths plus the spaces
and six quotes, the six quotes sit where that join puts them, and no column before the
trailing ones holds a quote. Those rows, and the field checks of the split path
(:mod:`.fastpath`), give the same variables as it does. Every other line is returned by number
for the split path and the regex.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.model.arrow import holds_byte, text_bytes, text_lengths, text_offsets
from toolcall_cli.sources.nginx.shape import FileShape

if TYPE_CHECKING:
    from collections.abc import Callable

    import pyarrow.csv as csv

#: Columns before the trailing ones: addr ident user [time zone] request status size referer agent.
_FIXED = 10
#: Lines sampled for the common column count.
_SAMPLE = 2000
#: The quoted columns (request, referer, agent).
_QUOTED = (5, 8, 9)


@dataclass(frozen=True, slots=True)
class CsvCut:
    """Variables of the rows the reader took (in line order) and which lines they are."""

    taken: np.ndarray  # 0-based physical line indices, ascending
    variables: dict[str, pa.Array]  # aligned with `taken`
    tokens: list[pa.Array]  # the trailing columns (their join is the tail text)
    quotes: bool = True  # False when no column of the taken rows holds a quote


#: Bytes scanned at a time: the masks stay small, and each piece is still in the cache for
#: the second byte it is searched for.
_PIECE = 1 << 18


def scan_lines(data: bytes) -> tuple[np.ndarray, np.ndarray, int]:
    """(start, end) byte offsets of each physical line (a final newline adds no line; one
    `\\r` before the newline is left out) and the number of `"` in *data*, in one pass over it."""
    buf = np.frombuffer(data, np.uint8)
    found, quotes = [], 0
    for i in range(0, len(buf), _PIECE):
        piece = buf[i : i + _PIECE]
        found.append(np.flatnonzero(piece == 10) + i)
        quotes += int(np.count_nonzero(piece == 34))
    nl = np.concatenate(found or [np.zeros(0, np.int64)])
    if not data.endswith(b"\n"):
        nl = np.append(nl, len(buf))
    starts = np.concatenate([[0], nl[:-1] + 1]).astype(np.int64)
    ends = nl.astype(np.int64)
    cr = ends > starts
    cr[cr] = buf[ends[cr] - 1] == 13
    return starts, ends - cr, quotes


def column_count(sample: list[str]) -> int | None:
    """The most common column count among sampled lines with exactly six quotes."""
    counts: Counter[int] = Counter()
    for line in sample:
        pieces = line.split('"')
        if len(pieces) != 7:
            continue
        head = pieces[0].split(" ")
        tail = pieces[6].strip(" ")
        mid = pieces[2].strip(" ").split(" ")
        counts[len(head) - 1 + 1 + len(mid) + 2 + (len(tail.split(" ")) if tail else 0)] += 1
    if not counts:
        return None
    m, _ = counts.most_common(1)[0]
    return m if m >= _FIXED else None


def reader_options(
    columns: int, block_size: int, invalid_row_handler: Callable[[csv.InvalidRow], str]
) -> tuple[csv.ReadOptions, csv.ParseOptions, csv.ConvertOptions]:
    """Arrow's CSV reader as cut() runs it on combined lines of *columns* columns."""
    import pyarrow.csv as csv

    names = [f"c{i}" for i in range(columns)]
    return (
        # one thread: the invalid rows' line numbers are known only then
        csv.ReadOptions(column_names=names, use_threads=False, block_size=block_size),
        csv.ParseOptions(
            delimiter=" ",
            quote_char='"',
            double_quote=False,
            escape_char=False,
            newlines_in_values=False,
            ignore_empty_lines=False,  # blank lines are rows: line numbers stay physical
            invalid_row_handler=invalid_row_handler,
        ),
        csv.ConvertOptions(
            column_types=dict.fromkeys(names, pa.large_string()),
            check_utf8=False,  # the caller checked all of *data* (csv_combined)
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
        ),
    )


def cut(
    data: bytes,
    starts: np.ndarray,
    ends: np.ndarray,
    shape: FileShape | None = None,
    quotes_in_data: int | None = None,
) -> CsvCut | None:
    """The rows of *data* (valid UTF-8) the reader takes, or None when it cannot be used (no
    common combined shape, or its rows do not line up with the lines). The column count is
    *shape*'s when an earlier block of the file found it; *quotes_in_data* is the count of
    `"` in *data* when the caller has it (scan_lines())."""
    import pyarrow.csv as csv

    m = None if shape is None else shape.columns
    if m is None:
        head = zip(starts[:_SAMPLE].tolist(), ends[:_SAMPLE].tolist(), strict=True)
        m = column_count([data[s:e].decode() for s, e in head])
        if m is None:
            return None
        if shape is not None:
            shape.columns = m
    invalid: list[int] = []

    def skip(row: csv.InvalidRow) -> str:
        invalid.append(-1 if row.number is None else row.number - 1)
        return "skip"

    # one block for all of *data*: each column comes as one chunk, joined without a copy
    read, parse, convert = reader_options(m, max(len(data) + 1, 1 << 20), skip)
    try:
        table = csv.read_csv(
            pa.BufferReader(data), read_options=read, parse_options=parse, convert_options=convert
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    lines = len(starts)
    bad = np.asarray(invalid, np.int64)
    if (bad < 0).any() or table.num_rows + len(bad) != lines:
        return None  # rows that do not line up with the lines: not this reader's input
    rows = np.arange(lines) if not len(bad) else np.setdiff1d(np.arange(lines), bad)
    cols = [_one_array(table.column(i)) for i in range(m)]
    del table
    good = _canonical(data, cols, starts[rows], ends[rows])
    # the quotes the reader consumed are the six canonical ones only when no value before the
    # trailing holds one: certain at once when the input has no quote beyond six a row taken
    quotes = not _six_quotes_each(data, starts, ends, rows[good], quotes_in_data)
    if quotes:
        for i in range(_FIXED):
            if holds_byte(cols[i], 34):
                good &= ~pc.match_substring(cols[i], '"').to_numpy(zero_copy_only=False)
    good &= _fields_ok(data, cols)
    keep = np.flatnonzero(good)
    if len(keep) < len(rows):
        sel = pa.array(keep)
        cols = [c.take(sel) for c in cols]
    return CsvCut(rows[keep], _variables(cols), cols[_FIXED:], quotes)


def _one_array(col: pa.ChunkedArray) -> pa.Array:
    """The column as one array (combine_chunks() copies even a single chunk)."""
    return col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()


def _canonical(
    data: bytes, cols: list[pa.Array], starts: np.ndarray, ends: np.ndarray
) -> np.ndarray:
    """Rows whose line is exactly the canonical join of their columns."""
    # the byte length of a row's first k columns is the step of the running sum of their
    # offsets: one add per column and a diff per quote, not a diff per column
    m = len(cols)
    run = text_offsets(cols[0]).copy()
    upto = {}  # k -> lengths of the row's first k columns
    for k in range(1, m):
        if k in (5, 6, 8, 9, 10):
            upto[k] = np.diff(run)
        run += text_offsets(cols[k])
    upto[m] = np.diff(run)
    q0 = upto[5] + 5
    q1 = upto[6] + 6
    q2 = upto[8] + 10
    q3 = upto[9] + 11
    q4 = q3 + 2
    q5 = upto[10] + 14
    total = q5 + 1 + (upto[m] - upto[10] + (m - _FIXED) if m > _FIXED else 0)
    good = ends - starts == total
    buf = np.frombuffer(data, np.uint8)
    at = np.where(good, starts, 0)
    for q in (q0, q1, q2, q3, q4, q5):
        good &= buf[at + np.where(good, q, 0)] == 34
    return good


#: Lines outside the taken rows whose quotes _six_quotes_each() counts one by one.
_COUNTED = 10_000


def _six_quotes_each(
    data: bytes, starts: np.ndarray, ends: np.ndarray, taken: np.ndarray, total: int | None
) -> bool:
    """True when the *taken* lines hold six quotes each and no more (one count over the
    input, *total* when known, less the quotes of the other lines)."""
    other = np.ones(len(starts), bool)
    other[taken] = False
    idx = np.flatnonzero(other)
    if len(idx) > _COUNTED:
        return False
    elsewhere = sum(data.count(b'"', int(starts[i]), int(ends[i])) for i in idx)
    return (data.count(b'"') if total is None else total) == 6 * len(taken) + elsewhere


def _fields_ok(data: bytes, cols: list[pa.Array]) -> np.ndarray:
    """The split path's checks: `\\S+ \\S+ \\S+ \\[[^\\]]+\\] ` head, `\\d{3}|-` status,
    `\\d+|-` size, no backslash in a quoted value."""
    n = len(cols[0])
    good = np.ones(n, bool)
    for c in cols[:3]:  # \S+: not empty; RE2's \s is [\t\n\f\r ] (no \n or \r inside a line)
        good &= text_lengths(c) > 0
    if b"\t" in data or b"\f" in data:
        for c in cols[:3]:
            good &= ~pc.match_substring_regex(c, r"[\t\f]").to_numpy(zero_copy_only=False)
    good &= _edge_byte(cols[3], 91, first=True)  # `[`
    closed = _edge_byte(cols[4], 93, first=False)  # `]`
    good &= closed
    # [^\]]+ between the brackets: no other `]` (the zone column ends with the closing one)
    if holds_byte(cols[3], 93):
        good &= ~pc.match_substring(cols[3], "]").to_numpy(zero_copy_only=False)
    if _count_byte(cols[4], 93) != closed.sum():  # (else each closed one holds that one only)
        good &= pc.equal(pc.count_substring(cols[4], "]"), 1).to_numpy(zero_copy_only=False)
    # (RE2's \d is ASCII: ascii_is_decimal without the regex engine; it is false for "")
    status, size = cols[6], cols[7]
    digits = pc.ascii_is_decimal(status).to_numpy(zero_copy_only=False)
    digits &= text_lengths(status) == 3
    good &= digits | _is_dash(status)
    good &= pc.ascii_is_decimal(size).to_numpy(zero_copy_only=False) | _is_dash(size)
    if b"\\" not in data:  # (one memchr over the block instead of a scan per quoted column)
        return good
    for i in _QUOTED:  # `\"` is an escape to the regex: those lines are its to read
        if holds_byte(cols[i], 92):
            good &= ~pc.match_substring(cols[i], "\\").to_numpy(zero_copy_only=False)
    return good


def _is_dash(text: pa.Array) -> np.ndarray:
    """Values of a large_string array that are exactly `-` (no kernel)."""
    return (text_lengths(text) == 1) & _edge_byte(text, 45, first=True)


def _edge_byte(text: pa.Array, byte: int, *, first: bool) -> np.ndarray:
    """Values of a large_string array that start (*first*) or end with *byte* (no kernel)."""
    values = text.buffers()[2]
    offs = text_offsets(text)
    if values is None:
        return np.zeros(len(text), bool)
    buf = np.frombuffer(values, np.uint8)
    nonempty = offs[1:] > offs[:-1]
    at = np.where(nonempty, offs[:-1] if first else offs[1:] - 1, 0)
    return nonempty & (buf[at] == byte) if len(buf) else nonempty


def _count_byte(text: pa.Array, byte: int) -> int:
    """How often *byte* occurs in the values of a large_string array (one scan)."""
    return int(np.count_nonzero(text_bytes(text) == byte))


def _variables(cols: list[pa.Array]) -> dict[str, pa.Array]:
    """The split path's variables from the columns of canonical rows."""
    sp = pa.scalar(" ", pa.large_string())
    when = pc.binary_join_element_wise(
        pc.utf8_slice_codeunits(cols[3], 1, 2**31), pc.utf8_slice_codeunits(cols[4], 0, -1), sp
    )
    return {
        "remote_addr": cols[0],
        "ident": cols[1],
        "remote_user": cols[2],
        "time_local": when,
        "request": cols[5],
        "status": cols[6],
        "body_bytes_sent": cols[7],
        "http_referer": cols[8],
        "http_user_agent": cols[9],
    }


#: Runs of rows from which interleave() takes instead of concatenating slices.
_RUNS = 4096


def interleave(first: pa.Array, second: pa.Array, at: np.ndarray) -> pa.Array:
    """*first* and *second* merged in row order, where *at* (ascending, one per row of the
    result) is True for rows of *second*: slices when the rows come in few runs, else a take."""
    first, second = first.cast(pa.large_string()), second.cast(pa.large_string())
    edges = np.flatnonzero(np.diff(at.astype(np.int8))) + 1
    if len(edges) > _RUNS:
        order = np.argsort(np.concatenate([np.flatnonzero(~at), np.flatnonzero(at)]), kind="stable")
        return pa.concat_arrays([first, second]).take(pa.array(order))
    pieces, pos = [], [0, 0]
    bounds = np.concatenate([[0], edges, [len(at)]])
    for lo, hi in pairwise(bounds):
        side = int(at[lo])
        src = second if side else first
        pieces.append(src.slice(pos[side], hi - lo))
        pos[side] += hi - lo
    return pa.concat_arrays(pieces) if pieces else first.slice(0, 0)
