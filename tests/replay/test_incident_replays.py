"""Replay of the incident bundles (messages + middleware log + access log + pcap): the verdicts
each scenario was built to show."""

from __future__ import annotations

import pytest

from tests.conftest import FIXTURES
from toolcall_cli.replay import replay
from toolcall_cli.sources import ingest_paths

CASES = {
    # scenario: (trace, {call: (replayed, observed, agrees, failing code or None)})
    "healthy": (
        "trace-healthy",
        {
            "call_w1": ("dispatched", "dispatched", True, None),
            "call_f1": ("dispatched", "dispatched", True, None),
        },
    ),
    "silent-drop": (
        "trace-drop",
        {"call_s1": ("rejected@schema", "missing", True, "schema-violation")},
    ),
    "call-id-mismatch": (
        "trace-mm",
        {"call_m1": ("rejected@response", "dispatched", True, "call-id-mismatch")},
    ),
    "retry-duplicate": ("trace-retry", {"call_r1": ("dispatched", "dispatched", True, None)}),
}


@pytest.mark.tshark
@pytest.mark.parametrize("scenario", sorted(CASES))
def test_incident(scenario: str, tshark: str) -> None:
    trace, expected = CASES[scenario]
    events = ingest_paths([FIXTURES / "incidents" / scenario]).events
    rep = replay(events, trace_id=trace)
    got = {}
    for c in rep.calls:
        fail = next((v.code for v in c.stages if v.failed), None)
        got[c.tool_call_id] = (c.replayed, c.observed, c.agrees, fail)
    assert got == expected


@pytest.mark.tshark
def test_duplicate_call_id_incident(tshark: str) -> None:
    events = ingest_paths([FIXTURES / "incidents" / "duplicate-call-id"]).events
    rep = replay(events, trace_id="trace-dup")
    codes = sorted(c.stages[0].code for c in rep.calls)
    assert codes == ["duplicate-id", "ok"]
    assert all(c.agrees for c in rep.calls)
