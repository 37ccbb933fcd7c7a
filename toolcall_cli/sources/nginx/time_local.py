"""`$time_local` (`01/Mar/2025:00:00:00 +0000`) → UTC, parsed once per distinct value by Arrow.

pandas' `%z` parser is slow per value; an access log of a million lines holds tens of
thousands of distinct seconds. Arrow's strptime is fast but lenient (it rolls `31/Feb` over to
March and accepts a `+2400` offset), so a value is taken from it only when it has the exact
shape, a real offset, and the parsed day/year/hour/minute/second equal the digits written;
every other value goes through parse_times(), which defines the behaviour.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.model.events import TS
from toolcall_cli.sources._shared.logtime import parse_times

_STRICT = r"^\d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}:\d{2} [+-](?:[01]\d|2[0-3])[0-5]\d$"
_LOCAL = "%d/%b/%Y:%H:%M:%S"
_ZERO = "01/Jan/1970:00:00:00 +0000"  # stands in for values that are not well-formed


def clf_times(values: pa.Array, tz: str) -> pd.Series:
    """UTC times of `$time_local` strings (NaT where unparseable), as parse_times() gives."""
    if len(values) == 0:
        return parse_times(values, tz)
    enc = pc.dictionary_encode(values.cast(pa.large_string()))
    uniq = enc.dictionary
    ns = _strict_ns(uniq)
    rest = np.isnat(ns)
    if rest.any():
        idx = np.flatnonzero(rest)
        other = parse_times(uniq.take(pa.array(idx)), tz)
        ns[idx] = other.dt.tz_convert("UTC").dt.tz_localize(None).to_numpy("datetime64[ns]")
    codes = enc.indices.fill_null(-1).to_numpy(zero_copy_only=False)
    out = ns[np.where(codes < 0, 0, codes)] if len(ns) else np.full(len(codes), np.nan, "M8[ns]")
    out[codes < 0] = np.datetime64("NaT")
    return pd.Series(pd.DatetimeIndex(out).tz_localize("UTC")).astype(TS)


def _strict_ns(uniq: pa.Array) -> np.ndarray:
    """UTC datetime64[ns] of the well-formed values (Arrow's fields checked against the text,
    which catches its roll-overs); NaT elsewhere."""
    strict = pc.match_substring_regex(uniq, _STRICT).fill_null(False)
    text = pc.if_else(strict, uniq, pa.scalar(_ZERO, uniq.type))
    parsed = pc.strptime(
        pc.utf8_slice_codeunits(text, 0, 20), format=_LOCAL, unit="s", error_is_null=True
    )
    good = strict.to_numpy(zero_copy_only=False) & pc.is_valid(parsed).to_numpy(
        zero_copy_only=False
    )
    for start, fn in ((0, pc.day), (7, pc.year), (12, pc.hour), (15, pc.minute), (18, pc.second)):
        width = 4 if start == 7 else 2
        got = fn(parsed).fill_null(-1).to_numpy(zero_copy_only=False)
        good &= got == _digits(text, start, start + width)
    year = _digits(text, 7, 11)
    good &= (year > 1677) & (year < 2262)  # datetime64[ns] range; the rest: parse_times()
    minus = pc.equal(pc.utf8_slice_codeunits(text, 21, 22), "-").to_numpy(zero_copy_only=False)
    offset = np.where(minus, -1, 1) * (_digits(text, 22, 24) * 3600 + _digits(text, 24, 26) * 60)
    local_s = parsed.cast(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False)
    ns = ((local_s - offset) * 1_000_000_000).astype("M8[ns]")
    ns[~good] = np.datetime64("NaT")
    return ns


def _digits(text: pa.Array, start: int, stop: int) -> np.ndarray:
    """The digits at [start, stop) of each (well-formed) value as int64."""
    part = pc.utf8_slice_codeunits(text, start, stop).cast(pa.int64())
    return part.to_numpy(zero_copy_only=False)
