"""Compaction merges a store's many one-input parts into a few, and readers cannot tell."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench.targets import middleware_inputs
from tests.conftest import run_cli
from toolcall_cli.sources import parse_file
from toolcall_cli.store import bucket_writer as store_write
from toolcall_cli.store import compact as store_compact
from toolcall_cli.store.manifest import read_manifest
from toolcall_cli.store.read import load_events
from toolcall_cli.store.write import write_files

TOOLCALL = str(Path(sys.executable).with_name("toolcall"))
FILES = 1_000


def _ingest(store: Path, paths: list[Path], batch: int = 100) -> None:
    """One write per batch of files, as repeated `toolcall ingest` calls would."""
    for lo in range(0, len(paths), batch):
        write_files(
            store,
            ((p, "middleware", parse_file(p, source="middleware")) for p in paths[lo : lo + batch]),
        )


def _parts(store: Path) -> int:
    return len(list((store / "events").rglob("*.parquet")))


def _buckets(store: Path) -> list[int]:
    return [e["bucket"] for e in read_manifest(store)["parts"].values()]


def _cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """`toolcall -q ARGS` in *cwd*, a directory of the test's own."""
    return subprocess.run(
        [TOOLCALL, "-q", *args], capture_output=True, text=True, timeout=600, cwd=cwd
    )


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The same 1,000 one-event inputs: `plain` with a part per input (as 1,000 ingests would
    leave it without compaction), `compacted` after the explicit pass."""
    root = tmp_path_factory.mktemp("compact")
    paths = middleware_inputs(root / "in", FILES)
    plain = root / "plain"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(store_write, "FLUSH_ROWS", 1)  # a part per input
        mp.setattr(store_write, "WRITE_ROWS", 1)
        mp.setattr(store_write, "MAX_SMALL", 10**9)  # and none merged as they are written
        _ingest(plain, paths)
    compacted = root / "compacted"
    shutil.copytree(plain, compacted)
    assert store_compact.compact(compacted) == _parts(plain) - len(set(_buckets(plain)))
    return plain, compacted


def test_compaction_leaves_one_part_per_bucket_and_keeps_each_inputs_entry(
    stores: tuple[Path, Path],
) -> None:
    plain, compacted = stores
    # rows moved by re-bucketing share a part: a few parts hold several inputs even so
    assert FILES >= _parts(plain) > 10 * _parts(compacted)
    buckets = _buckets(compacted)
    assert _parts(compacted) == len(buckets) == len(set(buckets)) == len(set(_buckets(plain)))
    assert len(list((compacted / "events").rglob("*.index"))) == len(buckets)
    before, after = read_manifest(plain)["files"], read_manifest(compacted)["files"]
    assert after == before  # path, source, counts
    held = sorted(k for e in read_manifest(compacted)["parts"].values() for k in e["inputs"])
    assert held == sorted(before)


def test_readers_see_the_same_events(stores: tuple[Path, Path]) -> None:
    plain, compacted = stores
    assert load_events(compacted).equals(load_events(plain))


@pytest.mark.parametrize(
    "args",
    [
        ["timeline", "--trace-id", "t7", "-f", "json"],
        ["diagnose", "-f", "json", "--fail-on", "never"],
        ["diagnose", "--tool-call-id", "c123", "-f", "json", "--fail-on", "never"],
    ],
)
def test_timeline_and_diagnose_print_the_same(stores: tuple[Path, Path], args: list[str]) -> None:
    plain, compacted = stores
    a = _cli([*args, "--store", str(plain)], cwd=plain.parent)
    b = _cli([*args, "--store", str(compacted)], cwd=plain.parent)
    assert a.returncode == 0, a.stderr
    assert (b.returncode, b.stdout) == (a.returncode, a.stdout.replace(str(plain), str(compacted)))


def test_reingesting_an_input_of_a_merged_part_replaces_only_its_events(
    stores: tuple[Path, Path], tmp_path: Path
) -> None:
    _, compacted = stores
    store = tmp_path / "store"
    shutil.copytree(compacted, store)
    path = Path(read_manifest(store)["files"][min(read_manifest(store)["files"])]["path"])
    n = len(load_events(store))
    write_files(store, [(path, "middleware", parse_file(path, source="middleware"))])
    events = load_events(store)
    assert len(events) == n
    assert (events["origin"].str.startswith(str(path))).sum() == 1
    assert _parts(store) == _parts(compacted)  # its bucket's part was rewritten, not added to


def test_a_crash_mid_compaction_leaves_the_store_readable(
    stores: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain, compacted = stores
    store = tmp_path / "store"
    shutil.copytree(plain, store)

    def crash(bucket: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(store_compact, "_staged_hook", crash)
    with pytest.raises(KeyboardInterrupt):
        store_compact.compact(store)
    assert _parts(store) == _parts(plain)
    assert not list((store / "events").rglob("*.new"))
    assert load_events(store).equals(load_events(plain))
    monkeypatch.undo()
    assert store_compact.compact(store) == _parts(plain) - _parts(compacted)
    assert load_events(store).equals(load_events(plain))


def test_ingest_compacts_and_quoting_still_finds_inputs(tmp_path: Path) -> None:
    paths = middleware_inputs(tmp_path / "in", 65)
    store = tmp_path / "store"
    done = _cli(["ingest", "--store", str(store), str(tmp_path / "in")], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    buckets = _buckets(store)
    assert _parts(store) == len(buckets) == len(set(buckets))  # one part per bucket
    recorded = {e["path"] for e in read_manifest(store)["files"].values()}
    assert recorded == {str(p.resolve()) for p in paths}


def test_a_store_of_many_one_event_files_is_compacted_and_diagnosed(tmp_path: Path) -> None:
    """Ten ingests of 20 one-event files each, compacted: one part per bucket, every input in the
    manifest, and diagnose reads the store (bench/targets.py times 10,000 such files)."""
    paths = middleware_inputs(tmp_path / "in", 200)
    store = tmp_path / "store"
    _ingest(store, paths, batch=20)
    store_compact.compact(store)
    assert len(read_manifest(store)["files"]) == 200
    buckets = _buckets(store)
    assert _parts(store) == len(buckets) == len(set(buckets))
    res = run_cli(["-q", "diagnose", "--store", str(store), "-f", "json", "--fail-on", "never"])
    assert res.exit_code == 0, res.stderr
    summary = json.loads(res.stdout)["summary"]
    # each input is one call that was received and never answered: TR001 and OR001 each
    assert {k: summary[k] for k in ("events", "calls", "traces", "incidents")} == {
        "events": 200,
        "calls": 200,
        "traces": 97,
        "incidents": 200,
    }
    assert summary["by_code"] == {"OR001": 200, "TR001": 200}
