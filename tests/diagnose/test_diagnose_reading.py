"""Reading a big run (issue 16 item 3): `--statistics` counts per code and severity, with root
causes and symptoms; `--group-by code` groups the table per code. The booking bundle (12
findings, 4 of them symptoms) is the reference run."""

from __future__ import annotations

import json

import pytest

from tests.conftest import assert_golden, run_cli

BOOKING = [
    "--config",
    "fixtures/replay/booking/toolcall.toml",
    "diagnose",
    "fixtures/replay/booking/messages.json",
    "fixtures/replay/booking/middleware.log",
]


@pytest.mark.parametrize(
    ("name", "extra"),
    [
        ("booking_statistics", ["--statistics"]),
        ("booking_statistics_json", ["--statistics", "--format", "json"]),
        ("booking_group_by_code", ["--group-by", "code"]),
        ("booking_incidents_markdown", ["--format", "markdown"]),
        ("exit2_statistics_sarif", ["--statistics", "--format", "sarif"]),
    ],
)
def test_reading_goldens(name: str, extra: list[str], update_goldens: bool) -> None:
    assert_golden(f"diagnose/{name}", [*BOOKING, *extra], update=update_goldens)


def test_statistics_counts_causes_and_symptoms() -> None:
    res = run_cli([*BOOKING, "--statistics", "--format", "json", "--fail-on", "never"])
    assert res.exit_code == 0, res.stderr
    rows = {r["code"]: r for r in json.loads(res.stdout)["statistics"]}
    assert rows["OR001"] == {
        "code": "OR001",
        "name": "call-without-result",
        "severity": "error",
        "count": 5,
        "root_causes": 1,
        "symptoms": 4,
    }
    assert sum(r["count"] for r in rows.values()) == 12
    assert res.stderr.endswith(
        "8 incidents (root causes), 4 symptoms: 9 errors, 3 warnings in 1 trace\n"
    )


def test_the_top_finding_is_the_replayed_limit() -> None:
    """The booking run's first incident names the limit replay found, not 'no evidence'."""
    res = run_cli([*BOOKING, "--format", "json", "--fail-on", "never"])
    findings = json.loads(res.stdout)["findings"]
    first, second = findings[:2]
    assert first["code"] == "FL006" and first["caused_by"] is None
    # the cancelled call's missing result is the flood cancellation's symptom (flood-cancelled)
    assert (second["code"], second["tool_call_ids"], second["breakpoint"]) == (
        "OR001",
        ["call_7"],
        "blocked",
    )
    assert first["symptoms"] == [second["id"]] and second["caused_by"] == first["id"]
    assert "'send_email' is limited to 2 calls per 60 s" in first["message"]
    assert (
        first["replayed_limit"]
        == "'send_email' is limited to 2 calls per 60 s; 2 already in the window"
    )
