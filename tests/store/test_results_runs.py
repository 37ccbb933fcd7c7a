"""The `findings` table keeps one run per question asked of a state of the store
(store/results.py): re-running a diagnose replaces its findings; another scope, another
selection, or new evidence is a run of its own."""

from __future__ import annotations

from pathlib import Path

import orjson

from tests.conftest import ROOT, run_cli

BUNDLE = ROOT / "fixtures/incidents/flooding-model-loop"
OTHER = ROOT / "fixtures/incidents/double-submit"


def _cli(*args: str, cwd: Path) -> str:
    res = run_cli(list(args), cwd=cwd)
    assert res.exit_code == 0, res.stderr
    return res.stdout


def _diagnose(cwd: Path, *args: str) -> str:
    return _cli("-q", "diagnose", "--store", "s", "--fail-on", "never", *args, cwd=cwd)


def _count(cwd: Path, sql: str) -> int:
    return int(_cli("query", sql, "--store", "s", "-f", "csv", cwd=cwd).splitlines()[1])


def test_rediagnosing_replaces_that_runs_findings(tmp_path: Path) -> None:
    _cli("-q", "ingest", str(BUNDLE), "--store", "s", cwd=tmp_path)
    n = len(orjson.loads(_diagnose(tmp_path, "-f", "json"))["findings"])
    assert n > 0
    assert _count(tmp_path, "select count(*) from findings") == n
    _diagnose(tmp_path)
    assert _count(tmp_path, "select count(*) from findings") == n
    assert _count(tmp_path, "select count(distinct run_id) from findings") == 1

    # another question of the same store is a run of its own, and repeating it replaces it
    for _ in range(2):
        _diagnose(tmp_path, "--select", "FL001")
    assert _count(tmp_path, "select count(distinct run_id) from findings") == 2

    # new evidence makes a new state of the store: its diagnose adds a run
    _cli("-q", "ingest", str(OTHER), "--store", "s", cwd=tmp_path)
    _diagnose(tmp_path)
    assert _count(tmp_path, "select count(distinct run_id) from findings") == 3
