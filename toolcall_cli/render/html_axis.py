"""The swimlane's time axis: the scale that maps corrected times onto x, tick steps and
duration labels, each call's phase boundaries and first/last times, and message-order
positions for a trace without any clock (cassettes, messages only).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from toolcall_cli.model.cells import text
from toolcall_cli.model.events import PHASE_MARK_KINDS, UNCLOCKED_SOURCES
from toolcall_cli.render.html_page import h

WIDTH = 780


LABEL_W = 170


RIGHT_PAD = 90


AXIS_H = 34


MAX_EVENTS = 3000


@dataclass(frozen=True, slots=True)
class Scale:
    """Maps corrected times onto the plot's x range."""

    t0: pd.Timestamp | None
    span_ms: float
    origin: pd.Timestamp | None = None  # the trace's first clocked event: "+0 ms" on the axis
    width: float = WIDTH  # the drawing's width in user units

    def x(self, ts: Any) -> float | None:
        """The x of *ts* (None when it has no time)."""
        if self.t0 is None or ts is None or pd.isna(ts):
            return None
        ms = (ts - self.t0).total_seconds() * 1000.0
        return LABEL_W + (self.width - LABEL_W - RIGHT_PAD) * ms / self.span_ms


def scale_of(events: pd.DataFrame, width: float = WIDTH) -> Scale:
    """A scale spanning the trace's clocked events, padded a little on both sides."""
    ts = events["ts_corrected"].dropna()
    if ts.empty:
        return Scale(None, 1.0, width=width)
    lo, hi = ts.min(), ts.max()
    span = max((hi - lo).total_seconds() * 1000.0, 1.0)
    pad = span * 0.03
    return Scale(lo - pd.Timedelta(milliseconds=pad), span + 2 * pad, lo, width)


def _nice_step(span_ms: float) -> float:
    raw = span_ms / 7
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def fmt_ms(ms: float) -> str:
    """`850 ms`, `1.25 s`, `2 min 5 s` — durations for labels."""
    if abs(ms) < 1000:
        return f"{ms:.0f} ms" if abs(ms) >= 10 or ms == int(ms) else f"{ms:.1f} ms"
    if abs(ms) < 120_000:
        return f"{ms / 1000:.3g} s"
    return f"{int(ms // 60_000)} min {int(ms % 60_000 // 1000)} s"


def clock_text(ts: Any) -> str:
    return "" if ts is None or pd.isna(ts) else ts.strftime("%H:%M:%S.%f")[:-3]


def boundaries(events: pd.DataFrame) -> dict[str, dict[str, pd.Timestamp]]:
    """Per call id the earliest corrected time of each phase boundary (preferred kinds first)."""
    clk = events[events["ts_corrected"].notna() & events["call"].notna()]
    first: dict[tuple[str, str], pd.Timestamp] = {}
    for call, kind, ts in zip(clk["call"], clk["kind"], clk["ts_corrected"], strict=True):
        key = (str(call), str(kind))
        if key not in first or ts < first[key]:
            first[key] = ts
    out: dict[str, dict[str, pd.Timestamp]] = {}
    for call in {c for c, _ in first}:
        marks: dict[str, pd.Timestamp] = {}
        for bound, kinds in PHASE_MARK_KINDS.items():
            for k in kinds:
                if (call, k) in first:
                    marks[bound] = first[(call, k)]
                    break
        out[call] = marks
    return out


def call_spans(events: pd.DataFrame) -> dict[str, tuple[pd.Timestamp, pd.Timestamp]]:
    """Per call id its first and last corrected event time."""
    clk = events[events["ts_corrected"].notna() & events["call"].notna()]
    g = clk.groupby(clk["call"].astype(str))["ts_corrected"].agg(["min", "max"])
    return {str(k): (r["min"], r["max"]) for k, r in g.iterrows()}


def axis_marks(sc: Scale, height: int) -> list[str]:
    out: list[str] = []
    if sc.t0 is None:
        out.append(
            f'<text x="{LABEL_W}" y="20" class="ticklbl">no clocked events in this trace: '
            "markers follow message order only</text>"
        )
        return out
    step = _nice_step(sc.span_ms)
    start = sc.origin if sc.origin is not None else sc.t0
    out.append(
        f'<text x="8" y="{AXIS_H - 12}" class="ticklbl">t0 = '
        f"{h(start.strftime('%H:%M:%S.%f')[:-3])} UTC</text>"
    )
    k = 0
    while k * step <= sc.span_ms * 0.97:
        x = sc.x(start + pd.Timedelta(milliseconds=k * step))
        assert x is not None
        out.append(
            f'<line class="tick" x1="{x:.1f}" y1="{AXIS_H - 8}" x2="{x:.1f}" y2="{height}"/>'
        )
        out.append(
            f'<text class="ticklbl" x="{x:.1f}" y="{AXIS_H - 12}" text-anchor="middle">'
            f"+{h(fmt_ms(k * step))}</text>"
        )
        k += 1
    return out


def order_x(i: int, n: int, width: float = WIDTH) -> float:
    """x of the i-th of n events when a trace has no clock (message order)."""
    return LABEL_W + (width - LABEL_W - RIGHT_PAD) * (i + 0.5) / max(n, 1)


def order_positions(ev: pd.DataFrame, width: float = WIDTH) -> dict[str, float]:
    """Per call the x of its first message event, for traces without any clock."""
    msgs = ev[ev["source"].isin(UNCLOCKED_SOURCES)].head(MAX_EVENTS)
    out: dict[str, float] = {}
    for i, call in enumerate(msgs["call"].tolist()):
        key = text(call) or ""
        if key and key not in out:
            out[key] = order_x(i, len(msgs), width)
    return out
