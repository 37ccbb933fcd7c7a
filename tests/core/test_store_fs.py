"""`--store` as an fsspec URL (issue 20 item 5): a `file://` store is the directory it names,
read alike by one process and by a Dask cluster; a file system without a lock and an atomic
rename is refused with a usage error, never written half-safe."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from tests.conftest import ROOT, run_cli
from toolcall_cli.core.store_fs import is_url, store_location
from toolcall_cli.errors import UsageError

INCIDENTS = ROOT / "fixtures" / "incidents"
BUNDLES = ("flooding-model-loop", "silent-drop", "session-state-loss")


def test_a_path_is_itself_and_a_local_url_its_directory(tmp_path: Path) -> None:
    assert store_location("rel/.toolcall") == Path("rel/.toolcall")
    assert store_location(f"file://{tmp_path}/s") == tmp_path / "s"
    assert store_location(f"local://{tmp_path}/s") == tmp_path / "s"
    assert not is_url("C:\\incident\\.toolcall") and is_url("s3://bucket/store")


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("memory://bucket/store", "memory:// gives neither"),
        ("nosuchprotocol://x/store", "Protocol not known: nosuchprotocol"),
    ],
)
def test_a_url_without_atomic_rename_is_refused(url: str, says: str) -> None:
    with pytest.raises(UsageError, match=says):
        store_location(url)


def test_ingest_into_memory_is_a_usage_error_and_writes_nothing() -> None:
    import fsspec

    res = run_cli(["ingest", str(INCIDENTS / "silent-drop"), "--store", "memory://t/store"])
    assert res.exit_code == 2
    assert "memory://t/store" in res.stderr and "atomic" in res.stderr
    assert not fsspec.filesystem("memory").exists("/t/store")


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """The same bundles ingested at a plain path and at a file:// URL."""
    home = tmp_path_factory.mktemp("fs")
    inputs = [str(INCIDENTS / b) for b in BUNDLES]
    plain, url = str(home / "plain"), f"file://{home / 'url'}"
    for store in (plain, url):
        res = run_cli(["-q", "ingest", *inputs, "--store", store])
        assert res.exit_code == 0, res.stderr
    assert (home / "url" / "manifest.json").is_file()  # the URL named that directory
    yield plain, url


def _diagnose(store: str, *args: str) -> list[object]:
    res = run_cli(["-q", "diagnose", "--store", store, "-f", "json", "--fail-on", "never", *args])
    assert res.exit_code == 0, res.stderr
    findings: list[object] = orjson.loads(res.stdout)["findings"]
    return findings


def test_a_file_url_store_gives_the_same_findings_and_timeline(stores: tuple[str, str]) -> None:
    plain, url = stores
    want = _diagnose(plain)
    assert len(want) >= 3
    assert _diagnose(url) == want
    views = [
        run_cli(["timeline", "--store", s, "--trace-id", "trace-loop", "-f", "json"])
        for s in (plain, url)
    ]
    assert [v.exit_code for v in views] == [0, 0]
    assert views[0].stdout == views[1].stdout


def test_a_dask_cluster_diagnoses_a_file_url_store(stores: tuple[str, str]) -> None:
    from distributed import LocalCluster

    plain, url = stores
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
    ) as cluster:  # fmt: skip
        got = _diagnose(url, "--engine", "dask", "--scheduler", cluster.scheduler_address)
    assert got == _diagnose(plain)
