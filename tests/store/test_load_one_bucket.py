"""A one-trace read touches its own bucket only: the files it opens, the row groups it reads and
the modules it loads, so the issue-20 figures (replay and timeline of one trace in ≤ 1 s, ≤ 300
MB on a 2 M-event store) cannot silently regress into a store-wide read."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from toolcall_cli.model.events import build_frame
from toolcall_cli.store import part_files
from toolcall_cli.store.layout import bucket_dir, buckets_of
from toolcall_cli.store.manifest import read_manifest
from toolcall_cli.store.read import buckets_of_ids, load_events
from toolcall_cli.store.read_selection import load_sessions, read_selected
from toolcall_cli.store.write import write_files

TRACES = 60
SESSIONS = 6
TOOLCALL = str(Path(sys.executable).with_name("toolcall"))


def _log(part: int) -> pd.DataFrame:
    """Middleware events of every trace (4 per call), each input holding its share of calls."""
    rows: dict[str, list[object]] = {
        k: [] for k in ("ts", "seq", "source", "origin", "kind", "trace_id", "tool_call_id")
    }
    rows["session_id"] = []
    for t in range(TRACES):
        for kind in ("mw_received", "mw_request", "mw_response", "mw_injected"):
            i = len(rows["seq"])
            rows["ts"].append(f"2025-03-01T00:{t % 60:02d}:{i % 60:02d}Z")
            rows["seq"].append(i)
            rows["source"].append("middleware")
            rows["origin"].append(f"mw{part}.log:{i + 1}")
            rows["kind"].append(kind)
            rows["trace_id"].append(f"trace_{t}")
            rows["tool_call_id"].append(f"call_{t}_{part}")
            rows["session_id"].append(f"sess_{t % SESSIONS}")
    return build_frame(rows)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("store")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(part_files, "ROW_GROUP", 8)  # many row groups per part
        for part in range(3):  # three ingests: buckets hold several parts
            write_files(root, [(Path(f"/evidence/mw{part}.log"), "middleware", _log(part))])
    return root


def test_a_trace_is_read_from_its_bucket_alone(store: Path) -> None:
    manifest = read_manifest(store)
    (bucket,) = buckets_of_ids(store, {"trace_id": {"trace_7"}}, buckets_of(manifest))
    own = sorted(bucket_dir(store, "events", bucket).glob("*.parquet"))
    everywhere = list((store / "events").rglob("*.parquet"))
    assert len(everywhere) > len(own) >= 1
    got, stats = read_selected(store, trace_id="trace_7")
    assert sorted(Path(f) for f in stats.files) == own
    assert stats.scanned_files == 0  # through the id index, not a scan of the id columns
    assert stats.row_groups_read < stats.row_groups
    full = load_events(store)
    want = full[full["trace_id"] == "trace_7"].reset_index(drop=True)
    pd.testing.assert_frame_equal(got, want)


def test_a_session_read_follows_session_ids_within_the_bucket(store: Path) -> None:
    got = load_sessions(store, trace_id="trace_7")
    full = load_events(store)
    want = full[full["session_id"] == "sess_1"].reset_index(drop=True)  # 7 % SESSIONS
    pd.testing.assert_frame_equal(got, want)
    assert set(got["trace_id"]) == {f"trace_{t}" for t in range(1, TRACES, SESSIONS)}


def test_no_whole_file_read(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pq.read_table reads every row group of a file (and loads Arrow's dataset layer): a
    one-trace read opens row groups by number instead, the key map's included."""

    def whole(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a whole-file read of {args[0]}")

    monkeypatch.setattr(pq, "read_table", whole)
    assert len(load_sessions(store, session_id="sess_2")) == TRACES // SESSIONS * 4 * 3
    assert len(read_selected(store, trace_id="trace_3")[0]) == 4 * 3


@pytest.mark.parametrize("command", ["timeline", "replay"])
def test_the_command_loads_no_store_wide_machinery(store: Path, command: str) -> None:
    """The whole CLI on a one-trace read: no adapter (nothing is parsed), no Arrow dataset or
    query engine (selection is compute kernels on the row groups read)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", TOOLCALL, "-q", command, "--trace-id", "trace_7",
         "--store", str(store)],
        capture_output=True, text=True, check=False, timeout=120, cwd=store.parent,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    loaded = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert "trace_7" in done.stdout
    forbidden = {"pyarrow.dataset", "pyarrow.acero", "toolcall_cli.sources", "jsonschema"}
    if command == "replay":
        forbidden.discard("jsonschema")  # the schema stage validates arguments
    assert not loaded & forbidden
