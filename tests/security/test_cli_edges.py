"""Edges of the CLI surface: `-o` is written atomically, a device is not "no such file",
invisible and bidi characters never reach a terminal raw."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, run_cli
from toolcall_cli.render.safe import clean

MW = FIXTURES / "middleware" / "json_lines.log"
TOOLCALL = str(Path(sys.executable).with_name("toolcall"))


def _small_disk() -> None:
    """A child that cannot write files past 512 bytes, as on a full disk (EFBIG, not SIGXFSZ)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (512, 512))


def test_a_full_disk_leaves_the_previous_output_whole(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    args = [TOOLCALL, "diagnose", str(MW), "-f", "json", "-o", str(out), "--fail-on", "never"]
    first = subprocess.run(args, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    before = out.read_text()
    assert len(before) > 512
    done = subprocess.run(
        args, capture_output=True, text=True, timeout=120, preexec_fn=_small_disk, cwd=tmp_path
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"toolcall: error: cannot write {out}")
    assert out.read_text() == before  # not a 0-byte or half-written file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]  # no temp file left


def test_a_new_output_file_gets_ordinary_permissions(tmp_path: Path) -> None:
    out = tmp_path / "r.md"
    res = run_cli(["diagnose", str(MW), "-f", "markdown", "-o", str(out), "--fail-on", "never"])
    assert res.exit_code == 0, res.stderr
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask


def test_lint_of_a_device_says_what_it_is() -> None:
    res = run_cli(["lint", "/dev/null"])
    assert res.exit_code == 3
    assert res.stderr.startswith("toolcall: error: /dev/null: not a regular file")


@pytest.mark.parametrize(
    "ch", ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u202e", "\u2066", "\u061c",
           "\u00ad", "\U000e0041"],
)  # fmt: skip
def test_invisible_and_bidi_characters_are_escaped(ch: str) -> None:
    out = clean(f"rm{ch}-rf")
    assert ch not in out
    assert out.startswith("rm\\") and out.endswith("-rf")


def test_a_zero_width_tool_name_is_visible_in_the_table(tmp_path: Path) -> None:
    line = {
        "ts": "2025-03-01T12:00:00Z",
        "event": "tool_call.received",
        "tool_call_id": "c1",
        "tool": "get\u200bweather",
        "msg": "tool call received",
    }
    log = tmp_path / "mw.log"
    log.write_text(json.dumps(line) + "\n")
    res = run_cli(["timeline", str(log), "--tool-call-id", "c1"])
    assert res.exit_code == 0, res.stderr
    assert "\u200b" not in res.stdout
    assert "get\\u200bweather" in res.stdout
