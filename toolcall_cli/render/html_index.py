"""Navigation in the HTML report: each trace's event list (synchronised with its swimlane by
``data-ev``), each trace's title from its own calls, and, for a run with many traces, an index
with search and paging (plain rows without scripts: every row stays listed).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from toolcall_cli.align.model import CallView, TraceBlock
from toolcall_cli.model.cells import text
from toolcall_cli.model.findings import Finding
from toolcall_cli.render.html_axis import MAX_EVENTS
from toolcall_cli.render.html_page import h
from toolcall_cli.render.html_svg import describe

#: Rows per page of the trace index (the script pages; without it all rows show).
INDEX_PAGE = 25


def calls_title(calls: Sequence[CallView], limit: int = 4) -> str:
    """What a trace did, from its own calls: ``get_weather ×6, book_flight``."""
    counts = Counter(c.tool or "?" for c in calls)
    if not counts:
        return "no tool calls"
    parts = [f"{t} ×{n}" if n > 1 else t for t, n in counts.most_common(limit)]
    more = len(counts) - limit
    return ", ".join(parts) + (f" and {more} more tools" if more > 0 else "")


def _when(ts: Any) -> str:
    if ts is None or pd.isna(ts):
        return "–"
    return str(ts.strftime("%H:%M:%S.%f")[:-3])


def event_id(prefix: str, label: Any) -> str:
    """The element id shared by an event's swimlane mark and its row in the event list."""
    return f"{prefix}-e{label}"


def event_list(tix: int, b: TraceBlock, ids: Mapping[str, str]) -> str:
    """The trace's events in time order, each row tied to its swimlane mark and call."""
    rows = []
    ev = b.events.head(MAX_EVENTS)
    for label, e in zip(ev.index.tolist(), ev.itertuples(index=False), strict=True):
        call = ids.get(text(e.call) or "", "")
        attr = f' data-call="{call}"' if call else ""
        rows.append(
            f'<tr data-ev="{event_id(f"t{tix}", label)}"{attr} tabindex="0">'
            f'<td class="num">{h(_when(e.ts_corrected))}</td><td>{h(e.source)}</td>'
            f"<td>{h(describe(e), limit=300, one_line=True)}</td>"
            f'<td class="mono">{h(e.origin, limit=200, one_line=True)}</td></tr>'
        )
    more = len(b.events) - len(ev)
    tail = f'<p class="note">{more} more events not listed.</p>' if more > 0 else ""
    return (
        f'<details class="events" open><summary>Events ({len(b.events)})</summary>'
        '<div class="evscroll"><table class="events"><thead><tr><th scope="col">time</th>'
        '<th scope="col">source</th><th scope="col">event</th><th scope="col">origin</th>'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>{tail}</details>"
    )


def trace_index(
    blocks: Sequence[TraceBlock],
    drawn: Mapping[str, int],
    per: Mapping[str, Sequence[Finding]],
) -> str:
    """Every trace of the run in one searchable, paged table; drawn ones link to their
    section, the others name their findings (listed under "not tied to a drawn trace")."""
    rows = []
    for b in blocks:
        found = per.get(b.trace, ())
        codes = ", ".join(dict.fromkeys(f.code for f in found)) or "–"
        worst = min((f.severity.rank for f in found), default=3)
        sev = ("error", "warning", "info", "none")[worst]
        name = h(b.trace, limit=120)
        cell = f'<a href="#t{drawn[b.trace]}">{name}</a>' if b.trace in drawn else name
        rows.append(
            f'<tr class="sev-{sev}"><td class="mono">{cell}</td>'
            f"<td>{h(calls_title(b.calls), limit=200)}</td>"
            f'<td class="num">{len(b.calls)}</td><td>{h(codes, limit=200)}</td>'
            f"<td>{'drawn' if b.trace in drawn else 'listed'}</td></tr>"
        )
    return (
        f'<section class="tindex" id="index" data-page="{INDEX_PAGE}">'
        f"<h2>All traces ({len(blocks)})</h2>"
        '<p class="note">The traces with the worst findings are drawn below; search for any '
        "trace by id, tool or code.</p>"
        '<p><input type="search" class="tsearch" placeholder="search traces, tools, codes" '
        'aria-label="search traces"> <span class="tcount"></span></p>'
        '<table class="tindex"><thead><tr><th scope="col">trace</th><th scope="col">calls of</th>'
        '<th scope="col">calls</th><th scope="col">findings</th><th scope="col">shown</th>'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
        '<p class="pager"><button type="button" class="prev">◀ previous</button> '
        '<span class="pageno"></span> <button type="button" class="next">next ▶</button></p>'
        "</section>"
    )
