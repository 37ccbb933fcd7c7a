"""`--engine local|dask` (issue 20 item 5): the same findings as one process.

The store is a seeded bench-scale bundle (bench/scale/bundle.py: four sources, planted
floods and loops, the incident bundles) of about 10,000 events: enough for every bucket to
hold traces, two planted floods and several planted sessions; `make bench-scale` runs the
same comparison on a store of millions. The Dask cluster is a real `LocalCluster` of two
worker processes on loopback.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from bench.scale.bundle import write_bundle
from tests.conftest import GOLDEN_ENV, ROOT, need_module, run_cli

EVENTS = 10_000
EVENTS_SQL = "SELECT * EXCLUDE (attrs) FROM events ORDER BY ALL"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding the bundle and its store, ingested in one process."""
    home = tmp_path_factory.mktemp("engine")
    write_bundle(home / "bundle", EVENTS, incidents=ROOT / "fixtures" / "incidents")
    res = run_cli(["-q", "ingest", "bundle", "--store", "store"], cwd=home)
    assert res.exit_code == 0, res.stderr
    return home


@pytest.fixture(scope="module")
def one_process(home: Path) -> dict[str, object]:
    return _diagnose(home)


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    need_module("distributed", install="pip install 'toolcall[dask]'")
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
    ) as cluster:  # fmt: skip
        yield cluster.scheduler_address


def _diagnose(home: Path, *args: str, store: str = "store") -> dict[str, object]:
    argv = ["-q", "diagnose", "--store", store, "-f", "json", "--fail-on", "never", *args]
    res = run_cli(argv, cwd=home)
    assert res.exit_code == 0, res.stderr
    assert res.stderr == ""
    doc: dict[str, object] = orjson.loads(res.stdout)
    return doc


def test_the_store_is_large_enough_to_split(home: Path, one_process: dict[str, object]) -> None:
    summary = one_process["summary"]
    assert isinstance(summary, dict)
    assert summary["events"] >= EVENTS
    assert summary["by_code"]["FL006"] >= 1  # the planted floods


def test_process_pool_gives_the_same_report(home: Path, one_process: dict[str, object]) -> None:
    assert _diagnose(home, "--workers", "2") == one_process


def test_process_pool_over_paths_gives_the_same_findings(home: Path) -> None:
    bundle = str(home / "bundle" / "incidents")
    one = run_cli(["-q", "diagnose", bundle, "-f", "json", "--fail-on", "never"], cwd=home)
    two = run_cli(
        ["-q", "diagnose", bundle, "-f", "json", "--fail-on", "never", "--workers", "2"], cwd=home
    )
    assert (one.exit_code, two.exit_code) == (0, 0)
    assert orjson.loads(two.stdout)["findings"] == orjson.loads(one.stdout)["findings"]


def test_dask_cluster_ingests_and_diagnoses_the_same(
    home: Path, one_process: dict[str, object], scheduler: str
) -> None:
    res = run_cli(
        ["-q", "ingest", "bundle", "--store", "store-dask", "--engine", "dask",
         "--scheduler", scheduler],
        cwd=home,
    )  # fmt: skip
    assert res.exit_code == 0, res.stderr
    rows = [
        run_cli(["-q", "query", EVENTS_SQL, "--store", s, "-f", "csv"], cwd=home).stdout
        for s in ("store", "store-dask")
    ]
    assert rows[0] == rows[1]
    assert rows[0].count("\n") > EVENTS
    got = _diagnose(home, "--engine", "dask", "--scheduler", scheduler, store="store-dask")
    assert got == one_process


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        (["--engine", "dask"], 2, "--engine dask needs --scheduler tcp://HOST:PORT"),
        (["--engine", "dask", "--scheduler", "nowhere"], 2, "is not a scheduler address"),
        (["--scheduler", "tcp://127.0.0.1:1"], 2, "--scheduler needs --engine dask"),
        (["--workers", "2", "-f", "html"], 2, "--format html draws the whole aligned timeline"),
        (["--engine", "dask", "--scheduler", "tcp://127.0.0.1:9"], 3, "cannot reach the Dask"),
    ],
)
def test_engine_flags_fail_with_one_line(home: Path, args: list[str], code: int, says: str) -> None:
    res = run_cli(["diagnose", "--store", "store", *args], cwd=home)
    assert res.exit_code == code
    first, hint = res.stderr.splitlines()
    assert first.startswith("toolcall: error: ") and says in first, first
    assert hint.startswith("  hint: ")


def test_dask_engine_without_the_extra_says_how_to_install_it(home: Path) -> None:
    """`toolcall[dask]` is an extra: without `distributed` importable, `--engine dask` is exit 4
    with the install line (the import is blocked in the child, toolcall itself is as shipped)."""
    block = "import sys; sys.modules['distributed'] = None; "
    run = "from toolcall_cli.cli.entry import main; sys.argv[0] = 'toolcall'; main()"
    argv = ["diagnose", "--store", "store", "--engine", "dask", "--scheduler", "tcp://127.0.0.1:9"]
    res = subprocess.run(
        [sys.executable, "-c", block + run, *argv],
        cwd=home,
        capture_output=True,
        text=True,
        env={**GOLDEN_ENV, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert res.returncode == 4, res.stderr
    assert res.stderr.splitlines() == [
        "toolcall: error: --engine dask needs Dask distributed, which this toolcall was "
        "installed without",
        "  hint: pip install 'toolcall[dask]'",
    ]
