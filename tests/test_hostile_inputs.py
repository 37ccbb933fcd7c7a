"""Hostile inputs never crash, hang or flood toolcall (issue 8 §1).

Every case ends with exit 0–3 and either a one-line `toolcall: error:` or counted `unparsed`
records (IN001), within a deadline; a half-broken file keeps every good record. Inputs are
generated in tmp_path (pcap bodies with fixtures/gen/pcapwriter.py); the corpus's request
smuggling captures are read in place.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fixtures.gen.pcapwriter import PcapWriter, http_exchange
from tests.conftest import FIXTURES, run_cli
from toolcall_cli.errors import InputError
from toolcall_cli.sources import ingest_paths, parse_file
from toolcall_cli.sources.base import ParseOptions

MW_LINE = (
    '{"ts":"2025-03-01T12:00:0%d.000Z","event":"tool_call.received","trace_id":"tr-%d",'
    '"tool_call_id":"call_%d","tool":"search","msg":"tool call received"}'
)
NGINX_LINE = (
    '10.0.0.7 - - [01/Mar/2025:12:00:0%d +0000] "POST /tools/search HTTP/1.1" 200 512 "-" "mw/2.3"'
)
SMUGGLING = (
    "http__smuggle-http-request.pcap",
    "http__261__variant-04-te_cl_desync.pcap",
    "http__261__variant-03-cl_negative.pcap",
    "http__261__variant-01-chunk_2pow64_overflow.pcap",
    "http__fake-content-length.pcap",
    "http__content-length-in-request-body.pcap",
)


class Hung(BaseException):
    """Raised by the alarm; a BaseException so the CLI's guard cannot turn it into exit 70."""


@contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Fail the test (instead of hanging the suite) when the block runs longer than *seconds*."""

    def _boom(signum: int, frame: Any) -> None:
        raise Hung(f"no result within {seconds} s")

    old = signal.signal(signal.SIGALRM, _boom)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def cli(args: Sequence[str], *, seconds: int = 60, env: dict[str, str] | None = None) -> Any:
    """Run the CLI in-process under a deadline and check it ended the way §1 demands."""
    with deadline(seconds):
        res = run_cli(list(args), env=env)
    out = res.stdout + res.stderr
    assert "Traceback" not in out, out[-2000:]
    assert res.exit_code in (0, 1, 2, 3), (res.exit_code, res.stderr[-2000:])
    if res.exit_code >= 2:
        lines = res.stderr.strip().splitlines()
        assert lines and lines[0].startswith("toolcall: error: "), res.stderr
        assert all(line.startswith("  hint: ") for line in lines[1:]), res.stderr
    return res


def summary(
    paths: Sequence[Path], *extra: str, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """`ingest --no-store --format json` summary of *paths* (must exit 0)."""
    res = cli(["-q", "ingest", "--no-store", "--format", "json", *extra, *map(str, paths)], env=env)
    assert res.exit_code == 0, res.stderr
    return dict(json.loads(res.stdout)["summary"])


def per_file(s: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """{file name: (events, unparsed)} from an ingest summary."""
    return {Path(f["path"]).name: (f["events"], f["unparsed"]) for f in s["files"]}


def error_of(args: Sequence[str]) -> str:
    res = cli(args)
    assert res.exit_code == 3, (res.exit_code, res.stdout, res.stderr)
    return str(res.stderr)


def mw_log(path: Path, *middle: str, gz: bool = False) -> Path:
    """A middleware log: two good lines around *middle*."""
    text = "\n".join([MW_LINE % (0, 1, 1), *middle, MW_LINE % (2, 2, 2)]) + "\n"
    data = text.encode("utf-8", errors="surrogateescape")
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


# --- empty, binary, missing ---------------------------------------------------------------


def test_empty_file_is_a_one_line_error_and_skipped_inside_a_directory(tmp_path: Path) -> None:
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    assert "cannot detect" in error_of(["ingest", "--no-store", str(empty)])
    mw_log(tmp_path / "mw.log")
    s = summary([tmp_path])
    assert per_file(s) == {"mw.log": (2, 0)}
    assert [Path(p["path"]).name for p in s["skipped"]] == ["empty.log"]


@pytest.mark.parametrize("source", ["auto", "messages", "middleware", "nginx"])
def test_random_binary(tmp_path: Path, source: str) -> None:
    blob = tmp_path / "random.bin"
    blob.write_bytes(random.Random(8).randbytes(300_000))
    forced = [] if source == "auto" else ["--source", source]
    res = cli(["-q", "ingest", "--no-store", "--format", "json", *forced, str(blob)])
    if res.exit_code == 0:  # a forced text adapter counts every line it could not read
        s = json.loads(res.stdout)["summary"]
        assert s["unparsed"]["count"] >= 1
        assert all(len(x["text"] or "") <= 2000 for x in s["unparsed"]["samples"])
    else:
        assert res.exit_code == 3


def test_missing_path_and_dangling_symlink(tmp_path: Path) -> None:
    assert "no such file" in error_of(["ingest", "--no-store", str(tmp_path / "nope.log")])
    link = tmp_path / "gone.log"
    link.symlink_to(tmp_path / "nowhere")
    assert "dangling symlink" in error_of(["diagnose", str(link)])


def test_directory_with_unreadable_entries(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    mw_log(bundle / "middleware.log")
    (bundle / "dangling.log").symlink_to(tmp_path / "nowhere")
    os.mkfifo(bundle / "pipe.log")  # opening a FIFO with no writer blocks forever
    (bundle / "dir.log").mkdir()  # a directory named like a file is walked, not opened
    (bundle / "dir.log" / "access.log").write_text(NGINX_LINE % 1 + "\n")
    (bundle / "binary.dat").write_bytes(bytes(range(256)) * 8)
    s = summary([bundle])
    assert per_file(s) == {"middleware.log": (2, 0), "access.log": (1, 0)}
    skipped = {Path(x["path"]).name: x["reason"] for x in s["skipped"]}
    assert skipped["dangling.log"] == "dangling symlink"
    assert "FIFO" in skipped["pipe.log"]
    assert "binary.dat" in skipped
    # every command walks the same way; none of them opens the FIFO
    for cmd in (["diagnose", "--fail-on", "never"], ["timeline"]):
        assert cli(["-q", *cmd, str(bundle)], seconds=60).exit_code == 0
    # named explicitly, a FIFO is an error at once, not a hang
    for src in ([], ["--source", "pcap"], ["--source", "middleware"]):
        err = error_of(["ingest", "--no-store", *src, str(bundle / "pipe.log")])
        assert "not a regular file" in err


# --- deep JSON, wrong types, bad UTF-8, long lines ------------------------------------------


def test_json_nested_200000_levels(tmp_path: Path) -> None:
    deep = "[" * 200_000 + "]" * 200_000
    whole = tmp_path / "deep.json"
    whole.write_text('{"messages": [{"role": "user", "content": "hi"}, ' + deep + "]}")
    s = summary([whole], "--source", "messages")
    assert s["unparsed"]["count"] == 1  # one document nobody can parse: counted, not fatal
    lines = [
        json.dumps({"session_id": "s1", "messages": [{"role": "user", "content": "hi"}]}),
        deep,
        json.dumps(
            {
                "session_id": "s2",
                "messages": [
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "f", "arguments": deep},
                            }
                        ],
                    }
                ],
            }
        ),
    ]
    jsonl = tmp_path / "deep.jsonl"
    jsonl.write_text("\n".join(lines) + "\n")
    s = summary([jsonl])
    assert per_file(s) == {"deep.jsonl": (2, 1)}  # both good sessions kept
    assert s["by_source"]["messages"] == {"user": 1, "tool_call": 1}
    for cmd in (["diagnose", "--fail-on", "never"], ["timeline"], ["replay", "--session-id", "s2"]):
        res = cli(["-q", *cmd, str(jsonl), "--format", "json"])
        assert res.exit_code == 0, (cmd, res.stderr)
        json.loads(res.stdout)


def test_wrong_types_everywhere_in_a_messages_file(tmp_path: Path) -> None:
    doc = {
        "session_id": 5,
        "trace_id": ["x"],
        "messages": [
            {"role": 5, "content": "numeric role"},
            {"role": "assistant", "content": None, "tool_calls": "nope"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": 123, "type": "function", "function": {"name": 7, "arguments": 12}},
                    {
                        "id": "ok1",
                        "type": "function",
                        "function": {"name": "get", "arguments": "{}"},
                    },
                    {"id": None, "function": None},
                    "not a call",
                ],
            },
            {"role": "tool", "tool_call_id": 456, "content": None},
            {"role": "tool", "tool_call_id": "ok1", "content": [{"type": "text", "text": 3}]},
            {"role": None},
            {"content": {"x": 1}},
            5,
            "str",
            None,
            [],
            {},
        ],
    }
    path = tmp_path / "types.json"
    path.write_text(json.dumps(doc))
    s = summary([path])
    events, unparsed = per_file(s)["types.json"]
    assert unparsed >= 8  # every malformed message or call is counted
    res = cli(["-q", "ingest", "--no-store", "--format", "jsonl", str(path)])
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    calls = {r["tool_call_id"]: r for r in rows if r["kind"] == "tool_call"}
    assert calls["ok1"]["tool"] == "get" and calls["ok1"]["args"] == "{}"  # the good call is kept
    assert events == sum(r["kind"] != "unparsed" for r in rows)
    for cmd in (["diagnose", "--fail-on", "never"], ["timeline"]):
        assert cli(["-q", *cmd, str(path)]).exit_code == 0


@pytest.mark.parametrize(
    "bad",
    [
        '{"event": [null, null]}',  # found by the fuzzer: ArrowIndexError (exit 70)
        '{"ts": 9007199254740994, "event": "tool_call.received"}',  # ArrowInvalid (exit 70)
        '{"ts": {"a": 1}, "tool_call_id": 5, "tool": ["x"], "status": true, "size": "big"}',
    ],
)
def test_wrong_types_in_middleware_json_lines(tmp_path: Path, bad: str) -> None:
    log = mw_log(tmp_path / "mw.log", bad)
    events, unparsed = per_file(summary([log], "--source", "middleware"))["mw.log"]
    assert events >= 2 and events + unparsed == 3
    alone = tmp_path / "alone.log"  # a column of only odd values takes another reader path
    alone.write_text(bad + "\n" + bad + "\n")
    res = cli(["-q", "ingest", "--no-store", "--source", "middleware", str(alone)])
    assert res.exit_code == 0, res.stderr


def test_invalid_utf8_keeps_the_good_lines(tmp_path: Path) -> None:
    bad_json = '{"event":"tool_call.received","tool":"t\udcff\udcfe"'
    mw = mw_log(tmp_path / "mw.log", bad_json, "\udcc3( junk \udca0")
    access = tmp_path / "access.log"
    access.write_bytes(
        (NGINX_LINE % 1).encode()
        + b"\n"
        + b'10.0.0.9 - - [01/Mar/2025:12:00:02 +0000] "GET /\xff\xfe HTTP/1.1" 200 5 "-" "\xc3("\n'
        + b"\xff\xfe\xc0garbage\n"
        + (NGINX_LINE % 3).encode()
        + b"\n"
    )
    files = per_file(summary([mw, access]))
    assert files["mw.log"][0] >= 2 and sum(files["mw.log"]) == 4
    assert files["access.log"][0] >= 2 and sum(files["access.log"]) == 4


def test_two_megabyte_single_line(tmp_path: Path) -> None:
    big = "A" * (2 << 20)
    mw = mw_log(tmp_path / "mw.log", MW_LINE.replace("tool call received", big) % (1, 9, 9), big)
    access = tmp_path / "access.log"
    access.write_text(
        "\n".join(
            [
                NGINX_LINE % 1,
                NGINX_LINE.replace("/tools/search", "/" + big) % 2,
                big,
                NGINX_LINE % 3,
            ]
        )
        + "\n"
    )
    with deadline(60):
        s = summary([mw, access])
    files = per_file(s)
    assert files["mw.log"] == (3, 1)
    assert files["access.log"][0] >= 2 and sum(files["access.log"]) == 4
    assert all(len(x["text"] or "") <= 2000 for x in s["unparsed"]["samples"])  # capped, not dumped
    res = cli(["-q", "diagnose", "--fail-on", "never", "--format", "json", str(mw), str(access)])
    assert len(res.stdout) < 1_000_000  # evidence quotes are short


# --- gzip and decompression bombs -------------------------------------------------------


def test_gzip_logs_ingest_like_plain_ones(tmp_path: Path) -> None:
    plain = [FIXTURES / "middleware" / "json_lines.log", FIXTURES / "nginx" / "combined.log"]
    zipped = []
    for p in plain:
        z = tmp_path / (p.name + ".gz")
        z.write_bytes(gzip.compress(p.read_bytes()))
        zipped.append(z)
    a, b = per_file(summary(plain)), per_file(summary(zipped))
    assert {k + ".gz": v for k, v in a.items()} == b
    assert all(ev > 0 for ev, _ in b.values())
    # a gzip log cut short (copied mid-rotation) keeps what inflated
    data = gzip.compress((FIXTURES / "middleware" / "json_lines.log").read_bytes() * 50)
    cut = tmp_path / "cut.log.gz"
    cut.write_bytes(data[: len(data) * 2 // 3])
    events, _ = per_file(summary([cut], "--source", "middleware"))["cut.log.gz"]
    assert events > 0


def _bomb(path: Path, total: int) -> Path:
    """A gzip file that inflates to about *total* bytes of valid middleware lines."""
    block = ((MW_LINE % (1, 1, 1)) + "\n").encode() * ((8 << 20) // 130)
    member = gzip.compress(block, compresslevel=9, mtime=0)
    path.write_bytes(member * max(1, total // len(block)))
    return path


def test_decompression_bomb_is_capped_in_the_core(tmp_path: Path) -> None:
    bomb = _bomb(tmp_path / "bomb.log.gz", 64 << 20)
    opts = ParseOptions(max_decompressed=4 << 20)
    with deadline(30), pytest.raises(InputError, match="decompression bomb"):
        parse_file(bomb, opts=opts)
    with deadline(30):
        result = ingest_paths([tmp_path], opts=opts)  # inside a directory: skipped, with the reason
    assert result.files == () and "decompressed size exceeds" in result.skipped[0][1]


def test_decompression_cap_from_env_and_config(tmp_path: Path) -> None:
    bomb = _bomb(tmp_path / "bomb.log.gz", 64 << 20)
    res = cli(["ingest", "--no-store", str(bomb)], env={"TOOLCALL_MAX_DECOMPRESSED": "2M"})
    assert res.exit_code == 3 and "exceeds 2097152 bytes" in res.stderr
    cfg = tmp_path / "toolcall.toml"
    cfg.write_text("[limits]\nmax_decompressed = 1048576\n")
    res = cli(["--config", str(cfg), "diagnose", str(bomb)])
    assert res.exit_code == 3 and "exceeds 1048576 bytes" in res.stderr
    res = cli(["ingest", "--no-store", str(bomb)], env={"TOOLCALL_MAX_DECOMPRESSED": "lots"})
    assert res.exit_code == 2 and "TOOLCALL_MAX_DECOMPRESSED" in res.stderr


def test_default_cap_bounds_memory(tmp_path: Path) -> None:
    """With no setting at all a 1.2 GiB bomb is refused at the 1 GiB cap, in bounded memory."""
    bomb = _bomb(tmp_path / "bomb.log.gz", 1200 << 20)
    env = {k: v for k, v in os.environ.items() if k != "TOOLCALL_MAX_DECOMPRESSED"}
    code = (
        "import resource, sys\n"
        "from toolcall_cli.cli.app import app\n"
        "try:\n"
        "    app(['ingest', '--no-store', sys.argv[1]])\n"
        "except SystemExit as e:\n"
        "    rc = e.code\n"
        "print('maxrss', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
        "sys.exit(rc)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(bomb)],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=tmp_path,
        env=env,
    )
    assert proc.returncode == 3, proc.stderr
    assert "exceeds 1073741824 bytes" in proc.stderr and "Traceback" not in proc.stderr
    maxrss_kib = int(proc.stderr.rsplit("maxrss", 1)[1].split()[0])
    assert maxrss_kib < 2_600_000, f"peak RSS {maxrss_kib} KiB"  # the cap plus interpreter overhead


# --- pcap -------------------------------------------------------------------------------


@pytest.mark.tshark
def test_truncated_pcap_and_header_over_garbage(tmp_path: Path, tshark: str) -> None:
    full = FIXTURES / "pcap" / "tool_calls.pcap"
    data = full.read_bytes()
    cut = tmp_path / "cut.pcap"
    cut.write_bytes(data[: len(data) * 2 // 3 + 7])  # mid-packet
    garbage = tmp_path / "garbage.pcap"
    garbage.write_bytes(data[:24] + random.Random(1).randbytes(20_000))
    whole = per_file(summary([full]))["tool_calls.pcap"][0]
    got = per_file(summary([cut]))["cut.pcap"][0]
    assert 0 < got < whole  # the frames before the cut are kept
    res = cli(["-q", "ingest", "--no-store", "--format", "json", str(garbage)])
    if res.exit_code == 0:
        assert json.loads(res.stdout)["summary"]["events"] == 0
    cli(["diagnose", "--fail-on", "never", str(cut), str(garbage)])


@pytest.mark.tshark
def test_gzip_bomb_inside_a_pcap_body(tmp_path: Path, tshark: str) -> None:
    cap = tmp_path / "bomb.pcap"
    with PcapWriter(cap) as w:
        c = w.tcp(client=("127.0.0.1", 50000), server=("127.0.0.2", 8080))
        body = b'{"status": "ok", "data": "' + b"A" * (64 << 20) + b'"}'
        http_exchange(
            c,
            1.0,
            1.2,
            "POST",
            "/tools/search",
            {"X-Tool-Call-ID": "c1"},
            {"function": "search", "arguments": "{}"},
            200,
            {},
            body,
            gzip=True,
        )
        c2 = w.tcp(client=("127.0.0.1", 50001), server=("127.0.0.2", 8080))
        http_exchange(
            c2,
            2.0,
            2.2,
            "POST",
            "/tools/search",
            {"X-Tool-Call-ID": "c2"},
            {"function": "search", "arguments": "{}"},
            200,
            {},
            {"status": "ok"},
        )
    assert cap.stat().st_size < 200_000
    with deadline(90):
        df = parse_file(cap, opts=ParseOptions(max_decompressed=1 << 20))
    resp = df[df["kind"] == "http_response"].set_index("tool_call_id")
    size, attrs = resp.loc["c1", "size"], resp.loc["c1", "attrs"]
    assert isinstance(size, (int, np.integer)) and isinstance(attrs, str)  # Int64 cell, JSON text
    assert size <= 1 << 20
    assert json.loads(attrs).get("body_truncated") is True
    assert resp.loc["c2", "status"] == "ok"  # the exchange after the bomb is intact
    # the capture itself gzip-bombed: refused at the cap
    zcap = _bomb(tmp_path / "x.pcap.gz", 16 << 20)
    zcap.write_bytes(gzip.compress(cap.read_bytes()[:24] + b"\0" * (16 << 20)))
    with deadline(30), pytest.raises(InputError, match="decompression bomb"):
        parse_file(zcap, opts=ParseOptions(max_decompressed=1 << 20))


@pytest.mark.tshark
@pytest.mark.corpus
def test_request_smuggling_captures(corpus: Path, tshark: str) -> None:
    paths = [next((corpus / "pcap").glob(f"*/{name}")) for name in SMUGGLING]
    s = summary(paths)
    files = per_file(s)
    assert set(files) == set(SMUGGLING)
    assert all(ev > 0 for ev, _ in files.values())
    res = cli(
        ["-q", "diagnose", "--fail-on", "never", "--format", "json", *map(str, paths[:2])],
        seconds=120,
    )
    assert res.exit_code == 0
    json.loads(res.stdout)
