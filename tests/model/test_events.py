"""The event table schema: build, validate, concat, store round trip."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from toolcall_cli.errors import InputError, InternalError
from toolcall_cli.model.events import (
    COLUMNS,
    build_frame,
    concat_frames,
    empty_frame,
    validate_frame,
)
from toolcall_cli.store.layout import LAYOUT
from toolcall_cli.store.manifest import read_manifest
from toolcall_cli.store.read import load_events
from toolcall_cli.store.write import write_files


def _frame() -> pd.DataFrame:
    return build_frame(
        {
            "ts": ["2025-03-01T12:00:00+01:00", None],
            "seq": [0, 1],
            "source": ["middleware", "messages"],
            "origin": ["a.log:1", "m.json#/messages/0"],
            "kind": ["mw_request", "tool_call"],
            "tool_call_id": ["c1", ""],
            "http_status": [200, None],
            "attrs": ['{"x": 1}', None],
        }
    )


def test_build_frame_fills_and_types() -> None:
    df = validate_frame(_frame())
    assert list(df.columns) == list(COLUMNS)
    assert str(df["ts"].iloc[0]) == "2025-03-01 11:00:00+00:00"
    assert pd.isna(df["ts"].iloc[1])
    assert df["tool_call_id"].iloc[1] == ""  # empty ids are kept, not nulled
    assert pd.isna(df["trace_id"].iloc[0])


def test_validate_rejects_unknown_kind() -> None:
    df = _frame()
    df.loc[0, "kind"] = "bogus"
    with pytest.raises(InternalError):
        validate_frame(df)


def test_unknown_column_is_a_bug() -> None:
    with pytest.raises(InternalError):
        build_frame({"nope": [1]})


def test_concat_keeps_schema() -> None:
    out = concat_frames([empty_frame(), _frame(), _frame()])
    assert len(out) == 4
    validate_frame(out)
    validate_frame(concat_frames([]))


def test_store_round_trip_and_replace(tmp_path: Path) -> None:
    store = tmp_path / "store"
    src = tmp_path / "a.log"
    src.write_text("x")
    write_files(store, [(src, "middleware", _frame())])
    write_files(store, [(src, "middleware", _frame())])  # re-ingest replaces
    back = load_events(store)
    assert len(back) == 2
    pd.testing.assert_frame_equal(back, _frame())
    assert read_manifest(store)["files"]


def test_store_version_mismatch_is_explained(tmp_path: Path) -> None:
    store = tmp_path / "s"
    store.mkdir()
    (store / "manifest.json").write_text(
        json.dumps({"schema_version": 999, "layout": LAYOUT, "files": {}})
    )
    with pytest.raises(InputError, match="schema version"):
        load_events(store)
