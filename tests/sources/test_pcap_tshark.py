"""tshark location and failure modes: missing binary (exit 4), unreadable captures (exit 3)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, assert_golden, run_cli
from toolcall_cli.errors import ExitCode, InputError, MissingDependencyError
from toolcall_cli.sources import parse_file
from toolcall_cli.sources.pcap import tshark as pcap_tshark
from toolcall_cli.sources.pcap.http import BODY_CAP, decode_body

SAMPLE = FIXTURES / "pcap" / "tool_calls.pcap"


def test_missing_tshark_via_env_override_exits_4(update_goldens: bool) -> None:
    assert_golden(
        "ingest/pcap_missing_tshark",
        ["ingest", "--no-store", "fixtures/pcap/tool_calls.pcap"],
        update=update_goldens,
        env={"TOOLCALL_TSHARK": "/nonexistent/tshark"},
    )


def test_missing_tshark_on_empty_path_exits_4(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    res = run_cli(
        ["ingest", "--no-store", str(SAMPLE)], env={"PATH": str(empty), "TOOLCALL_TSHARK": ""}
    )
    assert res.exit_code == 4, res.stderr
    assert "apt-get install tshark" in res.stderr
    assert "Traceback" not in res.stderr


def test_broken_pyshark_is_a_missing_dependency(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # pyshark is asked when tshark's version is not remembered yet (an empty cache here)
    monkeypatch.delenv("TOOLCALL_TSHARK", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setitem(sys.modules, "pyshark.tshark", None)  # `import` now raises ImportError
    pcap_tshark._probe.cache_clear()
    try:
        with pytest.raises(MissingDependencyError) as err:
            pcap_tshark.locate()
    finally:
        pcap_tshark._probe.cache_clear()
    assert err.value.exit_code == ExitCode.ENVIRONMENT
    assert "pyshark cannot be imported" in err.value.message


def _pysharks_answer() -> str | None:
    """pyshark's own search, in a fresh interpreter (pyshark reads the working directory
    once, when it is imported)."""
    probe = (
        "from pyshark.tshark import tshark as t\n"
        "try:\n    print(t.get_process_path())\n"
        "except t.TSharkNotFoundException:\n    print('<none>')"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    answer = done.stdout.strip()
    return None if answer == "<none>" else answer


@pytest.mark.parametrize("config", ["none", "existing", "missing"])
@pytest.mark.parametrize("path_var", ["system", "empty_dir", "unset"])
def test_the_search_finds_what_pyshark_finds(
    config: str, path_var: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # toolcall reads pyshark's config and $PATH without importing pyshark (start-up):
    # the same answer as pyshark's own get_process_path, config.ini or not
    fake = tmp_path / "my-tshark"
    fake.write_text("#!/bin/sh\n", encoding="utf-8")
    named = {"existing": str(fake), "missing": str(tmp_path / "gone")}.get(config)
    if named is not None:
        (tmp_path / "config.ini").write_text(f"[tshark]\ntshark_path = {named}\n")
    monkeypatch.chdir(tmp_path)
    if path_var == "empty_dir":
        (tmp_path / "bin").mkdir()
        monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    elif path_var == "unset":
        monkeypatch.delenv("PATH")
    assert pcap_tshark.search() == _pysharks_answer()
    if config == "existing":
        assert pcap_tshark.search() == str(fake)


@pytest.mark.tshark
def test_env_override_names_the_binary(tshark: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLCALL_TSHARK", tshark)
    monkeypatch.setenv("PATH", "/nonexistent")
    assert len(parse_file(SAMPLE)) == 6


@pytest.mark.tshark
def test_header_over_garbage_is_an_input_error(tmp_path: Path, tshark: str) -> None:
    bad = tmp_path / "garbage.pcap"
    bad.write_bytes(SAMPLE.read_bytes()[:24] + bytes(range(256)) * 8)
    with pytest.raises(InputError, match="cannot read capture"):
        parse_file(bad)
    res = run_cli(["ingest", "--no-store", str(bad)])
    assert res.exit_code == 3 and "Traceback" not in res.stderr


@pytest.mark.tshark
def test_truncated_capture_keeps_what_was_read(tmp_path: Path, tshark: str) -> None:
    cut = tmp_path / "cut.pcap"
    cut.write_bytes(SAMPLE.read_bytes()[:2000])
    df = parse_file(cut)
    assert (df["kind"] == "http_request").sum() >= 2
    unparsed = df[df["kind"] == "unparsed"]
    assert len(unparsed) == 1
    assert "cut short" in unparsed["detail"].iloc[0]
    assert "capture damaged" in json.loads(unparsed["attrs"].iloc[0])["reason"]
    # a truncated .gz behaves the same way
    gz = tmp_path / "cut.pcap.gz"
    gz.write_bytes(gzip.compress(SAMPLE.read_bytes(), mtime=0)[:700])
    assert (parse_file(gz)["kind"] != "unparsed").sum() >= 1


@pytest.mark.tshark
def test_gzip_capture_over_the_cap_is_refused(tmp_path: Path, tshark: str) -> None:
    from toolcall_cli.sources.base import ParseOptions

    gz = tmp_path / "t.pcap.gz"
    gz.write_bytes(gzip.compress(SAMPLE.read_bytes(), mtime=0))
    with pytest.raises(InputError, match="decompression bomb"):
        parse_file(gz, opts=ParseOptions(max_decompressed=1000))


def test_body_decoding_caps_a_bomb() -> None:
    bomb = gzip.compress(b"\0" * (BODY_CAP * 4), mtime=0)
    body, flags = decode_body(bomb, "gzip")
    assert len(body) == BODY_CAP and flags == {"body_truncated": True}


def test_body_decoding_handles_stacked_raw_and_lying_encodings() -> None:
    doc = b'{"status": "ok"}'
    assert decode_body(gzip.compress(gzip.compress(doc)), "gzip, identity, x-gzip")[0] == doc
    raw = zlib.compressobj(wbits=-15)
    assert decode_body(raw.compress(doc) + raw.flush(), "deflate")[0] == doc  # no zlib header
    assert decode_body(zlib.compress(doc), "deflate")[0] == doc
    assert decode_body(doc, "gzip") == (doc, {})  # header lies, body is plain: kept
    assert decode_body(b"\x1f\x8bnot gzip", "gzip")[1] == {"body_decode_error": "gzip"}
