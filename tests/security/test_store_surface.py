"""A store is input too: a hostile or damaged one is exit 3 with "re-ingest", never a file
renamed or read outside it, never exit 70.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.conftest import FIXTURES, run_cli
from toolcall_cli.store.index import META
from toolcall_cli.store.manifest import data_files

MW = FIXTURES / "middleware" / "json_lines.log"


@pytest.fixture
def store(tmp_path: Path) -> Path:
    s = tmp_path / "work" / "store"
    res = run_cli(["-q", "ingest", str(MW), "--store", str(s)])
    assert res.exit_code == 0, res.stderr
    return s


def _manifest(store: Path) -> dict[str, Any]:
    return dict(orjson.loads((store / "manifest.json").read_bytes()))


def _write_manifest(store: Path, data: dict[str, Any]) -> None:
    (store / "manifest.json").write_bytes(orjson.dumps(data))


def _timeline(store: Path) -> Any:
    return run_cli(["timeline", "--store", str(store), "--trace-id", "tr-1", "-f", "json"])


def _is_input_error(res: Any) -> None:
    assert res.exit_code == 3, (res.exit_code, res.stderr)
    assert res.stderr.startswith("toolcall: error:") and "re-ingest" in res.stderr


def test_pending_keys_outside_the_store_rename_nothing(store: Path) -> None:
    victim_dir = store.parent / "outside"
    victim_dir.mkdir()
    victim = victim_dir / "precious.parquet.new"
    victim.write_text("mine")
    data = _manifest(store)
    data["pending"] = ["../../outside/precious"]
    _write_manifest(store, data)
    res = _timeline(store)  # a read-only command
    _is_input_error(res)
    assert victim.read_text() == "mine"
    assert not (victim_dir / "precious.parquet").exists()


@pytest.mark.parametrize("key", ["../../outside/evil", "/etc/passwd", "a" * 20 + "/../x"])
def test_file_keys_outside_the_store_are_not_read(store: Path, key: str) -> None:
    outside = store.parent / "outside"
    outside.mkdir(exist_ok=True)
    shutil.copy(data_files(store)[0], outside / "evil.parquet")
    data = _manifest(store)
    data["files"] = {key: {"path": "x", "source": "middleware", "events": 1, "unparsed": 0}}
    _write_manifest(store, data)
    _is_input_error(_timeline(store))
    res = run_cli(["diagnose", "--store", str(store), "-f", "json"])
    _is_input_error(res)


def _rewrite(store: Path, change: Callable[[pa.Table], pa.Table]) -> None:
    for pf in data_files(store):
        table = change(pq.read_table(pf))
        pq.write_table(table, pf)


DAMAGE: dict[str, Callable[[pa.Table], pa.Table]] = {
    "wrong schema": lambda t: pa.table({"x": [1, 2, 3]}),
    "missing columns": lambda t: t.drop_columns(["kind", "tool_call_id"]),
    "wrong types": lambda t: t.set_column(
        t.schema.get_field_index("ts"), "ts", pa.array(["soon"] * t.num_rows)
    ),
    "seq as text": lambda t: t.set_column(
        t.schema.get_field_index("seq"), "seq", pa.array(["x"] * t.num_rows)
    ),
}


@pytest.mark.parametrize("damage", DAMAGE, ids=list(DAMAGE))
@pytest.mark.parametrize("command", ["timeline", "diagnose"])
def test_a_damaged_event_file_is_an_input_error(store: Path, damage: str, command: str) -> None:
    _rewrite(store, DAMAGE[damage])
    if command == "timeline":
        res = _timeline(store)
    else:
        res = run_cli(["diagnose", "--store", str(store), "-f", "json"])
    _is_input_error(res)


@pytest.mark.parametrize("fences", [[3, 1, 2], ["zzz", "aaa"], None, [["x"]], "fence"], ids=str)
def test_odd_index_fences_are_ignored(store: Path, fences: Any) -> None:
    good = json.loads(_timeline(store).stdout)
    for pf in data_files(store):
        ix = pf.with_suffix(".index")
        table = pq.read_table(ix)
        meta = orjson.loads(table.schema.metadata[META])
        meta["fences"] = fences
        pq.write_table(table.replace_schema_metadata({META: orjson.dumps(meta)}), ix)
    res = _timeline(store)
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout) == good  # an index it cannot trust is not used
