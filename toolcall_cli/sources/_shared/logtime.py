"""Vectorised timestamp parsing for line logs: results are UTC; naive values take the user's zone.

Understood: ISO 8601 with or without zone (`T` or space separator, `.` or `,` before the
fraction), nginx `$time_local` (`17/May/2015:10:05:03 +0200`), and epoch seconds,
milliseconds, microseconds or nanoseconds (numbers or digit strings).
"""

from __future__ import annotations

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from toolcall_cli.errors import UsageError
from toolcall_cli.model.events import TS

_EPOCH = r"^\d{9,19}(?:\.\d+)?$"
_ZONED = r"(?:Z|z|[+-]\d{2}:?\d{2}|[+-]\d{2}| UTC| GMT)$"
_ISO_ZONED = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$"
_CLF = r"^\d{1,2}/[A-Za-z]{3}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4}$"


def check_tz(tz: str) -> str:
    """*tz* if it is a known IANA zone; a UsageError otherwise."""
    try:
        ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise UsageError(
            f"unknown time zone {tz!r}", hint="use an IANA name such as UTC or Europe/Berlin"
        ) from None
    return tz


def _nat(n: int) -> pd.Series:
    return _from_ns(np.full(n, np.datetime64("NaT"), dtype="datetime64[ns]"))


def _ns(ser: pd.Series) -> np.ndarray:
    """A tz-aware (or naive UTC) datetime Series as datetime64[ns] values in UTC."""
    if getattr(ser.dt, "tz", None) is not None:
        ser = ser.dt.tz_convert("UTC").dt.tz_localize(None)
    values = ser.to_numpy()  # pandas may parse into s/ms/µs: years nanoseconds cannot hold
    if values.dtype != np.dtype("datetime64[ns]"):
        # out of the nanosecond range (1677-09-22 .. 2262-04-10): no time, not a wrapped one
        # compared in the coarser unit: numpy would widen `values` to ns, and overflow there
        ok = (values >= _NS_MIN.astype(values.dtype)) & (values <= _NS_MAX.astype(values.dtype))
        values = np.where(ok, values, np.datetime64("NaT")).astype("datetime64[ns]")
    return values


#: Whole days inside the nanosecond range (its exact ends do not convert between units).
_NS_MIN = np.datetime64("1677-09-22", "s")
_NS_MAX = np.datetime64("2262-04-10", "s")


def _from_ns(ns: np.ndarray) -> pd.Series:
    return pd.Series(pd.DatetimeIndex(ns).tz_localize("UTC")).astype(TS)


def epoch_to_utc(values: np.ndarray) -> pd.Series:
    """Epoch numbers to UTC times; the unit is guessed from the magnitude (s, ms, µs, ns)."""
    v = np.asarray(values, dtype="float64")
    mag = np.abs(v)
    scale = np.select([mag >= 1e17, mag >= 1e14, mag >= 1e11], [1.0, 1e3, 1e6], default=1e9)
    with np.errstate(invalid="ignore", over="ignore"):
        whole = np.floor(v)
        ok = np.isfinite(v) & (np.abs(whole * scale) < 9.2e18)
        whole_i = np.where(ok, whole, 0).astype("int64")
        # the fraction is rounded to the microsecond: float noise must not show up as 64 ns
        frac = np.round(np.where(ok, v - whole, 0) * scale / 1e3) * 1e3
    ns = whole_i * scale.astype("int64") + frac.astype("int64")
    raw = ns.view("datetime64[ns]").copy()
    raw[~ok] = np.datetime64("NaT")
    return _from_ns(raw)


def parse_times(values: pa.Array, tz: str) -> pd.Series:
    """Parse a column of timestamps (strings or numbers) into UTC; unparseable values become NaT.

    Access logs repeat each second many times: when a sample shows few distinct values, the
    distinct values are parsed once and broadcast.
    """
    n = len(values)
    if n == 0:
        return _nat(0)
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if values.null_count == n:
        return _nat(n)
    is_text = pa.types.is_large_string(values.type) or pa.types.is_string(values.type)
    if is_text and n > 4096 and len(pc.unique(values.slice(0, 2048))) < 512:
        enc = pc.dictionary_encode(values)
        if len(enc.dictionary) * 4 < n:
            uniq = _ns(_parse(enc.dictionary, tz))
            idx = enc.indices.fill_null(-1).to_numpy(zero_copy_only=False)
            out = uniq[np.where(idx < 0, 0, idx)]
            out[idx < 0] = np.datetime64("NaT")
            return _from_ns(out)
    return _parse(values, tz)


def _parse(values: pa.Array, tz: str) -> pd.Series:
    n = len(values)
    if n == 0:
        return _nat(0)
    t = values.type
    if pa.types.is_integer(t) or pa.types.is_floating(t):
        return epoch_to_utc(values.to_numpy(zero_copy_only=False))
    if pa.types.is_timestamp(t):
        ser = pd.Series(values.to_pandas())
        if ser.dt.tz is None:
            ser = ser.dt.tz_localize(tz, ambiguous="NaT", nonexistent="NaT")
        return ser.dt.tz_convert("UTC").astype(TS)
    if not (pa.types.is_string(t) or pa.types.is_large_string(t)):
        return _nat(n)
    if values.null_count == 0:
        # the common case: every value is ISO 8601 with a zone. Arrow's cast parses exactly those
        # (a naive value, a space or a bad date fails it) in one pass, without a regex per row.
        try:
            cast = pc.cast(values, pa.timestamp("ns", "UTC"))
            return _from_ns(cast.to_numpy(zero_copy_only=False).astype("datetime64[ns]"))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
    s = pc.utf8_trim_whitespace(values)
    if pc.all(pc.match_substring_regex(s, _ISO_ZONED)).as_py() and s.null_count == 0:
        # the common case: every value is ISO 8601 with a zone; Arrow's own cast parses it
        try:
            cast = pc.cast(s, pa.timestamp("ns", "UTC"))
            return _from_ns(cast.to_numpy(zero_copy_only=False).astype("datetime64[ns]"))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            ser = pd.Series(pd.arrays.ArrowStringArray(s.cast(pa.large_string())))
            return _from_ns(_ns(pd.to_datetime(ser, format="ISO8601", utc=True, errors="coerce")))
    out = np.full(n, np.datetime64("NaT"), dtype="datetime64[ns]")
    remaining = pc.is_valid(s).to_numpy(zero_copy_only=False)
    if not remaining.any():
        return _from_ns(out)

    def take(mask: np.ndarray) -> pd.Series:
        return pd.Series(s.filter(pa.array(mask)).to_pandas(), dtype=object)

    epoch = (
        pc.match_substring_regex(s, _EPOCH).fill_null(False).to_numpy(zero_copy_only=False)
        & remaining
    )
    if epoch.any():
        out[epoch] = _ns(epoch_to_utc(take(epoch).astype("float64").to_numpy()))
        remaining &= ~epoch
    clf = (
        pc.match_substring_regex(s, _CLF).fill_null(False).to_numpy(zero_copy_only=False)
        & remaining
    )
    if clf.any():
        conv = pd.to_datetime(take(clf), format="%d/%b/%Y:%H:%M:%S %z", utc=True, errors="coerce")
        out[clf] = _ns(conv)
        remaining &= ~clf
    if not remaining.any():
        return _from_ns(out)
    # ISO-ish: normalise `,` before the fraction and a space before the zone.
    iso = pc.replace_substring_regex(
        s, r"^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})[,.](\d+)", r"\1T\2.\3"
    )
    iso = pc.replace_substring_regex(iso, r"^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2})", r"\1T\2")
    iso = pc.replace_substring_regex(iso, r" ?(?:UTC|GMT)$", "Z")
    iso = pc.replace_substring_regex(iso, r" ([+-]\d{2}:?\d{2})$", r"\1")
    zoned = (
        pc.match_substring_regex(iso, _ZONED).fill_null(False).to_numpy(zero_copy_only=False)
        & remaining
    )
    naive = remaining & ~zoned
    if zoned.any():
        z = pd.Series(iso.filter(pa.array(zoned)).to_pandas(), dtype=object)
        out[zoned] = _ns(pd.to_datetime(z, format="ISO8601", utc=True, errors="coerce"))
    if naive.any():
        z = pd.Series(iso.filter(pa.array(naive)).to_pandas(), dtype=object)
        local = pd.to_datetime(z, format="ISO8601", errors="coerce")
        if local.dt.tz is None:
            local = local.dt.tz_localize(tz, ambiguous="NaT", nonexistent="NaT")
        out[naive] = _ns(local)
    return _from_ns(out)
