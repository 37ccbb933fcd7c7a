"""The split path for `combined` lines: split on `"` instead of a capturing regex.

RE2 must fall back to its slow submatch engine to fill ten capture groups, which costs many
times a plain match. A combined line split on `"` is `[head, request, " status size ", referer, " ",
agent, trailing...]`; the pieces are cut and checked with vectorised kernels and only lines
of another shape (common format, escaped quotes, junk) go through COMBINED_RX. The result is
the same variables as `extract(lines, COMBINED_RX)`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.model.arrow import holds_byte

_HEAD = r"^\S+ \S+ \S+ \[[^\]]+\] $"
_MID = r"^ (?:\d{3}|-) (?:\d+|-) $"

Extract = Callable[[pa.Array, str], tuple[dict[str, pa.Array], pa.Array]]


def _pick(values: pa.Array, starts: np.ndarray, k: int) -> pa.Array:
    return values.take(pa.array(starts + k))


def _split_fixed(text: pa.Array, sep: str, count: int) -> list[pa.Array]:
    """The first *count* pieces of each value split on *sep* (every value must have them)."""
    parts = pc.split_pattern(text, sep, max_splits=count - 1)
    starts = parts.offsets.to_numpy()[:-1].astype("int64")
    return [_pick(parts.values, starts, k) for k in range(count)]


def _fast(lines: pa.Array) -> tuple[np.ndarray, dict[str, pa.Array]]:
    """(rows the split path understood, their variables)."""
    # at most 7 pieces: the 7th is the trailing text as it stands (quotes and all)
    parts = pc.split_pattern(lines, '"', max_splits=6)
    counts = pc.list_value_length(parts).to_numpy(zero_copy_only=False)
    rows = np.flatnonzero(counts == 7)
    starts = parts.offsets.to_numpy()[:-1].astype("int64")[rows]
    pieces = [_pick(parts.values, starts, k) for k in range(7)]
    head, request, mid, referer, gap, agent, trailing = pieces
    good = pc.match_substring_regex(head, _HEAD).to_numpy(zero_copy_only=False)
    good &= pc.match_substring_regex(mid, _MID).to_numpy(zero_copy_only=False)
    good &= pc.equal(gap, " ").to_numpy(zero_copy_only=False)
    for quoted in (request, referer, agent):  # `\"` is an escape to the regex: its lines
        if holds_byte(quoted.cast(pa.large_string()), 92):  # a backslash anywhere at all?
            good &= ~pc.match_substring(quoted, "\\").to_numpy(zero_copy_only=False)
    if not good.all():
        keep = np.flatnonzero(good)
        rows = rows[keep]
        sel = pa.array(keep)
        head, request, mid, referer, agent, trailing = (
            a.take(sel) for a in (head, request, mid, referer, agent, trailing)
        )
    addr, ident, user, when = _split_fixed(head, " ", 4)
    status, size = _split_fixed(pc.utf8_trim(mid, " "), " ", 2)
    variables = {
        "remote_addr": addr,
        "ident": ident,
        "remote_user": user,
        "time_local": pc.utf8_slice_codeunits(when, 1, -2),
        "request": request,
        "status": status,
        "body_bytes_sent": size,
        "http_referer": referer,
        "http_user_agent": agent,
        "trailing": trailing,
    }
    return rows, variables


def extract_combined(
    lines: pa.Array, regex: str, extract: Extract
) -> tuple[dict[str, pa.Array], pa.Array]:
    """Variables of combined lines: split path first, *regex* (via *extract*) for the rest."""
    n = len(lines)
    if n == 0:
        return extract(lines, regex)
    fast_rows, fast_vars = _fast(lines)
    if len(fast_rows) == n:
        return fast_vars, pa.array(np.ones(n, bool))
    slow_rows = np.setdiff1d(np.arange(n), fast_rows, assume_unique=True)
    slow_vars, slow_ok = extract(lines.take(pa.array(slow_rows)), regex)
    return _merge(fast_rows, fast_vars, slow_rows, slow_vars, slow_ok)


def _merge(
    a_rows: np.ndarray,
    a_vars: dict[str, pa.Array],
    b_rows: np.ndarray,
    b_vars: dict[str, pa.Array],
    b_ok: pa.Array,
) -> tuple[dict[str, pa.Array], pa.Array]:
    """Rows *a_rows* (all matched) and *b_rows* (matched per *b_ok*) back in line order."""
    perm = pa.array(np.argsort(np.concatenate([a_rows, b_rows]), kind="stable"))
    out: dict[str, pa.Array] = {}
    for name, b in b_vars.items():
        a = a_vars[name].cast(pa.large_string())
        out[name] = pa.concat_arrays([a, b.cast(pa.large_string())]).take(perm)
    ok = pa.concat_arrays([pa.array(np.ones(len(a_rows), bool)), b_ok]).take(perm)
    return out, ok
