"""The layout reader of trailing text: rows of plain `key=value` tokens in a common layout.

Production lines carry many trailing keys nginx knows nothing about (`upstream_addr=…
cache=MISS pod=…`) beside the correlation keys. A sample of rows gives the common layouts (the
keys as written, position by position); every row whose tokens match them is read column-wise,
a kernel call per (position, key): known keys become variables, the others one attrs object
text per row, members in row order, as the row-wise reader of :mod:`.combined` writes them.
Other rows (quotes, tabs, non-ASCII, a repeated other key, rare layouts) are left to it.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.model.arrow import text_bytes, text_offsets
from toolcall_cli.sources.nginx.shape import FileShape
from toolcall_cli.sources.nginx.trailing_keys import TRAILING_KEYS, scatter

#: Rows sampled for layouts, and the most layouts kept.
_SAMPLE = 2000
_MAX_LAYOUTS = 8

#: A key the row-wise reader's pair pattern takes (`[A-Za-z_][\w.-]*`, ASCII here).
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")

_EMPTY = pa.scalar("", pa.large_string())

#: (hit mask, value) of a key at one position, one per key.
_Hits = list[tuple[np.ndarray, pa.Array]]
#: (hit mask, key, value) of an other key at one position, one per key.
_Members = list[tuple[np.ndarray, str, pa.Array]]


def _layout_of(row: str) -> tuple[str, ...] | None:
    """The keys (as written) of a row made only of plain `key=value` tokens, else None; a row
    naming an other (not known) key twice has no layout (its first value wins, row-wise)."""
    if not row.isascii() or not row.isprintable() or '"' in row:
        return None
    keys = []
    for tok in row.split(" "):
        if not tok:
            continue
        key, eq, _ = tok.partition("=")
        if not eq or not _KEY.fullmatch(key):
            return None
        keys.append(key)
    others = [k for k in keys if k.lower() not in TRAILING_KEYS]
    if len(set(others)) < len(others):
        return None
    return tuple(keys) or None


def _plain_rows(text: pa.Array, *, quotes: bool = True) -> np.ndarray:
    """Rows of printable ASCII without a quote (one kernel, and one scan of the data buffer for
    the quotes, unless the caller knows there is none: *quotes* False)."""
    n = len(text)
    values = text_bytes(text)
    if not len(values) or (values.min() >= 32 and values.max() <= 126):
        # every value printable ASCII (the common case): one scan instead of the kernel
        # (ascii_is_printable is true for "" too, and nulls count as plain)
        plain = np.ones(n, bool)
    else:
        plain = pc.ascii_is_printable(text).fill_null(True).to_numpy(zero_copy_only=False).copy()
    if not len(values) or not quotes:
        return plain
    offs = text_offsets(text)
    quotes = np.flatnonzero(values == 34) + offs[0]
    plain[np.searchsorted(offs, quotes, side="right") - 1] = False
    return plain


def joined(tokens: list[pa.Array], rows: np.ndarray | None = None) -> pa.Array:
    """The trailing text of *rows* (all when None) from its tokens: joined on single spaces,
    trimmed."""
    cols = tokens if rows is None else [t.take(pa.array(rows)) for t in tokens]
    sp = pa.scalar(" ", pa.large_string())
    text = cols[0] if len(cols) == 1 else pc.binary_join_element_wise(*cols, sp)
    return pc.utf8_trim_whitespace(text)


def plain_token_rows(tokens: list[pa.Array], *, quotes: bool = True) -> np.ndarray:
    """_plain_rows() of the rows' joined tokens, token by token (no join: a space is plain);
    *quotes* False when no token holds a quote."""
    plain = _plain_rows(tokens[0], quotes=quotes)
    for tok in tokens[1:]:
        plain &= _plain_rows(tok, quotes=quotes)
    return plain


def _layouts(
    text: pa.Array | None, has: np.ndarray, tokens: list[pa.Array] | None
) -> list[tuple[str, ...]]:
    """The common layouts of a sample of the rows (each seen in at least 1% of it)."""
    if text is None:
        assert tokens is not None
        sample = joined(tokens, np.flatnonzero(has)[:_SAMPLE]).to_pylist()
    else:
        sample = text.filter(pa.array(has)).slice(0, _SAMPLE).to_pylist()
    counts = Counter(lay for lay in map(_layout_of, sample) if lay is not None)
    floor = max(1, len(sample) // 100)
    return [lay for lay, c in counts.most_common(_MAX_LAYOUTS) if c >= floor]


def by_layout(
    text: pa.Array | None,
    has: np.ndarray,
    tokens: list[pa.Array] | None = None,
    shape: FileShape | None = None,
    plain: np.ndarray | None = None,
) -> tuple[dict[str, pa.Array], np.ndarray, pa.Array | None]:
    """Rows whose tokens, position by position, are `key=value` with a key seen there in a
    sample (single spaces, plain values): (variables of known keys, rows read, attrs object text
    of the other keys or None). Other rows are left for the token path. A value is the token
    after `key=`; the first key of a variable wins. *tokens*, when given, are the rows' tokens
    already cut, one column per position (*text* is their join on single spaces, trimmed).
    The layouts are *shape*'s when an earlier block of the file sampled them. *text* may be
    None when *tokens* and their *plain* rows (plain_token_rows()) are given."""
    n = len(has)
    done = np.zeros(n, bool)
    layouts = None if shape is None else shape.layouts
    if layouts is None:
        layouts = _layouts(text, has, tokens)
        if shape is not None:
            shape.layouts = layouts
    if not layouts:
        return {}, done, None
    width = max(map(len, layouts))
    keys_at = [list(dict.fromkeys(lay[j] for lay in layouts if len(lay) > j)) for j in range(width)]
    if plain is None:
        assert text is not None
        plain = _plain_rows(text)
    idx = np.flatnonzero(has & plain)
    if not idx.size:
        return {}, done, None
    sel = None if idx.size == n else pa.array(idx)
    if tokens:
        cols = tokens if sel is None else [t.take(sel) for t in tokens]
        ntok = np.full(idx.size, len(cols))

        def token_at(j: int, present: np.ndarray) -> pa.Array:
            return cols[min(j, len(cols) - 1)]  # (rows past their last token are not present)
    else:
        assert text is not None
        parts = pc.split_pattern(text if sel is None else text.take(sel), " ")
        ntok = pc.list_value_length(parts).to_numpy(zero_copy_only=False)
        starts = parts.offsets.to_numpy()[:-1].astype("int64")

        def token_at(j: int, present: np.ndarray) -> pa.Array:
            return parts.values.take(pa.array(np.where(present, starts + j, 0)))

    ok = ntok <= width
    hits: dict[str, _Hits] = {}  # variable -> hits, by position
    other_at: list[_Members] = []  # per position: the other keys and their values
    times: dict[str, np.ndarray] = {}  # other key -> how often a row names it
    for j, keys in enumerate(keys_at):
        present = ntok > j
        tok = token_at(j, present)
        raw = tok.cast(pa.large_binary())  # plain rows are ASCII: byte slices are char slices
        matched = np.zeros(idx.size, bool)
        members: _Members = []
        for key in keys:
            hit = present & pc.starts_with(tok, key + "=").to_numpy(zero_copy_only=False)
            matched |= hit
            # (a view, not a cast: ASCII needs no UTF-8 check)
            value = pc.binary_slice(raw, len(key) + 1, 1 << 40).view(pa.large_string())
            var = TRAILING_KEYS.get(key.lower())
            if var is not None:
                hits.setdefault(var, []).append((hit, value))
                continue
            times[key] = times.get(key, 0) + hit
            members.append((hit, key, value))
        other_at.append(members)
        ok &= matched | ~present
    for count in times.values():  # the row-wise reader keeps an other key's first value
        ok &= count <= 1
    done[idx[ok]] = True
    out: dict[str, pa.Array] = {}
    for var, found in hits.items():
        col = _first(found, ok)
        if col.null_count < len(col):
            out[var] = col if idx.size == n else scatter(pa.array(idx), col, n)
    others = _objects(other_at, ok)
    if others is not None and idx.size != n:
        others = scatter(pa.array(idx), others.cast(pa.large_string()), n)
    return out, done, others


def _first(found: _Hits, ok: np.ndarray) -> pa.Array:
    """Per row, the first value that hit (null when none did, or the row is not read)."""
    nothing = pa.scalar(None, pa.large_string())
    first_hit, first_value = found[0]
    if (first_hit & ok).all():  # the common case: every row read has this key here
        return first_value
    cols = [pc.if_else(pa.array(hit & ok), v, nothing) for hit, v in found]
    return pc.coalesce(*cols) if len(cols) > 1 else cols[0]


def _member(key: str, value: pa.Array) -> pa.Array:
    """`,"key":"value"` per row; plain values hold no quote or control character, so a
    backslash is all JSON escapes."""
    if pc.any(pc.match_substring(value, "\\")).as_py():
        value = pc.replace_substring(value, "\\", "\\\\")
    prefix = pa.scalar("," + orjson.dumps(key).decode() + ':"', pa.large_string())
    return pc.binary_join_element_wise(prefix, value, pa.scalar('"', pa.large_string()), _EMPTY)


def _objects(other_at: list[_Members], ok: np.ndarray) -> pa.Array | None:
    """The other keys' JSON object per row read (null when it names none), or None when no
    row does: members position by position, which is row order."""
    empty = _EMPTY
    named = np.zeros(len(ok), bool)
    for members in other_at:
        for hit, _, _ in members:
            named |= hit
    named &= ok
    if not named.any():
        return None
    few = _few_objects(other_at, named)
    if few is not None:
        return few
    pieces = [
        pc.fill_null(_first([(hit, _member(key, v)) for hit, key, v in members], ok), empty)
        for members in other_at
        if members
    ]
    joined = pc.binary_join_element_wise(*pieces, empty).cast(pa.large_binary())
    inner = pc.binary_slice(joined, 1, 1 << 40).view(pa.large_string())  # drop the first comma
    obj = pc.binary_join_element_wise(
        pa.scalar("{", pa.large_string()), inner, pa.scalar("}", pa.large_string()), empty
    )
    return pc.if_else(pa.array(named), obj, pa.scalar(None, pa.large_string()))


def _few_objects(other_at: list[_Members], named: np.ndarray) -> pa.Array | None:
    """_objects() as a dictionary array, each distinct object written once, when every row
    read names the same other keys (one per position) and their values repeat (production's
    `upstream_addr=… cache=… region=…`); None otherwise."""
    columns = [members[0] for members in other_at if members]
    if any(len(m) > 1 for m in other_at) or any((named & ~hit).any() for hit, _, _ in columns):
        return None
    rows = np.flatnonzero(named)
    n = len(rows)
    codes = np.zeros(n, np.int64)
    span, dictionaries = 1, []
    sel = None if n == len(named) else pa.array(rows)  # (every row named: no copy)
    for _, _, value in columns:
        enc = pc.dictionary_encode(value if sel is None else value.take(sel))
        radix = len(enc.dictionary) + 1
        span *= radix
        if span * 16 > max(n, 1) or span >= 1 << 62:
            return None
        codes = codes * radix + enc.indices.fill_null(radix - 1).to_numpy(zero_copy_only=False)
        dictionaries.append(enc)
    first, inverse = _unique_codes(codes, span)
    texts = []
    for row in first:
        parts = [
            orjson.dumps(key).decode() + ':"' + _escape(enc.dictionary[enc.indices[row].as_py()])
            for (_, key, _), enc in zip(columns, dictionaries, strict=True)
        ]
        texts.append("{" + ",".join(parts) + "}")
    full = np.zeros(len(named), np.int32)
    full[rows] = inverse
    indices = pa.array(full, mask=~named)
    return pa.DictionaryArray.from_arrays(indices, pa.array(texts, pa.large_string()))


def _unique_codes(codes: np.ndarray, span: int) -> tuple[np.ndarray, np.ndarray]:
    """np.unique(codes, return_index=True, return_inverse=True)[1:] for codes in [0, span),
    span small beside their number: a table of span slots instead of a sort."""
    first = np.full(span, len(codes), np.int64)
    np.minimum.at(first, codes, np.arange(len(codes)))
    present = first < len(codes)
    rank = np.cumsum(present) - 1  # each present code's place among the sorted distinct ones
    return first[present], rank[codes]


def _escape(value: pa.Scalar) -> str:
    """A plain value's JSON string body (plain values hold no quote or control character)."""
    return str(value.as_py()).replace("\\", "\\\\") + '"'
