"""The calls table of a trace in the HTML report: per call its outcome, phase latencies and
findings. End to end is the call's own round trip (received → injected); the chat request
around the calls is the trace's figure, shown once in the trace's line."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from toolcall_cli.align.model import PHASES, CallView, TraceBlock
from toolcall_cli.model.words import NO_ID
from toolcall_cli.render.cancelled_text import cancellations, cancelled_label
from toolcall_cli.render.html_axis import boundaries, call_spans, fmt_ms
from toolcall_cli.render.html_page import h, outcome_tag

PHASE_LABEL = {
    "initiation_ms": "initiation",
    "service_ms": "tool service",
    "injection_ms": "injection",
    "end_to_end_ms": "end to end",
}


def own_end_to_end(
    marks: Mapping[str, pd.Timestamp], ends: tuple[pd.Timestamp, pd.Timestamp] | None
) -> float | None:
    """The call's own round trip in ms: received → injected, else its first → last event
    (the chat request around it is the trace's figure, shown once in the trace's line)."""
    a, b = marks.get("received"), marks.get("injected")
    if a is None or b is None:
        a, b = ends if ends is not None else (None, None)
    if a is None or b is None or pd.isna(a) or pd.isna(b) or b <= a:
        return None
    return float((b - a).total_seconds() * 1000.0)


def own_round_trips(b: TraceBlock) -> dict[str, float | None]:
    """Per call of *b* its own round trip in ms (`own_end_to_end`), for every view that
    shows per-call end to end (the HTML calls table, the text timeline)."""
    marks, ends = boundaries(b.events), call_spans(b.events)
    return {
        c.tool_call_id: own_end_to_end(marks.get(c.tool_call_id, {}), ends.get(c.tool_call_id))
        for c in b.calls
    }


def chat_request(calls: Sequence[CallView]) -> tuple[float, bool] | None:
    """The chat request around *calls* (the trace's end-to-end figure) and whether it is over
    its SLA; None when no call knows it."""
    known = [v for c in calls if (v := c.phases.get("end_to_end_ms")) is not None]
    if not known:
        return None
    return max(known), any("end_to_end_ms" in c.breaches for c in calls)


def _ms_cell(c: CallView, p: str, own: float | None) -> str:
    v = own if p == "end_to_end_ms" else c.phases.get(p)
    if v is None:
        return '<td class="num">–</td>'
    if p in c.breaches and p != "end_to_end_ms":
        return f'<td class="num breach">{h(fmt_ms(v))} ✗ over SLA</td>'
    return f'<td class="num">{h(fmt_ms(v))}</td>'


def _codes_cell(refs: Sequence[tuple[str, str, str]]) -> str:
    first: dict[str, tuple[str, str]] = {}
    for code, fid, sev in refs:
        first.setdefault(code, (fid, sev))  # one link per code: its highest-ranked finding
    links = " ".join(
        f'<a class="code sev-{sev}" href="#{fid}">{h(code)}</a>'
        for code, (fid, sev) in first.items()
    )
    return f"<td>{links or '–'}</td>"


def calls_table(
    calls: Sequence[CallView],
    cids: Sequence[str],
    refs: Mapping[str, list[tuple[str, str, str]]] | None,
    own: Mapping[str, float | None],
) -> str:
    if not calls:
        return '<p class="note">No tool calls in this trace.</p>'
    head = "".join(f'<th scope="col">{PHASE_LABEL[p]}</th>' for p in PHASES)
    if refs is not None:
        head += '<th scope="col">findings</th>'
    rows = []
    for c, cid in zip(calls, cids, strict=True):
        bad = ' class="bad"' if c.faulty or c.breaches else ""  # a user's abort is not a fault
        rows.append(
            f'<tr id="{cid}-row" data-call="{cid}"{bad}>'
            f"<td><code>{h(c.tool_call_id or NO_ID, limit=80)}</code></td>"
            f"<td>{h(c.tool or '?', limit=80)}</td>"
            f"<td>{outcome_tag(c.outcome, cancelled_label(c))}</td>"
            + "".join(_ms_cell(c, p, own.get(c.tool_call_id)) for p in PHASES)
            + (_codes_cell(refs.get(cid, [])) if refs is not None else "")
            + "</tr>"
        )
    return (
        '<table class="calls"><caption class="note" style="text-align:left">Calls and phase '
        "latencies (✗ = above the SLA; end to end is the call's own, received → injected)"
        "</caption>"
        f'<thead><tr><th scope="col">call</th><th scope="col">tool</th><th scope="col">outcome</th>'
        f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>{_cancelled_notes(calls)}"
    )


def _cancelled_notes(calls: Sequence[CallView]) -> str:
    """Below the table, per cancelled call who cancelled it, when, and the evidence line."""
    said = cancellations(calls)
    if not said:
        return ""
    items = "".join(f"<li><code>{h(w, limit=80)}</code> {h(s, limit=300)}</li>" for w, s in said)
    return f'<ul class="note cancelled">{items}</ul>'
