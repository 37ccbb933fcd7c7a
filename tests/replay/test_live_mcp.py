"""replay --mcp-command / --mcp-url against a real MCP server written with the SDK (the server
the MCP fixtures were recorded from, fixtures/gen/mcp/server.py), over stdio and over
streamable HTTP on loopback; every server a test starts, it stops."""

from __future__ import annotations

import json
import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import FIXTURES, ROOT, need_module, run_cli

SERVER = ROOT / "fixtures" / "gen" / "mcp" / "server.py"
FULL = FIXTURES / "mcp" / "session_2025-11-25.jsonl"
MODERN = FIXTURES / "mcp" / "session_2026-07-28.jsonl"
STDIO = shlex.join([sys.executable, str(SERVER)])


@pytest.fixture(autouse=True)
def _sdk() -> None:
    need_module("mcp", install="pip install 'toolcall[mcp]'")


def replay(path: Any, *extra: str) -> dict[str, Any]:
    session = path.name.removesuffix(".jsonl")
    result = run_cli(["replay", str(path), "--session-id", session, "--format", "json", *extra])
    assert result.exit_code == 0, result.output
    doc: dict[str, Any] = json.loads(result.stdout)
    return doc


def verdicts(doc: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {
        f"{r['tool']}#{r['tool_call_id']}": (r["verdict"]["verdict"], r["verdict"]["code"])
        for r in doc["live"]
    }


def test_the_recorded_session_replays_the_same_over_stdio() -> None:
    doc = replay(FULL, "--mcp-command", STDIO)
    assert verdicts(doc) == {
        "add#3": ("pass", "ok"),
        "slow_report#4": ("pass", "ok"),  # cancelled after the recorded 1 s, as recorded
        "lookup#5": ("pass", "ok"),  # isError both times
        "no_such_tool#6": ("pass", "ok"),
        "enable_extra#8": ("pass", "ok"),
        "echo#10": ("pass", "ok"),  # registered by enable_extra in the same session
    }
    slow = next(r for r in doc["live"] if r["tool"] == "slow_report")
    assert "as recorded" in slow["verdict"]["reason"]
    assert 900 <= slow["elapsed_ms"] < 3000


def test_a_regressed_server_is_named_per_call_and_field() -> None:
    doc = replay(MODERN, "--mcp-command", f"{STDIO} --changed")
    got = {r["tool"]: r for r in doc["live"]}
    assert verdicts(doc) == {
        "add#2": ("fail", "result-changed"),
        "lookup#3": ("fail", "result-changed"),
        "slow_report#4": ("pass", "ok"),
    }
    add = {d["path"]: (d["recorded"], d["live"]) for d in got["add"]["diffs"]}
    assert add == {"content": ('"5"', '"6"'), "structuredContent": ('{"result":5}', '{"result":6}')}
    lookup = {d["path"]: (d["recorded"], d["live"]) for d in got["lookup"]["diffs"]}
    assert lookup["isError"] == ("true", "false")


@pytest.fixture
def http_server() -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert proc.poll() is None, "the MCP server exited"
            assert time.monotonic() < deadline, "the MCP server did not listen"
            time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_streamable_http_on_loopback(http_server: int) -> None:
    # "localhost" is resolved once and the connection pinned to the loopback address
    doc = replay(MODERN, "--mcp-url", f"http://localhost:{http_server}/mcp")
    assert verdicts(doc) == {
        "add#2": ("pass", "ok"),
        "lookup#3": ("pass", "ok"),
        "slow_report#4": ("pass", "ok"),
    }
    assert {r["url"] for r in doc["live"]} == {f"http: http://localhost:{http_server}/mcp"}


def test_a_server_that_cannot_start_fails_each_call_with_the_reason(tmp_path: Any) -> None:
    doc = replay(MODERN, "--mcp-command", str(tmp_path / "no-such-server"))
    assert {r["verdict"]["code"] for r in doc["live"]} == {"unreachable"}
    assert "no MCP session with" in doc["live"][0]["verdict"]["reason"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--mcp-url", "http://192.0.2.10:8080/mcp"], "not a loopback address"),
        (["--mcp-url", "ftp://127.0.0.1/mcp"], "--mcp-url must be an http(s) URL"),
        (["--mcp-url", "http://127.0.0.1:9/mcp", "--mcp-command", "x"], "not both"),
        (["--mcp-command", "x", "--target", "http://127.0.0.1:9"], "pick one"),
        (["--mcp-command", "'unclosed"], "does not parse"),
    ],
)
def test_bad_targets_are_usage_errors_before_any_evidence(args: list[str], message: str) -> None:
    result = run_cli(["replay", str(FIXTURES / "missing.jsonl"), "--session-id", "s", *args])
    assert result.exit_code == 2, result.output
    assert message in result.stderr


def test_without_the_sdk_the_replay_is_exit_4(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)
    result = run_cli(
        ["replay", str(MODERN), "--session-id", "session_2026-07-28", "--mcp-command", STDIO]
    )
    assert result.exit_code == 4
    assert "pip install 'toolcall[mcp]'" in result.stderr
