"""A `toolcall.toml` found by discovery (e.g. inside an incident bundle) cannot weaken toolcall.

It may add redaction, never remove it; a catch-all `[[formats]]` regex is refused; stderr
names the config file in use. Only `--no-redact` or an explicit `--config` turns redaction
off, and both warn.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli

pytestmark = pytest.mark.config_discovery  # every test here finds its config

SK = "sk-proj-Bundle7Cfg3Leak9Key2Zz41"
LINE = {
    "ts": "2025-03-01T12:00:00Z",
    "event": "tool_call.received",
    "tool_call_id": "c1",
    "tool": "deploy",
    "msg": f"deploying with {SK}",
}


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    d = tmp_path / "incident"
    (d / "logs").mkdir(parents=True)
    (d / "logs" / "middleware.log").write_text(json.dumps(LINE) + "\n")
    (d / "toolcall.toml").write_text("[redact]\nenabled = false\n")
    return d


@pytest.mark.parametrize("cwd", [".", "logs"])  # the config in the cwd, or in a parent
def test_a_discovered_config_cannot_turn_redaction_off(bundle: Path, cwd: str) -> None:
    log = str(bundle / "logs" / "middleware.log")
    res = run_cli(["ingest", "--no-store", log, "-f", "jsonl"], cwd=bundle / cwd)
    assert res.exit_code == 0, res.stderr
    assert SK not in res.stdout
    assert "[REDACTED]" in res.stdout
    cfg = str(bundle / "toolcall.toml")
    assert f"toolcall: using config {cfg}" in res.stderr
    assert "ignoring [redact] enabled = false" in res.stderr


def test_diagnose_quotes_stay_redacted_under_a_discovered_config(bundle: Path) -> None:
    (bundle / "logs" / "middleware.log").write_text(
        json.dumps(LINE) + f"\n@@@ unreadable {SK} @@@\n"
    )
    res = run_cli(["diagnose", ".", "-f", "json", "--fail-on", "never"], cwd=bundle)
    assert res.exit_code == 0, res.stderr
    assert SK not in res.stdout + res.stderr


@pytest.mark.parametrize("how", ["--config", "--no-redact"])
def test_only_an_explicit_choice_turns_redaction_off_and_it_warns(bundle: Path, how: str) -> None:
    args = ["--config", "toolcall.toml", "ingest"] if how == "--config" else ["ingest", how]
    res = run_cli([*args, "--no-store", "logs/middleware.log", "-f", "jsonl"], cwd=bundle)
    assert res.exit_code == 0, res.stderr
    assert SK in res.stdout
    assert "toolcall: warning:" in res.stderr and "appear in the output" in res.stderr


@pytest.mark.parametrize("regex", ["(?P<detail>.*)", "(?P<detail>.+)", "^(?P<event>.*?)$"])
def test_a_catch_all_format_is_refused(bundle: Path, regex: str) -> None:
    (bundle / "toolcall.toml").write_text(
        f"[[formats]]\nname = 'all'\nregex = '{regex}'\nsamples = ['a']\n"
    )
    res = run_cli(["diagnose", ".", "-f", "json", "--fail-on", "never"], cwd=bundle)
    assert res.exit_code == 2
    assert res.stderr.startswith(f"toolcall: error: {bundle / 'toolcall.toml'}: format 'all'")
    assert "matches any line" in res.stderr


def test_a_discovered_config_may_add_redaction(bundle: Path) -> None:
    (bundle / "toolcall.toml").write_text("[redact]\npatterns = ['deploying']\n")
    res = run_cli(["ingest", "--no-store", "logs/middleware.log", "-f", "jsonl"], cwd=bundle)
    assert res.exit_code == 0, res.stderr
    assert "deploying" not in res.stdout and SK not in res.stdout
    assert "using config" in res.stderr
