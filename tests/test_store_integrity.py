"""The store never corrupts (issue 8 §4): crashes mid-ingest, re-ingest, versions, damage.

A crash is simulated by making the second rename of an ingest fail, by interrupting the
Parquet writer with Ctrl-C, and by SIGKILLing a real `toolcall ingest` process while it runs
on a large generated log. Afterwards the store must read back exactly as before (or, once the
manifest is committed, exactly as after): never one input's new events beside another's old.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from tests.conftest import FIXTURES, run_cli
from toolcall_cli.errors import InputError
from toolcall_cli.sources import parse_file
from toolcall_cli.store import part_files
from toolcall_cli.store import write as store_mod
from toolcall_cli.store.manifest import data_files, file_key, read_manifest, stored_files
from toolcall_cli.store.read import load_events
from toolcall_cli.store.write import write_files

MW = FIXTURES / "middleware" / "json_lines.log"
NGINX = FIXTURES / "nginx" / "combined.log"


def _snapshot(store: Path) -> pd.DataFrame:
    return load_events(store).sort_values(["origin", "seq"]).reset_index(drop=True)


def _inputs(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "mw.log", tmp_path / "access.log"
    a.write_bytes(MW.read_bytes())
    b.write_bytes(NGINX.read_bytes())
    return a, b


def _consistent(store: Path) -> None:
    """Manifest counts match the Parquet contents, file by file."""
    ev = load_events(store)
    for f in stored_files(store):
        mine = ev[ev["origin"].str.startswith(f.path)]
        assert (mine["kind"] != "unparsed").sum() == f.events, f
        assert (mine["kind"] == "unparsed").sum() == f.unparsed, f


def test_failed_rename_mid_ingest_leaves_the_previous_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "store"
    a, b = _inputs(tmp_path)
    pairs = ((a, "middleware"), (b, "nginx"))
    write_files(store, [(p, s, parse_file(p, source=s)) for p, s in pairs])
    before = _snapshot(store)
    # the inputs change (one line more each), then the re-ingest dies at the second rename
    a.write_text(a.read_text() + MW.read_text().splitlines()[0] + "\n")
    b.write_text(b.read_text() + NGINX.read_text().splitlines()[0] + "\n")
    parts = [(p, s, parse_file(p, source=s)) for p, s in pairs]
    real = os.replace
    calls = {"n": 0}

    def flaky(src: Any, dst: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(28, "No space left on device")
        real(src, dst)

    monkeypatch.setattr(store_mod.os, "replace", flaky)
    with pytest.raises(InputError, match=r"cannot write the store .*No space left on device"):
        write_files(store, parts)  # an input problem (exit 3), not an internal error
    monkeypatch.setattr(store_mod.os, "replace", real)
    pd.testing.assert_frame_equal(_snapshot(store), before)
    _consistent(store)
    # the next ingest sweeps the leftovers and lands whole
    write_files(store, parts)
    files = [p for p in (store / "events").rglob("*") if p.is_file()]
    left = [p for p in files if not p.name.endswith((".parquet", ".index"))]
    assert not left
    assert len(_snapshot(store)) == len(before) + 2
    _consistent(store)


def test_ctrl_c_in_the_writer_and_a_crash_after_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "store"
    a, b = _inputs(tmp_path)
    first = [(a, "middleware", parse_file(a, source="middleware"))]
    write_files(store, first)
    before = _snapshot(store)
    import pyarrow.parquet as pq

    real_write = pq.write_table
    calls = {"n": 0}

    def interrupted(*args: Any, **kw: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        real_write(*args, **kw)

    monkeypatch.setattr(part_files.pq, "write_table", interrupted)
    parts = [first[0], (b, "nginx", parse_file(b, source="nginx"))]
    with pytest.raises(KeyboardInterrupt):
        write_files(store, parts)
    monkeypatch.setattr(part_files.pq, "write_table", real_write)
    pd.testing.assert_frame_equal(_snapshot(store), before)
    # a crash right after the commit point: the next reader rolls the ingest forward
    monkeypatch.setattr(store_mod, "roll_forward", lambda s, m: m)
    write_files(store, parts)
    monkeypatch.undo()
    assert read_manifest(store).get("pending") is None
    assert len(stored_files(store)) == 2
    _consistent(store)


def test_sigkill_during_a_real_ingest(tmp_path: Path) -> None:
    store = tmp_path / "store"
    a, b = _inputs(tmp_path)
    assert run_cli(["-q", "ingest", "--store", str(store), str(a), str(b)]).exit_code == 0
    before = _snapshot(store)
    big = tmp_path / "big.log"
    lines = MW.read_text().splitlines()
    big.write_text("\n".join(lines * 5_000) + "\n")  # 40k lines: parsing takes a moment
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from toolcall_cli.cli.app import app; app()",
            "-q",
            "ingest",
            "--store",
            str(store),
            str(a),
            str(b),
            str(big),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    t0 = time.monotonic()
    try:  # kill it the moment it starts writing (or after 60 s)
        while proc.poll() is None and time.monotonic() - t0 < 60:
            if any(p.name.endswith((".new", ".tmp")) for p in (store / "events").rglob("*")):
                break
            time.sleep(0.005)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    after = _snapshot(store)  # old or fully new; never torn
    if len(after) == len(before):
        pd.testing.assert_frame_equal(after, before)
    else:
        assert len(stored_files(store)) == 3
    _consistent(store)


def test_reingest_is_idempotent(tmp_path: Path) -> None:
    store = tmp_path / "store"
    inputs = [str(MW), str(NGINX), str(FIXTURES / "messages" / "openai_array.json")]
    outs = []
    for _ in range(2):
        res = run_cli(["-q", "ingest", "--store", str(store), "--format", "json", *inputs])
        assert res.exit_code == 0, res.stderr
        outs.append((json.loads(res.stdout)["summary"], _snapshot(store)))
    assert outs[0][0] == outs[1][0]
    pd.testing.assert_frame_equal(outs[0][1], outs[1][1])
    data = data_files(store)
    files = sorted(p for p in (store / "events").rglob("*") if p.is_file())
    assert files == sorted([*data, *(p.with_suffix(".index") for p in data)])
    assert [f.events for f in stored_files(store)] == [
        f["events"] for f in sorted(outs[0][0]["files"], key=lambda f: file_key(Path(f["path"])))
    ]


@pytest.mark.parametrize("command", [["timeline"], ["diagnose"], ["replay", "--session-id", "s"]])
def test_other_schema_version_is_explained(tmp_path: Path, command: list[str]) -> None:
    store = tmp_path / "store"
    assert run_cli(["-q", "ingest", "--store", str(store), str(MW)]).exit_code == 0
    mf = store / "manifest.json"
    data = json.loads(mf.read_text())
    data["schema_version"] = 99
    mf.write_text(json.dumps(data))
    res = run_cli([*command, "--store", str(store)])
    assert res.exit_code == 3, res.stderr
    assert "schema version 99" in res.stderr and "hint: re-ingest" in res.stderr
    # ingest into it refuses too, instead of mixing versions
    res = run_cli(["ingest", "--store", str(store), str(NGINX)])
    assert res.exit_code == 3 and "schema version 99" in res.stderr


@pytest.mark.parametrize(
    "damage",
    ["truncate", "garbage", "delete", "manifest-garbage", "manifest-shape"],
)
def test_damaged_store_gives_a_clear_error(tmp_path: Path, damage: str) -> None:
    store = tmp_path / "store"
    assert run_cli(["-q", "ingest", "--store", str(store), str(MW)]).exit_code == 0
    pf = data_files(store)[0]
    mf = store / "manifest.json"
    if damage == "truncate":
        pf.write_bytes(pf.read_bytes()[: pf.stat().st_size // 2])
    elif damage == "garbage":
        pf.write_bytes(b"PAR1" + os.urandom(2000))
    elif damage == "delete":
        pf.unlink()
    elif damage == "manifest-garbage":
        mf.write_bytes(b"\x00{not json")
    else:
        mf.write_text(json.dumps({"schema_version": 1, "files": {"k": {"path": 3}}}))
    commands = (
        ["timeline"],
        ["timeline", "--trace-id", "t"],
        ["diagnose"],
        ["replay", "--session-id", "s1"],
    )
    for command in commands:
        res = run_cli([*command, "--store", str(store)])
        assert res.exit_code == 3, (command, res.exit_code, res.stderr)
        lines = res.stderr.strip().splitlines()
        assert lines[0].startswith("toolcall: error: ") and "store" in lines[0], res.stderr
        assert "Traceback" not in res.stderr
    with pytest.raises(InputError):
        load_events(store)
