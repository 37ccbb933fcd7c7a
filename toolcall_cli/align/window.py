"""Time bounds of the scope flags: `--since/--until` as ISO 8601, epoch seconds or a duration.

A duration (`15m`, `2h`, `1d`, `500ms`) counts back from the end of the evidence — the latest
event time — so `--since 15m` on last night's bundle means its last quarter hour, not the last
quarter hour of the clock on the wall. A value that reads as none of these is a usage error
(exit 2) naming the accepted forms; it is never ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from toolcall_cli.errors import UsageError

#: The accepted forms, for every error about a time bound.
FORMS = (
    "use ISO 8601 (2024-05-01T12:00:00Z), epoch seconds (1714564800) or a duration back from "
    "the end of the evidence (90s, 15m, 2h, 1d)"
)

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)\s*$", re.IGNORECASE)
_EPOCH = re.compile(r"^\s*\d{9,11}(?:\.\d+)?\s*$")
_UNIT_NS = {"ms": 10**6, "s": 10**9, "m": 60 * 10**9, "h": 3600 * 10**9, "d": 86400 * 10**9}
_UNIT_NS["w"] = 7 * _UNIT_NS["d"]


@dataclass(frozen=True, slots=True)
class TimeBound:
    """An absolute instant (UTC), or a span back from the end of the evidence."""

    at: pd.Timestamp | None = None
    back: pd.Timedelta | None = None

    def resolve(self, end: pd.Timestamp | None) -> pd.Timestamp | None:
        """The instant; a span counts back from *end* (None: the evidence has no time)."""
        if self.at is not None:
            return self.at
        if end is None or self.back is None:
            return None
        return end - self.back


def parse_bound(text: str | None, *, tz: str = "UTC", option: str = "--since") -> TimeBound | None:
    """A `--since/--until` value; a naive ISO time is read in *tz*."""
    if text is None:
        return None
    m = _DURATION.match(text)
    if m:
        return TimeBound(back=pd.Timedelta(int(float(m[1]) * _UNIT_NS[m[2].lower()]), unit="ns"))
    if _EPOCH.match(text):
        return TimeBound(at=pd.Timestamp(float(text), unit="s", tz="UTC"))
    if not re.match(r"^\s*\d{4}-\d{2}-\d{2}", text):  # pandas reads "5s" or "now" too freely
        raise UsageError(f"{option}: cannot read the time {text!r}", hint=FORMS)
    try:
        ts = pd.Timestamp(text)
    except (ValueError, TypeError):
        raise UsageError(f"{option}: cannot read the time {text!r}", hint=FORMS) from None
    if pd.isna(ts):
        raise UsageError(f"{option}: cannot read the time {text!r}", hint=FORMS)
    try:
        at = ts.tz_localize(tz).tz_convert("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")
    except Exception as e:  # unknown zone names raise several different types
        raise UsageError(
            f"unknown time zone {tz!r}: {e}", hint="use an IANA name such as Europe/Paris"
        ) from None
    return TimeBound(at=at)
