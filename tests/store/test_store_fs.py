"""`--store` as an fsspec URL (issue 20 item 5): a `file://` store is the directory it names,
read alike by one process and by a Dask cluster; any other protocol fsspec has installed is
read and written through fsspec (here `memory://`, fsspec's in-memory file system), with the
same findings and timelines as a directory store; an unknown or uninstalled protocol is a
one-line usage error."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from tests.conftest import ROOT, run_cli
from toolcall_cli.errors import UsageError
from toolcall_cli.store.fs import FsspecPath, is_url, store_location

INCIDENTS = ROOT / "fixtures" / "incidents"
BUNDLES = ("flooding-model-loop", "silent-drop", "session-state-loss")


def test_a_path_is_itself_and_a_local_url_its_directory(tmp_path: Path) -> None:
    assert store_location("rel/.toolcall") == Path("rel/.toolcall")
    assert store_location(f"file://{tmp_path}/s") == tmp_path / "s"
    assert store_location(f"local://{tmp_path}/s") == tmp_path / "s"
    assert not is_url("C:\\incident\\.toolcall") and is_url("s3://bucket/store")


def test_a_memory_url_is_a_path_on_that_file_system() -> None:
    store = store_location("memory://t/store")
    assert isinstance(store, FsspecPath)
    part = store / "events" / "bucket=03" / "x.parquet"
    assert str(part) == "memory:///t/store/events/bucket=03/x.parquet"
    assert part.parent.name == "bucket=03" and part.stem == "x"
    assert part.parent.parent.parent == store
    assert store_location(str(part)) == part  # a task's string comes back as the same path
    with pytest.raises(TypeError, match="not a local path"):
        open(part, "rb")  # noqa: SIM115 — nothing reads the local disk under the store's name


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("nosuchprotocol://x/store", "Protocol not known: nosuchprotocol"),
        ("s3://bucket/store", "Install s3fs to access S3"),  # known to fsspec, not installed
    ],
)
def test_an_unknown_or_uninstalled_protocol_is_a_usage_error(url: str, says: str) -> None:
    with pytest.raises(UsageError, match=says):
        store_location(url)
    res = run_cli(["ingest", str(INCIDENTS / "silent-drop"), "--store", url])
    assert res.exit_code == 2
    assert says in res.stderr and "Traceback" not in res.stderr


@pytest.fixture
def memory_store() -> Iterator[str]:
    import fsspec

    name = f"t-{uuid.uuid4().hex[:8]}"
    yield f"memory://{name}/store"
    fsspec.filesystem("memory").rm(f"/{name}", recursive=True)


def test_a_memory_store_gives_the_findings_and_timeline_of_a_directory(
    stores: tuple[str, str], memory_store: str
) -> None:
    import fsspec

    plain, _ = stores
    inputs = [str(INCIDENTS / b) for b in BUNDLES]
    res = run_cli(["-q", "ingest", *inputs, "--store", memory_store])
    assert res.exit_code == 0, res.stderr
    mem = fsspec.filesystem("memory")
    root = memory_store.removeprefix("memory://")
    assert mem.isfile(f"/{root}/manifest.json") and mem.glob(f"/{root}/events/bucket=*/*.parquet")
    assert not mem.glob(f"/{root}/**/*.new") and not mem.exists(f"/{root}/.lock")
    assert _diagnose(memory_store) == _diagnose(plain)
    assert mem.glob(f"/{root}/findings/bucket=*/*.parquet")  # the run is recorded there
    for command in ("timeline", "replay"):  # one-trace reads: the id index, through fsspec
        views = [
            run_cli([command, "--store", s, "--trace-id", "trace-loop", "-f", "json"])
            for s in (plain, memory_store)
        ]
        assert [v.exit_code for v in views] == [0, 0]
        assert views[0].stdout == views[1].stdout and '"trace-loop"' in views[0].stdout
    again = run_cli(["-q", "ingest", inputs[0], "--store", memory_store])  # replaces its events
    assert again.exit_code == 0, again.stderr
    assert _diagnose(memory_store) == _diagnose(plain)


def test_a_memory_store_refuses_what_it_cannot_do(memory_store: str) -> None:
    import fsspec

    res = run_cli(["-q", "ingest", str(INCIDENTS / "silent-drop"), "--store", memory_store])
    assert res.exit_code == 0, res.stderr
    query = run_cli(["query", "SELECT count(*) FROM events", "--store", memory_store])
    assert query.exit_code == 2
    assert "reads a store on the local file system" in query.stderr
    pool = run_cli(["diagnose", "--store", memory_store, "--workers", "2"])
    assert pool.exit_code == 2 and "lives in this process only" in pool.stderr
    lock = memory_store.removeprefix("memory://") + "/.lock"
    fsspec.filesystem("memory").pipe_file(f"/{lock}", b"crashed")  # an ingest that died
    busy = run_cli(["-q", "ingest", str(INCIDENTS / "silent-drop"), "--store", memory_store])
    assert busy.exit_code == 3
    assert "being written by another toolcall ingest" in busy.stderr and ".lock" in busy.stderr


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


def test_a_memory_store_cut_after_its_commit_is_rolled_forward(
    memory_store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The commit is the put of the manifest; the moves after it are redone by the next
    reader when a crash cut them short (object stores have no atomic rename)."""
    import fsspec

    from toolcall_cli.sources import parse_file
    from toolcall_cli.store import write as store_mod
    from toolcall_cli.store.manifest import read_manifest
    from toolcall_cli.store.read import load_events
    from toolcall_cli.store.write import write_files

    log = INCIDENTS / "silent-drop" / "middleware.log"
    store = store_location(memory_store)
    monkeypatch.setattr(store_mod, "roll_forward", lambda s, m: m)  # "crash" after the commit
    write_files(store, [(log, "middleware", parse_file(log, source="middleware"))])
    monkeypatch.undo()
    mem, root = fsspec.filesystem("memory"), memory_store.removeprefix("memory://")
    assert mem.glob(f"/{root}/events/bucket=*/*.parquet.new")  # staged, named as pending
    events = load_events(store)  # the reader finishes the ingest
    assert len(events) == len(parse_file(log, source="middleware"))
    assert read_manifest(store).get("pending") is None
    assert not mem.glob(f"/{root}/**/*.new")
