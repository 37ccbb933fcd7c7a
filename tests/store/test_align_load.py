"""Reading one trace out of the store: pushed-down selection, then key expansion."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from tests.align.incident import incident
from toolcall_cli.align import align
from toolcall_cli.align.select import select_traces
from toolcall_cli.errors import InputError, UsageError
from toolcall_cli.store.read_selection import load_selected
from toolcall_cli.store.write import write_files


def _store(tmp: Path, *, row_group: int | None = None) -> Path:
    ev = incident()
    parts = [
        (Path(f"/evidence/{s}"), str(s), g.reset_index(drop=True)) for s, g in ev.groupby("source")
    ]
    write_files(tmp, parts)
    if row_group:  # re-lay the files out in small row groups: the pruned read path
        for pf in (tmp / "events").glob("*.parquet"):
            pq.write_table(pq.read_table(pf), pf, row_group_size=row_group)
    return tmp


def _origins(df: pd.DataFrame) -> list[str]:
    return sorted(df["origin"])


@pytest.mark.parametrize("row_group", [None, 2])
def test_trace_selection_reads_only_its_group(tmp_path: Path, row_group: int | None) -> None:
    store = _store(tmp_path, row_group=row_group)
    df = load_selected(store, trace_id="T1")
    full = align(incident())
    want = full.events[full.events["trace"] == "T1"]
    assert _origins(df) == _origins(want)  # the id-less pcap responses came along
    got = select_traces(align(df), trace_id="T1").traces[0]
    assert [c.tool_call_id for c in got.calls] == ["c1", "c2"]
    assert _origins(load_selected(store, tool_call_id="c3")) == _origins(
        full.events[full.events["trace"] == "T2"]
    )
    assert len(load_selected(store, session_id="S1")) == len(full.events)


def test_unknown_id_hint_comes_from_the_store(tmp_path: Path) -> None:
    store = _store(tmp_path)
    with pytest.raises(UsageError) as err:
        load_selected(store, trace_id="nope")
    assert "T1" in (err.value.hint or "")
    with pytest.raises(UsageError) as err:
        load_selected(store, session_id="nope")
    assert "S1" in (err.value.hint or "")


def test_empty_store_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        load_selected(tmp_path / "none", trace_id="T1")
    assert len(load_selected(_store(tmp_path))) == len(incident())
