"""`toolcall query` tells a user's abort from a client's cancel: the stored `calls` table says
who cancelled each `cancelled` call, when, the evidence and the cancelling event's words
(`cancelled_by`, `cancelled_at`, `cancelled_origin`, `cancelled_note`; null for other calls),
and a store whose calls were recorded before those columns still answers a query naming them.

Real recordings: a Codex rollout whose last turn the user aborted (`turn_aborted`), an MCP
session whose client cancelled a slow call (`notifications/cancelled`).
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pyarrow.parquet as pq
import pytest

from tests.conftest import ROOT, run_cli

CODEX = ROOT / "fixtures/transcripts/codex_rollout.jsonl"
MCP = ROOT / "fixtures/mcp/session_2025-11-25.jsonl"
CANCEL = ("cancelled_by", "cancelled_at", "cancelled_origin", "cancelled_note")
WHO = f"SELECT tool_call_id, outcome, {', '.join(CANCEL)} FROM calls ORDER BY tool_call_id"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both recordings ingested and diagnosed: the store's own calls table."""
    home = tmp_path_factory.mktemp("cancelled")
    res = run_cli(["-q", "ingest", str(CODEX), str(MCP), "--store", "store"], cwd=home)
    assert res.exit_code == 0, res.stderr
    res = run_cli(["-q", "diagnose", "--store", "store", "--fail-on", "never"], cwd=home)
    assert res.exit_code == 0, res.stderr
    return home / "store"


def _rows(store: Path, sql: str) -> list[dict[str, object]]:
    res = run_cli(["-q", "query", sql, "--store", str(store), "-f", "jsonl"])
    assert res.exit_code == 0, res.stderr
    return [orjson.loads(line) for line in res.stdout.splitlines()]


def test_the_calls_table_says_who_cancelled_and_why(store: Path) -> None:
    cancelled = [r for r in _rows(store, WHO) if r["outcome"] == "cancelled"]
    assert cancelled == [
        {
            "tool_call_id": "4",
            "outcome": "cancelled",
            "cancelled_by": "client",
            "cancelled_at": "2026-12-01T09:41:20.210786Z",
            "cancelled_origin": f"{MCP}:13",
            "cancelled_note": "timed out after 1.0s",
        },
        {
            "tool_call_id": "call_R3run",
            "outcome": "cancelled",
            "cancelled_by": "user",
            "cancelled_at": "2025-09-10T14:00:16.100000Z",
            "cancelled_origin": f"{CODEX}:14#/payload",
            "cancelled_note": "turn aborted: interrupted",
        },
    ]
    others = [r for r in _rows(store, WHO) if r["outcome"] != "cancelled"]
    assert len(others) == 8 and all(r[c] is None for r in others for c in CANCEL)


def test_a_store_recorded_before_the_columns_still_answers(store: Path, tmp_path: Path) -> None:
    """Calls files written without the cancel columns (as every diagnose wrote them before):
    a query naming them gets nulls, and `SELECT *` has the old columns first, as they were."""
    import shutil

    old = tmp_path / "store"
    shutil.copytree(store, old)
    files = sorted((old / "calls").rglob("*.parquet"))
    assert files
    for f in files:
        table = pq.read_table(f)
        pq.write_table(table.drop_columns(list(CANCEL)), f)
    rows = _rows(old, WHO)
    assert [r["tool_call_id"] for r in rows] == [r["tool_call_id"] for r in _rows(store, WHO)]
    assert all(r[c] is None for r in rows for c in CANCEL)
    (first,) = _rows(old, "SELECT * FROM calls WHERE tool_call_id = 'call_R3run'")
    kept = list(pq.read_table(files[0]).schema.names)
    assert list(first)[: len(kept)] == kept and list(first)[-len(CANCEL) :] == list(CANCEL)
