"""`toolcall query` (issue 20 item 4): SQL over the store, every format, read-only.

The store is built by ingesting the incident bundles; expected values are computed from the
same store with pandas (`load_events`), not restated.
"""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.conftest import ROOT, assert_golden, run_cli
from toolcall_cli.store.read import load_events

FLOODING_PER_INSTANCE = (
    "SELECT instance, detail AS cause, count(*) AS n FROM events "
    "WHERE kind = 'mw_flooded' GROUP BY ALL ORDER BY n DESC"
)
P95_PER_TOOL = (
    "SELECT tool, count(*) AS calls, quantile_cont(service_ms, 0.95) AS p95_ms FROM calls "
    "WHERE service_ms IS NOT NULL GROUP BY tool ORDER BY tool"
)
FL002_LAST_HOUR = (
    "SELECT DISTINCT session_id FROM findings WHERE code = 'FL002' AND trace_id IN "
    "(SELECT trace_id FROM events WHERE ts >= (SELECT max(ts) FROM events) - INTERVAL 1 HOUR) "
    "ORDER BY 1"
)
PER_KIND = "SELECT kind, count(*) AS n FROM events GROUP BY kind ORDER BY kind"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of every incident bundle, in a directory the goldens run from."""
    home = tmp_path_factory.mktemp("query")
    res = run_cli(["-q", "ingest", str(ROOT / "fixtures/incidents"), "--store", "store"], cwd=home)
    assert res.exit_code == 0, res.stderr
    return home / "store"


def _query(store: Path, sql: str, *args: str) -> tuple[int, str, str]:
    res = run_cli(["query", sql, "--store", str(store), *args])
    return res.exit_code, res.stdout, res.stderr


def test_group_by_in_every_format_matches_pandas(store: Path) -> None:
    counts = load_events(store)["kind"].value_counts().sort_index()
    expected = [{"kind": k, "n": int(n)} for k, n in counts.items()]

    code, out, err = _query(store, PER_KIND, "-f", "json")
    assert code == 0, err
    doc = orjson.loads(out)
    assert doc["schema_version"] == 1
    assert doc["columns"] == [{"name": "kind", "type": "VARCHAR"}, {"name": "n", "type": "BIGINT"}]
    assert doc["rows"] == expected
    assert err == f"toolcall: {len(expected)} rows\n"

    code, out, _ = _query(store, PER_KIND, "-f", "jsonl")
    assert [orjson.loads(line) for line in out.splitlines()] == expected

    code, out, _ = _query(store, PER_KIND, "-f", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [{"kind": r["kind"], "n": int(r["n"])} for r in rows] == expected

    code, out, _ = _query(store, PER_KIND, "-f", "markdown")
    lines = out.splitlines()
    assert lines[:2] == ["| kind | n |", "|---|---|"]
    assert len(lines) == 2 + len(expected)

    code, out, _ = _query(store, PER_KIND, "-f", "table")
    assert code == 0
    for row in expected:
        assert str(row["n"]) in out


def test_times_are_iso_utc_like_ingest_jsonl(store: Path) -> None:
    first = load_events(store)["ts"].min()
    code, out, _ = _query(store, "SELECT min(ts) AS first FROM events", "-f", "jsonl")
    assert code == 0
    assert orjson.loads(out) == {"first": first.strftime("%Y-%m-%dT%H:%M:%S.%fZ")}


def test_calls_are_derived_from_events(store: Path) -> None:
    """Without a stored calls table, each tool_call_id is a row with its outcome and latency."""
    events = load_events(store)
    flooded = events.loc[events["kind"] == "mw_flooded", "tool_call_id"].iloc[0]
    code, out, _ = _query(
        store,
        f"SELECT outcome, rejected FROM calls WHERE tool_call_id = '{flooded}'",
        "-f",
        "jsonl",
    )
    assert code == 0
    assert orjson.loads(out) == {"outcome": "flooded", "rejected": True}
    code, out, _ = _query(store, "SELECT count(*) AS n FROM calls", "-f", "jsonl")
    assert orjson.loads(out) == {"n": events["tool_call_id"].nunique()}


def test_examples_as_documented(store: Path, update_goldens: bool) -> None:
    for name, sql in (
        ("flooding_per_instance", FLOODING_PER_INSTANCE),
        ("p95_per_tool", P95_PER_TOOL),
    ):
        assert_golden(
            f"query/{name}", ["query", sql, "--store", "store"], update=update_goldens,
            cwd=store.parent,
        )  # fmt: skip


def test_findings_table_is_read_when_the_store_has_one(store: Path, tmp_path: Path) -> None:
    """A bucketed `findings` table (DESIGN §6b) is queried as it is; without one the view is
    empty with the documented columns."""
    code, out, _ = _query(store, FL002_LAST_HOUR, "-f", "jsonl")
    assert (code, out) == (0, "")

    copy = tmp_path / "store"
    shutil.copytree(store, copy)
    res = run_cli(["-q", "diagnose", "--store", str(copy), "-f", "json", "--fail-on", "never"])
    findings = orjson.loads(res.stdout)["findings"]
    table = pd.DataFrame(
        [
            {k: f.get(k) for k in ("code", "name", "severity", "trace_id", "session_id")}
            for f in findings
        ]
    )
    (copy / "findings" / "bucket=00").mkdir(parents=True)
    pq.write_table(pa.Table.from_pandas(table), copy / "findings" / "bucket=00" / "part.parquet")
    want = sorted({f["session_id"] for f in findings if f["code"] == "FL002"})
    assert want, "the incident bundles plant an FL002"
    code, out, err = _query(copy, FL002_LAST_HOUR, "-f", "jsonl")
    assert code == 0, err
    assert [orjson.loads(line)["session_id"] for line in out.splitlines()] == want


def test_a_query_binds_only_the_views_it_names(store: Path, tmp_path: Path) -> None:
    """A damaged `calls` table fails a query of calls (exit 3), not one of events alone."""
    copy = tmp_path / "store"
    shutil.copytree(store, copy)
    (copy / "calls" / "bucket=00").mkdir(parents=True)
    (copy / "calls" / "bucket=00" / "part.parquet").write_bytes(b"not parquet")
    assert _query(copy, PER_KIND, "-f", "csv")[1] == _query(store, PER_KIND, "-f", "csv")[1]
    shadow = "WITH calls AS (SELECT 1 AS one) SELECT count(*) AS n FROM calls"
    assert _query(copy, shadow, "-f", "csv")[:2] == (0, "n\n1\n")  # a CTE is not the view
    code, out, err = _query(copy, "SELECT count(*) FROM calls")
    assert (code, out) == (3, "")
    assert err.startswith("toolcall: error: cannot read the store: "), err


@pytest.mark.parametrize(
    ("sql", "says"),
    [
        ("COPY (SELECT * FROM events) TO '{store}/copy.csv'", "refused: COPY is not allowed"),
        ("COPY events TO '{elsewhere}/copy.csv'", "refused: COPY is not allowed"),
        ("SELECT * FROM read_csv('/etc/passwd')", 'refused: Permission Error: Cannot access file'),
        ("SELECT * FROM read_text('{store}/manifest.json')", "refused: Permission Error"),
        ("SELECT * FROM '/etc/passwd.parquet'", "refused: Permission Error"),
        ("ATTACH '{store}/x.db'", "refused: ATTACH is not allowed"),
        ("INSTALL httpfs", "refused: INSTALL is not allowed"),
        ("LOAD httpfs", "refused: LOAD is not allowed"),
        ("SET enable_external_access = true", "refused: SET is not allowed"),
        ("CREATE TABLE t AS SELECT 1", "refused: CREATE is not allowed"),
        ("SELECT 1; SELECT 2", "expected one SQL statement, got 2"),
        ("SELEC 1", "the SQL does not parse"),
        ("SELECT nope FROM events", "the query failed: Binder Error"),
    ],
)  # fmt: skip
def test_refused_with_one_line_and_exit_2(store: Path, tmp_path: Path, sql: str, says: str) -> None:
    before = sorted(p.name for p in store.rglob("*"))
    code, out, err = _query(store, sql.format(store=store, elsewhere=tmp_path))
    assert code == 2
    assert out == ""
    first, hint = err.splitlines()
    assert first.startswith(f"toolcall: error: {says}"), first
    assert hint.startswith("  hint: toolcall query runs one read-only SELECT")
    assert sorted(p.name for p in store.rglob("*")) == before
    assert not (tmp_path / "copy.csv").exists()


def test_a_symlink_in_the_store_is_not_read(store: Path, tmp_path: Path) -> None:
    copy = tmp_path / "store"
    shutil.copytree(store, copy)
    outside = tmp_path / "outside.parquet"
    pq.write_table(pa.table({"kind": ["planted"]}), outside)
    (copy / "events" / "zz.parquet").symlink_to(outside)
    code, out, _ = _query(
        copy, "SELECT count(*) AS n FROM events WHERE kind = 'planted'", "-f", "csv"
    )
    assert (code, out) == (0, "n\n0\n")


def test_no_store_is_exit_3(tmp_path: Path) -> None:
    code, out, err = _query(tmp_path / "none", PER_KIND)
    assert (code, out) == (3, "")
    assert err.startswith("toolcall: error: there is no store at ")
    (tmp_path / "empty").mkdir()
    code, _, err = _query(tmp_path / "empty", PER_KIND)
    assert code == 3
    assert "is empty" in err
