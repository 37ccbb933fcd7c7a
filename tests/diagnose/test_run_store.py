"""A store diagnosed bucket by bucket (diagnose/run_store.py) reports exactly what the whole
store diagnosed in one piece reports: the same JSON, findings and summary alike.

Compared on every incident bundle of fixtures/incidents/ (each its own store, and all of them
in one store), and on a generated store whose traces spread over many buckets and whose nginx
clock runs 3 s ahead of the middleware's (so the skew estimate must be the store's, and IN002
must cite the row one run cites).
"""

from __future__ import annotations

import io
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest

from bench.scale import bundle
from tests.conftest import ROOT, run_cli
from toolcall_cli.diagnose.kit.context import DiagnoseReport
from toolcall_cli.model.config import DEFAULT

INCIDENTS = ROOT / "fixtures" / "incidents"
SCENARIOS = sorted(p.name for p in INCIDENTS.iterdir() if (p / "expected.json").is_file())


def _ingest(home: Path, *inputs: str) -> Path:
    res = run_cli(["-q", "ingest", *inputs, "--store", "store"], cwd=home)
    assert res.exit_code == 0, res.stderr
    return home / "store"


def _json(report: DiagnoseReport) -> dict[str, Any]:
    from toolcall_cli.render import RenderOptions, render

    out = io.StringIO()
    render("json", report, out, RenderOptions())
    doc: dict[str, Any] = orjson.loads(out.getvalue())
    return doc


def _both(home: Path, store: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """(whole store in one piece, bucket by bucket), both run from *home*."""
    import os

    from toolcall_cli.diagnose.request import DiagnoseRequest
    from toolcall_cli.diagnose.run import diagnose
    from toolcall_cli.diagnose.run_store import diagnose_store
    from toolcall_cli.store.manifest import read_manifest
    from toolcall_cli.store.read import load_events

    before = Path.cwd()
    os.chdir(home)
    try:
        req = DiagnoseRequest()
        recorded = tuple(str(e["path"]) for e in read_manifest(store)["files"].values())
        whole = diagnose(load_events(store), req, inputs=(str(store),), quotable=recorded)
        pooled = diagnose_store(store, req, cfg=DEFAULT)
        return _json(whole), _json(pooled[0])
    finally:
        os.chdir(before)


@pytest.mark.tshark
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_each_incident_bundle_per_bucket_as_whole(tmp_path: Path, scenario: str) -> None:
    store = _ingest(tmp_path, str(INCIDENTS / scenario))
    whole, pooled = _both(tmp_path, store)
    assert pooled == whole
    expected = orjson.loads((INCIDENTS / scenario / "expected.json").read_bytes())
    assert set(expected["expected_codes"]) <= {f["code"] for f in pooled["findings"]}


@pytest.fixture(params=["merged", "bucket by bucket"])
def merging(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Small buckets diagnosed together (the default), or each bucket as a part of its own."""
    from toolcall_cli.diagnose import run_store

    if request.param == "bucket by bucket":
        monkeypatch.setattr(run_store, "MERGE_ROWS", 0)
    return str(request.param)


@pytest.mark.tshark
def test_all_incident_bundles_in_one_store(tmp_path: Path, merging: str) -> None:
    store = _ingest(tmp_path, str(INCIDENTS))
    whole, pooled = _both(tmp_path, store)
    assert pooled == whole


def test_small_consecutive_buckets_are_merged_up_to_the_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from toolcall_cli.diagnose import run_store

    monkeypatch.setattr(run_store, "MERGE_ROWS", 100)
    buckets: list[tuple[tuple[str, ...], int]] = [
        (("a",), 40), (("b",), 50), (("c",), 20), (("d",), 500), (("e",), 30), (("f",), 0)
    ]  # fmt: skip
    assert run_store._merged(buckets) == [
        (("a", "b"), 90),
        (("c",), 20),
        (("d",), 500),
        (("e", "f"), 30),
    ]


_STAMP = re.compile(r"\[(\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d) \+0000\]")


def _shift_nginx(path: Path, seconds: int) -> None:
    """Every access line's time moved *seconds* ahead (a skewed clock)."""

    def later(m: re.Match[str]) -> str:
        t = datetime.strptime(m.group(1), "%d/%b/%Y:%H:%M:%S") + timedelta(seconds=seconds)
        return f"[{t.strftime('%d/%b/%Y:%H:%M:%S')} +0000]"

    path.write_text(_STAMP.sub(later, path.read_text()))


@pytest.fixture(scope="module")
def skewed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A generated bundle of ~3,000 calls (floods, loops) whose nginx clock is 3 s ahead."""
    home = tmp_path_factory.mktemp("skewed")
    root = home / "bundle"
    root.mkdir()
    calls = 3_000
    bundle.middleware(root, calls)
    bundle.nginx(root / "access-0.log", 0, calls // 2)
    bundle.nginx(root / "access-1.log", calls // 2, calls)
    for log in ("access-0.log", "access-1.log"):
        _shift_nginx(root / log, 3)
    bundle.messages(root / "conversations.jsonl", calls)
    return home, _ingest(home, "bundle")


def test_generated_store_with_clock_skew_per_bucket_as_whole(
    skewed: tuple[Path, Path], merging: str
) -> None:
    home, store = skewed
    manifest = orjson.loads((store / "manifest.json").read_bytes())
    assert len({p["bucket"] for p in manifest["parts"].values()}) >= 32  # many buckets
    whole, pooled = _both(home, store)
    assert pooled == whole
    skew = [f for f in pooled["findings"] if f["code"] == "IN002"]
    assert [f["message"].split()[0] for f in skew] == ["nginx"]  # "nginx clock is offset…"


def test_cli_records_every_bucket_s_calls(skewed: tuple[Path, Path], merging: str) -> None:
    home, store = skewed
    res = run_cli(["-q", "diagnose", "--store", "store", "-f", "json", "--fail-on", "never"],
                  cwd=home)  # fmt: skip
    assert res.exit_code == 0, res.stderr
    summary = orjson.loads(res.stdout)["summary"]
    q = run_cli(["-q", "query", "SELECT count(*) AS n FROM calls", "--store", "store",
                 "-f", "json"], cwd=home)  # fmt: skip
    assert q.exit_code == 0, q.stderr
    assert "n" in q.stdout
    rows = orjson.loads(q.stdout)
    n = rows["rows"][0]["n"] if isinstance(rows, dict) else rows[0]["n"]
    assert n == summary["calls"]
    _each_call_in_its_trace_s_bucket(store)


def _each_call_in_its_trace_s_bucket(store: Path) -> None:
    """Every recorded call sits in the bucket the key map gives its trace, call and session."""
    import pyarrow.parquet as pq

    from toolcall_cli.store.layout import buckets_of
    from toolcall_cli.store.manifest import read_manifest
    from toolcall_cli.store.results import _buckets

    n = buckets_of(read_manifest(store))
    files = sorted((store / "calls").glob("bucket=*/*.parquet"))
    assert files
    for f in files:
        t = pq.read_table(f)
        want = _buckets(store, n, t["trace_id"], t["tool_call_id"], t["session_id"])
        assert set(want.tolist()) == {int(f.parent.name.partition("=")[2])}, f


def test_oversized_buckets_in_parts_of_whole_components(
    skewed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolcall_cli.diagnose import run_store

    home, store = skewed
    monkeypatch.setattr(run_store, "SPLIT_ROWS", 120)  # every bucket in several parts
    whole, pooled = _both(home, store)
    assert pooled == whole
