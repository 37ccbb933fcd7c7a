"""`toolcall ingest` streams: each file is written before the next is parsed, the summary is
gathered file by file (and equals the one taken from all events at once), and a file that
fails half-way commits nothing and leaves no staged files."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import run_cli
from toolcall_cli.errors import InputError
from toolcall_cli.model.events import concat_frames
from toolcall_cli.model.summary import Digest, IngestReport
from toolcall_cli.sources import parse_file
from toolcall_cli.store.manifest import data_files, read_manifest
from toolcall_cli.store.read import load_events
from toolcall_cli.store.write import write_files

FIX = Path(__file__).resolve().parents[2] / "fixtures"
FILES = [
    (FIX / "middleware" / "mixed_bad.log", "middleware"),  # has unparsed records
    (FIX / "nginx" / "combined_trailing.log", "nginx"),
    (FIX / "middleware" / "json_lines.log", "middleware"),
    (FIX / "nginx" / "combined.log", "nginx"),
]


def test_digest_file_by_file_equals_digest_of_all_events() -> None:
    frames = [parse_file(p, source=s) for p, s in FILES]
    assert any((f["kind"] == "unparsed").any() for f in frames)  # samples are exercised
    whole = IngestReport(files=(), events=concat_frames(frames), store=None).summary()
    streamed = IngestReport(
        files=(), events=concat_frames([]), store=None, digest=Digest.of(*frames)
    ).summary()
    assert streamed == whole
    assert whole["events"] > 0 and whole["unparsed"]["count"] > 0


def test_a_failing_part_commits_nothing_and_leaves_no_staged_files(tmp_path: Path) -> None:
    store = tmp_path / "store"
    first = parse_file(FILES[1][0], source="nginx")
    write_files(store, [(FILES[1][0], "nginx", first)])
    before = read_manifest(store)

    def parts() -> Iterator[tuple[Path, str, pd.DataFrame]]:
        yield FILES[2][0], "middleware", parse_file(FILES[2][0], source="middleware")
        raise InputError("the second file is unreadable")

    with pytest.raises(InputError):
        write_files(store, parts())
    assert read_manifest(store) == before
    assert not list((store / "events").rglob("*.new"))
    kept = load_events(store)  # the earlier ingest, whole (the store orders rows by ids)
    assert sorted(kept["origin"].tolist()) == sorted(first["origin"].tolist())


def test_cli_ingest_summary_unchanged_by_streaming(tmp_path: Path) -> None:
    args = ["ingest", *(str(p) for p, _ in FILES), "--store", str(tmp_path / "s"), "-f", "json"]
    got = run_cli(args)
    assert got.exit_code == 0, got.stderr
    summary = json.loads(got.stdout)["summary"]
    frames = [parse_file(p, source=s) for p, s in FILES]
    want = IngestReport(files=(), events=concat_frames(frames), store=None).summary()
    for key in ("events", "by_source", "unparsed", "time_span", "traces", "sessions"):
        assert summary[key] == want[key], key
    assert summary["tool_calls"] == want["tool_calls"]
    assert len(load_events(tmp_path / "s")) == sum(len(f) for f in frames)


def test_a_second_writer_is_refused_while_the_first_stages(tmp_path: Path) -> None:
    """Parts are parsed while earlier ones sit staged: a second ingest must not sweep them."""
    store = tmp_path / "store"
    seen: list[str] = []

    def parts() -> Iterator[tuple[Path, str, pd.DataFrame]]:
        yield FILES[1][0], "nginx", parse_file(FILES[1][0], source="nginx")
        with pytest.raises(InputError) as refused:  # the second writer, mid-way through the first
            write_files(store, [(FILES[2][0], "middleware", parse_file(FILES[2][0]))])
        seen.append(refused.value.message)
        yield FILES[3][0], "nginx", parse_file(FILES[3][0], source="nginx")

    write_files(store, parts())
    assert "being written by another toolcall ingest" in seen[0]
    files = read_manifest(store)["files"]
    assert sorted(e["path"] for e in files.values()) == sorted([str(FILES[1][0]), str(FILES[3][0])])
    assert len(load_events(store)) > 0  # every committed file is readable


def test_roll_forward_refuses_a_commit_whose_events_are_gone(tmp_path: Path) -> None:
    store = tmp_path / "store"
    write_files(store, [(FILES[1][0], "nginx", parse_file(FILES[1][0], source="nginx"))])
    manifest = read_manifest(store)
    pf = data_files(store)[0]
    pf.unlink()
    manifest["pending"] = [pf.stem]
    (store / "manifest.json").write_bytes(json.dumps(manifest).encode())
    with pytest.raises(InputError, match=r"committed events of .* are missing"):
        read_manifest(store)
