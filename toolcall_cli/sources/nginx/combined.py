"""The built-in nginx/Apache `combined` (and `common`) parser, with trailing fields.

Trailing text after the user agent is read as `key=value` / `key="value"` pairs (the
correlation keys of DESIGN §2 are recognised by name) and extra quoted fields, which land in
`attrs.extra` in order (e.g. `"$http_x_forwarded_for"` of nginx's `main` format).

Three readers, fastest first, each giving the same values for the rows it takes: by_layout()
(:mod:`.trailing_layout`: plain `key=value` tokens whose keys, position by position, were seen
in a sample), the column-wise token reader (any order, known keys only), and Python for
everything else (quoted values, bare fields, rare layouts).
"""

from __future__ import annotations

import re

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.model.arrow import text_lengths
from toolcall_cli.sources.nginx.shape import FileShape
from toolcall_cli.sources.nginx.trailing_keys import TRAILING_KEYS, scatter
from toolcall_cli.sources.nginx.trailing_layout import by_layout, joined, plain_token_rows

#: ONE regex, RE2-compatible (pyarrow) and Python-compatible; quoted fields honour `\"` escapes.
COMBINED_RX = (
    r"^(?P<remote_addr>\S+) (?P<ident>\S+) (?P<remote_user>\S+) \[(?P<time_local>[^\]]+)\] "
    r'"(?P<request>(?:[^"\\]|\\.)*)" (?P<status>\d{3}|-) (?P<body_bytes_sent>\d+|-)'
    r'(?: "(?P<http_referer>(?:[^"\\]|\\.)*)" "(?P<http_user_agent>(?:[^"\\]|\\.)*)")?'
    r"(?P<trailing>.*)$"
)

#: A cheap test for sniffing: the combined/common prefix up to the status code.
HEAD_RX = re.compile(
    r"^\S+ \S+ \S+ \[\d{1,2}/[A-Za-z]{3}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4}\] "
    r'"[^"]*" (?:\d{3}|-) (?:\d+|-)'
)

_PAIR = re.compile(r'(?:^|\s)([A-Za-z_][\w.-]*)=(?:"((?:[^"\\]|\\.)*)"|(\S*))')
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"|(\S+)')


def _first_per_row(parent: np.ndarray, sel: np.ndarray, values: pa.Array, n: int) -> pa.Array:
    """For each row, the value of its first selected token (null when none)."""
    hits = np.flatnonzero(sel)
    rows, first = np.unique(parent[hits], return_index=True)
    picked = values.take(pa.array(hits[first]))
    quoted = pc.and_(pc.starts_with(picked, '"'), pc.ends_with(picked, '"'))
    picked = pc.if_else(quoted, pc.utf8_slice_codeunits(picked, 1, -1), picked)
    return scatter(pa.array(rows, pa.int64()), picked.cast(pa.large_string()), n)


def _tokens(text: pa.Array) -> tuple[dict[str, pa.Array], np.ndarray]:
    """Known keys from whitespace tokens, column-wise; plus the rows that need a closer look
    (any token that is not a known `key=value`, or a quote that may hide a space)."""
    n = len(text)
    toks = pc.utf8_split_whitespace(text)
    parent = pc.list_parent_indices(toks).to_numpy(zero_copy_only=False)
    flat = toks.flatten()
    kv = pc.split_pattern(flat, "=", max_splits=1)
    has_eq = pc.equal(pc.list_value_length(kv), 2).to_numpy(zero_copy_only=False)
    starts = kv.offsets.to_numpy()[:-1].astype("int64")
    keys = pc.utf8_lower(kv.values.take(pa.array(starts)))
    vals = kv.values.take(pa.array(np.where(has_eq, starts + 1, starts)))
    if pc.any(pc.match_substring(vals, '"')).as_py():
        quotes = pc.count_substring(vals, '"').to_numpy(zero_copy_only=False)
        wrapped = pc.and_(pc.starts_with(vals, '"'), pc.ends_with(vals, '"'))
        plain = (quotes == 0) | ((quotes == 2) & wrapped.to_numpy(zero_copy_only=False))
    else:
        plain = np.ones(len(vals), bool)
    # key → variable code through the (small) dictionary of distinct keys
    enc = pc.dictionary_encode(keys)
    var_names = list(dict.fromkeys(TRAILING_KEYS.values()))
    code_of = [
        var_names.index(TRAILING_KEYS[k]) if k in TRAILING_KEYS else -1
        for k in enc.dictionary.to_pylist()
    ]
    codes = np.asarray(code_of, dtype="int64")[enc.indices.to_numpy(zero_copy_only=False)]
    good = (codes >= 0) & has_eq & plain
    slow = np.zeros(n, bool)
    slow[parent[~good]] = True
    usable = good & ~slow[parent]
    out: dict[str, pa.Array] = {}
    for i, var in enumerate(var_names):
        sel = usable & (codes == i)
        if sel.any():
            out[var] = _first_per_row(parent, sel, vals, n)
    return out, slow


def split_trailing(
    trailing: pa.Array | None,
    tokens: list[pa.Array] | None = None,
    shape: FileShape | None = None,
    *,
    quotes: bool = True,
) -> tuple[dict[str, pa.Array], pa.Array | None, pa.Array | None]:
    """(variables from known keys, attrs object text of other keys, attrs.extra JSON list) per row.

    Rows in one of the common layouts (the same keys in the same order, plain values) are read
    column-wise by by_layout(); the others go through split_trailing_tokens(). When the CSV
    reader cut the text into *tokens*, *trailing* is None: the text is their join, made only
    for the rows by_layout() leaves; *quotes* is False when no token holds a quote.
    """
    plain = text = None
    if trailing is None:
        if not tokens:
            return {}, None, None
        plain, has = _token_rows(tokens, quotes=quotes)
        n = len(has)
    else:
        n = len(trailing)
        text = pc.utf8_trim_whitespace(trailing)
        has = pc.fill_null(pc.greater(pc.utf8_length(text), 0), False).to_numpy(
            zero_copy_only=False
        )
    if not has.any():
        return {}, None, None
    variables, done, layout_others = by_layout(text, has, tokens, shape, plain)
    rest = has & ~done
    if not rest.any():
        return variables, layout_others, None
    if not done.any():
        return split_trailing_tokens(text if text is not None else joined(tokens or []))
    if layout_others is not None:  # (a dictionary when its objects repeat; merged below)
        layout_others = layout_others.cast(pa.large_string())
    where = np.flatnonzero(rest)
    idx = pa.array(where, pa.int64())
    sub_text = text.take(idx) if text is not None else joined(tokens or [], where)
    sub_vars, others, extras = split_trailing_tokens(sub_text)
    for var, col in sub_vars.items():
        placed = scatter(idx, col, n)
        variables[var] = pc.coalesce(variables[var], placed) if var in variables else placed
    if others is not None:  # (the two readers took disjoint rows)
        placed = scatter(idx, others, n)
        layout_others = placed if layout_others is None else pc.coalesce(layout_others, placed)
    return variables, layout_others, None if extras is None else scatter(idx, extras, n)


def _token_rows(tokens: list[pa.Array], *, quotes: bool) -> tuple[np.ndarray, np.ndarray]:
    """(rows of plain tokens, rows with trailing text) of the CSV reader's trailing tokens: a
    row of plain tokens (no space in any) holds text when one is not empty; the others (rare:
    a tab, a quote, non-ASCII) are joined and trimmed to know."""
    plain = plain_token_rows(tokens, quotes=quotes)
    has = np.zeros(len(tokens[0]), bool)
    for tok in tokens:  # (lengths from the offsets: no kernel)
        has |= text_lengths(tok.cast(pa.large_string())) > 0
    odd = np.flatnonzero(~plain)
    if odd.size:
        has[odd] = pc.greater(pc.binary_length(joined(tokens, odd)), 0).to_numpy(
            zero_copy_only=False
        )
    return plain, has


def split_trailing_tokens(
    text: pa.Array,
) -> tuple[dict[str, pa.Array], pa.Array | None, pa.Array | None]:
    """split_trailing() for trimmed text, any layout: rows of known `key=value` pairs only are
    read column-wise; the others (other keys, bare or quoted fields) are read in Python."""
    n = len(text)
    has = pc.fill_null(pc.greater(pc.utf8_length(text), 0), False)
    if not pc.any(has).as_py():
        return {}, None, None
    variables, slow = _tokens(text)
    if not slow.any():
        return variables, None, None
    idx = np.flatnonzero(slow)
    found: dict[str, list[str | None]] = {}
    others: list[dict[str, str] | None] = []
    extras: list[list[str] | None] = []
    for pos, row in enumerate(text.take(pa.array(idx)).to_pylist()):
        other: dict[str, str] = {}
        consumed: list[tuple[int, int]] = []
        for m in _PAIR.finditer(row):
            consumed.append(m.span())
            key, val = m.group(1), m.group(2) if m.group(2) is not None else m.group(3)
            var = TRAILING_KEYS.get(key.lower())
            if var is None:
                other.setdefault(key, val)
            else:
                # (not setdefault(var, [None] * n): that builds an n-long list per pair)
                col = found.get(var)
                if col is None:
                    col = found[var] = [None] * len(idx)
                if col[pos] is None:
                    col[pos] = val
        bare = [
            m.group(1) if m.group(1) is not None else m.group(2)
            for m in _QUOTED.finditer(_blank(row, consumed))
        ]
        others.append(other or None)
        extras.append(bare or None)
    where = pa.array(idx, pa.int64())
    for var, col in found.items():
        placed = scatter(where, pa.array(col, pa.large_string()), n)
        variables[var] = pc.coalesce(variables[var], placed) if var in variables else placed
    other_json = scatter(where, pa.array([_obj(o) for o in others], pa.large_string()), n)
    extra_json = scatter(where, pa.array([_obj(e) for e in extras], pa.large_string()), n)
    return variables, other_json, extra_json


def _blank(row: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return row
    out, pos = [], 0
    for a, b in spans:
        out.append(row[pos:a])
        pos = b
    out.append(row[pos:])
    return " ".join(out)


def _obj(value: object) -> str | None:
    if value is None:
        return None
    return orjson.dumps(value).decode()
