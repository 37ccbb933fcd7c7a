"""The bucketed store: a trace lives in one bucket, a linking input moves rows, a store of an
older layout is refused, and a diagnose of the store records its findings and calls."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.conftest import run_cli
from toolcall_cli.model.events import EVENTS_SCHEMA_VERSION, build_frame
from toolcall_cli.store import manifest as store_manifest
from toolcall_cli.store import part_files
from toolcall_cli.store.layout import ROW
from toolcall_cli.store.manifest import data_files
from toolcall_cli.store.read import load_events
from toolcall_cli.store.results import CALLS_SCHEMA, FINDINGS_SCHEMA
from toolcall_cli.store.write import write_files

TOOLCALL = str(Path(sys.executable).with_name("toolcall"))
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _events(name: str, rows: list[dict[str, str]]) -> pd.DataFrame:
    n = len(rows)
    return build_frame(
        {
            "ts": [f"2025-03-01T12:00:{i % 60:02d}Z" for i in range(n)],
            "seq": list(range(1, n + 1)),
            "source": ["middleware"] * n,
            "origin": [f"/evidence/{name}:{i + 1}" for i in range(n)],
            "kind": ["mw_received"] * n,
            **{c: [r[c] for r in rows] for c in rows[0]},
        }
    )


def _buckets_of(store: Path, col: str, value: str) -> set[str]:
    out = set()
    for pf in data_files(store):
        ids = pq.read_table(pf, columns=[col])[col].to_pylist()
        if value in ids:
            out.add(pf.parent.name)
    return out


def test_a_trace_lives_in_one_bucket_and_a_linking_input_moves_it(tmp_path: Path) -> None:
    a = _events("a.log", [{"trace_id": f"A{i}", "tool_call_id": f"a{i}"} for i in range(40)])
    b = _events("b.log", [{"trace_id": f"B{i}", "tool_call_id": f"b{i}"} for i in range(40)])
    write_files(tmp_path, [(Path("/evidence/a.log"), "middleware", a)])
    write_files(tmp_path, [(Path("/evidence/b.log"), "middleware", b)])
    assert len({p.parent.name for p in data_files(tmp_path)}) > 1  # spread over buckets
    # one line names a call of A7 and the trace B9: the two components become one
    link = _events("link.log", [{"trace_id": "B9", "tool_call_id": "a7"}])
    write_files(tmp_path, [(Path("/evidence/link.log"), "middleware", link)])
    where = _buckets_of(tmp_path, "trace_id", "A7") | _buckets_of(tmp_path, "trace_id", "B9")
    assert len(where) == 1
    # readers see the inputs in key order, each in its own order, whatever the buckets
    keyed = sorted(
        [("/evidence/a.log", a), ("/evidence/b.log", b), ("/evidence/link.log", link)],
        key=lambda kv: store_manifest.file_key(Path(kv[0])),
    )
    want = pd.concat([df for _, df in keyed], ignore_index=True)
    pd.testing.assert_frame_equal(load_events(tmp_path), want)


def _flat_store(root: Path, df: pd.DataFrame, path: Path, manifest: dict[str, int]) -> None:
    """A store as toolcall wrote it before buckets: a flat `events/<key>.parquet` per input and
    a manifest of *manifest*'s shape (no `parts`)."""
    key = store_manifest.file_key(path)
    table = pa.Table.from_pandas(df, preserve_index=False)
    table = table.append_column(ROW, pa.array(np.arange(len(df), dtype=np.int64)))
    (root / "events").mkdir(parents=True)
    pq.write_table(part_files.sort_rows(table), root / "events" / f"{key}.parquet")
    entry = {"path": str(path), "source": "middleware", "events": len(df), "unparsed": 0}
    (root / "manifest.json").write_bytes(orjson.dumps({**manifest, "files": {key: entry}}))


OLD_MANIFESTS: dict[str, dict[str, int]] = {
    "layout-1": {"schema_version": EVENTS_SCHEMA_VERSION},  # no layout recorded
    "layout-3": {"schema_version": EVENTS_SCHEMA_VERSION, "layout": 3},
}
COMMANDS = {
    "ingest": ["ingest", str(FIXTURES / "incidents" / "flooding-model-loop")],
    "diagnose": ["diagnose"],
    "timeline": ["timeline", "--trace-id", "T1"],
    "replay": ["replay", "--trace-id", "T1"],
    "query": ["query", "SELECT count(*) FROM events"],
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("shape", OLD_MANIFESTS)
def test_a_store_of_an_older_layout_is_refused_with_re_ingest(
    tmp_path: Path, shape: str, command: str
) -> None:
    store = tmp_path / "store"
    old = _events("old.log", [{"trace_id": "T1", "tool_call_id": "c1"}])
    _flat_store(store, old, Path("/evidence/old.log"), OLD_MANIFESTS[shape])
    before = _files(store)
    res = run_cli([*COMMANDS[command], "--store", str(store)])
    assert res.exit_code == 3, res.stderr
    assert res.stderr.splitlines() == [
        f"toolcall: error: the store {store} was written by an older toolcall",
        "  hint: re-ingest the evidence into a new store",
    ]
    assert res.stdout == ""
    assert _files(store) == before  # left as it was


def _files(store: Path) -> list[Path]:
    """The store's files but an ingest's (empty) lock file."""
    return sorted(p.relative_to(store) for p in store.rglob("*") if p.name != ".lock")


def test_a_diagnose_of_the_store_records_findings_and_calls(tmp_path: Path) -> None:
    store = tmp_path / "store"
    bundle = FIXTURES / "incidents" / "flooding-model-loop"
    run = [TOOLCALL, "-q"]
    assert (
        subprocess.run(
            [*run, "ingest", "--store", str(store), str(bundle)], cwd=tmp_path
        ).returncode
        == 0
    )
    diagnose = [*run, "diagnose", "--store", str(store), "-f", "json", "--fail-on", "never"]
    reports = [
        subprocess.run(diagnose, capture_output=True, text=True, cwd=tmp_path) for _ in range(2)
    ]
    assert all(r.returncode == 0 for r in reports), reports[0].stderr
    codes = sorted(f["code"] for f in json.loads(reports[0].stdout)["findings"])
    findings = pq.read_table(store / "findings", schema=FINDINGS_SCHEMA).to_pandas()
    assert findings["run_id"].nunique() == 1  # the same run again replaces its findings
    assert sorted(findings["code"]) == codes
    assert findings["config_fingerprint"].nunique() == 1
    assert {p.parent.name[:7] for p in (store / "findings").rglob("*.parquet")} == {"bucket="}
    calls = pq.read_table(store / "calls", schema=CALLS_SCHEMA).to_pandas()
    assert calls["run_id"].nunique() == 1  # replaced per run
    assert len(calls) > 0 and calls["tool_call_id"].notna().all()


def test_each_finding_lives_in_the_bucket_of_its_trace(tmp_path: Path) -> None:
    """A one-trace question reads one bucket: each recorded finding with a trace id sits in the
    bucket that trace's events were stored in (nine incident bundles, one store)."""
    store = tmp_path / "store"
    bundles = sorted(str(p) for p in (FIXTURES / "incidents").iterdir() if p.is_dir())
    run = [TOOLCALL, "-q"]
    assert (
        subprocess.run([*run, "ingest", "--store", str(store), *bundles], cwd=tmp_path).returncode
        == 0
    )
    diagnose = [*run, "diagnose", "--store", str(store), "-f", "json", "--fail-on", "never"]
    assert subprocess.run(diagnose, capture_output=True, cwd=tmp_path).returncode == 0
    placed = [
        (pf.parent.name, tid)
        for pf in (store / "findings").rglob("*.parquet")
        for tid in pq.read_table(pf, columns=["trace_id"])["trace_id"].to_pylist()
        if tid
    ]
    assert len({tid for _, tid in placed}) >= 5
    for bucket, tid in placed:
        assert _buckets_of(store, "trace_id", tid) == {bucket}, tid


def test_an_input_bigger_than_a_flush_is_stored_in_slices_and_read_back_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolcall_cli.store import bucket_writer as store_write
    from toolcall_cli.store.bucket_writer import FLUSH_ROWS

    n = 2 * FLUSH_ROWS + 123  # three slices; one session, so one component and one bucket
    big = _events("big.log", [{"session_id": "s", "tool_call_id": f"c{i}"} for i in range(n)])
    write_files(tmp_path / "big", [(Path("/evidence/big.log"), "middleware", big)])
    assert len(data_files(tmp_path / "big")) == 1  # the slices are written together
    monkeypatch.setattr(store_write, "WRITE_ROWS", FLUSH_ROWS)  # a write per slice
    write_files(tmp_path / "st", [(Path("/evidence/big.log"), "middleware", big)])
    parts = data_files(tmp_path / "st")
    assert len(parts) == 3
    back = load_events(tmp_path / "st")
    assert back["tool_call_id"].tolist() == big["tool_call_id"].tolist()
    assert back["origin"].tolist() == big["origin"].tolist()
