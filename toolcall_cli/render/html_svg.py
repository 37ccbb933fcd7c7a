"""The swimlane timeline of one trace as inline SVG.

One lane per source present (messages, middleware, nginx, pcap) with a marker per clocked
event, then one lane per tool call with a bar split into its phases (initiation, tool service,
injection): green within the SLA, red and hatched above it, a dashed outline where a boundary
was not observed. The call's outcome is a glyph at the end of its bar. Every shape carries a
`<title>` for hover text and `data-call` so a finding can highlight its calls.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from toolcall_cli.align.model import CallView, TraceBlock
from toolcall_cli.core.cells import text
from toolcall_cli.core.events import PHASE_MARK_KINDS, SOURCES, UNCLOCKED_SOURCES
from toolcall_cli.render.html_page import OUTCOME_STYLE, SOURCE_COLOUR, h

WIDTH = 780
LABEL_W = 170
RIGHT_PAD = 90
AXIS_H = 34
LANE_H = 26
#: Lanes drawn per trace (the calls table lists every call).
MAX_CALL_LANES = 80
MAX_EVENTS = 3000

PHASE_SPANS = (
    ("initiation_ms", "initiation", "received", "request"),
    ("service_ms", "tool service", "request", "response"),
    ("injection_ms", "injection", "response", "injected"),
)
OK_FILL = {"initiation_ms": "#8fd6a4", "service_ms": "#2da44e", "injection_ms": "#116329"}
#: Event kinds that mark trouble in a source lane, and the glyph they get.
TROUBLE_KINDS = {
    "mw_rejected": "rejected",
    "mw_flooded": "flooded",
    "mw_timeout": "timeout",
    "mw_dropped": "dropped",
    "unparsed": "missing",
}


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


def _time(ts: Any) -> str:
    return "" if ts is None or pd.isna(ts) else ts.strftime("%H:%M:%S.%f")[:-3]


def _s(v: Any) -> str:
    return text(v) or ""


def describe(ev: Any) -> str:
    """One line about an event for its hover text."""
    parts = [f"{ev.source} {ev.kind}"]
    for v in (ev.tool, ev.status, ev.instance):
        if _s(v):
            parts.append(_s(v))
    if _s(ev.http_status):
        parts.append(f"HTTP {_s(ev.http_status)}")
    if _s(ev.duration_ms):
        parts.append(fmt_ms(float(_s(ev.duration_ms))))
    if _s(ev.detail):
        parts.append(_s(ev.detail))
    return " · ".join(parts)


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


def _axis(sc: Scale, height: int) -> list[str]:
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


def _use(glyph: str, x: float, y: float, size: float = 14) -> str:
    return (
        f'<use href="#g-{glyph}" x="{x - size / 2:.1f}" y="{y - size / 2:.1f}" '
        f'width="{size:.0f}" height="{size:.0f}"/>'
    )


def _source_lane(
    rows: pd.DataFrame,
    source: str,
    y: int,
    sc: Scale,
    ids: Mapping[str, str],
    note: str,
    ev_prefix: str = "",
) -> list[str]:
    colour = SOURCE_COLOUR.get(source, "#5b6472")
    mid = y + LANE_H / 2
    untimed = int(rows["ts_corrected"].isna().sum())
    label = source + (f" {note}" if note else "")
    out = [
        f'<g class="lane lane-src" data-lane="{h(source)}">',
        f'<rect x="0" y="{y}" width="{sc.width}" height="{LANE_H}" class="lane-alt"/>',
        f'<rect x="8" y="{mid - 5:.1f}" width="10" height="10" rx="2" fill="{colour}"/>',
        f'<text x="24" y="{mid + 4:.1f}" class="lbl-src">{h(label)}</text>',
    ]
    if untimed:
        out.append(
            f'<text x="{LABEL_W - 8}" y="{mid + 4:.1f}" text-anchor="end" class="ticklbl">'
            f"{untimed} untimed</text>"
        )
    head = rows.head(MAX_EVENTS)
    for i, (label, ev) in enumerate(zip(head.index, head.itertuples(index=False), strict=True)):
        x = sc.x(ev.ts_corrected)
        if x is None:
            if sc.t0 is not None:
                continue
            # no clock at all: spread markers in message order
            x = _order_x(i, len(rows), sc.width)
        call = ids.get(_s(ev.call), "")
        attr = f' data-call="{call}"' if call else ""
        if ev_prefix:  # the same id as the event's row in the event list
            attr += f' data-ev="{ev_prefix}-e{label}"'
        tip = h(f"{_time(ev.ts_corrected)} {describe(ev)}\n{_s(ev.origin)}", limit=400)
        trouble = TROUBLE_KINDS.get(str(ev.kind))
        code = _s(ev.http_status)
        bad_http = code.isdigit() and int(code) >= 400
        if trouble:
            shape = _use(trouble, x, mid, 14)
        elif bad_http:
            shape = _use("error", x, mid, 12)
        else:
            shape = (
                f'<circle cx="{x:.1f}" cy="{mid:.1f}" r="3.6" fill="{colour}" '
                'stroke="#fff" stroke-width="0.8"/>'
            )
        out.append(f'<g class="ev" data-kind="{h(ev.kind)}"{attr}><title>{tip}</title>{shape}</g>')
    out.append("</g>")
    return out


def _phase_tip(c: CallView, key: str, name: str) -> str:
    v = c.phases.get(key)
    if v is None:
        return f"{name}: not observed"
    state = "over SLA" if key in c.breaches else "within SLA"
    return f"{name}: {fmt_ms(v)} ({state})"


def _order_x(i: int, n: int, width: float = WIDTH) -> float:
    """x of the i-th of n events when a trace has no clock (message order)."""
    return LABEL_W + (width - LABEL_W - RIGHT_PAD) * (i + 0.5) / max(n, 1)


def _order_positions(ev: pd.DataFrame, width: float = WIDTH) -> dict[str, float]:
    """Per call the x of its first message event, for traces without any clock."""
    msgs = ev[ev["source"].isin(UNCLOCKED_SOURCES)].head(MAX_EVENTS)
    out: dict[str, float] = {}
    for i, call in enumerate(msgs["call"].tolist()):
        key = _s(call)
        if key and key not in out:
            out[key] = _order_x(i, len(msgs), width)
    return out


def _call_lane(
    c: CallView,
    cid: str,
    y: int,
    sc: Scale,
    marks: Mapping[str, pd.Timestamp],
    ends: tuple[pd.Timestamp, pd.Timestamp] | None,
    order_x: float | None = None,
) -> list[str]:
    mid = y + LANE_H / 2
    bad = c.outcome != "result"
    name = f"{c.tool or '?'} · {c.tool_call_id or '(empty id)'}"
    lanecls = "lane-bad" if bad else ""
    out = [
        f'<g class="lane lane-call" id="{cid}" data-call="{cid}" data-outcome="{h(c.outcome)}">',
        f"<title>{h(name)} — {h(c.outcome)}</title>",
    ]
    if lanecls:
        out.append(f'<rect x="0" y="{y}" width="{sc.width}" height="{LANE_H}" class="{lanecls}"/>')
    out.append(
        f'<text x="8" y="{mid + 4:.1f}" class="{"lbl-bad" if bad else "lbl"}">'
        f"{h(name, limit=25, one_line=True)}</text>"
    )
    x_end: float | None = None
    drawn = 0
    for key, pname, a, b in PHASE_SPANS:
        xa, xb = sc.x(marks.get(a)), sc.x(marks.get(b))
        if xa is None or xb is None:
            continue
        w = max(xb - xa, 3.0)
        breach = key in c.breaches
        fill = "url(#hatch)" if breach else OK_FILL[key]
        cls = "ph breach" if breach else "ph ok"
        out.append(
            f'<rect class="{cls}" data-phase="{key[:-3]}" x="{xa:.1f}" y="{y + 6}" width="{w:.1f}" '
            f'height="{LANE_H - 12}" fill="{fill}">'
            f"<title>{h(_phase_tip(c, key, pname))}</title></rect>"
        )
        x_end = max(x_end or 0.0, xa + w)
        drawn += 1
    if ends is not None:
        xa, xb = sc.x(ends[0]), sc.x(ends[1])
        if xa is not None and xb is not None:
            if not drawn:
                # no phase could be measured: the call's observed span, dashed
                out.append(
                    f'<line class="span" x1="{xa:.1f}" y1="{mid:.1f}" x2="{max(xb, xa + 3):.1f}" '
                    f'y2="{mid:.1f}"><title>observed from {h(_time(ends[0]))} to '
                    f"{h(_time(ends[1]))}; no phase measurable</title></line>"
                )
            x_end = max(x_end or 0.0, xb)
    if x_end is None:
        # unclocked: where the call sits in message order, else at the start
        x_end = order_x - 10 if order_x is not None else LABEL_W + 8
    gl = c.outcome if c.outcome in OUTCOME_STYLE else "missing"
    gx = min(x_end + 10, sc.width - RIGHT_PAD + 10)
    word = ""
    if bad:
        colour = OUTCOME_STYLE[gl][1]
        word = (
            f'<text x="{gx + 10:.1f}" y="{mid + 4:.1f}" class="lbl-bad" fill="{colour}" '
            f'style="fill:{colour}">{h(c.outcome)}</text>'
        )
    out.append(
        f'<g class="outcome"><title>{h(OUTCOME_STYLE[gl][0])}</title>'
        f"{_use(gl, gx, mid, 15)}{word}</g>"
    )
    out.append("</g>")
    return out


def swimlane(
    block: TraceBlock,
    cids: Sequence[str],
    ids: Mapping[str, str],
    *,
    shifted: Mapping[str, float],
    title: str,
    ev_prefix: str = "",
    width: int = WIDTH,
) -> str:
    """The SVG of one trace; *cids* are the page's stable element ids of `block.calls` (in
    order) and *ids* maps a tool_call_id to its element id for the events."""
    ev = block.events
    sc = scale_of(ev, width)
    present = [s for s in SOURCES if (ev["source"] == s).any()]
    calls = block.calls[:MAX_CALL_LANES]
    height = AXIS_H + LANE_H * (len(present) + len(calls)) + 10
    body: list[str] = _axis(sc, height - 6)
    y = AXIS_H
    for src in present:
        note = f"(clock {shifted[src]:+.1f} ms)" if src in shifted else ""
        body += _source_lane(ev[ev["source"] == src], src, y, sc, ids, note, ev_prefix)
        y += LANE_H
    body.append(f'<line class="sep" x1="0" y1="{y}" x2="{width}" y2="{y}"/>')
    marks = boundaries(ev)
    order = _order_positions(ev, width) if sc.t0 is None else {}
    ends = call_spans(ev)
    for c, cid in zip(calls, cids, strict=False):
        key = c.tool_call_id
        body += _call_lane(c, cid, y, sc, marks.get(key, {}), ends.get(key), order.get(key))
        y += LANE_H
    return (
        f'<svg class="swim" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-label="{h(title)}" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{h(title)}</title>\n" + "\n".join(body) + "\n</svg>"
    )
