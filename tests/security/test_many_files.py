"""A store of many small files is read with a bounded number of open descriptors.

A store of 1,000 one-event files failed under `ulimit -n 1024` with "Too many open files …
re-ingest its input": every file and its index stayed open while the selection ran. The
readers are run in a child whose descriptor limit is well below the number of files.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from toolcall_cli.sources import parse_file
from toolcall_cli.store.manifest import data_files, read_manifest
from toolcall_cli.store.write import write_files

TOOLCALL = str(Path(sys.executable).with_name("toolcall"))
FILES = 200
NOFILE = 64  # descriptors for the child: far fewer than FILES (let alone 2 × FILES)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("many")
    inputs = root / "in"
    inputs.mkdir()
    parts = []
    for i in range(FILES):
        line = {
            "ts": f"2025-03-01T12:00:{i % 60:02d}Z",
            "event": "tool_call.received",
            "trace_id": f"t{i}",
            "tool_call_id": f"c{i}",
            "tool": "lookup",
            "msg": "tool call received",
        }
        path = inputs / f"mw{i:04d}.log"
        path.write_text(json.dumps(line) + "\n")
        parts.append((path, "middleware", parse_file(path, source="middleware")))
    write_files(root / "store", parts)
    assert len(read_manifest(root / "store")["files"]) == FILES
    assert len(data_files(root / "store")) <= 64  # one ingest's small inputs share parts
    return root / "store"


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (NOFILE, NOFILE))


def _cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [TOOLCALL, "-q", *args],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=_limit,
        cwd=cwd,
    )


def test_timeline_reads_a_store_of_many_files(store: Path) -> None:
    done = _cli(
        ["timeline", "--store", str(store), "--trace-id", "t7", "-f", "json"], cwd=store.parent
    )
    assert done.returncode == 0, done.stderr
    assert "Too many open files" not in done.stderr


def test_diagnose_reads_a_store_of_many_files(store: Path) -> None:
    done = _cli(
        ["diagnose", "--store", str(store), "-f", "json", "--fail-on", "never"], cwd=store.parent
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["summary"]


def test_an_unknown_id_hint_reads_a_store_of_many_files(store: Path) -> None:
    done = _cli(
        ["timeline", "--store", str(store), "--trace-id", "nope", "-f", "json"], cwd=store.parent
    )
    assert done.returncode == 2, done.stderr  # a usage error naming known ids, not exit 3
    assert "Too many open files" not in done.stderr
