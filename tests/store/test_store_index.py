"""The id index written beside each store file: exact row groups per id, and never trusted when
it does not match its event file."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from toolcall_cli.model.events import build_frame
from toolcall_cli.store import index as store_index
from toolcall_cli.store import part_files
from toolcall_cli.store import write as store_mod
from toolcall_cli.store.index import INDEXED, IdIndex
from toolcall_cli.store.manifest import data_files, read_manifest
from toolcall_cli.store.read import read_file, row_groups_of
from toolcall_cli.store.write import write_files

ODD = ["", "a\x1fb", "é-ü", "x" * 300, " "]  # empty, the key separator, non-ASCII, long, blank
CAPS = ("cap0.pcap", "we#frame=ird\n.pcap")  # a capture path may hold `#frame=` and newlines

pytestmark = pytest.mark.usefixtures("one_bucket")


def _events(n: int) -> pd.DataFrame:
    """Interleaved traces; some rows keyed only by a call or request id, some by nothing."""
    trace = [None if i % 5 == 0 else f"t{(i * 7) % 13}" for i in range(n)]
    call = [ODD[i % len(ODD)] if i % 11 == 0 else f"c{i // 3}" for i in range(n)]
    request = [f"r{i // 4}" if i % 3 == 0 else None for i in range(n)]
    session = [f"s{i % 4}" if i % 2 else None for i in range(n)]
    return build_frame(
        {
            "ts": [f"2025-03-01T00:00:{i % 60:02d}Z" for i in range(n)],
            "seq": list(range(n)),
            "source": ["pcap" if i % 9 == 0 else "middleware" for i in range(n)],
            "origin": [f"{CAPS[i % 4 // 2]}#frame={i}" for i in range(n)],
            "kind": ["http_response" if i % 9 == 0 else "mw_request" for i in range(n)],
            "trace_id": trace,
            "tool_call_id": [None if i % 9 == 0 and i % 2 else c for i, c in enumerate(call)],
            "request_id": request,
            "session_id": session,
        }
    )


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many row groups and many index chunks, so ids span both."""
    monkeypatch.setattr(part_files, "ROW_GROUP", 8)
    monkeypatch.setattr(store_index, "CHUNK", 4)


def _file(store: Path) -> Path:
    return data_files(store)[0]


def _open(pf: Path) -> IdIndex | None:
    return IdIndex.open(pf, pq.ParquetFile(pf))


def test_every_id_maps_to_exactly_its_row_groups(tmp_path: Path, small: None) -> None:
    df = _events(150)
    write_files(tmp_path, [(tmp_path / "mw.log", "middleware", df)])
    assert read_manifest(tmp_path)["layout"] == store_mod.LAYOUT == 4
    pf = _file(tmp_path)
    index = _open(pf)
    assert index is not None
    stored = read_file(pf, columns=list(INDEXED)).to_pandas()  # storage order
    assert pq.ParquetFile(pf).metadata.num_row_groups == 19
    for col in INDEXED:
        for value in stored[col].dropna().unique():
            pos = np.flatnonzero((stored[col] == value).fillna(False).to_numpy(dtype=bool))
            assert index.groups(col, [value]) == set(row_groups_of(pf, pos)), (col, value)
        known = {str(v) for v in stored[col].dropna() if str(v)}
        assert set(index.values(col).to_pylist()) == known
    both = index.groups("tool_call_id", ["c3", "c40"])
    assert both == index.groups("tool_call_id", ["c3"]) | index.groups("tool_call_id", ["c40"])
    assert index.groups("trace_id", ["nope", "t99"]) == set()
    assert index.groups("trace_id", ["c3"]) == set()  # a value of another column


def test_captures_index_the_id_less_responses(tmp_path: Path, small: None) -> None:
    write_files(tmp_path, [(tmp_path / "cap.pcap", "pcap", _events(150))])
    pf = _file(tmp_path)
    index = _open(pf)
    assert index is not None
    stored = read_file(pf, columns=["source", "kind", "origin", "tool_call_id"]).to_pandas()
    idless = (stored["kind"] == "http_response") & stored["tool_call_id"].isna()
    for cap in (*CAPS, "we"):  # `we#frame=` starts the origins of the second capture too
        mine = idless & stored["origin"].str.startswith(f"{cap}#frame=")
        want = set(row_groups_of(pf, np.flatnonzero(mine.fillna(False).to_numpy(dtype=bool))))
        assert want and index.capture_groups({cap}) == want, cap
    assert index.capture_groups({"cap"}) == set()  # `cap#frame=` starts none of them


@pytest.mark.parametrize("damage", ["missing", "rewritten", "foreign", "garbage", "old-writer"])
def test_an_index_that_does_not_match_is_ignored(tmp_path: Path, small: None, damage: str) -> None:
    # two ingests: one ingest's small inputs share a data file
    write_files(tmp_path, [(tmp_path / "a.log", "middleware", _events(60))])
    write_files(tmp_path, [(tmp_path / "b.log", "middleware", _events(90))])
    a, b = data_files(tmp_path)
    assert _open(a) is not None and _open(b) is not None
    if damage == "missing":
        a.with_suffix(".index").unlink()
    elif damage == "rewritten":  # same rows and metadata, other row groups: a stale index
        pq.write_table(pq.read_table(a), a, row_group_size=5)
    elif damage == "foreign":
        shutil.copy(b.with_suffix(".index"), a.with_suffix(".index"))
    elif damage == "garbage":
        a.with_suffix(".index").write_bytes(b"PAR1 not an index")
    else:  # an older toolcall rewrote the data file (no token) and left the index behind
        table = pq.read_table(a)
        meta = {k: v for k, v in (table.schema.metadata or {}).items() if k != store_index.META}
        pq.write_table(table.replace_schema_metadata(meta), a, row_group_size=8)
    assert _open(a) is None
    assert _open(b) is not None


def test_a_crash_after_the_commit_rolls_the_index_forward_too(
    tmp_path: Path, small: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    part = (tmp_path / "mw.log", "middleware", _events(60))
    write_files(tmp_path, [part])
    monkeypatch.setattr(store_mod, "roll_forward", lambda s, m: m)
    write_files(tmp_path, [(tmp_path / "mw.log", "middleware", _events(70))])
    monkeypatch.undo()
    staged = sorted(p.name for p in (tmp_path / "events").rglob("*.new"))
    assert [n.rsplit(".", 2)[1] for n in staged] == ["index", "parquet"]
    assert read_manifest(tmp_path).get("pending") is None  # the reader finished the ingest
    assert not list((tmp_path / "events").rglob("*.new"))
    pf = _file(tmp_path)
    index = _open(pf)
    assert index is not None and pq.ParquetFile(pf).metadata.num_rows == 70


def test_an_empty_input_is_recorded_without_a_data_file(tmp_path: Path) -> None:
    write_files(tmp_path, [(tmp_path / "none.log", "middleware", _events(0))])
    assert data_files(tmp_path) == []
    assert [e["events"] for e in read_manifest(tmp_path)["files"].values()] == [0]
