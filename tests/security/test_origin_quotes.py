"""A rewritten `origin` column cannot make diagnose quote a file: evidence is read only from
the run's inputs (the files ingested, or the files the store's manifest records)."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from tests.conftest import FIXTURES, run_cli

LOG = FIXTURES / "rules" / "IN001" / "positive.middleware.log"


def test_a_store_whose_origins_point_elsewhere_quotes_nothing_from_there(tmp_path: Path) -> None:
    log = tmp_path / "mw.log"
    shutil.copy(LOG, log)
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET-line\n" * 50)
    store = tmp_path / "store"
    assert run_cli(["-q", "ingest", str(log), "--store", str(store)]).exit_code == 0
    parts = sorted((store / "events").rglob("*.parquet"))
    assert parts
    for part in parts:  # the attacker rewrites every origin to a line of the secret file
        table = pq.read_table(part)
        origins = [f"{secret}:{i + 1}" for i in range(table.num_rows)]
        col = table.schema.get_field_index("origin")
        table = table.set_column(
            col, "origin", pa.array(origins, type=table.schema.field(col).type)
        )
        pq.write_table(table, part)
    res = run_cli(["diagnose", "--store", str(store), "--select", "IN001", "--format", "json"])
    assert res.exit_code == 0, res.stderr  # IN001 is a warning; the store itself still reads
    found = orjson.loads(res.stdout)["findings"]
    assert [f["code"] for f in found] == ["IN001"]
    cited = [e for f in found for e in f["evidence"]]
    assert cited and all(e["origin"].startswith(str(secret)) for e in cited)
    assert "TOPSECRET" not in res.stdout
    assert "TOPSECRET" not in res.stderr
