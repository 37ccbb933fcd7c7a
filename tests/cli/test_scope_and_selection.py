"""Scope flags and strict selection (issue 15): goldens for the exact stderr and exit code.

`--trace-id/--session-id/--tool-call-id/--tool/--since/--until` on diagnose, timeline and
replay; an unreadable value or an id nothing carries exits 2 naming what is accepted; unknown
codes, config sections and keys exit 2 with did-you-mean.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, assert_golden, run_cli

DROP = "fixtures/incidents/silent-drop"


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("diagnose/exit2_unknown_select", ["diagnose", DROP, "--select", "ZZ999"]),
        ("diagnose/exit2_select_did_you_mean", ["diagnose", DROP, "--ignore", "OR01"]),
        ("diagnose/exit2_config_unknown_key",
         ["--config", "fixtures/config/typo_key.toml", "diagnose", DROP]),
        ("diagnose/exit2_config_unknown_section",
         ["--config", "fixtures/config/typo_section.toml", "diagnose", DROP]),
        ("diagnose/exit2_unknown_tool", ["diagnose", DROP, "--tool", "nope"]),
        ("diagnose/exit2_since_unreadable", ["diagnose", DROP, "--since", "yesterday"]),
        ("diagnose/scope_trace_id", ["diagnose", DROP, "--trace-id", "trace-drop", "--select",
                                     "TR"]),
        ("timeline/exit2_since_unreadable", ["timeline", DROP, "--since", "5x"]),
        ("timeline/exit2_until_unreadable", ["timeline", DROP, "--until", "12"]),
        ("replay/exit2_until_unreadable", ["replay", DROP, "--until", "soon"]),
        ("replay/exit2_no_scope", ["replay", DROP]),
    ],
)  # fmt: skip
def test_scope_golden(name: str, args: list[str], update_goldens: bool) -> None:
    assert_golden(name, args, update=update_goldens)


def _bundle_store(tmp_path: Path) -> Path:
    for b in ("silent-drop", "flooding-model-loop"):
        (tmp_path / b).mkdir()
        for n in ("messages.json", "middleware.log"):
            shutil.copy(FIXTURES / "incidents" / b / n, tmp_path / b / n)
    store = tmp_path / "store"
    assert run_cli(["ingest", str(tmp_path), "--store", str(store)]).exit_code == 0
    return store


def test_diagnose_scope_reads_one_trace_from_the_store(tmp_path: Path) -> None:
    store = _bundle_store(tmp_path)
    every = json.loads(run_cli(["diagnose", "--store", str(store), "--format", "json"]).stdout)
    res = run_cli(["diagnose", "--store", str(store), "--trace-id", "trace-loop", "-f", "json"])
    one = json.loads(res.stdout)
    assert one["summary"]["sessions"] == 1 < every["summary"]["sessions"]
    assert {f["session_id"] for f in one["findings"]} == {"sess-loop"}
    assert "FL001" in one["summary"]["by_code"] and "TR001" not in one["summary"]["by_code"]


@pytest.mark.parametrize("command", ["diagnose", "timeline"])
def test_tool_and_duration_flags_narrow_the_evidence(tmp_path: Path, command: str) -> None:
    store = _bundle_store(tmp_path)
    base = [command, "--store", str(store), "-f", "json"]
    wide = json.loads(run_cli([*base, "--since", "1d"]).stdout)
    by_tool = json.loads(run_cli([*base, "--tool", "get_weather"]).stdout)
    if command == "diagnose":
        assert wide["summary"]["sessions"] == 2
        assert by_tool["summary"]["sessions"] == 1  # only the loop calls get_weather
    else:
        assert {s for t in by_tool["traces"] for s in t["session_ids"]} == {"sess-loop"}
        assert len(wide["traces"]) >= 2
