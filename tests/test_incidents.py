"""Whole incident bundles: diagnose names the cause a senior engineer would name.

Each bundle under fixtures/incidents/ (written by `python -m fixtures.gen.incidents`) holds the
messages, middleware log, access log and capture of one story, plus expected.json listing the
codes that must fire and the code prefixes that must stay silent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, assert_golden, run_cli

BUNDLES = sorted(p for p in (FIXTURES / "incidents").iterdir() if (p / "expected.json").exists())


@pytest.mark.tshark
@pytest.mark.parametrize("bundle", BUNDLES, ids=[b.name for b in BUNDLES])
def test_bundle_diagnosis(bundle: Path, tshark: str) -> None:
    expected = json.loads((bundle / "expected.json").read_text())
    res = run_cli(["diagnose", str(bundle), "--format", "json", "--fail-on", "never"])
    assert res.exit_code == 0, res.stderr
    doc = json.loads(res.stdout)
    codes = {f["code"] for f in doc["findings"]}
    for code in expected["expected_codes"]:
        assert code in codes, f"{bundle.name}: expected {code}, got {sorted(codes)}"
    for prefix in expected["absent_codes"]:
        wrong = sorted(c for c in codes if c.startswith(prefix))
        assert not wrong, f"{bundle.name}: {wrong} must not fire ({expected['description']})"
    for f in doc["findings"]:
        if f["code"] in expected["expected_codes"]:
            assert f["evidence"], f"{f['code']} without evidence"
            assert f["fix"], f"{f['code']} without a fix"


@pytest.mark.tshark
def test_bundle_ingest_uses_all_four_sources(tshark: str) -> None:
    res = run_cli(
        [
            "ingest",
            "--no-store",
            "--format",
            "json",
            str(FIXTURES / "incidents" / "flooding-model-loop"),
        ]
    )
    assert res.exit_code == 0, res.stderr
    summary = json.loads(res.stdout)["summary"]
    assert {f["source"] for f in summary["files"]} == {"messages", "middleware", "nginx", "pcap"}
    assert summary["unparsed"]["count"] == 0
    assert summary["skipped"] == [
        {
            "path": str(FIXTURES / "incidents" / "flooding-model-loop" / "expected.json"),
            "reason": "format not recognised",
        }
    ]


def test_generator_is_reproducible(tmp_path: Path) -> None:
    from fixtures.gen.incidents import SCENARIOS

    for make in SCENARIOS:
        out = make().write(tmp_path)
        committed = FIXTURES / "incidents" / out.name
        for f in out.iterdir():
            assert f.read_bytes() == (committed / f.name).read_bytes(), (
                f"{out.name}/{f.name} is stale: rerun the generator"
            )


#: Each bundle's incidents: (root cause, its symptoms), worst first, as a senior engineer
#: tells the story. A flooding cause explains the cancellation's missing result; a missing
#: result, a loop or a retry explains the slow request; a split session does not.
INCIDENTS = {
    "call-id-mismatch": [("OR003", ["OR001"])],
    "double-submit": [("FL002", [])],
    "duplicate-call-id": [("FL003", [])],
    "flooding-model-loop": [("FL001", ["TM002"])],
    "healthy": [],
    "retry-duplicate": [("FL004", ["TM002"]), ("TM002", [])],
    "session-state-loss": [("FL005", []), ("TM002", [])],
    "silent-drop": [("TR001", ["OR001", "TM002"])],
    "truncated-result": [("TR002", [])],
}


@pytest.mark.tshark
@pytest.mark.parametrize("bundle", BUNDLES, ids=[b.name for b in BUNDLES])
def test_bundle_incidents(bundle: Path, tshark: str) -> None:
    res = run_cli(["diagnose", str(bundle), "--format", "json", "--fail-on", "never"])
    doc = json.loads(res.stdout)
    by_id = {f["id"]: f for f in doc["findings"]}
    told = [
        (f["code"], [by_id[s]["code"] for s in f["symptoms"]])
        for f in doc["findings"]
        if f["caused_by"] is None
    ]
    assert told == INCIDENTS[bundle.name]
    assert doc["summary"]["incidents"] == len(told)
    assert doc["summary"]["symptoms"] == sum(len(s) for _, s in told)
    if told:  # the trace's headline starts with its first root cause
        assert next(iter(doc["summary"]["headlines"].values())).startswith(told[0][0] + " ")


@pytest.mark.tshark
@pytest.mark.parametrize("bundle", BUNDLES, ids=[b.name for b in BUNDLES])
def test_bundle_grouped_output_golden(bundle: Path, tshark: str, update_goldens: bool) -> None:
    """The table a senior engineer reads: per trace, each incident's headline first, then the
    cause with its evidence and fix, its symptoms nested under it."""
    rel = bundle.relative_to(FIXTURES.parent)
    assert_golden(
        f"diagnose/incidents/{bundle.name}",
        ["diagnose", str(rel), "--fail-on", "never"],
        update=update_goldens,
    )
