"""Text from inputs never reaches the terminal as escapes or rich markup (issue 8 §2).

Hostile strings (ANSI colour, OSC title/hyperlink, BEL, rich markup) are planted in a
messages file, a middleware log and an nginx log; every command that shows input text is run
in every format it offers, with colour forced on, and the raw control bytes must not appear.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli

HOSTILE = (
    "\x1b[31mRED\x1b[0m \x1b]0;pwned\x07 \x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\ "
    "[bold red]LOUD[/] [link=http://evil.example]x[/link]\x07"
)
RAW_BYTES = ("\x1b[31m", "\x1b]0;", "\x1b]8;", "\x07")
#: How a table shows the hostile text: control bytes as visible escapes, markup as written.
SHOWN = ("\\x1b[31mRED\\x1b[0m", "[bold red]LOUD[/]")


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    d = tmp_path / "bundle"
    d.mkdir()
    msgs = {
        "session_id": "s-hostile",
        "messages": [
            {"role": "user", "content": HOSTILE},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_x",
                        "type": "function",
                        "function": {
                            "name": "get_" + HOSTILE,
                            "arguments": json.dumps({"q": HOSTILE}),
                        },
                    },
                    {
                        "id": "call_x",
                        "type": "function",
                        "function": {"name": "get_" + HOSTILE, "arguments": '{"q": 1'},
                    },
                ],
            },
            {"role": "tool", "tool_call_id": "call_y", "content": HOSTILE},
        ],
    }
    (d / "messages.json").write_text(json.dumps(msgs))
    (d / "middleware.log").write_text(
        json.dumps(
            {
                "ts": "2025-03-01T12:00:00Z",
                "event": "tool_call.flooded",
                "session_id": "s-hostile",
                "tool_call_id": "call_x",
                "msg": "tool call cancelled because tool-call flooding was detected " + HOSTILE,
            }
        )
        + "\n"
        + HOSTILE
        + "\n"
    )
    (d / "access.log").write_text(
        '10.0.0.1 - - [01/Mar/2025:12:00:00 +0000] "POST /v1/chat/completions HTTP/1.1" 200 5 '
        f'"-" "{HOSTILE.replace(chr(34), "")}"\n'
    )
    return d


def _check(out: str) -> None:
    for raw in RAW_BYTES:
        assert raw not in out, f"raw control sequence {raw!r} reached the output"


@pytest.mark.parametrize(
    "command,formats",
    [
        (["ingest", "--no-store"], ["table", "json", "jsonl", "markdown"]),
        (["diagnose", "--fail-on", "never"], ["table", "json", "markdown", "sarif"]),
        (["timeline"], ["table", "json", "markdown"]),
    ],
)
def test_commands_neutralise_input_text(
    bundle: Path, command: list[str], formats: list[str]
) -> None:
    for fmt in formats:
        res = run_cli(
            ["--color", "always", *command, str(bundle), "--format", fmt], env={"NO_COLOR": ""}
        )
        assert res.exit_code == 0, (fmt, res.stdout, res.stderr)
        _check(res.stdout)
        _check(res.stderr)
        if fmt == "table":
            for shown in SHOWN:  # escapes made visible, markup shown literally, never applied
                assert shown in res.stdout, (fmt, shown)


def test_replay_neutralises_input_text(bundle: Path) -> None:
    for fmt in ("table", "json", "markdown"):
        res = run_cli(
            [
                "--color",
                "always",
                "replay",
                str(bundle),
                "--session-id",
                "s-hostile",
                "--format",
                fmt,
            ],
            env={"NO_COLOR": ""},
        )
        assert res.exit_code == 0, (fmt, res.stderr)
        _check(res.stdout)
        _check(res.stderr)


def test_error_messages_neutralise_paths(tmp_path: Path) -> None:
    bad = tmp_path / "x\x1b]0;pwned\x07.log"
    bad.write_bytes(b"\x00\x01\x02 not a known format \xff")
    res = run_cli(["ingest", "--no-store", str(bad)])
    assert res.exit_code == 3
    _check(res.stderr)
    assert "toolcall: error:" in res.stderr
