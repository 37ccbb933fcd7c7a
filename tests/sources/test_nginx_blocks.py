"""A big access log read block by block gives the rows of one pass (:mod:`nginx.blocks`)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pandas as pd
import pyarrow as pa
import pytest

from bench.cli_bench import wide_nginx
from fixtures.gen import bench_inputs
from tests.sources.test_nginx_csv_columns import varied_lines
from toolcall_cli.sources import nginx
from toolcall_cli.sources._shared.textlog import MemberOrder, json_objects
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.nginx import ADAPTER, blocks


def _whole_and_blocked(path: Path, monkeypatch: pytest.MonkeyPatch, size: int) -> tuple:
    whole = ADAPTER.parse(path, ParseOptions())
    monkeypatch.setattr(blocks, "BLOCK_BYTES", size)
    chunks = list(ADAPTER.parse_chunks(path, ParseOptions()))
    blocked = ADAPTER.parse(path, ParseOptions())
    return whole, chunks, blocked


@pytest.mark.parametrize("shape", ["compact", "wide"])
def test_blocks_of_bench_lines_equal_one_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    monkeypatch.setattr(nginx, "CSV_MIN_LINES", 100)  # every block through the CSV reader
    path = bench_inputs.nginx(tmp_path / "compact.log", 4000)
    if shape == "wide":
        wide_nginx(path, tmp_path / "wide.log")
        path = tmp_path / "wide.log"
    whole, chunks, blocked = _whole_and_blocked(path, monkeypatch, path.stat().st_size // 7)
    assert len(chunks) >= 7
    assert [c.at for c in chunks][:2] == [0, len(chunks[0].frame)]
    pd.testing.assert_frame_equal(blocked, whole)
    assert blocked["origin"].iloc[-1] == f"{path}:4000"


def test_blocks_of_varied_lines_hold_the_same_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(nginx, "CSV_MIN_LINES", 0)
    lines = varied_lines(6000, seed=3)
    path = tmp_path / "varied.log"
    path.write_bytes(("\n".join(lines) + "\n").encode())
    whole, chunks, blocked = _whole_and_blocked(path, monkeypatch, path.stat().st_size // 5)
    assert len(chunks) >= 5
    # (every block holds nulls where the whole file does: the attrs layout is the same too)
    pd.testing.assert_frame_equal(blocked, whole)


def test_small_and_json_logs_are_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small = bench_inputs.nginx(tmp_path / "small.log", 50)
    assert blocks.file_blocks(small) is None
    json_log = tmp_path / "json.log"
    row = {"remote_addr": "10.0.0.1", "request": "GET / HTTP/1.1", "status": "200"}
    # (blank lines first: the sniff reads the first non-blank ones, as a whole file's)
    json_log.write_bytes(b"\n" * 60 + b"".join(orjson.dumps(row) + b"\n" for _ in range(3000)))
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 4096)
    assert blocks.file_blocks(json_log) is not None
    chunks = list(ADAPTER.parse_chunks(json_log, ParseOptions()))
    assert len(chunks) == 1 and len(chunks[0].frame) == 3000
    assert (chunks[0].frame["kind"] == "http_access").all()


def test_member_order_keeps_the_first_layout() -> None:
    order = MemberOrder()
    first = json_objects(
        [("a", pa.array([None, "x"]), "str"), ("b", pa.array(["1", "2"]), "str")], 2, order
    )
    assert first.to_pylist() == ['{"b":"1"}', '{"b":"2","a":"x"}']
    assert order.first == ("b",)
    later = json_objects(
        [("a", pa.array(["y", "z"]), "str"), ("b", pa.array([None, "3"]), "str")], 2, order
    )
    assert later.to_pylist() == ['{"a":"y"}', '{"b":"3","a":"z"}']


def _log(tmp_path: Path, lines: int) -> Path:
    path = tmp_path / "access.log"
    row = '10.0.0.{i} - - [01/Mar/2025:00:00:00 +0000] "GET /t{i} HTTP/1.1" 200 {i} "-" "ua"\n'
    path.write_text("".join(row.format(i=i) for i in range(lines)))
    return path


def test_a_released_block_buffer_takes_the_next_block(tmp_path: Path) -> None:
    path = _log(tmp_path, 3000)
    gen = blocks.file_blocks(path, 20_000)
    assert gen is not None
    seen, joined = set(), b""
    for data in gen:
        seen.add(id(data))
        joined += bytes(data)
        del data
    assert joined == path.read_bytes()
    assert len(seen) <= 2  # (the last, partial line may come alone)


def test_a_block_still_held_or_viewed_is_never_written_over(tmp_path: Path) -> None:
    import numpy as np

    path = _log(tmp_path, 3000)
    gen = blocks.file_blocks(path, 20_000)
    assert gen is not None
    kept = list(gen)  # every block still referenced
    assert b"".join(bytes(b) for b in kept) == path.read_bytes()
    gen = blocks.file_blocks(path, 20_000)
    assert gen is not None
    views, copies = [], []
    for data in gen:
        views.append(np.frombuffer(data, np.uint8))  # a view outlives the block's name
        copies.append(bytes(data))
        del data
    assert [v.tobytes() for v in views] == copies
