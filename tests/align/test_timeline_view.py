"""The timeline views on a fixed report: untrusted text stays inert, long traces are capped."""

from __future__ import annotations

import io

import orjson
import pandas as pd

from tests.align.incident import T0, _frame, incident
from toolcall_cli.align import align
from toolcall_cli.align.select import select_traces
from toolcall_cli.render import RenderOptions, render
from toolcall_cli.render.timeline_view import MAX_ROWS


def _draw(fmt: str, report: object) -> str:
    buf = io.StringIO()
    render(fmt, report, buf, RenderOptions(width=100, color=False))
    return buf.getvalue()


def test_markup_and_escapes_are_inert() -> None:
    ev = _frame(
        [
            {
                "source": "middleware",
                "kind": "mw_rejected",
                "ts": T0,
                "seq": 0,
                "origin": "m:1",
                "tool_call_id": "[red]x[/red]",
                "detail": "bad \x1b[31mred\x1b[0m | *md* [b]bold[/b]",
            }
        ]
    )
    rep = select_traces(align(ev))
    table = _draw("table", rep)
    assert "\x1b" not in table and "\\x1b[31m" in table and "[b]bold[/b]" in table
    mdown = _draw("markdown", rep)
    assert "\x1b" not in mdown and "\\|" in mdown and "\\*md\\*" in mdown


def test_json_shape_per_design() -> None:
    doc = orjson.loads(_draw("json", select_traces(align(incident()), trace_id="T1")))
    assert doc["schema_version"] == 1
    (trace,) = doc["traces"]
    assert {"trace_id", "session_ids", "events", "calls"} <= set(trace)
    call = trace["calls"][0]
    assert {"tool_call_id", "tool", "outcome", "phases"} <= set(call)
    assert {"initiation_ms", "service_ms", "injection_ms", "end_to_end_ms"} == set(call["phases"])
    assert all(isinstance(e["attrs"], dict) for e in trace["events"])


def test_long_traces_are_capped_in_the_table() -> None:
    n = MAX_ROWS + 7
    ev = _frame(
        [
            {
                "source": "middleware",
                "kind": "mw_other",
                "seq": i,
                "origin": f"m:{i}",
                "trace_id": "big",
                "ts": T0 + pd.Timedelta(milliseconds=i),
            }
            for i in range(n)
        ]
    )
    rep = select_traces(align(ev))
    assert "… 7 more events" in _draw("table", rep)
    assert "… 7 more events" in _draw("markdown", rep)
    assert len(orjson.loads(_draw("json", rep))["traces"][0]["events"]) == n
