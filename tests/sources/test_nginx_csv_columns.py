"""The CSV reader of combined lines (:mod:`toolcall_cli.sources.nginx.csv_columns`) gives exactly
what the split path and the regex give: on varied lines, real corpus logs and lines written to
trip a lenient CSV reader; and it takes the rows it should."""

from __future__ import annotations

import random
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import toolcall_cli.sources.nginx as nginx
from bench.cli_bench import wide_nginx
from fixtures.gen import bench_inputs
from tests.sources.test_nginx_fastpath import CORPUS_FILES, NGINX, fallback_frame, varied_lines
from toolcall_cli.model.arrow import text_lengths
from toolcall_cli.sources._shared.textlog import nonblank, read_lines
from toolcall_cli.sources.base import ParseOptions
from toolcall_cli.sources.nginx.csv_columns import (
    _count_byte,
    _edge_byte,
    cut,
    scan_lines,
)

COMMON = (
    '10.0.0.{i} - - [01/Mar/2025:00:00:0{s} +0000] "POST /tools/get_weather HTTP/1.1" 200 {i} '
    '"-" "agent/1.0" trace_id=t{i} session_id=s{i} tool_call_id=c{i} rt=0.{i}'
)

#: Lines a lenient CSV reader misreads, each of the common column count where it can be.
HOSTILE = (
    # text after a closing quote ("ua"x reads as uax)
    '10.0.0.1 - - [01/Mar/2025:00:00:01 +0000] "POST /a HTTP/1.1" 200 5 "-" "ua"x '
    "trace_id=t session_id=s tool_call_id=c rt=1",
    # a doubled quote inside a quoted value
    '10.0.0.1 - - [01/Mar/2025:00:00:01 +0000] "POST /a HTTP/1.1" 200 5 "-" "u""a" '
    "trace_id=t session_id=s tool_call_id=c rt=1",
    # two spaces in the head: an empty column instead of a trailing one
    '10.0.0.1  - [01/Mar/2025:00:00:01 +0000] "POST /a HTTP/1.1" 200 5 "-" "ua" '
    "trace_id=t session_id=s tool_call_id=c rt=1",
    # a tab inside the head
    '10.0.0.1\t- - [01/Mar/2025:00:00:01 +0000] "POST /a HTTP/1.1" 200 5 "-" "ua" '
    "trace_id=t session_id=s tool_call_id=c rt=1 x=1",
    # a `]` inside the time
    '10.0.0.1 - - [01/Mar/2025:00:00:01] +0000] "POST /a HTTP/1.1" 200 5 "-" "ua" '
    "trace_id=t session_id=s tool_call_id=c rt=1",
    # an escaped quote in the request, and one in the agent
    '10.0.0.1 - - [01/Mar/2025:00:00:01 +0000] "GET /a\\" HTTP/1.1" 200 5 "-" "ua" '
    "trace_id=t session_id=s tool_call_id=c",
    '10.0.0.1 - - [01/Mar/2025:00:00:01 +0000] "GET /a HTTP/1.1" 200 5 "-" "u\\"a" '
    "trace_id=t session_id=s tool_call_id=c",
    # a backslash in the request
    '10.0.0.1 - - [01/Mar/2025:00:00:01 +0000] "GET /a\\x22b HTTP/1.1" 200 5 "-" "ua" '
    "trace_id=t session_id=s tool_call_id=c rt=1",
    # unquoted referer, quoted trailing field
    '10.0.0.1 - - [01/Mar/2025:00:00:01 +0000] "GET /a HTTP/1.1" 200 5 - "ua" "x" '
    "session_id=s tool_call_id=c rt=1",
    # quoted trailing values, with and without a space
    '10.0.0.1 - - [01/Mar/2025:00:00:01 +0000] "GET /a HTTP/1.1" 200 5 "-" "ua" '
    'trace_id="t 1" session_id=s tool_call_id=c',
    '10.0.0.1 - - [01/Mar/2025:00:00:01 +0000] "GET /a HTTP/1.1" 200 5 "-" "ua" '
    'trace_id="t" session_id=s tool_call_id=c rt=1',
    # a quote inside the head and inside the status
    '10.0.0."1 - - [01/Mar/2025:00:00:01 +0000] "GET /a HTTP/1.1" 200 5 "-" "ua" '
    "trace_id=t session_id=s tool_call_id=c rt=1",
    '10.0.0.1 - - [01/Mar/2025:00:00:01 +0000] "GET /a HTTP/1.1" 2"0 5 "-" "ua" '
    "trace_id=t session_id=s tool_call_id=c rt=1",
    # odd status and size, a missing zone, an unterminated quote
    '10.0.0.1 - - [01/Mar/2025:00:00:01 +0000] "GET /a HTTP/1.1" 2000 5 "-" "ua" '
    "trace_id=t session_id=s tool_call_id=c rt=1",
    '10.0.0.1 - - [01/Mar/2025:00:00:01 +0000] "GET /a HTTP/1.1" 200 5x "-" "ua" '
    "trace_id=t session_id=s tool_call_id=c rt=1",
    '10.0.0.1 - - [01/Mar/2025:00:00:01+0000] "GET /a HTTP/1.1" 200 5 "-" "ua" '
    "trace_id=t session_id=s tool_call_id=c rt=1 x=2",
    '10.0.0.1 - - [01/Mar/2025:00:00:01 +0000] "GET /a HTTP/1.1 200 5 "-" "ua" '
    "trace_id=t session_id=s tool_call_id=c rt=1",
    # empty fields, trailing spaces and tabs, non-ASCII, repeated and unknown keys
    '- - - [ +0000] "" - - "" "" trace_id= session_id= tool_call_id= rt=',
    '10.0.0.1 - - [01/Mar/2025:00:00:01 +0000] "GET /é HTTP/1.1" 200 5 "-" "ü" '
    "trace_id=t session_id=s tool_call_id=c rt=1 ",
    '10.0.0.1 - - [01/Mar/2025:00:00:01 +0000] "GET / HTTP/1.1" 200 5 "-" "ua" '
    "trace_id=t  session_id=s tool_call_id=c\trt=1",
    '10.0.0.1 - - [01/Mar/2025:00:00:01 +0000] "GET / HTTP/1.1" 200 5 "-" "ua" '
    "trace_id=t trace_id=u cache=HIT cache=MISS",
    # blank, white and junk lines
    "",
    "   ",
    "\t",
    "junk",
    "{}",
)


def _forced(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CSV reader on inputs of any size."""
    monkeypatch.setattr(nginx, "CSV_MIN_LINES", 0)


def _write(path: Path, lines: list[str], end: str = "\n") -> Path:
    path.write_bytes((end.join(lines) + end).encode())
    return path


def _taken(path: Path) -> int:
    data = path.read_bytes()
    starts, ends, _ = scan_lines(data)
    got = cut(data, starts, ends)
    return 0 if got is None else len(got.taken)


@pytest.mark.parametrize("seed", [5, 17])
def test_csv_reader_equals_the_fallback_on_varied_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    _forced(monkeypatch)
    path = _write(tmp_path / "varied.log", varied_lines(6000, seed=seed))
    assert _taken(path) > 1000  # the common lines go through the reader
    pd.testing.assert_frame_equal(nginx.ADAPTER.parse(path, ParseOptions()), fallback_frame(path))


@pytest.mark.parametrize("end", ["\n", "\r\n"])
def test_csv_reader_equals_the_fallback_on_hostile_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, end: str
) -> None:
    _forced(monkeypatch)
    rnd = random.Random(3)
    lines = [COMMON.format(i=i, s=i % 10) for i in range(400)]
    for bad in HOSTILE * 3:
        lines.insert(rnd.randrange(len(lines)), bad)
    path = _write(tmp_path / "hostile.log", lines, end)
    # every common line, and the five hostile ones that are canonical joins of their columns
    # (quotes and odd spaces only in the trailing text, which is read as written)
    assert _taken(path) == 400 + 3 * 5
    frame = nginx.ADAPTER.parse(path, ParseOptions())
    pd.testing.assert_frame_equal(frame, fallback_frame(path))
    assert (frame["kind"] == "unparsed").sum() > 0


def test_csv_reader_stays_out_of_inputs_it_cannot_line_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `\\r` inside a line (a row break to the reader), invalid UTF-8 and a quote left open
    at the end: the split path reads those files, with the same rows."""
    _forced(monkeypatch)
    common = [COMMON.format(i=i, s=i % 10) for i in range(300)]
    cases = {
        "cr.log": "\n".join([*common[:100], common[100] + "\r x=1", *common[101:], ""]).encode(),
        "latin1.log": ("\n".join(common) + "\n").encode() + b'1.2.3.4 - - [x] "\xe9" 200 1\n',
        "open.log": ("\n".join(common) + '\n1.2.3.4 - - [x] "GET').encode(),
    }
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        frame = nginx.ADAPTER.parse(path, ParseOptions())
        pd.testing.assert_frame_equal(frame, fallback_frame(path))
        assert (frame["kind"] == "http_access").sum() >= 299


@pytest.mark.corpus
@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: str(p.relative_to(NGINX)))
def test_csv_reader_equals_the_fallback_on_corpus(
    corpus: Path, path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines, _ = nonblank(read_lines(path, ParseOptions())[0])
    if nginx._looks_json(lines):
        pytest.skip("a JSON access log (not the combined branch)")
    _forced(monkeypatch)
    pd.testing.assert_frame_equal(nginx.ADAPTER.parse(path, ParseOptions()), fallback_frame(path))


@pytest.mark.parametrize("shape", ["compact", "wide"])
def test_csv_reader_takes_every_bench_line_and_equals_the_fallback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    """The bench's two line shapes: every line through the reader (no line for the split path
    or the regex), the same table as the slow paths give."""
    _forced(monkeypatch)
    path = bench_inputs.nginx(tmp_path / "compact.log", 3000)
    if shape == "wide":
        wide_nginx(path, tmp_path / "wide.log")
        path = tmp_path / "wide.log"
    assert _taken(path) == 3000
    pd.testing.assert_frame_equal(nginx.ADAPTER.parse(path, ParseOptions()), fallback_frame(path))


def test_offset_shortcuts_equal_the_kernels() -> None:
    """The checks read from offsets and bytes give what the string kernels give."""
    vals = pa.array(["", "[", "a[", "[a", "+0000]", "+0000]]", "]", "x"], pa.large_string())
    vals = vals.slice(1)  # (an offset into the buffers)
    starts = pc.starts_with(vals, "[").to_numpy(zero_copy_only=False)
    assert (_edge_byte(vals, 91, first=True) == starts).all()
    ends = pc.ends_with(vals, "]").to_numpy(zero_copy_only=False)
    assert (_edge_byte(vals, 93, first=False) == ends).all()
    assert _count_byte(vals, 93) == pc.sum(pc.count_substring(vals, "]")).as_py() == 4
    assert (text_lengths(vals) == pc.binary_length(vals).to_numpy()).all()
