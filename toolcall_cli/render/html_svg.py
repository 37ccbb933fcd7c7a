"""The swimlane timeline of one trace as inline SVG.

One lane per source present (messages, middleware, nginx, pcap) with a marker per clocked
event, then one lane per tool call with a bar split into its phases (initiation, tool service,
injection): green within the SLA, red and hatched above it, a dashed outline where a boundary
was not observed. The call's outcome is a glyph at the end of its bar. Every shape carries a
`<title>` for hover text and `data-call` so a finding can highlight its calls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from toolcall_cli.align.model import CallView, TraceBlock
from toolcall_cli.model.cells import text
from toolcall_cli.model.events import SOURCES
from toolcall_cli.model.words import NO_ID
from toolcall_cli.render.cancelled_text import cancelled_label
from toolcall_cli.render.html_axis import (
    AXIS_H,
    LABEL_W,
    MAX_EVENTS,
    RIGHT_PAD,
    WIDTH,
    Scale,
    axis_marks,
    boundaries,
    call_spans,
    clock_text,
    fmt_ms,
    order_positions,
    order_x,
    scale_of,
)
from toolcall_cli.render.html_page import OUTCOME_STYLE, SOURCE_COLOUR, h

LANE_H = 26
#: Lanes drawn per trace (the calls table lists every call).
MAX_CALL_LANES = 80

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
            x = order_x(i, len(rows), sc.width)
        call = ids.get(_s(ev.call), "")
        attr = f' data-call="{call}"' if call else ""
        if ev_prefix:  # the same id as the event's row in the event list
            attr += f' data-ev="{ev_prefix}-e{label}"'
        tip = h(f"{clock_text(ev.ts_corrected)} {describe(ev)}\n{_s(ev.origin)}", limit=400)
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
    bad = c.faulty  # a user's abort is not a fault
    name = f"{c.tool or '?'} · {c.tool_call_id or NO_ID}"
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
                    f'y2="{mid:.1f}"><title>observed from {h(clock_text(ends[0]))} to '
                    f"{h(clock_text(ends[1]))}; no phase measurable</title></line>"
                )
            x_end = max(x_end or 0.0, xb)
    if x_end is None:
        # unclocked: where the call sits in message order, else at the start
        x_end = order_x - 10 if order_x is not None else LABEL_W + 8
    gl = c.outcome if c.outcome in OUTCOME_STYLE else "missing"
    gx = min(x_end + 10, sc.width - RIGHT_PAD + 10)
    word = ""
    if c.outcome != "result":
        colour = OUTCOME_STYLE[gl][1]
        word = (
            f'<text x="{gx + 10:.1f}" y="{mid + 4:.1f}" class="lbl-bad" fill="{colour}" '
            f'style="fill:{colour}">{h(c.outcome)}</text>'
        )
    out.append(
        f'<g class="outcome"><title>{h(cancelled_label(c) or OUTCOME_STYLE[gl][0])}</title>'
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
    body: list[str] = axis_marks(sc, height - 6)
    y = AXIS_H
    for src in present:
        note = f"(clock {shifted[src]:+.1f} ms)" if src in shifted else ""
        body += _source_lane(ev[ev["source"] == src], src, y, sc, ids, note, ev_prefix)
        y += LANE_H
    body.append(f'<line class="sep" x1="0" y1="{y}" x2="{width}" y2="{y}"/>')
    marks = boundaries(ev)
    order = order_positions(ev, width) if sc.t0 is None else {}
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
