"""The store's file layout: sorted by trace keys in row groups, read back in input order."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from toolcall_cli.model.events import build_frame, validate_frame
from toolcall_cli.store import part_files
from toolcall_cli.store import write as store_mod
from toolcall_cli.store.layout import ROW
from toolcall_cli.store.manifest import data_files, read_manifest
from toolcall_cli.store.read import load_events, read_file
from toolcall_cli.store.write import write_files

pytestmark = pytest.mark.usefixtures("one_bucket")


def _events(n: int) -> pd.DataFrame:
    # traces interleaved in input order (as in a real log), some rows without any key
    return build_frame(
        {
            "ts": [f"2025-03-01T00:00:{i % 60:02d}Z" for i in range(n)],
            "seq": list(range(n)),
            "source": ["middleware"] * n,
            "origin": [f"mw.log:{i + 1}" for i in range(n)],
            "kind": ["mw_request"] * n,
            "trace_id": [None if i % 7 == 0 else f"t{(i * 5) % 9}" for i in range(n)],
            "tool_call_id": [f"c{i // 2}" for i in range(n)],
        }
    )


@pytest.fixture
def small_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(part_files, "ROW_GROUP", 8)


def _file(store: Path) -> Path:
    return data_files(store)[0]


def test_rows_come_back_in_input_order(tmp_path: Path, small_groups: None) -> None:
    df = _events(60)
    write_files(tmp_path, [(tmp_path / "mw.log", "middleware", df)])
    back = validate_frame(load_events(tmp_path))
    pd.testing.assert_frame_equal(back, df)
    assert read_manifest(tmp_path)["layout"] == store_mod.LAYOUT


def test_file_is_sorted_by_trace_in_small_row_groups(tmp_path: Path, small_groups: None) -> None:
    write_files(tmp_path, [(tmp_path / "mw.log", "middleware", _events(60))])
    pf = pq.ParquetFile(_file(tmp_path))
    assert pf.metadata.num_row_groups == 8
    stored = pf.read(columns=["trace_id"]).column("trace_id").to_pylist()
    keyed = [t for t in stored if t is not None]
    assert keyed == sorted(keyed) and stored[len(keyed) :] == [None] * (len(stored) - len(keyed))
    # one trace spans at most two row groups, so a filtered read skips the others
    col = pf.schema_arrow.get_field_index("trace_id")
    spans = [
        pf.metadata.row_group(g).column(col).statistics for g in range(pf.metadata.num_row_groups)
    ]
    touching = [s for s in spans if s.has_min_max and s.min <= "t4" <= s.max]
    assert 1 <= len(touching) <= 2


def test_filtered_and_column_reads_hide_the_row_column(tmp_path: Path, small_groups: None) -> None:
    write_files(tmp_path, [(tmp_path / "mw.log", "middleware", _events(60))])
    got = read_file(_file(tmp_path), filters=[("trace_id", "==", "t4")])
    assert ROW not in got.column_names
    origins = got.column("origin").to_pylist()
    assert origins == sorted(origins, key=lambda o: int(o.rsplit(":", 1)[1]))  # input order
    assert set(got.column("trace_id").to_pylist()) == {"t4"}
    keys = read_file(_file(tmp_path), columns=["trace_id", "tool_call_id"])
    assert keys.column_names == ["trace_id", "tool_call_id"] and keys.num_rows == 60


#: The schema of every bucketed part (layout 4), as `store_write.normalise` casts them.
#: `toolcall query` reads bucketed parts as one schema (no union_by_name, store/query_tables.py):
#: a change here is a new layout (bump store.LAYOUT: older stores are then refused).
LAYOUT_4_SCHEMA = [
    ("ts", "timestamp[ns, tz=UTC]"),
    ("seq", "int64"),
    *((c, "large_string") for c in ("source", "origin", "kind", "session_id", "trace_id")),
    *((c, "large_string") for c in ("tool_call_id", "request_id", "tool", "args", "status")),
    ("http_status", "int64"),
    ("duration_ms", "double"),
    ("size", "int64"),
    *((c, "large_string") for c in ("instance", "client", "detail", "attrs", "_file")),
    ("_row", "int64"),
]


def test_every_bucketed_part_has_the_layouts_one_schema(tmp_path: Path) -> None:
    write_files(tmp_path, [(Path("mw.log"), "middleware", _events(40))])
    write_files(tmp_path, [(Path("mw2.log"), "middleware", _events(30))])  # a part re-read
    parts = sorted((tmp_path / "events").glob("bucket=*/*.parquet"))
    assert parts and store_mod.LAYOUT == 4
    for part in parts:
        schema = pq.read_schema(part)
        assert [(f.name, str(f.type)) for f in schema] == LAYOUT_4_SCHEMA, part
