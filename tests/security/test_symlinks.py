"""Symlinks never pull toolcall out of the tree it was given, nor make it write elsewhere.

`innocent.log -> ../outside/private.log` inside a bundle was read into the report; ingest
through a symlinked `.toolcall/events` deleted `*.new` files in the link's target.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli

PRIVATE = "private-diary-entry-4471"


def _line(msg: str, call: str) -> str:
    return json.dumps(
        {
            "ts": "2025-03-01T12:00:00Z",
            "event": "tool_call.received",
            "tool_call_id": call,
            "tool": "lookup",
            "msg": msg,
        }
    )


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "private.log").write_text(_line(PRIVATE, "c9") + "\n")
    (outside / "dir" / "more.log").write_text(_line(PRIVATE, "c8") + "\n")
    b = tmp_path / "bundle"
    b.mkdir()
    (b / "middleware.log").write_text(_line("tool call received", "c1") + "\n")
    (b / "innocent.log").symlink_to(Path("..") / "outside" / "private.log")
    (b / "linked").symlink_to(outside / "dir", target_is_directory=True)
    (b / "inside.log").symlink_to("middleware.log")  # stays in the tree: read
    return b


@pytest.mark.parametrize("command", ["ingest", "diagnose", "timeline"])
def test_symlinks_out_of_the_tree_are_skipped(bundle: Path, command: str) -> None:
    args = {
        "ingest": ["ingest", "--no-store", str(bundle), "-f", "json"],
        "diagnose": ["diagnose", str(bundle), "-f", "json", "--fail-on", "never"],
        "timeline": ["timeline", str(bundle), "-f", "json"],
    }[command]
    res = run_cli(args)
    assert res.exit_code == 0, res.stderr
    assert PRIVATE not in res.stdout + res.stderr
    if command == "ingest":
        skipped = {
            Path(s["path"]).name: s["reason"] for s in json.loads(res.stdout)["summary"]["skipped"]
        }
        assert "outside" in skipped["innocent.log"]
        assert "--follow-symlinks" in skipped["innocent.log"]


def test_follow_symlinks_reads_them(bundle: Path) -> None:
    res = run_cli(["ingest", "--no-store", "--follow-symlinks", str(bundle), "-f", "jsonl"])
    assert res.exit_code == 0, res.stderr
    assert res.stdout.count(PRIVATE) == 2  # the file link and the directory link


def test_a_file_named_on_the_command_line_is_read_wherever_it_points(bundle: Path) -> None:
    res = run_cli(["ingest", "--no-store", str(bundle / "innocent.log"), "-f", "jsonl"])
    assert res.exit_code == 0, res.stderr
    assert PRIVATE in res.stdout  # the user named it


def test_ingest_never_writes_through_a_symlinked_events_directory(
    bundle: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.parquet.new").write_text("not toolcall's")
    store = tmp_path / "store"
    store.mkdir()
    (store / "events").symlink_to(elsewhere, target_is_directory=True)
    res = run_cli(["-q", "ingest", str(bundle / "middleware.log"), "--store", str(store)])
    assert res.exit_code == 3, res.stderr
    assert "symlink" in res.stderr
    assert (elsewhere / "keep.parquet.new").read_text() == "not toolcall's"
    assert sorted(p.name for p in elsewhere.iterdir()) == ["keep.parquet.new"]
