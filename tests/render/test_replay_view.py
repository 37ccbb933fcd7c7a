"""Replay views: every format draws every part; untrusted text stays inert."""

from __future__ import annotations

import io
import json

import pytest

from toolcall_cli.render import RenderOptions, render
from toolcall_cli.replay import CallReplay, Change, ReplayReport
from toolcall_cli.replay.base import Verdict
from toolcall_cli.replay.live import FieldDiff, LiveResult

EVIL = "[red]boom[/red]\x1b[31m"
STAGES = (
    Verdict("prescreen", "pass", "ok", "ok"),
    Verdict(
        "schema",
        "fail",
        "schema-violation",
        "2 violations: $.a: bad (+1 more)",
        "$.a: bad\n$.b: bad",
    ),
    Verdict("ratelimit", "skip", "earlier-failure", "not reached"),
    Verdict("response", "skip", "earlier-failure", "not reached"),
    Verdict("inject", "skip", "earlier-failure", "not reached"),
)
REPORT = ReplayReport(
    trace_id="t1",
    session_id="s1",
    calls=(CallReplay("", EVIL, "f.json#/1", STAGES, "rejected@schema", "dispatched", False),),
    registry="session",
    changes=(Change("", EVIL, "f.json#/1", "dispatched", "rejected@schema"),),
    live=(
        LiveResult(
            "c1",
            "query_db",
            "http://127.0.0.1:1/tools/query_db",
            200,
            12.5,
            Verdict("response", "fail", "call-id-mismatch", "wrong id"),
            (FieldDiff("call_id", '"c1"', '"x"'),),
        ),
    ),
    notes=("a note",),
)


@pytest.mark.parametrize("fmt", ["table", "json", "markdown"])
def test_every_part_is_drawn(fmt: str) -> None:
    out = io.StringIO()
    render(fmt, REPORT, out, RenderOptions(width=120))
    text = out.getvalue()
    assert "\x1b" not in text and "[red]boom" in text.replace("\\[", "[").replace("\\]", "]")
    assert "call_id" in text and "rejected@schema" in text and "a note" in text
    if fmt == "json":
        doc = json.loads(text)
        assert doc["changes"] == [
            {
                "tool_call_id": "",
                "tool": EVIL,
                "origin": "f.json#/1",
                "before": "dispatched",
                "after": "rejected@schema",
                "causes": [],
            }
        ]
        assert doc["calls"][0]["stages"][1]["detail"] == "$.a: bad\n$.b: bad"
        assert doc["live"][0]["diffs"] == [{"path": "call_id", "recorded": '"c1"', "live": '"x"'}]
    else:
        assert '""' in text  # the empty id stays visible


def test_plain_run_has_null_changes_and_live() -> None:
    out = io.StringIO()
    render("json", ReplayReport("t", None, ()), out, RenderOptions())
    doc = json.loads(out.getvalue())
    assert doc["changes"] is None and doc["live"] is None and doc["calls"] == []
