"""Regexes from the evidence or a config run in RE2: a backtracking bomb cannot hang toolcall.

`^(a+)+$` against thirty `a`s and a `b` takes Python's `re` minutes. Each case runs the real
CLI in a child process with a deadline, so a regression fails here instead of hanging the suite.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.conftest import run_cli

TOOLCALL = str(Path(sys.executable).with_name("toolcall"))
BOMB = "^(a+)+$"
VICTIM = "a" * 34 + "!"
DEADLINE = 30.0  # seconds; each run takes about one


def _cli(args: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    start = time.monotonic()
    try:
        done = subprocess.run(
            [TOOLCALL, *args], cwd=cwd, capture_output=True, text=True, timeout=DEADLINE
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"toolcall {' '.join(args)} still running after {DEADLINE:g} s")
    return done, time.monotonic() - start


def _messages(d: Path, schema: Mapping[str, object], args: Mapping[str, object]) -> Path:
    tool = {"type": "function", "function": {"name": "f", "parameters": schema}}
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "f", "arguments": json.dumps(args)},
    }
    doc = {
        "session_id": "s1",
        "tools": [tool],
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
        ],
    }
    path = d / "m.json"
    path.write_text(json.dumps(doc))
    return path


def _schema_stage(stdout: str) -> dict[str, str]:
    calls = json.loads(stdout)["calls"]
    return next(s for s in calls[0]["stages"] if s["stage"] == "schema")


def test_a_schema_pattern_bomb_is_checked_in_linear_time(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": BOMB}}}
    m = _messages(tmp_path, schema, {"s": VICTIM})
    done, _ = _cli(["replay", str(m), "--session-id", "s1", "-f", "json"], tmp_path)
    assert done.returncode == 0, done.stderr
    stage = _schema_stage(done.stdout)
    assert (stage["verdict"], stage["code"]) == ("fail", "schema-violation")
    assert "does not match" in stage["reason"]


def test_a_pattern_properties_bomb_is_checked_in_linear_time(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "patternProperties": {BOMB: {"type": "integer"}},
        "additionalProperties": False,
    }
    m = _messages(tmp_path, schema, {VICTIM: 1})
    done, _ = _cli(["replay", str(m), "--session-id", "s1", "-f", "json"], tmp_path)
    assert done.returncode == 0, done.stderr
    stage = _schema_stage(done.stdout)
    assert (stage["verdict"], stage["code"]) == ("fail", "schema-violation")


def test_a_pattern_re2_cannot_run_is_a_verdict_naming_it(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": "^(?=a)a"}}}
    m = _messages(tmp_path, schema, {"s": "a"})
    done, _ = _cli(["replay", str(m), "--session-id", "s1", "-f", "json"], tmp_path)
    assert done.returncode == 0, done.stderr
    stage = _schema_stage(done.stdout)
    assert (stage["verdict"], stage["code"]) == ("skip", "unchecked-pattern")
    assert "'^(?=a)a'" in stage["reason"]


def test_lint_checks_defaults_against_a_bomb_in_linear_time(tmp_path: Path) -> None:
    prop = {"type": "string", "pattern": BOMB, "default": VICTIM, "description": "s"}
    params = {"type": "object", "properties": {"s": prop}}
    tool = {"type": "function", "function": {"name": "f", "description": "d", "parameters": params}}
    (tmp_path / "tools.json").write_text(json.dumps([tool]))
    done, _ = _cli(["lint", "tools.json", "-f", "json", "--fail-on", "never"], tmp_path)
    assert done.returncode == 0, done.stderr
    codes = {f["code"] for f in json.loads(done.stdout)["findings"]}
    assert "SC014" in codes  # the default fails its own pattern, found without backtracking


def test_a_user_format_bomb_parses_in_linear_time(tmp_path: Path) -> None:
    (tmp_path / "toolcall.toml").write_text(
        "[[formats]]\nname = 'legacy'\n"
        "regex = '^<(?P<instance>[a-z]+)> (?P<detail>(a+)+)$'\n"
        "samples = ['<mw> aaa']\n"
    )
    (tmp_path / "mw.log").write_text(f"<mw> {VICTIM}\n<mw> aaaa\n")
    done, _ = _cli(
        ["--config", "toolcall.toml", "ingest", "--no-store", "mw.log", "--source", "middleware"],
        tmp_path,
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("regex", ["(?=a)b", "(a)\\1", "a\\Z"])
@pytest.mark.parametrize("where", ["formats", "redact"])
def test_a_config_regex_re2_refuses_is_a_usage_error_naming_it(
    tmp_path: Path, regex: str, where: str
) -> None:
    cfg = tmp_path / "toolcall.toml"
    if where == "formats":
        cfg.write_text(
            f"[[formats]]\nname = 'x'\nregex = '^<(?P<tool>[a-z]+)>{regex}'\nsamples = ['a']\n"
        )
    else:
        cfg.write_text(f"[redact]\npatterns = ['{regex}']\n")
    (tmp_path / "mw.log").write_text("x\n")
    res = run_cli(["--config", str(cfg), "ingest", "--no-store", str(tmp_path / "mw.log")])
    assert res.exit_code == 2, res.stderr
    assert res.stderr.startswith("toolcall: error:") and "is not supported" in res.stderr
    shown = repr(regex)[1:-1]  # quoted as Python writes it: a backslash doubled
    assert f"{shown}' is not supported: " in res.stderr, res.stderr
