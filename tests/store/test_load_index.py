"""One-trace reads through the id index: exactly the events of the full read filtered, with and
without the index, while reading only the row groups that hold them."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from tests.align.incident import incident
from toolcall_cli.errors import UsageError
from toolcall_cli.model.events import build_frame
from toolcall_cli.store import index as store_index
from toolcall_cli.store import layout as store_layout
from toolcall_cli.store import part_files
from toolcall_cli.store.read import load_events
from toolcall_cli.store.read_selection import MAX_ROUNDS, read_selected
from toolcall_cli.store.write import write_files

_LINKS = ("trace_id", "tool_call_id", "request_id")


def _chains(n: int) -> pd.DataFrame:
    """Calls whose events carry only some of the keys, so a trace is found by following call
    and request ids: the middleware knows trace + call, nginx call + request, and a retry
    carries only the request id."""
    rows: dict[str, list[object]] = {
        k: []
        for k in (
            "ts",
            "seq",
            "source",
            "origin",
            "kind",
            "trace_id",
            "tool_call_id",
            "request_id",
            "session_id",
        )
    }

    def add(kind: str, trace: str | None, call: str | None, req: str | None) -> None:
        i = len(rows["seq"])
        rows["ts"].append(f"2025-03-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z")
        rows["seq"].append(i)
        rows["source"].append("middleware")
        rows["origin"].append(f"chain.log:{i + 1}")
        rows["kind"].append(kind)
        rows["trace_id"].append(trace)
        rows["tool_call_id"].append(call)
        rows["request_id"].append(req)
        rows["session_id"].append(f"s{i % 3}" if trace else None)

    for c in range(n):  # interleaved: call c's events are far apart in the input
        add("mw_received", f"t{c % 17}", f"k{c}", None)
    for c in range(n):
        add("mw_request", None, f"k{c}", f"q{c}")
    for c in range(n):
        add("mw_response", None, None, f"q{c}")
        add("mw_other", None, "", None)  # empty ids link nothing
    return build_frame(rows)


def _reference(
    full: pd.DataFrame, *, trace_id: str | None, session_id: str | None, tool_call_id: str | None
) -> pd.DataFrame:
    """The selection computed over the whole table with pandas (the semantics, spelled out)."""

    def eq(col: str, value: str) -> pd.Series:
        return (full[col] == value).fillna(False).astype(bool)

    mask = pd.Series(False, index=full.index)
    if trace_id is not None:
        mask |= eq("trace_id", trace_id) | eq("tool_call_id", trace_id) | eq("session_id", trace_id)
    if session_id is not None:
        mask |= eq("session_id", session_id)
    if tool_call_id is not None:
        mask |= eq("tool_call_id", tool_call_id)
    seen: dict[str, set[str]] = {c: set() for c in _LINKS}
    for _ in range(MAX_ROUNDS):
        sub = full[mask]
        new = {c: {str(v) for v in sub[c].dropna() if str(v).strip()} - seen[c] for c in _LINKS}
        if not any(new.values()):
            break
        for c in _LINKS:
            seen[c] |= new[c]
            mask |= full[c].isin(seen[c]).fillna(False).astype(bool)
    sub = full[mask]
    req = sub[(sub["source"] == "pcap") & (sub["kind"] == "http_request")]
    names = tuple({f"{str(o).rsplit('#frame=', 1)[0]}#frame=" for o in req["origin"]})
    if names:
        idless = (full["source"] == "pcap") & (full["kind"] == "http_response")
        idless &= full["tool_call_id"].isna() & full["origin"].str.startswith(names)
        mask |= idless.fillna(False).astype(bool)
    return full[mask].reset_index(drop=True)


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """The same events in small row groups: once with the index, once with it lost (scanned)."""
    indexed = tmp_path_factory.mktemp("indexed")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(part_files, "ROW_GROUP", 16)
        mp.setattr(store_index, "CHUNK", 8)
        mp.setattr(store_layout, "BUCKETS", 1)  # the index against a scan, inside one file
        ev = incident()
        parts = [
            (Path(f"/evidence/{s}"), str(s), g.reset_index(drop=True))
            for s, g in ev.groupby("source")
        ]
        write_files(indexed, [*parts, (Path("/evidence/chain.log"), "middleware", _chains(60))])
    scanned = tmp_path_factory.mktemp("scanned")
    shutil.copytree(indexed, scanned, dirs_exist_ok=True)
    for idx in (scanned / "events").rglob(f"*{store_index.SUFFIX}"):
        idx.unlink()
    yield indexed, scanned


SELECTIONS = [
    {"trace_id": "T1"},  # the incident: pcap responses without ids come along
    {"trace_id": "T2"},
    {"trace_id": "t3"},  # found through call ids, then request ids
    {"trace_id": "k5"},  # a trace named by a call id
    {"trace_id": "S1"},  # ... or by a session id
    {"session_id": "s1"},
    {"tool_call_id": "c3"},
    {"tool_call_id": "k44"},
    {"trace_id": "t3", "tool_call_id": "k7"},
]


def _name(sel: dict[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in sel.items())


@pytest.mark.parametrize("sel", SELECTIONS, ids=_name)
def test_one_trace_read_is_the_full_read_filtered(
    stores: tuple[Path, Path], sel: dict[str, str]
) -> None:
    indexed, scanned = stores
    ids = {"trace_id": None, "session_id": None, "tool_call_id": None, **sel}
    want = _reference(load_events(indexed), **ids)
    got, stats = read_selected(indexed, **ids)
    old, old_stats = read_selected(scanned, **ids)
    assert len(want) > 1
    pd.testing.assert_frame_equal(got, want)
    pd.testing.assert_frame_equal(old, want)
    assert stats.scanned_files == 0 and old_stats.scanned_files == 1
    assert stats.row_groups == old_stats.row_groups
    assert stats.row_groups_read <= old_stats.row_groups_read < stats.row_groups


def test_index_reads_only_the_row_groups_of_the_trace(stores: tuple[Path, Path]) -> None:
    indexed, _ = stores
    got, stats = read_selected(indexed, trace_id="t3")
    assert {"mw_received", "mw_request", "mw_response"} <= set(got["kind"])
    # 4 calls of t3, 3 events each, spread over the input: a few of the 17 row groups
    assert len(got) == 12 and stats.row_groups == 17 and stats.row_groups_read <= 8


def test_unknown_ids_are_hinted_from_the_index(stores: tuple[Path, Path]) -> None:
    for store in stores:
        with pytest.raises(UsageError) as err:
            read_selected(store, trace_id="nope")
        assert "T1" in (err.value.hint or "") and "(+" in (err.value.hint or "")
        with pytest.raises(UsageError) as err:
            read_selected(store, tool_call_id="nope")
        assert "c1" in (err.value.hint or "")
